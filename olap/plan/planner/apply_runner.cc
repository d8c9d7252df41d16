#include "olap/plan/planner/apply_runner.h"

#include <map>
#include <set>
#include <utility>

#include "olap/execution/operator/physical_apply.h"
#include "olap/plan/binder/table_function.h"
#include "olap/plan/logical_util.h"
#include "olap/plan/optimizer/optimizer.h"
#include "olap/plan/planner/executor.h"
#include "storage/error.h"

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

// Turns every kWorkTable leaf `id` of `op` (also inside subplans) into a
// kValues of `rows`, keeping its column ids.
void FillWorkTable(LogicalOp* op, uint32_t id, const std::vector<Row>& rows) {
  if (op->kind == LogicalOpKind::kWorkTable && op->work_table_id == id) {
    op->kind = LogicalOpKind::kValues;
    op->rows.clear();
    op->rows.reserve(rows.size());
    for (const Row& row : rows) {
      std::vector<ExprPtr> exprs;
      for (size_t c = 0; c < op->columns.size(); c++) {
        exprs.push_back(TypedConstant(row[c], op->columns[c].type));
      }
      op->rows.push_back(std::move(exprs));
    }
    return;
  }
  for (LogicalOpPtr& c : op->children) FillWorkTable(c.get(), id, rows);
  if (op->subplan) FillWorkTable(op->subplan.get(), id, rows);
}

// A private scheduler that runs work orders on the calling thread.
SchedulerOptions ImmediateOptions() {
  SchedulerOptions so;
  so.immediate = true;
  so.num_workers = 0;
  so.pin_workers = false;
  return so;
}

// Optimizes, plans and runs `plan` on `scheduler` (ImmediateOptions) on the
// calling thread (see the header).
std::vector<Row> RunNested(LogicalOpPtr plan, const Catalog& catalog, Scheduler& scheduler) {
  ExpandTableFunctions(&plan);  // their arguments may be constants now
  plan = Optimize(std::move(plan), catalog);
  ExecuteOptions eo;
  eo.parallelism = 1;
  return ExecuteQuery(scheduler, *plan, catalog, eo).rows;
}

// Bytes a row holds, roughly, for the query's memory budget.
size_t RowBytes(const Row& row) {
  size_t bytes = sizeof(Row) + row.size() * sizeof(Value);
  for (const Value& v : row) {
    if (!v.is_null() && v.type().IsString()) bytes += v.GetString().size();
  }
  return bytes;
}

}  // namespace

std::vector<Row> RunRecursiveUnion(const LogicalOp& op, const Catalog& catalog,
                                   WorkOrderContext& context) {
  if (!op.subplan || op.subplan->children.size() != 2) {
    throw DbError(sqlstate::kInternalError, "planner: malformed RecursiveUnion");
  }
  Scheduler scheduler(ImmediateOptions());
  std::vector<Row> all;
  std::set<Row, RowLess> seen;  // UNION: every row so far
  std::vector<Row> added = RunNested(ClonePlan(*op.subplan->children[0]), catalog, scheduler);
  for (;;) {
    if (op.set_distinct) {
      std::vector<Row> fresh;
      for (Row& row : added) {
        if (seen.insert(row).second) fresh.push_back(std::move(row));
      }
      added = std::move(fresh);
    }
    if (added.empty()) break;
    // Each row is held in `all` and in the round's `added` (UNION: and `seen`).
    size_t bytes = 0;
    for (const Row& row : added) bytes += RowBytes(row) * (op.set_distinct ? 3 : 2);
    context.memory().Charge(bytes, "WITH RECURSIVE");
    all.insert(all.end(), added.begin(), added.end());
    if (op.limit >= 0 && all.size() >= static_cast<size_t>(op.limit)) {
      all.resize(static_cast<size_t>(op.limit));
      break;
    }
    if (context.IsCancelled()) {
      throw DbError(sqlstate::kQueryCanceled, "canceling statement due to user request");
    }
    LogicalOpPtr term = ClonePlan(*op.subplan->children[1]);
    FillWorkTable(term.get(), op.work_table_id, added);
    added = RunNested(std::move(term), catalog, scheduler);
  }
  return all;
}

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
  Scheduler scheduler(ImmediateOptions());
  return RunNested(SubstituteBindings(subplan, ids, binding), catalog, scheduler);
}

}  // namespace forktail
