// ForkExclusions: what a snapshot process must not inherit.
//
// fork() copies the page tables of every mapping and every file descriptor.
// Two kinds of parent state must stay out of a snapshot process:
//
//   memory the child never reads (network and log buffers, io_uring rings,
//   staging buffers): registered with ExcludeMemory, which marks it
//   MADV_DONTFORK, so fork does not copy its page tables and the child
//   cannot touch it (an access is SIGSEGV, not a silent read of stale data);
//
//   descriptors the child must not hold (client sockets, the parent's ends of
//   other snapshots' control channels, log files): registered with ExcludeFd,
//   closed in the child right after fork. Holding them would e.g. keep a dead
//   snapshot's socket reachable or hide the parent's death from a child.
//
// Other modules call Global() for their buffers, rings and sockets. Fork()
// forks with the registry's mutex held by the forking thread, so the child
// reads a consistent fd list without ever locking (the child never touches
// that mutex again; see the fork-safety rules in snapshot.h).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/status.h"

namespace forktail {

class ForkExclusions {
 public:
  struct Range {
    void* addr;
    size_t bytes;
    std::string what;
  };

  static ForkExclusions& Global();

  // `addr` must be page aligned; `bytes` is rounded up to whole pages.
  Status ExcludeMemory(void* addr, size_t bytes, std::string_view what);
  // Undoes ExcludeMemory (MADV_DOFORK) before the memory is reused or unmapped.
  Status IncludeMemory(void* addr);
  void ExcludeFd(int fd);
  void IncludeFd(int fd);
  // Runs `open` (which creates descriptors and appends them to *fds) with the
  // registry locked and registers them before unlocking: no fork can slip in
  // between creation and registration. Use it for sockets whose peer must see
  // EOF when this process closes them (a child holding a copy would hide it).
  void OpenExcluded(const std::function<void(std::vector<int>* fds)>& open);
  // Every descriptor open on a file under `dir` at fork time is closed in the
  // child (found through /proc/self/fd, without allocating). For files other
  // modules open and close by themselves, so that no fd list can be kept:
  // the WAL's segments and RocksDB's files (DatabaseForkPoint registers the
  // database's wal/ and cold/ directories).
  void ExcludePathsUnder(std::string dir);

  std::vector<Range> ExcludedMemory() const;
  size_t ExcludedBytes() const;

  // fork() with the registry locked. In the child, closes every excluded fd
  // not in `keep`, then returns 0. Returns the child's pid in the parent, -1
  // (errno set) on failure. Call it from the fork point only.
  pid_t Fork(std::span<const int> keep);

 private:
  mutable std::mutex mu_;
  std::vector<Range> ranges_;
  std::vector<int> fds_;
  std::vector<std::string> dirs_;  // each ends with '/'
};

// An anonymous mapping registered with ForkExclusions (e.g. a ring buffer):
// never forked. Throws std::bad_alloc when mmap fails.
void* AllocateDontForkBuffer(size_t bytes, std::string_view what);
void FreeDontForkBuffer(void* addr, size_t bytes);

}  // namespace forktail
