#include "storage/value/value.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "storage/error.h"
#include "storage/value/datetime.h"

namespace forktail {
namespace {

void ExpectError(const std::function<void()>& fn, const char* state, const std::string& message) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected " << state << " " << message;
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), state) << e.what();
    EXPECT_EQ(std::string(e.what()), message);
  }
}

void ExpectParseError(const Type& t, std::string_view text, const char* state,
                      const std::string& message) {
  ExpectError([&] { Value::Parse(t, text); }, state, message);
}

std::string RoundTrip(const Type& t, std::string_view text) {
  return Value::Parse(t, text).ToString();
}

TEST(ValueTest, Boolean) {
  for (const char* s : {"t", "true", "TRUE", " yes ", "y", "on", "1", "tr", "Ye"}) {
    EXPECT_EQ(RoundTrip(Type::Boolean(), s), "t") << s;
  }
  for (const char* s : {"f", "false", "No", "n", "off", "0", "  fal\t"}) {
    EXPECT_EQ(RoundTrip(Type::Boolean(), s), "f") << s;
  }
  for (const char* s : {"o", "2", "", "truex", "yess"}) {
    ExpectParseError(Type::Boolean(), s, "22P02",
                     std::string("invalid input syntax for type boolean: \"") + s + "\"");
  }
}

TEST(ValueTest, Integers) {
  EXPECT_EQ(RoundTrip(Type::SmallInt(), "-32768"), "-32768");
  EXPECT_EQ(RoundTrip(Type::SmallInt(), "32767"), "32767");
  EXPECT_EQ(RoundTrip(Type::Integer(), " +42 "), "42");
  EXPECT_EQ(RoundTrip(Type::Integer(), "-2147483648"), "-2147483648");
  EXPECT_EQ(RoundTrip(Type::Integer(), "2147483647"), "2147483647");
  EXPECT_EQ(RoundTrip(Type::BigInt(), "-9223372036854775808"), "-9223372036854775808");
  EXPECT_EQ(RoundTrip(Type::BigInt(), "9223372036854775807"), "9223372036854775807");
  EXPECT_EQ(RoundTrip(Type::BigInt(), "007"), "7");
  EXPECT_EQ(Value::Parse(Type::SmallInt(), "5").type(), Type::SmallInt());

  ExpectParseError(Type::SmallInt(), "99999", "22003",
                   "value \"99999\" is out of range for type smallint");
  ExpectParseError(Type::SmallInt(), "-32769", "22003",
                   "value \"-32769\" is out of range for type smallint");
  ExpectParseError(Type::Integer(), "2147483648", "22003",
                   "value \"2147483648\" is out of range for type integer");
  ExpectParseError(Type::BigInt(), "9223372036854775808", "22003",
                   "value \"9223372036854775808\" is out of range for type bigint");
  ExpectParseError(Type::BigInt(), "99999999999999999999999", "22003",
                   "value \"99999999999999999999999\" is out of range for type bigint");
  for (const char* s : {"abc", "", " ", "1.5", "+", "-", "1 2", "--1", "0x10"}) {
    ExpectParseError(Type::Integer(), s, "22P02",
                     std::string("invalid input syntax for type integer: \"") + s + "\"");
  }
  ExpectParseError(Type::BigInt(), "x", "22P02", "invalid input syntax for type bigint: \"x\"");
  ExpectParseError(Type::SmallInt(), "x", "22P02", "invalid input syntax for type smallint: \"x\"");
}

