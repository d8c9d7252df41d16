// The optimizer's passes (see optimizer.h for what each does and in which
// order Optimize runs them). Internal to olap/plan; tests reach them through
// Optimize and its options.
#pragma once

#include "olap/plan/constant_folding.h"
#include "olap/plan/logical.h"
#include "olap/plan/optimizer/optimizer.h"
#include "olap/plan/optimizer/optimizer_estimator.h"

namespace forktail {

// Moves conditions as far down as they go; turns cross joins with
// equalities into inner joins with keys.
LogicalOpPtr PushDownPredicates(LogicalOpPtr op);

// Re-orders every maximal tree of inner/cross joins (DP or greedy) and puts
// the smaller input on the build (right) side.
LogicalOpPtr ReorderJoins(LogicalOpPtr op, CardinalityEstimator& estimator,
                          const OptimizerOptions& options);

// Drops Get columns and Project entries nobody above needs and projections
// that forward their input unchanged. Keeps the root's columns.
// Inner joins whose build side is unique on its keys and contributes no
// column above become semi joins. Removes empty Filters.
LogicalOpPtr PruneColumns(LogicalOpPtr root, const CardinalityEstimator& estimator);

// Whether no two rows of `op` agree on all of `keys` (ids of op's output):
// a primary key of a Get under filters/projections, the group keys of an
// Aggregate, a join of unique sides.
bool UniqueOn(const LogicalOp& op, const std::vector<uint32_t>& keys,
              const CardinalityEstimator& estimator);

// Aggregates whose aggregates are all DISTINCT ones over one column x
// (COUNT/SUM/AVG(DISTINCT x)) become the plain aggregates over an Aggregate
// grouping by the keys and x (optimizer_distinct_aggregates.cc).
void SplitDistinctAggregates(LogicalOp* root);

// Group keys that are other columns of a Get whose whole primary key is
// grouped on become AggKind::kAnyValue aggregates (same column ids; the
// Aggregate's column order changes: keys, aggregates, then the moved keys).
void ReduceDependentGroupKeys(LogicalOp* root, const Catalog& catalog);

// build_unique, exact_filter, join ids and LIP runtime filters.
void AddPhysicalHints(LogicalOp* root, CardinalityEstimator& estimator, bool runtime_filters);

}  // namespace forktail
