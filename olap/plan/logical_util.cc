#include "olap/plan/logical_util.h"

#include <utility>

#include "olap/expression/scalar_function.h"

namespace forktail {

void CollectColumns(const Expression& e, ColumnSet* out) {
  if (e.kind == ExprKind::kColumnRef) out->insert(e.column);
  for (const ExprPtr& c : e.children) {
    if (c) CollectColumns(*c, out);
  }
}

ColumnSet ColumnsOf(const Expression& e) {
  ColumnSet s;
  CollectColumns(e, &s);
  return s;
}

bool RefersOnlyTo(const Expression& e, const ColumnSet& ids) {
  if (e.kind == ExprKind::kColumnRef && ids.count(e.column) == 0) return false;
  for (const ExprPtr& c : e.children) {
    if (c && !RefersOnlyTo(*c, ids)) return false;
  }
  return true;
}

ColumnSet OutputIds(const LogicalOp& op) {
  ColumnSet s;
  for (const LogicalColumn& c : op.columns) s.insert(c.id);
  return s;
}

void SplitConjuncts(ExprPtr e, std::vector<ExprPtr>* out) {
  if (!e) return;
  if (e->kind == ExprKind::kAnd) {
    for (ExprPtr& c : e->children) SplitConjuncts(std::move(c), out);
    return;
  }
  out->push_back(std::move(e));
}

ExprPtr MakeConjunction(std::vector<ExprPtr> conjuncts) {
  ExprPtr result;
  for (ExprPtr& c : conjuncts) {
    result = result ? And(std::move(result), std::move(c)) : std::move(c);
  }
  return result;
}

void SplitConjuncts(const Expression& e, std::vector<const Expression*>* out) {
  if (e.kind == ExprKind::kAnd) {
    for (const ExprPtr& c : e.children) SplitConjuncts(*c, out);
    return;
  }
  out->push_back(&e);
}

void SplitDisjuncts(const Expression& e, std::vector<const Expression*>* out) {
  if (e.kind == ExprKind::kOr) {
    for (const ExprPtr& c : e.children) SplitDisjuncts(*c, out);
    return;
  }
  out->push_back(&e);
}

void SubstituteColumns(ExprPtr* e, const std::map<uint32_t, const Expression*>& map) {
  if (!*e) return;
  if ((*e)->kind == ExprKind::kColumnRef) {
    auto it = map.find((*e)->column);
    if (it != map.end()) *e = CloneExpr(*it->second);
    return;
  }
  for (ExprPtr& c : (*e)->children) SubstituteColumns(&c, map);
}

void RenameColumns(Expression* e, const std::map<uint32_t, uint32_t>& map) {
  if (e->kind == ExprKind::kColumnRef) {
    auto it = map.find(e->column);
    if (it != map.end()) e->column = it->second;
  }
  for (ExprPtr& c : e->children) {
    if (c) RenameColumns(c.get(), map);
  }
}

void RenameColumnsInPlan(LogicalOp* op, const std::map<uint32_t, uint32_t>& map) {
  if (op == nullptr) return;
  auto rename = [&](uint32_t& id) {
    auto it = map.find(id);
    if (it != map.end()) id = it->second;
  };
  ForEachExpression(*op, [&](ExprPtr& e) {
    if (e) RenameColumns(e.get(), map);
  });
  for (LogicalColumn& c : op->columns) rename(c.id);
  for (auto* ids : {&op->left_keys, &op->right_keys, &op->group_keys, &op->partition_keys}) {
    for (uint32_t& id : *ids) rename(id);
  }
  for (LogicalAggregate& a : op->aggregates) rename(a.input);
  for (SortKeyRef& k : op->sort_keys) rename(k.column);
  for (WindowFunction& w : op->window_functions) {
    for (uint32_t& id : w.args) rename(id);
  }
  for (RuntimeFilterRef& f : op->runtime_filters) {
    rename(f.probe_column);
    rename(f.build_column);
  }
  for (LogicalOpPtr& c : op->children) RenameColumnsInPlan(c.get(), map);
  RenameColumnsInPlan(op->subplan.get(), map);
}

bool ExprEquals(const Expression& a, const Expression& b,
                const std::function<bool(uint32_t, uint32_t)>& same_column) {
  if (a.kind != b.kind || !(a.type == b.type) || a.children.size() != b.children.size()) {
    return false;
  }
  switch (a.kind) {
    case ExprKind::kColumnRef:
      if (same_column ? !same_column(a.column, b.column) : a.column != b.column) return false;
      break;
    case ExprKind::kConstant:
      if (a.constant.is_null() != b.constant.is_null()) return false;
      if (!a.constant.is_null() &&
          !(a.constant.type() == b.constant.type() && a.constant == b.constant))
        return false;
      break;
    case ExprKind::kArith:
      if (a.arith != b.arith) return false;
      break;
    case ExprKind::kCompare:
      if (a.compare != b.compare) return false;
      break;
    case ExprKind::kIn:
      if (a.in_list.size() != b.in_list.size()) return false;
      for (size_t i = 0; i < a.in_list.size(); i++) {
        if (a.in_list[i].is_null() != b.in_list[i].is_null()) return false;
        if (!a.in_list[i].is_null() && !(a.in_list[i] == b.in_list[i])) return false;
      }
      break;
    case ExprKind::kLike:
      if (a.pattern != b.pattern || a.escape != b.escape) return false;
      break;
    case ExprKind::kDateAdd:
      if (!(a.interval == b.interval)) return false;
      break;
    case ExprKind::kExtract:
      if (a.field != b.field) return false;
      break;
    case ExprKind::kFunction:
      if (a.function->name() != b.function->name()) return false;
      break;
    default:
      break;
  }
  if (a.negated != b.negated) return false;
  for (size_t i = 0; i < a.children.size(); i++) {
    const ExprPtr& x = a.children[i];
    const ExprPtr& y = b.children[i];
    if (!x || !y) {
      if (x || y) return false;
      continue;
    }
    if (!ExprEquals(*x, *y, same_column)) return false;
  }
  return true;
}

bool HasVolatileCall(const Expression& e) {
  if (e.kind == ExprKind::kFunction && e.function && e.function->is_volatile()) return true;
  for (const ExprPtr& c : e.children) {
    if (c && HasVolatileCall(*c)) return true;
  }
  return false;
}

bool IsTrueConstant(const Expression& e) {
  return e.kind == ExprKind::kConstant && e.type.id == TypeId::kBoolean && !e.constant.is_null() &&
         e.constant.GetBool();
}

bool IsFalseOrNullConstant(const Expression& e) {
  return e.kind == ExprKind::kConstant && (e.constant.is_null() || !e.constant.GetBool());
}

void ForEachExpression(LogicalOp& op, const std::function<void(ExprPtr&)>& f) {
  for (ExprPtr& e : op.conditions) f(e);
  for (ExprPtr& e : op.expressions) f(e);
  for (auto& row : op.rows) {
    for (ExprPtr& e : row) f(e);
  }
}

void RecomputeColumns(LogicalOp* op) {
  switch (op->kind) {
    case LogicalOpKind::kFilter:
    case LogicalOpKind::kSort:
    case LogicalOpKind::kLimit:
    case LogicalOpKind::kDistinct:
      op->columns = op->children[0]->columns;
      break;
    case LogicalOpKind::kJoin: {
      op->columns = op->children[0]->columns;
      LogicalJoinKind k = op->join_kind;
      if (k != LogicalJoinKind::kSemi && k != LogicalJoinKind::kAnti &&
          k != LogicalJoinKind::kNullAwareAnti) {
        for (const LogicalColumn& c : op->children[1]->columns) op->columns.push_back(c);
      }
      break;
    }
    case LogicalOpKind::kWindow: {  // the input's columns, then the functions' results
      std::vector<LogicalColumn> results(op->columns.end() - op->window_functions.size(),
                                         op->columns.end());
      op->columns = op->children[0]->columns;
      op->columns.insert(op->columns.end(), results.begin(), results.end());
      break;
    }
    case LogicalOpKind::kApply: {  // the input's columns, then the result (last)
      // Lateral: the subplan's columns are the result (logical.h).
      size_t n = IsLateral(op->apply_kind) && op->subplan ? op->subplan->columns.size() : 1;
      std::vector<LogicalColumn> result(op->columns.end() - n, op->columns.end());
      op->columns = op->children[0]->columns;
      op->columns.insert(op->columns.end(), result.begin(), result.end());
      break;
    }
    default:
      break;
  }
}

ExprPtr Coalesce2(ExprPtr a, ExprPtr b) {
  std::vector<ExprPtr> args;
  args.push_back(std::move(a));
  args.push_back(std::move(b));
  return Coalesce(std::move(args));
}

LogicalOpPtr MakeFilter(LogicalOpPtr child, std::vector<ExprPtr> conditions) {
  auto op = std::make_unique<LogicalOp>();
  op->kind = LogicalOpKind::kFilter;
  op->children.push_back(std::move(child));
  op->conditions = std::move(conditions);
  RecomputeColumns(op.get());
  return op;
}

LogicalOpPtr MakeProject(LogicalOpPtr child, std::vector<LogicalColumn> columns,
                         std::vector<ExprPtr> expressions) {
  auto op = std::make_unique<LogicalOp>();
  op->kind = LogicalOpKind::kProject;
  op->children.push_back(std::move(child));
  op->columns = std::move(columns);
  op->expressions = std::move(expressions);
  return op;
}

LogicalOpPtr MakeJoin(LogicalJoinKind kind, LogicalOpPtr left, LogicalOpPtr right,
                      std::vector<uint32_t> left_keys, std::vector<uint32_t> right_keys,
                      std::vector<ExprPtr> residual) {
  auto op = std::make_unique<LogicalOp>();
  op->kind = LogicalOpKind::kJoin;
  op->join_kind = kind;
  op->children.push_back(std::move(left));
  op->children.push_back(std::move(right));
  op->left_keys = std::move(left_keys);
  op->right_keys = std::move(right_keys);
  op->conditions = std::move(residual);
  RecomputeColumns(op.get());
  return op;
}

}  // namespace forktail
