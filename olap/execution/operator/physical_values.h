// Values: a leaf operator producing constant rows — VALUES lists, SELECT
// without FROM (one row of zero columns that a Select then projects), a
// constant relation the planner computed. One work order builds the rows as
// owned chunks of up to kVectorSize rows (strings in the vectors' arenas) and
// emits them as one block, so their order is kept downstream.
//
// With a producer instead of rows, the rows are computed when the work order
// runs (WITH RECURSIVE: olap/plan/planner/apply_runner.h), not when the plan
// is built, so that EXPLAIN does not run them.
#pragma once

#include <functional>
#include <vector>

#include "olap/execution/operator/physical_operator.h"
#include "storage/value/value.h"

namespace forktail {

class ValuesOperator final : public PhysicalOperator {
 public:
  // Every row has types.size() values; values of another type are cast to
  // the column's type here (DbError on a failing cast).
  ValuesOperator(std::vector<Type> types, std::vector<Row> rows);
  // Rows from `producer`, called once on a worker; it may throw the
  // query's DbError, and should poll context.IsCancelled() if it runs long.
  using Producer = std::function<std::vector<Row>(WorkOrderContext& context)>;
  ValuesOperator(std::vector<Type> types, Producer producer);

  bool GetNextWorkOrders(WorkOrderSink& sink) override;

 protected:
  void ProcessBlock(WorkOrderContext&, int, size_t, const StreamBlockPtr&) override {}

 private:
  void Produce(WorkOrderContext& context);

  void CastRows();

  std::vector<Row> rows_;
  Producer producer_;
  bool spawned_ = false;
};

}  // namespace forktail
