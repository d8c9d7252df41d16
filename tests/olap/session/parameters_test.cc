// Session parameters (SET / SHOW / RESET): defaults a PostgreSQL client
// expects, normalization, refusals with PostgreSQL's SQLSTATEs and messages.
#include <gtest/gtest.h>

#include "olap/session/session_parameters.h"
#include "storage/error.h"

namespace forktail {
namespace {

void ExpectError(const std::function<void()>& f, const char* state, const std::string& message) {
  try {
    f();
    FAIL() << "no error";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), state);
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(EngineParametersTest, Defaults) {
  SessionParameters p("alice", "psql");
  EXPECT_EQ(p.Get("server_version"), "15.8");
  EXPECT_EQ(p.Get("client_encoding"), "UTF8");
  EXPECT_EQ(p.Get("DateStyle"), "ISO, MDY");
  EXPECT_EQ(p.Get("datestyle"), "ISO, MDY");
  EXPECT_EQ(p.Get("integer_datetimes"), "on");
  EXPECT_EQ(p.Get("standard_conforming_strings"), "on");
  EXPECT_EQ(p.Get("TimeZone"), "UTC");
  EXPECT_EQ(p.Get("application_name"), "psql");
  EXPECT_EQ(p.Get("session_authorization"), "alice");
  EXPECT_EQ(p.Get("transaction_isolation"), "serializable");
  EXPECT_EQ(p.Get("search_path"), "\"$user\", public");
  EXPECT_EQ(p.Get("no_such_thing"), "");
  EXPECT_EQ(p.Canonical("timezone"), "TimeZone");
  for (const std::string& name : SessionParameters::Reported()) EXPECT_NE(p.Get(name), "") << name;
}

TEST(EngineParametersTest, SetNormalizesAndResetRestores) {
  SessionParameters p("u", "");
  p.Set("extra_float_digits", "3");
  p.Set("client_encoding", "utf8");
  p.Set("TIMEZONE", "Etc/UTC");
  p.Set("DateStyle", "iso, ymd");
  p.Set("transaction_isolation", "read committed");
  p.Set("application_name", "  app  ");
  p.Set("myapp.flag", "x");
  EXPECT_EQ(p.Get("extra_float_digits"), "3");
  EXPECT_EQ(p.Get("client_encoding"), "UTF8");
  EXPECT_EQ(p.Get("TimeZone"), "Etc/UTC");  // PostgreSQL keeps the zone's own name
  EXPECT_EQ(p.Get("DateStyle"), "ISO, MDY");
  EXPECT_EQ(p.Get("transaction_isolation"), "serializable");
  EXPECT_EQ(p.Get("application_name"), "app");
  EXPECT_EQ(p.Show("myapp.flag"), "x");
  p.Reset("extra_float_digits");
  EXPECT_EQ(p.Get("extra_float_digits"), "1");
  p.Set("application_name", "b");
  p.ResetAll();
  EXPECT_EQ(p.Get("application_name"), "");
  EXPECT_FALSE(p.All().empty());
}

TEST(EngineParametersTest, Refusals) {
  SessionParameters p("u", "");
  ExpectError([&] { p.Set("client_encoding", "LATIN1"); }, "22023",
              "invalid value for parameter \"client_encoding\": \"LATIN1\"");
  ExpectError([&] { p.Set("TimeZone", "Foo/Bar"); }, "22023",
              "invalid value for parameter \"TimeZone\": \"Foo/Bar\"");
  ExpectError([&] { p.Set("TimeZone", "Z"); }, "22023",
              "invalid value for parameter \"TimeZone\": \"Z\"");
  ExpectError([&] { p.Set("extra_float_digits", "9"); }, "22023",
              "invalid value for parameter \"extra_float_digits\": \"9\"");
  ExpectError([&] { p.Set("forktail.max_snapshot_age_ms", "-1"); }, "22023",
              "invalid value for parameter \"forktail.max_snapshot_age_ms\": \"-1\"");
  ExpectError([&] { p.Set("server_version", "16"); }, "55P02",
              "parameter \"server_version\" cannot be changed");
  ExpectError([&] { p.Set("no_such", "1"); }, "42704",
              "unrecognized configuration parameter \"no_such\"");
  ExpectError([&] { p.Set("forktail.nope", "1"); }, "42704",
              "unrecognized configuration parameter \"forktail.nope\"");
  ExpectError([&] { p.Show("no_such"); }, "42704",
              "unrecognized configuration parameter \"no_such\"");
  EXPECT_EQ(p.Get("client_encoding"), "UTF8");
}

}  // namespace
}  // namespace forktail
