// The general subquery fallback: a dependent join (Apply, logical.h).
//
// Whatever the join rewrites of binder_subquery.cc cannot express —
// correlation outside WHERE conjuncts, under OR, in a nested subquery, with
// LIMIT / ORDER BY / DISTINCT / set operations inside, non-equality
// correlation of a scalar subquery — and every EXISTS / IN / ANY / ALL used
// as a value (select list, CASE, OR) becomes an Apply: the subquery is bound
// with its correlated conditions kept in place (its plan reads outer column
// ids), and the Apply appends one result column per outer row:
//
//   (q)                 scalar: NULL if no row, 21000 if more than one
//   EXISTS (q)          boolean; the subplan is capped by LIMIT 1
//   x op ANY (q)        the subplan projects x op q.col; TRUE if one is TRUE,
//                       else NULL if one is NULL, else FALSE
//   x op ALL (q)        FALSE if one is FALSE, else NULL if one is NULL, else TRUE
//   x IN (q)            x = ANY (q);  x NOT IN (q): NOT (x = ANY (q))
//
// Why a runtime Apply (evaluate the subplan once per distinct outer binding,
// cached) and not full unnesting (Neumann & Kemper): it is correct for any
// subquery shape the binder can bind (LIMIT, ORDER BY, aggregates without
// GROUP BY, nested correlation) with a few hundred lines, while unnesting
// needs a rule per operator (a per-binding LIMIT needs window functions the
// engine lacks). The common shapes keep their join rewrites, so only the rare
// ones pay the per-binding cost.
#include <map>
#include <string>

#include "olap/plan/binder/binder_lateral.h"

namespace forktail {

namespace {

LogicalOpPtr OnTop(LogicalOpKind kind, LogicalOpPtr child) {
  auto op = std::make_unique<LogicalOp>();
  op->kind = kind;
  op->children.push_back(std::move(child));
  return op;
}

CompareOp CompareOpOf(const std::string& s, int position) {
  if (s == "=") return CompareOp::kEq;
  if (s == "<>" || s == "!=") return CompareOp::kNe;
  if (s == "<") return CompareOp::kLt;
  if (s == "<=") return CompareOp::kLe;
  if (s == ">") return CompareOp::kGt;
  if (s == ">=") return CompareOp::kGe;
  NotSupported("operator " + s + " with ANY/ALL", position);
}

}  // namespace

void CollectRefTypes(const Expression& e, std::map<uint32_t, Type>* out) {
  if (e.kind == ExprKind::kColumnRef) out->emplace(e.column, e.type);
  for (const ExprPtr& c : e.children) {
    if (c) CollectRefTypes(*c, out);
  }
}

void CollectRefTypes(const LogicalOp& op, std::map<uint32_t, Type>* out) {
  for (const ExprPtr& e : op.conditions) CollectRefTypes(*e, out);
  for (const ExprPtr& e : op.expressions) CollectRefTypes(*e, out);
  for (const auto& row : op.rows) {
    for (const ExprPtr& e : row) CollectRefTypes(*e, out);
  }
  if (op.subplan) CollectRefTypes(*op.subplan, out);
  for (const LogicalOpPtr& c : op.children) {
    if (c) CollectRefTypes(*c, out);
  }
}

ExprPtr Binder::BindApply(const sql::Query& q, ExprContext& ctx, ApplyKind kind,
                          const sql::Expr* lhs, const std::string& op_text, int position) {
  if (ctx.plan == nullptr) NotSupported("a subquery in this position", position);
  SubqueryMode mode;
  mode.is_subquery = true;
  mode.keep_correlated = true;
  BoundQuery bq = BindQuery(q, ctx.scope, &mode);
  LogicalOpPtr sub = std::move(bq.plan);
  Type result_type = Type::Boolean();
  std::string name = "?column?";
  if (kind != ApplyKind::kExists && bq.columns.size() != 1) {
    throw DbError(sqlstate::kSyntaxError,
                  kind == ApplyKind::kScalar ? "subquery must return only one column"
                                             : "subquery has too many columns",
                  position);
  }
  if (kind == ApplyKind::kExists) {
    sub = OnTop(LogicalOpKind::kLimit, std::move(sub));
    sub->limit = 1;
    RecomputeColumns(sub.get());
  } else {
    const LogicalColumn col = bq.columns[0];
    ExprPtr value = ColumnRef(col.id, col.type);
    if (kind == ApplyKind::kScalar) {
      result_type = col.type;
      name = col.name;
    } else {
      if (lhs->kind == sql::ExprKind::kRow) {
        NotSupported("a row value IN (subquery)", lhs->position);
      }
      CompareOp cmp = CompareOpOf(op_text, position);
      ExprContext lc = ctx;
      lc.hint = &col.type;
      ExprPtr x = BindExpr(*lhs, lc);
      try {
        value = Compare(cmp, std::move(x), std::move(value));
      } catch (const DbError& err) {
        RethrowAt(err, position);
      }
    }
    // One column: the value (a scalar needs at most two rows to decide).
    auto proj = OnTop(LogicalOpKind::kProject, std::move(sub));
    proj->columns.push_back({NewId(), name, value->type});
    proj->expressions.push_back(std::move(value));
    sub = std::move(proj);
    if (kind == ApplyKind::kScalar) {
      sub = OnTop(LogicalOpKind::kLimit, std::move(sub));
      sub->limit = 2;
      RecomputeColumns(sub.get());
    }
  }
  std::map<uint32_t, Type> types;
  CollectRefTypes(*sub, &types);
  auto apply = std::make_unique<LogicalOp>();
  apply->kind = LogicalOpKind::kApply;
  apply->apply_kind = kind;
  for (uint32_t id : FreeColumns(*sub)) {
    // An outer column read other than by an expression (an aggregate's
    // input: an outer-level aggregate in PostgreSQL) cannot be substituted.
    auto t = types.find(id);
    if (t == types.end())
      NotSupported("an outer reference in this position of a subquery", position);
    apply->expressions.push_back(ColumnRef(id, t->second));
  }
  apply->subplan = std::move(sub);
  uint32_t rid = NewId();
  apply->columns.push_back({rid, name, result_type});
  apply->children.push_back(std::move(*ctx.plan));
  if (apply->children[0]) RecomputeColumns(apply.get());
  *ctx.plan = std::move(apply);
  return ColumnRef(rid, result_type);
}

ExprPtr Binder::BindSubqueryValue(const sql::Expr& e, ExprContext& ctx) {
  switch (e.kind) {
    case sql::ExprKind::kExists:
      return BindApply(*e.subquery, ctx, ApplyKind::kExists, nullptr, "", e.position);
    case sql::ExprKind::kInSubquery: {
      ExprPtr r =
          BindApply(*e.subquery, ctx, ApplyKind::kAny, e.children[0].get(), "=", e.position);
      if (e.negated) return Not(std::move(r));
      return r;
    }
    case sql::ExprKind::kQuantified: {
      if (!e.subquery) NotSupported("op ANY/ALL (array)", e.position);
      ApplyKind kind = e.quantifier == sql::Quantifier::kAll ? ApplyKind::kAll : ApplyKind::kAny;
      return BindApply(*e.subquery, ctx, kind, e.children[0].get(), e.op, e.position);
    }
    default:
      NotSupported("this subquery", e.position);
  }
}

}  // namespace forktail
