// Values: a leaf operator producing constant rows — VALUES lists, SELECT
// without FROM (one row of zero columns that a Select then projects), a
// constant relation the planner computed. One work order builds the rows as
// owned chunks of up to kVectorSize rows (strings in the vectors' arenas) and
// emits them as one block, so their order is kept downstream.
#pragma once

#include <vector>

#include "olap/execution/operator/physical_operator.h"
#include "storage/value/value.h"

namespace forktail {

class ValuesOperator final : public PhysicalOperator {
 public:
  // Every row has types.size() values; values of another type are cast to
  // the column's type here (DbError on a failing cast).
  ValuesOperator(std::vector<Type> types, std::vector<Row> rows);

  bool GetNextWorkOrders(WorkOrderSink& sink) override;

 protected:
  void ProcessBlock(WorkOrderContext&, int, size_t, const StreamBlockPtr&) override {}

 private:
  void Produce(WorkOrderContext& context);

  std::vector<Row> rows_;
  bool spawned_ = false;
};

}  // namespace forktail