TEST(ValueTest, DoubleOutputMatchesPostgres) {
  struct Case {
    double d;
    const char* text;
  };
  const Case cases[] = {
      {0.1, "0.1"},
      {1e20, "1e+20"},
      {1.5e-7, "1.5e-07"},
      {-0.0, "-0"},
      {0.0, "0"},
      {1.0, "1"},
      {100, "100"},
      {123456789012345.0, "123456789012345"},  // exponent 14: fixed
      {1e15, "1e+15"},                         // exponent 15: scientific
      {1.5e15, "1.5e+15"},
      {0.0001, "0.0001"},  // exponent -4: fixed
      {0.00012, "0.00012"},
      {0.00001, "1e-05"},  // exponent -5: scientific
      {1.0 / 3, "0.3333333333333333"},
      {-2.5, "-2.5"},
      {1e100, "1e+100"},
      {5e-324, "5e-324"},
      {1.7976931348623157e308, "1.7976931348623157e+308"},
      {std::nan(""), "NaN"},
      {INFINITY, "Infinity"},
      {-INFINITY, "-Infinity"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Value::Double(c.d).ToString(), c.text);
    Value back = Value::Parse(Type::Double(), c.text);
    if (std::isnan(c.d)) {
      EXPECT_TRUE(std::isnan(back.GetDouble()));
    } else {
      EXPECT_EQ(back.GetDouble(), c.d) << c.text;
      EXPECT_EQ(std::signbit(back.GetDouble()), std::signbit(c.d)) << c.text;
    }
  }
}

TEST(ValueTest, DoubleInput) {
  EXPECT_EQ(Value::Parse(Type::Double(), " 1.5 ").GetDouble(), 1.5);
  EXPECT_EQ(Value::Parse(Type::Double(), "+3").GetDouble(), 3);
  EXPECT_EQ(Value::Parse(Type::Double(), "1E3").GetDouble(), 1000);
  EXPECT_EQ(Value::Parse(Type::Double(), "-inf").GetDouble(), -INFINITY);
  EXPECT_EQ(Value::Parse(Type::Double(), "infinity").GetDouble(), INFINITY);
  EXPECT_TRUE(std::isnan(Value::Parse(Type::Double(), "nan").GetDouble()));
  ExpectParseError(Type::Double(), "abc", "22P02",
                   "invalid input syntax for type double precision: \"abc\"");
  ExpectParseError(Type::Double(), "1.5x", "22P02",
                   "invalid input syntax for type double precision: \"1.5x\"");
  ExpectParseError(Type::Double(), "", "22P02",
                   "invalid input syntax for type double precision: \"\"");
  ExpectParseError(Type::Double(), "1e400", "22003",
                   "\"1e400\" is out of range for type double precision");
}

TEST(ValueTest, Decimal) {
  Type t = Type::Decimal(5, 2);
  EXPECT_EQ(RoundTrip(t, "12.5"), "12.50");
  EXPECT_EQ(RoundTrip(t, "-12.345"), "-12.35");  // half away from zero
  EXPECT_EQ(RoundTrip(t, "12.344"), "12.34");
  EXPECT_EQ(RoundTrip(t, "0.005"), "0.01");
  EXPECT_EQ(RoundTrip(t, "-0.004"), "0.00");
  EXPECT_EQ(RoundTrip(t, ".5"), "0.50");
  EXPECT_EQ(RoundTrip(t, "5."), "5.00");
  EXPECT_EQ(RoundTrip(t, " 1.5e2 "), "150.00");
  EXPECT_EQ(RoundTrip(t, "15e-3"), "0.02");
  EXPECT_EQ(RoundTrip(t, "999.99"), "999.99");
  EXPECT_EQ(RoundTrip(t, "000123.4"), "123.40");
  EXPECT_EQ(Value::Parse(t, "12.5").GetInt(), 1250);
  EXPECT_EQ(RoundTrip(Type::Decimal(18, 0), "999999999999999999"), "999999999999999999");
  EXPECT_EQ(RoundTrip(Type::Decimal(18, 0), "-999999999999999999"), "-999999999999999999");
  EXPECT_EQ(RoundTrip(Type::Decimal(18, 18), "0.999999999999999999"), "0.999999999999999999");
  EXPECT_EQ(RoundTrip(Type::Decimal(18, 18), "-0.000000000000000001"), "-0.000000000000000001");
  EXPECT_EQ(RoundTrip(Type::Decimal(3, 0), "1.5"), "2");

  const std::string overflow =
      "numeric field overflow: a field with precision 5, scale 2 must round to an absolute "
      "value less than 10^3";
  ExpectParseError(t, "1000", "22003", overflow);
  ExpectParseError(t, "999.995", "22003", overflow);  // rounds up to 1000.00
  ExpectParseError(t, "1e3", "22003", overflow);
  ExpectParseError(Type::Decimal(18, 18), "1", "22003",
                   "numeric field overflow: a field with precision 18, scale 18 must round to an "
                   "absolute value less than 1");
  ExpectParseError(Type::Decimal(18, 0), "1000000000000000000", "22003",
                   "numeric field overflow: a field with precision 18, scale 0 must round to an "
                   "absolute value less than 10^18");
  for (const char* s : {"abc", "", "1.2.3", "1e", "e5", "- 1", "1,5"}) {
    ExpectParseError(t, s, "22P02",
                     std::string("invalid input syntax for type numeric: \"") + s + "\"");
  }
  ExpectError([&] { Value::Parse(t, "NaN"); }, "0A000",
              "NaN and infinity are not supported for type numeric(5,2): \"NaN\"");
}

