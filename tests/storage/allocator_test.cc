#include "storage/allocator.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#if FORKTAIL_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

namespace forktail {
namespace {

#if FORKTAIL_JEMALLOC
uint64_t JemallocAllocatedByThisThread() {
  uint64_t bytes = 0;
  size_t size = sizeof(bytes);
  EXPECT_EQ(mallctl("thread.allocated", &bytes, &size, nullptr, 0), 0);
  return bytes;
}

// Linking jemalloc is not enough: malloc must resolve to it, not to glibc's
// (a link order with libc first would leave jemalloc unused). Counting what
// this thread allocated tells.
TEST(Allocator, MallocAndNewGoThroughJemalloc) {
  EXPECT_EQ(AllocatorName().rfind("jemalloc 5", 0), 0u) << AllocatorName();
  const uint64_t before = JemallocAllocatedByThisThread();
  // Volatile, so that the compiler cannot drop the pair malloc/free.
  char* volatile p = static_cast<char*>(std::malloc(100000));
  p[0] = 1;
  auto* v = new std::vector<char>(200000);
  const uint64_t after = JemallocAllocatedByThisThread();
  delete v;
  std::free(p);
  EXPECT_GE(after - before, 300000u);
}
#else
TEST(Allocator, NamesGlibc) { EXPECT_EQ(AllocatorName(), "glibc malloc"); }
#endif

// Freed memory can be given back at any time, also with nothing to give.
TEST(Allocator, ReleaseFreeMemoryAfterFreeingMuch) {
  std::vector<void*> blocks;
  for (int i = 0; i < 64; i++) blocks.push_back(std::malloc(1 << 20));
  for (void* b : blocks) std::free(b);
  ReleaseFreeAllocatorMemory();
  ReleaseFreeAllocatorMemory();
  void* again = std::malloc(1 << 20);
  ASSERT_NE(again, nullptr);
  std::free(again);
}

}  // namespace
}  // namespace forktail
