#include "olap/execution/operator/physical_values.h"

#include <algorithm>

#include "olap/expression/kernels.h"

namespace forktail {

ValuesOperator::ValuesOperator(std::vector<Type> types, std::vector<Row> rows)
    : PhysicalOperator("Values", std::move(types), 0, 1), rows_(std::move(rows)) {
  CastRows();
}

ValuesOperator::ValuesOperator(std::vector<Type> types, Producer producer)
    : PhysicalOperator("Values", std::move(types), 0, 1), producer_(std::move(producer)) {}

void ValuesOperator::CastRows() {
  const std::vector<Type>& t = output_types();
  for (Row& row : rows_) {
    for (size_t c = 0; c < t.size(); ++c) {
      if (!(row[c].type() == t[c]))
        row[c] = row[c].is_null() ? Value::Null(t[c]) : row[c].CastTo(t[c]);
    }
  }
}

bool ValuesOperator::GetNextWorkOrders(WorkOrderSink& sink) {
  if (!spawned_ && (producer_ || !rows_.empty())) {
    spawned_ = true;
    Spawn(sink, [this](WorkOrderContext& context) { Produce(context); });
  }
  return true;
}

void ValuesOperator::Produce(WorkOrderContext& context) {
  if (producer_) {
    rows_ = producer_(context);
    CastRows();
  }
  const std::vector<Type>& types = output_types();
  std::shared_ptr<ChunkBlock> out = ChunkBlock::Make(context);
  for (size_t first = 0; first < rows_.size(); first += kVectorSize) {
    uint32_t n = static_cast<uint32_t>(std::min<size_t>(kVectorSize, rows_.size() - first));
    DataChunk chunk(types);
    for (uint32_t i = 0; i < n; ++i) {
      const Row& row = rows_[first + i];
      for (size_t c = 0; c < types.size(); ++c) {
        ConstantKernel(row[c], Rows{&i, 1}, &chunk.column(c));
      }
    }
    chunk.set_size(n);
    out->chunks.push_back(std::move(chunk));
  }
  EmitIfRows(context, std::move(out));
}

}  // namespace forktail
