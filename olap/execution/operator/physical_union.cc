#include "olap/execution/operator/physical_union.h"

namespace forktail {

// Pass-through work orders hold no per-slot state: many may run at once.
UnionAllOperator::UnionAllOperator(std::vector<Type> types, size_t inputs)
    : PhysicalOperator("UnionAll", std::move(types), inputs, 64) {}

void UnionAllOperator::ProcessBlock(WorkOrderContext& context, int /*slot*/, size_t /*input_index*/,
                                    const StreamBlockPtr& block) {
  if (AsChunkBlock(block).row_count() > 0) context.EmitBlock(block);
}

}  // namespace forktail
