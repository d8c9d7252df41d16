// kill -9 crash test, CI size (crash_harness.h): 200 cycles.
#include "tests/txn/crash_harness.h"

namespace forktail::crash {
namespace {

TEST(CrashTest, BankTransfersSurviveKill9) {
  int cycles = 200;
  if (const char* c = std::getenv("FORKTAIL_CRASH_CYCLES")) cycles = std::atoi(c);
  CrashStats s = RunCrashLoop(cycles, /*seed=*/20261121);
  EXPECT_EQ(s.cycles, cycles);
  EXPECT_GT(s.acknowledged, 0u);
  EXPECT_EQ(s.lost, 0u);
  EXPECT_EQ(s.violations, 0u);
}

// The same with a memory budget of 4 blocks while the data grows to many
// times that: blocks leave memory and come back through the cold store
// between and during crashes (tiering/buffer_pool.h).
TEST(CrashTest, BankTransfersSurviveKill9WithAMemoryBudget) {
  int cycles = 60;
  if (const char* c = std::getenv("FORKTAIL_CRASH_CYCLES")) cycles = std::atoi(c);
  CrashStats s = RunCrashLoop(cycles, /*seed=*/20261206, /*budget_blocks=*/4);
  EXPECT_EQ(s.cycles, cycles);
  EXPECT_GT(s.pool_reads, 0u);  // the reopens ran past the budget
  EXPECT_GT(s.acknowledged, 0u);
  EXPECT_EQ(s.lost, 0u);
  EXPECT_EQ(s.violations, 0u);
}

}  // namespace
}  // namespace forktail::crash
