// Planner: a logical plan (olap/plan/logical.h, after Optimize) to a
// physical scheduler plan (olap/execution/physical.h).
//
// Column ids to positions. Logical operators name their columns by
// query-wide ids; physical operators by positions. Planning a logical
// operator yields its physical operator and the id at each output position
// (a layout). A layout may hold more columns than the logical operator lists
// (a join passes both inputs on) or repeat none; parents look ids up in their
// inputs' layouts, and expressions are cloned with every column ref rewritten
// from an id to a position. The root gets a final projection to exactly the
// query's result columns when its layout differs.
//
// Choices:
//   Get [+ Filter] [+ Project]  one TableScan with the conditions pushed into
//                               its filter and the projections into its spec;
//   Filter / Project            a Select (a Project over a Filter fuses);
//   Join with keys              hash build on the right child (the optimizer's
//                               build side) + probe; inner/left/semi/anti/NOT IN;
//                               a residual is evaluated in the probe;
//   Join without keys, single   NestedLoopJoin (materialized right side; keys
//   join                        indexed when present);
//   single join, build_unique   hash left join (keys unique: at most one match);
//   Aggregate / Distinct        hash Aggregate (Distinct: keys only);
//   Sort + Limit                top-k Sort (k = limit + offset) + Limit(offset);
//   Union [ALL]                 UnionAll of inputs cast to the result types
//                               (+ a key-only Aggregate for UNION);
//   Intersect / Except          UnionAll of tagged inputs + Aggregate counting
//                               each side + Select (distinct forms only);
//   Values                      ValuesOperator (constant expressions folded).
// Runtime filters the optimizer annotated on a Get (inner / semi joins'
// builds) are wired: the build publishes a JoinFilterSlot, the scan filters
// its read column through it, and a blocking edge orders build before scan.
// Hash joins plan their build side first, so the build exists when the
// probe-side scan is planned; a filter whose build is not planned yet (or
// whose probe column is computed) is left out and EXPLAIN says "not wired".
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "olap/execution/physical.h"
#include "olap/plan/logical.h"
#include "storage/table/catalog.h"

namespace forktail {

// One physical operator as EXPLAIN shows it.
struct PlanNode {
  std::string label;               // "HashJoinProbe inner", "TableScan lineitem", ...
  std::string detail;              // keys, filters, ... (may be empty)
  double estimated_rows = -1;      // from the logical operator it implements; -1: unknown
  std::vector<OperatorId> inputs;  // shown as children (build side last)
  std::shared_ptr<OperatorStats> stats;
  // Plans run at run time (WITH RECURSIVE's terms), shown above the inputs:
  // lines of logical plan, already indented relative to the node.
  std::vector<std::string> nested;
};

struct PhysicalPlan {
  std::unique_ptr<QueryPlan> plan;
  std::shared_ptr<ResultRows> result;  // filled once the query ran
  std::vector<std::string> column_names;
  std::vector<Type> column_types;
  std::vector<PlanNode> nodes;  // by OperatorId
  OperatorId root = 0;          // the result sink
  // Bytes to declare at admission (Scheduler::Submit), from the estimates of
  // the materializing operators (hash tables, aggregates, sorts).
  size_t memory_estimate = 0;
};

struct PlanOptions {
  // Worker slots per operator: the scheduler's worker count (1 if immediate).
  int parallelism = 2;
  // Nonzero: a read on the transaction thread, which must stay short. Every
  // table must be read through an index (primary key or secondary) whose
  // probe finds at most this many rows; otherwise Plan throws
  // ReadNeedsSnapshot before anything runs. The probe is made while
  // planning, and the scan reads exactly the rows it found.
  size_t index_only_row_limit = 0;
  // Bounds of memory_estimate.
  size_t min_memory = size_t{64} << 20;
  size_t max_memory = size_t{768} << 20;
};

// Thrown by Plan under PlanOptions::index_only_row_limit: the query is for a
// snapshot (a table read without a usable index, or a probe over the limit).
struct ReadNeedsSnapshot : std::exception {
  const char* what() const noexcept override { return "the read needs a snapshot"; }
};

// Throws DbError (0A000 for shapes not supported, XX000 for a malformed plan).
PhysicalPlan Plan(const LogicalOp& root, const Catalog& catalog, const PlanOptions& options);
inline PhysicalPlan Plan(const LogicalOp& root, const Catalog& catalog, int parallelism) {
  PlanOptions options;
  options.parallelism = parallelism;
  return Plan(root, catalog, options);
}

}  // namespace forktail
