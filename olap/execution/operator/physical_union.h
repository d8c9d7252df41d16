// UnionAll: several inputs, one output stream; each input block is passed on
// as it is (no copy: blocks are immutable and shared by their consumers).
// Inputs must have the output's physical column types; the planner casts
// (a Select) where SQL types differ, so result columns carry one type.
#pragma once

#include <vector>

#include "olap/execution/operator/physical_operator.h"

namespace forktail {

class UnionAllOperator final : public PhysicalOperator {
 public:
  UnionAllOperator(std::vector<Type> types, size_t inputs);

 protected:
  void ProcessBlock(WorkOrderContext& context, int slot, size_t input_index,
                    const StreamBlockPtr& block) override;
};

}  // namespace forktail
