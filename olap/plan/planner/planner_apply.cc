// Planning a logical Apply (logical.h): the input, then an ApplyOperator
// whose runner re-plans the subquery per distinct binding (apply_runner.h).
#include <memory>
#include <utility>

#include "olap/plan/planner/apply_runner.h"
#include "olap/plan/planner/planner_internal.h"
#include "storage/error.h"

namespace forktail {
namespace planner {

namespace {

ApplyFold FoldOf(ApplyKind k) {
  switch (k) {
    case ApplyKind::kScalar:
      return ApplyFold::kScalar;
    case ApplyKind::kExists:
      return ApplyFold::kExists;
    case ApplyKind::kAny:
      return ApplyFold::kAny;
    case ApplyKind::kAll:
      return ApplyFold::kAll;
    case ApplyKind::kLateral:
      return ApplyFold::kLateral;
    case ApplyKind::kLateralLeft:
      return ApplyFold::kLateralLeft;
  }
  return ApplyFold::kScalar;
}

}  // namespace

Planned Planner::PlanApply(const LogicalOp& op) {
  if (!op.subplan || op.children.size() != 1) {
    throw DbError(sqlstate::kInternalError, "planner: malformed Apply");
  }
  // A subquery per row is not bounded by the index probes of the plan's own
  // scans: not for the transaction thread.
  if (options_.index_only_row_limit > 0) throw ReadNeedsSnapshot();
  Planned in = PlanOp(*op.children[0]);
  std::vector<uint32_t> ids, positions;
  for (const ExprPtr& e : op.expressions) {
    if (e->kind != ExprKind::kColumnRef) continue;
    ids.push_back(e->column);
    positions.push_back(Position(in.layout, e->column));
  }
  std::shared_ptr<const LogicalOp> subplan = ClonePlan(*op.subplan);
  const Catalog* catalog = &catalog_;
  ApplyRunner runner = [subplan, ids, catalog](const Row& binding) {
    return RunApplySubplan(*subplan, ids, binding, *catalog);
  };
  Planned out;
  if (IsLateral(op.apply_kind)) {  // the subplan's columns, in its order
    std::vector<Type> types;
    for (const LogicalColumn& c : op.subplan->columns) types.push_back(c.type);
    out = Planned{b_.LateralApply(in.id, std::move(positions), FoldOf(op.apply_kind),
                                  std::move(types), std::move(runner)),
                  in.layout};
    for (const LogicalColumn& c : op.subplan->columns) out.layout.push_back(c.id);
  } else {
    const LogicalColumn& result = op.columns.back();
    out = Planned{b_.Apply(in.id, std::move(positions), FoldOf(op.apply_kind), result.type,
                           std::move(runner)),
                  in.layout};
    out.layout.push_back(result.id);
  }
  std::vector<const LogicalOp*> inputs{op.children[0].get()};
  std::string detail;
  for (uint32_t id : ids) detail += (detail.empty() ? "bindings=[" : ", ") + ShowIds({id}, inputs);
  if (!detail.empty()) detail += "]";
  Note(out.id, DescribeOp(op).substr(0, DescribeOp(op).find(" bindings")), std::move(detail),
       op.estimated_rows, {in.id});
  return out;
}

}  // namespace planner
}  // namespace forktail