TEST(ValueTest, CharAndVarchar) {
  EXPECT_EQ(RoundTrip(Type::Char(3), "a"), "a  ");
  EXPECT_EQ(RoundTrip(Type::Char(3), "abc"), "abc");
  EXPECT_EQ(RoundTrip(Type::Char(3), "ab    "), "ab ");  // only blanks cut
  EXPECT_EQ(RoundTrip(Type::Char(3), "äöü"), "äöü");     // characters, not bytes
  EXPECT_EQ(RoundTrip(Type::Char(4), "äö"), "äö  ");
  EXPECT_EQ(RoundTrip(Type::Varchar(3), "ab"), "ab");
  EXPECT_EQ(RoundTrip(Type::Varchar(3), "abc  "), "abc");
  EXPECT_EQ(RoundTrip(Type::Varchar(2), "日本"), "日本");
  EXPECT_EQ(RoundTrip(Type::Varchar(), std::string(10000, 'x')), std::string(10000, 'x'));
  EXPECT_EQ(RoundTrip(Type::Text(), "  any thing  "), "  any thing  ");
  ExpectParseError(Type::Char(3), "abcd", "22001", "value too long for type character(3)");
  ExpectParseError(Type::Char(3), "ab c", "22001", "value too long for type character(3)");
  ExpectParseError(Type::Varchar(3), "abcd", "22001",
                   "value too long for type character varying(3)");
  ExpectParseError(Type::Varchar(1), "日本", "22001",
                   "value too long for type character varying(1)");
}

TEST(ValueTest, DateAndTimestampText) {
  EXPECT_EQ(RoundTrip(Type::Date(), "2024-01-02"), "2024-01-02");
  EXPECT_EQ(RoundTrip(Type::Date(), " 2024-02-29 "), "2024-02-29");
  EXPECT_EQ(RoundTrip(Type::Date(), "0001-01-01"), "0001-01-01");
  EXPECT_EQ(RoundTrip(Type::Date(), "9999-12-31"), "9999-12-31");
  EXPECT_EQ(RoundTrip(Type::Date(), "1969-12-31"), "1969-12-31");
  EXPECT_EQ(Value::Parse(Type::Date(), "1970-01-02").GetInt(), 1);
  EXPECT_EQ(RoundTrip(Type::Timestamp(), "2024-01-02 10:00:00.5"), "2024-01-02 10:00:00.5");
  EXPECT_EQ(RoundTrip(Type::Timestamp(), "2024-01-02T10:00:00"), "2024-01-02 10:00:00");
  EXPECT_EQ(RoundTrip(Type::Timestamp(), "2024-01-02"), "2024-01-02 00:00:00");
  EXPECT_EQ(RoundTrip(Type::Timestamp(), "2024-01-02 +00"), "2024-01-02 00:00:00");
  EXPECT_EQ(RoundTrip(Type::Timestamp(), "2024-01-02 10:00:00+05:30"), "2024-01-02 10:00:00");
  EXPECT_EQ(RoundTrip(Type::Timestamp(), "2024-01-02 10:00:00Z"), "2024-01-02 10:00:00");
  EXPECT_EQ(RoundTrip(Type::Timestamp(), "2024-01-02 10:00:00-08"), "2024-01-02 10:00:00");
  EXPECT_EQ(RoundTrip(Type::Timestamp(), "2024-01-02 10:00"), "2024-01-02 10:00:00");
  EXPECT_EQ(RoundTrip(Type::Timestamp(), "1969-12-31 23:59:59.999999"),
            "1969-12-31 23:59:59.999999");
  EXPECT_EQ(RoundTrip(Type::Timestamp(), "2024-01-02 10:00:00.0000005"),
            "2024-01-02 10:00:00.000001");
  EXPECT_EQ(RoundTrip(Type::Timestamp(), "2024-01-02 24:00:00"), "2024-01-03 00:00:00");
  EXPECT_EQ(RoundTrip(Type::Timestamp(), "0001-01-01 00:00:00"), "0001-01-01 00:00:00");
  EXPECT_EQ(RoundTrip(Type::Timestamp(), "9999-12-31 23:59:59.999999"),
            "9999-12-31 23:59:59.999999");
  EXPECT_EQ(Value::Parse(Type::Timestamp(), "1970-01-01 00:00:00.000001").GetInt(), 1);
}

