// SnapshotManager: the parent's side of snapshots. It asks the fork point for
// new snapshot processes, hands out leases on them, retires and kills them,
// reaps them, and accounts their memory.
//
// Lifecycle of a snapshot:
//
//   fork (on the transaction thread) -> live -> retired -> exited -> reaped
//                                         \-> killed (lifetime) / died -> reaped
//
// Refresh policy (any combination):
//   - on demand: Acquire(min_lsn) returns the newest live snapshot if its LSN
//     is >= min_lsn, else forks a new one (read-your-writes: pass the commit
//     LSN the client saw). Concurrent callers share one fork.
//   - by age: a new snapshot every refresh_interval_ms, if anything committed;
//   - by commits: a new snapshot after refresh_after_commits commits.
// A new snapshot never waits for an older one's requests. A snapshot that is
// not the newest is retired as soon as it is idle (no lease); retired, it gets
// no new leases, and its process exits once its last request is done.
// A snapshot older than max_lifetime_ms is killed (SIGKILL); the requests it
// was running fail with 57P01 "... was terminated: it exceeded its lifetime".
// The newest snapshot is retired too once it has had no lease for
// retire_idle_ms and something committed after it: no fresh read can use it,
// and its process holds copied pages for nothing.
//
// Memory policy:
//   - max_live_snapshots counts processes not yet reaped (retired ones with
//     running requests included). Forking beyond it first waits up to
//     cap_wait_ms for retired ones to exit, then refuses: DbError 53000
//     "too many snapshot processes". Existing snapshots are never killed to
//     make room: their queries were admitted first.
//   - max_copied_bytes caps the sum of the snapshots' copied memory
//     (smaps_rollup Private_*, read every memory_poll_ms). Older snapshots
//     never get new requests anyway, so over the cap the oldest snapshots
//     other than the newest are killed, oldest first, until the sum is under
//     the cap; their requests fail with 53200 "... was terminated: the
//     snapshots' copied memory (N KiB) exceeded max_copied_bytes (M KiB)".
//     If the newest alone is over the cap, a new snapshot is forked (it
//     starts with nothing copied) and the old newest drains, or is killed at
//     the next poll if it still holds too much.
//     Pages that several snapshots share (copied once, mapped by several
//     children) count as Shared in each and so not toward the cap: the cap
//     bounds what killing snapshots can free.
//
// Threads: one policy thread (reaping by waitpid(pid, WNOHANG) every tick,
// retirement, lifetime kills, memory polls, age/commit refresh). Acquire may be
// called from any thread except the transaction thread (it waits for the fork
// point).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "snapshot/fork_point.h"
#include "snapshot/frame.h"
#include "snapshot/memory_usage.h"
#include "snapshot/snapshot_process.h"
#include "snapshot/snapshot_query.h"
#include "storage/error.h"

namespace forktail {

struct SnapshotEntry;

struct SnapshotOptions {
  SnapshotHandler handler;             // required: runs requests in the child
  uint32_t refresh_interval_ms = 0;    // 0: no age-based refresh
  uint64_t refresh_after_commits = 0;  // 0: no commit-count refresh
  uint32_t max_lifetime_ms = 600'000;  // 0: never killed for age
  uint32_t retire_idle_ms = 2'000;     // 0: the newest lives until replaced
  uint32_t max_live_snapshots = 8;
  uint64_t max_copied_bytes = 0;  // 0: no cap
  uint32_t memory_poll_ms = 1000;
  uint32_t cap_wait_ms = 2000;
  uint32_t child_workers = 4;  // concurrent requests per snapshot process
  // The CPU priority of snapshot processes, as a nice value (1..19; 0: the
  // parent's): when the transaction thread and a query want the same core,
  // the transaction thread gets it, and a query still takes every cycle the
  // transactions leave. Measured with TPC-C and one CH stream on two cores
  // (bench/tpcc/tpcc_inproc): nice 0 left the transactions 6-8k/s, nice 10
  // 10k/s, for 10-15% fewer analytical queries (docs/snapshots.md).
  int nice = 10;
  uint32_t max_frame_payload = kDefaultMaxFramePayload;
  uint32_t tick_ms = 5;            // policy thread period (death detection latency)
  uint32_t fork_wait_ms = 30'000;  // how long to wait for the fork point
  // How long a new child may take to report Ready before it is killed and
  // forked again (at most fork_attempts forks in all).
  uint32_t ready_timeout_ms = 2000;
  uint32_t fork_attempts = 3;
};

// One row of `forktail snapshots`.
struct SnapshotInfo {
  uint64_t id = 0;
  pid_t pid = 0;
  Lsn lsn = 0;
  double age_ms = 0;
  uint32_t running = 0;
  bool retired = false;
  double fork_ms = 0;
  ProcessMemory memory;
};

struct SnapshotStats {
  uint64_t created = 0;
  uint64_t exited_normally = 0;  // exit code 0 after retirement
  uint64_t died = 0;             // crashed, killed from outside, nonzero exit
  uint64_t killed = 0;           // by the lifetime policy
  uint64_t refused = 0;          // max_live_snapshots
  uint64_t start_failures = 0;   // children that never reported Ready (killed, forked again)
};

class SnapshotManager;

// A claim on one snapshot: while held, the snapshot is not retired. Cheap to
// hold; release it when the request is done. Must not outlive its manager.
class SnapshotLease {
 public:
  SnapshotLease() = default;
  SnapshotLease(SnapshotManager* manager, std::shared_ptr<SnapshotEntry> entry);
  SnapshotLease(SnapshotLease&& other) noexcept;
  SnapshotLease& operator=(SnapshotLease&& other) noexcept;
  ~SnapshotLease();

