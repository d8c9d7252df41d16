#include "snapshot/database_fork_point.h"

#include <utility>

#include "recovery/recovery.h"
#include "snapshot/fork_exclusions.h"

namespace forktail {
namespace {
Lsn OrZero(wal::Lsn lsn) { return lsn == wal::kInvalidLsn ? 0 : lsn; }
}  // namespace

DatabaseForkPoint::DatabaseForkPoint(Database* db) : db_(db) {
  ForkExclusions& exclusions = ForkExclusions::Global();
  exclusions.ExcludePathsUnder(wal::WalDir(db->dir()));
  exclusions.ExcludePathsUnder(redo::ColdStoreDir(db->dir()));
  db->SetForkFunction([] { return ForkExclusions::Global().Fork({}); });
}

void DatabaseForkPoint::RunBetweenTransactions(std::function<void(Lsn)> fn) {
  db_->RunBetweenTransactions([fn = std::move(fn)](wal::Lsn lsn) { fn(OrZero(lsn)); });
}

std::shared_ptr<const void> DatabaseForkPoint::PinForSnapshot() { return db_->PinForSnapshot(); }

CommitProgress DatabaseForkPoint::Committed() const {
  // Count first: a commit between the two reads makes the LSN newer than the
  // count, never the count ahead of the LSN.
  CommitProgress p;
  p.commits = db_->committed_count();
  p.lsn = OrZero(db_->last_commit_lsn());
  return p;
}

}  // namespace forktail
