// Wire formats of values: OIDs and modifiers, text and binary output, binary
// and text parameter input (round trips and PostgreSQL's exact bytes from the
// recorded psycopg trace), and bad binary input.
#include <gtest/gtest.h>

#include "server/pg_types.h"
#include "storage/error.h"

namespace forktail {
namespace {

std::string Hex(std::string_view s) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(d[c >> 4]);
    out.push_back(d[c & 15]);
  }
  return out;
}

TEST(PgTypes, OidsAndModifiers) {
  EXPECT_EQ(PgTypeOf(Type::Boolean()).oid, 16);
  EXPECT_EQ(PgTypeOf(Type::BigInt()).oid, 20);
  EXPECT_EQ(PgTypeOf(Type::SmallInt()).length, 2);
  EXPECT_EQ(PgTypeOf(Type::Integer()).oid, 23);
  EXPECT_EQ(PgTypeOf(Type::Text()).oid, 25);
  EXPECT_EQ(PgTypeOf(Type::Double()).oid, 701);
  EXPECT_EQ(PgTypeOf(Type::Char(3)).oid, 1042);
  EXPECT_EQ(PgTypeOf(Type::Char(3)).modifier, 7);
  EXPECT_EQ(PgTypeOf(Type::Varchar(5)).modifier, 9);  // as the psycopg trace: mod9
  EXPECT_EQ(PgTypeOf(Type::Varchar()).modifier, -1);
  EXPECT_EQ(PgTypeOf(Type::Date()).oid, 1082);
  EXPECT_EQ(PgTypeOf(Type::Timestamp()).oid, 1114);
  EXPECT_EQ(PgTypeOf(Type::Decimal(10, 2)).oid, 1700);
  EXPECT_EQ(PgTypeOf(Type::Decimal(10, 2)).modifier, 655366);  // as the trace
  EXPECT_EQ(TypeFromPgOid(21), Type::SmallInt());
  EXPECT_EQ(PgTypeOf(Type::TimestampTz()).oid, 1184);
  EXPECT_EQ(PgTypeOf(Type::TimestampTz()).length, 8);
  EXPECT_EQ(TypeFromPgOid(1114), Type::Timestamp());
  EXPECT_EQ(TypeFromPgOid(1184), Type::TimestampTz());
  EXPECT_FALSE(TypeFromPgOid(0));
  EXPECT_FALSE(TypeFromPgOid(600));
}

TEST(PgTypes, BinaryOutputMatchesPostgres) {
  // Bytes from clients/psycopg.trace (PostgreSQL 15's answers).
  EXPECT_EQ(Hex(EncodeBinaryValue(Value::Integer(1))), "00000001");
  EXPECT_EQ(Hex(EncodeBinaryValue(Value::BigInt(2))), "0000000000000002");
  EXPECT_EQ(Hex(EncodeBinaryValue(Value::Double(1.5))), "3ff8000000000000");
  EXPECT_EQ(Hex(EncodeBinaryValue(Value::Decimal(1234, 10, 2))), "0002000000000002000c0d48");
  EXPECT_EQ(Hex(EncodeBinaryValue(Value::Parse(Type::Date(), "2024-01-02"))), "0000223f");
  EXPECT_EQ(Hex(EncodeBinaryValue(Value::Parse(Type::Timestamp(), "2024-01-02 03:04:05.678"))),
            "0002b0ec85204bb0");
  EXPECT_EQ(Hex(EncodeBinaryValue(Value::Boolean(true))), "01");
  EXPECT_EQ(EncodeBinaryValue(Value::Text("abc")), "abc");
  EXPECT_EQ(Hex(EncodeBinaryValue(Value::SmallInt(-2))), "fffe");
}

TEST(PgTypes, NumericBinaryForms) {
  // ndigits | weight | sign | dscale | digits
  EXPECT_EQ(Hex(DecimalToNumericBinary(0, 2)), "0000000000000002");
  EXPECT_EQ(Hex(DecimalToNumericBinary(-5, 0)),
            "0001000040000000"
            "0005");
  EXPECT_EQ(Hex(DecimalToNumericBinary(100000000, 0)),
            "0001000200000000"
            "0001");  // 1e8
  EXPECT_EQ(Hex(DecimalToNumericBinary(1, 6)),
            "0001fffe00000006"
            "0064");  // 0.000001
  for (int64_t v :
       {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{12345678}, int64_t{-999999999999999999},
        int64_t{100000000000000000}, int64_t{10001}, int64_t{-7}}) {
    for (int scale : {0, 1, 2, 4, 5, 9, 18}) {
      std::string text = NumericBinaryToText(DecimalToNumericBinary(v, scale), 1);
      Value back = Value::Parse(Type::Decimal(18, scale), text);
      EXPECT_EQ(back.GetInt(), v) << v << " scale " << scale << " text " << text;
    }
  }
  EXPECT_EQ(NumericBinaryToText(DecimalToNumericBinary(-1234, 2), 1), "-12.34");
  EXPECT_EQ(NumericBinaryToText(DecimalToNumericBinary(5, 3), 1), "0.005");
}

