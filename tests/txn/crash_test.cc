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

}  // namespace
}  // namespace forktail::crash
