// EXPLAIN [ANALYZE]: the physical plan as an indented tree, one operator per
// line, children (inputs) below their consumer, a hash join's build side
// last. Each line ends with the optimizer's row estimate; ANALYZE runs the
// query first and adds, per operator, the rows it emitted, the summed run
// time of its work orders and its work orders done/total (the scheduler's
// ProgressMonitor), then a total line:
//
//   Aggregate keys=[n_name#12] aggs=[sum(#29)]  (rows=25) (actual rows=25 time=0.412 ms
//   work_orders=3/3)
//     HashJoinProbe inner [c_nationkey#3 = n_nationkey#11]  (rows=150000) (actual ...)
//       TableScan customer  (rows=150000) (actual ...)
//       HashJoinBuild keys=[n_nationkey#11]  (rows=25) (actual ...)
//         TableScan nation  (rows=25) (actual ...)
//   Execution Time: 12.345 ms
//
// Times are sums over workers (CPU-ish), not wall clock per operator.
#pragma once

#include <string>
#include <vector>

#include "olap/plan/planner/executor.h"

namespace forktail {

// The tree of a planned query; `profile` (null: plain EXPLAIN) adds actuals.
std::vector<std::string> FormatPlan(const PhysicalPlan& plan, const ExecutionProfile* profile);

// EXPLAIN [ANALYZE] of an optimized logical plan: the lines of the tree
// (ANALYZE runs the query on `scheduler` and discards its rows).
std::vector<std::string> ExplainLines(const LogicalOp& root, const Catalog& catalog, bool analyze,
                                      Scheduler& scheduler, const ExecuteOptions& options = {});
// The same lines joined with '\n'.
std::string Explain(const LogicalOp& root, const Catalog& catalog, bool analyze,
                    Scheduler& scheduler, const ExecuteOptions& options = {});

}  // namespace forktail
