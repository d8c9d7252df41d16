// kill -9 crash test, long form (crash_harness.h): 2,000 cycles, `make crash-long`.
#include "tests/txn/crash_harness.h"

namespace forktail::crash {
namespace {

TEST(CrashLongTest, BankTransfersSurviveKill9) {
  int cycles = 2000;
  if (const char* c = std::getenv("FORKTAIL_CRASH_CYCLES")) cycles = std::atoi(c);
  uint64_t seed = 7;
  if (const char* s = std::getenv("FORKTAIL_CRASH_SEED")) seed = std::strtoull(s, nullptr, 10);
  CrashStats s = RunCrashLoop(cycles, seed);
  EXPECT_EQ(s.cycles, cycles);
  EXPECT_EQ(s.lost, 0u);
  EXPECT_EQ(s.violations, 0u);
}

}  // namespace
}  // namespace forktail::crash
