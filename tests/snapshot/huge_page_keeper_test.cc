// HugePageKeeper: blocks split by copy-on-write after a fork are huge-mapped
// again by a sweep; nothing happens while the huge share is above the bound.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "snapshot/snapshot.h"

namespace forktail::testing {
namespace {

constexpr size_t kBlock = size_t{2} << 20;
constexpr size_t kBlocks = 8;

class Blocks {
 public:
  Blocks() {
    raw_ = static_cast<char*>(mmap(nullptr, (kBlocks + 1) * kBlock, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    base_ =
        reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(raw_) + kBlock - 1) & ~(kBlock - 1));
    madvise(base_, kBlocks * kBlock, MADV_HUGEPAGE);
    for (size_t i = 0; i < kBlocks * kBlock; i += 4096) base_[i] = 1;
  }
  ~Blocks() { munmap(raw_, (kBlocks + 1) * kBlock); }
  std::vector<void*> List() const {
    std::vector<void*> out;
    for (size_t b = 0; b < kBlocks; b++) out.push_back(base_ + b * kBlock);
    return out;
  }
  char* block(size_t b) { return base_ + b * kBlock; }

 private:
  char* raw_;
  char* base_;
};

TEST(HugePageKeeper, CollapsesBlocksSplitByCopyOnWrite) {
  Blocks blocks;
  const uint64_t huge_before = AnonHugePageBytes();
  if (huge_before < kBlocks * kBlock) GTEST_SKIP() << "no transparent huge pages here";
  HugePageKeeperOptions o;
  o.interval_ms = 60'000;  // sweeps only through CheckNow
  o.min_huge_fraction = 0.5;
  HugePageKeeper keeper([&] { return blocks.List(); }, o);
  keeper.CheckNow();  // all huge: no sweep
  EXPECT_EQ(keeper.stats().sweeps, 0u);

  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  for (size_t b = 0; b < kBlocks; b++) blocks.block(b)[4096 * 7] = 2;  // COW splits each
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  ASSERT_LT(AnonHugePageBytes(), huge_before) << "the writes did not split the blocks";
  keeper.CheckNow();
  if (!keeper.supported()) GTEST_SKIP() << "kernel without MADV_COLLAPSE";
  EXPECT_EQ(keeper.stats().sweeps, 1u);
  EXPECT_EQ(keeper.stats().blocks_checked, kBlocks);
  EXPECT_GE(AnonHugePageBytes(), huge_before - keeper.stats().collapse_failures * kBlock);
  for (size_t b = 0; b < kBlocks; b++) EXPECT_EQ(blocks.block(b)[4096 * 7], 2);
}

}  // namespace
}  // namespace forktail::testing
