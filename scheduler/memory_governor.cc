#include "scheduler/memory_governor.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <new>
#include <sstream>

namespace forktail {
namespace {

size_t PhysicalMemory() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return size_t{4} << 30;
  return static_cast<size_t>(pages) * static_cast<size_t>(page_size);
}

// A limit file's number; 0 for "max", a missing file or anything else.
size_t ReadLimitFile(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!in || !(in >> text) || text.empty() || text == "max") return 0;
  size_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return 0;
    if (value > (SIZE_MAX - 9) / 10) return 0;  // v1's "unlimited" is near 2^63: none
    value = value * 10 + static_cast<size_t>(c - '0');
  }
  return value;
}

// The smallest limit on `dir` and its ancestors up to `root` (0: none).
size_t SmallestLimitUpTo(std::string dir, const std::string& root, const char* file) {
  size_t best = 0;
  while (true) {
    const size_t limit = ReadLimitFile(dir + "/" + file);
    if (limit != 0 && (best == 0 || limit < best)) best = limit;
    if (dir.size() <= root.size()) break;
    dir = dir.substr(0, dir.find_last_of('/'));
    if (dir.size() < root.size()) dir = root;
  }
  return best;
}

}  // namespace

size_t CgroupMemoryLimit(const std::string& proc_self_cgroup, const std::string& cgroup_root) {
  std::ifstream in(proc_self_cgroup);
  std::string line;
  size_t best = 0;
  auto take = [&best](size_t limit) {
    if (limit != 0 && (best == 0 || limit < best)) best = limit;
  };
  while (std::getline(in, line)) {
    // hierarchy-id:controllers:path
    const size_t a = line.find(':');
    const size_t b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    std::string path = line.substr(b + 1);
    if (path == "/") path.clear();
    if (controllers.empty()) {  // cgroup v2, at the root or (hybrid) under unified/
      std::string root = cgroup_root;
      if (!std::ifstream(root + "/cgroup.controllers")) root += "/unified";
      take(SmallestLimitUpTo(root + path, root, "memory.max"));
      continue;
    }
    std::stringstream list(controllers);
    for (std::string c; std::getline(list, c, ',');) {
      if (c == "memory") {
        const std::string root = cgroup_root + "/memory";
        take(SmallestLimitUpTo(root + path, root, "memory.limit_in_bytes"));
      }
    }
  }
  return best;
}

size_t EffectiveMemoryLimit() {
  static const size_t bytes = [] {
    const size_t physical = PhysicalMemory();
    const size_t cgroup = CgroupMemoryLimit();
    return cgroup != 0 ? std::min(physical, cgroup) : physical;
  }();
  return bytes;
}

MemoryGovernor& MemoryGovernor::Global() {
  static MemoryGovernor* governor = new MemoryGovernor(EffectiveMemoryLimit() / 2);
  return *governor;
}

MemoryGovernor::MemoryGovernor(size_t budget) {
  void* page =
      mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) throw std::bad_alloc();
  shared_ = new (page) Shared();  // mmap's zero pages: every slot free
  shared_->budget.store(budget, std::memory_order_relaxed);
}

MemoryGovernor::~MemoryGovernor() { munmap(shared_, sizeof(Shared)); }

MemoryGovernor::Slot* MemoryGovernor::OwnSlot() noexcept {
  // getpid() per call: a fork child must not charge its parent's slot, and
  // this runs once per granule.
  const int32_t pid = static_cast<int32_t>(getpid());
  for (Slot& slot : shared_->slots) {
    if (slot.pid.load(std::memory_order_relaxed) == pid) return &slot;
  }
  for (Slot& slot : shared_->slots) {
    int32_t free = 0;
    if (slot.pid.compare_exchange_strong(free, pid)) return &slot;
  }
  return nullptr;
}

bool MemoryGovernor::TryReserve(size_t bytes) {
  bool swept = false;
  uint64_t now = shared_->reserved.load(std::memory_order_relaxed);
  while (true) {
    const uint64_t budget = shared_->budget.load(std::memory_order_relaxed);
    if (now + bytes > budget || now + bytes < now) {
      if (swept || ReclaimDeadProcesses() == 0) return false;
      swept = true;
      now = shared_->reserved.load(std::memory_order_relaxed);
      continue;
    }
    if (shared_->reserved.compare_exchange_weak(now, now + bytes, std::memory_order_relaxed)) {
      break;
    }
  }
  if (Slot* slot = OwnSlot()) slot->bytes.fetch_add(bytes, std::memory_order_relaxed);
  return true;
}

void MemoryGovernor::Release(size_t bytes) noexcept {
  if (Slot* slot = OwnSlot()) slot->bytes.fetch_sub(bytes, std::memory_order_relaxed);
  shared_->reserved.fetch_sub(bytes, std::memory_order_relaxed);
}

size_t MemoryGovernor::ReclaimDeadProcesses() noexcept {
  size_t reclaimed = 0;
  for (Slot& slot : shared_->slots) {
    int32_t pid = slot.pid.load(std::memory_order_relaxed);
    if (pid <= 0 || kill(pid, 0) == 0 || errno != ESRCH) continue;
    // -1 marks the slot as being swept, so two sweepers never both subtract.
    if (!slot.pid.compare_exchange_strong(pid, -1)) continue;
    const uint64_t bytes = slot.bytes.exchange(0, std::memory_order_relaxed);
    shared_->reserved.fetch_sub(bytes, std::memory_order_relaxed);
    reclaimed += bytes;
    slot.pid.store(0, std::memory_order_release);
  }
  return reclaimed;
}

}  // namespace forktail
