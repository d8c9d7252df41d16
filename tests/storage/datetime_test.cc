#include "storage/value/datetime.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "storage/error.h"

namespace forktail::datetime {
namespace {

void ExpectError(const std::function<void()>& fn, const char* state, const std::string& message) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected " << message;
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), state) << e.what();
    EXPECT_EQ(std::string(e.what()), message);
  }
}

int64_t Ts(std::string_view s) { return ParseTimestamp(s); }

TEST(DatetimeTest, CivilConversions) {
  static_assert(DaysFromCivil(1970, 1, 1) == 0);
  static_assert(DaysFromCivil(2000, 3, 1) == 11017);
  static_assert(DaysFromCivil(1969, 12, 31) == -1);
  EXPECT_EQ(DaysFromCivil(1, 1, 1), -719162);
  EXPECT_EQ(DaysFromCivil(9999, 12, 31), 2932896);
  CivilDate c = CivilFromDays(-719162);
  EXPECT_EQ(c.year, 1);
  EXPECT_EQ(c.month, 1);
  EXPECT_EQ(c.day, 1);
  // Every day of years 1..9999 round-trips and follows its predecessor.
  CivilDate prev = CivilFromDays(kMinDate - 1);
  EXPECT_EQ(prev.year, 0);
  for (int32_t d = kMinDate; d <= kMaxDate; ++d) {
    CivilDate cd = CivilFromDays(d);
    ASSERT_TRUE(IsValidDate(cd.year, cd.month, cd.day)) << d;
    ASSERT_EQ(DaysFromCivil(cd.year, cd.month, cd.day), d);
    bool next_day = cd.day == prev.day + 1 && cd.month == prev.month && cd.year == prev.year;
    bool next_month = cd.day == 1 && prev.day == DaysInMonth(prev.year, prev.month) &&
                      (cd.month == prev.month + 1 || (cd.month == 1 && cd.year == prev.year + 1));
    ASSERT_TRUE(next_day || next_month) << d;
    prev = cd;
  }
}

TEST(DatetimeTest, LeapYears) {
  EXPECT_TRUE(IsLeapYear(2000));
  EXPECT_TRUE(IsLeapYear(2024));
  EXPECT_FALSE(IsLeapYear(1900));
  EXPECT_FALSE(IsLeapYear(2023));
  EXPECT_TRUE(IsValidDate(2024, 2, 29));
  EXPECT_FALSE(IsValidDate(2023, 2, 29));
  EXPECT_FALSE(IsValidDate(1900, 2, 29));
  EXPECT_TRUE(IsValidDate(2000, 2, 29));
  EXPECT_FALSE(IsValidDate(2024, 4, 31));
  EXPECT_FALSE(IsValidDate(2024, 0, 1));
  EXPECT_FALSE(IsValidDate(2024, 1, 0));
}

TEST(DatetimeTest, SplitAndCombine) {
  DayTime dt = SplitTimestamp(-1);
  EXPECT_EQ(dt.days, -1);
  EXPECT_EQ(dt.time, kMicrosPerDay - 1);
  EXPECT_EQ(CombineTimestamp(dt.days, dt.time), -1);
  dt = SplitTimestamp(kMicrosPerDay);
  EXPECT_EQ(dt.days, 1);
  EXPECT_EQ(dt.time, 0);
  EXPECT_EQ(TimestampToDate(-kMicrosPerDay), -1);
  EXPECT_EQ(TimestampToDate(-kMicrosPerDay - 1), -2);
  EXPECT_EQ(DateToTimestamp(2), 2 * kMicrosPerDay);
}

