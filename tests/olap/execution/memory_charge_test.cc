// Query memory charging: MemoryCharge against a QueryMemory, and queries whose
// hash join build, aggregation or sort outgrows the query's budget failing
// with 53200 and a message naming the operator (instead of growing), while
// the same query with enough budget succeeds and the scheduler runs the next
// query normally.
#include <gtest/gtest.h>

#include "tests/olap/execution/physical_testing.h"

namespace forktail {
namespace {

TEST(MemoryCharge, FollowsSizeAndReturnsOnDestruction) {
  auto memory = std::make_shared<QueryMemory>(1000);
  {
    MemoryCharge charge("test table");
    charge.Set(300);  // recorded before Bind, charged at Bind
    EXPECT_EQ(memory->used(), 0u);
    charge.Bind(memory);
    EXPECT_EQ(memory->used(), 300u);
    charge.Set(900);
    EXPECT_EQ(memory->used(), 900u);
    charge.Add(-400);
    EXPECT_EQ(memory->used(), 500u);
    try {
      charge.Set(1200);
      FAIL() << "expected 53200";
    } catch (const DbError& e) {
      EXPECT_STREQ(e.sqlstate(), sqlstate::kOutOfMemory);
      EXPECT_EQ(std::string(e.what()),
                "query exceeded its memory budget of 1000 bytes (test table needs 700 more)");
    }
    EXPECT_EQ(memory->used(), 500u);  // unchanged by the failed growth
    EXPECT_EQ(charge.bytes(), 500u);
    void* p = memory->Allocate(400);  // allocations and charges share the budget
    EXPECT_THROW(charge.Add(200), DbError);
    memory->Deallocate(p);
    charge.Add(200);
    EXPECT_EQ(memory->used(), 700u);
  }
  EXPECT_EQ(memory->used(), 0u);
  EXPECT_EQ(memory->peak(), 900u);
}

std::string RunError(const std::function<std::shared_ptr<ResultRows>(PlanBuilder&)>& make,
                     size_t budget, ptest::Mode mode) {
  SchedulerOptions options;
  options.immediate = mode == ptest::Mode::kImmediate;
  options.num_workers = mode == ptest::Mode::kTwoWorkers ? 2 : 1;
  options.pin_workers = false;
  Scheduler scheduler(options);
  PlanBuilder builder(static_cast<int>(options.num_workers));
  make(builder);
  std::string error;
  try {
    scheduler.Submit(builder.Build(), 1, budget).Wait();
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kOutOfMemory) << e.what();
    error = e.what();
  }
  // The scheduler is fine afterwards: a small query runs, nothing stays admitted.
  auto t = ptest::MakeTable("small", 10, 1, 5, 0, 64, false);
  PlanBuilder b2(static_cast<int>(options.num_workers));
  auto rows = b2.Sink(b2.Scan(*t.table));
  scheduler.Submit(b2.Build(), 1, size_t{16} << 20).Wait();
  EXPECT_EQ(rows->rows.size(), 10u);
  EXPECT_EQ(scheduler.admitted_memory(), 0u);
  return error;
}

// 30k distinct keys with text payload on the build side.
const ptest::TestTable& Big() {
  static auto* t = new ptest::TestTable(ptest::MakeTable("big", 30000, 601, 30000, 0, 8192, false));
  return *t;
}

constexpr size_t kSmallBudget = size_t{1} << 20;
constexpr size_t kLargeBudget = size_t{256} << 20;

TEST(QueryMemoryCharge, HashJoinBuildOverBudgetFails) {
  auto plan = [](PlanBuilder& b) {
    OperatorId build = b.HashBuild(b.Scan(*Big().table), {0, 1}, {2, 3, 4});
    return b.Sink(b.HashProbe(b.Scan(*Big().table), build, JoinType::kSemi, {0, 1}, {0}));
  };
  for (ptest::Mode mode : ptest::kModes) {
    std::string error = RunError(plan, kSmallBudget, mode);
    EXPECT_NE(error.find("query exceeded its memory budget of 1048576 bytes (hash join"),
              std::string::npos)
        << ptest::ModeName(mode) << ": " << error;
  }
  EXPECT_EQ(RunError(plan, kLargeBudget, ptest::Mode::kTwoWorkers), "");
}

TEST(QueryMemoryCharge, AggregationOverBudgetFails) {
  for (AggMethod method : {AggMethod::kAdaptive, AggMethod::kShared, AggMethod::kPartition}) {
    auto plan = [&](PlanBuilder& b) {
      return b.Sink(b.Aggregate(b.Scan(*Big().table), {0, 2},
                                {{AggKind::kCountStar, 0, {}}, {AggKind::kMax, 2, {}}}, method));
    };
    for (ptest::Mode mode : {ptest::Mode::kImmediate, ptest::Mode::kTwoWorkers}) {
      std::string error = RunError(plan, kSmallBudget, mode);
      EXPECT_NE(error.find("(aggregation"), std::string::npos)
          << AggMethodName(method) << " " << ptest::ModeName(mode) << ": " << error;
    }
    EXPECT_EQ(RunError(plan, kLargeBudget, ptest::Mode::kTwoWorkers), "") << AggMethodName(method);
  }
}

TEST(QueryMemoryCharge, SortOverBudgetFails) {
  auto plan = [](PlanBuilder& b) {
    return b.Sink(b.Sort(b.Scan(*Big().table), {{2, false, -1}, {0, true, -1}}));
  };
  for (ptest::Mode mode : {ptest::Mode::kImmediate, ptest::Mode::kTwoWorkers}) {
    std::string error = RunError(plan, kSmallBudget, mode);
    EXPECT_NE(error.find("(sort"), std::string::npos) << ptest::ModeName(mode) << ": " << error;
  }
  EXPECT_EQ(RunError(plan, kLargeBudget, ptest::Mode::kTwoWorkers), "");
}

// A join that multiplies rows (two keys, ~1500 matches per probe row): one
// probe work order's output block grows until its charge passes the budget.
TEST(QueryMemoryCharge, JoinOutputOverBudgetFails) {
  auto t = ptest::MakeTable("dups", 3000, 602, 2, 0, 4096, false, false);
  auto plan = [&](PlanBuilder& b) {
    OperatorId build = b.HashBuild(b.Scan(*t.table), {0}, {1});
    return b.Sink(b.HashProbe(b.Scan(*t.table), build, JoinType::kInner, {0}, {0, 1, 2}));
  };
  for (ptest::Mode mode : {ptest::Mode::kImmediate, ptest::Mode::kTwoWorkers}) {
    std::string error = RunError(plan, size_t{8} << 20, mode);
    EXPECT_NE(error.find("(hash join output needs"), std::string::npos)
        << ptest::ModeName(mode) << ": " << error;
  }
}

}  // namespace
}  // namespace forktail
