// Date/time functions and date arithmetic against PostgreSQL 15 (psql).
#include "storage/value/timezone.h"
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
  EXPECT_EQ(Eval("timestamp '2024-01-01' - timestamp '2023-01-01'"), "365 days");
  // SECOND and EPOCH of a timestamp keep their fraction (numeric, 6 decimals).
  EXPECT_EQ(Eval("extract(second from timestamp '2024-01-01 10:00:05.25'), "
                 "extract(epoch from timestamp '2024-01-01 00:00:01.5'), "
                 "extract(epoch from date '2024-01-01'), extract(minute from timestamp '2024-01-01 "
                 "10:07')"),
            "5.250000|1704067201.500000|1704067200|7");
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
            "2024-05-01 00:00:00|2024-05-13 00:00:00|2024-05-17 10:00:00|2024-04-01 00:00:00+00");
  EXPECT_EQ(Eval("date_part('year', date '2024-05-17'), "
                 "date_part('second', timestamp '2024-05-17 10:11:12.5'), "
                 "date_part('dow', date '2024-05-19'), date_part('year', NULL::date)"),
            "2024|12.5|0|NULL");
  EXPECT_EQ(Error("SELECT date_trunc('fortnight', timestamp '2024-01-01')"),
            "22023 unit \"fortnight\" not recognized for type timestamp without time zone");
  EXPECT_EQ(TypeOf("now()"), "timestamp with time zone");
  EXPECT_EQ(TypeOf("localtimestamp"), "timestamp without time zone");
  // A date goes to timestamptz, PostgreSQL's preferred date/time type...
  EXPECT_EQ(TypeOf("date_trunc('quarter', date '2024-05-17')"), "timestamp with time zone");
  // ...but date_part(text, date) is its own function, over the date's timestamp.
  EXPECT_EQ(Error("SELECT date_part('timezone', date '2024-01-01')"),
            "0A000 unit \"timezone\" not supported for type timestamp without time zone");
  EXPECT_EQ(TypeOf("current_date"), "date");
  // One value per statement.
  EXPECT_EQ(Eval("now() = current_timestamp, now() = localtimestamp, "
                 "current_date = now()::date, now() > timestamp '2020-01-01'"),
            "t|t|t|t");
}

// The session's zone (the thread's current one while binding) decides the
// wall clock that a timestamptz's fields read; PostgreSQL 15's answers.
TEST_F(Datetime, TimestampTzInTheSessionZone) {
  datetime::ScopedTimeZone zone(datetime::TimeZone::Find("America/St_Johns"));
  EXPECT_EQ(Eval("date_part('epoch', date '2024-01-01'), "
                 "date_part('epoch', timestamptz '2024-01-01 00:00+00'), "
                 "date_part('timezone', timestamptz '2024-01-01 00:00+00'), "
                 "date_part('timezone_hour', timestamptz '2024-01-01 00:00+00'), "
                 "date_part('timezone_minute', timestamptz '2024-01-01 00:00+00'), "
                 "date_part('hour', timestamptz '2024-07-01 12:00+00')"),
            "1704067200|1704067200|-12600|-3|-30|9");
  EXPECT_EQ(Eval("date_trunc('day', timestamptz '2024-03-10 12:00+00'), "
                 "date_trunc('quarter', date '2024-05-17'), date_part('hour', date '2024-05-17')"),
            "2024-03-10 00:00:00-03:30|2024-04-01 00:00:00-02:30|0");
  EXPECT_EQ(Error("SELECT date_part('timezone', timestamp '2024-01-01')"),
            "0A000 unit \"timezone\" not supported for type timestamp without time zone");
  // Over a table the planner copies the expressions: the zone goes along.
  EXPECT_EQ(Query("SELECT d::timestamptz::text, extract(hour FROM d::timestamptz + interval '1 "
                  "hour') FROM t WHERE id = 1"),
            "2024-01-31 00:00:00-03:30|1;");
  EXPECT_EQ(Error("SELECT timestamptz '2024-01-01 00:00+00' AT TIME ZONE 'Foo/Bar'"),
            "22023 time zone \"Foo/Bar\" not recognized");
}

}  // namespace
}  // namespace forktail
