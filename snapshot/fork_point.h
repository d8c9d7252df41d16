// The one thing the snapshot module needs from the transaction engine: a place
// between two transactions where fork() may run.
//
// A snapshot is only consistent if no transaction is half-applied when the
// process forks. The transaction thread is the only thread that mutates table
// data and it runs transactions one after another, so "between two
// transactions on the transaction thread" is exactly a consistent point: the
// child's memory then holds every transaction committed up to the LSN passed to
// the callback and nothing of any later one (DESIGN.md invariant 1).
//
// The transaction engine implements this interface; tests implement it with a
// fake transaction thread (tests/snapshot/fake_txn_engine.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

namespace forktail {

// Same type as recovery's Lsn (recovery/wal/wal_format.h): an alias may be
// redeclared, so both headers can be included together.
using Lsn = uint64_t;

// What has committed so far. `lsn` is the LSN of the last committed
// transaction, `commits` a monotonic count of committed transactions (the
// refresh policy "every N commits" needs a count; LSNs are byte positions).
struct CommitProgress {
  Lsn lsn = 0;
  uint64_t commits = 0;
};

class ForkPoint {
 public:
  virtual ~ForkPoint() = default;

  // Runs `fn` once on the transaction thread between two transactions (no
  // transaction in flight, no undo pending), passing the LSN of the last
  // committed transaction. Asynchronous: it may return before `fn` has run.
  // `fn` forks; in the parent it returns within a few milliseconds. The
  // implementation must keep running `fn`s submitted before shutdown (or run
  // them with the final LSN while stopping) so that no caller waits forever.
  virtual void RunBetweenTransactions(std::function<void(Lsn)> fn) = 0;

  // Safe to call from any thread (reads atomics); may lag the transaction
  // thread by a commit.
  virtual CommitProgress Committed() const = 0;

  // Called by `fn` on the transaction thread right before it forks a
  // snapshot process: what the child may read beyond the memory it inherits
  // (a database with a memory budget: the images of blocks not in memory,
  // tiering/buffer_pool.h) is kept until the returned token is released,
  // which the manager does once the child is gone. nullptr: nothing to keep.
  virtual std::shared_ptr<const void> PinForSnapshot() { return nullptr; }
};

}  // namespace forktail
