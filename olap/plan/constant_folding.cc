#include "olap/plan/constant_folding.h"

#include <string>
#include <utility>
#include <vector>

#include "olap/common/data_chunk.h"
#include "olap/execution/operator/physical_chunk_block.h"
#include "olap/expression/expression_executor.h"
#include "olap/expression/scalar_function.h"
#include "olap/plan/logical_util.h"
#include "storage/error.h"

namespace forktail {

namespace {

bool Foldable(const Expression& e) {
  if (e.kind == ExprKind::kColumnRef || e.kind == ExprKind::kConstant) return false;
  if (e.kind == ExprKind::kFunction && e.function->is_volatile()) return false;
  for (const ExprPtr& c : e.children) {
    if (c && c->kind != ExprKind::kConstant) return false;
  }
  return true;
}

// Evaluates a constant-only expression on a one-row chunk; null if it
// raises (the error then happens at run time, if that row is evaluated).
ExprPtr Evaluate(const Expression& e) {
  try {
    DataChunk chunk(std::vector<Type>{});
    chunk.set_size(1);
    ExpressionExecutor exec(e);
    const Vector& v = exec.Execute(chunk);
    Value value = VectorValue(v, 0);
    if (value.is_null()) return Constant(Value::Null(e.type));
    if (!(value.type() == e.type)) {
      if (!(value.type().IsString() && e.type.IsString())) return nullptr;
      value = Value::String(e.type, std::string(value.GetString()));
    }
    return Constant(std::move(value));
  } catch (const DbError&) {
    return nullptr;
  }
}

}  // namespace

ExprPtr FoldExpression(ExprPtr e) {
  if (!e) return e;
  for (ExprPtr& c : e->children) c = FoldExpression(std::move(c));
  // Boolean identities that hold under three-valued logic.
  if (e->kind == ExprKind::kAnd || e->kind == ExprKind::kOr) {
    bool is_and = e->kind == ExprKind::kAnd;
    std::vector<ExprPtr> kept;
    for (ExprPtr& c : e->children) {
      bool constant = c->kind == ExprKind::kConstant && !c->constant.is_null();
      if (constant && c->constant.GetBool() == is_and) continue;  // TRUE in AND, FALSE in OR
      if (constant) return std::move(c);                          // FALSE in AND, TRUE in OR
      kept.push_back(std::move(c));
    }
    if (kept.empty()) return Constant(Value::Boolean(is_and));
    if (kept.size() == 1) return std::move(kept[0]);
    e->children = std::move(kept);
    return e;
  }
  if (Foldable(*e)) {
    if (ExprPtr folded = Evaluate(*e)) return folded;
  }
  return e;
}

void FoldConstants(LogicalOp* op) {
  ForEachExpression(*op, [](ExprPtr& e) { e = FoldExpression(std::move(e)); });
  std::vector<ExprPtr> kept;
  if (op->kind == LogicalOpKind::kFilter || op->kind == LogicalOpKind::kGet ||
      op->kind == LogicalOpKind::kJoin) {
    for (ExprPtr& c : op->conditions) {
      if (!IsTrueConstant(*c)) kept.push_back(std::move(c));
    }
    op->conditions = std::move(kept);
  }
  for (LogicalOpPtr& c : op->children) FoldConstants(c.get());
}

}  // namespace forktail
