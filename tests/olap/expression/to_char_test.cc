// olap/expression/to_char.h directly: number and date/time templates with
// PostgreSQL 15's answers (psql), and the patterns Forktail refuses.
#include "olap/expression/to_char.h"

#include <gtest/gtest.h>

#include "storage/error.h"
#include "storage/value/datetime.h"

namespace forktail {
namespace {

std::string Num(const char* text, const char* format) { return ToCharNumber(text, format); }

TEST(ToChar, NumberWidthsSignsAndRounding) {
  EXPECT_EQ(Num("5", "999"), "   5");
  EXPECT_EQ(Num("-5", "000"), "-005");
  EXPECT_EQ(Num("0", "999"), "   0");
  EXPECT_EQ(Num("0.5", "99.9"), "   .5");
  EXPECT_EQ(Num("0.5", "90.9"), "  0.5");
  EXPECT_EQ(Num("-3.14159", "999.99"), "  -3.14");
  EXPECT_EQ(Num("1234.5", "FM9,999.00"), "1,234.50");
  EXPECT_EQ(Num("12", "9,999"), "    12");
  EXPECT_EQ(Num("-1234567.891", "9G999G999D99"), "-1,234,567.89");
  EXPECT_EQ(Num("12345", "999"), " ###");
  EXPECT_EQ(Num("9.96", "9.9"), " #.#");
  EXPECT_EQ(Num("-0.001", "9.99"), "  .00");
  EXPECT_EQ(Num("1.25", "FM9.9"), "1.3");
  EXPECT_EQ(Num("2", "FM99.99"), "2.");
  EXPECT_EQ(Num("0.004", "FM9.99"), "0.");
  EXPECT_EQ(Num("12", "99."), " 12");
  EXPECT_EQ(Num("5", "S999"), "  +5");
  EXPECT_EQ(Num("-5", "999MI"), "  5-");
  EXPECT_EQ(Num("5", "PL999"), "+   5");
  EXPECT_EQ(Num("-5", "SG999"), "-  5");
  EXPECT_EQ(Num("-5", "999PR"), "  <5>");
  EXPECT_EQ(Num("-12", "\"n=\"99"), "n=-12");
  EXPECT_EQ(ToCharNumberDecimals("FM9,999.00"), 2);
}

TEST(ToChar, Timestamps) {
  const int64_t ts = datetime::ParseTimestamp("2024-03-05 14:07:09.012345");
  EXPECT_EQ(ToCharTimestamp(ts, 0, nullptr, "YYYY-MM-DD HH24:MI:SS.MS HH12 AM"),
            "2024-03-05 14:07:09.012 02 PM");
  EXPECT_EQ(ToCharTimestamp(ts, 0, nullptr, "FMMonth Day FMDDth, \"week\" IW"),
            "March Tuesday   5th, week 10");
  EXPECT_EQ(ToCharTimestamp(ts, 19800, nullptr, "OF TZH:TZM"), "+05:30 +05:30");
  EXPECT_EQ(ToCharTimestamp(datetime::ParseTimestamp("2021-01-01"), 0, nullptr, "IYYY-IW-ID"),
            "2020-53-5");
}

TEST(ToChar, Intervals) {
  EXPECT_EQ(ToCharInterval(datetime::ParseInterval("1 day 27:04:05.678"), "HH24:MI:SS.MS"),
            "27:04:05.678");
  EXPECT_EQ(ToCharInterval(datetime::ParseInterval("-1 hour -5 minutes"), "HH24:MI"), "-01:-05");
  EXPECT_EQ(ToCharInterval(datetime::ParseInterval("1 year 2 months 3 days"), "YYYY-MM-FMDDth"),
            "0001-02-3rd");
  try {
    ToCharInterval(datetime::ParseInterval("1 day"), "Day");
    FAIL() << "no error";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), "22007");
  }
}

TEST(ToChar, RefusedPatterns) {
  try {
    Num("1", "9.99EEEE");
    FAIL() << "no error";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), "0A000");
  }
}

}  // namespace
}  // namespace forktail
