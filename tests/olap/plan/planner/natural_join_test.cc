// NATURAL [INNER | LEFT | RIGHT | FULL] JOIN and USING end to end in every
// scheduler mode: USING over the column names both sides show (none: a cross
// join), merged columns first in *, the merged column of LEFT / RIGHT / FULL
// as PostgreSQL (left's, right's, COALESCE), qualified copies still
// reachable, and PostgreSQL's USING errors (42701 / 42702 / 42703 / 42804,
// no position). Expected rows: PostgreSQL 15 (tests/olap/plan/planner/join_testing.h).
#include "tests/olap/plan/planner/join_testing.h"

namespace forktail::jointest {
namespace {

using NaturalJoin = JoinSqlTest;

TEST_F(NaturalJoin, EveryKind) {
  // a and b share k and s: no row has both equal.
  EXPECT_EQ(Query("SELECT * FROM a NATURAL JOIN b"), "");
  EXPECT_EQ(Query("SELECT * FROM a NATURAL JOIN (SELECT k, y FROM b) bb ORDER BY 1, 2, 4"),
            "2|20|'a2'|200|;2|20|'a2'|201|;2|21|'a2b'|200|;2|21|'a2b'|201|;");
  EXPECT_EQ(Query("SELECT * FROM a NATURAL LEFT JOIN (SELECT k, y FROM b) bb ORDER BY 1, 2, 4"),
            "1|10|'a1'|NULL|;2|20|'a2'|200|;2|20|'a2'|201|;2|21|'a2b'|200|;2|21|'a2b'|201|;"
            "4|40|'a4'|NULL|;NULL|30|'anull'|NULL|;");
  EXPECT_EQ(Query("SELECT * FROM a NATURAL RIGHT JOIN (SELECT k, y FROM b) bb ORDER BY 1, 2, 4"),
            "2|20|'a2'|200|;2|20|'a2'|201|;2|21|'a2b'|200|;2|21|'a2b'|201|;3|NULL|NULL|300|;"
            "5|NULL|NULL|500|;NULL|NULL|NULL|400|;");
  // Two merged columns (k, s), first and in the left's order.
  EXPECT_EQ(Query("SELECT * FROM a NATURAL FULL JOIN b ORDER BY 1, 2, 3, 4"),
            "1|'a1'|10|NULL|;2|'a2'|20|NULL|;2|'a2b'|21|NULL|;2|'b2'|NULL|200|;"
            "2|'b2b'|NULL|201|;3|'b3'|NULL|300|;4|'a4'|40|NULL|;5|'b5'|NULL|500|;"
            "NULL|'anull'|30|NULL|;NULL|'bnull'|NULL|400|;");
}

TEST_F(NaturalJoin, NoCommonColumnIsACrossJoin) {
  EXPECT_EQ(Query("SELECT * FROM a NATURAL INNER JOIN (SELECT 1 AS z) t ORDER BY 2"),
            "1|10|'a1'|1|;2|20|'a2'|1|;2|21|'a2b'|1|;NULL|30|'anull'|1|;4|40|'a4'|1|;");
  EXPECT_EQ(Query("SELECT * FROM e NATURAL FULL JOIN (SELECT 1 AS q) t"), "NULL|NULL|1|;");
}

TEST_F(NaturalJoin, ChainsAndMergedColumns) {
  EXPECT_EQ(Query("SELECT * FROM a NATURAL JOIN b NATURAL JOIN c"), "");
  // The left side's merged k (COALESCE of a FULL JOIN) joins c.k (BIGINT).
  EXPECT_EQ(Query("SELECT * FROM (a NATURAL FULL JOIN (SELECT k, y FROM b) bb) NATURAL JOIN c "
                  "ORDER BY 1, 2, 4"),
            "2|20|'a2'|200|7|;2|20|'a2'|201|7|;2|21|'a2b'|200|7|;2|21|'a2b'|201|7|;"
            "3|NULL|NULL|300|8|;");
  EXPECT_EQ(Query("SELECT a.k, bb.k, k FROM a NATURAL FULL JOIN (SELECT k, y FROM b) bb "
                  "ORDER BY 3, 1, 2"),
            "1|NULL|1|;2|2|2|;2|2|2|;2|2|2|;2|2|2|;NULL|3|3|;4|NULL|4|;NULL|5|5|;"
            "NULL|NULL|NULL|;NULL|NULL|NULL|;");
  // t.* lists t's own copy of a merged column.
  EXPECT_EQ(Query("SELECT a.*, bb.* FROM a NATURAL RIGHT JOIN (SELECT k, y FROM b) bb "
                  "ORDER BY 4, 5, 2"),
            "2|20|'a2'|2|200|;2|21|'a2b'|2|200|;2|20|'a2'|2|201|;2|21|'a2b'|2|201|;"
            "NULL|NULL|NULL|3|300|;NULL|NULL|NULL|5|500|;NULL|NULL|NULL|NULL|400|;");
}

TEST_F(NaturalJoin, UsingMergedColumnOfLeftAndRight) {
  EXPECT_EQ(Query("SELECT k FROM a RIGHT JOIN b USING (k) ORDER BY 1"), "2|;2|;2|;2|;3|;5|;NULL|;");
  EXPECT_EQ(Query("SELECT k FROM a LEFT JOIN b USING (k) ORDER BY 1"), "1|;2|;2|;2|;2|;4|;NULL|;");
}

TEST_F(NaturalJoin, PostgresErrors) {
  EXPECT_EQ(Error("SELECT * FROM a FULL JOIN b USING (zz)"),
            "42703 column \"zz\" specified in USING clause does not exist in left table");
  EXPECT_EQ(Error("SELECT * FROM a FULL JOIN b USING (x)"),
            "42703 column \"x\" specified in USING clause does not exist in right table");
  EXPECT_EQ(Error("SELECT * FROM a JOIN b USING (k, k)"),
            "42701 column name \"k\" appears more than once in USING clause");
  EXPECT_EQ(Error("SELECT * FROM a CROSS JOIN b NATURAL JOIN c"),
            "42702 common column name \"k\" appears more than once in left table");
  EXPECT_EQ(Error("SELECT * FROM a JOIN (SELECT 'x'::text AS k) t USING (k)"),
            "42804 JOIN/USING types integer and text cannot be matched");
}

}  // namespace
}  // namespace forktail::jointest
