// bytea values (storage/value/bytea.h): the hex and escape input formats,
// the hex output, encode/decode in hex, base64 and escape with PostgreSQL's
// errors, and Value's casts, order and binary wire format.
#include "storage/value/bytea.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>

#include "storage/error.h"
#include "storage/value/pg_binary.h"
#include "storage/value/value.h"

namespace forktail {
namespace {

using namespace std::string_literals;

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const DbError& e) {
    return std::string(e.sqlstate()) + " " + e.what();
  }
  return "no error";
}

TEST(Bytea, ParsesHexAndEscapeFormats) {
  EXPECT_EQ(bytea::Parse("\\x"), "");
  EXPECT_EQ(bytea::Parse("\\x0A1b"), "\x0a\x1b"s);
  EXPECT_EQ(bytea::Parse("\\x 0a\n1b\t"), "\x0a\x1b"s);
  EXPECT_EQ(bytea::Parse("abc"), "abc");
  EXPECT_EQ(bytea::Parse("a\\\\b\\000\\377"), "a\\b\0\xff"s);
  EXPECT_EQ(ErrorOf([] { bytea::Parse("\\x0g"); }), "22023 invalid hexadecimal digit: \"g\"");
  EXPECT_EQ(ErrorOf([] { bytea::Parse("\\x0a1"); }),
            "22023 invalid hexadecimal data: odd number of digits");
  EXPECT_EQ(ErrorOf([] { bytea::Parse("\\x0\xc3\xa9"); }),
            "22023 invalid hexadecimal digit: \"\xc3\xa9\"");
  for (const char* bad : {"a\\q", "\\", "\\4000", "\\12"}) {
    EXPECT_EQ(ErrorOf([&] { bytea::Parse(bad); }), "22P02 invalid input syntax for type bytea")
        << bad;
  }
}

TEST(Bytea, FormatsHex) {
  EXPECT_EQ(bytea::FormatHex(""), "\\x");
  EXPECT_EQ(bytea::FormatHex("\x00\xff\x5c"s), "\\x00ff5c");
}

TEST(Bytea, EncodeDecodeRoundTripEveryFormat) {
  std::mt19937 rng(7);
  for (int n : {0, 1, 2, 3, 56, 57, 58, 200}) {
    std::string bytes;
    for (int i = 0; i < n; ++i) bytes.push_back(static_cast<char>(rng()));
    for (const char* format : {"hex", "base64", "escape"}) {
      EXPECT_EQ(bytea::Decode(bytea::Encode(bytes, format), format), bytes) << format << " " << n;
    }
    EXPECT_EQ(bytea::Parse(bytea::FormatHex(bytes)), bytes);
  }
}

TEST(Bytea, EncodesAsPostgres) {
  EXPECT_EQ(bytea::Encode("hello", "base64"), "aGVsbG8=");
  EXPECT_EQ(bytea::Encode("\x00\xff\\A"s, "escape"), "\\000\\377\\\\A");
  // A newline after every 76 characters, the last full line's included.
  EXPECT_EQ(bytea::Encode(std::string(57, 'a'), "base64").size(), 77u);
  EXPECT_EQ(bytea::Encode(std::string(57, 'a'), "base64").back(), '\n');
  EXPECT_EQ(bytea::Encode(std::string(58, 'a'), "base64").size(), 81u);
  EXPECT_EQ(bytea::Decode("aGVs\n bG8=", "base64"), "hello");
  EXPECT_EQ(ErrorOf([] { bytea::Decode("aGVsbG8", "base64"); }),
            "22023 invalid base64 end sequence");
  EXPECT_EQ(ErrorOf([] { bytea::Decode("a=", "base64"); }),
            "22023 unexpected \"=\" while decoding base64 sequence");
  EXPECT_EQ(ErrorOf([] { bytea::Decode("a*", "base64"); }),
            "22023 invalid symbol \"*\" found while decoding base64 sequence");
  EXPECT_EQ(ErrorOf([] { bytea::Encode("a", "rot13"); }), "22023 unrecognized encoding: \"rot13\"");
}

TEST(Bytea, ValueCastsOrderAndWireFormat) {
  const Value v = Value::Parse(Type::Bytea(), "\\xdeadbeef");
  EXPECT_EQ(v.ToString(), "\\xdeadbeef");
  EXPECT_EQ(v.CastTo(Type::Text()).GetString(), "\\xdeadbeef");
  EXPECT_EQ(Value::Text("abc").CastTo(Type::Bytea()).GetString(), "abc");
  for (const Type& other : {Type::Integer(), Type::Uuid(), Type::Jsonb(), Type::Date()}) {
    EXPECT_THROW(v.CastTo(other), DbError) << other.ToString();
  }
  EXPECT_THROW(Value::Integer(1).CastTo(Type::Bytea()), DbError);
  // Bytewise unsigned, then shorter first (byteacmp).
  const Value low = Value::Parse(Type::Bytea(), "\\x01");
  EXPECT_LT(low.Compare(Value::Parse(Type::Bytea(), "\\x0100")), 0);
  EXPECT_LT(low.Compare(v), 0);
  const std::string wire = PgBinarySend(Value::Parse(Type::Bytea(), "\\x00ff00"));
  EXPECT_EQ(wire, "\x00\xff\x00"s);
  EXPECT_EQ(PgBinaryReceive(wire, Type::Bytea()).ToString(), "\\x00ff00");
}

}  // namespace
}  // namespace forktail
