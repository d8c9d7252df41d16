// End to end (SQL -> Bind -> Optimize -> Plan -> Execute, every scheduler
// mode) for set-returning functions in the select list
// (olap/plan/binder/binder_srf.h): lockstep evaluation with NULL padding, rows
// whose functions return nothing, information_schema._pg_expandarray with
// field selection and a record column passed through a subquery (pgJDBC's
// getPrimaryKeys shape), functions over aggregates, and PostgreSQL's errors
// with positions. Expected rows and errors are PostgreSQL 15's.
#include <gtest/gtest.h>

#include <optional>

#include "olap/parser/ast.h"
#include "olap/plan/binder/binder.h"
#include "olap/plan/optimizer/optimizer.h"
#include "tests/olap/plan/binder/lateral_testing.h"

namespace forktail {
namespace {

class SrfSelect : public plantest::LateralTables {};

TEST_F(SrfSelect, LockstepPadsShorterFunctionsWithNull) {
  EXPECT_EQ(Query("SELECT generate_series(1, 2), unnest('{a,b,c}'::text[]) ORDER BY 2"),
            "1|'a'|;2|'b'|;NULL|'c'|;");
  // Per input row: id 2 (n = 0, '{}') gives no row; id 3's array is NULL,
  // id 4's n is NULL: the other function alone decides the row count.
  EXPECT_EQ(ApplyQuery("SELECT t.id, generate_series(1, t.n) g, unnest(t.s::int[]) e FROM t "
                       "ORDER BY 1, 2, 3"),
            "1|1|1|;1|2|2|;3|1|NULL|;3|2|NULL|;3|3|NULL|;4|NULL|7|;4|NULL|NULL|;");
}

TEST_F(SrfSelect, EmptyResultsGiveNoRows) {
  EXPECT_EQ(Query("SELECT t.id, unnest(t.s::int[]) FROM t WHERE t.id = 2"), "");
  EXPECT_EQ(Query("SELECT 1, generate_series(3, 1)"), "");
  EXPECT_EQ(Query("SELECT count(*) FROM (SELECT generate_series(1, t.n) FROM t) s"), "5|;");
}

TEST_F(SrfSelect, ExpressionsOrderByDistinctAndAggregates) {
  EXPECT_EQ(Query("SELECT generate_series(1, 3) * 10 AS g ORDER BY 1 DESC"), "30|;20|;10|;");
  EXPECT_EQ(Query("SELECT generate_series(1, 3) AS g ORDER BY generate_series(1, 3) DESC"),
            "3|;2|;1|;");
  EXPECT_EQ(Query("SELECT DISTINCT unnest(t.s::int[]) FROM t ORDER BY 1"), "1|;2|;7|;NULL|;");
  // After aggregation: the function reads the aggregate's result.
  EXPECT_EQ(Query("SELECT generate_series(1, count(*)) FROM t ORDER BY 1"), "1|;2|;3|;4|;");
  EXPECT_EQ(Query("SELECT t.n, generate_series(1, t.n) FROM t GROUP BY t.n ORDER BY 1, 2"),
            "2|1|;2|2|;3|1|;3|2|;3|3|;");
  // In a correlated subquery's FROM subquery, over the enclosing row.
  EXPECT_EQ(Query("SELECT t.id, (SELECT max(g) FROM (SELECT generate_series(1, t.n) g) s) FROM t "
                  "ORDER BY 1"),
            "1|2|;2|NULL|;3|3|;4|NULL|;");
}

TEST_F(SrfSelect, ExpandArrayFieldsAndRecordColumn) {
  EXPECT_EQ(Query("SELECT (information_schema._pg_expandarray('{5,6}'::int[])).x, "
                  "(information_schema._pg_expandarray('{5,6}'::int[])).n ORDER BY 2"),
            "5|1|;6|2|;");
  // The record passes through a subquery; its fields are selected outside.
  EXPECT_EQ(ApplyQuery("SELECT r.id, (r.k).x, (r.k).n FROM (SELECT t.id, "
                       "information_schema._pg_expandarray(t.s::int[]) AS k FROM t) r WHERE "
                       "(r.k).n = 1 ORDER BY 1"),
            "1|1|1|;4|7|1|;");
  EXPECT_EQ(Query("SELECT r.a, (r.keys).x FROM (SELECT t.id AS a, (information_schema."
                  "_pg_expandarray(t.s::int[])).n AS k, information_schema._pg_expandarray(t.s::"
                  "int[]) AS keys FROM t) r WHERE r.a = (r.keys).n ORDER BY 1"),
            "1|1|;");
}

TEST_F(SrfSelect, PlanJoinsOneZippedFunction) {
  std::string plan =
      PlanToString(*Optimized("SELECT t.id, generate_series(1, t.n), unnest(t.s::int[]) FROM t"));
  EXPECT_NE(plan.find("Apply lateral"), std::string::npos) << plan;
  EXPECT_NE(plan.find("TableFunction ROWS FROM:generate_series/2,unnest/1("), std::string::npos)
      << plan;
}

TEST_F(SrfSelect, Errors) {
  EXPECT_EQ(ErrorAt("SELECT 1 FROM t WHERE generate_series(1, t.n) > 1"),
            "0A000 set-returning functions are not allowed in WHERE @23");
  EXPECT_EQ(ErrorAt("SELECT sum(generate_series(1, 2)) FROM t"),
            "0A000 aggregate function calls cannot contain set-returning function calls @12");
  try {
    Query("SELECT sum(generate_series(1, 2)) FROM t");
  } catch (const DbError& e) {
    EXPECT_EQ(e.hint(),
              "You might be able to move the set-returning function into a LATERAL FROM item.");
  }
  EXPECT_EQ(ErrorAt("SELECT 1 FROM t JOIN u ON u.x = generate_series(1, 2)"),
            "0A000 set-returning functions are not allowed in JOIN conditions @33");
  EXPECT_EQ(ErrorAt("SELECT count(*) FROM t HAVING generate_series(1, 2) > 1"),
            "0A000 set-returning functions are not allowed in HAVING @31");
  EXPECT_EQ(ErrorAt("SELECT * FROM (VALUES (generate_series(1, 2))) v"),
            "0A000 set-returning functions are not allowed in VALUES @24");
  EXPECT_EQ(ErrorAt("SELECT (information_schema._pg_expandarray('{1}'::int[])).z"),
            "42703 could not identify column \"z\" in record data type @9");
  EXPECT_EQ(ErrorAt("SELECT (t.id).x FROM t"),
            "42809 column notation .x applied to type integer, which is not a composite type @9");
  EXPECT_EQ(ErrorAt("SELECT (generate_series(1, 2)).x"),
            "42809 column notation .x applied to type integer, which is not a composite type @9");
}

}  // namespace
}  // namespace forktail
