// Wide (19..38 digit, __int128) DECIMAL kernels through ExpressionExecutor:
// arithmetic with wide, narrow and integer operands against an exact
// __int128 reference; comparisons and casts against Value (the row-at-a-time
// implementation); group keys through KeyEncoder; SUM/AVG/MIN/MAX and
// COUNT/SUM DISTINCT of wide and narrow inputs through GroupTable.
#include <gtest/gtest.h>

#include <random>

#include "olap/common/key_encoder.h"
#include "olap/execution/aggregate/group_table.h"
#include "storage/value/decimal.h"
#include "tests/olap/execution/test_data.h"

namespace forktail {
namespace {

constexpr uint64_t kSeed = 128;

// Columns: 0 w DECIMAL(30,2) (up to 25 digits), 1 n DECIMAL(10,2) (never 0),
// 2 i INTEGER, 3 d DOUBLE.
std::vector<Type> Types() {
  return {Type::Decimal(30, 2), Type::Decimal(10, 2), Type::Integer(), Type::Double()};
}

__int128 RandomDigits(std::mt19937_64& rng, int digits) {
  __int128 v = 0;
  for (int k = 0; k < digits; ++k) v = v * 10 + static_cast<int>(rng() % 10);
  return rng() % 2 ? -v : v;
}

std::vector<Row> Rows(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Row> rows(n);
  for (Row& r : rows) {
    auto maybe_null = [&](Value v) { return rng() % 10 == 0 ? Value::Null(v.type()) : v; };
    r.push_back(maybe_null(Value::Decimal(RandomDigits(rng, 1 + rng() % 25), 30, 2)));
    __int128 nv = RandomDigits(rng, 1 + rng() % 10);
    r.push_back(maybe_null(Value::Decimal(nv == 0 ? 7 : nv, 10, 2)));
    r.push_back(maybe_null(Value::Integer(static_cast<int32_t>(rng() % 2000001) - 1000000)));
    r.push_back(maybe_null(Value::Double(static_cast<double>(RandomDigits(rng, 8)) / 1000)));
  }
  return rows;
}

ExprPtr Col(uint32_t c) { return ColumnRef(c, Types()[c]); }

__int128 RoundDiv(__int128 a, __int128 b) {  // half away from zero
  __int128 q = a / b, r = a % b;
  if (2 * (r < 0 ? -r : r) >= (b < 0 ? -b : b)) q += ((a < 0) != (b < 0)) ? -1 : 1;
  return q;
}

struct Case {
  std::string name;
  std::function<ExprPtr()> make;
  Type want_type;
  // Expected value of a row whose inputs are all non-NULL.
  std::function<Value(const Row&)> want;
};

std::vector<Case> Cases() {
  auto w = [](const Row& r) { return r[0].GetWide(); };
  auto n = [](const Row& r) { return r[1].GetWide(); };
  auto i = [](const Row& r) { return __int128{r[2].GetInt()}; };
  return {
      {"w+n", [] { return Arith(ArithOp::kAdd, Col(0), Col(1)); }, Type::Decimal(31, 2),
       [=](const Row& r) { return Value::Decimal(w(r) + n(r), 31, 2); }},
      {"w-i", [] { return Arith(ArithOp::kSub, Col(0), Col(2)); }, Type::Decimal(31, 2),
       [=](const Row& r) { return Value::Decimal(w(r) - i(r) * 100, 31, 2); }},
      {"w*n", [] { return Arith(ArithOp::kMul, Col(0), Col(1)); }, Type::Decimal(38, 4),
       [=](const Row& r) { return Value::Decimal(w(r) * n(r), 38, 4); }},
      {"n*w", [] { return Arith(ArithOp::kMul, Col(1), Col(0)); }, Type::Decimal(38, 4),
       [=](const Row& r) { return Value::Decimal(w(r) * n(r), 38, 4); }},
      {"n+n (narrow)", [] { return Arith(ArithOp::kAdd, Col(1), Col(1)); }, Type::Decimal(11, 2),
       [=](const Row& r) { return Value::Decimal(n(r) + n(r), 11, 2); }},
      {"w/n", [] { return Arith(ArithOp::kDiv, Col(0), Col(1)); }, Type::Decimal(38, 6),
       [=](const Row& r) { return Value::Decimal(RoundDiv(w(r) * 1000000, n(r)), 38, 6); }},
      {"w%n", [] { return Arith(ArithOp::kMod, Col(0), Col(1)); }, Type::Decimal(10, 2),
       [=](const Row& r) { return Value::Decimal(w(r) % n(r), 10, 2); }},
      {"w>n", [] { return Compare(CompareOp::kGt, Col(0), Col(1)); }, Type::Boolean(),
       [](const Row& r) { return Value::Boolean(r[0].Compare(r[1]) > 0); }},
      {"w=w", [] { return Compare(CompareOp::kEq, Col(0), Col(0)); }, Type::Boolean(),
       [](const Row&) { return Value::Boolean(true); }},
      {"w<i", [] { return Compare(CompareOp::kLt, Col(0), Col(2)); }, Type::Boolean(),
       [](const Row& r) { return Value::Boolean(r[0].Compare(r[2]) < 0); }},
      {"cast w text", [] { return Cast(Col(0), Type::Text()); }, Type::Text(),
       [](const Row& r) { return r[0].CastTo(Type::Text()); }},
      {"cast w text w", [] { return Cast(Cast(Col(0), Type::Text()), Type::Decimal(30, 2)); },
       Type::Decimal(30, 2), [](const Row& r) { return r[0]; }},
      {"cast w double", [] { return Cast(Col(0), Type::Double()); }, Type::Double(),
       [](const Row& r) { return r[0].CastTo(Type::Double()); }},
      {"cast w dec(38,5)", [] { return Cast(Col(0), Type::Decimal(38, 5)); }, Type::Decimal(38, 5),
       [](const Row& r) { return r[0].CastTo(Type::Decimal(38, 5)); }},
      {"cast n dec(25,1)", [] { return Cast(Col(1), Type::Decimal(25, 1)); }, Type::Decimal(25, 1),
       [](const Row& r) { return r[1].CastTo(Type::Decimal(25, 1)); }},
      {"cast n wide bigint",
       [] { return Cast(Cast(Col(1), Type::Decimal(20, 2)), Type::BigInt()); }, Type::BigInt(),
       [](const Row& r) { return r[1].CastTo(Type::BigInt()); }},
      {"cast i wide", [] { return Cast(Col(2), Type::Decimal(20, 3)); }, Type::Decimal(20, 3),
       [](const Row& r) { return r[2].CastTo(Type::Decimal(20, 3)); }},
      {"cast d wide", [] { return Cast(Col(3), Type::Decimal(30, 4)); }, Type::Decimal(30, 4),
       [](const Row& r) { return r[3].CastTo(Type::Decimal(30, 4)); }},
  };
}

TEST(DecimalWideKernel, MatchesReference) {
  SCOPED_TRACE(testing::Message() << "seed " << kSeed);
  std::vector<Row> rows = Rows(3000, kSeed);
  std::vector<DataChunk> chunks = test::ToChunks(Types(), rows);
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    ExprPtr e = c.make();
    ASSERT_EQ(e->type, c.want_type) << e->type.ToString();
    ExpressionExecutor exec(*e);
    size_t base = 0;
    for (DataChunk& chunk : chunks) {
      const Vector* out = nullptr;
      try {
        out = &exec.Execute(chunk);
      } catch (const DbError& err) {
        FAIL() << c.name << ": " << err.what();
      }
      const Vector& v = *out;
      for (uint32_t k = 0; k < chunk.size(); ++k) {
        const Row& r = rows[base + k];
        bool any_null = false;
        for (const Value& x : r) any_null |= x.is_null();
        Value got = test::ValueAt(v, k);
        if (any_null) continue;  // NULL propagation is the shared UnionNulls
        ASSERT_EQ(test::Show(got), test::Show(c.want(r)))
            << "row " << base + k << " " << test::ShowRow(r);
      }
      base += chunk.size();
    }
  }
}

TEST(DecimalWideKernel, OverflowPast38DigitsIs22003) {
  DataChunk chunk({Type::Decimal(38, 0)});
  chunk.column(0).mutable_data<__int128>()[0] = decimal::Pow10Wide(38) - 1;
  chunk.set_size(1);
  for (ArithOp op : {ArithOp::kAdd, ArithOp::kMul}) {
    ExprPtr e = Arith(op, ColumnRef(0, Type::Decimal(38, 0)), Constant(Value::Integer(2)));
    ExpressionExecutor exec(*e);
    try {
      exec.Execute(chunk);
      ADD_FAILURE();
    } catch (const DbError& err) {
      EXPECT_STREQ(err.sqlstate(), sqlstate::kNumericValueOutOfRange);
    }
  }
}

TEST(DecimalWideKernel, KeyEncoderRoundTripsAndSeparatesWideKeys) {
  Type t = Type::Decimal(30, 2);
  KeyEncoder enc({t, Type::Integer()});
  EXPECT_EQ(enc.words(), 4u);  // null mask, two for the wide key, one int
  DataChunk chunk({t, Type::Integer()});
  __int128 big = decimal::Pow10Wide(25) + 1;
  __int128 values[] = {big, big + (__int128{1} << 64), -big, big};
  for (uint32_t k = 0; k < 4; ++k) {
    chunk.column(0).mutable_data<__int128>()[k] = values[k];
    chunk.column(1).mutable_data<int32_t>()[k] = 5;
  }
  chunk.column(0).SetNull(2, true);
  chunk.set_size(4);
  std::vector<uint64_t> keys(4 * enc.words()), hashes(4);
  enc.Encode(chunk, {0, 1}, chunk.rows(), keys.data(), hashes.data());
  const uint64_t* k0 = &keys[0];
  EXPECT_TRUE(enc.Equal(k0, &keys[3 * enc.words()]));
  EXPECT_EQ(hashes[0], hashes[3]);
  EXPECT_FALSE(enc.Equal(k0, &keys[1 * enc.words()]));  // differs in the high word only
  Vector out(t);
  enc.Decode(&keys[1 * enc.words()], 0, &out, 0);
  enc.Decode(&keys[2 * enc.words()], 0, &out, 1);
  EXPECT_TRUE(out.data<__int128>()[0] == values[1]);
  EXPECT_TRUE(out.IsNull(1));
}

TEST(DecimalWideKernel, GroupTableAggregates) {
  // One group; inputs: narrow DECIMAL(18,2) near the int64 edge and wide DECIMAL(30,2).
  Type narrow = Type::Decimal(18, 2), wide = Type::Decimal(30, 2);
  std::vector<AggregateSpec> aggs(7);
  aggs[0].kind = AggKind::kSum;
  aggs[0].input_type = narrow;
  aggs[1].kind = AggKind::kSum;
  aggs[1].input_type = wide;
  aggs[2].kind = AggKind::kAvg;
  aggs[2].input_type = wide;
  aggs[3].kind = AggKind::kMin;
  aggs[3].input_type = wide;
  aggs[4].kind = AggKind::kMax;
  aggs[4].input_type = wide;
  aggs[5].kind = AggKind::kCountDistinct;
  aggs[5].input_type = wide;
  aggs[6].kind = AggKind::kSumDistinct;
  aggs[6].input_type = wide;
  EXPECT_EQ(AggregateResultType(aggs[0]), Type::Decimal(38, 2));
  EXPECT_EQ(AggregateResultType(aggs[2]), Type::Decimal(38, 6));
  KeyEncoder enc({});
  GroupTable table(&enc, &aggs);
  table.EnsureEmptyGroup();
  DataChunk chunk({narrow, wide});
  const int64_t near_max = decimal::kMaxUnscaled;  // 18 nines: 9999999999999999.99
  __int128 w[] = {decimal::Pow10Wide(27), -decimal::Pow10Wide(27) + 3, decimal::Pow10Wide(27), 5};
  for (uint32_t k = 0; k < 4; ++k) {
    chunk.column(0).mutable_data<int64_t>()[k] = near_max;
    chunk.column(1).mutable_data<__int128>()[k] = w[k];
  }
  chunk.set_size(4);
  std::vector<uint32_t> groups(4, 0);
  table.Update(chunk, {0, 1, 1, 1, 1, 1, 1}, chunk.rows(), groups.data());
  // A second table merged in: the same rows again.
  GroupTable other(&enc, &aggs);
  other.EnsureEmptyGroup();
  other.Update(chunk, {0, 1, 1, 1, 1, 1, 1}, chunk.rows(), groups.data());
  table.Merge(other, 0);
  std::vector<DataChunk> out;
  table.Emit(&out);
  ASSERT_EQ(out.size(), 1u);
  auto at = [&](uint32_t c) { return test::ValueAt(out[0].column(c), 0).ToString(); };
  EXPECT_EQ(at(0), "79999999999999999.92");  // 8 x 9999999999999999.99: past 18 digits
  __int128 sum = 2 * (w[0] + w[1] + w[2] + w[3]);
  EXPECT_EQ(at(1), decimal::FormatWide(sum, 2));
  EXPECT_EQ(at(2), decimal::FormatWide(RoundDiv(sum * 10000, 8), 6));
  EXPECT_EQ(at(3), decimal::FormatWide(w[1], 2));
  EXPECT_EQ(at(4), decimal::FormatWide(w[0], 2));
  EXPECT_EQ(at(5), "3");
  EXPECT_EQ(at(6), decimal::FormatWide(w[0] + w[1] + w[3], 2));
}

}  // namespace
}  // namespace forktail
