// StatementTimer (statement_timeout's deadlines): callbacks run at their
// deadline unless disarmed first; Disarm says whether it ran; an entry the
// timer thread is waiting for may be disarmed (the thread then waits for
// the next one).
#include "olap/session/statement_timer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace forktail::testing {
namespace {

using std::chrono::milliseconds;

TEST(StatementTimerTest, FiresAtTheDeadlineUnlessDisarmed) {
  StatementTimer timer;
  std::atomic<int> fired{0};
  const uint64_t late =
      timer.Arm(StatementTimer::Clock::now() + std::chrono::hours(1), [&] { fired += 100; });
  const uint64_t soon =
      timer.Arm(StatementTimer::Clock::now() + milliseconds(20), [&] { fired++; });
  while (fired.load() == 0) std::this_thread::sleep_for(milliseconds(2));
  EXPECT_TRUE(timer.Disarm(soon));
  EXPECT_FALSE(timer.Disarm(late));
  EXPECT_EQ(fired.load(), 1);
}

TEST(StatementTimerTest, DisarmingTheEntryTheThreadWaitsForIsSafe) {
  StatementTimer timer;
  std::atomic<bool> fired{false};
  const uint64_t first = timer.Arm(StatementTimer::Clock::now() + milliseconds(500), [] {});
  std::this_thread::sleep_for(milliseconds(20));  // the thread now waits for `first`
  EXPECT_FALSE(timer.Disarm(first));
  const uint64_t next =
      timer.Arm(StatementTimer::Clock::now() + milliseconds(10), [&] { fired = true; });
  while (!fired.load()) std::this_thread::sleep_for(milliseconds(2));
  EXPECT_TRUE(timer.Disarm(next));
}

}  // namespace
}  // namespace forktail::testing
