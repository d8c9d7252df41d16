// storage/value/interval.h: the byte encoding (round trip, order) and the
// arithmetic, with PostgreSQL 15's answers.
#include "storage/value/interval.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <vector>

#include "storage/error.h"
#include "storage/value/value.h"

namespace forktail {
namespace {

using datetime::FormatInterval;
using datetime::Interval;
using datetime::ParseInterval;

std::string F(const Interval& iv) { return FormatInterval(iv); }
Interval P(const char* text) { return ParseInterval(text); }

int64_t Ts(const char* text) { return datetime::ParseTimestamp(text); }

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const DbError& e) {
    return std::string(e.sqlstate()) + " " + e.what();
  }
  return "no error";
}

TEST(Interval, EncodingRoundTripsEdgeValues) {
  constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();
  constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();
  constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
  constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
  for (Interval iv :
       {Interval{}, Interval{1, 0, 0}, Interval{0, -1, 5}, Interval{kI32Max, kI32Max, kI64Max},
        Interval{kI32Min, kI32Min, kI64Min}, Interval{-7, 30, -1}}) {
    std::string bytes = interval::Encode(iv);
    ASSERT_EQ(bytes.size(), interval::kEncodedBytes);
    EXPECT_EQ(interval::Decode(bytes), iv) << F(iv);
  }
}

TEST(Interval, BytesOrderAsSpans) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int32_t> months(-1000, 1000), days(-40000, 40000);
  std::uniform_int_distribution<int64_t> micros(-int64_t{1} << 50, int64_t{1} << 50);
  std::vector<Interval> values;
  for (int i = 0; i < 2000; ++i) values.push_back(Interval{months(rng), days(rng), micros(rng)});
  values.push_back(P("1 mon"));
  values.push_back(P("30 days"));
  values.push_back(P("-1 day"));
  for (size_t i = 0; i + 1 < values.size(); ++i) {
    const Interval &a = values[i], &b = values[i + 1];
    const int bytes = interval::Encode(a).compare(interval::Encode(b));
    const __int128 sa = interval::Span(a), sb = interval::Span(b);
    if (sa != sb) {
      EXPECT_EQ(bytes < 0, sa < sb) << F(a) << " vs " << F(b);
    }
  }
  // Equal spans with different fields sort next to each other, days first.
  EXPECT_LT(interval::Encode(P("30 days")), interval::Encode(P("1 mon")));
  EXPECT_LT(interval::Encode(P("1 mon")), interval::Encode(P("30 days 00:00:00.000001")));
}

TEST(Interval, ValueTextAndCasts) {
  Value v = Value::Parse(Type::Interval(), "1 year 2 months 3 days 04:05:06.5");
  EXPECT_EQ(v.ToString(), "1 year 2 mons 3 days 04:05:06.5");
  EXPECT_EQ(v.CastTo(Type::Text()).GetString(), "1 year 2 mons 3 days 04:05:06.5");
  EXPECT_EQ(Value::Text("-1 days +02:03").CastTo(Type::Interval()).ToString(), "-1 days +02:03:00");
  EXPECT_EQ(ErrorOf([] { Value::Integer(3).CastTo(Type::Interval()); }),
            "42846 cannot cast type integer to interval");
  EXPECT_EQ(Value::Parse(Type::Interval(), "1 mon").Hash(),
            Value::Parse(Type::Interval(), "1 month").Hash());
}