TEST(ValueTest, DateAndTimestampErrors) {
  ExpectParseError(Type::Date(), "2023-02-29", "22008",
                   "date/time field value out of range: \"2023-02-29\"");
  ExpectParseError(Type::Date(), "2023-13-01", "22008",
                   "date/time field value out of range: \"2023-13-01\"");
  ExpectParseError(Type::Date(), "0000-01-01", "22008",
                   "date/time field value out of range: \"0000-01-01\"");
  ExpectParseError(Type::Date(), "10000-01-01", "22008", "date out of range: \"10000-01-01\"");
  ExpectParseError(Type::Date(), "abc", "22007", "invalid input syntax for type date: \"abc\"");
  ExpectParseError(Type::Date(), "2024-01", "22007",
                   "invalid input syntax for type date: \"2024-01\"");
  ExpectParseError(Type::Date(), "2024-01-02x", "22007",
                   "invalid input syntax for type date: \"2024-01-02x\"");
  ExpectParseError(Type::Date(), "0044-03-15 BC", "0A000",
                   "BC dates are not supported: \"0044-03-15 BC\"");
  ExpectParseError(Type::Timestamp(), "2024-01-02 25:00:00", "22008",
                   "date/time field value out of range: \"2024-01-02 25:00:00\"");
  ExpectParseError(Type::Timestamp(), "2024-01-02 10:61", "22008",
                   "date/time field value out of range: \"2024-01-02 10:61\"");
  ExpectParseError(Type::Timestamp(), "2024-01-02 10", "22007",
                   "invalid input syntax for type timestamp: \"2024-01-02 10\"");
  ExpectParseError(Type::Timestamp(), "2024-01-02 10:00:00 +xx", "22007",
                   "invalid input syntax for type timestamp: \"2024-01-02 10:00:00 +xx\"");
  ExpectParseError(Type::Timestamp(), "9999-12-31 24:00:00", "22008",
                   "timestamp out of range: \"9999-12-31 24:00:00\"");
}