TEST(DatetimeTest, Extract) {
  int64_t ts = Ts("2024-05-17 13:45:07.25");  // a Friday
  EXPECT_EQ(Extract(DateField::kYear, ts), 2024);
  EXPECT_EQ(Extract(DateField::kQuarter, ts), 2);
  EXPECT_EQ(Extract(DateField::kMonth, ts), 5);
  EXPECT_EQ(Extract(DateField::kDay, ts), 17);
  EXPECT_EQ(Extract(DateField::kDow, ts), 5);
  EXPECT_EQ(Extract(DateField::kDoy, ts), 31 + 29 + 31 + 30 + 17);
  EXPECT_EQ(Extract(DateField::kHour, ts), 13);
  EXPECT_EQ(Extract(DateField::kMinute, ts), 45);
  EXPECT_EQ(Extract(DateField::kSecond, ts), 7);
  EXPECT_EQ(ExtractMicros(DateField::kSecond, ts), 7'250'000);
  EXPECT_EQ(ExtractMicros(DateField::kEpoch, ts), ts);
  EXPECT_EQ(Extract(DateField::kEpoch, ts), 1715953507);
  EXPECT_EQ(ExtractMicros(DateField::kYear, ts), 2024'000'000);
  EXPECT_EQ(Extract(DateField::kDow, Ts("2024-05-19")), 0);  // Sunday
  EXPECT_EQ(Extract(DateField::kDow, Ts("1969-12-28")), 0);
  EXPECT_EQ(Extract(DateField::kDoy, Ts("2023-12-31")), 365);
  EXPECT_EQ(Extract(DateField::kDoy, Ts("2024-12-31")), 366);
  EXPECT_EQ(Extract(DateField::kQuarter, Ts("2024-12-31")), 4);
  EXPECT_EQ(Extract(DateField::kYear, Ts("0001-01-01")), 1);
  EXPECT_EQ(Extract(DateField::kHour, Ts("1969-12-31 23:00:00")), 23);
}

TEST(DatetimeTest, AddMonthsClampsDay) {
  auto add = [](std::string_view date, int32_t months) {
    return FormatDate(AddMonthsToDate(ParseDate(date), months));
  };
  EXPECT_EQ(add("2024-01-31", 1), "2024-02-29");
  EXPECT_EQ(add("2023-01-31", 1), "2023-02-28");
  EXPECT_EQ(add("2024-03-31", -1), "2024-02-29");
  EXPECT_EQ(add("2024-01-15", 12), "2025-01-15");
  EXPECT_EQ(add("2024-01-15", -13), "2022-12-15");
  EXPECT_EQ(add("2024-12-31", 2), "2025-02-28");
  EXPECT_EQ(add("0001-01-31", 1), "0001-02-28");
  EXPECT_EQ(FormatTimestamp(AddMonthsToTimestamp(Ts("2024-01-31 10:30:00"), 1)),
            "2024-02-29 10:30:00");
  EXPECT_EQ(FormatDate(AddDays(ParseDate("2024-02-28"), 2)), "2024-03-01");
}

TEST(DatetimeTest, IntervalParse) {
  EXPECT_EQ(ParseInterval("3 months"), (Interval{3, 0, 0}));
  EXPECT_EQ(ParseInterval("1 year 2 days"), (Interval{12, 2, 0}));
  EXPECT_EQ(ParseInterval("90 minutes"), (Interval{0, 0, 90 * kMicrosPerMinute}));
  EXPECT_EQ(ParseInterval("1 day 02:00:00"), (Interval{0, 1, 2 * kMicrosPerHour}));
  EXPECT_EQ(ParseInterval("-1 day +02:03"),
            (Interval{0, -1, 2 * kMicrosPerHour + 3 * kMicrosPerMinute}));
  EXPECT_EQ(ParseInterval("1.5 hours"), (Interval{0, 0, 90 * kMicrosPerMinute}));
  EXPECT_EQ(ParseInterval("1.5 years"), (Interval{18, 0, 0}));
  EXPECT_EQ(ParseInterval("1.5 months"), (Interval{1, 15, 0}));
  EXPECT_EQ(ParseInterval("1.5 days"), (Interval{0, 1, 12 * kMicrosPerHour}));
  EXPECT_EQ(ParseInterval("2 weeks"), (Interval{0, 14, 0}));
  EXPECT_EQ(ParseInterval("@ 1 day ago"), (Interval{0, -1, 0}));
  EXPECT_EQ(ParseInterval("1 year 2 mons 3 days 04:05:06"),
            (Interval{14, 3, 4 * kMicrosPerHour + 5 * kMicrosPerMinute + 6 * kMicrosPerSecond}));
  EXPECT_EQ(ParseInterval("10 sec 5 ms 3 us"), (Interval{0, 0, 10'005'003}));
  EXPECT_EQ(ParseInterval("3days 4h"), (Interval{0, 3, 4 * kMicrosPerHour}));
  EXPECT_EQ(ParseInterval("90"), (Interval{0, 0, 90 * kMicrosPerSecond}));
  EXPECT_EQ(ParseInterval("-00:00:01.5"), (Interval{0, 0, -1'500'000}));
  EXPECT_EQ(ParseInterval("1 YEAR"), (Interval{12, 0, 0}));
  for (const char* bad : {"", "abc", "3 fortnights", "1 day ago 2", "1:2", "1 day x"}) {
    ExpectError([&] { ParseInterval(bad); }, "22007",
                std::string("invalid input syntax for type interval: \"") + bad + "\"");
  }
  ExpectError([] { ParseInterval("300000000 years"); }, "22008",
              "interval field value out of range: \"300000000 years\"");
}

