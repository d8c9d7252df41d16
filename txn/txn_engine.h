// TxnEngine: the transaction thread.
//
// Submitters on any thread hand in a transaction body (a callable taking a
// Transaction&) and get its result through a callback or a future. The
// engine's one thread takes bodies from a FIFO queue and runs them one after
// another, so transactions are serializable without any latch on data
// (DESIGN.md, process model).
//
// Serial execution is the engine's execution lock, not a thread identity:
// every body runs while holding exec_mu_, one at a time. A submitter that
// waits for the outcome anyway (Run: a SQL session's statement, a step of a
// transaction block) runs its body on its own thread under that lock instead
// of queueing it. The outcome is the same (one transaction after another,
// nothing concurrent with a body), but the statement costs no hand-off: on
// two cores, waking the engine's thread and being woken by it again cost
// more than the statement itself (perf: futex wake-ups and their
// inter-processor interrupts were the largest items of a pgbench profile).
// Queued work (Submit, RunExclusive, RunBetweenTransactions: procedures run
// asynchronously, checkpoints, snapshot forks) still runs on the engine's
// thread, under the same lock.
//
// Commit: when a body returns, its buffered redo records and a kCommit record
// are appended to the log in one LogWriter::Append (contiguous, LSNs in
// execution order). The engine does NOT wait for the fsync: it hands the
// acknowledgement to LogWriter::OnDurable and runs the next transaction at
// once. This keeps durability and serializability (docs/transactions.md):
//  - a submitter is told "committed" only after an fdatasync covering its
//    commit record (synchronous mode), and the log is a prefix-durable
//    stream, so everything the transaction read (all earlier commits, at
//    lower LSNs) is durable too;
//  - acknowledgements go out in LSN order, i.e. in execution order;
//  - a later transaction that read this one's writes commits at a higher LSN,
//    so it can never be acknowledged while this one is lost.
// A read-only transaction logs nothing but is acknowledged only when the
// newest commit record appended before it is durable, for the same reason: a
// commit whose log record never becomes durable (fdatasync failed, or the
// machine went down first) is never reported.
//
// Dry runs (Transaction::DiscardOnReturn: a step of a transaction block) do
// not wait: a step's result is a forecast, which the block's COMMIT runs
// again and checks, and that COMMIT is a transaction at a higher LSN than
// every commit its steps saw, acknowledged only when it is durable (so are
// they: the log is a prefix). A crash that loses a commit a step saw also
// ends that step's block before its COMMIT; a failed fdatasync makes the
// engine refuse the COMMIT (58030). So no committed transaction ever depends
// on a lost one, and a block's statements are not each held for an fsync
// they cannot need (early lock release, Johnson et al., VLDB 2010; TPC-B
// through pgbench: +25%). What a client can see is the PostgreSQL
// synchronous_commit = off reader's view inside an open block: a value that
// a power failure in the next fsync interval could take back, together with
// the block that read it.
//
// A body that calls Transaction::AcknowledgeWhenApplied gets its result at
// once, with TxnResult::durable_lsn naming the LSN it would have waited for;
// its submitter waits (Database::WaitDurable) before telling its client. The
// rules above still hold for what clients are told, and a session whose
// pipelined statements each wait for their own fsync in turn can instead
// share one.
//
// Asynchronous commit (options.synchronous = false): the result is delivered
// as soon as the records are appended; the log writer syncs at least every
// async_flush_interval, which bounds what a power failure can take back.
//
// Blocks not in memory (anti-caching, H-Store; tiering/buffer_pool.h): a
// body runs with LoadPolicy::kThrow, so a pin of an evicted block throws
// BlockNotResident. The body is rolled back; its missing block (and, when
// the same body misses again, a growing run of the table's next evicted
// blocks) is read with no lock held; the next attempt installs them under
// the lock and runs the body again. So the execution lock never waits for
// I/O, and a body may run more than once: it must keep no effect outside
// its Transaction from an earlier run. A body that still misses after
// kMaxLoadAttempts loads inline under the lock (progress over purity; a
// body whose blocks outgrow the budget), counted in load_stats().
//
// Failure: once the log reports a write or fdatasync error (sticky, never
// retried), the engine refuses every further transaction with SQLSTATE 58030
// and a message naming the log's error. A transaction whose commit append
// failed is rolled back in memory before its error is returned.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "forktail/transaction.h"
#include "recovery/recovery.h"
#include "storage/storage.h"

