#include "olap/plan/planner/apply_runner.h"

#include <map>
#include <utility>

#include "olap/plan/binder/table_function.h"
#include "olap/plan/logical_util.h"
#include "olap/plan/optimizer/optimizer.h"
#include "olap/plan/planner/executor.h"

namespace forktail {

namespace {

// A constant of `type` holding `v` (strings keep their bytes, other types
// are cast; NULL is a typed NULL).
ExprPtr TypedConstant(const Value& v, const Type& type) {
  if (v.is_null()) return Constant(Value::Null(type));
  if (v.type() == type) return Constant(v);
  if (v.type().IsString() && type.IsString()) {
    return Constant(Value::String(type, std::string(v.GetString())));
  }
  return Constant(v.CastTo(type));
}

void Replace(ExprPtr* e, const std::map<uint32_t, const Value*>& values) {
  Expression& x = **e;
  if (x.kind == ExprKind::kColumnRef) {
    auto it = values.find(x.column);
    if (it != values.end()) *e = TypedConstant(*it->second, x.type);
    return;
  }
  for (ExprPtr& c : x.children) {
    if (c) Replace(&c, values);
  }
}

void SubstituteInPlace(LogicalOp* op, const std::map<uint32_t, const Value*>& values) {
  ForEachExpression(*op, [&](ExprPtr& e) {
    if (e) Replace(&e, values);
  });
  if (op->kind == LogicalOpKind::kApply) {
    // Bindings now constant are no longer read from the input.
    std::vector<ExprPtr> kept;
    for (ExprPtr& e : op->expressions) {
      if (e->kind == ExprKind::kColumnRef) kept.push_back(std::move(e));
    }
    op->expressions = std::move(kept);
    if (op->subplan) SubstituteInPlace(op->subplan.get(), values);
  }
  for (LogicalOpPtr& c : op->children) SubstituteInPlace(c.get(), values);
}

}  // namespace

LogicalOpPtr SubstituteBindings(const LogicalOp& plan, const std::vector<uint32_t>& ids,
                                const Row& binding) {
  std::map<uint32_t, const Value*> values;
  for (size_t i = 0; i < ids.size(); i++) values[ids[i]] = &binding[i];
  LogicalOpPtr out = ClonePlan(plan);
  SubstituteInPlace(out.get(), values);
  return out;
}

std::vector<Row> RunApplySubplan(const LogicalOp& subplan, const std::vector<uint32_t>& ids,
                                 const Row& binding, const Catalog& catalog) {
  LogicalOpPtr plan = SubstituteBindings(subplan, ids, binding);
  ExpandTableFunctions(&plan);  // their arguments are constants now
  plan = Optimize(std::move(plan), catalog);
  SchedulerOptions so;
  so.immediate = true;
  so.num_workers = 0;
  so.pin_workers = false;
  Scheduler scheduler(so);
  ExecuteOptions eo;
  eo.parallelism = 1;
  return ExecuteQuery(scheduler, *plan, catalog, eo).rows;
}

}  // namespace forktail
