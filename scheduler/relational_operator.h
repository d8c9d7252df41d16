// RelationalOperator: one node of a query plan's DAG, as the scheduler sees it.
// The scheduler knows nothing of tables or SQL: an operator is something that,
// when asked, yields work orders, and that is told about its inputs.
//
// Contract (all of these calls are made by the scheduler with the query's
// scheduling lock held, on whichever thread is driving the scheduler at that
// moment — a worker, or the submitting thread in immediate mode. Calls for one
// query never overlap, so operator state touched only from these callbacks
// needs no locking; state shared with running work orders does.)
//
//   GetNextWorkOrders(sink)  first once the operator may start — it has no
//       blocking input left unfinished — and then again after every event that
//       may create work: an input block arrived, an input finished, or one of
//       this operator's work orders finished. It adds whatever work orders are
//       available now (possibly none) and returns true when it will never
//       produce another one. It must not return true while a pipelining input
//       is still streaming (it would miss blocks). Returning false with nothing
//       added and no event to come stalls the query; the scheduler detects that
//       and fails the query with XX000.
//   FeedInputBlock(i, block)  a producer on input edge i (numbered in the order
//       the edges into this operator were added) emitted a block. Delivered on
//       both kinds of edges; on a blocking edge the operator just keeps it until
//       it may start.
//   DoneFeedingInput(i)  producer i finished: all its work orders ran and
//       its AllWorkOrdersFinished() returned. No more blocks come on edge i.
//   AllWorkOrdersFinished()  every work order this operator produced has
//       finished, it returned true from GetNextWorkOrders and all its inputs are
//       done. Called once; finalize here (e.g. seal a hash table). Consumers are
//       told DoneFeedingInput right after.
//
// A callback that throws fails the query, exactly like a work order that throws.
// After a query is cancelled or failed, no callback is called again; operators
// are destroyed (before the query's memory is released) when the query ends.
#pragma once

#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "scheduler/work_order.h"

namespace forktail {

// Collects the work orders an operator yields in one GetNextWorkOrders call.
class WorkOrderSink {
 public:
  void Add(std::unique_ptr<WorkOrder> work_order) { orders_.push_back(std::move(work_order)); }
  size_t size() const { return orders_.size(); }
  std::vector<std::unique_ptr<WorkOrder>> Take() { return std::move(orders_); }

 private:
  std::vector<std::unique_ptr<WorkOrder>> orders_;
};

class RelationalOperator {
 public:
  virtual ~RelationalOperator() = default;

  // Shown by the progress monitor (e.g. "HashJoinBuild(orders)").
  virtual std::string_view name() const = 0;

  virtual bool GetNextWorkOrders(WorkOrderSink& sink) = 0;
  virtual void FeedInputBlock(size_t /*input_index*/, StreamBlockPtr /*block*/) {}
  virtual void DoneFeedingInput(size_t /*input_index*/) {}
  virtual void AllWorkOrdersFinished() {}
};

}  // namespace forktail
