// INTERVAL values through SQL (parse, bind, plan, execute): literals, the
// operators, age, justify_*, extract and date_part, against PostgreSQL 15
// (psql, TimeZone UTC).
#include "tests/olap/expression/functions_testing.h"

namespace forktail {
namespace {

using IntervalSql = FunctionsSql;

TEST_F(IntervalSql, LiteralsAndCasts) {
  EXPECT_EQ(Eval("interval '1 year 2 months 3 days 04:05:06.5'"),
            "1 year 2 mons 3 days 04:05:06.5");
  EXPECT_EQ(Eval("interval '3' month, interval '90' day, '1.5 hours'::interval"),
            "3 mons|90 days|01:30:00");
  EXPECT_EQ(Eval("'2 days'::interval::text, interval '@ 1 day ago', interval '-00:00:01.5'"),
            "2 days|-1 days|-00:00:01.5");
  EXPECT_EQ(TypeOf("interval '1 day'"), "interval");
  EXPECT_EQ(Error("SELECT interval 'soon'"),
            "22007 invalid input syntax for type interval: \"soon\"");
  EXPECT_EQ(Error("SELECT 5::interval"), "42846 cannot cast type integer to interval");
  EXPECT_EQ(Eval("'1.23456 sec'::interval(3), interval(0) '-1.5 sec'"), "00:00:01.235|-00:00:02");
  EXPECT_EQ(Error("SELECT s::interval(3) FROM t"),
            "0A000 an interval with fields or a precision is not supported");
}

TEST_F(IntervalSql, Operators) {
  EXPECT_EQ(Eval("timestamp '2024-03-01 10:00' - timestamp '2024-01-01 08:30'"),
            "60 days 01:30:00");
  EXPECT_EQ(Eval("date '2024-03-01' - timestamp '2024-01-01 12:00'"), "59 days 12:00:00");
  EXPECT_EQ(TypeOf("timestamp '2024-01-01' - timestamp '2023-01-01'"), "interval");
  EXPECT_EQ(Eval("interval '1 day' + interval '2 hours', interval '1 day' - interval '2 hours', "
                 "- interval '1 mon 2 days'"),
            "1 day 02:00:00|1 day -02:00:00|-1 mons -2 days");
  EXPECT_EQ(Eval("interval '1 month' * 1.5, interval '1 day' * 2.5, 3 * interval '1 hour', "
                 "interval '1 mon' / 7, interval '10 days 1 hour' / 3"),
            "1 mon 15 days|2 days 12:00:00|03:00:00|4 days 06:51:25.6896|3 days 08:20:00");
  EXPECT_EQ(Error("SELECT interval '1 day' / 0"), "22012 division by zero");
  EXPECT_EQ(Error("SELECT interval '2147483647 months' + interval '1 month'"),
            "22008 interval out of range");
  // A computed interval added to a timestamp, and to a date (a timestamp).
  EXPECT_EQ(Eval("timestamp '2024-01-31' + (interval '1 month' + interval '1 day')"),
            "2024-03-01 00:00:00");
  EXPECT_EQ(
      Query("SELECT d + i * interval '1 day', d - interval '1 mon' * i FROM t ORDER BY id"),
      "2024-02-05 00:00:00|2023-08-31 00:00:00;NULL|NULL;2000-02-22 00:00:00|2000-09-29 00:00:00;");
  EXPECT_EQ(Eval("interval '1 mon' = interval '1 month', interval '1 day' < interval '25 hours', "
                 "interval '-1 day' < '0'"),
            "t|t|t");
  EXPECT_EQ(Error("SELECT interval '1 day' + 1"),
            "42883 operator does not exist: interval + integer");
}

TEST_F(IntervalSql, Functions) {
  EXPECT_EQ(Eval("age(timestamp '2024-03-15 10:00', timestamp '2023-01-31 12:30'), "
                 "age(timestamp '2023-01-31', timestamp '2024-03-15 10:00')"),
            "1 year 1 mon 14 days 21:30:00|-1 years -1 mons -15 days -10:00:00");
  EXPECT_EQ(Eval("justify_days(interval '65 days'), justify_hours(interval '50 hours'), "
                 "justify_interval(interval '1 mon -1 hour')"),
            "2 mons 5 days|2 days 02:00:00|29 days 23:00:00");
  EXPECT_EQ(Eval("extract(epoch from interval '1 day 1 hour'), extract(second from interval '1 min "
                 "5.5 sec'), extract(hour from interval '25 hours'), extract(day from interval '1 "
                 "mon 40 days'), extract(milliseconds from interval '5.123456 sec')"),
            "90000.000000|5.500000|25|40|5123.456");
  EXPECT_EQ(
      Eval("date_part('epoch', interval '1 year'), date_part('minute', interval '-1 hour -5 min')"),
      "31557600|-5");
  EXPECT_EQ(Error("SELECT extract(week from interval '1 day')"),
            "0A000 unit \"week\" not supported for type interval");
}

}  // namespace
}  // namespace forktail

namespace forktail {
namespace {

TEST_F(IntervalSql, MakeIntervalAndNamedArguments) {
  EXPECT_EQ(Eval("make_interval(days => 3), make_interval(1, 2), "
                 "make_interval(hours => 1, mins => 30, secs => 1.5), make_interval(years => 1, "
                 "weeks => 2)"),
            "3 days|1 year 2 mons|01:30:01.5|1 year 14 days");
  EXPECT_EQ(Error("SELECT make_interval(days => 1, days => 2)"),
            "42601 argument name \"days\" used more than once");
  EXPECT_EQ(Error("SELECT make_interval(days => 1, 2)"),
            "42601 positional argument cannot follow named argument");
  // Elsewhere a name is refused, never dropped.
  EXPECT_EQ(Error("SELECT lpad(string => 'x', 3)"),
            "0A000 named arguments (name => value) are not supported for function lpad");
}

}  // namespace
}  // namespace forktail
