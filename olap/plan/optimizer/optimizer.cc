#include "olap/plan/optimizer/optimizer.h"

#include <algorithm>
#include <utility>

#include "olap/plan/constant_folding.h"
#include "olap/plan/logical_util.h"
#include "olap/plan/optimizer/optimizer_internal.h"
#include "storage/error.h"

namespace forktail {

namespace {

// The result's columns (ids, order, names) are the query's contract: if the
// rewrites removed the projection that named them, name them again down the
// chain of operators that forward their input (or project them back).
LogicalOpPtr KeepResultColumns(LogicalOpPtr plan, const std::vector<LogicalColumn>& want) {
  bool same = plan->columns.size() == want.size();
  for (size_t i = 0; same && i < want.size(); i++) same = plan->columns[i].id == want[i].id;
  if (!same) {
    auto top = std::make_unique<LogicalOp>();
    top->kind = LogicalOpKind::kProject;
    top->columns = want;
    for (const LogicalColumn& c : want) top->expressions.push_back(ColumnRef(c.id, c.type));
    top->estimated_rows = plan->estimated_rows;
    top->children.push_back(std::move(plan));
    return top;
  }
  for (LogicalOp* op = plan.get(); op != nullptr;) {
    for (size_t i = 0; i < want.size(); i++) op->columns[i].name = want[i].name;
    bool forwards = op->kind == LogicalOpKind::kSort || op->kind == LogicalOpKind::kLimit ||
                    op->kind == LogicalOpKind::kFilter || op->kind == LogicalOpKind::kDistinct;
    op = forwards ? op->children[0].get() : nullptr;
  }
  return plan;
}

// A LIMIT over a WITH RECURSIVE reference through projections only needs
// that many of its rows, in the order the rounds produce them: the rounds
// stop once they have (as PostgreSQL evaluates a recursive query only as far
// as its reader fetches, so that `... UNION ALL SELECT n + 1 FROM t) SELECT
// * FROM t LIMIT 10` ends).
void CapRecursions(LogicalOp* op) {
  if (op->kind == LogicalOpKind::kLimit && op->limit >= 0) {
    LogicalOp* below = op->children[0].get();
    while (below->kind == LogicalOpKind::kProject) below = below->children[0].get();
    if (below->kind == LogicalOpKind::kRecursiveUnion) {
      int64_t cap = op->limit + std::max<int64_t>(op->offset, 0);
      if (below->limit < 0 || cap < below->limit) below->limit = cap;
    }
  }
  for (LogicalOpPtr& c : op->children) CapRecursions(c.get());
}

}  // namespace

LogicalOpPtr Optimize(LogicalOpPtr plan, const Catalog& catalog, const OptimizerOptions& options) {
  std::vector<LogicalColumn> result = plan->columns;
  FoldConstants(plan.get());
  if (options.push_down) plan = PushDownPredicates(std::move(plan));
  CardinalityEstimator estimator(catalog);
  estimator.LearnColumns(*plan);
  plan = ReorderJoins(std::move(plan), estimator, options);
  plan = PruneColumns(std::move(plan), estimator);
  CapRecursions(plan.get());
  SplitDistinctAggregates(plan.get());
  ReduceDependentGroupKeys(plan.get(), catalog);
  estimator.Estimate(*plan);
  AddPhysicalHints(plan.get(), estimator, options.runtime_filters);
  return KeepResultColumns(std::move(plan), result);
}

}  // namespace forktail
