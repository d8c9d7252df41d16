#include "snapshot/fork_exclusions.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

namespace forktail {

namespace {
size_t PageRound(size_t bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}
}  // namespace

ForkExclusions& ForkExclusions::Global() {
  static ForkExclusions* registry = new ForkExclusions();  // never destroyed: used at exit
  return *registry;
}

Status ForkExclusions::ExcludeMemory(void* addr, size_t bytes, std::string_view what) {
  bytes = PageRound(bytes);
  if (madvise(addr, bytes, MADV_DONTFORK) != 0) {
    return Status::IoError("madvise(MADV_DONTFORK) on " + std::string(what) +
                           " failed: " + std::strerror(errno));
  }
  std::lock_guard lock(mu_);
  ranges_.push_back({addr, bytes, std::string(what)});
  return Status::Ok();
}

Status ForkExclusions::IncludeMemory(void* addr) {
  std::lock_guard lock(mu_);
  auto it = std::find_if(ranges_.begin(), ranges_.end(),
                         [addr](const Range& r) { return r.addr == addr; });
  if (it == ranges_.end()) return Status::NotFound("memory range not excluded from fork");
  if (madvise(it->addr, it->bytes, MADV_DOFORK) != 0) {
    return Status::IoError(std::string("madvise(MADV_DOFORK) failed: ") + std::strerror(errno));
  }
  ranges_.erase(it);
  return Status::Ok();
}

void ForkExclusions::ExcludeFd(int fd) {
  std::lock_guard lock(mu_);
  fds_.push_back(fd);
}

void ForkExclusions::OpenExcluded(const std::function<void(std::vector<int>* fds)>& open) {
  std::lock_guard lock(mu_);
  std::vector<int> fds;
  open(&fds);
  for (int fd : fds) {
    if (fd >= 0) fds_.push_back(fd);
  }
}

void ForkExclusions::IncludeFd(int fd) {
  std::lock_guard lock(mu_);
  auto it = std::find(fds_.begin(), fds_.end(), fd);
  if (it != fds_.end()) fds_.erase(it);
}

std::vector<ForkExclusions::Range> ForkExclusions::ExcludedMemory() const {
  std::lock_guard lock(mu_);
  return ranges_;
}

size_t ForkExclusions::ExcludedBytes() const {
  std::lock_guard lock(mu_);
  size_t total = 0;
  for (const Range& r : ranges_) total += r.bytes;
  return total;
}

pid_t ForkExclusions::Fork(std::span<const int> keep) {
  mu_.lock();
  const pid_t pid = fork();
  if (pid != 0) {
    mu_.unlock();
    return pid;
  }
  // Child: only this thread exists. mu_ is "held" by this thread's copy and
  // fds_ is consistent; read it, close (async-signal-safe), never unlock.
  for (int fd : fds_) {
    if (std::find(keep.begin(), keep.end(), fd) == keep.end()) close(fd);
  }
  return 0;
}

void* AllocateDontForkBuffer(size_t bytes, std::string_view what) {
  bytes = PageRound(bytes);
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  Status s = ForkExclusions::Global().ExcludeMemory(p, bytes, what);
  if (!s.ok()) {
    munmap(p, bytes);
    throw std::bad_alloc();
  }
  return p;
}

void FreeDontForkBuffer(void* addr, size_t bytes) {
  ForkExclusions::Global().IncludeMemory(addr).PermitUnchecked();
  munmap(addr, PageRound(bytes));
}

}  // namespace forktail
