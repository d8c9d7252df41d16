// One SELECT block:
//
//   FROM (cross joins of the items) -> WHERE subquery joins -> Filter(WHERE)
//   -> [Project: computed group keys / aggregate inputs] -> [Aggregate]
//   -> [HAVING scalar-subquery joins] -> [Filter(HAVING)]
//   -> [select-list scalar-subquery joins] -> Project(select list + hidden
//   ORDER BY columns) -> [Distinct] -> [Sort] -> [Limit] -> [Project(visible)]
//
// DISTINCT ON (exprs) keeps the first row of each group of rows equal on
// exprs, first in ORDER BY order: in place of [Distinct] it plans
// Window(row_number() PARTITION BY exprs ORDER BY the ORDER BY) ->
// Filter(row_number = 1) -> Project(without it). Its expressions resolve as
// ORDER BY's do (position, output name, expression; hidden if not output),
// and must match the leading ORDER BY items (PostgreSQL's 42P10).
//
// The select list, HAVING and ORDER BY are bound before the aggregation they
// sit on exists (their aggregate calls define it), so scalar subqueries in
// them join onto a "hole": a join whose left child is still null, filled in
// (Plug) once the plan below is built.
#include <string>

#include "olap/plan/binder/binder_internal.h"
#include "olap/plan/binder/binder_srf.h"

