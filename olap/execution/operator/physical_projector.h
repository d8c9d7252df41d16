// Projector: filter + projection of one chunk, the shared core of the scan
// and select operators.
//
// The filter only narrows the chunk's selection (no data moves). Projections
// that are bare column references take the input vector itself (moved, so a
// scan's stripe-wrapping vectors stay zero-copy); computed projections are
// evaluated by the expression executor for the live rows and copied out of
// its scratch vector. The output keeps the input's physical row positions and
// selection. Expressions are owned by the operator; executors (which hold
// scratch vectors) are per worker slot.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "olap/expression/expression_executor.h"

namespace forktail {

class Projector {
 public:
  // filter may be null (keep every row); no projections = pass the columns.
  Projector(ExprPtr filter, std::vector<ExprPtr> projections, int slots);

  // Output types given the input types.
  std::vector<Type> OutputTypes(const std::vector<Type>& input_types) const;
  bool has_filter() const { return filter_ != nullptr; }
  const Expression* filter() const { return filter_.get(); }
  const std::vector<ExprPtr>& projections() const { return projections_; }

  // Narrows chunk's selection by the filter; true if rows are left.
  bool Filter(int slot, DataChunk* chunk);
  // Projects a filtered chunk (consumed).
  DataChunk Project(int slot, DataChunk chunk);

 private:
  struct Slot {
    std::unique_ptr<ExpressionExecutor> filter;
    std::vector<std::unique_ptr<ExpressionExecutor>> projections;
  };
  Slot& GetSlot(int slot);

  ExprPtr filter_;
  std::vector<ExprPtr> projections_;
  std::vector<Slot> slots_;
};

}  // namespace forktail
