// Time zones and timestamptz text I/O, against PostgreSQL 15's answers (the
// same system tz database, /usr/share/zoneinfo).
#include "storage/value/timezone.h"

#include <gtest/gtest.h>

#include <functional>

#include "storage/error.h"
#include "storage/value/datetime.h"
#include "storage/value/value.h"

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

// A literal read and printed in `zone`, as SET TIME ZONE zone; SELECT 'lit'::timestamptz.
std::string RoundTrip(const std::string& zone, const std::string& literal) {
  TimeZonePtr z = TimeZone::Find(zone);
  EXPECT_NE(z, nullptr) << zone;
  if (z == nullptr) return "";
  return FormatTimestampTz(ParseTimestampTz(literal, *z), *z);
}

TEST(TimeZoneTest, NamesAsSetTimeZoneTakesThem) {
  EXPECT_EQ(TimeZone::Find("UTC")->name(), "UTC");
  EXPECT_EQ(TimeZone::Find("utc")->name(), "UTC");
  EXPECT_EQ(TimeZone::Find("europe/PARIS")->name(), "Europe/Paris");
  EXPECT_EQ(TimeZone::Find("Etc/UTC")->name(), "Etc/UTC");
  EXPECT_TRUE(TimeZone::Find("Etc/UTC")->is_utc());
  // A number of hours, ISO sign; PostgreSQL names it as a POSIX zone.
  EXPECT_EQ(TimeZone::Find("+02")->name(), "<+02>-02");
  EXPECT_EQ(TimeZone::Find("2")->name(), "<+02>-02");
  EXPECT_EQ(TimeZone::Find("-3")->name(), "<-03>+03");
  EXPECT_EQ(TimeZone::Find("5.5")->name(), "<+05:30>-05:30");
  // POSIX strings keep their spelling (and POSIX's westward sign).
  EXPECT_EQ(TimeZone::Find("UTC+2")->name(), "UTC+2");
  EXPECT_EQ(TimeZone::Find("<+03>-3")->name(), "<+03>-3");
  EXPECT_EQ(TimeZone::Find("Foo/Bar"), nullptr);
  EXPECT_EQ(TimeZone::Find("Z"), nullptr);
  EXPECT_EQ(TimeZone::Find("../../etc/passwd"), nullptr);
  EXPECT_EQ(TimeZone::Find("/etc/passwd"), nullptr);
}

// A session keeps the name SHOW prints and finds its zone again by it, also
// in a snapshot process that never saw the original spelling.
TEST(TimeZoneTest, NamesFindTheirZoneAgain) {
  const int64_t winter = ParseTimestamp("2024-01-15 12:00"),
                summer = ParseTimestamp("2024-07-15 12:00");
  for (const char* spelling :
       {"5.5", "-3", "+02", "-0.75", "UTC+2", "XYZ+3ABC", "europe/paris", "est"}) {
    TimeZonePtr zone = TimeZone::Find(spelling);
    ASSERT_NE(zone, nullptr) << spelling;
    TimeZonePtr again = TimeZone::Find(zone->name());
    ASSERT_NE(again, nullptr) << zone->name();
    TimeZonePtr parsed = ParsePosixTimeZone(zone->name(), zone->name());
    if (parsed == nullptr) parsed = TimeZone::FindRegion(zone->name());
    ASSERT_NE(parsed, nullptr) << zone->name();
    for (int64_t t : {winter, summer}) {
      EXPECT_EQ(again->OffsetAt(t), zone->OffsetAt(t)) << spelling;
      EXPECT_EQ(parsed->OffsetAt(t), zone->OffsetAt(t)) << spelling;
    }
  }
  EXPECT_EQ(TimeZone::Find("-0.75")->name(), "<-00:45>+00:45");
  EXPECT_EQ(ParsePosixTimeZone("<+05:30>-05:30", "x")->OffsetAt(0), 5 * 3600 + 1800);
}

TEST(TimeZoneTest, OutputInTheSessionZone) {
  EXPECT_EQ(RoundTrip("UTC", "2024-01-01 10:00:00+05:30"), "2024-01-01 04:30:00+00");
  EXPECT_EQ(RoundTrip("+02", "2024-01-01 10:00:00+00"), "2024-01-01 12:00:00+02");
  EXPECT_EQ(RoundTrip("UTC+2", "2024-01-01 10:00:00+00"), "2024-01-01 08:00:00-02");
  EXPECT_EQ(RoundTrip("+05:30", "2024-01-01 10:00:00+00"), "2024-01-01 04:30:00-05:30");
  EXPECT_EQ(RoundTrip("5.5", "2024-01-01 10:00:00+00"), "2024-01-01 15:30:00+05:30");
  EXPECT_EQ(RoundTrip("Asia/Kolkata", "2024-01-01 10:00:00+00"), "2024-01-01 15:30:00+05:30");
  EXPECT_EQ(RoundTrip("America/St_Johns", "2024-01-01 10:00:00+00"), "2024-01-01 06:30:00-03:30");
  EXPECT_EQ(RoundTrip("Europe/Paris", "2024-07-01 10:00:00+00"), "2024-07-01 12:00:00+02");
  EXPECT_EQ(RoundTrip("Europe/Paris", "2024-01-01 10:00"), "2024-01-01 10:00:00+01");
  EXPECT_EQ(RoundTrip("Asia/Kolkata", "1945-01-01 00:00"), "1945-01-01 00:00:00+06:30");
}

