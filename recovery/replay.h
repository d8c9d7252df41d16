// Replay: applies the redo records of committed transactions to a catalog.
//
// The log holds, for every committed transaction, its redo records followed
// by its kCommit record (redo_codec.h). Replayer buffers the records of the
// transaction being read and applies them only when its commit record
// arrives; records of a transaction whose commit record is missing (the log
// ended, or a torn tail was cut) are dropped by Finish(). So replay applies
// exactly the committed transactions, in commit order, which is the order the
// transaction thread executed them in.
//
// Exactness: each primitive is re-executed at the logged place
// (Table::InsertAt, RedoUpdate, Delete; Catalog::CreateTable, DropTable,
// AddPrimaryKey, which rebuilds the key index over the same rows); a
// record that cannot be applied there (row not live, table id taken, a
// constraint fails) is Corruption naming the LSN, never ignored.
//
// Table ids: Catalog::CreateTable takes the next id and ids are never reused,
// so a CREATE TABLE that was rolled back burned an id that the log does not
// mention. Replay creates each table at its logged id
// (Catalog::CreateTable's `id`), which moves the catalog's counter past it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "recovery/wal/log_reader.h"
#include "storage/storage.h"

namespace forktail::redo {

struct ReplayStats {
  uint64_t records = 0;          // records read (from the start LSN)
  uint64_t bytes = 0;            // their bytes, headers included
  uint64_t committed_txns = 0;   // transactions applied
  uint64_t applied_records = 0;  // redo records applied
  uint64_t dropped_txns = 0;     // transactions without a commit record at the end
  wal::TxnId max_txn = 0;
};

class Replayer {
 public:
  explicit Replayer(Catalog* catalog) : catalog_(catalog) {}

  // Feeds the next record in log order. Corruption on a malformed payload or
  // a record that does not re-apply exactly.
  Status Add(const wal::LogRecord& record);
  // The log ended: drops the uncommitted transaction, if any.
  void Finish();
  const ReplayStats& stats() const { return stats_; }

 private:
  struct Pending {
    wal::Lsn lsn;
    wal::RecordType type;
    std::string payload;
  };
  Status ApplyOne(const Pending& p);
  Status ApplyCreate(const std::string& payload);

  Catalog* catalog_;
  wal::TxnId txn_ = 0;
  std::vector<Pending> pending_;
  ReplayStats stats_;
};

}  // namespace forktail::redo
