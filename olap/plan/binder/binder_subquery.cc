// Subqueries become joins (they never reach the planner):
//
//   x IN (q)              semi join on x = q.col
//   x NOT IN (q)          null-aware anti join on x = q.col (uncorrelated)
//   EXISTS (q)            semi join; NOT EXISTS: anti join
//   x = ANY (q)           as IN;  x <> ALL (q): as NOT IN
//   x op ANY (q)          semi join with residual x op q.col
//   x op ALL (q)          anti join with residual NOT COALESCE(x op q.col, false)
//                         (correct in WHERE, where NULL and FALSE both drop)
//   (q) scalar            uncorrelated: single join (21000 on a second row)
//   (q) scalar, correlated, aggregated without GROUP BY (TPC-H Q2, Q17, Q20):
//                         q grouped by its correlation columns, left-joined
//                         back on them; the select expression is evaluated
//                         above the join with COALESCE(count, 0) for counts
//   (q) scalar, correlated, not aggregated: single join on the correlation keys,
//                         other correlated conjuncts as its residual
//
// Correlation: the subquery's WHERE conjuncts that read outer columns
// (BoundQuery::correlated) become the join's condition; the push-down pass
// turns their column equalities into keys and keeps the rest as the
// residual (TPC-H Q21's l3.l_suppkey <> l1.l_suppkey on an anti join).
// Outer references anywhere else, and any other shape these joins cannot
// express, raise 0A000 inside; the entry points catch it and bind the
// subquery again as an Apply (binder_apply.cc), the general fallback.
#include <string>

#include "olap/plan/binder/binder_internal.h"