TEST(DatetimeTest, IntervalFormat) {
  EXPECT_EQ(FormatInterval({14, 3, 4 * kMicrosPerHour + 5 * kMicrosPerMinute + 6'000'000}),
            "1 year 2 mons 3 days 04:05:06");
  EXPECT_EQ(FormatInterval({}), "00:00:00");
  EXPECT_EQ(FormatInterval({3, 0, 0}), "3 mons");
  EXPECT_EQ(FormatInterval({1, 1, 0}), "1 mon 1 day");
  EXPECT_EQ(FormatInterval({-12, 0, 0}), "-1 years");
  EXPECT_EQ(FormatInterval({0, -1, -1'500'000}), "-1 days -00:00:01.5");
  EXPECT_EQ(FormatInterval({0, -1, 2 * kMicrosPerHour}), "-1 days +02:00:00");
  EXPECT_EQ(FormatInterval({0, 0, 90 * kMicrosPerHour}), "90:00:00");
  EXPECT_EQ(FormatInterval({0, 0, 1}), "00:00:00.000001");
  for (const char* text : {"1 year 2 mons 3 days 04:05:06", "-1 days +02:03:00", "3 mons",
                           "-1 years -2 mons", "00:00:00.25", "1 day"}) {
    EXPECT_EQ(FormatInterval(ParseInterval(text)), text);
  }
}

TEST(DatetimeTest, IntervalArithmetic) {
  auto plus = [](std::string_view ts, std::string_view iv) {
    return FormatTimestamp(AddInterval(Ts(ts), ParseInterval(iv)));
  };
  auto minus = [](std::string_view ts, std::string_view iv) {
    return FormatTimestamp(SubtractInterval(Ts(ts), ParseInterval(iv)));
  };
  EXPECT_EQ(plus("2024-01-31", "1 month"), "2024-02-29 00:00:00");
  EXPECT_EQ(plus("2024-01-31", "30 days"), "2024-03-01 00:00:00");
  EXPECT_EQ(plus("2024-01-31 23:00:00", "90 minutes"), "2024-02-01 00:30:00");
  EXPECT_EQ(plus("2024-01-31", "1 month 1 day"), "2024-03-01 00:00:00");
  EXPECT_EQ(minus("2024-03-31", "1 month"), "2024-02-29 00:00:00");
  EXPECT_EQ(minus("2024-01-01", "1 second"), "2023-12-31 23:59:59");
  EXPECT_EQ(plus("2024-01-01", "-1 day +02:00"), "2023-12-31 02:00:00");
  EXPECT_EQ(FormatTimestamp(
                AddInterval(DateToTimestamp(ParseDate("2024-02-28")), ParseInterval("1 day"))),
            "2024-02-29 00:00:00");
  ExpectError([&] { AddInterval(Ts("9999-12-31"), ParseInterval("1 day")); }, "22008",
              "timestamp out of range");
  ExpectError([&] { SubtractInterval(Ts("0001-01-01"), ParseInterval("1 us")); }, "22008",
              "timestamp out of range");
}

