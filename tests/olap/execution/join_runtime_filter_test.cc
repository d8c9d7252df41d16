// Runtime join filters wired from hash-join builds into the probe-side scan:
// the same results with and without filters (inner and semi joins, exact and
// Bloom kinds, integer and text keys, a two-dimension star), under the real
// Scheduler (immediate, 1 worker, 2 workers); the filters really drop rows;
// the scan waits for the build (blocking edge).
#include <gtest/gtest.h>

#include "tests/olap/execution/physical_testing.h"

namespace forktail {
namespace {

struct FilterSpec {
  size_t key_index;      // of the build's keys
  uint32_t scan_column;  // of the probe scan's read columns
  JoinFilterKind kind;
};

// SELECT t.a, t.c, t.b [, u.b, u.d] FROM t JOIN u ON (t.a, t.c) = (u.a, u.c)
// WHERE u.b > `min_b`, with the requested runtime filters on t's scan.
// Returns the rows and (through *slots) the filter slots.
std::vector<Row> RunJoin(ptest::Mode mode, const Table& t, const Table& u, JoinType type,
                         int64_t min_b, const std::vector<FilterSpec>& filters,
                         std::vector<std::shared_ptr<JoinFilterSlot>>* slots = nullptr) {
  return ptest::RunPlan(mode, [&](QueryPlan& plan, int workers) {
    ScanSpec build_spec;
    build_spec.filter = Compare(CompareOp::kGt, ptest::B(), Constant(Value::BigInt(min_b)));
    auto build_scan = std::make_unique<TableScanOperator>(u, std::move(build_spec), workers);
    auto build = std::make_unique<HashJoinBuildOperator>(build_scan->output_types(),
                                                         std::vector<uint32_t>{0, 2},
                                                         std::vector<uint32_t>{1, 3}, workers);
    ScanSpec probe_spec;
    for (const FilterSpec& f : filters) {
      auto slot = std::make_shared<JoinFilterSlot>();
      build->PublishFilter(f.key_index, slot, f.kind);
      probe_spec.runtime_filters.push_back(
          std::make_shared<JoinRuntimeFilter>(slot, f.scan_column));
      if (slots != nullptr) slots->push_back(slot);
    }
    HashJoinBuildOperator* build_op = build.get();
    OperatorId bs = plan.AddOperator(std::move(build_scan));
    OperatorId b = plan.AddOperator(std::move(build));
    auto probe_scan = std::make_unique<TableScanOperator>(t, std::move(probe_spec), workers);
    auto probe = std::make_unique<HashJoinProbeOperator>(
        probe_scan->output_types(), build_op, type, std::vector<uint32_t>{0, 2},
        std::vector<uint32_t>{0, 2, 1}, CompactionPolicy::Off(), workers);
    auto result = std::make_shared<ResultRows>();
    auto sink = std::make_unique<ResultSinkOperator>(probe->output_types(), result);
    OperatorId ps = plan.AddOperator(std::move(probe_scan));
    OperatorId p = plan.AddOperator(std::move(probe));
    OperatorId s = plan.AddOperator(std::move(sink));
    plan.AddEdge(bs, b, false);
    if (!filters.empty()) plan.AddEdge(b, ps, false);  // the filter is complete before the scan
    plan.AddEdge(ps, p, true);
    plan.AddEdge(b, p, false);
    plan.AddEdge(p, s, true);
    return result;
  });
}

const std::vector<std::vector<FilterSpec>> kFilterSets = {
    {{0, 0, JoinFilterKind::kAuto}},                                 // a: exact (dense ints)
    {{0, 0, JoinFilterKind::kBloom}},                                // a: Bloom
    {{1, 2, JoinFilterKind::kAuto}},                                 // c: text -> Bloom
    {{0, 0, JoinFilterKind::kExact}, {1, 2, JoinFilterKind::kAuto}}  // both
};

void CheckSameResults(const ptest::TestTable& t, const ptest::TestTable& u, int64_t min_b,
                      uint64_t seed) {
  for (JoinType type : {JoinType::kInner, JoinType::kSemi}) {
    auto want = ptest::Bag(RunJoin(ptest::Mode::kImmediate, *t.table, *u.table, type, min_b, {}));
    for (size_t f = 0; f < kFilterSets.size(); ++f) {
      for (ptest::Mode mode : ptest::kModes) {
        auto got = RunJoin(mode, *t.table, *u.table, type, min_b, kFilterSets[f]);
        ASSERT_EQ(ptest::Bag(got), want) << "seed " << seed << " type " << static_cast<int>(type)
                                         << " filter set " << f << " " << ptest::ModeName(mode);
      }
    }
  }
}

TEST(JoinRuntimeFilter, SameResultsWithAndWithout) {
  auto t = ptest::MakeTable("t", 3000, 501, 200, 0, 512);
  auto u = ptest::MakeTable("u", 600, 502, 200, 0, 256);
  CheckSameResults(t, u, 0, 501);
}

TEST(JoinRuntimeFilter, SelectiveBuildSkewedProbe) {
  auto t = ptest::MakeTable("t", 3000, 503, 500, 1.0, 384);
  auto u = ptest::MakeTable("u", 400, 504, 500, 0, 128);
  CheckSameResults(t, u, 500, 503);  // u.b > 500: few build rows
}

TEST(JoinRuntimeFilter, EmptyBuildDropsEverything) {
  auto t = ptest::MakeTable("t", 1000, 505, 50, 0, 256);
  auto u = ptest::MakeTable("u", 300, 506, 50, 0, 128);
  std::vector<std::shared_ptr<JoinFilterSlot>> slots;
  auto got = RunJoin(ptest::Mode::kTwoWorkers, *t.table, *u.table, JoinType::kInner,
                     /*min_b: no row passes*/ 100000, kFilterSets[3], &slots);
  EXPECT_TRUE(got.empty());
  for (const auto& s : slots) {
    EXPECT_TRUE(s->published);
    EXPECT_EQ(s->rows_passed.load(), 0u);
  }
}

TEST(JoinRuntimeFilter, FiltersDropRowsBeforeTheJoin) {
  auto t = ptest::MakeTable("t", 4000, 507, 1000, 0, 512);
  auto u = ptest::MakeTable("u", 300, 508, 1000, 0, 128);
  for (JoinFilterKind kind : {JoinFilterKind::kExact, JoinFilterKind::kBloom}) {
    std::vector<std::shared_ptr<JoinFilterSlot>> slots;
    auto got = RunJoin(ptest::Mode::kTwoWorkers, *t.table, *u.table, JoinType::kInner, 0,
                       {{0, 0, kind}}, &slots);
    ASSERT_EQ(slots.size(), 1u);
    const JoinFilterSlot& s = *slots[0];
    EXPECT_TRUE(s.published);
    EXPECT_EQ(s.exact != nullptr, kind == JoinFilterKind::kExact);
    EXPECT_EQ(s.rows_in.load(), t.live.size());
    // ~150 distinct build keys of 1000: most probe rows cannot match.
    EXPECT_LT(s.rows_passed.load(), t.live.size() / 2) << static_cast<int>(kind);
    EXPECT_GE(s.rows_passed.load(), got.size());
  }
}

// Two dimensions filter one fact scan: t JOIN u ON t.a = u.a JOIN w ON t.c = w.c
// (inner, inner), both builds publish into t's scan; compared with no filters.
TEST(JoinRuntimeFilter, StarJoinTwoBuildsOneScan) {
  auto t = ptest::MakeTable("t", 3000, 509, 300, 0, 512);
  auto u = ptest::MakeTable("u", 200, 510, 300, 0, 128);
  auto w = ptest::MakeTable("w", 100, 511, 300, 0, 128);
  auto run = [&](ptest::Mode mode, bool filters) {
    return ptest::RunPlan(mode, [&](QueryPlan& plan, int workers) {
      auto u_scan = std::make_unique<TableScanOperator>(*u.table, ScanSpec{}, workers);
      auto u_build = std::make_unique<HashJoinBuildOperator>(
          u_scan->output_types(), std::vector<uint32_t>{0}, std::vector<uint32_t>{1}, workers);
      ScanSpec w_spec;
      w_spec.filter = IsNull(ptest::B(), /*negated=*/true);
      auto w_scan = std::make_unique<TableScanOperator>(*w.table, std::move(w_spec), workers);
      auto w_build = std::make_unique<HashJoinBuildOperator>(
          w_scan->output_types(), std::vector<uint32_t>{2}, std::vector<uint32_t>{3}, workers);
      ScanSpec t_spec;
      if (filters) {
        auto su = std::make_shared<JoinFilterSlot>(), sw = std::make_shared<JoinFilterSlot>();
        u_build->PublishFilter(0, su);
        w_build->PublishFilter(0, sw);
        t_spec.runtime_filters = {std::make_shared<JoinRuntimeFilter>(su, 0),
                                  std::make_shared<JoinRuntimeFilter>(sw, 2)};
      }
      auto t_scan = std::make_unique<TableScanOperator>(*t.table, std::move(t_spec), workers);
      auto p1 = std::make_unique<HashJoinProbeOperator>(
          t_scan->output_types(), u_build.get(), JoinType::kInner, std::vector<uint32_t>{0},
          std::vector<uint32_t>{0, 1, 2}, CompactionPolicy::Off(), workers);
      // p1 output: t.a, t.b, t.c, u.b
      auto p2 = std::make_unique<HashJoinProbeOperator>(
          p1->output_types(), w_build.get(), JoinType::kInner, std::vector<uint32_t>{2},
          std::vector<uint32_t>{0, 1, 2, 3}, CompactionPolicy::Fixed(1024), workers);
      auto result = std::make_shared<ResultRows>();
      auto sink = std::make_unique<ResultSinkOperator>(p2->output_types(), result);
      OperatorId us = plan.AddOperator(std::move(u_scan));
      OperatorId ub = plan.AddOperator(std::move(u_build));
      OperatorId ws = plan.AddOperator(std::move(w_scan));
      OperatorId wb = plan.AddOperator(std::move(w_build));
      OperatorId ts = plan.AddOperator(std::move(t_scan));
      OperatorId j1 = plan.AddOperator(std::move(p1));
      OperatorId j2 = plan.AddOperator(std::move(p2));
      OperatorId s = plan.AddOperator(std::move(sink));
      plan.AddEdge(us, ub, false);
      plan.AddEdge(ws, wb, false);
      if (filters) {
        plan.AddEdge(ub, ts, false);
        plan.AddEdge(wb, ts, false);
      }
      plan.AddEdge(ts, j1, true);
      plan.AddEdge(ub, j1, false);
      plan.AddEdge(j1, j2, true);
      plan.AddEdge(wb, j2, false);
      plan.AddEdge(j2, s, true);
      return result;
    });
  };
  auto want = ptest::Bag(run(ptest::Mode::kImmediate, false));
  EXPECT_FALSE(want.empty());
  for (ptest::Mode mode : ptest::kModes) {
    EXPECT_EQ(ptest::Bag(run(mode, true)), want) << ptest::ModeName(mode);
  }
}

TEST(JoinRuntimeFilter, UnpublishedSlotPassesEverything) {
  auto slot = std::make_shared<JoinFilterSlot>();
  JoinRuntimeFilter f(slot, 0);
  DataChunk c({Type::Integer()});
  c.set_size(100);
  std::vector<uint32_t> sel(100);
  EXPECT_EQ(f.Select(c, c.rows(), sel.data()), 100u);
}

}  // namespace
}  // namespace forktail