namespace forktail {

namespace {

// Joins `right` onto *plan (which may be a hole: null, filled in later).
void JoinOnto(LogicalOpPtr* plan, LogicalJoinKind kind, LogicalOpPtr right,
              std::vector<uint32_t> lk, std::vector<uint32_t> rk, std::vector<ExprPtr> conds) {
  if (*plan) {
    *plan = MakeJoin(kind, std::move(*plan), std::move(right), std::move(lk), std::move(rk),
                     std::move(conds));
    return;
  }
  auto op = std::make_unique<LogicalOp>();
  op->kind = LogicalOpKind::kJoin;
  op->join_kind = kind;
  op->children.push_back(nullptr);
  op->children.push_back(std::move(right));
  op->left_keys = std::move(lk);
  op->right_keys = std::move(rk);
  op->conditions = std::move(conds);
  *plan = std::move(op);
}

void CheckNoFreeColumns(const LogicalOp& plan, int position) {
  if (!FreeColumns(plan).empty()) {
    NotSupported("an outer reference in this position of a subquery", position);
  }
}

// A join key must be produced by the plan the join attaches to; a key
// reading a column of a scope further out (correlation two levels deep)
// cannot be one (the caller falls back to an Apply, which substitutes it).
void CheckNoOuterKey(const Expression& key, const Scope* scope, int position) {
  for (uint32_t id : ColumnsOf(key)) {
    for (const Scope* s = scope ? scope->outer : nullptr; s != nullptr; s = s->outer) {
      if (s->Ids().count(id)) NotSupported("a join key over an enclosing query's column", position);
    }
  }
}

bool SameStringKind(const Type& a, const Type& b) {
  return a.IsString() && b.IsString() && a.id == b.id;
}

}  // namespace

uint32_t Binder::Materialize(LogicalOpPtr* plan, ExprPtr e, const Type& want) {
  if (e->kind == ExprKind::kColumnRef && (e->type == want || SameStringKind(e->type, want))) {
    return e->column;
  }
  if (!*plan) NotSupported("a computed key of a subquery in the select list", 0);
  if (!(e->type == want) && !SameStringKind(e->type, want)) e = Cast(std::move(e), want);
  auto op = std::make_unique<LogicalOp>();
  op->kind = LogicalOpKind::kProject;
  for (const LogicalColumn& c : (*plan)->columns) {
    op->columns.push_back(c);
    op->expressions.push_back(ColumnRef(c.id, c.type));
  }
  uint32_t id = NewId();
  op->columns.push_back({id, "?column?", e->type});
  op->expressions.push_back(std::move(e));
  op->children.push_back(std::move(*plan));
  *plan = std::move(op);
  return id;
}

bool Binder::BindSubqueryConjunct(const sql::Expr& in, ExprContext& ctx) {
  const sql::Expr* e = &in;
  bool negated = false;
  if (e->kind == sql::ExprKind::kNot) {
    const sql::Expr& c = *e->children[0];
    if (c.kind != sql::ExprKind::kExists && c.kind != sql::ExprKind::kInSubquery) return false;
    negated = true;
    e = &c;
  }
  if (e->kind != sql::ExprKind::kExists && e->kind != sql::ExprKind::kInSubquery &&
      !(e->kind == sql::ExprKind::kQuantified && e->subquery)) {
    return false;
  }
  if (ctx.plan == nullptr || !*ctx.plan) {
    NotSupported("a subquery in this position", e->position);
  }
  // A shape the joins below cannot express (0A000) is bound again as a
  // value under the WHERE filter: an Apply (binder_apply.cc).
  try {
    return BindSubqueryJoin(*e, negated, ctx);
  } catch (const DbError& err) {
    if (std::string(err.sqlstate()) != sqlstate::kFeatureNotSupported) throw;
    return false;
  }
}

bool Binder::BindSubqueryJoin(const sql::Expr& expr, bool negated, ExprContext& ctx) {
  const sql::Expr* e = &expr;
  if (e->kind == sql::ExprKind::kInSubquery && e->negated) negated = !negated;
  SubqueryMode mode;
  mode.is_subquery = true;
  BoundQuery bq = BindQuery(*e->subquery, ctx.scope, &mode);
  CheckNoFreeColumns(*bq.plan, e->position);
  if (e->kind == sql::ExprKind::kExists) {
    JoinOnto(ctx.plan, negated ? LogicalJoinKind::kAnti : LogicalJoinKind::kSemi,
             std::move(bq.plan), {}, {}, std::move(bq.correlated));
    return true;
  }
  if (bq.columns.size() != 1) {
    throw DbError(sqlstate::kSyntaxError, "subquery has too many columns", e->position);
  }
  const sql::Expr& lhs = *e->children[0];
  if (lhs.kind == sql::ExprKind::kRow) NotSupported("a row value IN (subquery)", lhs.position);
  if (negated && e->kind == sql::ExprKind::kQuantified &&
      !(e->op == "<>" && e->quantifier == sql::Quantifier::kAll)) {
    NotSupported("NOT (x op ANY/ALL (subquery))", e->position);
  }
  const LogicalColumn col = bq.columns[0];
  ExprContext lc = ctx;
  lc.hint = &col.type;
  ExprPtr x = BindExpr(lhs, lc);
  CompareOp op = CompareOp::kEq;
  bool all = false;
  if (e->kind == sql::ExprKind::kQuantified) {
    const std::string& s = e->op;
    op = s == "="    ? CompareOp::kEq
         : s == "<>" ? CompareOp::kNe
         : s == "<"  ? CompareOp::kLt
         : s == "<=" ? CompareOp::kLe
         : s == ">"  ? CompareOp::kGt
                     : CompareOp::kGe;
    if (s != "=" && s != "<>" && s != "<" && s != "<=" && s != ">" && s != ">=") {
      NotSupported("operator " + s + " with ANY/ALL", e->position);
    }
    all = e->quantifier == sql::Quantifier::kAll;
  }
  bool in_form = (op == CompareOp::kEq && !all) || (op == CompareOp::kNe && all);
  if (in_form) {
    bool anti = negated || all;
    Type t;
    try {
      t = CommonType(x->type, col.type, false);
    } catch (const DbError&) {
      throw DbError(
          sqlstate::kUndefinedFunction,
          "operator does not exist: " + BaseTypeName(x->type) + " = " + BaseTypeName(col.type),
          e->position);
    }
    if (t.IsString()) t = x->type.id == col.type.id ? x->type : Type::Text();
    if (anti && !bq.correlated.empty()) NotSupported("a correlated NOT IN subquery", e->position);
    CheckNoOuterKey(*x, ctx.scope, e->position);
    uint32_t l = Materialize(ctx.plan, std::move(x), t);
    uint32_t r = Materialize(&bq.plan, ColumnRef(col.id, col.type), t);
    JoinOnto(ctx.plan, anti ? LogicalJoinKind::kNullAwareAnti : LogicalJoinKind::kSemi,
             std::move(bq.plan), {l}, {r}, std::move(bq.correlated));
    return true;
  }
  if (negated) NotSupported("NOT (x op ANY/ALL (subquery))", e->position);
  ExprPtr cmp;
  try {
    cmp = Compare(op, std::move(x), ColumnRef(col.id, col.type));
  } catch (const DbError& err) {
    RethrowAt(err, e->position);
  }
  std::vector<ExprPtr> conds = std::move(bq.correlated);
  if (all) {
    conds.push_back(Not(Coalesce2(std::move(cmp), Constant(Value::Boolean(false)))));
  } else {
    conds.push_back(std::move(cmp));
  }
  JoinOnto(ctx.plan, all ? LogicalJoinKind::kAnti : LogicalJoinKind::kSemi, std::move(bq.plan), {},
           {}, std::move(conds));
  return true;
}

ExprPtr Binder::BindScalarSubquery(const sql::Expr& e, ExprContext& ctx) {
  if (ctx.plan == nullptr) NotSupported("a subquery in this position", e.position);
  try {
    return BindScalarJoin(e, ctx);
  } catch (const DbError& err) {
    if (std::string(err.sqlstate()) != sqlstate::kFeatureNotSupported) throw;
    return BindApply(*e.subquery, ctx, ApplyKind::kScalar, nullptr, "", e.position);
  }
}

ExprPtr Binder::BindScalarJoin(const sql::Expr& e, ExprContext& ctx) {
  const sql::Query& q = *e.subquery;
  bool aggregated = q.kind == sql::QueryKind::kSelect && q.group_by.empty() &&
                    q.grouping_sets.empty() && !q.having && q.select_list.size() == 1 &&
                    ContainsAggregate(*q.select_list[0].expr);
  SubqueryMode mode;
  mode.is_subquery = true;
  mode.defer_select = aggregated;
  BoundQuery bq = BindQuery(q, ctx.scope, &mode);
  if (bq.columns.size() != 1) {
    throw DbError(sqlstate::kSyntaxError, "subquery must return only one column", e.position);
  }
  CheckNoFreeColumns(*bq.plan, e.position);
  // Correlation conditions: inner column = expression over outer columns.
  std::vector<uint32_t> lk, rk;
  std::vector<ExprPtr> residual;
  ColumnSet inner = OutputIds(*bq.plan);
  for (ExprPtr& c : bq.correlated) {
    bool ok = c->kind == ExprKind::kCompare && c->compare == CompareOp::kEq;
    int inner_side = -1;
    for (int s = 0; ok && s < 2; s++) {
      const Expression& side = *c->children[s];
      if (side.kind == ExprKind::kColumnRef && inner.count(side.column)) inner_side = s;
    }
    if (ok && inner_side >= 0) {
      for (uint32_t id : ColumnsOf(*c->children[1 - inner_side])) ok = ok && !inner.count(id);
    }
    ok = ok && inner_side >= 0;
    if (!ok) {
      // Not aggregated: any other correlated conjunct (non-equality, or over
      // outer columns only) is the single join's residual.
      if (aggregated) {
        NotSupported("a correlated scalar subquery condition other than column = outer expression",
                     e.position);
      }
      residual.push_back(std::move(c));
      continue;
    }
    ExprPtr in = std::move(c->children[inner_side]);
    ExprPtr out = std::move(c->children[1 - inner_side]);
    Type t = in->type;
    if (!(out->type == t)) t = CommonType(in->type, out->type, false);
    rk.push_back(Materialize(&bq.plan, std::move(in), t));
    CheckNoOuterKey(*out, ctx.scope, e.position);
    lk.push_back(Materialize(ctx.plan, std::move(out), t));
  }
  if (aggregated) {
    ExprPtr value = std::move(mode.deferred_select[0]);
    if (lk.empty()) {
      // A global aggregate: exactly one row; compute the value inside.
      Type t = value->type;
      uint32_t id = Materialize(&bq.plan, std::move(value), t);
      JoinOnto(ctx.plan, LogicalJoinKind::kSingle, std::move(bq.plan), {}, {}, {});
      return ColumnRef(id, t);
    }
    JoinOnto(ctx.plan, LogicalJoinKind::kLeft, std::move(bq.plan), std::move(lk), std::move(rk),
             {});
    // Groups that found no row: COUNT is 0 there, not NULL.
    std::map<uint32_t, const Expression*> map;
    std::vector<ExprPtr> zeros;
    for (uint32_t id : mode.count_ids) {
      zeros.push_back(Coalesce2(ColumnRef(id, Type::BigInt()), Constant(Value::BigInt(0))));
      map[id] = zeros.back().get();
    }
    SubstituteColumns(&value, map);
    return value;
  }
  JoinOnto(ctx.plan, LogicalJoinKind::kSingle, std::move(bq.plan), std::move(lk), std::move(rk),
           std::move(residual));
  return ColumnRef(bq.columns[0].id, bq.columns[0].type);
}

}  // namespace forktail
