// Hash join with and without a residual (non-equi) condition through the
// physical operators under the real Scheduler (immediate, 1 worker, 2
// workers: FULL OUTER probes mark the shared build rows concurrently),
// against a nested loop over Table::Read rows that evaluates the same bound
// expression row by row. Every join type; FULL OUTER also pads each build
// row without a partner with NULL probe columns; the right semi / anti joins
// output the build rows with / without a partner (payload only). NULL keys
// never match.
#include <gtest/gtest.h>

#include "tests/olap/execution/physical_testing.h"
#include "tests/olap/execution/reference_eval.h"

namespace forktail {
namespace {

// Probe t(a, b, c, d, e) with build u on (a, c), build filtered to u.b > 0;
// payload u.b, u.d. Pair row: 0..4 = t.a..t.e, 5 = u.b, 6 = u.d.
// Output: t.a, t.c, t.b, then u.b, u.d (inner, left, full); u.b, u.d only
// (right semi, right anti).
constexpr uint32_t kP = 5;

std::vector<ExprPtr> Residuals() {
  std::vector<ExprPtr> r;
  // t.b <> u.b (TPC-H Q21's l_suppkey <> l_suppkey)
  r.push_back(Compare(CompareOp::kNe, ptest::B(1), ColumnRef(kP, Type::BigInt())));
  // t.d < u.d OR t.e IS NULL (a double comparison with NULLs on both sides)
  r.push_back(Or(Compare(CompareOp::kLt, ptest::D(3), ColumnRef(kP + 1, Type::Double())),
                 IsNull(ColumnRef(4, Type::Decimal(12, 2)))));
  r.push_back(nullptr);  // keys only
  return r;
}

bool BuildFilter(const Row& r) { return !r[1].is_null() && r[1].GetInt() > 0; }
bool NullKey(const Row& r) { return r[0].is_null() || r[2].is_null(); }
bool KeysEqual(const Row& p, const Row& b) {
  return !NullKey(p) && !NullKey(b) && p[0].Compare(b[0]) == 0 && p[2].Compare(b[2]) == 0;
}

std::vector<Row> Reference(JoinType type, const Expression* residual,
                           const std::vector<Row>& build_all, const std::vector<Row>& probe) {
  std::vector<Row> build;
  for (const Row& b : build_all) {
    if (BuildFilter(b)) build.push_back(b);
  }
  const bool pairs = type == JoinType::kInner || type == JoinType::kLeftOuter ||
                     type == JoinType::kFullOuter || type == JoinType::kRightOuter;
  const bool pad_probe = type == JoinType::kLeftOuter || type == JoinType::kFullOuter;
  std::vector<bool> build_matched(build.size(), false);
  std::vector<Row> out;
  for (const Row& p : probe) {
    Row head = {p[0], p[2], p[1]};
    size_t matches = 0;
    for (size_t i = 0; i < build.size(); ++i) {
      const Row& b = build[i];
      if (!KeysEqual(p, b)) continue;
      Row pair = p;
      pair.push_back(b[1]);
      pair.push_back(b[3]);
      if (residual != nullptr && !test::IsTrue(test::RefEval(*residual, pair))) continue;
      ++matches;
      build_matched[i] = true;
      if (pairs) out.push_back({p[0], p[2], p[1], b[1], b[3]});
    }
    if (pad_probe && matches == 0) {
      out.push_back({p[0], p[2], p[1], Value::Null(Type::BigInt()), Value::Null(Type::Double())});
    }
    if ((type == JoinType::kSemi && matches > 0) || (type == JoinType::kAnti && matches == 0)) {
      out.push_back(head);
    }
  }
  if (type == JoinType::kRightSemi || type == JoinType::kRightAnti) {
    for (size_t i = 0; i < build.size(); ++i) {
      if (build_matched[i] == (type == JoinType::kRightSemi))
        out.push_back({build[i][1], build[i][3]});
    }
  }
  if (type == JoinType::kFullOuter || type == JoinType::kRightOuter) {
    for (size_t i = 0; i < build.size(); ++i) {
      if (build_matched[i]) continue;
      out.push_back({Value::Null(Type::Integer()), Value::Null(Type::Text()),
                     Value::Null(Type::BigInt()), build[i][1], build[i][3]});
    }
  }
  return out;
}

ExprPtr CopyResidual(size_t i) { return std::move(Residuals()[i]); }

std::vector<Row> RunJoin(ptest::Mode mode, const Table& t, const Table& u, JoinType type,
                         size_t residual, CompactionPolicy policy) {
  return ptest::RunPlan(mode, [&](QueryPlan& plan, int workers) {
    ScanSpec build_spec;
    build_spec.filter = Compare(CompareOp::kGt, ptest::B(), Constant(Value::BigInt(0)));
    auto build_scan = std::make_unique<TableScanOperator>(u, std::move(build_spec), workers);
    auto build = std::make_unique<HashJoinBuildOperator>(build_scan->output_types(),
                                                         std::vector<uint32_t>{0, 2},
                                                         std::vector<uint32_t>{1, 3}, workers);
    auto probe_scan = std::make_unique<TableScanOperator>(t, ScanSpec{}, workers);
    auto probe = std::make_unique<HashJoinProbeOperator>(
        probe_scan->output_types(), build.get(), type, std::vector<uint32_t>{0, 2},
        JoinIsRightSemiAnti(type) ? std::vector<uint32_t>{} : std::vector<uint32_t>{0, 2, 1},
        policy, workers, CopyResidual(residual));
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
  std::vector<ExprPtr> residuals = Residuals();
  for (size_t e = 0; e < residuals.size(); ++e) {
    for (JoinType type : {JoinType::kInner, JoinType::kLeftOuter, JoinType::kSemi, JoinType::kAnti,
                          JoinType::kFullOuter, JoinType::kRightSemi, JoinType::kRightAnti,
                          JoinType::kRightOuter}) {
      auto want = ptest::Bag(Reference(type, residuals[e].get(), u.live, t.live));
      for (ptest::Mode mode : ptest::kModes) {
        CompactionPolicy policy = mode == ptest::Mode::kOneWorker ? CompactionPolicy::Fixed(1024)
                                                                  : CompactionPolicy::Off();
        ASSERT_EQ(ptest::Bag(RunJoin(mode, *t.table, *u.table, type, e, policy)), want)
            << "seed " << seed << " residual " << e << " join type " << static_cast<int>(type)
            << " " << ptest::ModeName(mode);
      }
    }
  }
}

TEST(PhysicalJoinResidual, EveryKind) {
  auto t = ptest::MakeTable("t", 800, 401, 30, 0, 256);
  auto u = ptest::MakeTable("u", 300, 402, 30, 0, 128);
  CheckAll(t, u, 401);
}

TEST(PhysicalJoinResidual, SkewedDuplicates) {
  auto t = ptest::MakeTable("t", 400, 403, 12, 1.5, 128);
  auto u = ptest::MakeTable("u", 400, 404, 12, 1.5, 4096);
  CheckAll(t, u, 403);
}

TEST(PhysicalJoinResidual, SkewedManyBlocks) {
  auto t = ptest::MakeTable("t", 700, 503, 12, 1.5, 64);
  auto u = ptest::MakeTable("u", 900, 504, 30, 1.5, 128);
  CheckAll(t, u, 503);
}

TEST(PhysicalJoinResidual, EmptySides) {
  auto t = ptest::MakeTable("t", 300, 405, 10, 0, 128);
  auto empty = ptest::MakeTable("e", 0, 406, 10, 0, 64);
  CheckAll(t, empty, 405);  // empty build: every probe row padded (left, full)
  CheckAll(empty, t, 406);  // empty probe: every (filtered) build row padded (full, right anti)
  CheckAll(empty, empty, 407);
}

TEST(PhysicalJoinResidual, BadResidualRejectedAtConstruction) {
  auto t = ptest::MakeTable("t", 10, 407, 10, 0, 64);
  TableScanOperator scan(*t.table, ScanSpec{}, 1);
  HashJoinBuildOperator build(scan.output_types(), {0}, {1}, 1);
  auto make = [&](JoinType type, ExprPtr residual) {
    HashJoinProbeOperator probe(scan.output_types(), &build, type, {0}, {0},
                                CompactionPolicy::Off(), 1, std::move(residual));
  };
  // Column 6 is past t's 5 columns + 1 payload column.
  EXPECT_THROW(
      make(JoinType::kInner, Compare(CompareOp::kLt, ptest::B(1), ColumnRef(6, Type::BigInt()))),
      DbError);
  try {
    make(JoinType::kNullAwareAnti,
         Compare(CompareOp::kLt, ptest::B(1), ColumnRef(kP, Type::BigInt())));
    FAIL() << "expected 0A000";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kFeatureNotSupported);
  }
  // A right semi join outputs the build payload only: no probe column.
  EXPECT_THROW(make(JoinType::kRightSemi, nullptr), DbError);
}

}  // namespace
}  // namespace forktail
