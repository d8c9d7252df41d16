// SUM / AVG / COUNT / MIN / MAX (DISTINCT x) end to end in every scheduler
// mode (the group table keeps one set of x per group and aggregate; threads'
// tables merge their sets): INTEGER, DOUBLE (-0 and 0 are one value) and
// DECIMAL inputs, GROUP BY with duplicates and NULLs, DISTINCT beside plain
// aggregates, FILTER, HAVING, empty input. Expected rows: PostgreSQL 15
// (tests/olap/plan/planner/join_testing.h); PostgreSQL's AVG(int) is numeric, Forktail's
// DOUBLE, so the queries compare it as such.
#include "tests/olap/plan/planner/join_testing.h"

namespace forktail::jointest {
namespace {

using DistinctAgg = JoinSqlTest;

TEST_F(DistinctAgg, GroupedIntegers) {
  EXPECT_EQ(Query("SELECT g, sum(DISTINCT x), avg(DISTINCT x), count(DISTINCT x), "
                  "min(DISTINCT x), max(DISTINCT x), sum(x) FROM d GROUP BY g ORDER BY g"),
            "1|3|1.5|2|1|2|4|;2|11|5.5|2|5|6|16|;3|NULL|NULL|0|NULL|NULL|NULL|;");
  EXPECT_EQ(Query("SELECT sum(DISTINCT x), avg(DISTINCT x), count(DISTINCT x) FROM d"),
            "14|3.5|4|;");
  EXPECT_EQ(Query("SELECT g FROM d GROUP BY g HAVING sum(DISTINCT x) > 2 ORDER BY g"), "1|;2|;");
}

// Only DISTINCT aggregates of one column: planned as plain aggregates over
// the distinct (g, x) pairs (optimizer_distinct_aggregates.cc); group 3,
// whose x are all NULL, still counts 0.
TEST_F(DistinctAgg, OverOneColumnBecomeAggregatesOfDistinctPairs) {
  const std::string sql =
      "SELECT g, count(DISTINCT x), sum(DISTINCT x), avg(DISTINCT x) FROM d GROUP BY g ORDER BY g";
  EXPECT_EQ(Query(sql), "1|2|3|1.5|;2|2|11|5.5|;3|0|NULL|NULL|;");
  LogicalOpPtr plan = Optimized(sql);
  const LogicalOp* op = plan.get();
  while (op->kind != LogicalOpKind::kAggregate) op = op->children.at(0).get();
  ASSERT_EQ(op->aggregates.size(), 3u);
  EXPECT_EQ(op->aggregates[0].kind, AggKind::kCount);
  EXPECT_EQ(op->aggregates[1].kind, AggKind::kSum);
  EXPECT_EQ(op->aggregates[2].kind, AggKind::kAvg);
  const LogicalOp& pairs = *op->children.at(0);
  EXPECT_EQ(pairs.kind, LogicalOpKind::kAggregate);
  EXPECT_EQ(pairs.group_keys.size(), 2u);
  EXPECT_TRUE(pairs.aggregates.empty());
  EXPECT_EQ(Query("SELECT count(DISTINCT x), sum(DISTINCT x) FROM d WHERE x > 100"), "0|NULL|;");
}

TEST_F(DistinctAgg, DoubleAndDecimal) {
  EXPECT_EQ(Query("SELECT g, sum(DISTINCT f), avg(DISTINCT f), sum(DISTINCT m), "
                  "avg(DISTINCT m) FROM d GROUP BY g ORDER BY g"),
            "1|1.5|0.75|3.25|1.625000|;2|2.5|2.5|3.10|1.550000|;3|NULL|NULL|NULL|NULL|;");
}

TEST_F(DistinctAgg, EmptyInputAndFilter) {
  EXPECT_EQ(Query("SELECT sum(DISTINCT x), avg(DISTINCT x) FROM d WHERE g > 10"), "NULL|NULL|;");
  EXPECT_EQ(Query("SELECT g, sum(DISTINCT x) FILTER (WHERE x > 1) FROM d GROUP BY g ORDER BY g"),
            "1|2|;2|11|;3|NULL|;");
}

TEST_F(DistinctAgg, OverAFullJoin) {
  EXPECT_EQ(Query("SELECT sum(DISTINCT k), count(DISTINCT k), sum(k) FROM a FULL JOIN b USING (k)"),
            "15|5|21|;");
}

TEST_F(DistinctAgg, TextIs42883) {
  EXPECT_EQ(Error("SELECT sum(DISTINCT s) FROM a"), "42883 function sum(text) does not exist @8");
}

}  // namespace
}  // namespace forktail::jointest
