// olap/expression/from_char.h directly: how to_timestamp/to_date read a
// template, with PostgreSQL 15's answers (psql); the SQL functions are in
// tests/server/e2e/slt/simple/to_timestamp.slt.
#include "olap/expression/from_char.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "storage/error.h"

namespace forktail {
namespace {

// "YYYY-MM-DD HH:MM:SS.ffffff" (and "+HH:MM" when the input gave an offset),
// or the error's SQLSTATE and message.
std::string Read(const char* input, const char* format) {
  try {
    const FromCharResult r = FromChar(input, format);
    const int64_t us = r.time;
    std::string out =
        fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:06}", r.year, r.month, r.day,
                    us / 3'600'000'000, us / 60'000'000 % 60, us / 1'000'000 % 60, us % 1'000'000);
    if (r.offset_seconds) {
      const int32_t o = *r.offset_seconds;
      out += fmt::format(" {}{:02}:{:02}", o < 0 ? '-' : '+', std::abs(o) / 3600,
                         std::abs(o) / 60 % 60);
    }
    return out;
  } catch (const DbError& e) {
    return std::string(e.sqlstate()) + " " + e.what();
  }
}

TEST(FromChar, FieldsSeparatorsAndWidths) {
  EXPECT_EQ(Read("2024-03-05", "YYYY-MM-DD"), "2024-03-05 00:00:00.000000");
  EXPECT_EQ(Read("20240305140709", "YYYYMMDDHH24MISS"), "2024-03-05 14:07:09.000000");
  // A separator or space of the template matches one of either, or none.
  EXPECT_EQ(Read("2024 03 05", "YYYY-MM-DD"), "2024-03-05 00:00:00.000000");
  EXPECT_EQ(Read("  2024  -  03 - 05", "YYYY-MM-DD"), "2024-03-05 00:00:00.000000");
  EXPECT_EQ(Read("2024-03-05", "YYYY--MM--DD"), "2024-03-05 00:00:00.000000");
  EXPECT_EQ(Read("2024x03x05", "YYYYxMMxDD"), "2024-03-05 00:00:00.000000");
  // Before a separator a field takes as many digits as there are.
  EXPECT_EQ(Read("5/3/2024", "DD/MM/YYYY"), "2024-03-05 00:00:00.000000");
  EXPECT_EQ(Read("2024-03-05 junk", "YYYY-MM-DD"), "2024-03-05 00:00:00.000000");
  EXPECT_EQ(Read("2024-03-05T14:07:09", "YYYY-MM-DD\"T\"HH24:MI:SS"), "2024-03-05 14:07:09.000000");
  EXPECT_EQ(Read("1st of March 2024", "DDth \"of\" Month YYYY"), "2024-03-01 00:00:00.000000");
}

TEST(FromChar, NamesYearsAndCalendars) {
  EXPECT_EQ(Read("MARCH   5 2024", "MONTH DD YYYY"), "2024-03-05 00:00:00.000000");
  EXPECT_EQ(Read("5-mar-24", "DD-MON-YY"), "2024-03-05 00:00:00.000000");
  EXPECT_EQ(Read("5-mar-70", "DD-MON-YY"), "1970-03-05 00:00:00.000000");
  EXPECT_EQ(Read("1 2 3", "DD MM YY"), "2003-02-01 00:00:00.000000");
  EXPECT_EQ(Read("2024 iii 05", "YYYY RM DD"), "2024-03-05 00:00:00.000000");
  EXPECT_EQ(Read("21 24-03-05", "CC YY-MM-DD"), "2024-03-05 00:00:00.000000");
  EXPECT_EQ(Read("2,024-03-05", "Y,YYY-MM-DD"), "2024-03-05 00:00:00.000000");
  EXPECT_EQ(Read("2024-060", "YYYY-DDD"), "2024-02-29 00:00:00.000000");
  EXPECT_EQ(Read("2460375", "J"), "2024-03-05 00:00:00.000000");
  EXPECT_EQ(Read("2024-W10-2", "IYYY-\"W\"IW-ID"), "2024-03-05 00:00:00.000000");
  EXPECT_EQ(Read("2024-065", "IYYY-IDDD"), "2024-03-05 00:00:00.000000");
  EXPECT_EQ(Read("Tue 2024-03-05", "Dy YYYY-MM-DD"), "2024-03-05 00:00:00.000000");
}

TEST(FromChar, TimesFractionsAndOffsets) {
  EXPECT_EQ(Read("02:07:09 PM", "HH:MI:SS AM"), "0000-01-01 14:07:09.000000");
  EXPECT_EQ(Read("12:07:09 a.m.", "HH12:MI:SS a.m."), "0000-01-01 00:07:09.000000");
  EXPECT_EQ(Read("14:07:09.12", "HH24:MI:SS.MS"), "0000-01-01 14:07:09.120000");
  EXPECT_EQ(Read("14:07:09.5", "HH24:MI:SS.FF3"), "0000-01-01 14:07:09.500000");
  EXPECT_EQ(Read("50000", "SSSS"), "0000-01-01 13:53:20.000000");
  EXPECT_EQ(Read("14:07 +05:30", "HH24:MI TZH:TZM"), "0000-01-01 14:07:00.000000 +05:30");
  // A minus taken as the separator before TZH is its sign.
  EXPECT_EQ(Read("14:07-02", "HH24:MITZH"), "0000-01-01 14:07:00.000000 -02:00");
}

TEST(FromChar, ErrorsArePostgresqls) {
  EXPECT_EQ(Read("2024-13-05", "YYYY-MM-DD"),
            "22008 date/time field value out of range: \"2024-13-05\"");
  EXPECT_EQ(Read("2024-02-30", "YYYY-MM-DD"),
            "22008 date/time field value out of range: \"2024-02-30\"");
  EXPECT_EQ(Read("532024", "DDMMYYYY"), "22008 date/time field value out of range: \"532024\"");
  EXPECT_EQ(Read("x2024", "YYYY"), "22007 invalid value \"x202\" for \"YYYY\"");
  EXPECT_EQ(Read("Foo 5 2024", "Mon DD YYYY"), "22007 invalid value \"Foo\" for \"Mon\"");
  EXPECT_EQ(Read("13:00 PM", "HH:MI PM"), "22007 hour \"13\" is invalid for the 12-hour clock");
  EXPECT_EQ(Read("2024 2023", "YYYY YYYY"),
            "22007 conflicting values for \"YYYY\" field in formatting string");
  EXPECT_EQ(Read("2024-10-2", "IYYY-MM-ID"), "22007 invalid combination of date conventions");
  EXPECT_EQ(Read("2024-03-05", "TZ"), "0A000 formatting field \"TZ\" is only supported in to_char");
}

}  // namespace
}  // namespace forktail
