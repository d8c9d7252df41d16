// TxnSequences: the SequenceAccess (olap/plan/binder/sequence_functions.h)
// of a statement running in a Transaction on the transaction thread: nextval
// and setval go to the transaction (logged, kept even if the statement
// fails), currval and lastval to the session's state.
#pragma once

#include <mutex>

#include "forktail/transaction.h"
#include "olap/plan/binder/sequence_functions.h"

namespace forktail {

class TxnSequences final : public SequenceAccess {
 public:
  // `catalog`: the live catalog the transaction changes.
  TxnSequences(Transaction& txn, const Catalog& catalog, SequenceSessionState* session)
      : txn_(txn), catalog_(catalog), session_(*session) {}

  const Catalog& catalog() const override { return catalog_; }
  // A statement's kernels run on one thread (the session routes them so);
  // the lock keeps the Transaction single-threaded even if one did not.
  int64_t NextVal(TableId sequence) override {
    std::lock_guard<std::mutex> l(mu_);
    return txn_.NextVal(sequence);
  }
  void SetVal(TableId sequence, int64_t value, bool is_called) override {
    std::lock_guard<std::mutex> l(mu_);
    txn_.SetVal(sequence, value, is_called);
  }
  SequenceSessionState& session() override { return session_; }

 private:
  Transaction& txn_;
  const Catalog& catalog_;
  SequenceSessionState& session_;
  std::mutex mu_;
};

}  // namespace forktail