TEST(TimeZoneTest, LocalTimesInGapsAndOverlaps) {
  // Spring forward: the offset before; fall back: the offset after.
  EXPECT_EQ(RoundTrip("Europe/Paris", "2024-03-31 02:30"), "2024-03-31 03:30:00+02");
  EXPECT_EQ(RoundTrip("Europe/Paris", "2024-10-27 02:30"), "2024-10-27 02:30:00+01");
  EXPECT_EQ(RoundTrip("America/New_York", "2024-03-10 02:30"), "2024-03-10 03:30:00-04");
  EXPECT_EQ(RoundTrip("America/New_York", "2024-11-03 01:30"), "2024-11-03 01:30:00-05");
  EXPECT_EQ(RoundTrip("America/New_York", "2024-03-10 01:59:59"), "2024-03-10 01:59:59-05");
  EXPECT_EQ(RoundTrip("America/New_York", "2024-11-03 00:59:59"), "2024-11-03 00:59:59-04");
  EXPECT_EQ(RoundTrip("America/New_York", "2024-11-03 02:00"), "2024-11-03 02:00:00-05");
  // Southern hemisphere.
  EXPECT_EQ(RoundTrip("Australia/Sydney", "2024-04-07 02:30"), "2024-04-07 02:30:00+10");
  EXPECT_EQ(RoundTrip("Australia/Sydney", "2024-10-06 02:30"), "2024-10-06 03:30:00+11");
  EXPECT_EQ(RoundTrip("Australia/Sydney", "2024-01-15 12:00"), "2024-01-15 12:00:00+11");
  EXPECT_EQ(RoundTrip("Australia/Sydney", "2024-07-15 12:00"), "2024-07-15 12:00:00+10");
  // POSIX daylight rules without a rule of their own take the US ones.
  EXPECT_EQ(RoundTrip("XYZ+3ABC", "2024-03-10 02:30"), "2024-03-10 03:30:00-02");
  EXPECT_EQ(RoundTrip("XYZ+3ABC", "2024-11-03 01:30"), "2024-11-03 01:30:00-03");
}

TEST(TimeZoneTest, BeyondTheFilesTransitionsAndBeforeThem) {
  // The TZif footer's rule after the last transition.
  EXPECT_EQ(RoundTrip("Europe/Paris", "2050-07-01 12:00"), "2050-07-01 12:00:00+02");
  EXPECT_EQ(RoundTrip("Europe/Paris", "2050-12-01 12:00"), "2050-12-01 12:00:00+01");
  EXPECT_EQ(RoundTrip("Europe/Paris", "9999-07-01 12:00"), "9999-07-01 12:00:00+02");
  // Local mean time before standard time: seconds in the offset.
  EXPECT_EQ(RoundTrip("Europe/Paris", "1911-03-11 00:00"), "1911-03-11 00:00:00+00");
  EXPECT_EQ(RoundTrip("Europe/Paris", "1911-03-10 23:00"), "1911-03-10 23:00:00+00:09:21");
}

