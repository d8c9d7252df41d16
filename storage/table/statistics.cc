#include "storage/table/statistics.h"

#include <bit>
#include <cmath>

#include "storage/table/cell.h"

namespace forktail {

void HyperLogLog::Add(uint64_t hash) {
  size_t index = hash >> (64 - kPrecision);
  uint64_t rest = hash << kPrecision;
  int rank = rest == 0 ? kMaxRank : std::countl_zero(rest) + 1;
  if (registers_[index] < rank) {
    rank_counts_[registers_[index]]--;
    rank_counts_[rank]++;
    registers_[index] = static_cast<uint8_t>(rank);
  }
}

void HyperLogLog::Clear() {
  registers_.fill(0);
  rank_counts_.fill(0);
  rank_counts_[0] = kRegisters;
}

double HyperLogLog::Estimate() const {
  constexpr double m = static_cast<double>(kRegisters);
  const double alpha = 0.7213 / (1 + 1.079 / m);
  double sum = 0;
  for (int r = 0; r <= kMaxRank; r++) sum += rank_counts_[r] * std::ldexp(1.0, -r);
  const int zeros = rank_counts_[0];
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

namespace {

// Orders doubles as CompareCell does: NaN above every number.
bool DoubleLess(double a, double b) {
  if (std::isnan(a)) return false;
  return std::isnan(b) || a < b;
}

int64_t LoadInt(const uint8_t* stripe, uint32_t width, uint32_t row) {
  switch (width) {
    case 1:
      return stripe[row];
    case 2:
      return reinterpret_cast<const int16_t*>(stripe)[row];
    case 4:
      return reinterpret_cast<const int32_t*>(stripe)[row];
    default:
      return reinterpret_cast<const int64_t*>(stripe)[row];
  }
}

}  // namespace

StatisticsScan::StatisticsScan(const BlockLayout& layout)
    : layout_(layout), columns_(layout.column_count()) {}

void StatisticsScan::AddBlock(const BlockReadView& v) {
  const uint64_t* deleted = v.delete_bitmap();
  for (uint32_t r = 0; r < v.row_count(); r++) rows_ += !TestBit(deleted, r);
  for (size_t ci = 0; ci < columns_.size(); ci++) {
    ColumnId c(static_cast<uint16_t>(ci));
    Column& col = columns_[ci];
    const ColumnLayout& cl = layout_.column(c);
    const uint64_t* nulls = v.null_bitmap(c);
    const auto* stripe = v.stripe<uint8_t>(c);
    for (uint32_t r = 0; r < v.row_count(); r++) {
      if (TestBit(deleted, r)) continue;
      if (TestBit(nulls, r)) {
        col.nulls++;
        continue;
      }
      if (cl.type.StoredAsString()) {
        std::string_view s = v.string(c, r);
        col.distinct.Add(HashBytes(s));
        if (!col.any || s < col.smin) col.smin = s;
        if (!col.any || s > col.smax) col.smax = s;
      } else if (cl.type.id == TypeId::kDouble) {
        double d = v.stripe<double>(c)[r];
        col.distinct.Add(HashDouble(d));
        if (!col.any || DoubleLess(d, col.dmin)) col.dmin = d;
        if (!col.any || DoubleLess(col.dmax, d)) col.dmax = d;
      } else {
        int64_t i = LoadInt(stripe, cl.width, r);
        col.distinct.Add(HashInt(i));
        if (!col.any || i < col.imin) col.imin = i;
        if (!col.any || i > col.imax) col.imax = i;
      }
      col.any = true;
    }
  }
}

void StatisticsScan::Finish(TableStatistics* out) {
  out->row_count_ = rows_;
  for (size_t ci = 0; ci < columns_.size(); ci++) {
    Column& col = columns_[ci];
    ColumnStatistics& s = out->columns_[ci];
    const Type& type = layout_.column(ColumnId(static_cast<uint16_t>(ci))).type;
    s.null_count = col.nulls;
    s.distinct = col.distinct;
    s.min.reset();
    s.max.reset();
    if (!col.any) continue;
    if (type.StoredAsString()) {
      s.min = Value::String(type, std::move(col.smin));
      s.max = Value::String(type, std::move(col.smax));
    } else if (type.id == TypeId::kDouble) {
      s.min = Value::Double(col.dmin);
      s.max = Value::Double(col.dmax);
    } else {
      s.min = IntValue(type, col.imin);
      s.max = IntValue(type, col.imax);
    }
  }
}

}  // namespace forktail
