// Join ordering from statistics on the TPC-H star/snowflake (lineitem and
// orders as facts): the fact table probes at the bottom of a left-deep
// spine, builds are the smaller inputs, selective dimensions join first,
// and the greedy fallback keeps hash joins too.
#include <gtest/gtest.h>

#include <functional>

#include "tests/olap/plan/binder/binder_test_catalog.h"

namespace forktail {
namespace {

using bindertest::CheckPlan;

class OptimizerJoinOrderTest : public ::testing::Test {
 protected:
  static Catalog& Cat() {
    static bindertest::TpchCatalog* c = new bindertest::TpchCatalog(2);
    return c->catalog();
  }
  static const LogicalOp* FirstJoin(const LogicalOp& op) {
    if (op.kind == LogicalOpKind::kJoin) return &op;
    for (const LogicalOpPtr& c : op.children) {
      if (const LogicalOp* j = FirstJoin(*c)) return j;
    }
    return nullptr;
  }
  // The leftmost Get under `op` (the probe spine's start).
  static const LogicalOp* LeftmostGet(const LogicalOp& op) {
    const LogicalOp* p = &op;
    while (p->kind != LogicalOpKind::kGet) p = p->children[0].get();
    return p;
  }
  static void ForEachJoin(const LogicalOp& op, const std::function<void(const LogicalOp&)>& f) {
    if (op.kind == LogicalOpKind::kJoin) f(op);
    for (const LogicalOpPtr& c : op.children) ForEachJoin(*c, f);
  }
};

constexpr const char* kQ5 =
    "select n_name, sum(l_extendedprice * (1 - l_discount)) as revenue "
    "from customer, orders, lineitem, supplier, nation, region "
    "where c_custkey = o_custkey and l_orderkey = o_orderkey and l_suppkey = s_suppkey "
    "and c_nationkey = s_nationkey and s_nationkey = n_nationkey "
    "and n_regionkey = r_regionkey and r_name = 'ASIA' "
    "and o_orderdate >= date '1994-01-01' and o_orderdate < date '1995-01-01' "
    "group by n_name order by revenue desc";

TEST_F(OptimizerJoinOrderTest, FactProbesAndSmallerSideBuilds) {
  LogicalOpPtr p = bindertest::OptimizedPlan(kQ5, Cat());
  std::string printed = PlanToString(*p);
  ASSERT_EQ(CheckPlan(*p), "") << printed;
  const LogicalOp* top = FirstJoin(*p);
  ASSERT_NE(top, nullptr);
  EXPECT_EQ(LeftmostGet(*top)->table_name, "lineitem") << printed;
  int joins = 0;
  ForEachJoin(*p, [&](const LogicalOp& j) {
    joins++;
    EXPECT_NE(j.join_kind, LogicalJoinKind::kCross) << printed;
    EXPECT_FALSE(j.left_keys.empty()) << printed;
    EXPECT_LE(j.children[1]->estimated_rows, j.children[0]->estimated_rows) << printed;
  });
  EXPECT_EQ(joins, 5) << printed;
}

TEST_F(OptimizerJoinOrderTest, SelectiveDimensionJoinsBeforeUnfilteredOnes) {
  // Orders filtered to one year is joined to lineitem before customer
  // (whose join does not reduce anything).
  LogicalOpPtr p = bindertest::OptimizedPlan(
      "select c_name, sum(l_quantity) from lineitem, orders, customer where l_orderkey = "
      "o_orderkey and o_custkey = c_custkey and o_orderdate < date '1992-03-01' group by c_name",
      Cat());
  std::string printed = PlanToString(*p);
  // The join right above the lineitem scan builds from orders.
  const LogicalOp* j = FirstJoin(*p);
  ASSERT_NE(j, nullptr) << printed;
  while (j->children[0]->kind == LogicalOpKind::kJoin) j = j->children[0].get();
  EXPECT_EQ(j->children[0]->table_name, "lineitem") << printed;
  EXPECT_NE(PlanToString(*j->children[1]).find("orders"), std::string::npos) << printed;
}

TEST_F(OptimizerJoinOrderTest, GreedyBeyondTheDpLimit) {
  OptimizerOptions o;
  o.dp_max_relations = 2;  // six relations: greedy
  LogicalOpPtr p = bindertest::OptimizedPlan(kQ5, Cat(), o);
  std::string printed = PlanToString(*p);
  ASSERT_EQ(CheckPlan(*p), "") << printed;
  ForEachJoin(*p, [&](const LogicalOp& j) {
    EXPECT_NE(j.join_kind, LogicalJoinKind::kCross) << printed;
    EXPECT_LE(j.children[1]->estimated_rows, j.children[0]->estimated_rows) << printed;
  });
}

TEST_F(OptimizerJoinOrderTest, WithoutReorderingTheWrittenOrderStays) {
  OptimizerOptions o;
  o.reorder_joins = false;
  LogicalOpPtr p = bindertest::OptimizedPlan(kQ5, Cat(), o);
  ASSERT_EQ(CheckPlan(*p), "") << PlanToString(*p);
  // FROM customer, orders, ...: customer stays leftmost.
  EXPECT_EQ(LeftmostGet(*FirstJoin(*p))->table_name, "customer") << PlanToString(*p);
}

TEST_F(OptimizerJoinOrderTest, EstimatesUseStatistics) {
  LogicalOpPtr p = bindertest::OptimizedPlan(
      "select count(*) from lineitem where l_shipdate < date '1992-01-01'", Cat());
  // Below the column's minimum: the range estimate is (almost) nothing.
  const LogicalOp* get = LeftmostGet(*p);
  EXPECT_LT(get->estimated_rows, 100) << PlanToString(*p);
  LogicalOpPtr all = bindertest::OptimizedPlan("select count(*) from lineitem", Cat());
  EXPECT_EQ(LeftmostGet(*all)->estimated_rows, 12000) << PlanToString(*all);
}

// A join on all columns of a composite primary key is a foreign key's join:
// each row of the other side matches at most one key row. Estimated per
// column (ndv 100 each, the second damped) it came out 10x too large here,
// and at TPC-H SF10 (lineitem JOIN partsupp on both keys) 80x too small.
TEST_F(OptimizerJoinOrderTest, CompositeKeyJoinEstimatedAsForeignKey) {
  Catalog catalog;
  for (const char* ddl : {"create table pk (x integer, y integer, v integer, primary key (x, y))",
                          "create table fk (x integer, y integer, w integer)"}) {
    BoundStatement b = bindertest::BindSql(ddl, catalog);
    catalog.CreateTable(b.schema);
  }
  Table& pk = *catalog.FindTable("pk");
  for (int32_t i = 0; i < 10000; ++i) {  // keys (i % 100, i / 100): all 10,000 pairs
    pk.Insert({Value::Integer(i % 100), Value::Integer(i / 100), Value::Integer(i)});
  }
  Table& fk = *catalog.FindTable("fk");
  for (int32_t i = 0; i < 50000; ++i) {  // every row refers to one pk row
    fk.Insert({Value::Integer(i % 100), Value::Integer((i / 7) % 100), Value::Integer(i)});
  }
  pk.RefreshStatistics();
  fk.RefreshStatistics();
  auto join_rows = [&](const std::string& sql) {
    LogicalOpPtr p = bindertest::OptimizedPlan(sql, catalog);
    const LogicalOp* j = FirstJoin(*p);
    EXPECT_NE(j, nullptr) << PlanToString(*p);
    return j == nullptr ? 0.0 : j->estimated_rows;
  };
  // True: 50,000 rows. Key order in the condition does not matter.
  double rows = join_rows("select w, v from fk, pk where fk.x = pk.x and fk.y = pk.y");
  EXPECT_GT(rows, 25000);
  EXPECT_LT(rows, 100000);
  EXPECT_EQ(rows, join_rows("select w, v from fk, pk where pk.y = fk.y and fk.x = pk.x"));
  // Half of pk kept: about half of fk's rows find their key row.
  rows = join_rows("select w, v from fk, pk where fk.x = pk.x and fk.y = pk.y and pk.v < 5000");
  EXPECT_GT(rows, 12500);
  EXPECT_LT(rows, 50000);
  // One column of the key only: not unique, estimated per column as before.
  rows = join_rows("select w, v from fk, pk where fk.x = pk.x");
  EXPECT_GT(rows, 1000000);
}

// A condition over three relations joins none of their pairs: the pairs
// below it are products, and it applies where its third relation joins.
// (The DP once treated it as connecting the graph, found no plan for the
// pairs, and recursed without end.)
TEST_F(OptimizerJoinOrderTest, AConditionOverThreeRelationsJoinsAboveAProduct) {
  struct Case {
    const char* sql;
    int products;
  };
  for (const Case& c :
       {Case{"select count(*) from nation a, nation b, nation c "
             "where a.n_nationkey + b.n_nationkey > c.n_nationkey",
             1},
        // Key joins come before products for each set: the product of a
        // and c joins the product of b and r on a's key.
        Case{"select count(*) from nation a, nation b, nation c, region r "
             "where a.n_regionkey = r.r_regionkey and a.n_nationkey + b.n_nationkey > "
             "c.n_nationkey",
             2}}) {
    LogicalOpPtr p = bindertest::OptimizedPlan(c.sql, Cat());
    std::string printed = PlanToString(*p);
    ASSERT_EQ(CheckPlan(*p), "") << printed;
    int products = 0, conditions = 0;
    ForEachJoin(*p, [&](const LogicalOp& j) {
      if (j.join_kind == LogicalJoinKind::kCross) products++;
      conditions += static_cast<int>(j.conditions.size());
    });
    EXPECT_EQ(products, c.products) << printed;
    EXPECT_EQ(conditions, 1) << printed;  // the three-relation condition, applied once
  }
}

}  // namespace
}  // namespace forktail
