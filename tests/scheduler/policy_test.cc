// Two queries compete for two workers for about a second; the CPU time each got
// (the sum of its work orders' run times, from the progress monitor, measured
// over a window after a warm-up) must match the policy's promise.
#include <gtest/gtest.h>

#include <thread>

#include "tests/scheduler/test_operators.h"

namespace forktail {
namespace {

using namespace std::chrono_literals;
using testing::OperatorLog;

struct Shares {
  double nanos_a = 0, nanos_b = 0;
  double done_a = 0, done_b = 0;
};

Shares Compete(SchedulingPolicy policy, int priority_a, int priority_b,
               std::chrono::microseconds spin_a, std::chrono::microseconds spin_b) {
  SchedulerOptions options;
  options.num_workers = 2;
  options.policy = policy;
  Scheduler scheduler(options);
  auto spin = [](std::chrono::microseconds us) {
    return [us](WorkOrderContext& c, int64_t) { testing::SpinFor(us, &c); };
  };
  QueryHandle a =
      scheduler.Submit(testing::SourcePlan(-1, 8, spin(spin_a), std::make_shared<OperatorLog>()),
                       priority_a, 1 << 20);
  QueryHandle b =
      scheduler.Submit(testing::SourcePlan(-1, 8, spin(spin_b), std::make_shared<OperatorLog>()),
                       priority_b, 1 << 20);
  std::this_thread::sleep_for(300ms);  // the learning agent converges
  std::vector<QueryProgress> before = scheduler.Progress();
  std::this_thread::sleep_for(1200ms);
  std::vector<QueryProgress> after = scheduler.Progress();
  scheduler.Cancel(a.id());
  scheduler.Cancel(b.id());
  EXPECT_NE(a.WaitError(), nullptr);
  EXPECT_NE(b.WaitError(), nullptr);
  EXPECT_EQ(before.size(), 2u);
  EXPECT_EQ(after.size(), 2u);
  Shares s;
  if (before.size() != 2 || after.size() != 2) return s;
  s.nanos_a = after[0].TotalExecNanos() - before[0].TotalExecNanos();
  s.nanos_b = after[1].TotalExecNanos() - before[1].TotalExecNanos();
  s.done_a = after[0].TotalDone() - before[0].TotalDone();
  s.done_b = after[1].TotalDone() - before[1].TotalDone();
  std::printf("time a/b = %.3f, work orders a/b = %.0f/%.0f\n", s.nanos_a / s.nanos_b, s.done_a,
              s.done_b);
  return s;
}

TEST(Policy, FairGivesEqualTimeToUnequalWorkOrders) {
  // B's work orders are 3x longer: fair time means B gets ~1/3 of A's count.
  Shares s = Compete(SchedulingPolicy::kFair, 1, 1, 400us, 1200us);
  const double time_ratio = s.nanos_a / s.nanos_b;
  EXPECT_GE(time_ratio, 0.6);
  EXPECT_LE(time_ratio, 1.67);
  EXPECT_GE(s.done_a / s.done_b, 1.5);
}

TEST(Policy, ProportionalPriorityThreeToOne) {
  Shares s = Compete(SchedulingPolicy::kProportionalPriority, 3, 1, 500us, 500us);
  const double time_ratio = s.nanos_a / s.nanos_b;
  EXPECT_GE(time_ratio, 2.0);
  EXPECT_LE(time_ratio, 4.5);
}

TEST(Policy, HighestPriorityFirstStarvesTheLowerWhileTheHigherHasWork) {
  Shares s = Compete(SchedulingPolicy::kHighestPriorityFirst, 2, 1, 500us, 500us);
  EXPECT_GT(s.done_a, 100);
  EXPECT_LE(s.nanos_b, 0.02 * s.nanos_a);
}

}  // namespace
}  // namespace forktail
