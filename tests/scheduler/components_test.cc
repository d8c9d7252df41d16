// Unit tests of the scheduler's parts on their own: query memory, the policy
// math, the learning agent and the load controller.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "scheduler/scheduler.h"
#include "storage/error.h"

namespace forktail {
namespace {

TEST(QueryMemory, ChargesAndReturnsBytes) {
  auto memory = std::make_shared<QueryMemory>(1000);
  void* a = memory->Allocate(100);
  void* b = memory->Allocate(200, 64);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 64, 0u);
  EXPECT_EQ(memory->used(), 300u);
  memory->Deallocate(a);
  EXPECT_EQ(memory->used(), 200u);
  memory->ReleaseAll();
  EXPECT_EQ(memory->used(), 0u);
  EXPECT_EQ(memory->peak(), 300u);
  memory->Deallocate(b);  // after ReleaseAll: a no-op, not a double free
  EXPECT_EQ(memory->used(), 0u);
}

TEST(QueryMemory, ExceedingTheLimitThrows53200) {
  QueryMemory memory(1000);
  void* a = memory.Allocate(900);
  try {
    memory.Allocate(200);
    FAIL() << "no error";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kOutOfMemory);
    EXPECT_STREQ(e.what(), "query exceeded its memory budget of 1000 bytes");
  }
  EXPECT_EQ(memory.used(), 900u);
  memory.Deallocate(a);
}

TEST(QueryMemory, StdContainersAndConcurrentThreads) {
  auto memory = std::make_shared<QueryMemory>(size_t{64} << 20);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([memory] {
      for (int round = 0; round < 50; ++round) {
        std::vector<int64_t, QueryAllocator<int64_t>> v{QueryAllocator<int64_t>(memory)};
        for (int i = 0; i < 1000; ++i) v.push_back(i);
        ASSERT_EQ(v[999], 999);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(memory->used(), 0u);
  // Left live on purpose: ReleaseAll frees it.
  auto* leaked = new std::vector<int, QueryAllocator<int>>(100, 1, QueryAllocator<int>(memory));
  EXPECT_GE(memory->used(), 400u);
  memory->ReleaseAll();
  EXPECT_EQ(memory->used(), 0u);
  delete leaked;  // deallocates into a released QueryMemory: ignored
}

TEST(PolicyEnforcer, ProbabilitiesFollowThePolicyMath) {
  const std::vector<PolicyCandidate> c = {{1, 3, 100.0}, {2, 1, 300.0}};
  auto fair = PolicyEnforcer::Probabilities(SchedulingPolicy::kFair, c);
  EXPECT_NEAR(fair[0], 0.75, 1e-9);  // 1/100 : 1/300 -> equal time shares
  auto prop = PolicyEnforcer::Probabilities(SchedulingPolicy::kProportionalPriority, c);
  EXPECT_NEAR(prop[0], 0.9, 1e-9);                                           // 3/100 : 1/300
  EXPECT_NEAR(prop[0] * 100 / (prop[0] * 100 + prop[1] * 300), 0.75, 1e-9);  // time 3:1
  auto hpf = PolicyEnforcer::Probabilities(SchedulingPolicy::kHighestPriorityFirst, c);
  EXPECT_EQ(hpf[0], 1.0);
  EXPECT_EQ(hpf[1], 0.0);
}

TEST(PolicyEnforcer, DrawsMatchProbabilities) {
  PolicyEnforcer enforcer(SchedulingPolicy::kProportionalPriority, 7);
  const std::vector<PolicyCandidate> c = {{1, 3, 100.0}, {2, 1, 100.0}};
  int first = 0;
  for (int i = 0; i < 10000; ++i) first += enforcer.Choose(c) == 0 ? 1 : 0;
  EXPECT_NEAR(first / 10000.0, 0.75, 0.03) << "seed 7";
}

TEST(LearningAgent, MovingAverageAndFallbacks) {
  LearningAgent agent;
  EXPECT_EQ(agent.Predict(1, 0), LearningAgent::kDefaultNanos);
  agent.Record(1, 0, 1000);
  EXPECT_EQ(agent.Predict(1, 0), 1000);
  agent.Record(1, 0, 2000);
  EXPECT_NEAR(agent.Predict(1, 0), 1000 + LearningAgent::kAlpha * 1000, 1e-9);
  EXPECT_NEAR(agent.Predict(1, 5), agent.Predict(1, 0), 1e-9);  // query mean
  EXPECT_GT(agent.Predict(2, 0), 0);                            // global average
  agent.Forget(1);
  agent.Record(2, 0, 50);
  EXPECT_EQ(agent.Predict(2, 0), 50);
}

TEST(LoadController, FifoAdmissionWithoutBypass) {
  LoadController load(100);
  EXPECT_TRUE(load.Offer(1, 60));
  EXPECT_FALSE(load.Offer(2, 50));
  EXPECT_FALSE(load.Offer(3, 10));  // would fit, but must not pass query 2
  EXPECT_EQ(load.queued(), 2u);
  EXPECT_EQ(load.Release(60), (std::vector<QueryId>{2, 3}));
  EXPECT_EQ(load.admitted_bytes(), 60u);
  EXPECT_THROW(load.CheckFits(101), DbError);
  EXPECT_NO_THROW(load.CheckFits(100));
}

}  // namespace
}  // namespace forktail