namespace forktail {

struct TxnEngineOptions {
  // false: asynchronous commit (see above). Must match the LogWriter's mode.
  bool synchronous = true;
};

class TxnEngine {
 public:
  // The catalog and log must outlive the engine. Transaction ids start at first_txn.
  TxnEngine(Catalog* catalog, wal::LogWriter* log, TxnEngineOptions options, wal::TxnId first_txn);
  ~TxnEngine();
  TxnEngine(const TxnEngine&) = delete;
  TxnEngine& operator=(const TxnEngine&) = delete;

  // Queues a transaction. `done` runs exactly once: on the transaction thread
  // (errors, async commit, read-only) or on the log-writer thread (durable
  // commits). Keep it short. After Stop(), done gets 57P01 at once.
  void Submit(TxnBody body, TxnCallback done);
  std::future<TxnResult> Submit(TxnBody body);

  // Runs `body` as the next transaction on the calling thread, under the
  // execution lock, and returns its outcome once it may be reported: after
  // the commit is durable (synchronous mode), or at once for a body that
  // asked for AcknowledgeWhenApplied or DiscardOnReturn (see below). Must not
  // be called from inside a body, nor while a body waits for the caller
  // (a TxnBlock): the lock is not reentrant. After Stop(): 57P01.
  TxnResult Run(TxnBody body);

  // Runs `fn` on the transaction thread between two transactions (e.g. a
  // checkpoint) and waits for it; rethrows what it throws.
  void RunExclusive(const std::function<void()>& fn);

  // Runs `fn` once on the transaction thread between two transactions, passing
  // the LSN of the last committed transaction (kInvalidLsn before the first
  // commit of this engine). Asynchronous: returns at once. This is the fork
  // point of snapshots (snapshot/fork_point.h): `fn` may fork(). That is safe
  // because no transaction is in flight (the previous one has committed or
  // rolled back; its undo log is gone), so the child's memory holds exactly
  // the transactions up to the LSN. The log writer thread may hold its own
  // locks at fork time; the child must never touch the log (append, sync,
  // OnDurable) or submit transactions, only read tables. A callback queued
  // before Stop() still runs; one queued after the thread has exited runs on
  // the caller's thread with the final LSN (nothing mutates tables any more).
  void RunBetweenTransactions(std::function<void(wal::Lsn)> fn);

  // Runs what is queued, then stops the thread. Idempotent.
  void Stop();

  // The id the next transaction gets; call only on the transaction thread
  // (inside RunExclusive).
  wal::TxnId next_txn_id() const { return next_txn_; }

  uint64_t committed() const;
  uint64_t aborted() const;
  // Anti-caching (see above): bodies run again after a block load, blocks
  // read for them, and bodies that loaded inline at last.
  struct LoadStats {
    uint64_t restarts = 0;
    uint64_t blocks_read = 0;
    uint64_t inline_fallbacks = 0;
  };
  LoadStats load_stats() const;
  static constexpr int kMaxLoadAttempts = 16;
  // Called with no lock held before a body's missing blocks are read (the
  // buffer pool's back-pressure: it may wait until memory has room). Set
  // once, before the first transaction.
  void SetBeforeLoad(std::function<void()> fn) { before_load_ = std::move(fn); }
  // Any thread: how long the transaction thread has spent running queued
  // work (transactions, fork points, exclusive tasks) since it started, and
  // how long it has existed. busy / alive is its utilization: under load it
  // must approach 1 (the thread never idles while work is queued).
  using ThreadTime = TxnThreadTime;
  ThreadTime thread_time() const;
  // Any thread: the LSN of the last commit (kInvalidLsn before the first one).
  // Stored before the commit is acknowledged.
  wal::Lsn last_commit_lsn() const { return published_commit_lsn_.load(std::memory_order_acquire); }

