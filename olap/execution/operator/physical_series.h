// Series: a leaf producing from, from + step, ... (count values) of one
// INTEGER or BIGINT column - generate_series with constant arguments too long
// to be a Values list (olap/plan/logical.h kSeries). One work order per
// kRowsPerWorkOrder values, each emitting its own block, so a long series is
// produced in parallel and never held whole; like a table scan's, its rows'
// order is not kept downstream.
#pragma once

#include <cstdint>

#include "olap/execution/operator/physical_operator.h"

namespace forktail {

class SeriesOperator final : public PhysicalOperator {
 public:
  static constexpr uint64_t kRowsPerWorkOrder = uint64_t{1} << 16;

  // with_ordinality: a second column, BIGINT 1, 2, ... (WITH ORDINALITY).
  SeriesOperator(const Type& type, int64_t from, int64_t step, uint64_t count,
                 bool with_ordinality);

  bool GetNextWorkOrders(WorkOrderSink& sink) override;

 protected:
  void ProcessBlock(WorkOrderContext&, int, size_t, const StreamBlockPtr&) override {}

 private:
  void Produce(WorkOrderContext& context, uint64_t first, uint64_t n) const;

  const int64_t from_;
  const int64_t step_;
  const uint64_t count_;
  bool spawned_ = false;
};

}  // namespace forktail