TEST(ValueTest, CastNumeric) {
  // float8 -> int rounds half to even, as PostgreSQL's rint() does.
  EXPECT_EQ(Value::Double(2.5).CastTo(Type::Integer()).GetInt(), 2);
  EXPECT_EQ(Value::Double(3.5).CastTo(Type::Integer()).GetInt(), 4);
  EXPECT_EQ(Value::Double(-2.5).CastTo(Type::Integer()).GetInt(), -2);
  EXPECT_EQ(Value::Double(2.6).CastTo(Type::Integer()).GetInt(), 3);
  EXPECT_THROW(Value::Double(9.3e18).CastTo(Type::BigInt()), DbError);
  EXPECT_EQ(Value::Double(2.4).CastTo(Type::SmallInt()).GetInt(), 2);
  EXPECT_EQ(Value::Decimal(-250, 5, 2).CastTo(Type::BigInt()).GetInt(), -3);
  EXPECT_EQ(Value::Decimal(249, 5, 2).CastTo(Type::BigInt()).GetInt(), 2);
  EXPECT_EQ(Value::BigInt(7).CastTo(Type::Decimal(5, 2)).GetInt(), 700);
  EXPECT_EQ(Value::Decimal(12345, 5, 3).CastTo(Type::Decimal(5, 1)).ToString(), "12.3");
  EXPECT_EQ(Value::Decimal(12355, 5, 3).CastTo(Type::Decimal(5, 2)).ToString(), "12.36");
  EXPECT_EQ(Value::Decimal(125, 3, 2).CastTo(Type::Decimal(6, 4)).ToString(), "1.2500");
  EXPECT_EQ(Value::Double(0.1).CastTo(Type::Decimal(10, 5)).ToString(), "0.10000");
  EXPECT_EQ(Value::Double(2.675).CastTo(Type::Decimal(10, 2)).ToString(), "2.68");
  EXPECT_EQ(Value::Decimal(1, 18, 18).CastTo(Type::Double()).GetDouble(), 1e-18);
  EXPECT_EQ(Value::Decimal(999999999999999999, 18, 0).CastTo(Type::Double()).GetDouble(), 1e18);
  EXPECT_EQ(Value::Integer(5).CastTo(Type::Double()).GetDouble(), 5.0);
  EXPECT_EQ(Value::BigInt(40000).CastTo(Type::Integer()).type(), Type::Integer());
  EXPECT_TRUE(Value::Integer(3).CastTo(Type::Boolean()).GetBool());
  EXPECT_EQ(Value::Boolean(true).CastTo(Type::Integer()).GetInt(), 1);

  ExpectError([] { Value::BigInt(40000).CastTo(Type::SmallInt()); }, "22003",
              "smallint out of range");
  ExpectError([] { Value::BigInt(int64_t{1} << 40).CastTo(Type::Integer()); }, "22003",
              "integer out of range");
  ExpectError([] { Value::Double(1e19).CastTo(Type::BigInt()); }, "22003", "bigint out of range");
  ExpectError([] { Value::Double(9223372036854775808.0).CastTo(Type::BigInt()); }, "22003",
              "bigint out of range");
  ExpectError([] { Value::Double(std::nan("")).CastTo(Type::Integer()); }, "22003",
              "integer out of range");
  ExpectError([] { Value::Decimal(32767500, 10, 3).CastTo(Type::SmallInt()); }, "22003",
              "smallint out of range");
  ExpectError([] { Value::Integer(1000).CastTo(Type::Decimal(5, 2)); }, "22003",
              "numeric field overflow: a field with precision 5, scale 2 must round to an "
              "absolute value less than 10^3");
  ExpectError([] { Value::Decimal(99999, 5, 2).CastTo(Type::Decimal(4, 1)); }, "22003",
              "numeric field overflow: a field with precision 4, scale 1 must round to an "
              "absolute value less than 10^3");
  ExpectError([] { Value::Double(INFINITY).CastTo(Type::Decimal(5, 2)); }, "22003",
              "cannot convert infinity to numeric");
}

TEST(ValueTest, CastStringsAndDates) {
  EXPECT_EQ(Value::Integer(42).CastTo(Type::Text()).GetString(), "42");
  EXPECT_EQ(Value::Boolean(true).CastTo(Type::Text()).GetString(), "true");
  EXPECT_EQ(Value::Decimal(1250, 5, 2).CastTo(Type::Varchar(10)).GetString(), "12.50");
  EXPECT_EQ(Value::Text("ab").CastTo(Type::Char(4)).GetString(), "ab  ");
  EXPECT_EQ(Value::String(Type::Char(4), "ab  ").CastTo(Type::Text()).GetString(), "ab");
  EXPECT_EQ(Value::String(Type::Char(4), "12  ").CastTo(Type::Integer()).GetInt(), 12);
  EXPECT_EQ(Value::Text(" 12 ").CastTo(Type::Integer()).GetInt(), 12);
  EXPECT_EQ(Value::Text("yes").CastTo(Type::Boolean()).GetBool(), true);
  EXPECT_EQ(Value::Text("2024-01-02").CastTo(Type::Date()).ToString(), "2024-01-02");
  EXPECT_EQ(Value::Date(19724).CastTo(Type::Text()).GetString(), "2024-01-02");
  EXPECT_EQ(Value::Date(19724).CastTo(Type::Timestamp()).ToString(), "2024-01-02 00:00:00");
  EXPECT_EQ(Value::Parse(Type::Timestamp(), "2024-01-02 23:59:59").CastTo(Type::Date()).ToString(),
            "2024-01-02");
  EXPECT_EQ(Value::Parse(Type::Timestamp(), "1969-12-31 23:59:59").CastTo(Type::Date()).ToString(),
            "1969-12-31");
  EXPECT_EQ(Value::Double(0.1).CastTo(Type::Text()).GetString(), "0.1");
  ExpectError([] { Value::Text("abcd").CastTo(Type::Varchar(3)); }, "22001",
              "value too long for type character varying(3)");
  ExpectError([] { Value::BigInt(12345).CastTo(Type::Char(3)); }, "22001",
              "value too long for type character(3)");
  ExpectError([] { Value::Text("x").CastTo(Type::Integer()); }, "22P02",
              "invalid input syntax for type integer: \"x\"");
  ExpectError([] { Value::Date(0).CastTo(Type::Integer()); }, "42846",
              "cannot cast type date to integer");
  ExpectError([] { Value::Double(1).CastTo(Type::Boolean()); }, "42846",
              "cannot cast type double precision to boolean");
  ExpectError([] { Value::Boolean(true).CastTo(Type::Date()); }, "42846",
              "cannot cast type boolean to date");
}