  Lsn lsn() const;
  pid_t pid() const;
  // When the snapshot was forked, and ForkPoint::Committed().commits then:
  // how fresh a read on it is (its age, the commits made since).
  std::chrono::steady_clock::time_point created() const;
  uint64_t commits() const;
  // The snapshot's abstract Unix socket name (leading NUL), for tools and tests.
  const std::string& address() const;
  explicit operator bool() const { return entry_ != nullptr; }

  std::unique_ptr<SnapshotQuery> Start(std::string_view request);
  // Runs a request to the end and returns its batches. Throws DbError.
  std::vector<std::string> Run(std::string_view request);
  void Release();

 private:
  SnapshotManager* manager_ = nullptr;
  std::shared_ptr<SnapshotEntry> entry_;
};

class SnapshotManager {
 public:
  SnapshotManager(ForkPoint* fork_point, SnapshotOptions options);
  // Retires every snapshot, waits up to 2 s for them to exit, kills the rest.
  ~SnapshotManager();
  SnapshotManager(const SnapshotManager&) = delete;
  SnapshotManager& operator=(const SnapshotManager&) = delete;

  // A lease on the newest snapshot with LSN >= min_lsn, forking if needed.
  // Throws DbError (53000 when over max_live_snapshots, 22023 when min_lsn is
  // ahead of the last commit).
  SnapshotLease Acquire(Lsn min_lsn = 0);
  // Forks a new snapshot now (the older ones retire when idle).
  void Refresh();

  std::vector<SnapshotInfo> List();
  SnapshotStats stats();
  const SnapshotOptions& options() const { return options_; }

  // For SnapshotQuery: the error for a request whose connection broke. Waits
  // (bounded) for the policy thread to reap the process to name its death.
  DbError DescribeLoss(const SnapshotEntry& entry, const std::string& detail);
  void ReleaseLease(const std::shared_ptr<SnapshotEntry>& entry);

 private:
  // nullptr when the child did not report Ready in time (it was killed).
  std::shared_ptr<SnapshotEntry> ForkSnapshot();
  void CreateExclusively(std::unique_lock<std::mutex>& lock);
  void CreateSerialized(std::unique_lock<std::mutex>& lock);
  void PolicyLoop();
  void TickLocked(std::unique_lock<std::mutex>& lock);
  void ReapLocked();
  void RetireLocked(SnapshotEntry& e);
  // Returns true when the newest snapshot alone is over max_copied_bytes.
  bool PollMemory(std::unique_lock<std::mutex>& lock);
  void KillLocked(SnapshotEntry& e, const char* code, std::string reason);
  std::shared_ptr<SnapshotEntry> NewestLocked() const;
  size_t LiveCountLocked() const;

  ForkPoint* fork_point_;
  const SnapshotOptions options_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::shared_ptr<SnapshotEntry>> entries_;  // not yet reaped, oldest first
  bool creating_ = false;
  bool stopping_ = false;
  bool wake_ = false;
  uint64_t next_id_ = 1;
  SnapshotStats stats_;
  std::chrono::steady_clock::time_point next_memory_poll_;
  std::thread policy_thread_;
};

// Formats List() as the table `forktail snapshots` prints.
std::string FormatSnapshotTable(const std::vector<SnapshotInfo>& snapshots);

}  // namespace forktail
