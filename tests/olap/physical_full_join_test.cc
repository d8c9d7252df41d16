// FULL OUTER hash join (JoinType::kFullOuter) through the physical operators
// under the real Scheduler (immediate, 1 worker, 2 workers: the probes mark
// the shared build rows concurrently), with and without a residual, against
// a nested loop over Table::Read rows: every matching pair, each probe row
// without a partner padded with NULL payload, each build row without one
// padded with NULL probe columns. NULL keys never match.
#include <gtest/gtest.h>

#include "tests/olap/physical_testing.h"
#include "tests/olap/reference_eval.h"

namespace forktail {
namespace {

// Probe t(a, b, c, d, e) with build u on (a, c), build filtered to u.b > 0;
// payload u.b, u.d. Pair row: 0..4 = t.a..t.e, 5 = u.b, 6 = u.d.
// Output: t.a, t.c, t.b, then u.b, u.d.
constexpr uint32_t kP = 5;

ExprPtr Residual(int which) {
  if (which == 0) return nullptr;
  // t.b <> u.b
  return Compare(CompareOp::kNe, ptest::B(1), ColumnRef(kP, Type::BigInt()));
}

bool BuildFilter(const Row& r) { return !r[1].is_null() && r[1].GetInt() > 0; }
bool NullKey(const Row& r) { return r[0].is_null() || r[2].is_null(); }
bool KeysEqual(const Row& p, const Row& b) {
  return !NullKey(p) && !NullKey(b) && p[0].Compare(b[0]) == 0 && p[2].Compare(b[2]) == 0;
}

std::vector<Row> Reference(int residual, const std::vector<Row>& build_all,
                           const std::vector<Row>& probe) {
  ExprPtr res = Residual(residual);
  std::vector<Row> build;
  for (const Row& b : build_all) {
    if (BuildFilter(b)) build.push_back(b);
  }
  std::vector<bool> build_matched(build.size(), false);
  std::vector<Row> out;
  for (const Row& p : probe) {
    size_t matches = 0;
    for (size_t i = 0; i < build.size(); ++i) {
      const Row& b = build[i];
      if (!KeysEqual(p, b)) continue;
      Row pair = p;
      pair.push_back(b[1]);
      pair.push_back(b[3]);
      if (res != nullptr && !test::IsTrue(test::RefEval(*res, pair))) continue;
      ++matches;
      build_matched[i] = true;
      out.push_back({p[0], p[2], p[1], b[1], b[3]});
    }
    if (matches == 0) {
      out.push_back({p[0], p[2], p[1], Value::Null(Type::BigInt()), Value::Null(Type::Double())});
    }
  }
  for (size_t i = 0; i < build.size(); ++i) {
    if (build_matched[i]) continue;
    out.push_back({Value::Null(Type::Integer()), Value::Null(Type::Text()),
                   Value::Null(Type::BigInt()), build[i][1], build[i][3]});
  }
  return out;
}

std::vector<Row> RunJoin(ptest::Mode mode, const Table& t, const Table& u, int residual) {
  return ptest::RunPlan(mode, [&](QueryPlan& plan, int workers) {
    ScanSpec build_spec;
    build_spec.filter = Compare(CompareOp::kGt, ptest::B(), Constant(Value::BigInt(0)));
    auto build_scan = std::make_unique<TableScanOperator>(u, std::move(build_spec), workers);
    auto build = std::make_unique<HashJoinBuildOperator>(build_scan->output_types(),
                                                         std::vector<uint32_t>{0, 2},
                                                         std::vector<uint32_t>{1, 3}, workers);
    auto probe_scan = std::make_unique<TableScanOperator>(t, ScanSpec{}, workers);
    auto probe = std::make_unique<HashJoinProbeOperator>(
        probe_scan->output_types(), build.get(), JoinType::kFullOuter, std::vector<uint32_t>{0, 2},
        std::vector<uint32_t>{0, 2, 1}, CompactionPolicy::Off(), workers, Residual(residual));
    auto result = std::make_shared<ResultRows>();
    auto sink = std::make_unique<ResultSinkOperator>(probe->output_types(), result);
    OperatorId bs = plan.AddOperator(std::move(build_scan));
    OperatorId b = plan.AddOperator(std::move(build));
    OperatorId ps = plan.AddOperator(std::move(probe_scan));
    OperatorId p = plan.AddOperator(std::move(probe));
    OperatorId s = plan.AddOperator(std::move(sink));
    plan.AddEdge(bs, b, false);
    plan.AddEdge(ps, p, true);
    plan.AddEdge(b, p, false);
    plan.AddEdge(p, s, true);
    return result;
  });
}

void CheckAll(const ptest::TestTable& t, const ptest::TestTable& u, uint64_t seed) {
  for (int residual : {0, 1}) {
    auto want = ptest::Bag(Reference(residual, u.live, t.live));
    for (ptest::Mode mode : ptest::kModes) {
      ASSERT_EQ(ptest::Bag(RunJoin(mode, *t.table, *u.table, residual)), want)
          << "seed " << seed << " residual " << residual << " " << ptest::ModeName(mode);
    }
  }
}

TEST(PhysicalFullJoin, DuplicatesAndNullKeys) {
  auto t = ptest::MakeTable("t", 400, 501, 40, 0, 128);
  auto u = ptest::MakeTable("u", 300, 502, 60, 0, 64);
  CheckAll(t, u, 501);
}

TEST(PhysicalFullJoin, SkewedManyBlocks) {
  auto t = ptest::MakeTable("t", 700, 503, 12, 1.5, 64);
  auto u = ptest::MakeTable("u", 900, 504, 30, 1.5, 128);
  CheckAll(t, u, 503);
}

TEST(PhysicalFullJoin, EmptySides) {
  auto t = ptest::MakeTable("t", 300, 505, 10, 0, 128);
  auto empty = ptest::MakeTable("e", 0, 506, 10, 0, 64);
  CheckAll(t, empty, 505);  // empty build: every probe row padded
  CheckAll(empty, t, 506);  // empty probe: every (filtered) build row padded
  CheckAll(empty, empty, 507);
}

}  // namespace
}  // namespace forktail
