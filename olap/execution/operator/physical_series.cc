#include "olap/execution/operator/physical_series.h"

#include <algorithm>

namespace forktail {

SeriesOperator::SeriesOperator(const Type& type, int64_t from, int64_t step, uint64_t count,
                               bool with_ordinality)
    : PhysicalOperator(
          "Series",
          with_ordinality ? std::vector<Type>{type, Type::BigInt()} : std::vector<Type>{type}, 0,
          1),
      from_(from),
      step_(step),
      count_(count) {}

bool SeriesOperator::GetNextWorkOrders(WorkOrderSink& sink) {
  if (spawned_) return true;
  spawned_ = true;
  for (uint64_t first = 0; first < count_; first += kRowsPerWorkOrder) {
    const uint64_t n = std::min(kRowsPerWorkOrder, count_ - first);
    Spawn(sink, [this, first, n](WorkOrderContext& context) { Produce(context, first, n); });
  }
  return true;
}

void SeriesOperator::Produce(WorkOrderContext& context, uint64_t first, uint64_t n) const {
  const Type& type = output_types()[0];
  const bool with_ordinality = output_types().size() == 2;
  std::shared_ptr<ChunkBlock> out = ChunkBlock::Make(context);
  // Value i is from + i * step, computed in unsigned arithmetic: the binder
  // checked that every value of the series fits the column's type.
  const uint64_t step = static_cast<uint64_t>(step_);
  uint64_t v = static_cast<uint64_t>(from_) + first * step;
  for (uint64_t done = 0; done < n;) {
    const uint32_t rows = static_cast<uint32_t>(std::min<uint64_t>(kVectorSize, n - done));
    DataChunk chunk(output_types());
    Vector& column = chunk.column(0);
    if (with_ordinality) {
      int64_t* o = chunk.column(1).mutable_data<int64_t>();
      for (uint32_t i = 0; i < rows; i++) o[i] = static_cast<int64_t>(first + done + i + 1);
    }
    if (type.id == TypeId::kBigInt) {
      int64_t* o = column.mutable_data<int64_t>();
      for (uint32_t i = 0; i < rows; i++, v += step) o[i] = static_cast<int64_t>(v);
    } else {
      int32_t* o = column.mutable_data<int32_t>();
      for (uint32_t i = 0; i < rows; i++, v += step) o[i] = static_cast<int32_t>(v);
    }
    chunk.set_size(rows);
    out->chunks.push_back(std::move(chunk));
    done += rows;
  }
  EmitIfRows(context, std::move(out));
}

}  // namespace forktail
