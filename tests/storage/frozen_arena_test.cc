// FrozenArena: allocations never overlap and keep their bytes under random
// allocate/free; freed neighbours merge and a hole reaching the top lowers
// it; a full or absent reservation falls back to operator new.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>
#include <vector>

#include "storage/table/frozen_arena.h"

namespace forktail {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

TEST(FrozenArena, RandomAllocationsKeepTheirBytesAndNeverOverlap) {
  FrozenArena arena(64 * kMiB);
  std::mt19937_64 rng(3);
  struct Live {
    uint64_t* p;
    size_t bytes;
    uint64_t tag;
  };
  std::vector<Live> live;
  auto check = [&](const Live& l) {
    for (size_t i = 0; i < l.bytes / 8; i++) ASSERT_EQ(l.p[i], l.tag + i);
  };
  for (int op = 0; op < 4000; op++) {
    if (live.empty() || rng() % 3 != 0) {
      const size_t bytes = (1 + rng() % (600 * 1024 / 8)) * 8;  // up to ~600 KiB, as images are
      Live l{arena.Allocate(bytes), bytes, rng()};
      ASSERT_NE(l.p, nullptr);
      ASSERT_EQ(reinterpret_cast<uintptr_t>(l.p) % 8, 0u);
      for (size_t i = 0; i < bytes / 8; i++) l.p[i] = l.tag + i;
      live.push_back(l);
    } else {
      const size_t i = rng() % live.size();
      check(live[i]);
      arena.Free(live[i].p, live[i].bytes);
      live[i] = live.back();
      live.pop_back();
    }
    if (op % 500 == 0) {
      std::map<uintptr_t, size_t> ranges;
      size_t owned = 0;
      for (const Live& l : live) {
        check(l);
        if (arena.Owns(l.p)) {
          ranges[reinterpret_cast<uintptr_t>(l.p)] = l.bytes;
          owned += l.bytes;
        }
      }
      uintptr_t end = 0;
      for (const auto& [at, bytes] : ranges) {
        ASSERT_GE(at, end) << "overlapping allocations";
        end = at + bytes;
      }
      EXPECT_EQ(arena.used_bytes(), owned);
    }
  }
  for (const Live& l : live) {
    check(l);
    arena.Free(l.p, l.bytes);
  }
  EXPECT_EQ(arena.used_bytes(), 0u);
  EXPECT_EQ(arena.top_bytes(), 0u);  // every hole merged down to the bottom
  EXPECT_EQ(arena.hole_count(), 0u);
}

TEST(FrozenArena, FreedNeighboursMergeAndAreReused) {
  FrozenArena arena(8 * kMiB);
  uint64_t* a = arena.Allocate(4096);
  uint64_t* b = arena.Allocate(8192);
  uint64_t* c = arena.Allocate(4096);
  ASSERT_TRUE(arena.Owns(a) && arena.Owns(b) && arena.Owns(c));
  EXPECT_EQ(reinterpret_cast<uint8_t*>(b), reinterpret_cast<uint8_t*>(a) + 4096);  // packed
  arena.Free(a, 4096);
  arena.Free(b, 8192);
  EXPECT_EQ(arena.hole_count(), 1u);  // a and b merged
  uint64_t* d = arena.Allocate(12288);
  EXPECT_EQ(d, a);  // first fit: the merged hole
  EXPECT_EQ(arena.hole_count(), 0u);
  arena.Free(c, 4096);  // at the top: the top comes down
  EXPECT_EQ(arena.top_bytes(), 12288u);
  arena.Free(d, 12288);
  EXPECT_EQ(arena.top_bytes(), 0u);
}

TEST(FrozenArena, FullOrAbsentReservationFallsBackToOperatorNew) {
  FrozenArena small(2 * kMiB);
  uint64_t* big = small.Allocate(3 * kMiB);
  EXPECT_FALSE(small.Owns(big));
  std::memset(big, 0xab, 3 * kMiB);
  uint64_t* fits = small.Allocate(kMiB);
  EXPECT_TRUE(small.Owns(fits));
  small.Free(big, 3 * kMiB);
  small.Free(fits, kMiB);
  EXPECT_EQ(small.used_bytes(), 0u);

  FrozenArena none(0);
  uint64_t* p = none.Allocate(64);
  EXPECT_FALSE(none.Owns(p));
  p[7] = 1;
  none.Free(p, 64);
}

}  // namespace
}  // namespace forktail
