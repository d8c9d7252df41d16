// Select: filter + projection over streamed input, one work order per input
// block. The input block may be shared with other consumers, so its chunks
// are borrowed (physical_chunk_block.h BorrowChunk), never modified; the
// output block keeps the input block alive.
#pragma once

#include <memory>
#include <vector>

#include "olap/execution/operator/physical_operator.h"
#include "olap/execution/operator/physical_projector.h"

namespace forktail {

class SelectOperator final : public PhysicalOperator {
 public:
  SelectOperator(std::vector<Type> input_types, ExprPtr filter, std::vector<ExprPtr> projections,
                 int parallelism);

 protected:
  void ProcessBlock(WorkOrderContext& context, int slot, size_t input_index,
                    const StreamBlockPtr& block) override;

 private:
  std::unique_ptr<Projector> projector_;
};

}  // namespace forktail