// 19..38-digit DECIMALs (__int128): PostgreSQL 15's numeric_send bytes and
// numeric(p,s) typmods.
TEST(PgTypes, WideNumeric) {
  Value a = Value::Parse(Type::Decimal(30, 2), "1234567890123456789012.34");
  EXPECT_EQ(Hex(EncodeBinaryValue(a)), "0007000500000002000c0d801ed204d2162e23340d48");
  EXPECT_EQ(EncodeTextValue(a), "1234567890123456789012.34");
  Value b = Value::Parse(Type::Decimal(38, 0), "-" + std::string(38, '9'));
  EXPECT_EQ(Hex(EncodeBinaryValue(b)), "000a0009400000000063270f270f270f270f270f270f270f270f270f");
  Value c = Value::Parse(Type::Decimal(38, 38), "0.00000000000000000000000000000000000001");
  EXPECT_EQ(Hex(EncodeBinaryValue(c)), "0001fff6000000260064");
  for (const Value& v : {a, b, c}) {
    std::string text = NumericBinaryToText(EncodeBinaryValue(v), 1);
    EXPECT_EQ(Value::Parse(v.type(), text).GetWide(), v.GetWide()) << text;
  }
  EXPECT_EQ(PgTypeOf(Type::Decimal(38, 6)).modifier, ((38 << 16) | 6) + 4);
  // A numeric parameter of more than 18 digits is taken as DECIMAL(38,s).
  Value p = DecodeParameter("12345678901234567890.5", 0, pgoid::kNumeric, std::nullopt, 1);
  EXPECT_EQ(p.type(), Type::Decimal(38, 1));
  EXPECT_EQ(p.ToString(), "12345678901234567890.5");
  Value q = DecodeParameter("-12.5", 0, pgoid::kNumeric, std::nullopt, 1);
  EXPECT_EQ(q.type(), Type::Decimal(18, 1));
  Value r = DecodeParameter(EncodeBinaryValue(a), 1, pgoid::kNumeric, std::nullopt, 1);
  EXPECT_EQ(r.ToString(), "1234567890123456789012.34");
}

TEST(PgTypes, TextOutput) {
  EXPECT_EQ(EncodeTextValue(Value::Boolean(false)), "f");
  EXPECT_EQ(EncodeTextValue(Value::Decimal(1234, 10, 2)), "12.34");
  EXPECT_EQ(EncodeTextValue(Value::Parse(Type::Timestamp(), "2024-01-02 03:04:05.678")),
            "2024-01-02 03:04:05.678");
}

TEST(PgTypes, BinaryParametersRoundTrip) {
  std::vector<Value> values = {Value::Boolean(true),
                               Value::SmallInt(-300),
                               Value::Integer(123456),
                               Value::BigInt(-1099511627776),
                               Value::Double(-0.25),
                               Value::Decimal(-123456, 12, 3),
                               Value::Text("héllo"),
                               Value::Parse(Type::Date(), "1999-12-31"),
                               Value::Parse(Type::Timestamp(), "1970-01-01 00:00:00.000001")};
  for (const Value& v : values) {
    int32_t oid = PgTypeOf(v.type()).oid;
    Value back = DecodeParameter(EncodeBinaryValue(v), 1, oid, v.type(), 1);
    EXPECT_EQ(back.Compare(v), 0) << v.ToString();
    // With no declared OID the statement's type decides.
    Value back2 = DecodeParameter(EncodeBinaryValue(v), 1, 0, v.type(), 1);
    EXPECT_EQ(back2.Compare(v), 0) << v.ToString();
    // Text form too.
    Value back3 = DecodeParameter(EncodeTextValue(v), 0, 0, v.type(), 1);
    EXPECT_EQ(back3.Compare(v), 0) << v.ToString();
  }
}

TEST(PgTypes, ParametersCastToTheStatementType) {
  // psycopg sends an int2 for a parameter the statement uses as int4.
  Value v = DecodeParameter(std::string("\0)", 2), 1, 21, Type::Integer(), 1);
  EXPECT_EQ(v.type(), Type::Integer());
  EXPECT_EQ(v.GetInt(), 41);
  // JDBC sends timestamps as text with a zone suffix.
  Value ts = DecodeParameter("2024-01-02 03:04:05 +00", 0, 1114, Type::Timestamp(), 1);
  EXPECT_EQ(ts.ToString(), "2024-01-02 03:04:05");
  // numeric text without a statement type keeps its scale.
  Value n = DecodeParameter("3.14159", 0, 1700, std::nullopt, 1);
  EXPECT_EQ(n.ToString(), "3.14159");
  // Unknown everything: text.
  EXPECT_EQ(DecodeParameter("abc", 0, 0, std::nullopt, 1).type(), Type::Text());
}

TEST(PgTypes, BadBinaryParameters) {
  auto code = [](auto fn) -> std::string {
    try {
      fn();
    } catch (const DbError& e) {
      return e.sqlstate();
    }
    return "none";
  };
  EXPECT_EQ(code([] { DecodeParameter("abc", 1, 23, Type::Integer(), 1); }), "22P03");
  EXPECT_EQ(code([] { DecodeParameter("", 1, 20, Type::BigInt(), 2); }), "22P03");
  EXPECT_EQ(code([] { DecodeParameter("\1\2", 1, 1700, std::nullopt, 1); }), "22P03");
  // numeric digit out of range (10000).
  EXPECT_EQ(code([] {
              DecodeParameter(std::string("\0\1\0\0\0\0\0\0\x27\x10", 10), 1, 1700, std::nullopt,
                              1);
            }),
            "22P03");
  EXPECT_EQ(code([] { DecodeParameter("1", 1, 0, std::nullopt, 3); }), "42P18");
  EXPECT_EQ(code([] { DecodeParameter("1", 2, 23, Type::Integer(), 1); }), "22023");
  EXPECT_EQ(code([] { DecodeParameter("x1", 0, 23, Type::Integer(), 1); }), "22P02");
  EXPECT_EQ(code([] { DecodeParameter("1", 1, 600, std::nullopt, 1); }), "0A000");
  try {
    DecodeParameter("abc", 1, 23, Type::Integer(), 4);
  } catch (const DbError& e) {
    EXPECT_STREQ(e.what(), "incorrect binary data format in bind parameter 4");
  }
}

}  // namespace
}  // namespace forktail
