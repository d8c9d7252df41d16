// GROUP BY ROLLUP / CUBE / GROUPING SETS (olap/plan/binder/binder_grouping_sets.cc):
// the bound and the optimized plans keep the id discipline (every column an
// operator reads is produced below it), the Aggregate also groups by the
// set's ordinal, and the errors are PostgreSQL's. Results are checked
// against PostgreSQL 15 in tests/server/e2e/slt/grouping_sets.slt.
#include <gtest/gtest.h>

#include "olap/plan/binder/binder.h"
#include "olap/plan/optimizer/optimizer.h"
#include "tests/olap/plan/binder/binder_test_catalog.h"

namespace forktail {
namespace {

Catalog& Cat() {
  static bindertest::TpchCatalog* c = new bindertest::TpchCatalog(1);
  return c->catalog();
}

void ExpectValidPlans(const std::string& sql) {
  SCOPED_TRACE(sql);
  BoundStatement b = bindertest::BindSql(sql, Cat());
  ASSERT_TRUE(b.plan);
  EXPECT_EQ(bindertest::CheckPlan(*b.plan), "") << PlanToString(*b.plan, false);
  LogicalOpPtr o = bindertest::OptimizedPlan(sql, Cat());
  EXPECT_EQ(bindertest::CheckPlan(*o), "") << PlanToString(*o, false);
}

TEST(GroupingSets, PlansReadOnlyColumnsProducedBelow) {
  ExpectValidPlans(
      "SELECT n_regionkey, n_name, count(*), grouping(n_regionkey, n_name) FROM nation "
      "GROUP BY ROLLUP (n_regionkey, n_name)");
  ExpectValidPlans("SELECT count(*), sum(n_nationkey) FROM nation GROUP BY GROUPING SETS ((), ())");
  ExpectValidPlans(
      "SELECT n_regionkey + 1, count(*) FROM nation GROUP BY CUBE (n_regionkey + 1, n_name) "
      "HAVING n_regionkey + 1 > 2 ORDER BY 1");
  ExpectValidPlans(
      "SELECT n_regionkey, (SELECT count(*) FROM region WHERE r_regionkey = n_regionkey) "
      "FROM nation GROUP BY ROLLUP (n_regionkey)");
}

TEST(GroupingSets, OneAggregateGroupsByTheSetOrdinal) {
  std::string plan = bindertest::BoundPlan(
      "SELECT n_regionkey, count(*) FROM nation GROUP BY ROLLUP (n_regionkey)", Cat());
  EXPECT_NE(plan.find("?grouping set?"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("Aggregate"), plan.rfind("Aggregate")) << plan;
  // One set is a plain GROUP BY.
  plan = bindertest::BoundPlan(
      "SELECT n_regionkey, count(*) FROM nation GROUP BY GROUPING SETS ((n_regionkey))", Cat());
  EXPECT_EQ(plan.find("?grouping set?"), std::string::npos) << plan;
}

TEST(GroupingSets, PostgresErrors) {
  auto bind = [](const std::string& sql) { return [sql] { bindertest::BindSql(sql, Cat()); }; };
  bindertest::ExpectDbError(bind("SELECT 1 FROM nation GROUP BY CUBE (n_name, n_name, n_name, "
                                 "n_name, n_name, n_name, n_name, n_name, n_name, n_name, n_name, "
                                 "n_name, n_name)"),
                            "54011", "CUBE is limited to 12 elements", 31);
  bindertest::ExpectDbError(bind("SELECT grouping(n_name) FROM nation GROUP BY n_regionkey"),
                            "42803",
                            "arguments to GROUPING must be grouping expressions of the "
                            "associated query level",
                            17);
  bindertest::ExpectDbError(bind("SELECT 1 FROM nation WHERE grouping(n_name) = 0"), "42803",
                            "grouping operations are not allowed in WHERE", 28);
}

}  // namespace
}  // namespace forktail
