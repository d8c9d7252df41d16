// Executor: runs a planned query on a Scheduler and returns its rows. The plan runs in this process
// over a Catalog nothing mutates meanwhile (a snapshot's frozen catalog, or a test's).
//
// Admission: the plan is submitted with the planner's memory estimate (the
// scheduler's LoadController queues it until that much of the budget is
// free; the estimate also caps the query's QueryMemory, 53200 beyond).
// Cancellation: an optional flag is polled every few milliseconds while the
// query runs; once set the scheduler cancels the query and the call throws
// 57014 "canceling statement due to user request". Errors of the query
// (DbError with its SQLSTATE) are rethrown on the calling thread.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "olap/plan/planner/planner.h"
#include "scheduler/scheduler.h"

namespace forktail {

struct QueryColumn {
  std::string name;
  Type type;
};

struct QueryResult {
  std::vector<QueryColumn> columns;
  std::vector<Row> rows;
};

struct ExecuteOptions {
  // Worker slots per operator; 0: the scheduler's worker count (1 when it
  // runs in immediate mode).
  int parallelism = 0;
  int priority = 1;
  // Set by another thread to stop the query (polled every few ms).
  const std::atomic<bool>* cancel = nullptr;
  // Admission estimate in bytes; 0: the planner's.
  size_t memory_estimate = 0;
  // Upper bound for the planner's estimate (keep it within the scheduler's
  // memory budget, or Submit refuses the query with 53200).
  size_t max_memory = size_t{768} << 20;
  // Hard cap of the query's memory (53200 beyond it); 0: the admission
  // estimate is the cap. Admission still counts only the estimate.
  size_t memory_limit = 0;
  // PlanOptions::index_only_row_limit (Plan may throw ReadNeedsSnapshot).
  size_t index_only_row_limit = 0;
};

// What a run leaves for EXPLAIN ANALYZE.
struct ExecutionProfile {
  QueryProgress progress;  // per OperatorId: work orders, time
  double elapsed_ms = 0;   // wall clock, submit to end
};

// Plan options for running on `scheduler` with `options`.
PlanOptions PlanOptionsFor(const Scheduler& scheduler, const ExecuteOptions& options);

// Runs a physical plan (its QueryPlan is handed over; result rows land in
// plan.result). Throws the query's DbError.
ExecutionProfile RunPhysicalPlan(Scheduler& scheduler, PhysicalPlan& plan,
                                 const ExecuteOptions& options = {});

// Plan + run: the rows of an optimized logical plan, with the root's column
// names and types.
QueryResult ExecuteQuery(Scheduler& scheduler, const LogicalOp& root, const Catalog& catalog,
                         const ExecuteOptions& options = {});

}  // namespace forktail