  // Any thread: an immutable copy of the catalog's schemas (no rows) as of the
  // last transaction that changed a schema (Catalog::CopySchemas). Published
  // on the transaction thread after that transaction committed or rolled
  // back, before it is acknowledged, so a session that saw its DDL commit
  // binds against a copy that includes it. Binding (Parse, Describe) uses it
  // instead of queueing on the transaction thread, which a transaction block
  // may hold.
  std::shared_ptr<const Catalog> schemas() const;

 private:
  // A body's outcome before it is reported: the result, and the LSN that
  // must be durable first (kInvalidLsn: none).
  struct Outcome {
    TxnResult result;
    wal::Lsn wait_lsn = wal::kInvalidLsn;
    // The blocks the body found not in memory (it was rolled back).
    std::vector<BlockNotResident> missing;
  };
  // An evicted block's image, read for a body's next attempt.
  struct LoadedImage {
    BlockNotResident block;
    std::string image;
  };
  void Loop();
  // Holds exec_mu_ while `fn` runs and adds its time to busy_ns_.
  template <typename Fn>
  void Exclusively(Fn&& fn);
  // Under exec_mu_: runs the body, commits or rolls back. A body that pins
  // a block not in memory is rolled back and comes back with `missing`: that
  // block and up to `readahead` - 1 of the table's next ones not in memory.
  Outcome Execute(TxnBody& body, LoadPolicy policy = LoadPolicy::kThrow, size_t readahead = 1);
  // Execute under exec_mu_, again after reading what it missed (see
  // "Blocks not in memory").
  Outcome ExecuteLoading(TxnBody& body);
  // No lock held: the images of `missing`. Under exec_mu_: into their
  // tables (those still there, at those versions).
  Status ReadMissing(const std::vector<BlockNotResident>& missing, std::vector<LoadedImage>* out);
  void InstallLoaded(std::vector<LoadedImage>* loaded);
  // `first`, then up to count - 1 of its table's next blocks not in memory.
  std::vector<BlockNotResident> Readahead(const BlockNotResident& first, size_t count) const;
  // The queued path: reports through `done` (at once or from the log writer).
  void Acknowledge(Outcome outcome, TxnCallback& done);
  // Transaction thread (or the constructor): a new schemas() copy if the
  // catalog's schema version moved since the last one.
  void PublishSchemasIfChanged();
  // Transaction thread, before a transaction: builds the key hash indexes
  // that lookups asked for since the last time (storage/table/table.h,
  // "Indexes"), when some did.
  void BuildWantedKeyIndexes();

  Catalog* const catalog_;
  wal::LogWriter* const log_;
  const TxnEngineOptions options_;

  // Transaction-thread state.
  wal::TxnId next_txn_;
  wal::Lsn last_commit_lsn_ = wal::kInvalidLsn;
  uint64_t key_index_requests_ = 0;  // Table::KeyIndexRequests() when last looked at

  mutable std::mutex schemas_mu_;
  std::shared_ptr<const Catalog> schemas_;  // guarded by schemas_mu_
  uint64_t schemas_version_ = 0;            // transaction thread

  // Held by whichever thread runs a transaction body (or a fork point, or
  // an exclusive task): the engine's thread for queued work, a submitter's
  // own thread for Run.
  std::mutex exec_mu_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;     // guarded by mu_
  bool loop_exited_ = false;  // the thread has drained the queue and returned
  // Run's check without mu_ (a statement must not take a lock for it);
  // stored with stopping_.
  std::atomic<bool> stopped_{false};
  std::atomic<uint64_t> committed_{0};
  std::atomic<uint64_t> aborted_{0};
  std::function<void()> before_load_;
  std::atomic<uint64_t> load_restarts_{0};
  std::atomic<uint64_t> blocks_read_{0};
  std::atomic<uint64_t> inline_fallbacks_{0};
  std::atomic<wal::Lsn> published_commit_lsn_{wal::kInvalidLsn};
  std::atomic<uint64_t> busy_ns_{0};
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::thread thread_;
};

}  // namespace forktail
