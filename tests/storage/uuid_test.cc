// uuid values (storage/value/uuid.h): the input forms PostgreSQL's uuid_in
// accepts and refuses, the canonical text, the 16 wire bytes, version 4
// generation, and Value's casts and order.
#include "storage/value/uuid.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

#include "storage/error.h"
#include "storage/value/pg_binary.h"
#include "storage/value/value.h"

namespace forktail {
namespace {

constexpr const char* kCanonical = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11";

std::string ErrorOf(const std::string& text) {
  try {
    uuid::Canonicalize(text);
  } catch (const DbError& e) {
    return std::string(e.sqlstate()) + " " + e.what();
  }
  return "no error";
}

TEST(Uuid, AcceptsPostgresInputForms) {
  for (const char* text :
       {"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11",
        "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}", "a0eebc999c0b4ef8bb6d6bb9bd380a11",
        "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11", "{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}"}) {
    EXPECT_EQ(uuid::Canonicalize(text), kCanonical) << text;
  }
}

TEST(Uuid, RefusesWhatPostgresRefuses) {
  for (const char* text :
       {"", "xyz", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a111",
        "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-", "-a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
        "a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11", "a0eeb-c99-9c0b-4ef8-bb6d-6bb9bd380a11",
        "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}", "{}", "{",
        " a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"}) {
    EXPECT_EQ(ErrorOf(text),
              std::string("22P02 invalid input syntax for type uuid: \"") + text + "\"");
  }
}

TEST(Uuid, BytesRoundTripAndOrderAsText) {
  uint8_t bytes[uuid::kBytes];
  uuid::ToBytes(kCanonical, bytes);
  EXPECT_EQ(bytes[0], 0xa0);
  EXPECT_EQ(bytes[15], 0x11);
  EXPECT_EQ(uuid::FromBytes(bytes), kCanonical);
  // The canonical text orders as the bytes do (what lets uuids compare as strings).
  std::set<std::string> texts;
  for (int i = 0; i < 200; ++i) texts.insert(uuid::Random());
  std::string previous;
  uint8_t a[uuid::kBytes], b[uuid::kBytes];
  for (const std::string& t : texts) {
    if (!previous.empty()) {
      uuid::ToBytes(previous, a);
      uuid::ToBytes(t, b);
      EXPECT_LT(std::memcmp(a, b, uuid::kBytes), 0) << previous << " " << t;
    }
    previous = t;
  }
}

TEST(Uuid, RandomIsVersionFourAndDistinct) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string u = uuid::Random();
    ASSERT_EQ(u.size(), uuid::kTextLength);
    EXPECT_EQ(u[14], '4') << u;
    EXPECT_NE(std::string("89ab").find(u[19]), std::string::npos) << u;
    EXPECT_EQ(uuid::Canonicalize(u), u);
    seen.insert(u);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(Uuid, ValueParsesCastsAndCompares) {
  const Value v = Value::Parse(Type::Uuid(), "{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}");
  EXPECT_EQ(v.ToString(), kCanonical);
  EXPECT_EQ(Value::Text("A0EEBC999C0B4EF8BB6D6BB9BD380A11").CastTo(Type::Uuid()).ToString(),
            kCanonical);
  EXPECT_EQ(v.CastTo(Type::Text()).GetString(), kCanonical);
  EXPECT_EQ(Value::Null(Type::Text()).CastTo(Type::Uuid()).is_null(), true);
  for (const Type& other : {Type::Integer(), Type::Boolean(), Type::Date(), Type::Jsonb()}) {
    EXPECT_THROW(v.CastTo(other), DbError) << other.ToString();
  }
  EXPECT_THROW(Value::Integer(1).CastTo(Type::Uuid()), DbError);
  const Value lower = Value::Parse(Type::Uuid(), "00000000-0000-0000-0000-000000000001");
  EXPECT_LT(lower.Compare(v), 0);
  EXPECT_EQ(v.Compare(Value::Parse(Type::Uuid(), kCanonical)), 0);
  EXPECT_EQ(v.Hash(), Value::Parse(Type::Uuid(), "a0eebc999c0b4ef8bb6d6bb9bd380a11").Hash());
}

TEST(Uuid, BinaryWireFormatIsTheSixteenBytes) {
  const Value v = Value::Parse(Type::Uuid(), kCanonical);
  const std::string wire = PgBinarySend(v);
  ASSERT_EQ(wire.size(), uuid::kBytes);
  EXPECT_EQ(static_cast<uint8_t>(wire[0]), 0xa0);
  EXPECT_EQ(PgBinaryReceive(wire, Type::Uuid()).ToString(), kCanonical);
  EXPECT_THROW(PgBinaryReceive(wire.substr(0, 15), Type::Uuid()), DbError);
  EXPECT_THROW(PgBinaryReceive(wire + "x", Type::Uuid()), DbError);
}

}  // namespace
}  // namespace forktail
