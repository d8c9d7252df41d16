// Table statistics for the optimizer: the live row count and, per column, the
// minimum, the maximum, the number of NULLs and an estimate of the number of
// distinct values.
//
// Maintained incrementally by Table as data changes, cheaply and
// conservatively:
//   insert  row count + 1; min/max widened; the value added to the sketch
//   update  min/max widened; the new value added to the sketch
//   delete  row count - 1 (min/max, NULL count and sketch are left as they are)
// so min/max may be looser than the data and distinct counts may include
// deleted values. Table::RefreshStatistics() recomputes everything exactly in
// one scan.
//
// Distinct counts use HyperLogLog (Flajolet et al. 2007) with 2^12 one-byte
// registers per column (4 KiB; standard error 1.04/sqrt(4096) = 1.6%), fed
// with the same XXH3 hashes the primary-key index uses (cell.h), with linear
// counting for small cardinalities.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "storage/ids.h"
#include "storage/table/block.h"
#include "storage/value/value.h"

namespace forktail {

class HyperLogLog {
 public:
  static constexpr int kPrecision = 12;
  static constexpr size_t kRegisters = size_t{1} << kPrecision;

  void Add(uint64_t hash);
  // O(ranks), not O(registers): the planner asks for every column of every
  // table a query reads, and a short indexed read must not pay 4096
  // ldexp calls per column (perf: 11% of a 100-row range query).
  double Estimate() const;
  void Clear();

 private:
  static constexpr int kMaxRank = 64 - kPrecision + 1;
  std::array<uint8_t, kRegisters> registers_{};
  // How many registers hold each rank (rank_counts_[0]: the empty ones).
  std::array<uint16_t, kMaxRank + 1> rank_counts_ = [] {
    std::array<uint16_t, kMaxRank + 1> counts{};
    counts[0] = kRegisters;
    return counts;
  }();
};

struct ColumnStatistics {
  std::optional<Value> min;  // absent until a non-NULL value was seen
  std::optional<Value> max;
  uint64_t null_count = 0;
  HyperLogLog distinct;

  double DistinctEstimate() const { return distinct.Estimate(); }
};

class TableStatistics {
 public:
  explicit TableStatistics(size_t column_count) : columns_(column_count) {}

  uint64_t row_count() const { return row_count_; }
  const ColumnStatistics& column(ColumnId c) const { return columns_[c.value()]; }
  size_t column_count() const { return columns_.size(); }

  // `row` holds values of the column types (as stored).
  void OnInsert(const Row& row);
  void OnUpdate(ColumnId c, const Value& v);
  void OnDelete() { row_count_--; }
  void OnUndelete() { row_count_++; }
  void Clear();

 private:
  friend class StatisticsScan;
  void AddValue(ColumnStatistics& s, const Value& v);

  uint64_t row_count_ = 0;
  std::vector<ColumnStatistics> columns_;
};

// Recomputes a table's statistics exactly in one pass over the blocks' stripes
// (typed loops, no Value per cell): construct, AddBlock() for every block,
// then Finish().
class StatisticsScan {
 public:
  explicit StatisticsScan(const BlockLayout& layout);
  void AddBlock(const BlockReadView& view);
  void Finish(TableStatistics* out);

 private:
  struct Column {
    bool any = false;
    int64_t imin = 0, imax = 0;
    double dmin = 0, dmax = 0;
    std::string smin, smax;
    uint64_t nulls = 0;
    HyperLogLog distinct;
  };

  const BlockLayout& layout_;
  uint64_t rows_ = 0;
  std::vector<Column> columns_;
};

}  // namespace forktail