TEST(DatetimeTest, TimestampTextRandomRoundTrip) {
  constexpr uint64_t kSeed = 77;
  std::mt19937_64 rng(kSeed);
  std::uniform_int_distribution<int64_t> dist(kMinTimestamp, kMaxTimestamp);
  for (int i = 0; i < 5000; ++i) {
    int64_t ts = dist(rng);
    if (i % 3 == 0) ts -= ts % kMicrosPerSecond;
    ASSERT_EQ(ParseTimestamp(FormatTimestamp(ts)), ts) << "seed " << kSeed << " i " << i;
    int32_t d = TimestampToDate(ts);
    ASSERT_EQ(ParseDate(FormatDate(d)), d);
  }
}

}  // namespace
}  // namespace forktail::datetime

namespace forktail::datetime {
namespace {

std::string TimeIn(const char* text) {
  try {
    return FormatTime(ParseTime(text));
  } catch (const DbError& e) {
    return std::string(e.sqlstate()) + " " + e.what();
  }
}

// PostgreSQL 15's time_in and time_out (psql).
TEST(TimeOfDay, ParsesPostgresqlForms) {
  EXPECT_EQ(TimeIn("14:07"), "14:07:00");
  EXPECT_EQ(TimeIn("14:7"), "14:07:00");
  EXPECT_EQ(TimeIn(" 14:07 "), "14:07:00");
  EXPECT_EQ(TimeIn("14:07:09.5"), "14:07:09.5");
  EXPECT_EQ(TimeIn("14:07:09.1234567"), "14:07:09.123457");
  EXPECT_EQ(TimeIn("2:07 PM"), "14:07:00");
  EXPECT_EQ(TimeIn("12:00 am"), "00:00:00");
  EXPECT_EQ(TimeIn("12:30 PM"), "12:30:00");
  EXPECT_EQ(TimeIn("1407"), "14:07:00");
  EXPECT_EQ(TimeIn("140709"), "14:07:09");
  EXPECT_EQ(TimeIn("24:00"), "24:00:00");
  EXPECT_EQ(TimeIn("23:59:60"), "24:00:00");
  EXPECT_EQ(TimeIn("allballs"), "00:00:00");
  EXPECT_EQ(TimeIn("T14:07"), "14:07:00");
  EXPECT_EQ(TimeIn("2024-03-05 14:07"), "14:07:00");
  EXPECT_EQ(TimeIn("14:07+02"), "14:07:00");
  EXPECT_EQ(TimeIn("14:07:09 z"), "14:07:09");
}

TEST(TimeOfDay, RefusesWhatPostgresqlRefuses) {
  EXPECT_EQ(TimeIn("14"), "22007 invalid input syntax for type time: \"14\"");
  EXPECT_EQ(TimeIn("14:07 Europe/Paris"),
            "22007 invalid input syntax for type time: \"14:07 Europe/Paris\"");
  EXPECT_EQ(TimeIn("25:00"), "22008 date/time field value out of range: \"25:00\"");
  EXPECT_EQ(TimeIn("24:00:01"), "22008 date/time field value out of range: \"24:00:01\"");
  EXPECT_EQ(TimeIn("14:60"), "22008 date/time field value out of range: \"14:60\"");
  EXPECT_EQ(TimeIn("13:00 PM"), "22008 date/time field value out of range: \"13:00 PM\"");
  EXPECT_EQ(TimeIn(""), "22007 invalid input syntax for type time: \"\"");
}

TEST(TimeOfDay, EncodingOrdersAsTheTime) {
  const int64_t times[] = {0, 1, kMicrosPerSecond, 14 * kMicrosPerHour, kMaxTime};
  for (size_t i = 0; i < std::size(times); ++i) {
    EXPECT_EQ(DecodeTime(EncodeTime(times[i])), times[i]);
    if (i > 0) {
      EXPECT_LT(EncodeTime(times[i - 1]), EncodeTime(times[i]));
    }
  }
}

}  // namespace
}  // namespace forktail::datetime
