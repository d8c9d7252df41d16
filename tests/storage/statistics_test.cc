#include <gtest/gtest.h>

#include <cmath>

#include "storage/storage.h"

namespace forktail {
namespace {

TEST(HyperLogLog, EstimatesWithinFewPercent) {
  for (uint64_t n : {0ull, 1ull, 10ull, 1000ull, 100000ull}) {
    HyperLogLog hll;
    for (uint64_t i = 0; i < n; i++) {
      hll.Add(HashCell(Value::BigInt(static_cast<int64_t>(i))));
      hll.Add(HashCell(Value::BigInt(static_cast<int64_t>(i))));  // duplicates do not count
    }
    EXPECT_NEAR(hll.Estimate(), static_cast<double>(n), 0.05 * n + 0.5) << n;
  }
}

TEST(Statistics, MaintainedOnChangesAndRefreshedExactly) {
  Table t(TableId(1), {"s",
                       {{"id", Type::Integer()}, {"name", Type::Text()}, {"x", Type::Double()}},
                       {ColumnId(0)}});
  std::vector<TupleId> tids;
  for (int i = 0; i < 1000; i++) {
    tids.push_back(t.Insert({Value::Integer(i), Value::Text("n" + std::to_string(i % 100)),
                             i % 4 == 0 ? Value::Null(Type::Double()) : Value::Double(i / 2.0)}));
  }
  const TableStatistics& s = t.statistics();
  EXPECT_EQ(s.row_count(), 1000u);
  EXPECT_EQ(s.column(ColumnId(0)).min->GetInt(), 0);
  EXPECT_EQ(s.column(ColumnId(0)).max->GetInt(), 999);
  EXPECT_EQ(s.column(ColumnId(1)).min->GetString(), "n0");
  EXPECT_EQ(s.column(ColumnId(1)).max->GetString(), "n99");
  EXPECT_EQ(s.column(ColumnId(2)).null_count, 250u);
  EXPECT_NEAR(s.column(ColumnId(0)).DistinctEstimate(), 1000, 30);
  EXPECT_NEAR(s.column(ColumnId(1)).DistinctEstimate(), 100, 3);
  // Update widens, delete counts rows only.
  t.Update(tids[5], {{ColumnId(0), Value::Integer(5000)}});
  EXPECT_EQ(s.column(ColumnId(0)).max->GetInt(), 5000);
  t.Delete(tids[5]);
  t.Delete(tids[0]);
  EXPECT_EQ(s.row_count(), 998u);
  EXPECT_EQ(s.column(ColumnId(0)).max->GetInt(), 5000);  // loose
  EXPECT_EQ(s.column(ColumnId(0)).min->GetInt(), 0);
  t.RefreshStatistics();
  EXPECT_EQ(s.row_count(), 998u);
  EXPECT_EQ(s.column(ColumnId(0)).min->GetInt(), 1);
  EXPECT_EQ(s.column(ColumnId(0)).max->GetInt(), 999);
  EXPECT_EQ(s.column(ColumnId(2)).null_count, 249u);
  EXPECT_EQ(s.column(ColumnId(2)).max->GetDouble(), 999 / 2.0);
}

TEST(Statistics, EmptyColumnHasNoMinMax) {
  Table t(TableId(1), {"e", {{"a", Type::Integer()}}, {}});
  t.Insert({Value::Null(Type::Integer())});
  EXPECT_FALSE(t.statistics().column(ColumnId(0)).min.has_value());
  EXPECT_EQ(t.statistics().column(ColumnId(0)).null_count, 1u);
}

}  // namespace
}  // namespace forktail

namespace forktail {
namespace {

// The typed refresh scan and the incremental Value path agree exactly when
// nothing was deleted or updated: same min/max, same sketch.
TEST(Statistics, RefreshAgreesWithIncrementalForEveryType) {
  TableSchema s{"m",
                {{"b", Type::Boolean()},
                 {"i16", Type::SmallInt()},
                 {"i32", Type::Integer()},
                 {"i64", Type::BigInt()},
                 {"dec", Type::Decimal(9, 3)},
                 {"d", Type::Date()},
                 {"ts", Type::Timestamp()},
                 {"x", Type::Double()},
                 {"c", Type::Char(3)},
                 {"v", Type::Varchar(8)}},
                {}};
  Table t(TableId(1), s, {.max_rows_per_block = 256});
  for (int i = 0; i < 2000; i++) {
    int64_t k = (i * 7919) % 2003 - 1000;
    t.Insert({Value::Boolean(k > 0), Value::SmallInt(static_cast<int16_t>(k)),
              Value::Integer(static_cast<int32_t>(k * 1000)), Value::BigInt(k << 33),
              Value::Decimal(k * 37, 9, 3), Value::Date(static_cast<int32_t>(k)),
              Value::Timestamp(k * 1000003),
              i % 5 ? Value::Double(k / 3.0) : Value::Null(Type::Double()),
              Value::String(Type::Char(3), std::to_string(i % 300)),
              Value::Text("v" + std::to_string(k))});
  }
  std::vector<ColumnStatistics> before;
  for (size_t c = 0; c < s.columns.size(); c++)
    before.push_back(t.statistics().column(ColumnId(c)));
  t.RefreshStatistics();
  for (size_t c = 0; c < s.columns.size(); c++) {
    const ColumnStatistics& after = t.statistics().column(ColumnId(c));
    SCOPED_TRACE(s.columns[c].name);
    ASSERT_TRUE(after.min && after.max);
    EXPECT_EQ(after.min->type(), s.columns[c].type);
    EXPECT_EQ(CompareCell(*after.min, *before[c].min), 0);
    EXPECT_EQ(CompareCell(*after.max, *before[c].max), 0);
    EXPECT_EQ(after.null_count, before[c].null_count);
    EXPECT_EQ(after.DistinctEstimate(), before[c].DistinctEstimate());
  }
  EXPECT_EQ(t.statistics().column(ColumnId(3)).min->GetInt(), int64_t{-1000} << 33);
  EXPECT_EQ(t.statistics().row_count(), 2000u);
}

}  // namespace
}  // namespace forktail
