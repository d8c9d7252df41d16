// 38-digit DECIMALs end to end in every scheduler mode: SUM(decimal) is
// DECIMAL(38,s) and no longer overflows past 18 digits (TPC-H Q01 at SF10),
// AVG, MIN/MAX, GROUP BY / ORDER BY / JOIN on wide values, casts at the
// 22003 edges, wide table columns refused (0A000). Table d is join_testing.h's
// (m DECIMAL(10,2): 2.25 2.25 1.00 NULL 3.10 3.10 0 NULL). Expected values:
// PostgreSQL 15 (its numeric prints what our DECIMAL(38,s) prints, except
// AVG, where PostgreSQL keeps 16 digits and we keep 6 fractional ones).
#include "tests/olap/plan/planner/join_testing.h"

namespace forktail::jointest {
namespace {

using DecimalWide = JoinSqlTest;

TEST_F(DecimalWide, SumNeedsTwentyDigits) {
  // 11.70 * 10^18: PostgreSQL's 11700000000000000000.00.
  EXPECT_EQ(Query("SELECT sum(m * 1000000000000000000) FROM d"), "11700000000000000000.00|;");
  EXPECT_EQ(Query("SELECT sum(m), avg(m), avg(m::DECIMAL(25,2)) FROM d"),
            "11.70|1.950000|1.950000|;");
  EXPECT_EQ(
      Query("SELECT g, sum(m * 1000000000000000000), min(m::DECIMAL(30,2) * 1e0::DECIMAL(1,0)),"
            " max(m::DECIMAL(30,2)) FROM d GROUP BY g ORDER BY g"),
      "1|5500000000000000000.00|1.00|2.25|;2|6200000000000000000.00|0.00|3.10|;"
      "3|NULL|NULL|NULL|;");
  // A sum of 19-digit narrow values overflowed int64 before.
  EXPECT_EQ(Query("SELECT sum(x) FROM (SELECT 999999999999999999::DECIMAL(18,0) AS x FROM d) t"),
            "7999999999999999992|;");
}

TEST_F(DecimalWide, GroupOrderJoinOnWideKeys) {
  EXPECT_EQ(Query("SELECT m::DECIMAL(30,2) * 10000000000000000000 AS k, count(*) FROM d "
                  "GROUP BY k ORDER BY k DESC NULLS LAST"),
            "31000000000000000000.00|2|;22500000000000000000.00|2|;10000000000000000000.00|1|;"
            "0.00|1|;NULL|2|;");
  EXPECT_EQ(Query("SELECT count(*), sum(a.m) FROM d a JOIN d b "
                  "ON a.m::DECIMAL(30,2) * 10000000000000000000 = "
                  "b.m::DECIMAL(25,2) * 10000000000000000000"),
            "10|22.40|;");
  EXPECT_EQ(Query("SELECT count(DISTINCT m::DECIMAL(20,2)), sum(DISTINCT m::DECIMAL(20,2)) FROM d"),
            "4|6.35|;");
}

TEST_F(DecimalWide, ArithmeticTypesAndEdges) {
  // DECIMAL(15,2) * DECIMAL(16,2) stays narrow (DuckDB: DECIMAL(18,4)); a
  // wide operand makes a wide result.
  EXPECT_EQ(Query("SELECT 12345678901234567890.12 * 2, 99999999999999999999 + 1, "
                  "12345678901234567890::DECIMAL(20,0) / 3, -7::DECIMAL(25,0) % 3"),
            "24691357802469135780.24|100000000000000000000|4115226300411522630.000000|-1|;");
  EXPECT_EQ(Query("SELECT abs(-12345678901234567890.5), round(12345678901234567890.5), "
                  "trunc(-12345678901234567890.57, 1), ceil(12345678901234567890.1), "
                  "floor(-12345678901234567890.1), sign(-12345678901234567890.1)"),
            "12345678901234567890.5|12345678901234567891|-12345678901234567890.5|"
            "12345678901234567891|-12345678901234567891|-1|;");
  EXPECT_EQ(Error("SELECT 99999999999999999999999999999999999999 + 1"),
            "22003 numeric field overflow");
  EXPECT_EQ(Error("SELECT 10000000000000000000::DECIMAL(20,0) * 10000000000000000000"),
            "22003 numeric field overflow");
}

TEST_F(DecimalWide, Casts) {
  EXPECT_EQ(Query("SELECT 12345678901234567890.5::DOUBLE PRECISION, "
                  "'-98765432109876543210.25'::DECIMAL(22,2), 9223372036854775807::DECIMAL(21,2), "
                  "12345678901234567.5::DECIMAL(25,1)::BIGINT, 12345678901234567890.5::TEXT"),
            "1.23456789e+19|-98765432109876543210.25|9223372036854775807.00|"
            "12345678901234568|'12345678901234567890.5'|;");
  EXPECT_EQ(Error("SELECT 12345678901234567890.5::BIGINT"), "22003 bigint out of range");
  EXPECT_EQ(Error("SELECT 12345678901234567890.5::DECIMAL(18,1)"), "22003 numeric field overflow");
  EXPECT_EQ(Error("SELECT '123456789012345678901'::DECIMAL(20,0)"),
            "22003 numeric field overflow: a field with precision 20, scale 0 must round to an "
            "absolute value less than 10^20 @8");
}

TEST_F(DecimalWide, WideTableColumnsAreNotSupportedYet) {
  EXPECT_EQ(Error("CREATE TABLE w (x NUMERIC(30,2))"),
            "0A000 numeric precision 30 is not supported for a table column (at most 18 digits) "
            "@19");
}

}  // namespace
}  // namespace forktail::jointest
