// FULL [OUTER] JOIN end to end in every scheduler mode: ON with equi keys,
// residuals and computed keys, USING (merged column COALESCE(l.k, r.k)),
// ON TRUE / FALSE, NULL keys (never match), duplicates on both sides, empty
// sides, WHERE above a full join (null-rejecting conditions reduce it to
// LEFT / INNER, others stay above), join reordering around it, and
// PostgreSQL's 0A000 for conditions without a hash-joinable equality.
// Expected rows: PostgreSQL 15 on the same tables (tests/olap/plan/planner/join_testing.h).
#include "tests/olap/plan/planner/join_testing.h"

namespace forktail::jointest {
namespace {

using FullJoin = JoinSqlTest;

TEST_F(FullJoin, OnEquiKeyNullsAndDuplicates) {
  EXPECT_EQ(Query("SELECT * FROM a FULL JOIN b ON a.k = b.k ORDER BY 1, 2, 4, 5"),
            "1|10|'a1'|NULL|NULL|NULL|;2|20|'a2'|2|200|'b2'|;2|20|'a2'|2|201|'b2b'|;"
            "2|21|'a2b'|2|200|'b2'|;2|21|'a2b'|2|201|'b2b'|;4|40|'a4'|NULL|NULL|NULL|;"
            "NULL|30|'anull'|NULL|NULL|NULL|;NULL|NULL|NULL|3|300|'b3'|;"
            "NULL|NULL|NULL|5|500|'b5'|;NULL|NULL|NULL|NULL|400|'bnull'|;");
  EXPECT_EQ(JoinKinds("SELECT * FROM a FULL JOIN b ON a.k = b.k"), "full");
  // Text keys, nothing matches: every row of both sides, padded.
  EXPECT_EQ(Query("SELECT a.s, b.s FROM a FULL JOIN b ON a.s = b.s ORDER BY 1, 2"),
            "'a1'|NULL|;'a2'|NULL|;'a2b'|NULL|;'a4'|NULL|;'anull'|NULL|;NULL|'b2'|;"
            "NULL|'b2b'|;NULL|'b3'|;NULL|'b5'|;NULL|'bnull'|;");
}

TEST_F(FullJoin, UsingMergesWithCoalesce) {
  EXPECT_EQ(Query("SELECT * FROM a FULL OUTER JOIN b USING (k) ORDER BY 1, 2, 4"),
            "1|10|'a1'|NULL|NULL|;2|20|'a2'|200|'b2'|;2|20|'a2'|201|'b2b'|;"
            "2|21|'a2b'|200|'b2'|;2|21|'a2b'|201|'b2b'|;3|NULL|NULL|300|'b3'|;"
            "4|40|'a4'|NULL|NULL|;5|NULL|NULL|500|'b5'|;NULL|30|'anull'|NULL|NULL|;"
            "NULL|NULL|NULL|400|'bnull'|;");
  EXPECT_EQ(Query("SELECT k, count(*), sum(x), sum(y) FROM a FULL JOIN b USING (k) GROUP BY k "
                  "ORDER BY k"),
            "1|1|10|NULL|;2|4|82|802|;3|1|NULL|300|;4|1|40|NULL|;5|1|NULL|500|;NULL|2|30|400|;");
  // A WHERE on the merged column reads both sides: it stays above the join.
  EXPECT_EQ(Query("SELECT k, x, y FROM a FULL JOIN b USING (k) WHERE k = 2 OR k IS NULL "
                  "ORDER BY 1, 2, 3"),
            "2|20|200|;2|20|201|;2|21|200|;2|21|201|;NULL|30|NULL|;NULL|NULL|400|;");
  // Nested, INTEGER merged with BIGINT.
  EXPECT_EQ(Query("SELECT k, x, y, w FROM (a FULL JOIN b USING (k)) FULL JOIN c USING (k) "
                  "ORDER BY 1, 2, 3, 4"),
            "1|10|NULL|NULL|;2|20|200|7|;2|20|201|7|;2|21|200|7|;2|21|201|7|;3|NULL|300|8|;"
            "4|40|NULL|NULL|;5|NULL|500|NULL|;NULL|30|NULL|NULL|;NULL|NULL|400|NULL|;"
            "NULL|NULL|NULL|9|;");
}

TEST_F(FullJoin, Residuals) {
  // A pair must pass the residual; rows of either side without one are padded.
  EXPECT_EQ(Query("SELECT a.x, b.y FROM a FULL JOIN b ON a.k = b.k AND a.x + 185 < b.y "
                  "ORDER BY 1, 2"),
            "10|NULL|;20|NULL|;21|NULL|;30|NULL|;40|NULL|;NULL|200|;NULL|201|;NULL|300|;"
            "NULL|400|;NULL|500|;");
  // A condition on one side only is no filter of that side (both preserved).
  EXPECT_EQ(Query("SELECT a.x, b.y FROM a FULL JOIN b ON a.k = b.k AND a.x > 20 ORDER BY 1, 2"),
            "10|NULL|;20|NULL|;21|200|;21|201|;30|NULL|;40|NULL|;NULL|300|;NULL|400|;"
            "NULL|500|;");
  // A computed key.
  EXPECT_EQ(Query("SELECT a.x, b.y FROM a FULL JOIN b ON a.k + 1 = b.k ORDER BY 1, 2"),
            "10|200|;10|201|;20|300|;21|300|;30|NULL|;40|500|;NULL|400|;");
}

TEST_F(FullJoin, EmptySidesAndConstantConditions) {
  EXPECT_EQ(Query("SELECT a.x, e.z FROM a FULL JOIN e ON a.k = e.k ORDER BY 1"),
            "10|NULL|;20|NULL|;21|NULL|;30|NULL|;40|NULL|;");
  EXPECT_EQ(Query("SELECT e.z, b.y FROM e FULL JOIN b ON e.k = b.k ORDER BY 2"),
            "NULL|200|;NULL|201|;NULL|300|;NULL|400|;NULL|500|;");
  EXPECT_EQ(Query("SELECT count(*) FROM e FULL JOIN e e2 ON e.k = e2.k"), "0|;");
  EXPECT_EQ(Query("SELECT count(*), count(a.x), count(b.y) FROM a FULL JOIN b ON true"),
            "25|25|25|;");
  EXPECT_EQ(Query("SELECT count(*), count(a.x), count(b.y) FROM a FULL JOIN b ON false"),
            "10|5|5|;");
  EXPECT_EQ(Query("SELECT a.x, e.z FROM a FULL JOIN e ON true ORDER BY 1"),
            "10|NULL|;20|NULL|;21|NULL|;30|NULL|;40|NULL|;");
}

TEST_F(FullJoin, GroupedSides) {
  EXPECT_EQ(Query("SELECT p.k, p.n, q.n FROM (SELECT k, count(*) AS n FROM a GROUP BY k) p "
                  "FULL JOIN (SELECT k, count(*) AS n FROM b GROUP BY k) q ON p.k = q.k "
                  "ORDER BY 1, 2, 3"),
            "1|1|NULL|;2|2|2|;4|1|NULL|;NULL|1|NULL|;NULL|NULL|1|;NULL|NULL|1|;NULL|NULL|1|;");
}

TEST_F(FullJoin, WhereAboveReducesOnlyWhenNullRejecting) {
  const std::string left = "SELECT a.x, b.y FROM a FULL JOIN b ON a.k = b.k WHERE a.x > 15";
  EXPECT_EQ(JoinKinds(left), "left");
  EXPECT_EQ(Query(left + " ORDER BY 1, 2"), "20|200|;20|201|;21|200|;21|201|;30|NULL|;40|NULL|;");
  const std::string right = "SELECT a.x, b.y FROM a FULL JOIN b ON a.k = b.k WHERE b.y < 450";
  EXPECT_EQ(JoinKinds(right), "left");
  EXPECT_EQ(Query(right + " ORDER BY 1, 2"),
            "20|200|;20|201|;21|200|;21|201|;NULL|300|;NULL|400|;");
  const std::string both =
      "SELECT a.x, b.y FROM a FULL JOIN b ON a.k = b.k WHERE a.x > 15 AND b.y > 0";
  EXPECT_EQ(JoinKinds(both), "inner");
  EXPECT_EQ(Query(both + " ORDER BY 1, 2"), "20|200|;20|201|;21|200|;21|201|;");
  // IS NULL keeps the padded rows: the join stays FULL, the filter above it.
  const std::string unmatched =
      "SELECT a.x, b.y FROM a FULL JOIN b ON a.k = b.k WHERE a.k IS NULL OR b.k IS NULL";
  EXPECT_EQ(JoinKinds(unmatched), "full");
  EXPECT_EQ(Query(unmatched + " ORDER BY 1, 2"),
            "10|NULL|;30|NULL|;40|NULL|;NULL|300|;NULL|400|;NULL|500|;");
}

TEST_F(FullJoin, JoinOrderKeepsItAsABarrier) {
  EXPECT_EQ(Query("SELECT a.x, b.y, c.w FROM a FULL JOIN b ON a.k = b.k JOIN c ON c.k = b.k "
                  "ORDER BY 1, 2, 3"),
            "20|200|7|;20|201|7|;21|200|7|;21|201|7|;NULL|300|8|;");
  EXPECT_EQ(Query("SELECT a.x, b.y, c.w FROM a JOIN c ON a.k = c.k FULL JOIN b ON a.k = b.k "
                  "ORDER BY 1, 2, 3"),
            "20|200|7|;20|201|7|;21|200|7|;21|201|7|;NULL|300|NULL|;NULL|400|NULL|;"
            "NULL|500|NULL|;");
  EXPECT_EQ(JoinKinds("SELECT a.x, b.y, c.w FROM a JOIN c ON a.k = c.k FULL JOIN b ON a.k = b.k "
                      "WHERE b.y IS NULL OR b.y > 0"),
            "full inner");
}

TEST_F(FullJoin, NonHashableConditionIs0A000) {
  const std::string msg =
      "0A000 FULL JOIN is only supported with merge-joinable or hash-joinable join conditions";
  EXPECT_EQ(Error("SELECT a.x, b.y FROM a FULL JOIN b ON a.k < b.k"), msg);
  EXPECT_EQ(Error("SELECT a.x, b.y FROM a FULL JOIN b ON a.k = b.k OR a.x = b.y"), msg);
}

}  // namespace
}  // namespace forktail::jointest
