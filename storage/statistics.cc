#include "storage/statistics.h"

#include <bit>
#include <cmath>

#include "storage/cell.h"

namespace forktail {

void HyperLogLog::Add(uint64_t hash) {
  size_t index = hash >> (64 - kPrecision);
  uint64_t rest = hash << kPrecision;
  int rank = rest == 0 ? 64 - kPrecision + 1 : std::countl_zero(rest) + 1;
  if (registers_[index] < rank) registers_[index] = static_cast<uint8_t>(rank);
}

double HyperLogLog::Estimate() const {
  constexpr double m = static_cast<double>(kRegisters);
  const double alpha = 0.7213 / (1 + 1.079 / m);
  double sum = 0;
  int zeros = 0;
  for (uint8_t r : registers_) {
    sum += std::ldexp(1.0, -r);
    zeros += r == 0;
  }
  double estimate = alpha * m * m / sum;
  if (estimate <= 2.5 * m && zeros > 0) estimate = m * std::log(m / zeros);  // linear counting
  return estimate;
}

void TableStatistics::AddValue(ColumnStatistics& s, const Value& v) {
  if (v.is_null()) {
    s.null_count++;
    return;
  }
  if (!s.min || CompareCell(v, *s.min) < 0) s.min = v;
  if (!s.max || CompareCell(v, *s.max) > 0) s.max = v;
  s.distinct.Add(HashCell(v));
}

void TableStatistics::OnInsert(const Row& row) {
  row_count_++;
  for (size_t i = 0; i < columns_.size(); i++) AddValue(columns_[i], row[i]);
}

void TableStatistics::OnUpdate(ColumnId c, const Value& v) { AddValue(columns_[c.value()], v); }

void TableStatistics::Clear() {
  row_count_ = 0;
  for (ColumnStatistics& s : columns_) s = ColumnStatistics{};
}

}  // namespace forktail
