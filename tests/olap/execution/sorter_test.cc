// Sorter vs std::stable_sort over Values: multi-key, ASC/DESC, NULLS
// FIRST/LAST, duplicates, runs added from 1 and 2 threads, LIMIT/OFFSET.
#include <gtest/gtest.h>

#include <thread>

#include "olap/execution/sort/sorter.h"
#include "tests/olap/execution/test_data.h"

namespace forktail {
namespace {

int RefCompare(const Value& a, const Value& b) {
  if (a.type().IsString())
    return a.GetString() < b.GetString() ? -1 : a.GetString() > b.GetString();
  if (a.type().id == TypeId::kDouble)
    return a.GetDouble() < b.GetDouble() ? -1 : a.GetDouble() > b.GetDouble();
  return a.GetInt() < b.GetInt() ? -1 : a.GetInt() > b.GetInt();
}

void Check(uint64_t seed, size_t n, uint64_t limit, uint64_t offset, int threads) {
  std::vector<test::ColumnGen> gens = {{Type::Integer(), 0.2, 10},
                                       {Type::Text(), 0.2, 8},
                                       {Type::Double(), 0.1, 1000},
                                       {Type::BigInt(), 0, 1000000}};
  std::vector<Type> types;
  for (auto& g : gens) types.push_back(g.type);
  std::vector<SortKey> keys = {{0, true, false}, {1, false, true}, {2, true, true}};
  auto rows = test::RandomRows(gens, n, seed);
  auto chunks = test::ToChunks(types, rows, 300);
  Sorter sorter(types, keys, limit, offset);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (size_t i = t; i < chunks.size(); i += threads) sorter.AddRun(chunks[i]);
    });
  }
  for (auto& th : pool) th.join();
  std::vector<std::string> got;
  for (const DataChunk& c : sorter.Merge()) {
    for (uint32_t i = 0; i < c.size(); ++i) {
      Row key;
      for (const SortKey& k : keys) key.push_back(test::ValueAt(c.column(k.column), i));
      got.push_back(test::ShowRow(key));
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    for (const SortKey& k : keys) {
      const Value &x = a[k.column], &y = b[k.column];
      if (x.is_null() || y.is_null()) {
        if (x.is_null() && y.is_null()) continue;
        return x.is_null() == k.nulls_first;
      }
      int c = RefCompare(x, y);
      if (c != 0) return k.ascending ? c < 0 : c > 0;
    }
    return false;
  });
  std::vector<std::string> want;
  for (size_t i = offset; i < rows.size() && want.size() < limit; ++i) {
    Row key;
    for (const SortKey& k : keys) key.push_back(rows[i][k.column]);
    want.push_back(test::ShowRow(key));
  }
  ASSERT_EQ(got, want) << "seed " << seed << " limit " << limit << " offset " << offset;
}

TEST(Sorter, FullSort) {
  Check(41, 5000, Sorter::kNoLimit, 0, 1);
  Check(42, 5000, Sorter::kNoLimit, 0, 2);
}
TEST(Sorter, TopKWithOffset) {
  Check(43, 5000, 10, 0, 1);
  Check(44, 5000, 100, 37, 2);
  Check(45, 5000, 0, 5, 1);
}
TEST(Sorter, EmptyAndOffsetPastEnd) {
  Check(46, 0, Sorter::kNoLimit, 0, 2);
  Check(47, 100, 10, 500, 1);
}

}  // namespace
}  // namespace forktail

namespace forktail {
namespace {

// PostgreSQL order: NaN above every number (ASC: after 1e308, before NULLs),
// -0 = 0, CHAR(n) ignores trailing blanks, default NULL placement per
// direction (SortKey::Postgres).
std::vector<std::string> SortOne(const Type& type, const std::vector<Value>& values, SortKey key) {
  std::vector<Row> rows;
  for (size_t i = 0; i < values.size(); ++i)
    rows.push_back({values[i], Value::Integer(int32_t(i))});
  auto chunks = test::ToChunks({type, Type::Integer()}, rows, 3);  // several runs
  Sorter sorter({type, Type::Integer()}, {key, SortKey{1, true, false}});
  for (const DataChunk& c : chunks) sorter.AddRun(c);
  std::vector<std::string> out;
  for (const DataChunk& c : sorter.Merge()) {
    for (uint32_t i = 0; i < c.size(); ++i)
      out.push_back(test::Show(test::ValueAt(c.column(0), i)));
  }
  return out;
}

TEST(Sorter, PostgresOrderNanNullsChar) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<Value> d = {Value::Double(1.5),  Value::Null(Type::Double()), Value::Double(nan),
                          Value::Double(-0.0), Value::Double(1e308),        Value::Double(-2),
                          Value::Double(0.0),  Value::Double(nan)};
  EXPECT_EQ(SortOne(Type::Double(), d, SortKey::Postgres(0, false)),
            (std::vector<std::string>{"-2", "0", "0", "1.5", "1e+308", "nan", "nan", "NULL"}));
  EXPECT_EQ(SortOne(Type::Double(), d, SortKey::Postgres(0, true)),
            (std::vector<std::string>{"NULL", "nan", "nan", "1e+308", "1.5", "0", "0", "-2"}));
  SortKey asc_nulls_first = SortKey::Postgres(0, false);
  asc_nulls_first.nulls_first = true;
  EXPECT_EQ(SortOne(Type::Double(), d, asc_nulls_first).front(), "NULL");

  Type ch = Type::Char(4);
  std::vector<Value> c = {Value::String(ch, "b"), Value::String(ch, "a  "), Value::String(ch, "a"),
                          Value::Null(ch), Value::String(ch, "a b")};
  // "a  " and "a" are equal (ties by the second key, the input position).
  EXPECT_EQ(SortOne(ch, c, SortKey::Postgres(0, false)),
            (std::vector<std::string>{"'a  '", "'a'", "'a b'", "'b'", "NULL"}));
}

}  // namespace
}  // namespace forktail
