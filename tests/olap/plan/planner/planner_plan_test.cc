// The planner over hand-built logical plans (as the binder and optimizer
// produce them): results against naive references over the tables' rows,
// every scheduler mode, and the physical plan's shape (EXPLAIN text).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include "tests/olap/plan/planner/planner_testing.h"

namespace forktail {
namespace {

using plantest::LogicalBuilder;
using ptest::Bag;

class PlannerPlan : public ::testing::Test {
 protected:
  void SetUp() override {
    t_ = plantest::AddTable(catalog_, "t", 2500, 71, 40);
    u_ = plantest::AddTable(catalog_, "u", 300, 72, 40, 64);
    e_ = plantest::AddTable(catalog_, "e", 0, 73, 40);
  }
  std::string ExplainOf(const LogicalOp& root, bool analyze = false) {
    SchedulerOptions options;
    options.immediate = true;
    Scheduler scheduler(options);
    return Explain(root, catalog_, analyze, scheduler);
  }

  Catalog catalog_;
  plantest::CatalogTable t_, u_, e_;
  LogicalBuilder lb_;
};

// SELECT a, b * 2 FROM t WHERE b > 10: one scan with filter and projection.
TEST_F(PlannerPlan, ScanFilterProjectFuseIntoTheScan) {
  auto get = lb_.Get(*t_.table, {0, 1});
  ExprPtr cond = Compare(CompareOp::kGt, LogicalBuilder::Ref(*get, 1), Constant(Value::BigInt(10)));
  std::vector<ExprPtr> proj;
  proj.push_back(LogicalBuilder::Ref(*get, 0));
  proj.push_back(Arith(ArithOp::kMul, LogicalBuilder::Ref(*get, 1), Constant(Value::BigInt(2))));
  auto root = lb_.Project(LogicalBuilder::Filter(std::move(get), std::move(cond)), std::move(proj));
  std::vector<Row> want;
  for (const Row& r : t_.live) {
    if (!r[1].is_null() && r[1].GetInt() > 10)
      want.push_back({r[0], Value::BigInt(r[1].GetInt() * 2)});
  }
  EXPECT_EQ(Bag(plantest::RunAllModes(*root, catalog_)), Bag(want));
  EXPECT_EQ(ExplainOf(*root), "TableScan t filter=[b#2 > 10]");
}

struct JoinCase {
  LogicalJoinKind kind;
  bool keyed;
  bool residual;
};

// t JOIN u ON t.a = u.a [AND t.b < u.b], output t.a, t.b, u.b (u's only for
// inner/left/single).
std::vector<Row> ReferenceJoin(const JoinCase& c, const std::vector<Row>& probe,
                               const std::vector<Row>& build) {
  std::vector<Row> out;
  bool build_null_key = false;
  for (const Row& b : build) build_null_key |= b[0].is_null();
  for (const Row& p : probe) {
    size_t matches = 0;
    const Row* match = nullptr;
    for (const Row& b : build) {
      if (c.keyed && (p[0].is_null() || b[0].is_null() || p[0].GetInt() != b[0].GetInt())) continue;
      if (c.residual && (p[1].is_null() || b[1].is_null() || p[1].GetInt() >= b[1].GetInt()))
        continue;
      ++matches;
      match = &b;
      if (c.kind == LogicalJoinKind::kInner || c.kind == LogicalJoinKind::kLeft ||
          c.kind == LogicalJoinKind::kCross) {
        out.push_back({p[0], p[1], b[1]});
      }
    }
    switch (c.kind) {
      case LogicalJoinKind::kLeft:
        if (matches == 0) out.push_back({p[0], p[1], Value::Null(Type::BigInt())});
        break;
      case LogicalJoinKind::kSingle:
        out.push_back({p[0], p[1], matches == 1 ? (*match)[1] : Value::Null(Type::BigInt())});
        break;
      case LogicalJoinKind::kSemi:
        if (matches > 0) out.push_back({p[0], p[1]});
        break;
      case LogicalJoinKind::kAnti:
        if (matches == 0) out.push_back({p[0], p[1]});
        break;
      case LogicalJoinKind::kNullAwareAnti:
        if (build.empty() || (!p[0].is_null() && !build_null_key && matches == 0)) {
          out.push_back({p[0], p[1]});
        }
        break;
      default:
        break;
    }
  }
  return out;
}

LogicalOpPtr JoinPlan(LogicalBuilder& lb, const JoinCase& c, const Table& probe, const Table& build,
                      LogicalOpPtr build_op = nullptr) {
  auto l = lb.Get(probe, {0, 1});
  auto r = build_op ? std::move(build_op) : lb.Get(build, {0, 1});
  std::vector<uint32_t> lk, rk;
  if (c.keyed) {
    lk = {l->columns[0].id};
    rk = {r->columns[0].id};
  }
  ExprPtr residual;
  if (c.residual) {
    residual = Compare(CompareOp::kLt, LogicalBuilder::Ref(*l, 1), LogicalBuilder::Ref(*r, 1));
  }
  uint32_t rb = r->columns[1].id;
  Type rb_type = r->columns[1].type;
  auto join = LogicalBuilder::Join(c.kind, std::move(l), std::move(r), lk, rk, std::move(residual));
  std::vector<ExprPtr> proj;
  proj.push_back(LogicalBuilder::Ref(*join, 0));
  proj.push_back(LogicalBuilder::Ref(*join, 1));
  bool semi = c.kind == LogicalJoinKind::kSemi || c.kind == LogicalJoinKind::kAnti ||
              c.kind == LogicalJoinKind::kNullAwareAnti;
  if (!semi) proj.push_back(ColumnRef(rb, rb_type));
  return lb.Project(std::move(join), std::move(proj));
}

TEST_F(PlannerPlan, JoinsOfEveryKindMatchTheReference) {
  std::vector<JoinCase> cases;
  for (auto kind : {LogicalJoinKind::kInner, LogicalJoinKind::kLeft, LogicalJoinKind::kSemi,
                    LogicalJoinKind::kAnti}) {
    for (bool keyed : {true, false}) {
      for (bool residual : {false, true}) cases.push_back({kind, keyed, residual});
    }
  }
  cases.push_back({LogicalJoinKind::kCross, false, false});
  cases.push_back({LogicalJoinKind::kNullAwareAnti, true, false});
  // Small inputs: the unkeyed cases are cross products.
  plantest::CatalogTable ts = plantest::AddTable(catalog_, "ts", 250, 74, 25, 64);
  plantest::CatalogTable us = plantest::AddTable(catalog_, "us", 45, 75, 25, 16);
  for (const JoinCase& c : cases) {
    SCOPED_TRACE(std::string(LogicalJoinKindName(c.kind)) + (c.keyed ? " keyed" : "") +
                 (c.residual ? " residual" : "") + " seeds 74/75");
    auto root = JoinPlan(lb_, c, *ts.table, *us.table);
    EXPECT_EQ(Bag(plantest::RunAllModes(*root, catalog_)), Bag(ReferenceJoin(c, ts.live, us.live)));
    auto empty_build = JoinPlan(lb_, c, *ts.table, *e_.table);
    EXPECT_EQ(Bag(plantest::RunAllModes(*empty_build, catalog_)),
              Bag(ReferenceJoin(c, ts.live, {})));
  }
}

// Semi, anti and left joins whose other side is estimated much bigger than
// the preserved one build on the preserved side and mark it (right semi /
// anti / outer, join_match_marks.h): same rows as the reference, with and
// without a residual, empty sides included.
TEST_F(PlannerPlan, SemiAndLeftJoinsBuildOnTheSmallPreservedSide) {
  plantest::CatalogTable ts = plantest::AddTable(catalog_, "ts", 250, 74, 25, 64);
  plantest::CatalogTable us = plantest::AddTable(catalog_, "us", 45, 75, 25, 16);
  for (auto kind : {LogicalJoinKind::kSemi, LogicalJoinKind::kAnti, LogicalJoinKind::kLeft}) {
    for (bool residual : {false, true}) {
      JoinCase c{kind, true, residual};
      SCOPED_TRACE(std::string(LogicalJoinKindName(kind)) + (residual ? " residual" : ""));
      auto check = [&](const plantest::CatalogTable& probe, const plantest::CatalogTable& build) {
        auto root = JoinPlan(lb_, c, *probe.table, *build.table);
        LogicalOp& join = *root->children[0];
        join.children[0]->estimated_rows = 10;
        join.children[1]->estimated_rows = 1000;
        std::string plan = ExplainOf(*root);
        EXPECT_NE(plan.find(kind == LogicalJoinKind::kSemi   ? "HashJoinProbe right semi"
                            : kind == LogicalJoinKind::kAnti ? "HashJoinProbe right anti"
                                                             : "HashJoinProbe right outer"),
                  std::string::npos)
            << plan;
        EXPECT_EQ(Bag(plantest::RunAllModes(*root, catalog_)),
                  Bag(ReferenceJoin(c, probe.live, build.live)));
      };
      check(us, ts);
      check(ts, us);
      check(us, e_);
      check(e_, ts);
    }
  }
}

// Scalar subquery: (SELECT max(b) FROM u WHERE u.a = t.a) decorrelated into a
// single join with an aggregate grouped on u.a (unique build keys), with and
// without the build_unique hint; and an uncorrelated one (no keys).
TEST_F(PlannerPlan, SingleJoins) {
  for (bool unique_hint : {false, true}) {
    auto g = lb_.Get(*u_.table, {0, 1});
    uint32_t ua = g->columns[0].id, ub = g->columns[1].id;
    auto agg = lb_.Aggregate(std::move(g), {ua}, {{AggKind::kMax, ub}});
    JoinCase c{LogicalJoinKind::kSingle, true, false};
    auto root = JoinPlan(lb_, c, *t_.table, *u_.table, std::move(agg));
    root->children[0]->build_unique = unique_hint;
    std::map<int64_t, Value> max_b;
    for (const Row& r : u_.live) {
      if (r[0].is_null()) continue;
      auto [it, fresh] = max_b.emplace(r[0].GetInt(), r[1]);
      if (!fresh && !r[1].is_null() &&
          (it->second.is_null() || r[1].GetInt() > it->second.GetInt())) {
        it->second = r[1];
      }
    }
    std::vector<Row> want;
    for (const Row& r : t_.live) {
      auto it = r[0].is_null() ? max_b.end() : max_b.find(r[0].GetInt());
      want.push_back({r[0], r[1], it == max_b.end() ? Value::Null(Type::BigInt()) : it->second});
    }
    EXPECT_EQ(Bag(plantest::RunAllModes(*root, catalog_)), Bag(want));
    EXPECT_NE(
        ExplainOf(*root).find(unique_hint ? "HashJoinProbe left (single" : "NestedLoopJoin single"),
        std::string::npos)
        << ExplainOf(*root);
  }
  // Correlated subquery returning several rows for a key: 21000.
  JoinCase c{LogicalJoinKind::kSingle, true, false};
  auto root = JoinPlan(lb_, c, *t_.table, *u_.table);
  try {
    plantest::RunAllModes(*root, catalog_);
    ADD_FAILURE() << "no error";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kCardinalityViolation);
  }
}

// SELECT c, count(*), sum(b), avg(d) FROM t GROUP BY c ORDER BY c LIMIT 3 OFFSET 2.
TEST_F(PlannerPlan, AggregateSortLimitOffset) {
  auto g = lb_.Get(*t_.table, {1, 2, 3});
  uint32_t b = g->columns[0].id, c = g->columns[1].id, d = g->columns[2].id;
  auto agg = lb_.Aggregate(std::move(g), {c},
                           {{AggKind::kCountStar, 0}, {AggKind::kSum, b}, {AggKind::kAvg, d}});
  auto root =
      LogicalBuilder::Limit(LogicalBuilder::Sort(std::move(agg), {{c, false, false}}), 3, 2);
  std::map<std::string, std::vector<const Row*>> groups;  // NULL sorts last: key "~"
  for (const Row& r : t_.live)
    groups[r[2].is_null() ? "~" : std::string(r[2].GetString())].push_back(&r);
  std::vector<std::string> keys;
  for (auto& [k, rows] : groups) keys.push_back(k);
  std::vector<Row> got;
  for (ptest::Mode mode : ptest::kModes) {
    QueryResult result = plantest::ExecuteInMode(mode, *root, catalog_);
    ASSERT_EQ(result.rows.size(), 3u);
    ASSERT_EQ(result.columns.size(), 4u);
    for (size_t i = 0; i < 3; ++i) {
      const std::string& key = keys[i + 2];
      const Row& r = result.rows[i];
      EXPECT_EQ(r[0].is_null() ? "~" : std::string(r[0].GetString()), key);
      EXPECT_EQ(r[1].GetInt(), static_cast<int64_t>(groups[key].size()));
      int64_t sum = 0;
      for (const Row* x : groups[key]) sum += x->at(1).is_null() ? 0 : x->at(1).GetInt();
      EXPECT_EQ(r[2].GetInt(), sum);
    }
  }
  std::string plan = ExplainOf(*root);
  EXPECT_EQ(plan.substr(0, plan.find('\n')), "Limit limit=3 offset=2");
  EXPECT_NE(plan.find("Sort (top-5) keys=[c#2 NULLS LAST]"), std::string::npos) << plan;
}

TEST_F(PlannerPlan, DistinctUnionIntersectExcept) {
  auto a_of = [&](const Table& table) { return lb_.Get(table, {0}); };
  std::set<std::string> ta, ua;
  for (const Row& r : t_.live) ta.insert(ptest::ShowRow({r[0]}));
  for (const Row& r : u_.live) ua.insert(ptest::ShowRow({r[0]}));
  auto set_of = [](const std::vector<Row>& rows) {
    auto bag = Bag(rows);
    EXPECT_EQ(std::set<std::string>(bag.begin(), bag.end()).size(), bag.size()) << "duplicates";
    return std::set<std::string>(bag.begin(), bag.end());
  };
  auto distinct = LogicalBuilder::Distinct(a_of(*t_.table));
  EXPECT_EQ(set_of(plantest::RunAllModes(*distinct, catalog_)), ta);

  std::vector<LogicalOpPtr> in;
  in.push_back(a_of(*t_.table));
  in.push_back(a_of(*u_.table));
  auto union_all = lb_.SetOp(LogicalOpKind::kUnion, false, std::move(in));
  EXPECT_EQ(plantest::RunAllModes(*union_all, catalog_).size(), t_.live.size() + u_.live.size());

  std::set<std::string> both, left_only, any = ta;
  any.insert(ua.begin(), ua.end());
  for (const std::string& s : ta) (ua.count(s) ? both : left_only).insert(s);
  for (auto kind : {LogicalOpKind::kUnion, LogicalOpKind::kIntersect, LogicalOpKind::kExcept}) {
    std::vector<LogicalOpPtr> inputs;
    inputs.push_back(a_of(*t_.table));
    inputs.push_back(a_of(*u_.table));
    auto root = lb_.SetOp(kind, true, std::move(inputs));
    EXPECT_EQ(set_of(plantest::RunAllModes(*root, catalog_)), kind == LogicalOpKind::kUnion ? any
                                                              : kind == LogicalOpKind::kIntersect
                                                                  ? both
                                                                  : left_only)
        << LogicalOpKindName(kind);
  }
}

// UNION ALL of an INTEGER and a BIGINT input: the planner casts to the result type.
TEST_F(PlannerPlan, UnionCastsInputsToTheResultTypes) {
  std::vector<LogicalOpPtr> inputs;
  inputs.push_back(lb_.Get(*u_.table, {0}));  // INTEGER
  inputs.push_back(lb_.Get(*u_.table, {1}));  // BIGINT
  auto root = lb_.SetOp(LogicalOpKind::kUnion, false, std::move(inputs), {Type::BigInt()});
  auto rows = plantest::RunAllModes(*root, catalog_);
  ASSERT_EQ(rows.size(), 2 * u_.live.size());
  for (const Row& r : rows) EXPECT_EQ(r[0].type(), Type::BigInt());
}

// SELECT 1 + 2 AS x, 'k' (no FROM) and VALUES (1, 'a'), (NULL, 'b').
TEST_F(PlannerPlan, ValuesAndSelectWithoutFrom) {
  std::vector<std::vector<ExprPtr>> one(1);
  auto values = lb_.Values({}, std::move(one));
  std::vector<ExprPtr> proj;
  proj.push_back(Arith(ArithOp::kAdd, Constant(Value::Integer(1)), Constant(Value::Integer(2))));
  proj.push_back(Constant(Value::Text("k")));
  auto root = lb_.Project(std::move(values), std::move(proj));
  auto rows = plantest::RunAllModes(*root, catalog_);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(ptest::ShowRow(rows[0]), "3|'k'|");

  std::vector<std::vector<ExprPtr>> list(2);
  list[0].push_back(Constant(Value::Integer(1)));
  list[0].push_back(Constant(Value::Text("a")));
  list[1].push_back(Constant(Value::Null(Type::Integer())));
  list[1].push_back(Cast(Constant(Value::Integer(7)), Type::Text()));
  auto v = lb_.Values({Type::Integer(), Type::Text()}, std::move(list));
  rows = plantest::RunAllModes(*v, catalog_);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(ptest::ShowRow(rows[0]) + ptest::ShowRow(rows[1]), "1|'a'|NULL|'7'|");
}

TEST_F(PlannerPlan, ExplainShowsTheTreeAndAnalyzeTheActuals) {
  JoinCase c{LogicalJoinKind::kInner, true, true};
  auto root = JoinPlan(lb_, c, *t_.table, *u_.table);
  root->estimated_rows = 123;
  EXPECT_EQ(ExplainOf(*root),
            "Select [a#1, b#2, b#4]  (rows=123)\n"
            "  HashJoinProbe inner [a#1 = a#3] residual=[b#2 < b#4]\n"
            "    TableScan t\n"
            "    HashJoinBuild keys=[a#3]\n"
            "      TableScan u");
  std::string analyzed = ExplainOf(*root, true);
  size_t want = ReferenceJoin(c, t_.live, u_.live).size();
  EXPECT_NE(analyzed.find("Select [a#1, b#2, b#4]  (rows=123) (actual rows=" +
                          std::to_string(want) + " time="),
            std::string::npos)
      << analyzed;
  EXPECT_NE(analyzed.find("TableScan t (actual rows=" + std::to_string(t_.live.size())),
            std::string::npos)
      << analyzed;
  EXPECT_NE(analyzed.find("Execution Time: "), std::string::npos);
}

TEST_F(PlannerPlan, CancelledBeforeStartIs57014) {
  auto root = lb_.Get(*t_.table, {0});
  Scheduler scheduler(SchedulerOptions{.num_workers = 1, .pin_workers = false});
  std::atomic<bool> cancel{true};
  ExecuteOptions options;
  options.cancel = &cancel;
  try {
    ExecuteQuery(scheduler, *root, catalog_, options);
    ADD_FAILURE() << "no error";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kQueryCanceled);
  }
}

