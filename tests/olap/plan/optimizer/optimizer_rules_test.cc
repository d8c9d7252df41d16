// Optimizer rules on printed plan shapes: push-down into Gets and through
// joins, disjunction push-down, cross -> hash joins, constant folding,
// pruning, inner -> semi, exact and LIP filters.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/olap/plan/binder/binder_test_catalog.h"

namespace forktail {
namespace {

using bindertest::CheckPlan;
using bindertest::Optimized;
using ::testing::HasSubstr;
using ::testing::Not;

class OptimizerRulesTest : public ::testing::Test {
 protected:
  static Catalog& Cat() {
    static bindertest::TpchCatalog* c = new bindertest::TpchCatalog(1);
    return c->catalog();
  }
  std::string Plan(const std::string& sql, const OptimizerOptions& o = {}) {
    LogicalOpPtr p = bindertest::OptimizedPlan(sql, Cat(), o);
    EXPECT_EQ(CheckPlan(*p), "") << PlanToString(*p);
    return PlanToString(*p, false);
  }
};

TEST_F(OptimizerRulesTest, FilterGoesIntoGetAndCrossJoinBecomesHashJoin) {
  std::string p = Plan(
      "select n_name, r_comment from nation, region where n_regionkey = r_regionkey and "
      "r_name = 'ASIA'");
  EXPECT_THAT(p, HasSubstr("Get region [r_regionkey#"));
  EXPECT_THAT(p, HasSubstr("filter=[r_name#"));
  EXPECT_THAT(p, HasSubstr("Join inner"));
  EXPECT_THAT(p, Not(HasSubstr("cross")));
  EXPECT_THAT(p, Not(HasSubstr("Filter")));
}

TEST_F(OptimizerRulesTest, BoundPlanKeepsCommaJoinsAsWritten) {
  std::string p = bindertest::BoundPlan(
      "select n_name from nation, region where n_regionkey = r_regionkey", Cat());
  EXPECT_THAT(p, HasSubstr("Join cross"));
  EXPECT_THAT(p, HasSubstr("Filter [n_regionkey#"));
}

TEST_F(OptimizerRulesTest, DisjunctionIsPushedPartiallyToEachSide) {
  // TPC-H Q7's nation pair.
  std::string p = Plan(
      "select n1.n_name, n2.n_name from nation n1, nation n2, region "
      "where n1.n_regionkey = r_regionkey and n2.n_regionkey = r_regionkey and "
      "((n1.n_name = 'FRANCE' and n2.n_name = 'GERMANY') or "
      "(n1.n_name = 'GERMANY' and n2.n_name = 'FRANCE'))");
  // Each nation scan gets (n_name = 'FRANCE' OR n_name = 'GERMANY').
  EXPECT_THAT(p, HasSubstr("Get nation AS n1 ["));
  EXPECT_THAT(p, Not(HasSubstr("[] residual")));  // hash joins only
  size_t first = p.find("filter=[(n_name#");
  ASSERT_NE(first, std::string::npos) << p;
  EXPECT_NE(p.find("filter=[(n_name#", first + 1), std::string::npos) << p;
  // The full condition stays as a join residual.
  EXPECT_THAT(p, HasSubstr("residual=[("));
}

TEST_F(OptimizerRulesTest, CommonConjunctOfDisjunctsBecomesJoinKey) {
  // TPC-H Q19's shape: the join condition repeated in every branch.
  std::string p = Plan(
      "select sum(l_extendedprice) from lineitem, part where "
      "(p_partkey = l_partkey and p_brand = 'Brand#12' and l_quantity >= 1) or "
      "(p_partkey = l_partkey and p_brand = 'Brand#23' and l_quantity >= 10)");
  // Part's columns are only read by the residual and p_partkey is its key:
  // a semi join.
  EXPECT_THAT(p, HasSubstr("Join semi #1 [l_partkey#2 = p_partkey#"));
  EXPECT_THAT(p, Not(HasSubstr("cross")));
  // Both sides get their part of the disjunction.
  EXPECT_THAT(p, HasSubstr("Get part [p_partkey#"));
  EXPECT_THAT(p, HasSubstr("filter=[(p_brand#"));
  EXPECT_THAT(p, HasSubstr("filter=[(l_quantity#"));
}

TEST_F(OptimizerRulesTest, LeftJoinPushDown) {
  std::string p = Plan(
      "select c_name, o_orderkey from customer left join orders on c_custkey = o_custkey "
      "and o_comment not like '%special%' where c_nationkey = 3 and o_totalprice is null");
  EXPECT_THAT(p, HasSubstr("Join left"));
  // ON's right-only condition filters orders; WHERE's customer condition
  // filters customer; the condition on the nullable side stays above.
  EXPECT_THAT(p, HasSubstr("filter=[o_comment#"));
  EXPECT_THAT(p, HasSubstr("filter=[c_nationkey#"));
  EXPECT_THAT(p, HasSubstr("Filter [o_totalprice#"));
}

TEST_F(OptimizerRulesTest, ConstantFolding) {
  std::string p = Plan(
      "select l_orderkey from lineitem where l_shipdate <= date '1998-12-01' - interval '90' day "
      "and l_linenumber = 1 + 2 and 1 = 1");
  EXPECT_THAT(p, HasSubstr("l_shipdate#"));
  EXPECT_THAT(p, HasSubstr("<= date '1998-09-02'"));
  EXPECT_THAT(p, HasSubstr("= 3"));
  EXPECT_THAT(p, Not(HasSubstr("1 = 1")));
}

TEST_F(OptimizerRulesTest, PruningAndProjectionRemoval) {
  std::string p = Plan("select n_name from nation where n_regionkey = 1");
  // Only the used columns are read; no Project is needed (the Get's
  // columns are the result's).
  EXPECT_EQ(
      p, "Project [n_name#2]\n  Get nation [n_name#2, n_regionkey#3] filter=[n_regionkey#3 = 1]\n")
      << p;
  std::string all = Plan("select * from region");
  EXPECT_EQ(all, "Get region [r_regionkey#1, r_name#2, r_comment#3]\n") << all;
}

const LogicalOp* FindGet(const LogicalOp& op, const std::string& table) {
  if (op.kind == LogicalOpKind::kGet && op.table_name == table) return &op;
  for (const LogicalOpPtr& child : op.children) {
    if (const LogicalOp* found = FindGet(*child, table)) return found;
  }
  return nullptr;
}

// The names of a Get's columns that only its conditions read.
std::vector<std::string> ConditionOnly(const LogicalOp& get) {
  std::vector<std::string> names;
  for (const LogicalColumn& c : get.columns) {
    const auto& only = get.condition_only;
    if (std::find(only.begin(), only.end(), c.id) != only.end()) names.push_back(c.name);
  }
  return names;
}

// A column only a Get's conditions read is marked so (the scan does not
// output it, and a frozen block's scan never decodes it), unless the Get
// would then output nothing (COUNT(*)) or is the plan's root.
TEST_F(OptimizerRulesTest, ColumnsOnlyConditionsReadAreMarked) {
  auto get_of = [&](const std::string& sql, const std::string& table) {
    LogicalOpPtr p = bindertest::OptimizedPlan(sql, Cat(), {});
    const LogicalOp* get = FindGet(*p, table);
    EXPECT_NE(get, nullptr) << sql;
    return get == nullptr ? std::vector<std::string>{"none"} : ConditionOnly(*get);
  };
  EXPECT_EQ(get_of("select c_name, count(o_orderkey) from customer left join orders on c_custkey "
                   "= o_custkey and o_comment not like '%special%' and o_totalprice > 5 group by "
                   "c_name",
                   "orders"),
            (std::vector<std::string>{"o_totalprice", "o_comment"}));
  EXPECT_EQ(get_of("select count(*) from orders where o_comment like '%x%'", "orders"),
            std::vector<std::string>{});
  EXPECT_EQ(get_of("select count(*) from orders where o_comment like '%x%' and o_totalprice > 5",
                   "orders"),
            std::vector<std::string>{"o_comment"});
  EXPECT_EQ(get_of("select * from region where r_name = 'ASIA'", "region"),
            std::vector<std::string>{});
}

TEST_F(OptimizerRulesTest, InnerJoinOnUniqueBuildBecomesSemiWithExactFilter) {
  std::string p = Plan(
      "select sum(l_quantity) from lineitem, orders where l_orderkey = o_orderkey "
      "and o_orderdate < date '1993-01-01'");
  EXPECT_THAT(p, HasSubstr("Join semi"));
  EXPECT_THAT(p, HasSubstr("build_unique"));
  EXPECT_THAT(p, HasSubstr("exact[1..1500]"));
  // The build feeds an exact filter to the lineitem scan.
  EXPECT_THAT(p, HasSubstr("exact(join1:l_orderkey#"));
}

TEST_F(OptimizerRulesTest, RuntimeFiltersGoDownTheProbeSide) {
  std::string p = Plan(
      "select c_name, sum(l_quantity) from lineitem, orders, customer where l_orderkey = "
      "o_orderkey and o_custkey = c_custkey and c_mktsegment = '1mkts' group by c_name");
  // Both builds are unique on dense keys: exact filters, each on the Get
  // that produces its probe key.
  EXPECT_THAT(p, HasSubstr("Get lineitem [l_orderkey#1, l_quantity#5] exact(join1:l_orderkey#1)"));
  EXPECT_THAT(p, HasSubstr("Get orders [o_orderkey#17, o_custkey#18] exact(join2:o_custkey#18)"));
}

// A filter a join places on a Get narrows the Get's estimate, so that a
// join below, whose build holds that Get, filters its own probe side too
// (TPC-H Q18: the orders the IN keeps make orders a small build for
// lineitem, which then gets a filter as well).
TEST_F(OptimizerRulesTest, AFilteredBuildFiltersItsProbeSide) {
  const std::string sql =
      "select o_orderkey, sum(l_quantity) from orders, lineitem where o_orderkey = l_orderkey "
      "and o_orderkey in (select l_orderkey from lineitem group by l_orderkey having "
      "sum(l_quantity) > 300) group by o_orderkey";
  std::string p = Plan(sql);
  EXPECT_THAT(p, HasSubstr("Get orders [o_orderkey#1] lip(join1:o_orderkey#1)"));
  EXPECT_THAT(p,
              HasSubstr("Get lineitem [l_orderkey#10, l_quantity#14] exact(join2:l_orderkey#10)"));
}

TEST_F(OptimizerRulesTest, LeftJoinBuiltOnItsSmallSideFiltersTheOtherThroughAnAggregate) {
  // The planner builds this LEFT JOIN on the few customers (right outer):
  // orders of other customers count for nothing, so the customers' keys
  // filter the orders scan, below the aggregate grouped by that key.
  std::string p = Plan(
      "select c_name, cnt from customer left join (select o_custkey, count(*) as cnt from orders "
      "group by o_custkey) o on c_custkey = o_custkey where c_mktsegment = '1mkts'");
  EXPECT_THAT(p, HasSubstr("Join left"));
  EXPECT_THAT(p, HasSubstr("lip(join1:o_custkey#")) << p;
  // A join that keeps the big side's rows filters nothing.
  std::string q =
      Plan("select o_orderkey, c_name from orders left join customer on o_custkey = c_custkey");
  EXPECT_THAT(q, Not(HasSubstr("lip("))) << q;
  EXPECT_THAT(q, Not(HasSubstr("exact("))) << q;
}

TEST_F(OptimizerRulesTest, GroupKeysDependentOnAGroupedPrimaryKeyBecomeAnyValue) {
  // c_custkey decides c_name and c_address; n_name depends on n_nationkey,
  // which is not grouped on, so it stays a key.
  std::string p = Plan(
      "select c_custkey, c_name, c_address, n_name, count(*) from customer, nation "
      "where c_nationkey = n_nationkey group by c_custkey, c_name, c_address, n_name");
  EXPECT_THAT(p, HasSubstr("Aggregate keys=[c_custkey#1, n_name#")) << p;
  EXPECT_THAT(p, HasSubstr("any_value(c_name#2)")) << p;
  EXPECT_THAT(p, HasSubstr("any_value(c_address#3)")) << p;
  // Without the whole primary key nothing moves.
  std::string q = Plan("select c_name, c_address, count(*) from customer group by 1, 2");
  EXPECT_THAT(q, Not(HasSubstr("any_value"))) << q;
}

TEST_F(OptimizerRulesTest, OptionsDisableRules) {
  OptimizerOptions o;
  o.runtime_filters = false;
  std::string p = Plan(
      "select sum(l_quantity) from lineitem, orders where l_orderkey = o_orderkey "
      "and o_orderdate < date '1993-01-01'",
      o);
  EXPECT_THAT(p, Not(HasSubstr("exact(join")));
}

}  // namespace
}  // namespace forktail
