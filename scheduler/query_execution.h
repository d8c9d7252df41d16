// QueryExecution: the scheduler's run-time state of one admitted query — which
// operators may start, which are done, the work orders produced but not yet
// handed out, and the ones running. It drives the operator contract of
// relational_operator.h: asks operators for work orders, routes emitted blocks
// along the plan's edges, tells consumers when producers finish, and finishes
// the query when every operator is done. Internal to the scheduler; every
// method is called with the scheduler lock held.
//
// An operator is done when it returned true from GetNextWorkOrders, none of its
// work orders is queued or running, and all its inputs are done. A consumer on
// a blocking edge is asked for work orders only once all its blocking producers
// are done; on a pipelining edge it is asked after each block it receives.
//
// Order of the queued work orders: a consumer's new work orders (after a block
// arrived, or an input finished) go to the FRONT of the queue, the others
// (operators starting, a producer's further work orders) to the back. So a
// worker follows a block up its pipeline (scan -> probe -> aggregate) before
// it starts the next scan block: depth first, the blocks in flight between
// operators stay a few per worker. In FIFO order the scan ran all its work
// orders first and every pipeline stage materialized its whole output (TPC-H
// SF1 Q10: ~550 MiB of sparse probe output chunks queued for the aggregate).
//
// Failure (an exception from a work order or a callback, or a cancel) keeps the
// first error, raises the cancel flag that running work orders may poll, and
// drops the queued work orders; the query ends when the running ones return.
#pragma once

#include <atomic>
#include <deque>
#include <exception>
#include <memory>
#include <vector>

#include "scheduler/progress_monitor.h"
#include "scheduler/query_handle.h"
#include "scheduler/query_plan.h"

namespace forktail {

class QueryExecution {
 public:
  struct Task {
    OperatorId op = 0;
    std::unique_ptr<WorkOrder> order;
  };

  QueryExecution(QueryId id, std::unique_ptr<QueryPlan> plan, int priority, size_t estimate,
                 QueryHandle handle, ProgressMonitor* progress);

  // Registers with the progress monitor and asks the source operators for work.
  void Start();
  bool HasReady() const { return !ready_.empty(); }
  OperatorId NextOperator() const { return ready_.front().op; }
  Task Pop();
  // A work order of `op` returned (nanos of run time) with its emitted blocks,
  // or threw (error set; the blocks are dropped).
  void OnWorkOrderDone(OperatorId op, uint64_t nanos, std::vector<StreamBlockPtr> blocks,
                       std::exception_ptr error);
  void Fail(std::exception_ptr error);

  // Succeeded, or failed with nothing left running: ready to be torn down.
  bool Ended() const { return running_ == 0 && (failed() || done_operators_ == ops_.size()); }
  bool failed() const { return error_ != nullptr; }
  std::exception_ptr error() const { return error_; }

  QueryId id() const { return id_; }
  int priority() const { return priority_; }
  size_t estimate() const { return estimate_; }
  const QueryHandle& handle() const { return handle_; }
  QueryPlan& plan() { return *plan_; }
  std::unique_ptr<QueryPlan> TakePlan() { return std::move(plan_); }
  const std::atomic<bool>* cancel_flag() const { return &cancelled_; }

 private:
  struct OperatorState {
    size_t blocking_inputs_pending = 0;
    size_t inputs_pending = 0;
    size_t outstanding = 0;  // queued + running work orders
    bool generation_done = false;
    bool done = false;
  };

  // Each may throw (operator callbacks); callers catch and Fail.
  // `consumer`: the operator reacts to input (a block, an input finished);
  // its work orders are queued in front (see the order above).
  void Fetch(OperatorId op, bool consumer = false);
  void MaybeFinish(OperatorId op);
  void CheckStall();

  QueryId id_;
  std::unique_ptr<QueryPlan> plan_;
  int priority_;
  size_t estimate_;
  QueryHandle handle_;
  ProgressMonitor* progress_;
  std::vector<OperatorState> ops_;
  std::deque<Task> ready_;
  size_t running_ = 0;
  size_t done_operators_ = 0;
  std::exception_ptr error_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace forktail
