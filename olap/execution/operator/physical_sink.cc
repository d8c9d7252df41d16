#include "olap/execution/operator/physical_sink.h"

namespace forktail {

// Parallel enough: one slot per work order would serialize nothing here, so
// the sink allows as many as the scheduler runs.
ResultSinkOperator::ResultSinkOperator(std::vector<Type> types, std::shared_ptr<ResultRows> result)
    : PhysicalOperator("ResultSink", types, 1, 64), result_(std::move(result)) {
  result_->types = std::move(types);
  result_->rows.clear();
}

void ResultSinkOperator::FeedInputBlock(size_t input_index, StreamBlockPtr block) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    seq_.emplace(block.get(), arrived_++);
    parts_.emplace_back();
  }
  PhysicalOperator::FeedInputBlock(input_index, std::move(block));
}

void ResultSinkOperator::ProcessBlock(WorkOrderContext& /*context*/, int /*slot*/,
                                      size_t /*input_index*/, const StreamBlockPtr& block) {
  std::vector<Row> rows;
  for (const DataChunk& chunk : AsChunkBlock(block).chunks) AppendChunkRows(chunk, &rows);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = seq_.find(block.get());
  parts_[it->second] = std::move(rows);
  seq_.erase(it);
}

void ResultSinkOperator::AllWorkOrdersFinished() {
  for (auto& part : parts_) {
    for (Row& r : part) result_->rows.push_back(std::move(r));
  }
  parts_.clear();
}

}  // namespace forktail
