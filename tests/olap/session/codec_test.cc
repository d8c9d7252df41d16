// The snapshot result codec (row_codec.h): round trips of every type and
// NULLs, the query request, and malformed batches (08P01, nothing appended).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "olap/session/format/row_codec.h"

namespace forktail {
namespace {

std::vector<ResultColumn> AllTypes() {
  return {{"b", Type::Boolean()}, {"s", Type::SmallInt()},  {"i", Type::Integer()},
          {"l", Type::BigInt()},  {"d", Type::Double()},    {"n", Type::Decimal(15, 2)},
          {"c", Type::Char(3)},   {"v", Type::Varchar(10)}, {"t", Type::Text()},
          {"dt", Type::Date()},   {"ts", Type::Timestamp()}};
}

Row SampleRow(int64_t k) {
  return {Value::Boolean(k % 2 == 0),
          Value::SmallInt(static_cast<int16_t>(-k)),
          Value::Integer(static_cast<int32_t>(k * 1000)),
          Value::BigInt(k == 1 ? std::numeric_limits<int64_t>::min() : k * 1'000'000'007),
          Value::Double(k == 2 ? -0.0 : 1.0 / (k + 3)),
          Value::Decimal(-12345 * k, 15, 2),
          Value::String(Type::Char(3), "ab "),
          Value::String(Type::Varchar(10), "héllo"),
          Value::Text(std::string(k, 'x')),
          Value::Date(static_cast<int32_t>(10'000 - k)),
          Value::Timestamp(k * 86'400'000'000)};
}

TEST(EngineCodecTest, RoundTripsEveryTypeAndNulls) {
  std::vector<ResultColumn> columns = AllTypes();
  std::vector<Type> types;
  for (const auto& c : columns) types.push_back(c.type);
  std::vector<Row> rows;
  for (int64_t k = 0; k < 5; k++) rows.push_back(SampleRow(k));
  Row nulls;
  for (const Type& t : types) nulls.push_back(Value::Null(t));
  rows.push_back(nulls);
  rows[3][4] = Value::Null(Type::Double());

  ResultDecoder decoder;
  decoder.Add(EncodeResultHeader(columns));
  decoder.Add(EncodeResultRows(types, rows.data(), 4));
  decoder.Add(EncodeResultRows(types, rows.data() + 4, rows.size() - 4));
  decoder.Add(EncodeResultTag("SELECT 6"));
  StatementResult result = decoder.Take();
  EXPECT_EQ(result.command_tag, "SELECT 6");
  EXPECT_EQ(result.columns, columns);
  ASSERT_EQ(result.rows.size(), rows.size());
  for (size_t r = 0; r < rows.size(); r++) {
    for (size_t c = 0; c < types.size(); c++) {
      SCOPED_TRACE("row " + std::to_string(r) + " column " + columns[c].name);
      const Value& got = result.rows[r][c];
      const Value& want = rows[r][c];
      ASSERT_EQ(got.is_null(), want.is_null());
      EXPECT_EQ(got.type(), types[c]);
      if (!want.is_null()) {
        EXPECT_EQ(got.ToString(), want.ToString());
      }
    }
  }
  EXPECT_TRUE(std::signbit(result.rows[2][4].GetDouble()));
}

TEST(EngineCodecTest, SmallIntegersTakeFewBytes) {
  std::vector<Type> types = {Type::BigInt(), Type::BigInt()};
  Row row = {Value::BigInt(5), Value::Null(Type::BigInt())};
  // kind + count + bitmap + one 1-byte varint
  EXPECT_EQ(EncodeResultRows(types, &row, 1).size(), 1u + 4u + 1u + 1u);
}

TEST(EngineCodecTest, ValuesOfAnotherTypeAreCastToTheColumnType) {
  std::vector<Type> types = {Type::Double()};
  Row row = {Value::Integer(3)};
  ResultDecoder decoder;
  decoder.Add(EncodeResultHeader({{"x", Type::Double()}}));
  decoder.Add(EncodeResultRows(types, &row, 1));
  EXPECT_EQ(decoder.result().rows[0][0].GetDouble(), 3.0);
}

TEST(EngineCodecTest, QueryRequestRoundTrip) {
  QueryRequest request;
  request.sql = "   SELECT $1, $2";
  request.parameter_types = {Type::BigInt(), Type::Text()};
  request.parameters = {Value::BigInt(-7), Value::Null(Type::Text())};
  request.time_zone = "Europe/Paris";
  request.user = "alice";
  request.database = "shop";
  request.backend_pid = 4242;
  request.settings = {{"application_name", "", "Sets the application name."},
                      {"statement_timeout", "5s", ""}};
  QueryRequest back = DecodeQueryRequest(EncodeQueryRequest(request));
  EXPECT_EQ(back.sql, request.sql);
  EXPECT_EQ(back.time_zone, request.time_zone);
  EXPECT_EQ(back.user, "alice");
  EXPECT_EQ(back.database, "shop");
  EXPECT_EQ(back.backend_pid, 4242);
  EXPECT_EQ(back.settings, request.settings);
  EXPECT_EQ(back.parameter_types, request.parameter_types);
  ASSERT_EQ(back.parameters.size(), 2u);
  EXPECT_EQ(back.parameters[0].GetInt(), -7);
  EXPECT_TRUE(back.parameters[1].is_null());
}

void ExpectMalformed(ResultDecoder& decoder, std::string_view batch, const std::string& what) {
  try {
    decoder.Add(batch);
    FAIL() << "accepted a malformed batch";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), "08P01");
    EXPECT_EQ(std::string(e.what()), "malformed result batch from snapshot: " + what);
  }
}

TEST(EngineCodecTest, MalformedBatchesAreRejectedWithoutPartialRows) {
  std::vector<Type> types = {Type::BigInt(), Type::Text()};
  std::vector<Row> rows = {{Value::BigInt(1), Value::Text("one")},
                           {Value::BigInt(2), Value::Text("two")}};
  std::string header = EncodeResultHeader({{"a", types[0]}, {"b", types[1]}});
  std::string body = EncodeResultRows(types, rows.data(), rows.size());

  ResultDecoder decoder;
  ExpectMalformed(decoder, body, "rows before the header");
  decoder.Add(header);
  ExpectMalformed(decoder, header, "second header");
  ExpectMalformed(decoder, body.substr(0, body.size() - 1), "truncated");
  EXPECT_TRUE(decoder.result().rows.empty());  // the first, complete row was not kept
  ExpectMalformed(decoder, body + "x", "trailing bytes after the rows");
  ExpectMalformed(decoder, std::string(1, '\x09'), "unknown batch kind 9");
  ExpectMalformed(decoder, "", "truncated");
  std::string bad_type = header;
  bad_type[1 + 2 + 2 + 1] = static_cast<char>(99);  // kind, count, name length, name "a"
  ResultDecoder fresh;
  ExpectMalformed(fresh, bad_type, "unknown type id 99");
  decoder.Add(body);
  decoder.Add(EncodeResultTag("SELECT 2"));
  ExpectMalformed(decoder, body, "batch after the tag");
  EXPECT_EQ(decoder.result().rows.size(), 2u);
  EXPECT_THROW(DecodeQueryRequest("\x05\x00\x00\x00ab"), DbError);
}

TEST(EngineCodecTest, ErrorPositionsTravelInTheMessage) {
  DbError folded = WithPositionInMessage(DbError("42703", "column \"x\" does not exist", 12));
  EXPECT_EQ(folded.position(), 0);
  DbError back = WithPositionFromMessage(folded);
  EXPECT_STREQ(back.sqlstate(), "42703");
  EXPECT_EQ(std::string(back.what()), "column \"x\" does not exist");
  EXPECT_EQ(back.position(), 12);
  DbError plain = WithPositionFromMessage(DbError("22012", "division by zero"));
  EXPECT_EQ(std::string(plain.what()), "division by zero");
  EXPECT_EQ(plain.position(), 0);
}

}  // namespace
}  // namespace forktail
