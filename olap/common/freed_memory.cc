#include "olap/common/freed_memory.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>

#include "storage/allocator.h"

namespace forktail {
namespace {

std::atomic<size_t> rss_after_trim{0};  // 0: no trim yet
// steady_clock ticks of the last trim.
std::atomic<std::chrono::steady_clock::rep> last_trim{0};

void Trim() {
  ReleaseFreeAllocatorMemory();
  rss_after_trim.store(std::max<size_t>(ResidentBytes(), 1), std::memory_order_relaxed);
  last_trim.store(std::chrono::steady_clock::now().time_since_epoch().count(),
                  std::memory_order_relaxed);
}

// steady_clock ticks of the last RSS read by ReturnFreedMemory.
std::atomic<std::chrono::steady_clock::rep> last_check{0};

}  // namespace

size_t ResidentBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long long pages = 0, resident = 0;
  int n = std::fscanf(f, "%llu %llu", &pages, &resident);
  std::fclose(f);
  return n == 2 ? static_cast<size_t>(resident) * static_cast<size_t>(sysconf(_SC_PAGE_SIZE)) : 0;
}

void TrimFreedMemory() { Trim(); }

void ReturnFreedMemory(std::chrono::steady_clock::duration statement_time) {
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  if (statement_time < kQuickStatement &&
      now - std::chrono::steady_clock::duration(last_check.load(std::memory_order_relaxed)) <
          kRecheckInterval) {
    return;
  }
  last_check.store(now.count(), std::memory_order_relaxed);
  const size_t base = rss_after_trim.load(std::memory_order_relaxed);
  if (base != 0) {
    const size_t rss = ResidentBytes();
    if (rss <= base + kTrimSlackBytes) return;
    const auto since_trim =
        now - std::chrono::steady_clock::duration(last_trim.load(std::memory_order_relaxed));
    if (rss <= base + kTrimHardSlackBytes && since_trim < kTrimInterval) return;
  }
  Trim();
}

}  // namespace forktail
