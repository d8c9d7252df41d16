// DatabaseForkPoint: the ForkPoint (fork_point.h) of a real forktail::Database.
//
//   auto db = Database::Open(dir);
//   DatabaseForkPoint fork_point(db.get());
//   SnapshotOptions options;
//   options.handler = [&db](const SnapshotContext&, std::string_view req, BatchSink& sink) {
//     // In the snapshot process: read tables directly, never through a transaction.
//     const Table* t = db->frozen_catalog().FindTable("account");
//     ...
//   };
//   SnapshotManager snapshots(&fork_point, options);   // destroy before db
//
// The fork runs on the transaction thread between two transactions
// (Database::RunBetweenTransactions), so the child holds exactly the
// transactions committed up to the LSN it is given. What a handler may do in
// the child: read the catalog and tables (Database::frozen_catalog(); Table::Read,
// PinBlock, LookupKey — no parent lock is taken on these paths). What it must
// not do: Execute/Run/Checkpoint or anything else that goes through the
// transaction engine or the write-ahead log: those threads do not exist in the
// child and the log writer's mutex may have been held at fork time.
//
// LSNs: an empty database reports kInvalidLsn; this adapter reports 0 then
// (no commit to wait for). After a reopen the database reports the recovered
// log's last position until the first new commit.
//
// Construction also makes the database's own forks fork-safe: the WAL's and
// the cold store's (RocksDB's) descriptors are registered with ForkExclusions
// (by directory: both open and close files by themselves), and the
// database's checkpoint children are forked through ForkExclusions::Fork,
// so they close what snapshot processes close.
#pragma once

#include <functional>

#include "forktail/database.h"
#include "snapshot/fork_point.h"

namespace forktail {

class DatabaseForkPoint final : public ForkPoint {
 public:
  // `db` must outlive this object and every SnapshotManager using it.
  explicit DatabaseForkPoint(Database* db);

  void RunBetweenTransactions(std::function<void(Lsn)> fn) override;
  CommitProgress Committed() const override;
  // With a memory budget: keeps the images the child may read (Database::
  // PinForSnapshot).
  std::shared_ptr<const void> PinForSnapshot() override;

 private:
  Database* const db_;
};

}  // namespace forktail