TEST(TimeZoneTest, LiteralZones) {
  const TimeZone& utc = *TimeZone::Utc();
  auto in_utc = [&](const std::string& literal) {
    return FormatTimestampTz(ParseTimestampTz(literal, utc), utc);
  };
  EXPECT_EQ(in_utc("2024-01-01 10:00:00+00"), "2024-01-01 10:00:00+00");
  EXPECT_EQ(in_utc("2024-01-01T10:00:00Z"), "2024-01-01 10:00:00+00");
  EXPECT_EQ(in_utc("2024-01-01 10:00 UTC"), "2024-01-01 10:00:00+00");
  EXPECT_EQ(in_utc("2024-01-01 10:00:00 z"), "2024-01-01 10:00:00+00");
  EXPECT_EQ(in_utc("2024-01-01"), "2024-01-01 00:00:00+00");
  EXPECT_EQ(in_utc("2024-01-01 +01"), "2023-12-31 23:00:00+00");
  EXPECT_EQ(in_utc("2024-01-01 10:00:00 EST"), "2024-01-01 15:00:00+00");
  EXPECT_EQ(in_utc("2024-07-01 10:00:00 CEST"), "2024-07-01 08:00:00+00");
  EXPECT_EQ(in_utc("2024-01-01 10:00:00 Europe/Paris"), "2024-01-01 09:00:00+00");
  EXPECT_EQ(in_utc("2024-01-01 10:00:00 europe/paris"), "2024-01-01 09:00:00+00");
  EXPECT_EQ(in_utc("2024-01-01 10:00:00 MSK"), "2024-01-01 07:00:00+00");
  EXPECT_EQ(in_utc("2024-01-01 10:00:00-0800"), "2024-01-01 18:00:00+00");
  EXPECT_EQ(in_utc("2024-01-01 10:00:00 +01:30:15"), "2024-01-01 08:29:45+00");
  EXPECT_EQ(in_utc("2024-01-01 10:00:00+5"), "2024-01-01 05:00:00+00");
  EXPECT_EQ(in_utc("2024-01-01 10:00:00 +1:30"), "2024-01-01 08:30:00+00");
  EXPECT_EQ(in_utc("2024-01-01 10:00:00.123456789+01"), "2024-01-01 09:00:00.123457+00");
  EXPECT_EQ(in_utc("2024-01-01 10:00:00+15:59"), "2023-12-31 18:01:00+00");
  ExpectError(
      [&] { ParseTimestampTz("2024-01-01 10:00:00 Foo", utc); }, "22007",
      "invalid input syntax for type timestamp with time zone: \"2024-01-01 10:00:00 Foo\"");
  ExpectError([&] { ParseTimestampTz("2024-01-01 10:00:00+16", utc); }, "22009",
              "time zone displacement out of range: \"2024-01-01 10:00:00+16\"");
  ExpectError([&] { ParseTimestampTz("2024-01-01 10:00:00+01:60", utc); }, "22009",
              "time zone displacement out of range: \"2024-01-01 10:00:00+01:60\"");
  // Types without time zone check the zone and ignore it.
  EXPECT_EQ(FormatTimestamp(ParseTimestamp("2024-01-01 10:00:00 Europe/Paris")),
            "2024-01-01 10:00:00");
  EXPECT_EQ(FormatTimestamp(ParseTimestamp("2024-01-01 10:00:00 EST")), "2024-01-01 10:00:00");
  ExpectError([&] { ParseTimestamp("2024-01-01 10:00:00 Foo"); }, "22007",
              "invalid input syntax for type timestamp: \"2024-01-01 10:00:00 Foo\"");
  ExpectError([&] { ParseTimestamp("2024-01-01 10:00:00+16"); }, "22009",
              "time zone displacement out of range: \"2024-01-01 10:00:00+16\"");
}

TEST(TimeZoneTest, IntervalArithmeticMovesTheWallClock) {
  TimeZonePtr paris = TimeZone::Find("Europe/Paris");
  const int64_t t = ParseTimestampTz("2024-03-30 12:00+00", *paris);
  EXPECT_EQ(FormatTimestampTz(AddIntervalTz(t, {0, 1, 0}, *paris), *paris),
            "2024-03-31 13:00:00+02");
  EXPECT_EQ(FormatTimestampTz(AddIntervalTz(t, {0, 0, 24 * kMicrosPerHour}, *paris), *paris),
            "2024-03-31 14:00:00+02");
  EXPECT_EQ(FormatTimestampTz(AddIntervalTz(t, {1, 0, 0}, *paris), *paris),
            "2024-04-30 13:00:00+02");
}

TEST(TimeZoneTest, ValuesUseTheThreadsZone) {
  Value v = Value::Parse(Type::TimestampTz(), "2024-07-01 12:00:00+00");
  EXPECT_EQ(v.ToString(), "2024-07-01 12:00:00+00");
  {
    ScopedTimeZone zone(TimeZone::Find("Europe/Paris"));
    EXPECT_EQ(v.ToString(), "2024-07-01 14:00:00+02");
    EXPECT_EQ(v.CastTo(Type::Timestamp()).ToString(), "2024-07-01 14:00:00");
    EXPECT_EQ(v.CastTo(Type::Date()).ToString(), "2024-07-01");
    EXPECT_EQ(Value::Parse(Type::TimestampTz(), "2024-07-01 12:00").ToString(),
              "2024-07-01 12:00:00+02");
    EXPECT_EQ(Value::Date(DaysFromCivil(2024, 3, 31)).CastTo(Type::TimestampTz()).ToString(),
              "2024-03-31 00:00:00+01");
    // timestamp = timestamptz compares in the zone.
    EXPECT_EQ(Value::Parse(Type::Timestamp(), "2024-07-01 14:00").Compare(v), 0);
  }
  EXPECT_EQ(v.ToString(), "2024-07-01 12:00:00+00");
  EXPECT_EQ(Value::Parse(Type::Timestamp(), "2024-07-01 12:00").Compare(v), 0);
}

TEST(TimeZoneTest, MalformedTzifIsRefused) {
  EXPECT_EQ(ParseTzif("", "x"), nullptr);
  EXPECT_EQ(ParseTzif("TZif2", "x"), nullptr);
  std::string header = "TZif2" + std::string(39, '\0');
  EXPECT_EQ(ParseTzif(header, "x"), nullptr);  // no types
  EXPECT_EQ(ParsePosixTimeZone("CET-1CEST,M3.5.0", "x"), nullptr);
  EXPECT_EQ(ParsePosixTimeZone("AB+1", "x"), nullptr);
  EXPECT_NE(ParsePosixTimeZone("CET-1CEST,M3.5.0,M10.5.0/3", "x"), nullptr);
}

}  // namespace
}  // namespace forktail::datetime
