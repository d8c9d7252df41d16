#include "storage/table/slab_pool.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace forktail {
namespace {

TEST(SlabPool, SlotsAreDistinctAlignedAndKeepTheirBytes) {
  SlabPool pool;
  std::mt19937 rng(7);
  struct Held {
    char* p;
    size_t n;
    char fill;
  };
  std::vector<Held> held;
  for (int i = 0; i < 20000; i++) {
    if (!held.empty() && rng() % 3 == 0) {
      const size_t k = rng() % held.size();
      for (size_t b = 0; b < held[k].n; b++) ASSERT_EQ(held[k].p[b], held[k].fill);
      pool.Deallocate(held[k].p, held[k].n);
      held[k] = held.back();
      held.pop_back();
      continue;
    }
    // Mostly small sizes, some leaf-sized, a few past the largest class.
    const size_t n = rng() % 10 == 0 ? 1 + rng() % (32 * 1024) : 1 + rng() % 700;
    auto* p = static_cast<char*>(pool.Allocate(n));
    ASSERT_EQ(reinterpret_cast<uintptr_t>(p) % 16, 0u) << n;
    const char fill = static_cast<char>(i);
    std::memset(p, fill, n);
    held.push_back({p, n, fill});
  }
  // No two live slots overlap.
  std::map<uintptr_t, size_t> ranges;
  for (const Held& h : held) ranges[reinterpret_cast<uintptr_t>(h.p)] = h.n;
  uintptr_t end = 0;
  for (auto [start, n] : ranges) {
    EXPECT_GE(start, end);
    end = start + n;
  }
  for (const Held& h : held) pool.Deallocate(h.p, h.n);
}

TEST(SlabPool, FreedSlotsAreReusedBeforeNewRuns) {
  if (SlabPool::kLargest == 0) GTEST_SKIP() << "sanitizer build: slots come from operator new";
  SlabPool pool;
  std::vector<void*> slots;
  for (int i = 0; i < 1000; i++) slots.push_back(pool.Allocate(4096));
  const size_t bytes = pool.memory_bytes();
  for (void* p : slots) pool.Deallocate(p, 4096);
  for (int i = 0; i < 1000; i++) slots[static_cast<size_t>(i)] = pool.Allocate(4000);
  EXPECT_EQ(pool.memory_bytes(), bytes);
  for (void* p : slots) pool.Deallocate(p, 4000);
}

TEST(SlabPool, AClassUsedOnceCostsASlotNotARun) {
  if (SlabPool::kLargest == 0) GTEST_SKIP() << "sanitizer build: slots come from operator new";
  // A small index uses many size classes once each (its leaves, their
  // offsets, packed leaves of every size): each costs its slot, rounded up
  // to the class by at most an eighth, not a 64 KiB run.
  SlabPool pool;
  std::vector<std::pair<void*, size_t>> slots;
  size_t asked = 0;
  for (size_t n = 24; n <= SlabPool::kLargest; n = n * 9 / 8) {
    slots.emplace_back(pool.Allocate(n), n);
    asked += n;
  }
  EXPECT_GT(slots.size(), 40u);
  EXPECT_LE(pool.memory_bytes(), asked + asked / 4);
  for (auto [p, n] : slots) pool.Deallocate(p, n);
}

TEST(SlabPool, ServesStandardContainers) {
  SlabPool pool;
  {
    std::set<std::string, std::less<>, SlabAllocator<std::string>> s{
        std::less<>(), SlabAllocator<std::string>(&pool)};
    std::vector<int, SlabAllocator<int>> v{SlabAllocator<int>(&pool)};
    for (int i = 0; i < 50000; i++) {
      s.insert(std::to_string(i * 7919 % 50000));
      v.push_back(i);
    }
    EXPECT_EQ(s.size(), 50000u);
    EXPECT_EQ(v[49999], 49999);
    EXPECT_GT(pool.memory_bytes(), 50000u * sizeof(int));
  }
}

}  // namespace
}  // namespace forktail
