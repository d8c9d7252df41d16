// WindowOperator: one window specification (PARTITION BY, ORDER BY) and the
// window functions sharing it; output = the input columns, then one column
// per function (olap/execution/sort/window_function.h).
//
//   per input block (one work order, parallel): each chunk's live rows
//     become a sorted run of the Sorter, keyed (partition keys ASC NULLS
//     LAST, order keys as written) — the same runs a SortOperator keeps;
//   final work order: the k-way merge, then the functions are evaluated
//     over the merged sequence partition by partition on that ONE work order
//     (single-threaded evaluation: partitions are not yet spread over work
//     orders), emitted as one block (sorted by the spec, so order is kept).
// Several specifications are several operators chained (one sort each).
// Memory: runs, the evaluation's flat copies of key and argument columns
// and the output are charged to the query's QueryMemory, as a sort's are.
#pragma once

#include <memory>
#include <vector>

#include "olap/execution/operator/physical_operator.h"
#include "olap/execution/sort/physical_sort.h"
#include "olap/execution/sort/sorter.h"
#include "olap/execution/sort/window_function.h"
#include "scheduler/query_memory.h"

namespace forktail {

struct PhysicalWindowSpec {
  std::vector<uint32_t> partition;        // input positions
  std::vector<PhysicalSortKey> order;     // input positions
  std::vector<WindowFunction> functions;  // args: input positions
};

class WindowOperator final : public PhysicalOperator {
 public:
  WindowOperator(std::vector<Type> input_types, PhysicalWindowSpec spec, int parallelism);

 protected:
  void ProcessBlock(WorkOrderContext& context, int slot, size_t input_index,
                    const StreamBlockPtr& block) override;
  bool Finish(WorkOrderSink& sink) override;

 private:
  void Evaluate(WorkOrderContext& context);

  PhysicalWindowSpec spec_;
  std::shared_ptr<Sorter> sorter_;
  MemoryCharge runs_charge_{"window"};
  bool evaluating_ = false;
};

}  // namespace forktail
