// Subqueries become joins: each form's join kind, keys and residual after
// Bind + Optimize (push-down turns correlated equalities into keys).
#include <gtest/gtest.h>

#include <functional>

#include "tests/olap/plan/binder/binder_test_catalog.h"

namespace forktail {
namespace {

using bindertest::CheckPlan;
using bindertest::OptimizedPlan;

class BinderSubqueryTest : public ::testing::Test {
 protected:
  static Catalog& Cat() {
    static bindertest::TpchCatalog* c = new bindertest::TpchCatalog(1);
    return c->catalog();
  }
  // The joins of the optimized plan, pre-order.
  static std::vector<const LogicalOp*> Joins(const LogicalOp& root) {
    std::vector<const LogicalOp*> out;
    std::function<void(const LogicalOp&)> walk = [&](const LogicalOp& op) {
      if (op.kind == LogicalOpKind::kJoin) out.push_back(&op);
      for (const LogicalOpPtr& c : op.children) walk(*c);
    };
    walk(root);
    return out;
  }
  static const LogicalOp* FindJoin(const LogicalOp& root, LogicalJoinKind kind) {
    for (const LogicalOp* j : Joins(root)) {
      if (j->join_kind == kind) return j;
    }
    return nullptr;
  }
  static const LogicalOp* FindOp(const LogicalOp& root, LogicalOpKind kind) {
    if (root.kind == kind) return &root;
    for (const LogicalOpPtr& c : root.children) {
      if (const LogicalOp* f = FindOp(*c, kind)) return f;
    }
    return nullptr;
  }
  LogicalOpPtr Plan(const std::string& sql) {
    LogicalOpPtr p = OptimizedPlan(sql, Cat());
    EXPECT_EQ(CheckPlan(*p), "") << PlanToString(*p);
    return p;
  }
};

TEST_F(BinderSubqueryTest, UncorrelatedInIsSemiJoin) {
  LogicalOpPtr p = Plan(
      "select n_name from nation where n_regionkey in "
      "(select r_regionkey from region where r_name = 'ASIA')");
  const LogicalOp* j = FindJoin(*p, LogicalJoinKind::kSemi);
  ASSERT_NE(j, nullptr) << PlanToString(*p);
  EXPECT_EQ(j->left_keys.size(), 1u);
  EXPECT_NE(PlanToString(*p).find("Get region [r_regionkey"), std::string::npos);
}

TEST_F(BinderSubqueryTest, NotInIsNullAwareAnti) {
  LogicalOpPtr p = Plan(
      "select n_name from nation where n_regionkey not in "
      "(select r_regionkey from region)");
  const LogicalOp* j = FindJoin(*p, LogicalJoinKind::kNullAwareAnti);
  ASSERT_NE(j, nullptr) << PlanToString(*p);
  EXPECT_EQ(j->left_keys.size(), 1u);
}

TEST_F(BinderSubqueryTest, InWithComputedKeyProjectsIt) {
  LogicalOpPtr p = Plan(
      "select c_name from customer where substring(c_phone from 1 for 2) in "
      "(select substring(s_phone from 1 for 2) from supplier)");
  const LogicalOp* j = FindJoin(*p, LogicalJoinKind::kSemi);
  ASSERT_NE(j, nullptr) << PlanToString(*p);
  EXPECT_EQ(j->left_keys.size(), 1u);
}

TEST_F(BinderSubqueryTest, CorrelatedExistsIsSemiJoinOnKeys) {
  // TPC-H Q4's shape.
  LogicalOpPtr p = Plan(
      "select o_orderpriority, count(*) from orders where exists (select * from lineitem "
      "where l_orderkey = o_orderkey and l_commitdate < l_receiptdate) group by 1");
  const LogicalOp* j = FindJoin(*p, LogicalJoinKind::kSemi);
  ASSERT_NE(j, nullptr) << PlanToString(*p);
  ASSERT_EQ(j->left_keys.size(), 1u);
  EXPECT_TRUE(j->conditions.empty()) << PlanToString(*p);
  // The inner condition went into the lineitem scan.
  EXPECT_NE(PlanToString(*p).find("filter=[l_commitdate"), std::string::npos) << PlanToString(*p);
}

TEST_F(BinderSubqueryTest, NotExistsWithNonEquiCorrelationKeepsResidual) {
  // TPC-H Q21's shape: equality key plus l3.l_suppkey <> l1.l_suppkey.
  LogicalOpPtr p = Plan(
      "select l1.l_orderkey from lineitem l1 where not exists (select * from lineitem l3 "
      "where l3.l_orderkey = l1.l_orderkey and l3.l_suppkey <> l1.l_suppkey)");
  const LogicalOp* j = FindJoin(*p, LogicalJoinKind::kAnti);
  ASSERT_NE(j, nullptr) << PlanToString(*p);
  EXPECT_EQ(j->left_keys.size(), 1u);
  ASSERT_EQ(j->conditions.size(), 1u) << PlanToString(*p);
  EXPECT_EQ(j->conditions[0]->compare, CompareOp::kNe);
}

TEST_F(BinderSubqueryTest, UncorrelatedScalarIsSingleJoin) {
  LogicalOpPtr p =
      Plan("select c_name from customer where c_acctbal > (select avg(c_acctbal) from customer)");
  const LogicalOp* j = FindJoin(*p, LogicalJoinKind::kSingle);
  ASSERT_NE(j, nullptr) << PlanToString(*p);
  EXPECT_TRUE(j->left_keys.empty());
  EXPECT_EQ(j->children[1]->kind, LogicalOpKind::kAggregate) << PlanToString(*p);
}

TEST_F(BinderSubqueryTest, CorrelatedScalarAggregateIsGroupedLeftJoin) {
  // TPC-H Q17's shape.
  LogicalOpPtr p = Plan(
      "select sum(l_extendedprice) from lineitem, part where p_partkey = l_partkey and "
      "l_quantity < (select 0.2 * avg(l_quantity) from lineitem where l_partkey = p_partkey)");
  const LogicalOp* j = FindJoin(*p, LogicalJoinKind::kLeft);
  ASSERT_NE(j, nullptr) << PlanToString(*p);
  ASSERT_EQ(j->left_keys.size(), 1u);
  const LogicalOp& agg = *j->children[1];
  ASSERT_EQ(agg.kind, LogicalOpKind::kAggregate) << PlanToString(*p);
  ASSERT_EQ(agg.group_keys.size(), 1u);
  EXPECT_EQ(agg.group_keys[0], j->right_keys[0]);
}

TEST_F(BinderSubqueryTest, CorrelatedCountBecomesCoalesce) {
  LogicalOpPtr p = Plan(
      "select c_custkey from customer where "
      "(select count(*) from orders where o_custkey = c_custkey) = 0");
  ASSERT_NE(FindJoin(*p, LogicalJoinKind::kLeft), nullptr) << PlanToString(*p);
  EXPECT_NE(PlanToString(*p).find("COALESCE("), std::string::npos) << PlanToString(*p);
}

TEST_F(BinderSubqueryTest, QuantifiedComparisons) {
  LogicalOpPtr any = Plan(
      "select n_name from nation where n_nationkey = any "
      "(select r_regionkey from region)");
  EXPECT_NE(FindJoin(*any, LogicalJoinKind::kSemi), nullptr) << PlanToString(*any);
  LogicalOpPtr all = Plan(
      "select n_name from nation where n_nationkey > all "
      "(select r_regionkey from region)");
  const LogicalOp* j = FindJoin(*all, LogicalJoinKind::kAnti);
  ASSERT_NE(j, nullptr) << PlanToString(*all);
  EXPECT_EQ(j->conditions.size(), 1u);
}

TEST_F(BinderSubqueryTest, NestedCorrelationQ20) {
  LogicalOpPtr p = Plan(
      "select s_name from supplier where s_suppkey in (select ps_suppkey from partsupp where "
      "ps_partkey in (select p_partkey from part where p_name like 'forest%') and ps_availqty > "
      "(select 0.5 * sum(l_quantity) from lineitem where l_partkey = ps_partkey and "
      "l_suppkey = ps_suppkey))");
  const LogicalOp* left = FindJoin(*p, LogicalJoinKind::kLeft);
  ASSERT_NE(left, nullptr) << PlanToString(*p);
  EXPECT_EQ(left->left_keys.size(), 2u);
}

TEST_F(BinderSubqueryTest, CorrelationJoinsCannotExpressIsAnApply) {
  // LIMIT inside a correlated IN: the subquery runs per outer binding.
  LogicalOpPtr p = Plan(
      "select n_name from nation where n_regionkey in "
      "(select r_regionkey from region where r_regionkey > n_nationkey limit 1)");
  const LogicalOp* apply = FindOp(*p, LogicalOpKind::kApply);
  ASSERT_NE(apply, nullptr) << PlanToString(*p);
  EXPECT_EQ(apply->apply_kind, ApplyKind::kAny);
  ASSERT_EQ(apply->expressions.size(), 2u) << PlanToString(*p);  // n_regionkey, n_nationkey
  ASSERT_NE(apply->subplan, nullptr);
  EXPECT_EQ(FindJoin(*p, LogicalJoinKind::kSemi), nullptr) << PlanToString(*p);
}

TEST_F(BinderSubqueryTest, QuantifiedAndExistsAsValuesAreApplies) {
  LogicalOpPtr p = Plan(
      "select n_name, n_regionkey < any (select r_regionkey from region), "
      "exists (select 1 from region where r_regionkey = n_regionkey) from nation");
  int applies = 0;
  std::function<void(const LogicalOp&)> walk = [&](const LogicalOp& op) {
    if (op.kind == LogicalOpKind::kApply) applies++;
    for (const LogicalOpPtr& c : op.children) walk(*c);
  };
  walk(*p);
  EXPECT_EQ(applies, 2) << PlanToString(*p);
  LogicalOpPtr o = Plan(
      "select n_name from nation where n_nationkey = 1 or exists "
      "(select 1 from region where r_regionkey = n_regionkey)");
  const LogicalOp* apply = FindOp(*o, LogicalOpKind::kApply);
  ASSERT_NE(apply, nullptr) << PlanToString(*o);
  EXPECT_EQ(apply->apply_kind, ApplyKind::kExists);
}

TEST_F(BinderSubqueryTest, CorrelatedScalarNonEquiIsAnApply) {
  LogicalOpPtr p = Plan(
      "select n_name, (select count(*) from region where r_regionkey < n_regionkey) from nation");
  const LogicalOp* apply = FindOp(*p, LogicalOpKind::kApply);
  ASSERT_NE(apply, nullptr) << PlanToString(*p);
  EXPECT_EQ(apply->apply_kind, ApplyKind::kScalar);
  EXPECT_EQ(apply->columns.back().type, Type::BigInt());
}

}  // namespace
}  // namespace forktail