namespace forktail {

namespace {

LogicalOpPtr Plug(LogicalOpPtr holey, LogicalOpPtr plan) {
  if (!holey) return plan;
  holey->children[0] = Plug(std::move(holey->children[0]), std::move(plan));
  RecomputeColumns(holey.get());
  return holey;
}

LogicalOpPtr OneRow() {
  auto op = std::make_unique<LogicalOp>();
  op->kind = LogicalOpKind::kValues;
  op->rows.emplace_back();
  return op;
}

bool IsOrdinal(const sql::Expr& e) {
  return e.kind == sql::ExprKind::kLiteral && e.literal_kind == sql::LiteralKind::kInteger;
}

struct SelectOutput {
  ExprPtr expr;
  std::string name;
};

}  // namespace

LogicalOpPtr Binder::FirstRowPerGroup(LogicalOpPtr plan, const std::vector<LogicalColumn>& all,
                                      const std::vector<size_t>& on_outputs,
                                      const std::vector<SortKeyRef>& sort_keys,
                                      const std::vector<size_t>& sort_outputs) {
  auto w = std::make_unique<LogicalOp>();
  w->kind = LogicalOpKind::kWindow;
  for (size_t o : on_outputs) w->partition_keys.push_back(all[o].id);
  for (size_t i = 0; i < sort_keys.size(); i++) {
    SortKeyRef k = sort_keys[i];
    k.column = all[sort_outputs[i]].id;
    w->sort_keys.push_back(k);
  }
  WindowFunction row_number;
  row_number.kind = WindowFuncKind::kRowNumber;
  row_number.type = Type::BigInt();
  w->window_functions.push_back(row_number);
  const LogicalColumn rn{NewId(), "row_number", Type::BigInt()};
  w->columns = all;
  w->columns.push_back(rn);
  w->children.push_back(std::move(plan));
  std::vector<ExprPtr> first;
  first.push_back(Compare(CompareOp::kEq, ColumnRef(rn.id, rn.type), Constant(Value::BigInt(1))));
  plan = MakeFilter(std::move(w), std::move(first));
  auto back = std::make_unique<LogicalOp>();
  back->kind = LogicalOpKind::kProject;
  back->columns = all;
  for (const LogicalColumn& c : all) back->expressions.push_back(ColumnRef(c.id, c.type));
  back->children.push_back(std::move(plan));
  return back;
}

BoundQuery Binder::BindSelect(const sql::Query& q, const Scope* outer, SubqueryMode* mode) {
  if (!q.into.empty()) {  // the statement's own INTO became CREATE TABLE AS
    throw DbError(sqlstate::kSyntaxError, "SELECT ... INTO is not allowed here", q.into_position);
  }
  const bool distinct_on = !q.distinct_on.empty();
  Scope scope;
  scope.outer = outer;
  LogicalOpPtr plan = q.from.empty() ? OneRow() : BindFrom(q.from, &scope);
  BoundQuery result;

  // WHERE: subquery conjuncts become joins; correlated conjuncts (those
  // reading outer columns) are handed to the caller.
  if (q.where) {
    ExprContext ctx;
    ctx.scope = &scope;
    ctx.plan = &plan;
    ctx.clause = "WHERE";
    std::vector<const sql::Expr*> conjuncts;
    bool split = q.where->kind == sql::ExprKind::kAnd;
    if (split) {
      for (const sql::ExprPtr& c : q.where->children) conjuncts.push_back(c.get());
    } else {
      conjuncts.push_back(q.where.get());
    }
    std::vector<ExprPtr> filters;
    for (const sql::Expr* c : conjuncts) {
      if (BindSubqueryConjunct(*c, ctx)) continue;
      ExprPtr b = BindCondition(*c, ctx, split ? "AND" : "WHERE");
      // (An Apply's subquery, or a set operation's branch, keeps them: its
      // plan then reads the outer columns, binder_apply.cc.)
      bool correlated = false;
      if (outer != nullptr && mode != nullptr && mode->is_subquery && !mode->keep_correlated) {
        ColumnSet mine = OutputIds(*plan);
        for (uint32_t id : ColumnsOf(*b)) correlated = correlated || mine.count(id) == 0;
      }
      (correlated ? result.correlated : filters).push_back(std::move(b));
    }
    if (!filters.empty()) plan = MakeFilter(std::move(plan), std::move(filters));
  }

  // Grouping.
  AggState st;
  bool has_aggs = q.having != nullptr;
  for (const sql::SelectItem& item : q.select_list) {
    has_aggs = has_aggs || ContainsAggregate(*item.expr);
  }
  for (const sql::OrderItem& item : q.order_by) {
    has_aggs = has_aggs || ContainsAggregate(*item.expr);
  }
  st.grouped = has_aggs || !q.group_by.empty() || !q.grouping_sets.empty();
  bool deferred = mode != nullptr && mode->defer_select;
  {
    ExprContext gctx;
    gctx.scope = &scope;
    gctx.plan = nullptr;
    gctx.clause = "GROUP BY";
    auto add_group = [&](ExprPtr g) -> size_t {
      for (size_t i = 0; i < st.group_exprs.size(); i++) {
        if (ExprEquals(*st.group_exprs[i], *g)) return i;
      }
      st.group_ids.push_back(g->kind == ExprKind::kColumnRef ? g->column : NewId());
      st.group_exprs.push_back(std::move(g));
      return st.group_exprs.size() - 1;
    };
    auto bind_key = [&](const sql::Expr* e) -> size_t {
      if (IsOrdinal(*e)) {
        int64_t k = std::stoll(e->text);
        if (k < 1 || k > static_cast<int64_t>(q.select_list.size()) ||
            q.select_list[k - 1].expr->kind == sql::ExprKind::kStar) {
          throw DbError(sqlstate::kInvalidColumnReference,
                        "GROUP BY position " + e->text + " is not in select list", e->position);
        }
        e = q.select_list[k - 1].expr.get();
      } else if (e->kind == sql::ExprKind::kColumnRef && e->names.size() == 1) {
        // An input column wins over an output alias of the same name.
        try {
          ResolveColumn(*e, scope);
        } catch (const DbError& err) {
          if (std::string(err.sqlstate()) != sqlstate::kUndefinedColumn) throw;
          for (const sql::SelectItem& item : q.select_list) {
            if (item.alias == e->names[0]) {
              e = item.expr.get();
              break;
            }
          }
        }
      }
      return add_group(BindExpr(*e, gctx));
    };
    if (q.grouping_sets.empty()) {
      for (const sql::ExprPtr& g : q.group_by) bind_key(g.get());
    } else {
      if (deferred) NotSupported("grouping sets in a correlated scalar subquery", q.position);
      std::map<const sql::Expr*, size_t> bound;  // an item is in many sets
      std::vector<std::vector<size_t>> sets;
      for (const std::vector<const sql::Expr*>& exprs : ExpandGroupingSets(q)) {
        std::vector<size_t> keys;
        for (const sql::Expr* e : exprs) {
          auto it = bound.find(e);
          if (it == bound.end()) it = bound.emplace(e, bind_key(e)).first;
          keys.push_back(it->second);
        }
        sets.push_back(std::move(keys));
      }
      SetGroupingSets(std::move(sets), q.group_distinct, &st);
    }
    // Correlated aggregate subquery: also group by the inner correlation
    // columns (the caller left-joins the groups back).
    if (deferred) {
      ColumnSet mine = OutputIds(*plan);
      for (const ExprPtr& c : result.correlated) {
        for (uint32_t id : ColumnsOf(*c)) {
          if (mine.count(id)) add_group(ColumnRef(id, plan->columns[plan->FindColumn(id)].type));
        }
      }
    }
  }
  if (!st.group_exprs.empty()) st.grouped = true;

  ColumnSet from_ids = scope.Ids();
  // PostgreSQL's functional dependency: a column of a FROM table whose whole
  // primary key is grouped on has one value per group, so it may be used as
  // is; it joins the group keys.
  auto dependent_column = [&](uint32_t id, const ColumnSet& keys) -> const LogicalColumn* {
    for (const ScopeRelation& rel : scope.relations) {
      if (rel.primary_key_ids.empty()) continue;
      for (const LogicalColumn& c : rel.columns) {
        if (c.id != id) continue;
        for (uint32_t k : rel.primary_key_ids) {
          if (!keys.count(k)) return nullptr;
        }
        return &c;
      }
    }
    return nullptr;
  };
  auto check_grouped = [&](const Expression& e, int fallback_position) {
    if (!st.grouped) return;
    ColumnSet keys(st.group_ids.begin(), st.group_ids.end());
    for (uint32_t id : ColumnsOf(e)) {
      if (from_ids.count(id) && !keys.count(id)) {
        if (const LogicalColumn* c = dependent_column(id, keys)) {
          // (Its key columns are in every set: so is it.)
          for (std::vector<size_t>& set : st.sets) set.push_back(st.group_exprs.size());
          st.group_ids.push_back(id);
          st.group_exprs.push_back(ColumnRef(id, c->type));
          keys.insert(id);
          continue;
        }
        auto pos = ref_position_.find(id);
        throw DbError(sqlstate::kGroupingError,
                      "column \"" + display_[id] +
                          "\" must appear in the GROUP BY clause or be used in an aggregate "
                          "function",
                      pos != ref_position_.end() ? pos->second : fallback_position);
      }
    }
  };

  // HAVING.
  LogicalOpPtr having_hole;
  ExprPtr having;
  if (q.having) {
    ExprContext ctx;
    ctx.scope = &scope;
    ctx.plan = &having_hole;
    ctx.clause = "HAVING";
    ctx.aggs = &st;
    having = BindCondition(*q.having, ctx, "HAVING");
    check_grouped(*having, q.having->position);
  }

  // Select list (with * expansion).
  LogicalOpPtr select_hole;
  ExprContext sctx;
  sctx.scope = &scope;
  sctx.plan = &select_hole;
  sctx.clause = "SELECT";
  sctx.aggs = &st;
  WindowState windows;  // binder_window.cc
  CheckWindowClause(q.windows);
  windows.named = &q.windows;
  sctx.windows = &windows;
  SrfState srfs;  // binder_srf.h
  sctx.srfs = &srfs;
  std::vector<SelectOutput> outputs;
  for (const sql::SelectItem& item : q.select_list) {
    const sql::Expr& e = *item.expr;
    if (e.kind == sql::ExprKind::kStar) {
      if (scope.relations.empty()) {
        throw DbError(sqlstate::kSyntaxError, "SELECT * with no tables specified is not valid",
                      e.position);
      }
      bool found = e.names.empty();
      for (const ScopeRelation& rel : scope.relations) {
        if (!e.names.empty() && rel.alias != e.names.back()) continue;
        found = true;
        for (size_t i = 0; i < rel.columns.size(); i++) {
          if (e.names.empty() && rel.hidden[i]) continue;
          const LogicalColumn& c = rel.columns[i];
          display_[c.id] = rel.alias + "." + c.name;
          ref_position_[c.id] = e.position;
          ExprPtr ref = ColumnRef(c.id, c.type);
          for (size_t k = 0; st.grouped && k < st.group_exprs.size(); k++) {
            if (ExprEquals(*ref, *st.group_exprs[k])) ref = ColumnRef(st.group_ids[k], c.type);
          }
          check_grouped(*ref, e.position);
          outputs.push_back({std::move(ref), c.name});
        }
      }
      if (!found) {
        throw DbError(sqlstate::kUndefinedTable,
                      "missing FROM-clause entry for table \"" + e.names.back() + "\"", e.position);
      }
      continue;
    }
    if (IsRecordSrfCall(e)) {  // one column per field, "name.field"
      std::string name = item.alias.empty() ? OutputName(e) : item.alias;
      for (const LogicalColumn& c : BindRecordSrf(*this, e, sctx)) {
        outputs.push_back({ColumnRef(c.id, c.type), name + "." + c.name});
      }
      continue;
    }
    ExprPtr b = BindExpr(e, sctx);
    check_grouped(*b, e.position);
    outputs.push_back({std::move(b), item.alias.empty() ? OutputName(e) : item.alias});
  }
  size_t visible = outputs.size();

  // ORDER BY (and DISTINCT ON): ordinal, output name, or an expression
  // (hidden if not output). Returns the output's index.
  auto resolve_output = [&](const sql::Expr& e, const char* clause) -> size_t {
    size_t out = SIZE_MAX;
    if (IsOrdinal(e)) {
      int64_t k = std::stoll(e.text);
      if (k < 1 || k > static_cast<int64_t>(visible)) {
        throw DbError(sqlstate::kInvalidColumnReference,
                      std::string(clause) + " position " + e.text + " is not in select list",
                      e.position);
      }
      return static_cast<size_t>(k - 1);
    }
    if (e.kind == sql::ExprKind::kColumnRef && e.names.size() == 1) {
      for (size_t i = 0; i < visible; i++) {
        if (outputs[i].name != e.names[0]) continue;
        if (out != SIZE_MAX && !ExprEquals(*outputs[out].expr, *outputs[i].expr)) {
          throw DbError(sqlstate::kAmbiguousColumn,
                        std::string(clause) + " \"" + e.names[0] + "\" is ambiguous", e.position);
        }
        if (out == SIZE_MAX) out = i;
      }
      if (out != SIZE_MAX) return out;
    }
    ExprPtr b = BindExpr(e, sctx);
    check_grouped(*b, e.position);
    for (size_t i = 0; i < outputs.size(); i++) {
      if (ExprEquals(*outputs[i].expr, *b)) return i;
    }
    if (q.distinct && !distinct_on) {
      throw DbError(sqlstate::kInvalidColumnReference,
                    "for SELECT DISTINCT, ORDER BY expressions must appear in select list",
                    e.position);
    }
    outputs.push_back({std::move(b), "?order?"});
    return outputs.size() - 1;
  };
  std::vector<SortKeyRef> sort_keys;
  std::vector<size_t> sort_outputs;
  for (const sql::OrderItem& item : q.order_by) {
    const size_t out = resolve_output(*item.expr, "ORDER BY");
    SortKeyRef k;
    k.descending = item.direction == sql::SortDirection::kDesc;
    k.nulls_first = item.nulls == sql::NullsOrder::kDefault ? k.descending
                                                            : item.nulls == sql::NullsOrder::kFirst;
    sort_keys.push_back(k);
    sort_outputs.push_back(out);
  }
  std::vector<size_t> on_outputs;
  for (const sql::ExprPtr& e : q.distinct_on) {
    const size_t out = resolve_output(*e, "DISTINCT ON");
    bool seen = false;
    for (size_t o : on_outputs) seen = seen || o == out;
    if (!seen) on_outputs.push_back(out);
  }
  if (distinct_on) {
    // PostgreSQL: the ORDER BY items that are DISTINCT ON expressions come
    // before every one that is not (a repeated item counts once: it sorts
    // nothing).
    bool skipped = false;
    for (size_t i = 0; i < sort_outputs.size(); i++) {
      bool repeated = false;
      for (size_t j = 0; j < i; j++) {
        repeated =
            repeated || ExprEquals(*outputs[sort_outputs[j]].expr, *outputs[sort_outputs[i]].expr);
      }
      if (repeated) continue;
      bool on = false;
      for (size_t o : on_outputs)
        on = on || ExprEquals(*outputs[o].expr, *outputs[sort_outputs[i]].expr);
      if (on && skipped) {
        throw DbError(sqlstate::kInvalidColumnReference,
                      "SELECT DISTINCT ON expressions must match initial ORDER BY expressions",
                      q.distinct_on[0]->position);
      }
      skipped = skipped || !on;
    }
  }

  for (const BoundWindowCall& w : windows.calls) {
    for (const auto* list : {&w.args, &w.partition, &w.order}) {
      for (const ExprPtr& x : *list) check_grouped(*x, w.position);
    }
  }
  for (const SrfCall& c : srfs.calls) {
    for (const ExprPtr& x : c.args) check_grouped(*x, q.position);
  }

  // Aggregation: pre-projection, Aggregate, HAVING.
  if (st.grouped) {
    if (st.set_id != 0) plan = JoinSetOrdinals(std::move(plan), st);
    std::vector<LogicalColumn> cols = plan->columns;
    std::vector<ExprPtr> exprs;
    for (const LogicalColumn& c : cols) exprs.push_back(ColumnRef(c.id, c.type));
    bool computed = false;
    std::vector<LogicalColumn> key_cols;
    for (size_t i = 0; i < st.group_exprs.size(); i++) {
      const ExprPtr& g = st.group_exprs[i];
      LogicalColumn c{st.group_ids[i], "?column?", g->type};
      if (g->kind == ExprKind::kColumnRef && g->column == st.group_ids[i]) {
        c = plan->columns[plan->FindColumn(g->column)];
      } else {
        if (g->kind == ExprKind::kColumnRef)
          c.name = plan->columns[plan->FindColumn(g->column)].name;
        cols.push_back(c);
        exprs.push_back(MaskedGroupKey(st, i, CloneExpr(*g)));
        computed = true;
      }
      key_cols.push_back(c);
    }
    std::vector<uint32_t> group_keys = st.group_ids;
    if (st.set_id != 0) {
      group_keys.push_back(st.set_key);
      key_cols.push_back({st.set_key, "?grouping set?", Type::Integer()});
    }
    for (size_t i = 0; i < st.aggs.size(); i++) {
      const ExprPtr& in = st.agg_inputs[i];
      if (!in) continue;
      if (in->kind == ExprKind::kColumnRef) {
        st.aggs[i].input = in->column;
        continue;
      }
      LogicalColumn c{NewId(), "?column?", in->type};
      st.aggs[i].input = c.id;
      cols.push_back(c);
      exprs.push_back(CloneExpr(*in));
      computed = true;
    }
    if (computed) {
      auto pre = std::make_unique<LogicalOp>();
      pre->kind = LogicalOpKind::kProject;
      pre->children.push_back(std::move(plan));
      pre->columns = std::move(cols);
      pre->expressions = std::move(exprs);
      plan = std::move(pre);
    }
    auto agg = std::make_unique<LogicalOp>();
    agg->kind = LogicalOpKind::kAggregate;
    agg->group_keys = std::move(group_keys);
    agg->aggregates = st.aggs;
    agg->columns = key_cols;
    for (const LogicalColumn& c : st.agg_columns) agg->columns.push_back(c);
    agg->children.push_back(std::move(plan));
    plan = AddEmptySetRows(std::move(agg), st);
  }
  // A subquery reads a grouped column as an outer column, by its input id:
  // where a grouping set lacks the column, it must read the key's value.
  std::map<uint32_t, uint32_t> masked;
  for (size_t i = 0; i < st.group_exprs.size(); i++) {
    const ExprPtr& g = st.group_exprs[i];
    if (g->kind == ExprKind::kColumnRef && g->column != st.group_ids[i]) {
      masked[g->column] = st.group_ids[i];
    }
  }
  if (!masked.empty()) {
    RenameColumnsInPlan(having_hole.get(), masked);
    RenameColumnsInPlan(select_hole.get(), masked);
  }
  plan = Plug(std::move(having_hole), std::move(plan));
  if (having) {
    std::vector<ExprPtr> hv;
    hv.push_back(std::move(having));
    plan = MakeFilter(std::move(plan), std::move(hv));
  }
  plan = Plug(std::move(select_hole), std::move(plan));
  if (!windows.calls.empty()) {
    if (deferred) NotSupported("window functions in a correlated scalar subquery", q.position);
    plan = PlanWindows(std::move(plan), &windows);
  }
  if (!srfs.calls.empty()) {
    if (deferred)
      NotSupported("set-returning functions in a correlated scalar subquery", q.position);
    plan = JoinSrfs(*this, std::move(plan), &srfs);
  }

  if (deferred) {
    // The caller evaluates the select expression above its join.
    if (visible != 1) {
      throw DbError(sqlstate::kSyntaxError, "subquery must return only one column", q.position);
    }
    if (q.distinct || q.limit || q.offset) {
      NotSupported("DISTINCT/LIMIT in a correlated scalar subquery", q.position);
    }
    mode->deferred_select.push_back(std::move(outputs[0].expr));
    mode->count_ids = st.count_ids;
    result.columns.push_back({0, outputs[0].name, mode->deferred_select[0]->type});
    result.plan = std::move(plan);
    return result;
  }

  // Correlated subqueries expose the inner columns their conditions read.
  std::vector<uint32_t> corr_ids;
  if (!result.correlated.empty()) {
    if (st.grouped || q.distinct || q.limit || q.offset || !windows.calls.empty()) {
      NotSupported("a correlated subquery with aggregation, DISTINCT or LIMIT here", q.position);
    }
    ColumnSet mine = OutputIds(*plan);
    for (const ExprPtr& c : result.correlated) {
      for (uint32_t id : ColumnsOf(*c)) {
        if (mine.count(id)) corr_ids.push_back(id);
      }
    }
  }

  // The select list's projection (+ hidden ORDER BY columns + correlation columns).
  auto proj = std::make_unique<LogicalOp>();
  proj->kind = LogicalOpKind::kProject;
  ColumnSet used;
  ColumnSet local = OutputIds(*plan);
  for (SelectOutput& o : outputs) {
    // A forwarded column keeps its id; an outer column read by a
    // correlated subquery's select list gets a fresh one (it is not
    // produced here).
    uint32_t id = o.expr->kind == ExprKind::kColumnRef && !used.count(o.expr->column) &&
                          local.count(o.expr->column)
                      ? o.expr->column
                      : NewId();
    used.insert(id);
    proj->columns.push_back({id, o.name, o.expr->type});
    proj->expressions.push_back(std::move(o.expr));
  }
  for (uint32_t id : corr_ids) {
    if (used.count(id)) continue;
    used.insert(id);
    const LogicalColumn& c = plan->columns[plan->FindColumn(id)];
    proj->columns.push_back(c);
    proj->expressions.push_back(ColumnRef(c.id, c.type));
  }
  proj->children.push_back(std::move(plan));
  std::vector<LogicalColumn> all = proj->columns;
  plan = std::move(proj);
  if (distinct_on)
    plan = FirstRowPerGroup(std::move(plan), all, on_outputs, sort_keys, sort_outputs);
  if (q.distinct && !distinct_on) {
    auto d = std::make_unique<LogicalOp>();
    d->kind = LogicalOpKind::kDistinct;
    d->children.push_back(std::move(plan));
    RecomputeColumns(d.get());
    plan = std::move(d);
  }
  if (!sort_keys.empty()) {
    auto sort = std::make_unique<LogicalOp>();
    sort->kind = LogicalOpKind::kSort;
    for (size_t i = 0; i < sort_keys.size(); i++) {
      sort_keys[i].column = all[sort_outputs[i]].id;
      sort->sort_keys.push_back(sort_keys[i]);
    }
    sort->children.push_back(std::move(plan));
    RecomputeColumns(sort.get());
    plan = std::move(sort);
  }
  ApplyLimit(q, &plan);
  result.columns.assign(all.begin(), all.begin() + static_cast<long>(visible));
  if (all.size() > visible + corr_ids.size() || outputs.size() > visible) {
    // Drop the hidden ORDER BY columns.
    auto top = std::make_unique<LogicalOp>();
    top->kind = LogicalOpKind::kProject;
    for (size_t i = 0; i < all.size(); i++) {
      if (i >= visible && i < outputs.size()) continue;
      top->columns.push_back(all[i]);
      top->expressions.push_back(ColumnRef(all[i].id, all[i].type));
    }
    top->children.push_back(std::move(plan));
    plan = std::move(top);
  }
  result.plan = std::move(plan);
  return result;
}

}  // namespace forktail