TEST(ValueTest, CastNullAndIdentity) {
  Value n = Value::Null(Type::Integer()).CastTo(Type::Text());
  EXPECT_TRUE(n.is_null());
  EXPECT_EQ(n.type(), Type::Text());
  const Value samples[] = {Value::Boolean(true), Value::SmallInt(-3), Value::Integer(7),
                           Value::BigInt(1),     Value::Double(0.5),  Value::Decimal(125, 4, 2),
                           Value::Text("x"),     Value::Date(3),      Value::Timestamp(99)};
  for (const Value& v : samples) {
    Value same = v.CastTo(v.type());
    EXPECT_EQ(same.type(), v.type());
    EXPECT_EQ(same.Compare(v), 0) << v.ToString();
    // Every value survives text and back.
    EXPECT_EQ(v.CastTo(Type::Text()).CastTo(v.type()).Compare(v), 0) << v.ToString();
  }
}

TEST(ValueTest, CompareAcrossNumericTypes) {
  EXPECT_EQ(Value::Integer(1).Compare(Value::Decimal(100, 5, 2)), 0);
  EXPECT_EQ(Value::Integer(1).Compare(Value::Decimal(101, 5, 2)), -1);
  EXPECT_EQ(Value::Decimal(150, 5, 2).Compare(Value::Double(1.5)), 0);
  EXPECT_EQ(Value::Decimal(15, 5, 1).Compare(Value::Decimal(150, 5, 2)), 0);
  EXPECT_EQ(Value::SmallInt(-1).Compare(Value::BigInt(-2)), 1);
  EXPECT_EQ(Value::BigInt(std::numeric_limits<int64_t>::max())
                .Compare(Value::BigInt(std::numeric_limits<int64_t>::max() - 1)),
            1);
  EXPECT_EQ(Value::BigInt(std::numeric_limits<int64_t>::max()).Compare(Value::Double(9.3e18)), -1);
  EXPECT_EQ(Value::Double(-0.0).Compare(Value::Double(0.0)), 0);
  EXPECT_EQ(Value::Double(std::nan("")).Compare(Value::Double(INFINITY)), 1);
  EXPECT_EQ(Value::Double(std::nan("")).Compare(Value::Double(std::nan(""))), 0);
  EXPECT_EQ(Value::Integer(5).Compare(Value::Double(std::nan(""))), -1);
}

TEST(ValueTest, CompareOthersAndNulls) {
  EXPECT_EQ(Value::Null(Type::Integer()).Compare(Value::Integer(5)), 1);
  EXPECT_EQ(Value::Integer(5).Compare(Value::Null(Type::Integer())), -1);
  EXPECT_EQ(Value::Null(Type::Integer()).Compare(Value::Null(Type::Text())), 0);
  EXPECT_EQ(Value::String(Type::Char(5), "ab   ").Compare(Value::Text("ab")), 0);
  EXPECT_EQ(Value::Text("ab ").Compare(Value::Text("ab")), 1);
  EXPECT_EQ(Value::Text("a").Compare(Value::Text("b")), -1);
  EXPECT_EQ(Value::Text("\xc3\xa4").Compare(Value::Text("z")), 1);  // bytewise
  EXPECT_EQ(Value::Boolean(false).Compare(Value::Boolean(true)), -1);
  EXPECT_EQ(Value::Date(1).Compare(Value::Timestamp(datetime::kMicrosPerDay)), 0);
  EXPECT_EQ(Value::Date(1).Compare(Value::Timestamp(datetime::kMicrosPerDay + 1)), -1);
  ExpectError([] { Value::Integer(1).Compare(Value::Text("1")); }, "42804",
              "cannot compare values of types integer and text");
  ExpectError([] { Value::Date(1).Compare(Value::Boolean(true)); }, "42804",
              "cannot compare values of types date and boolean");
}

