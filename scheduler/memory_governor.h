// MemoryGovernor: one memory budget for the queries of the whole server — the
// server process and every snapshot process forked from it (issue 17, item 2).
//
// Each query's QueryMemory checks its own limit, then reserves what it grows
// into from the governor, a granule (4 MiB) at a time; the reservation is held
// until the query ends (a query's peak, not its current use, counts). When the
// governor cannot give a granule the query fails with 53200 and its memory is
// released, while the server and every other query go on.
//
// The counters live in a MAP_SHARED anonymous page made before the first fork,
// so a snapshot process (a fork child) charges the same budget as its parent.
// Each process charges through its own slot (pid, bytes); a process killed
// while its queries held memory (a snapshot process SIGKILLed by its manager)
// cannot give it back, so a reservation that does not fit first sweeps the
// slots of processes that no longer exist and returns their bytes.
//
// The budget: `query_memory` (forktail serve --query-memory), by default half
// of the memory this process may use — the smaller of physical RAM and the
// cgroup's limit (cgroup v2 memory.max or v1 memory.limit_in_bytes, walking up
// the hierarchy) — so that a server in a 4 GiB container fails a runaway query
// with 53200 instead of meeting the OOM killer.
//
// Thread- and process-safe: lock-free atomics in the shared page.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace forktail {

// The smaller of physical RAM and the cgroup limit of this process, in bytes.
size_t EffectiveMemoryLimit();
// The cgroup's memory limit (0: none found). `proc_self_cgroup` and
// `cgroup_root` are parameters for tests.
size_t CgroupMemoryLimit(const std::string& proc_self_cgroup = "/proc/self/cgroup",
                         const std::string& cgroup_root = "/sys/fs/cgroup");

class MemoryGovernor {
 public:
  static constexpr size_t kGranule = size_t{4} << 20;
  static constexpr int kSlots = 512;

  // The process's governor, made on first use with the default budget
  // (EffectiveMemoryLimit() / 2). Call it before the first fork (SqlFrontend
  // does) so that children share it.
  static MemoryGovernor& Global();

  // A private governor (tests): same behaviour, not shared by Global().
  explicit MemoryGovernor(size_t budget);
  ~MemoryGovernor();
  MemoryGovernor(const MemoryGovernor&) = delete;
  MemoryGovernor& operator=(const MemoryGovernor&) = delete;

  void SetBudget(size_t bytes) { shared_->budget.store(bytes, std::memory_order_relaxed); }
  size_t budget() const { return shared_->budget.load(std::memory_order_relaxed); }
  // Bytes reserved by all processes' queries now.
  size_t reserved() const { return shared_->reserved.load(std::memory_order_relaxed); }

  // Reserves `bytes` for this process; false (nothing reserved) if the budget
  // cannot hold them even after reclaiming the slots of dead processes.
  bool TryReserve(size_t bytes);
  void Release(size_t bytes) noexcept;

  // Returns what the slots of processes that are gone held (a test hook for
  // the sweep TryReserve does when it is short).
  size_t ReclaimDeadProcesses() noexcept;

 private:
  struct Slot {
    std::atomic<int32_t> pid;
    std::atomic<uint64_t> bytes;
  };
  struct Shared {
    std::atomic<uint64_t> budget;
    std::atomic<uint64_t> reserved;
    Slot slots[kSlots];
  };

  Slot* OwnSlot() noexcept;  // nullptr: every slot is taken

  Shared* shared_;
};

}  // namespace forktail
