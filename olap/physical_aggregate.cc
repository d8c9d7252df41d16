#include "olap/physical_aggregate.h"

namespace forktail {
namespace {

std::vector<Type> OutputTypes(const std::vector<Type>& input_types,
                              const std::vector<uint32_t>& key_cols,
                              const std::vector<AggregateSpec>& aggs) {
  std::vector<Type> types;
  for (uint32_t k : key_cols) types.push_back(input_types[k]);
  for (const AggregateSpec& a : aggs) types.push_back(AggregateResultType(a));
  return types;
}

}  // namespace

AggregateOperator::AggregateOperator(const std::vector<Type>& input_types,
                                     std::vector<uint32_t> key_cols,
                                     std::vector<AggregateSpec> aggs, AggMethod method,
                                     int parallelism)
    : PhysicalOperator("Aggregate", OutputTypes(input_types, key_cols, aggs), 1, parallelism) {
  std::vector<Type> key_types;
  for (uint32_t k : key_cols) key_types.push_back(input_types[k]);
  aggregator_ = std::make_shared<Aggregator>(method, std::move(key_cols), std::move(key_types),
                                             std::move(aggs), this->parallelism());
}

void AggregateOperator::ProcessBlock(WorkOrderContext& context, int slot, size_t /*input_index*/,
                                     const StreamBlockPtr& block) {
  for (const DataChunk& chunk : AsChunkBlock(block).chunks) {
    if (context.IsCancelled()) return;
    aggregator_->Consume(slot, chunk);
  }
}

bool AggregateOperator::Finish(WorkOrderSink& sink) {
  if (outstanding() > 0) return false;
  if (phase_ == Phase::kConsume) {
    phase_ = Phase::kMerge;
    for (int t = 0; t < parallelism(); ++t) {
      Spawn(sink, [agg = aggregator_.get(), t](WorkOrderContext&) { agg->Merge(t); });
    }
    return false;
  }
  Spawn(sink, [agg = aggregator_](WorkOrderContext& context) {
    std::shared_ptr<ChunkBlock> out = ChunkBlock::Make(context);
    for (DataChunk& c : agg->Result()) out->chunks.push_back(std::move(c));
    out->keep_alive.push_back(agg);
    EmitIfRows(context, std::move(out));
  });
  return true;
}

}  // namespace forktail