// A running query stops when the flag is set: COUNT(*) over a cross product
// far too large to finish (the nested-loop join polls cancellation).
TEST_F(PlannerPlan, CancelWhileRunningIs57014) {
  plantest::CatalogTable big = plantest::AddTable(catalog_, "big", 20000, 76, 100, 2048);
  auto join = LogicalBuilder::Join(LogicalJoinKind::kCross, lb_.Get(*big.table, {0}),
                                   lb_.Get(*big.table, {1}), {}, {});
  auto root = lb_.Aggregate(std::move(join), {}, {{AggKind::kCountStar, 0}});
  Scheduler scheduler(SchedulerOptions{.num_workers = 2, .pin_workers = false});
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cancel = true;
  });
  ExecuteOptions options;
  options.cancel = &cancel;
  // The join's output is charged as it streams out: a budget it cannot reach
  // in 100 ms, so that the cancel, not 53200, ends it.
  options.memory_limit = size_t{1} << 40;
  try {
    ExecuteQuery(scheduler, *root, catalog_, options);
    ADD_FAILURE() << "no error";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kQueryCanceled);
  }
  canceller.join();
}

// Errors raised inside work orders reach the caller with their SQLSTATE.
TEST_F(PlannerPlan, RuntimeErrorsSurface) {
  auto get = lb_.Get(*t_.table, {1});
  std::vector<ExprPtr> proj;
  proj.push_back(
      Arith(ArithOp::kDiv, Constant(Value::BigInt(1)),
            Arith(ArithOp::kSub, LogicalBuilder::Ref(*get, 0), LogicalBuilder::Ref(*get, 0))));
  auto root = lb_.Project(std::move(get), std::move(proj));
  Scheduler scheduler(SchedulerOptions{.num_workers = 2, .pin_workers = false});
  try {
    ExecuteQuery(scheduler, *root, catalog_);
    ADD_FAILURE() << "no error";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kDivisionByZero);
  }
}

}  // namespace
}  // namespace forktail
