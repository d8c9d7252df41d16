#include "snapshot/database_fork_point.h"

#include <utility>

namespace forktail {
namespace {
Lsn OrZero(wal::Lsn lsn) { return lsn == wal::kInvalidLsn ? 0 : lsn; }
}  // namespace

void DatabaseForkPoint::RunBetweenTransactions(std::function<void(Lsn)> fn) {
  db_->RunBetweenTransactions([fn = std::move(fn)](wal::Lsn lsn) { fn(OrZero(lsn)); });
}

CommitProgress DatabaseForkPoint::Committed() const {
  // Count first: a commit between the two reads makes the LSN newer than the
  // count, never the count ahead of the LSN.
  CommitProgress p;
  p.commits = db_->committed_count();
  p.lsn = OrZero(db_->last_commit_lsn());
  return p;
}

}  // namespace forktail
