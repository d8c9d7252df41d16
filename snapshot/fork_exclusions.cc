#include "snapshot/fork_exclusions.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <new>

namespace forktail {

namespace {
size_t PageRound(size_t bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}
// Child only: closes the descriptors whose target lies under one of `dirs`.
// No allocation, no locks: getdents64 and readlinkat into stack buffers.
void CloseFdsUnder(const std::vector<std::string>& dirs) {
  if (dirs.empty()) return;
  int dir_fd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return;
  constexpr int kMaxDoomed = 1024;
  int doomed[kMaxDoomed];
  int n_doomed = 0;
  alignas(8) char buf[8192];
  for (;;) {
    long n = syscall(SYS_getdents64, dir_fd, buf, sizeof(buf));
    if (n <= 0) break;
    for (long off = 0; off < n;) {
      auto* d = reinterpret_cast<struct dirent64*>(buf + off);
      off += d->d_reclen;
      if (d->d_name[0] < '0' || d->d_name[0] > '9') continue;
      int fd = 0;
      for (const char* c = d->d_name; *c; c++) fd = fd * 10 + (*c - '0');
      if (fd == dir_fd) continue;
      char target[4096];
      ssize_t len = readlinkat(dir_fd, d->d_name, target, sizeof(target) - 1);
      if (len <= 0) continue;
      for (const std::string& dir : dirs) {
        if (static_cast<size_t>(len) > dir.size() &&
            std::memcmp(target, dir.data(), dir.size()) == 0 && n_doomed < kMaxDoomed) {
          doomed[n_doomed++] = fd;
          break;
        }
      }
    }
  }
  close(dir_fd);
  for (int i = 0; i < n_doomed; i++) close(doomed[i]);
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

void ForkExclusions::ExcludePathsUnder(std::string dir) {
  // /proc/self/fd links are absolute and resolved.
  std::error_code ec;
  std::filesystem::path canonical = std::filesystem::weakly_canonical(dir, ec);
  if (!ec) dir = canonical.string();
  while (!dir.empty() && dir.back() == '/') dir.pop_back();
  dir.push_back('/');
  std::lock_guard lock(mu_);
  if (std::find(dirs_.begin(), dirs_.end(), dir) == dirs_.end()) dirs_.push_back(std::move(dir));
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
  CloseFdsUnder(dirs_);
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
