// Semi-join reduction of grouped build sides (optimizer_hints.cc): a
// decorrelated aggregate gets a copy of the outer side's small Get as a
// semi join under it, and the results are the same as without it (runtime
// filters off turns the rewrite off too).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/olap/plan/binder/binder_test_catalog.h"
#include "tests/olap/plan/planner/planner_testing.h"

namespace forktail {
namespace {

using bindertest::CheckPlan;
using ::testing::HasSubstr;
using ::testing::Not;

Catalog& Cat() {
  static bindertest::TpchCatalog* c = new bindertest::TpchCatalog(1);
  return c->catalog();
}

LogicalOpPtr Plan(const std::string& sql, bool filters) {
  OptimizerOptions o;
  o.runtime_filters = filters;
  LogicalOpPtr p = bindertest::OptimizedPlan(sql, Cat(), o);
  EXPECT_EQ(CheckPlan(*p), "") << PlanToString(*p);
  return p;
}

// Rows with the rewrite (and filters) and without must be the same bag.
void ExpectSameRows(const std::string& sql) {
  LogicalOpPtr with = Plan(sql, true);
  LogicalOpPtr without = Plan(sql, false);
  std::vector<Row> a = plantest::RunAllModes(*with, Cat());
  std::vector<Row> b = plantest::RunAllModes(*without, Cat());
  EXPECT_EQ(ptest::Bag(a), ptest::Bag(b)) << PlanToString(*with);
}

// TPC-H Q17 with a selective part filter.
const char* kQ17 =
    "select sum(l_extendedprice) / 7.0 from lineitem, part where p_partkey = l_partkey "
    "and p_size = 3 and l_quantity < (select 0.2 * avg(l_quantity) from lineitem "
    "where l_partkey = p_partkey)";

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(OptimizerMagicTest, CorrelatedAverageAggregatesOnlyTheOuterKeys) {
  std::string p = PlanToString(*Plan(kQ17, true), false);
  // part is read twice: the outer join and the copy under the aggregate.
  EXPECT_EQ(Count(p, "Get part"), 2u) << p;
  size_t agg = p.find("Aggregate keys=[l_partkey");
  ASSERT_NE(agg, std::string::npos) << p;
  EXPECT_NE(p.find("Join semi", agg), std::string::npos) << p;
  std::string off = PlanToString(*Plan(kQ17, false), false);
  EXPECT_EQ(Count(off, "Get part"), 1u) << off;
  ExpectSameRows(kQ17);
}

TEST(OptimizerMagicTest, SameRowsForOuterJoinsToAggregates) {
  // LEFT JOIN to a grouped subquery: unmatched outer rows keep NULLs.
  ExpectSameRows(
      "select p_partkey, s from part left join (select l_partkey, sum(l_quantity) s "
      "from lineitem group by l_partkey) x on l_partkey = p_partkey where p_size < 4");
  // EXISTS / NOT EXISTS with a grouped, filtered subquery.
  ExpectSameRows(
      "select count(*) from part where p_size = 7 and exists (select 1 from (select "
      "l_partkey k, count(*) c from lineitem group by l_partkey) x where k = p_partkey "
      "and c > 20)");
  ExpectSameRows(
      "select count(*) from part where p_size = 7 and not exists (select 1 from (select "
      "l_partkey k, count(*) c from lineitem group by l_partkey) x where k = p_partkey "
      "and c > 30)");
  // Two correlation keys (TPC-H Q20's shape).
  ExpectSameRows(
      "select count(*) from partsupp, part where ps_partkey = p_partkey and p_size = 5 "
      "and ps_availqty > (select 0.01 * sum(l_quantity) from lineitem where l_partkey = "
      "ps_partkey and l_suppkey = ps_suppkey)");
}

TEST(OptimizerMagicTest, NotInAndUnselectiveOuterSidesAreLeftAlone) {
  // NOT IN: a NULL group key decides the result; never reduced.
  std::string p =
      PlanToString(*Plan("select count(*) from part where p_size = 3 and p_partkey not in (select "
                         "l_partkey from lineitem group by l_partkey)",
                         true),
                   false);
  EXPECT_EQ(Count(p, "Get part"), 1u) << p;
  // The outer side is all of lineitem: nothing smaller to copy.
  p = PlanToString(*Plan("select count(*) from lineitem l1 where l_quantity < (select "
                         "avg(l_quantity) from lineitem l2 where l2.l_partkey = l1.l_partkey)",
                         true),
                   false);
  EXPECT_THAT(p, Not(HasSubstr("Join semi"))) << p;
}

}  // namespace
}  // namespace forktail
