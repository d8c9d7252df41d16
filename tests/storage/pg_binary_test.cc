// PostgreSQL's binary send/receive formats (storage/value/pg_binary.h): every
// type round-trips, a receive applies the column type's length and scale,
// and a malformed value fails with the SQLSTATE and message PostgreSQL's
// receive functions give (08P01 short, 22P03 long or invalid).
#include "storage/value/pg_binary.h"

#include <gtest/gtest.h>

#include "storage/error.h"

namespace forktail {
namespace {

std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  for (int b : bytes) out.push_back(static_cast<char>(b));
  return out;
}

std::string ErrorOf(std::string_view bytes, const Type& type) {
  try {
    PgBinaryReceive(bytes, type);
  } catch (const DbError& e) {
    return std::string(e.sqlstate()) + " " + e.what();
  }
  return "no error";
}

TEST(PgBinary, EveryTypeRoundTrips) {
  const std::vector<Value> values = {
      Value::Boolean(true),
      Value::Boolean(false),
      Value::SmallInt(-32768),
      Value::Integer(2147483647),
      Value::BigInt(-9223372036854775807LL - 1),
      Value::Double(-2.5e-10),
      Value::Parse(Type::Decimal(10, 2), "-12345678.99"),
      Value::Parse(Type::Decimal(38, 10), "1234567890123456789012345678.0123456789"),
      Value::Parse(Type::Decimal(5, 0), "0"),
      Value::Text("caf\xc3\xa9"),
      Value::Parse(Type::Char(3), "a"),
      Value::Parse(Type::Varchar(5), "ab"),
      Value::Parse(Type::Date(), "0001-01-01"),
      Value::Parse(Type::Date(), "2024-01-02"),
      Value::Parse(Type::Timestamp(), "1970-01-01 00:00:00.000001"),
  };
  for (const Value& v : values) {
    SCOPED_TRACE(v.ToString());
    const Value back = PgBinaryReceive(PgBinarySend(v), v.type());
    EXPECT_EQ(back.type(), v.type());
    EXPECT_EQ(back.ToString(), v.ToString());
  }
  EXPECT_EQ(PgBinarySend(Value::Parse(Type::Char(3), "a")), "a  ");
  EXPECT_EQ(PgBinarySend(Value::Integer(1)), Bytes({0, 0, 0, 1}));
}

TEST(PgBinary, ReceiveAppliesTheColumnType) {
  // numeric 1.2345 (dscale 4) into numeric(6,2): rounded, as PostgreSQL's
  // apply_typmod does.
  const std::string n = Bytes({0, 2, 0, 0, 0, 0, 0, 4, 0, 1, 0x09, 0x29});
  EXPECT_EQ(PgNumericBinaryToText(n), "1.2345");
  EXPECT_EQ(PgBinaryReceive(n, Type::Decimal(6, 2)).ToString(), "1.23");
  EXPECT_EQ(PgBinaryReceive("a", Type::Char(3)).ToString(), "a  ");
  EXPECT_EQ(ErrorOf("abcd", Type::Varchar(3)),
            "22001 value too long for type character varying(3)");
  EXPECT_EQ(PgBinaryReceive(Bytes({9}), Type::Boolean()).ToString(), "t");  // any non-zero byte
  // NaN, infinities and overflows are not DECIMALs.
  EXPECT_EQ(PgNumericBinaryToText(Bytes({0, 0, 0, 0, 0xC0, 0, 0, 0})), "NaN");
  EXPECT_EQ(PgNumericBinaryToText(Bytes({0, 0, 0, 0, 0xD0, 0, 0, 0})), "Infinity");
  EXPECT_EQ(ErrorOf(Bytes({0, 1, 0x7f, 0xff, 0, 0, 0, 0, 0, 1}), Type::Decimal(6, 2)).substr(0, 6),
            "22003 ");
}

TEST(PgBinary, MalformedValuesFailAsPostgres) {
  EXPECT_EQ(ErrorOf(Bytes({0, 1}), Type::Integer()), "08P01 insufficient data left in message");
  EXPECT_EQ(ErrorOf(Bytes({0, 0, 0, 0, 1}), Type::Integer()), "22P03 incorrect binary data format");
  EXPECT_EQ(ErrorOf("", Type::Boolean()), "08P01 insufficient data left in message");
  EXPECT_EQ(ErrorOf(Bytes({0, 0, 0, 0, 0, 0, 0}), Type::Timestamp()),
            "08P01 insufficient data left in message");
  EXPECT_EQ(ErrorOf(Bytes({0, 1, 0, 0, 0, 0, 0, 0, 0x27, 0x10}), Type::Decimal(6, 2)),
            "22P03 invalid digit in external \"numeric\" value");
  EXPECT_EQ(ErrorOf(Bytes({0, 1, 0, 0, 0x12, 0x34, 0, 0, 0, 1}), Type::Decimal(6, 2)),
            "22P03 invalid sign in external \"numeric\" value");
  EXPECT_EQ(ErrorOf(Bytes({0, 0, 0, 0, 0, 0, 0x40, 0}), Type::Decimal(6, 2)),
            "22P03 invalid scale in external \"numeric\" value");
  EXPECT_EQ(ErrorOf(Bytes({0, 1, 0, 0, 0}), Type::Decimal(6, 2)),
            "08P01 insufficient data left in message");
  EXPECT_EQ(ErrorOf("\xff", Type::Text()),
            "22021 invalid byte sequence for encoding \"UTF8\": 0xff");
  EXPECT_EQ(ErrorOf(std::string("a\0", 2), Type::Text()),
            "22021 invalid byte sequence for encoding \"UTF8\": 0x00");
  EXPECT_EQ(ErrorOf(Bytes({0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}), Type::Timestamp()),
            "22008 timestamp out of range");
  // Outside years 1..9999, as the text input refuses (found by fuzz/: such a
  // date overflowed when cast to a timestamp).
  EXPECT_EQ(ErrorOf(Bytes({0x00, 0x40, 0x00, 0x00}), Type::Date()), "22008 date out of range");
  EXPECT_EQ(ErrorOf(Bytes({0xbd, 0x00, 0xbd, 0x1c}), Type::Date()), "22008 date out of range");
  EXPECT_EQ(ErrorOf(Bytes({0x04, 0, 0, 0, 0, 0, 0, 0}), Type::Timestamp()),
            "22008 timestamp out of range");
  EXPECT_EQ(ErrorOf(Bytes({0xfc, 0, 0, 0, 0, 0, 0, 0}), Type::TimestampTz()),
            "22008 timestamp out of range");
  EXPECT_EQ(PgBinaryReceive(Bytes({0xff, 0xf4, 0xdb, 0xf9}), Type::Date()).ToString(),
            "0001-01-01");
}

}  // namespace
}  // namespace forktail
