#include "olap/plan/optimizer/optimizer.h"

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

}  // namespace

LogicalOpPtr Optimize(LogicalOpPtr plan, const Catalog& catalog, const OptimizerOptions& options) {
  std::vector<LogicalColumn> result = plan->columns;
  FoldConstants(plan.get());
  if (options.push_down) plan = PushDownPredicates(std::move(plan));
  CardinalityEstimator estimator(catalog);
  estimator.LearnColumns(*plan);
  plan = ReorderJoins(std::move(plan), estimator, options);
  plan = PruneColumns(std::move(plan), estimator);
  SplitDistinctAggregates(plan.get());
  ReduceDependentGroupKeys(plan.get(), catalog);
  estimator.Estimate(*plan);
  AddPhysicalHints(plan.get(), estimator, options.runtime_filters);
  return KeepResultColumns(std::move(plan), result);
}

}  // namespace forktail
