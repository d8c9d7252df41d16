#include "olap/execution/operator/physical_select.h"

namespace forktail {

SelectOperator::SelectOperator(std::vector<Type> input_types, ExprPtr filter,
                               std::vector<ExprPtr> projections, int parallelism)
    : PhysicalOperator("Select", {}, 1, parallelism),
      projector_(std::make_unique<Projector>(std::move(filter), std::move(projections),
                                             this->parallelism())) {
  SetOutputTypes(projector_->OutputTypes(input_types));
}

void SelectOperator::ProcessBlock(WorkOrderContext& context, int slot, size_t /*input_index*/,
                                  const StreamBlockPtr& block) {
  const ChunkBlock& in = AsChunkBlock(block);
  std::shared_ptr<ChunkBlock> out = ChunkBlock::Make(context);
  out->keep_alive.push_back(block);
  for (const DataChunk& chunk : in.chunks) {
    DataChunk mine = BorrowChunk(chunk);
    if (!projector_->Filter(slot, &mine)) continue;
    out->chunks.push_back(projector_->Project(slot, std::move(mine)));
  }
  EmitIfRows(context, std::move(out));
}

}  // namespace forktail