TEST(ValueTest, HashAgreesWithCompare) {
  const std::pair<Value, Value> equal[] = {
      {Value::Integer(7), Value::BigInt(7)},
      {Value::SmallInt(-7), Value::Decimal(-700, 5, 2)},
      {Value::Decimal(150, 5, 2), Value::Decimal(15, 5, 1)},
      {Value::Double(3.0), Value::Integer(3)},
      {Value::Decimal(150, 5, 2), Value::Double(1.5)},
      {Value::Decimal(-25, 5, 1), Value::Double(-2.5)},
      {Value::Decimal(300, 5, 2), Value::Double(3)},
      {Value::BigInt((int64_t{1} << 60) + 1), Value::Decimal((int64_t{1} << 60) + 1, 18, 0)},
      {Value::Double(-0.0), Value::Double(0.0)},
      {Value::Double(std::nan("")), Value::Double(-std::nan(""))},
      {Value::String(Type::Char(5), "ab"), Value::String(Type::Char(5), "ab   ")},
      {Value::String(Type::Char(3), "ab "), Value::Text("ab")},
      {Value::Date(1), Value::Timestamp(datetime::kMicrosPerDay)},
      {Value::Null(Type::Integer()), Value::Null(Type::Integer())},
  };
  for (const auto& [a, b] : equal) {
    ASSERT_EQ(a.Compare(b), 0) << a.type().ToString() << " " << b.type().ToString();
    EXPECT_EQ(a.Hash(), b.Hash()) << a.type().ToString() << " " << b.type().ToString();
  }
  EXPECT_NE(Value::Integer(1).Hash(), Value::Integer(2).Hash());
  // Large keys stay exact (no detour through double).
  EXPECT_NE(Value::BigInt((int64_t{1} << 60) + 1).Hash(),
            Value::BigInt((int64_t{1} << 60) + 2).Hash());
  EXPECT_NE(Value::Text("a").Hash(), Value::Text("b").Hash());
  EXPECT_NE(Value::Decimal(15, 5, 1).Hash(), Value::Decimal(16, 5, 1).Hash());
}

TEST(ValueTest, EdgeValuesRoundTrip) {
  const Value values[] = {
      Value::SmallInt(std::numeric_limits<int16_t>::min()),
      Value::SmallInt(std::numeric_limits<int16_t>::max()),
      Value::Integer(std::numeric_limits<int32_t>::min()),
      Value::Integer(std::numeric_limits<int32_t>::max()),
      Value::BigInt(std::numeric_limits<int64_t>::min()),
      Value::BigInt(std::numeric_limits<int64_t>::max()),
      Value::Decimal(999999999999999999, 18, 0),
      Value::Decimal(-999999999999999999, 18, 18),
      Value::Double(std::numeric_limits<double>::denorm_min()),
      Value::Double(std::numeric_limits<double>::max()),
      Value::Double(std::numeric_limits<double>::lowest()),
      Value::Double(-0.0),
      Value::Date(datetime::kMinDate),
      Value::Date(datetime::kMaxDate),
      Value::Timestamp(datetime::kMinTimestamp),
      Value::Timestamp(datetime::kMaxTimestamp),
      Value::Timestamp(-1),
  };
  for (const Value& v : values) {
    Value back = Value::Parse(v.type(), v.ToString());
    EXPECT_EQ(back.Compare(v), 0) << v.ToString();
    EXPECT_EQ(back.ToString(), v.ToString());
  }
}

}  // namespace
}  // namespace forktail
