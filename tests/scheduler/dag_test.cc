// The operator contract: blocking edges order operators, pipelining edges
// stream, totals are right at any worker count, immediate mode is repeatable.
#include <gtest/gtest.h>

#include "storage/error.h"
#include "tests/scheduler/test_operators.h"

namespace forktail {
namespace {

using testing::EmitIndex;
using testing::OperatorLog;
using testing::PerBlockOperator;
using testing::SourceOperator;

SchedulerOptions Workers(size_t n) {
  SchedulerOptions options;
  options.num_workers = n;
  return options;
}

struct TwoStage {
  std::shared_ptr<OperatorLog> source = std::make_shared<OperatorLog>();
  std::shared_ptr<OperatorLog> consumer = std::make_shared<OperatorLog>();
  std::shared_ptr<std::atomic<int64_t>> sum = std::make_shared<std::atomic<int64_t>>(0);

  std::unique_ptr<QueryPlan> Plan(int64_t n, int64_t per_call, bool pipelining) {
    auto plan = std::make_unique<QueryPlan>();
    OperatorId s = plan->AddOperator(
        std::make_unique<SourceOperator>("Scan", n, per_call, EmitIndex(), source));
    OperatorId c = plan->AddOperator(std::make_unique<PerBlockOperator>(
        "Sum", 1, [sum = sum](WorkOrderContext&, int64_t v) { sum->fetch_add(v); }, consumer));
    plan->AddEdge(s, c, pipelining);
    return plan;
  }
};

class DagTest : public ::testing::TestWithParam<size_t> {};

TEST_P(DagTest, BlockingConsumerStartsAfterProducerFinished) {
  Scheduler scheduler(Workers(GetParam()));
  TwoStage q;
  QueryHandle handle = scheduler.Submit(q.Plan(500, 7, /*pipelining=*/false), 1, 1 << 20);
  handle.Wait();
  EXPECT_EQ(q.consumer->executed.load(), 500);
  EXPECT_EQ(q.sum->load(), 499 * 500 / 2);
  EXPECT_LT(q.source->finished_seq.load(), q.consumer->first_fetch_seq.load());
  EXPECT_LT(q.source->last_exec_seq.load(), q.consumer->first_exec_seq.load());
  EXPECT_LT(q.consumer->last_exec_seq.load(), q.consumer->finished_seq.load());
}

TEST_P(DagTest, ManyWorkOrdersGiveCorrectTotals) {
  Scheduler scheduler(Workers(GetParam()));
  TwoStage q;
  QueryHandle handle = scheduler.Submit(q.Plan(3000, 50, /*pipelining=*/true), 1, 1 << 20);
  handle.Wait();
  EXPECT_EQ(q.source->executed.load(), 3000);
  EXPECT_EQ(q.consumer->executed.load(), 3000);
  EXPECT_EQ(q.sum->load(), int64_t{2999} * 3000 / 2);
  QueryProgress progress = handle.FinalProgress();
  ASSERT_EQ(progress.operators.size(), 2u);
  for (const OperatorProgress& op : progress.operators) {
    EXPECT_EQ(op.work_orders_done, 3000u);
    EXPECT_EQ(op.work_orders_total, 3000u);
    EXPECT_TRUE(op.finished);
  }
  EXPECT_EQ(progress.operators[0].name, "Scan");
  EXPECT_GT(progress.TotalExecNanos(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Workers, DagTest, ::testing::Values(1, 2, 4));

TEST(Dag, PipeliningConsumerRunsOnStreamedBlocks) {
  SchedulerOptions options;
  options.immediate = true;  // one thread: the order below is deterministic
  Scheduler scheduler(options);
  TwoStage q;
  scheduler.Submit(q.Plan(20, 1, /*pipelining=*/true), 1, 1 << 20).Wait();
  // The consumer ran on the first block before the producer's last work order.
  EXPECT_LT(q.consumer->first_exec_seq.load(), q.source->last_exec_seq.load());
  EXPECT_LT(q.consumer->first_fetch_seq.load(), q.source->finished_seq.load());
  EXPECT_EQ(q.sum->load(), 19 * 20 / 2);
}

// Depth first: a block's consumer runs before the producer's next queued work
// order (query_execution.h), so blocks do not pile up between operators even
// when the producer queued all its work orders at once.
TEST(Dag, ConsumerWorkOrdersRunBeforeQueuedProducerWorkOrders) {
  SchedulerOptions options;
  options.immediate = true;
  Scheduler scheduler(options);
  auto in_flight = std::make_shared<std::atomic<int64_t>>(0);
  auto max_in_flight = std::make_shared<std::atomic<int64_t>>(0);
  auto source = std::make_shared<OperatorLog>();
  auto consumer = std::make_shared<OperatorLog>();
  auto plan = std::make_unique<QueryPlan>();
  OperatorId s = plan->AddOperator(std::make_unique<SourceOperator>(
      "Scan", 50, 50,  // every work order queued by the first call
      [=](WorkOrderContext& c, int64_t i) {
        int64_t now = in_flight->fetch_add(1) + 1;
        if (now > max_in_flight->load()) max_in_flight->store(now);
        c.EmitBlock(std::make_shared<testing::IntBlock>(i));
      },
      source));
  OperatorId c = plan->AddOperator(std::make_unique<PerBlockOperator>(
      "Probe", 1, [=](WorkOrderContext&, int64_t) { in_flight->fetch_sub(1); }, consumer));
  plan->AddEdge(s, c, true);
  scheduler.Submit(std::move(plan), 1, 1 << 20).Wait();
  EXPECT_EQ(consumer->executed.load(), 50);
  EXPECT_EQ(max_in_flight->load(), 1);
}

TEST(Dag, PipeliningStreamsWithWorkerThreads) {
  Scheduler scheduler(Workers(2));
  // The producer's last work order waits until the consumer has executed one,
  // which can only happen if blocks stream while the producer is running.
  auto source = std::make_shared<OperatorLog>();
  auto consumer = std::make_shared<OperatorLog>();
  auto plan = std::make_unique<QueryPlan>();
  OperatorId s = plan->AddOperator(std::make_unique<SourceOperator>(
      "Scan", 10, 10,
      [consumer](WorkOrderContext& c, int64_t i) {
        if (i == 9) {
          while (consumer->executed.load() == 0) std::this_thread::yield();
        } else {
          c.EmitBlock(std::make_shared<testing::IntBlock>(i));
        }
      },
      source));
  OperatorId c = plan->AddOperator(
      std::make_unique<PerBlockOperator>("Probe", 1, testing::Nothing(), consumer));
  plan->AddEdge(s, c, true);
  scheduler.Submit(std::move(plan), 1, 1 << 20).Wait();
  EXPECT_EQ(consumer->executed.load(), 9);
}

TEST(Dag, DiamondWithMixedEdges) {
  Scheduler scheduler(Workers(2));
  auto build = std::make_shared<OperatorLog>();
  auto scan = std::make_shared<OperatorLog>();
  auto probe = std::make_shared<OperatorLog>();
  auto plan = std::make_unique<QueryPlan>();
  OperatorId b =
      plan->AddOperator(std::make_unique<SourceOperator>("Build", 100, 10, EmitIndex(), build));
  OperatorId s =
      plan->AddOperator(std::make_unique<SourceOperator>("Scan", 100, 10, EmitIndex(), scan));
  OperatorId p =
      plan->AddOperator(std::make_unique<PerBlockOperator>("Probe", 2, testing::Nothing(), probe));
  plan->AddEdge(b, p, /*pipelining=*/false);
  plan->AddEdge(s, p, /*pipelining=*/true);
  scheduler.Submit(std::move(plan), 1, 1 << 20).Wait();
  EXPECT_EQ(probe->executed.load(), 200);
  EXPECT_LT(build->finished_seq.load(), probe->first_fetch_seq.load());
}

std::vector<int64_t> RunImmediateTwice() {
  SchedulerOptions options;
  options.immediate = true;
  Scheduler scheduler(options);
  auto order = std::make_shared<std::vector<int64_t>>();
  auto log = std::make_shared<OperatorLog>();
  auto plan = std::make_unique<QueryPlan>();
  OperatorId s = plan->AddOperator(std::make_unique<SourceOperator>(
      "Scan", 30, 4,
      [order](WorkOrderContext& c, int64_t i) {
        order->push_back(i);
        c.EmitBlock(std::make_shared<testing::IntBlock>(1000 + i));
      },
      log));
  OperatorId c = plan->AddOperator(std::make_unique<PerBlockOperator>(
      "Agg", 1, [order](WorkOrderContext&, int64_t v) { order->push_back(v); },
      std::make_shared<OperatorLog>()));
  plan->AddEdge(s, c, true);
  scheduler.Submit(std::move(plan), 1, 1 << 20).Wait();
  return *order;
}

TEST(Dag, ImmediateModeIsRepeatable) {
  std::vector<int64_t> first = RunImmediateTwice();
  EXPECT_EQ(first.size(), 60u);
  EXPECT_EQ(first, RunImmediateTwice());
}

class IdleOperator : public RelationalOperator {
 public:
  std::string_view name() const override { return "Idle"; }
  bool GetNextWorkOrders(WorkOrderSink&) override { return false; }
};

TEST(Dag, StalledPlanFailsWithInternalError) {
  Scheduler scheduler(Workers(1));
  auto plan = std::make_unique<QueryPlan>();
  plan->AddOperator(std::make_unique<IdleOperator>());
  try {
    scheduler.Submit(std::move(plan), 1, 1 << 20).Wait();
    FAIL() << "no error";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kInternalError);
    EXPECT_NE(std::string(e.what()).find("Idle"), std::string::npos);
  }
}

TEST(Dag, EmptyPlanSucceeds) {
  Scheduler scheduler(Workers(1));
  scheduler.Submit(std::make_unique<QueryPlan>(), 1, 0).Wait();
}

}  // namespace
}  // namespace forktail
