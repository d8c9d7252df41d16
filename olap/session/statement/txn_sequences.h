// TxnSequences: the SequenceAccess (olap/plan/binder/sequence_functions.h)
// of a statement running in a Transaction on the transaction thread: nextval
// and setval go to the transaction (logged, kept even if the statement
// fails), currval and lastval to the session's state.
#pragma once

#include <mutex>
#include <string>

#include "forktail/transaction.h"
#include "olap/plan/binder/sequence_functions.h"
#include "storage/error.h"

namespace forktail {

class TxnSequences final : public SequenceAccess {
 public:
  // `catalog`: the live catalog the transaction changes. `read_only`: the
  // transaction is READ ONLY, where nextval and setval fail with 25006 as in
  // PostgreSQL (currval and lastval still answer).
  TxnSequences(Transaction& txn, const Catalog& catalog, SequenceSessionState* session,
               bool read_only = false)
      : txn_(txn), catalog_(catalog), session_(*session), read_only_(read_only) {}

  const Catalog& catalog() const override { return catalog_; }
  // A statement's kernels run on one thread (the session routes them so);
  // the lock keeps the Transaction single-threaded even if one did not.
  int64_t NextVal(TableId sequence) override {
    RequireWritable("nextval()");
    std::lock_guard<std::mutex> l(mu_);
    return txn_.NextVal(sequence);
  }
  void SetVal(TableId sequence, int64_t value, bool is_called) override {
    RequireWritable("setval()");
    std::lock_guard<std::mutex> l(mu_);
    txn_.SetVal(sequence, value, is_called);
  }
  SequenceSessionState& session() override { return session_; }

 private:
  Transaction& txn_;
  const Catalog& catalog_;
  void RequireWritable(const char* function) const {
    if (read_only_) {
      throw DbError(sqlstate::kReadOnlySqlTransaction,
                    std::string("cannot execute ") + function + " in a read-only transaction");
    }
  }

  SequenceSessionState& session_;
  const bool read_only_;
  std::mutex mu_;
};

}  // namespace forktail
