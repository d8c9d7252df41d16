// Aggregate: hash aggregation (grouped or global) with the kernels'
// Aggregator (aggregator.h), in three phases of work orders:
//   1. consume  one per input block; worker slot s pre-aggregates into the
//               aggregator's thread state s (the method decides how:
//               private tables, partition buffers, shared latched tables);
//   2. merge    once every input block is consumed: one work order per slot,
//               Merge(s) folds partitions p with p % slots == s, in parallel;
//   3. finalize 2 x slots work orders, each emitting a slice of the groups
//               (Result(slice, slices)) as one ChunkBlock, which keeps the
//               aggregator alive (result strings live in its tables).
// Output columns: the group keys, then one column per aggregate.
// Memory: the aggregator's tables and buffers (per slot, shared, merged) and
// the result chunks are charged to the query's QueryMemory as they grow
// (53200 "... (aggregation needs N more)"), returned when the operator ends.
#pragma once

#include <memory>
#include <vector>

#include "olap/execution/aggregate/aggregator.h"
#include "olap/execution/operator/physical_operator.h"
#include "scheduler/query_memory.h"

namespace forktail {

class AggregateOperator final : public PhysicalOperator {
 public:
  AggregateOperator(const std::vector<Type>& input_types, std::vector<uint32_t> key_cols,
                    std::vector<AggregateSpec> aggs, AggMethod method, int parallelism);

 protected:
  void ProcessBlock(WorkOrderContext& context, int slot, size_t input_index,
                    const StreamBlockPtr& block) override;
  bool Finish(WorkOrderSink& sink) override;

 private:
  enum class Phase : uint8_t { kConsume, kMerge };
  void Charge(WorkOrderContext& context, int slot, bool merged);
  static void EmitResult(WorkOrderContext& context, const std::shared_ptr<Aggregator>& agg,
                         uint32_t slice, uint32_t slices);

  std::shared_ptr<Aggregator> aggregator_;
  std::vector<std::unique_ptr<MemoryCharge>> slot_charges_;
  MemoryCharge shared_charge_{"aggregation"};
  Phase phase_ = Phase::kConsume;
};

}  // namespace forktail
