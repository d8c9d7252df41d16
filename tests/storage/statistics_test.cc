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
