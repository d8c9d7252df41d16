// HugePageKeeper: keeps table blocks mapped by 2 MiB huge pages across
// snapshot cycles.
//
// Why. Blocks are 2 MiB, aligned and MADV_HUGEPAGE, so fork() copies one page
// table entry per block instead of 512. The first write to a block while a
// snapshot shares it makes this kernel split the parent's huge mapping and
// copy one 4 KiB page: the block stays split after the snapshot exits (with
// THP=madvise khugepaged is slow to repair it). Over many snapshot cycles
// every written block becomes split, fork time converges to the 4 KiB-page
// cost and scans lose TLB reach (docs/snapshots.md, "Fork cycles": 30 cycles
// at 8 GiB: fork 3.9 -> 91 ms, scan -50%). MADV_COLLAPSE (Linux 6.1+)
// rebuilds the huge mapping synchronously.
//
// Policy. A background thread at nice 19 (low CPU share; not SCHED_IDLE: a
// collapse briefly takes the mmap lock for writing, and a starved holder
// would stall the transaction thread's page faults and forks) wakes every
// interval_ms, reads
// this process's AnonHugePages (/proc/self/smaps_rollup) and, when less than
// min_huge_fraction of the block bytes is huge-mapped, gets the block
// addresses from `list_blocks` and collapses each block. Already-huge blocks
// cost a cheap check. The kernel makes MADV_COLLAPSE safe against concurrent
// writes by the transaction thread (it locks the pages it copies).
//
// Memory. Collapsing a block that a live snapshot still shares gives the
// parent a fresh 2 MiB copy while the snapshot keeps the old pages until it
// exits; they then count as that snapshot's copied memory (and against
// SnapshotOptions::max_copied_bytes). Short-lived snapshots make this small.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace forktail {

class Database;

struct HugePageKeeperOptions {
  uint32_t interval_ms = 200;
  double min_huge_fraction = 0.95;
  bool low_priority = true;  // nice 19 for the keeper thread
};

struct HugePageKeeperStats {
  uint64_t sweeps = 0;
  uint64_t blocks_checked = 0;
  uint64_t collapse_failures = 0;  // e.g. no free huge page at that moment
  double collapse_ms = 0;          // total time in MADV_COLLAPSE
  double last_huge_fraction = 1;
};

class HugePageKeeper {
 public:
  // `list_blocks` returns the 2 MiB-aligned addresses of the blocks to keep
  // huge; it is called on the keeper thread.
  HugePageKeeper(std::function<std::vector<void*>()> list_blocks, HugePageKeeperOptions options);
  ~HugePageKeeper();
  HugePageKeeper(const HugePageKeeper&) = delete;
  HugePageKeeper& operator=(const HugePageKeeper&) = delete;

  // Runs one check (and sweep if needed) now, on the calling thread.
  void CheckNow();
  HugePageKeeperStats stats();
  // false when the kernel has no MADV_COLLAPSE (the thread then stops).
  bool supported() const { return supported_.load(); }

 private:
  void Loop();

  const std::function<std::vector<void*>()> list_blocks_;
  const HugePageKeeperOptions options_;
  std::atomic<bool> supported_{true};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  HugePageKeeperStats stats_;
  std::mutex sweep_mu_;  // one sweep at a time
  std::thread thread_;
};

// The block addresses of every table of `db`, collected on its transaction
// thread between two transactions (a pointer walk); blocks the caller then
// collapses may be dropped meanwhile, which MADV_COLLAPSE reports as an
// error and nothing else.
std::vector<void*> ListDatabaseBlocks(Database* db);

// AnonHugePages of this process in bytes (smaps_rollup), 0 if unreadable.
uint64_t AnonHugePageBytes();

}  // namespace forktail
