// End to end (SQL -> Bind -> Optimize -> Plan -> Execute, every scheduler
// mode) for LATERAL (olap/plan/binder/binder_lateral.h) and set-returning functions
// in FROM over outer columns (olap/plan/binder/table_function.h): a per-row LIMIT,
// generate_series(1, t.n), unnest over an outer array, LEFT JOIN LATERAL
// with no rows, functions in a correlated subquery (psql's \d publications
// query), and PostgreSQL's errors for references LATERAL does not allow.
// Expected rows are computed by hand (PostgreSQL 15 agrees).
#include <gtest/gtest.h>

#include <optional>

#include "olap/parser/ast.h"
#include "olap/plan/binder/binder.h"
#include "olap/plan/optimizer/optimizer.h"
#include "tests/olap/plan/binder/lateral_testing.h"

namespace forktail {
namespace {

class Lateral : public plantest::LateralTables {};

TEST_F(Lateral, SubqueryWithLimitPerOuterRow) {
  // The two largest y per id; id 3's only y is NULL (DESC: NULLs first).
  EXPECT_EQ(ApplyQuery("SELECT t.id, s.y FROM t, LATERAL (SELECT y FROM u WHERE u.x = t.id "
                       "ORDER BY y DESC LIMIT 2) s ORDER BY t.id, s.y"),
            "1|10|;1|15|;2|25|;3|NULL|;");
  EXPECT_EQ(ApplyQuery("SELECT t.id, s.y FROM t CROSS JOIN LATERAL (SELECT y FROM u WHERE u.x = "
                       "t.id ORDER BY y LIMIT 1) s ORDER BY t.id"),
            "1|5|;2|25|;3|NULL|;");
  // JOIN LATERAL ... ON: the condition filters the item's rows.
  EXPECT_EQ(ApplyQuery("SELECT t.id, s.y FROM t JOIN LATERAL (SELECT y FROM u WHERE u.x = t.id) s "
                       "ON s.y > t.id * 10 ORDER BY 1, 2"),
            "1|15|;2|25|;");
}

TEST_F(Lateral, SubqueryAggregateAndSelectListOfOuterColumns) {
  EXPECT_EQ(ApplyQuery("SELECT t.id, s.c, s.m FROM t, LATERAL (SELECT count(*) AS c, max(y) + "
                       "t.id AS m FROM u WHERE u.x = t.id) s ORDER BY t.id"),
            "1|3|16|;2|1|27|;3|1|NULL|;4|0|NULL|;");
  EXPECT_EQ(
      ApplyQuery("SELECT * FROM t, LATERAL (SELECT t.id * 2 AS d) s WHERE s.d > 4 ORDER BY 1"),
      "3|3|NULL|6|;4|NULL|'{7,NULL}'|8|;");
}

TEST_F(Lateral, LeftJoinLateralWithNoRowsGivesNulls) {
  EXPECT_EQ(ApplyQuery("SELECT t.id, s.y FROM t LEFT JOIN LATERAL (SELECT y FROM u WHERE u.x = "
                       "t.id ORDER BY y LIMIT 1) s ON true ORDER BY t.id"),
            "1|5|;2|25|;3|NULL|;4|NULL|;");
  // The ON condition decides the match; unmatched rows are kept once.
  EXPECT_EQ(ApplyQuery("SELECT t.id, s.y FROM t LEFT JOIN LATERAL (SELECT y FROM u WHERE u.x = "
                       "t.id) s ON s.y >= 10 ORDER BY 1, 2"),
            "1|10|;1|15|;2|25|;3|NULL|;4|NULL|;");
}

TEST_F(Lateral, GenerateSeriesOverOuterColumn) {
  // Functions in FROM are implicitly lateral; n = 0 and NULL give no rows.
  EXPECT_EQ(ApplyQuery("SELECT t.id, g FROM t, generate_series(1, t.n) g ORDER BY 1, 2"),
            "1|1|;1|2|;3|1|;3|2|;3|3|;");
  EXPECT_EQ(ApplyQuery("SELECT t.id, g.v, g.o FROM t CROSS JOIN generate_series(t.n, 1, -1) WITH "
                       "ORDINALITY AS g(v, o) ORDER BY 1, 3"),
            "1|2|1|;1|1|2|;3|3|1|;3|2|2|;3|1|3|;");
  EXPECT_EQ(ApplyQuery("SELECT t.id, g FROM t LEFT JOIN LATERAL generate_series(1, t.n) g ON true "
                       "WHERE t.id <> 3 ORDER BY 1, 2"),
            "1|1|;1|2|;2|NULL|;4|NULL|;");
}

TEST_F(Lateral, UnnestOverOuterArray) {
  EXPECT_EQ(ApplyQuery("SELECT t.id, e FROM t, unnest(t.s::int[]) e ORDER BY 1, 2"),
            "1|1|;1|2|;4|7|;4|NULL|;");
  EXPECT_EQ(ApplyQuery("SELECT t.id, e.v, e.k FROM t LEFT JOIN LATERAL unnest(t.s::int[]) WITH "
                       "ORDINALITY e(v, k) ON true ORDER BY 1, 3"),
            "1|1|1|;1|2|2|;2|NULL|NULL|;3|NULL|NULL|;4|7|1|;4|NULL|2|;");
}

TEST_F(Lateral, FunctionOverEnclosingQueryInCorrelatedSubquery) {
  // psql's \d publications query's shape: a scalar subquery whose FROM has a
  // set-returning function over the outer row.
  EXPECT_EQ(ApplyQuery("SELECT t.id, (SELECT sum(g) FROM generate_series(1, t.n) g) FROM t ORDER "
                       "BY 1"),
            "1|3|;2|NULL|;3|6|;4|NULL|;");
  EXPECT_EQ(
      ApplyQuery("SELECT t.id, (SELECT string_agg(u.y::text, ', ' ORDER BY "
                 "u.y::text) FROM generate_series(0, t.n) s, u WHERE u.x = s) FROM t ORDER BY 1"),
      "1|'10, 15, 25, 5'|;2|NULL|;3|'10, 15, 25, 5'|;4|NULL|;");
  EXPECT_EQ(ApplyQuery("SELECT t.id FROM t WHERE EXISTS (SELECT 1 FROM unnest(t.s::int[]) e WHERE "
                       "e = 7) ORDER BY 1"),
            "4|;");
}

TEST_F(Lateral, TwoLevelsOfCorrelation) {
  // The lateral item reads the earlier item (u.y) and the enclosing query (t.n).
  EXPECT_EQ(ApplyQuery("SELECT t.id, (SELECT count(*) FROM u, LATERAL (SELECT u.y + t.n AS z) s "
                       "WHERE s.z > 10) FROM t ORDER BY 1"),
            "1|3|;2|2|;3|3|;4|0|;");
  EXPECT_EQ(ApplyQuery("SELECT t.id, (SELECT count(*) FROM u, generate_series(1, t.n) g WHERE g = "
                       "u.x) FROM t ORDER BY 1"),
            "1|4|;2|0|;3|5|;4|0|;");
  // A correlated scalar subquery inside a lateral item, over its function.
  EXPECT_EQ(ApplyQuery("SELECT t.id, s.* FROM t, LATERAL (SELECT g, (SELECT count(*) FROM u WHERE "
                       "u.x = g) c FROM generate_series(1, t.n) g) s ORDER BY 1, 2"),
            "1|1|3|;1|2|1|;3|1|3|;3|2|1|;3|3|1|;");
}

TEST_F(Lateral, FromSubqueryReadsEnclosingQuery) {
  // Not lateral, but correlated with the enclosing query (PostgreSQL allows it).
  EXPECT_EQ(ApplyQuery("SELECT t.id, (SELECT count(*) FROM (SELECT * FROM u WHERE u.x = t.id) s) "
                       "FROM t ORDER BY 1"),
            "1|3|;2|1|;3|1|;4|0|;");
  EXPECT_EQ(
      ApplyQuery("SELECT t.id FROM t WHERE EXISTS (SELECT 1 FROM u, (SELECT t.n AS m) s WHERE "
                 "u.x = s.m) ORDER BY 1"),
      "1|;3|;");
}

TEST_F(Lateral, PlanShowsTheLateralApply) {
  std::string plan = PlanToString(
      *Optimized("SELECT t.id, g FROM t LEFT JOIN LATERAL generate_series(1, t.n) g ON g > 1"));
  EXPECT_NE(plan.find("Apply lateral left bindings=[n#"), std::string::npos) << plan;
  EXPECT_NE(plan.find("TableFunction generate_series("), std::string::npos) << plan;
}

TEST_F(Lateral, NotLateralIsAPlainJoin) {
  LogicalOpPtr plan = Optimized("SELECT count(*) FROM t, LATERAL (SELECT x FROM u) s");
  EXPECT_FALSE(HasApply(*plan)) << PlanToString(*plan);
  EXPECT_EQ(Query("SELECT count(*) FROM t, LATERAL (SELECT x FROM u) s, generate_series(1, 2)"),
            "40|;");
}

TEST_F(Lateral, Errors) {
  // Without LATERAL an earlier item is not visible (PostgreSQL's 42P01).
  EXPECT_EQ(ErrorAt("SELECT * FROM t, (SELECT t.id) s"),
            "42P01 invalid reference to FROM-clause entry for table \"t\" @26");
  EXPECT_EQ(ErrorAt("SELECT * FROM t JOIN (SELECT t.id) s ON true"),
            "42P01 invalid reference to FROM-clause entry for table \"t\" @30");
  EXPECT_EQ(ErrorAt("SELECT * FROM t, (SELECT id) s"), "42703 column \"id\" does not exist @26");
  // Items to the right are never visible.
  EXPECT_EQ(ErrorAt("SELECT * FROM generate_series(1, t.n), t"),
            "42P01 missing FROM-clause entry for table \"t\" @34");
  EXPECT_EQ(ErrorAt("SELECT * FROM LATERAL (SELECT t.id) s, t"),
            "42P01 missing FROM-clause entry for table \"t\" @31");
  // RIGHT JOIN cannot be lateral (42P10).
  EXPECT_EQ(ErrorAt("SELECT * FROM t RIGHT JOIN LATERAL (SELECT t.id) s ON true"),
            "42P10 invalid reference to FROM-clause entry for table \"t\" @44");
  EXPECT_EQ(ErrorAt("SELECT * FROM t, generate_series(1, 1, 0) g"),
            "22023 step size cannot equal zero @0");
  EXPECT_EQ(ErrorAt("SELECT * FROM t, generate_series(1, t.n, t.n - t.n) g"),
            "22023 step size cannot equal zero @0");
}

}  // namespace
}  // namespace forktail
