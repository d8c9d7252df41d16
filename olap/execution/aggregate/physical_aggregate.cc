#include "olap/execution/aggregate/physical_aggregate.h"

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
  for (int t = 0; t < this->parallelism(); ++t) {
    slot_charges_.push_back(std::make_unique<MemoryCharge>("aggregation"));
  }
}

void AggregateOperator::Charge(WorkOrderContext& context, int slot, bool merged) {
  std::shared_ptr<QueryMemory> memory = context.allocator<char>().memory();
  slot_charges_[slot]->Bind(memory);
  shared_charge_.Bind(memory);
  slot_charges_[slot]->Set(aggregator_->ThreadBytes(slot) +
                           (merged ? aggregator_->MergedBytes(slot) : 0));
  shared_charge_.Set(aggregator_->SharedBytes());
}

void AggregateOperator::ProcessBlock(WorkOrderContext& context, int slot, size_t /*input_index*/,
                                     const StreamBlockPtr& block) {
  for (const DataChunk& chunk : AsChunkBlock(block).chunks) {
    if (context.IsCancelled()) return;
    aggregator_->Consume(slot, chunk);
    Charge(context, slot, false);
  }
}

bool AggregateOperator::Finish(WorkOrderSink& sink) {
  if (outstanding() > 0) return false;
  if (phase_ == Phase::kConsume) {
    phase_ = Phase::kMerge;
    for (int t = 0; t < parallelism(); ++t) {
      Spawn(sink, [this, t](WorkOrderContext& context) {
        aggregator_->Merge(t);
        Charge(context, t, true);
      });
    }
    return false;
  }
  // The groups in slices, one work order each: a large result (many groups
  // feeding a join, another aggregate or a sort) reaches the next operator
  // as several blocks it processes in parallel.
  const auto slices = static_cast<uint32_t>(2 * parallelism());
  for (uint32_t slice = 0; slice < slices; ++slice) {
    Spawn(sink, [agg = aggregator_, slice, slices](WorkOrderContext& context) {
      EmitResult(context, agg, slice, slices);
    });
  }
  return true;
}

void AggregateOperator::EmitResult(WorkOrderContext& context,
                                   const std::shared_ptr<Aggregator>& agg, uint32_t slice,
                                   uint32_t slices) {
  std::shared_ptr<ChunkBlock> out = ChunkBlock::Make(context);
  size_t bytes = 0;
  for (DataChunk& c : agg->Result(slice, slices)) {
    for (size_t i = 0; i < c.column_count(); ++i) {
      bytes += size_t{kVectorSize} * PhysicalWidth(c.column(i).physical()) + kVectorSize / 8;
    }
    out->chunks.push_back(std::move(c));
  }
  auto charge = std::make_shared<MemoryCharge>("aggregation result");
  charge->Bind(context.allocator<char>().memory());
  charge->Set(bytes);
  out->keep_alive.push_back(std::move(charge));
  out->keep_alive.push_back(agg);
  EmitIfRows(context, std::move(out));
}

}  // namespace forktail
