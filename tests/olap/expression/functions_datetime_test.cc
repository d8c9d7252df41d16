// Date/time functions and date arithmetic against PostgreSQL 15 (psql).
#include "tests/olap/expression/functions_testing.h"

namespace forktail {
namespace {

using Datetime = FunctionsSql;

TEST_F(Datetime, DateArithmeticTypes) {
  // date +/- interval is a timestamp, date - date an integer, date +/- int a date.
  EXPECT_EQ(TypeOf("date '2024-01-31' + interval '1 month'"), "timestamp without time zone");
  EXPECT_EQ(Eval("date '2024-01-31' + interval '1 month', date '2024-03-01' - interval '1' day"),
            "2024-02-29 00:00:00|2024-02-29 00:00:00");
  EXPECT_EQ(TypeOf("date '2024-03-01' - date '2024-01-01'"), "integer");
  EXPECT_EQ(Eval("date '2024-03-01' - date '2024-01-01', date '2024-01-31' + 1, "
                 "1 + date '2024-01-31', date '2024-01-01' - 1"),
            "60|2024-02-01|2024-02-01|2023-12-31");
  EXPECT_EQ(Query("SELECT d + i, d - date '2000-01-01', d - i FROM t ORDER BY id"),
            "2024-02-05|8796|2024-01-26;NULL|NULL|NULL;2000-02-22|59|2000-03-07;");
  EXPECT_EQ(Error("SELECT timestamp '2024-01-01' - timestamp '2023-01-01'"),
            "0A000 timestamp - timestamp is not supported (interval values are not supported)");
  EXPECT_EQ(Error("SELECT date '9999-12-31' + 1"), "22008 date out of range");
  EXPECT_EQ(Error("SELECT date '2024-01-01' + 1.5"),
            "42883 operator does not exist: date + numeric");
}

TEST_F(Datetime, DateColumnAgainstTimestampBound) {
  // The scan sees a DATE bound (zone maps, push-down), not a per-row cast.
  BoundStatement b = BindSql("SELECT id FROM t WHERE d <= date '2024-03-01' - interval '30' day");
  std::string plan = PlanToString(*Optimize(std::move(b.plan), catalog_), false);
  EXPECT_NE(plan.find("<= date '2024-01-31'"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("CAST"), std::string::npos) << plan;
  // The constant folds back to a DATE bound (exact), so the result is the same
  // whether or not the bound is at midnight.
  EXPECT_EQ(Query("SELECT id FROM t WHERE d <= date '2024-03-01' - interval '30' day ORDER BY id"),
            "1;3;");
  EXPECT_EQ(Query("SELECT id FROM t WHERE d < timestamp '2024-01-31 00:00:01' ORDER BY id"),
            "1;3;");
  EXPECT_EQ(Query("SELECT id FROM t WHERE d > timestamp '2024-01-30 23:00:00' ORDER BY id"), "1;");
  EXPECT_EQ(Query("SELECT id FROM t WHERE d >= timestamp '2024-01-31 00:00:01' ORDER BY id"), "");
  EXPECT_EQ(Query("SELECT id FROM t WHERE d = timestamp '2024-01-31 12:00:00' ORDER BY id"), "");
  EXPECT_EQ(Query("SELECT id FROM t WHERE timestamp '2024-01-31' = d ORDER BY id"), "1;");
}

TEST_F(Datetime, TruncPartNow) {
  EXPECT_EQ(Eval("date_trunc('month', timestamp '2024-05-17 10:11:12'), "
                 "date_trunc('week', timestamp '2024-05-17 10:11:12'), "
                 "date_trunc('HOUR', timestamp '2024-05-17 10:11:12'), "
                 "date_trunc('quarter', date '2024-05-17')"),
            "2024-05-01 00:00:00|2024-05-13 00:00:00|2024-05-17 10:00:00|2024-04-01 00:00:00");
  EXPECT_EQ(Eval("date_part('year', date '2024-05-17'), "
                 "date_part('second', timestamp '2024-05-17 10:11:12.5'), "
                 "date_part('dow', date '2024-05-19'), date_part('year', NULL::date)"),
            "2024|12.5|0|NULL");
  EXPECT_EQ(Error("SELECT date_trunc('fortnight', timestamp '2024-01-01')"),
            "22023 unit \"fortnight\" not recognized for type timestamp without time zone");
  EXPECT_EQ(TypeOf("now()"), "timestamp without time zone");
  EXPECT_EQ(TypeOf("current_date"), "date");
  // One value per statement.
  EXPECT_EQ(Eval("now() = current_timestamp, now() = localtimestamp, "
                 "current_date = now()::date, now() > timestamp '2020-01-01'"),
            "t|t|t|t");
}

}  // namespace
}  // namespace forktail