TEST(Interval, ArithmeticAsPostgres) {
  EXPECT_EQ(F(interval::Add(P("1 day"), P("2 hours"))), "1 day 02:00:00");
  EXPECT_EQ(F(interval::Subtract(P("1 day"), P("2 hours"))), "1 day -02:00:00");
  EXPECT_EQ(F(interval::Negate(P("1 mon 2 days"))), "-1 mons -2 days");
  EXPECT_EQ(F(interval::Multiply(P("1 month"), 1.5)), "1 mon 15 days");
  EXPECT_EQ(F(interval::Multiply(P("1 day"), 2.5)), "2 days 12:00:00");
  EXPECT_EQ(F(interval::Multiply(P("1 hour"), 3)), "03:00:00");
  EXPECT_EQ(F(interval::Divide(P("1 mon"), 7)), "4 days 06:51:25.6896");
  EXPECT_EQ(F(interval::Divide(P("10 days 1 hour"), 3)), "3 days 08:20:00");
  EXPECT_EQ(ErrorOf([] { interval::Divide(P("1 day"), 0); }), "22012 division by zero");
  EXPECT_EQ(ErrorOf([] { interval::Add(P("2147483647 months"), P("1 month")); }),
            "22008 interval out of range");
  EXPECT_EQ(ErrorOf([] { interval::Multiply(P("1 year"), 1e12); }), "22008 interval out of range");
}

TEST(Interval, DifferencesAndAge) {
  EXPECT_EQ(F(interval::Between(Ts("2024-03-01 10:00"), Ts("2024-01-01 08:30"))),
            "60 days 01:30:00");
  EXPECT_EQ(F(interval::Between(Ts("2024-01-01"), Ts("2024-03-01 10:00"))), "-60 days -10:00:00");
  EXPECT_EQ(F(interval::Age(Ts("2024-03-15 10:00"), Ts("2023-01-31 12:30"))),
            "1 year 1 mon 14 days 21:30:00");
  EXPECT_EQ(F(interval::Age(Ts("2023-01-31"), Ts("2024-03-15 10:00"))),
            "-1 years -1 mons -15 days -10:00:00");
  EXPECT_EQ(F(interval::Age(Ts("2024-03-01"), Ts("2024-01-31"))), "1 mon 1 day");
  EXPECT_EQ(F(interval::Age(Ts("2024-01-01"), Ts("2024-01-01"))), "00:00:00");
}

TEST(Interval, Justify) {
  EXPECT_EQ(F(interval::JustifyDays(P("65 days"))), "2 mons 5 days");
  EXPECT_EQ(F(interval::JustifyHours(P("50 hours"))), "2 days 02:00:00");
  EXPECT_EQ(F(interval::JustifyInterval(P("1 mon -1 hour"))), "29 days 23:00:00");
  EXPECT_EQ(F(interval::JustifyHours(P("-1 day 50 hours"))), "1 day 02:00:00");
}

TEST(Interval, Parts) {
  auto part = [](const char* field, const char* iv) {
    interval::IntervalPart p = interval::Part(field, P(iv));
    return Value::Decimal(p.scaled, 38, p.scale).ToString();
  };
  EXPECT_EQ(part("epoch", "1 day 1 hour"), "90000.000000");
  EXPECT_EQ(part("epoch", "1 year 1 mon"), "34149600.000000");
  EXPECT_EQ(part("second", "1 min 5.5 sec"), "5.500000");
  EXPECT_EQ(part("hour", "25 hours"), "25");
  EXPECT_EQ(part("day", "1 mon 40 days"), "40");
  EXPECT_EQ(part("MONTH", "14 months"), "2");
  EXPECT_EQ(part("year", "14 months"), "1");
  EXPECT_EQ(part("milliseconds", "5.123456 sec"), "5123.456");
  EXPECT_EQ(part("microseconds", "5.123456 sec"), "5123456");
  EXPECT_EQ(part("quarter", "7 months"), "3");
  EXPECT_EQ(part("minute", "-1 hour -5 min"), "-5");
  EXPECT_EQ(ErrorOf([] { interval::Part("week", P("1 day")); }),
            "0A000 unit \"week\" not supported for type interval");
  EXPECT_EQ(ErrorOf([] { interval::Part("foo", P("1 day")); }),
            "22023 unit \"foo\" not recognized for type interval");
}

}  // namespace
}  // namespace forktail
