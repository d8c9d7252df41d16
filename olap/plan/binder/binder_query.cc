// Query expressions other than a SELECT block: WITH, VALUES, set operations,
// FROM items (tables, CTE references, subqueries, joins), ORDER BY / LIMIT on
// the whole query.
#include <string>

#include "olap/parser/parser.h"
#include "olap/plan/binder/binder_catalog.h"
#include "olap/plan/binder/binder_internal.h"
#include "olap/plan/binder/binder_join.h"
#include "olap/plan/binder/binder_lateral.h"
#include "olap/plan/constant_folding.h"

namespace forktail {

size_t Binder::PushCtes(const sql::Query& q) {
  size_t depth = ctes_.size();
  for (const sql::CommonTableExpr& cte : q.with) {
    for (size_t i = depth; i < ctes_.size(); i++) {
      if (ctes_[i]->name == cte.name) {
        ctes_.resize(depth);
        throw DbError(sqlstate::kDuplicateAlias,
                      "WITH query name \"" + cte.name + "\" specified more than once",
                      cte.position);
      }
    }
    ctes_.push_back(&cte);
    // A CTE of WITH RECURSIVE sees itself (BindCteRef).
    if (q.recursive) recursive_list_.insert(&cte);
  }
  return depth;
}

BoundQuery Binder::BindQuery(const sql::Query& q, const Scope* outer, SubqueryMode* mode) {
  size_t depth = PushCtes(q);
  BoundQuery bq;
  try {
    switch (q.kind) {
      case sql::QueryKind::kSelect:
        bq = BindSelect(q, outer, mode);
        break;
      case sql::QueryKind::kValues:
        bq = BindValues(q, outer);
        break;
      case sql::QueryKind::kSetOp:
        bq = BindSetOp(q, outer);
        break;
    }
  } catch (...) {
    ctes_.resize(depth);
    throw;
  }
  ctes_.resize(depth);
  return bq;
}

namespace {

// Thrown while a CTE of WITH RECURSIVE is bound to learn whether it reads
// itself; caught where that binding began (Binder::BindCteRef).
struct CteSelfReference {
  const sql::CommonTableExpr* cte;
};

[[noreturn]] void InvalidRecursion(const std::string& message, int position) {
  throw DbError("42P19", message, position);
}

// The first aggregate call in `e` at its query level (subqueries are their
// own), or null.
const sql::Expr* FindAggregateCall(const sql::Expr& e) {
  if (e.kind == sql::ExprKind::kFunction && !e.over && !e.names.empty() &&
      (Binder::IsAggregateName(e.names.back()) || IsOrderedSetAggregateName(e.names.back()))) {
    return &e;
  }
  std::vector<const sql::Expr*> parts;
  for (const sql::ExprPtr& c : e.children) parts.push_back(c.get());
  parts.push_back(e.case_operand.get());
  for (const auto& [w, t] : e.whens) {
    parts.push_back(w.get());
    parts.push_back(t.get());
  }
  parts.push_back(e.else_result.get());
  for (const sql::Expr* p : parts) {
    if (p == nullptr) continue;
    if (const sql::Expr* found = FindAggregateCall(*p)) return found;
  }
  return nullptr;
}

}  // namespace

LogicalOpPtr Binder::BindCteRef(size_t index, const std::string& alias, bool in_subquery,
                                ScopeRelation* rel) {
  const sql::CommonTableExpr* cte = ctes_[index];
  for (size_t r = recursive_.size(); r-- > 0;) {
    RecursiveCte& rec = recursive_[r];
    if (rec.cte != cte) continue;
    switch (rec.phase) {
      case RecursiveCte::Phase::kProbe:
        throw CteSelfReference{cte};
      case RecursiveCte::Phase::kAnchor:
        InvalidRecursion("recursive reference to query \"" + cte->name +
                             "\" must not appear within its non-recursive term",
                         cte->position);
      case RecursiveCte::Phase::kTerm:
        break;
    }
    if (in_subquery || nullable_side_ > rec.nullable_side) {
      InvalidRecursion("recursive reference to query \"" + cte->name +
                           "\" must not appear within " +
                           (in_subquery ? "a subquery" : "an outer join"),
                       cte->position);
    }
    if (++rec.references > 1) {
      InvalidRecursion(
          "recursive reference to query \"" + cte->name + "\" must not appear more than once",
          cte->position);
    }
    auto work = std::make_unique<LogicalOp>();
    work->kind = LogicalOpKind::kWorkTable;
    work->work_table_id = rec.work_table_id;
    for (const LogicalColumn& c : rec.columns) work->columns.push_back({NewId(), c.name, c.type});
    rel->alias = alias;
    rel->columns = work->columns;
    rel->hidden.assign(work->columns.size(), false);
    return work;
  }
  std::vector<const sql::CommonTableExpr*> saved = ctes_;
  bool may_recurse = recursive_list_.count(cte) > 0;
  ctes_.resize(may_recurse ? index + 1 : index);  // a CTE sees the ones before it
  BoundQuery bq;
  try {
    if (!may_recurse) {
      bq = BindQuery(*cte->query, nullptr);
    } else {
      recursive_.push_back({cte, RecursiveCte::Phase::kProbe, {}, 0, 0, 0});
      try {
        bq = BindQuery(*cte->query, nullptr);
        recursive_.pop_back();
      } catch (const CteSelfReference& self) {
        recursive_.pop_back();
        if (self.cte != cte) throw;
        bq = BindRecursiveCte(*cte);
      } catch (...) {
        recursive_.pop_back();
        throw;
      }
    }
  } catch (...) {
    ctes_ = saved;
    throw;
  }
  ctes_ = saved;
  rel->alias = alias;
  rel->columns = bq.columns;
  rel->hidden.assign(bq.columns.size(), false);
  for (size_t c = 0; c < cte->column_names.size() && c < rel->columns.size(); c++) {
    rel->columns[c].name = cte->column_names[c];
  }
  return std::move(bq.plan);
}

// WITH RECURSIVE t AS (anchor UNION [ALL] term), as PostgreSQL has it: the
// anchor fixes the column types, the term reads t (the rows the previous
// round added) exactly once and must produce those types.
BoundQuery Binder::BindRecursiveCte(const sql::CommonTableExpr& cte) {
  const sql::Query& q = *cte.query;
  if (q.kind != sql::QueryKind::kSetOp || q.set_op != sql::SetOpKind::kUnion) {
    InvalidRecursion("recursive query \"" + cte.name +
                         "\" does not have the form non-recursive-term UNION [ALL] "
                         "recursive-term",
                     cte.position);
  }
  auto not_implemented = [](const char* what, int position) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  std::string(what) + " in a recursive query is not implemented", position);
  };
  if (!q.order_by.empty()) not_implemented("ORDER BY", q.order_by[0].position);
  if (q.offset) not_implemented("OFFSET", q.position);
  if (q.limit) not_implemented("LIMIT", q.position);
  if (!q.locking.empty()) not_implemented("FOR UPDATE/SHARE", q.position);
  size_t depth = PushCtes(q);
  recursive_.push_back({&cte, RecursiveCte::Phase::kAnchor, {}, 0, 0, nullable_side_});
  BoundQuery anchor, term;
  try {
    anchor = BindQuery(*q.left, nullptr);
    RecursiveCte& rec = recursive_.back();
    rec.phase = RecursiveCte::Phase::kTerm;
    rec.columns = anchor.columns;
    for (size_t c = 0; c < cte.column_names.size() && c < rec.columns.size(); c++) {
      rec.columns[c].name = cte.column_names[c];
    }
    rec.work_table_id = NewId();
    // The term runs once per round over the previous round's rows: an
    // aggregate over them is refused, as PostgreSQL does, before binding.
    if (q.right->kind == sql::QueryKind::kSelect) {
      std::vector<const sql::Expr*> roots;
      for (const sql::SelectItem& item : q.right->select_list) {
        if (item.expr) roots.push_back(item.expr.get());
      }
      if (q.right->having) roots.push_back(q.right->having.get());
      for (const sql::Expr* root : roots) {
        if (const sql::Expr* agg = FindAggregateCall(*root)) {
          InvalidRecursion(
              "aggregate functions are not allowed in a recursive query's "
              "recursive term",
              agg->position);
        }
      }
    }
    term = BindQuery(*q.right, nullptr);
  } catch (...) {
    recursive_.pop_back();
    ctes_.resize(depth);
    throw;
  }
  uint32_t work_table_id = recursive_.back().work_table_id;
  recursive_.pop_back();
  ctes_.resize(depth);
  if (anchor.columns.size() != term.columns.size()) {
    throw DbError(sqlstate::kSyntaxError, "each UNION query must have the same number of columns",
                  q.right->position);
  }
  auto op = std::make_unique<LogicalOp>();
  op->kind = LogicalOpKind::kRecursiveUnion;
  op->set_distinct = !q.set_all;
  op->work_table_id = work_table_id;
  std::vector<ExprPtr> anchor_exprs, term_exprs;
  std::vector<LogicalColumn> anchor_cols, term_cols;
  for (size_t i = 0; i < anchor.columns.size(); i++) {
    const LogicalColumn& a = anchor.columns[i];
    const LogicalColumn& t = term.columns[i];
    std::optional<Type> common;
    try {
      common = CommonType(a.type, t.type, false);
      if (common->IsString() && !common->IsArrayText()) common = Type::Text();
    } catch (const DbError&) {
    }
    // DECIMAL's precision and scale are not PostgreSQL's typmod: any
    // DECIMAL term is cast to the anchor's.
    bool same = a.type == t.type || (common && *common == a.type) ||
                (a.type.id == TypeId::kDecimal && t.type.id == TypeId::kDecimal);
    if (!same) {
      throw DbError(sqlstate::kDatatypeMismatch,
                    "recursive query \"" + cte.name + "\" column " + std::to_string(i + 1) +
                        " has type " + a.type.ToString() + " in non-recursive term but type " +
                        (common ? *common : t.type).ToString() + " overall",
                    q.left->position)
          .WithHint("Cast the output of the non-recursive term to the correct type.");
    }
    op->columns.push_back({NewId(), a.name, a.type});
    anchor_cols.push_back(a);
    anchor_exprs.push_back(ColumnRef(a.id, a.type));
    term_cols.push_back({NewId(), t.name, a.type});
    ExprPtr e = ColumnRef(t.id, t.type);
    term_exprs.push_back(t.type == a.type ? std::move(e) : Cast(std::move(e), a.type));
  }
  // Both runs yield exactly the output's columns, in its order.
  auto sides = std::make_unique<LogicalOp>();
  sides->kind = LogicalOpKind::kUnion;
  sides->columns = op->columns;
  sides->children.push_back(
      MakeProject(std::move(anchor.plan), anchor_cols, std::move(anchor_exprs)));
  sides->children.push_back(MakeProject(std::move(term.plan), term_cols, std::move(term_exprs)));
  op->subplan = std::move(sides);
  BoundQuery bq;
  bq.columns = op->columns;
  bq.plan = std::move(op);
  return bq;
}

LogicalOpPtr Binder::MakeGet(const Table& table, const std::string& alias, ScopeRelation* rel,
                             bool ids_are_positions) {
  auto op = std::make_unique<LogicalOp>();
  op->kind = LogicalOpKind::kGet;
  op->table_id = table.id();
  op->table_name = table.schema().name;
  op->alias = alias;
  rel->alias = alias;
  for (size_t i = 0; i < table.schema().columns.size(); i++) {
    const ColumnDef& def = table.schema().columns[i];
    LogicalColumn c{ids_are_positions ? static_cast<uint32_t>(i) : NewId(), def.name, def.type};
    op->columns.push_back(c);
    op->table_columns.push_back(static_cast<uint32_t>(i));
    rel->columns.push_back(c);
    rel->hidden.push_back(false);
  }
  for (ColumnId k : table.schema().primary_key)
    rel->primary_key_ids.push_back(rel->columns[k.value()].id);
  return op;
}

static void ApplyColumnAliases(const sql::TableRef& ref, ScopeRelation* rel) {
  if (ref.column_aliases.size() > rel->columns.size()) {
    throw DbError(sqlstate::kInvalidColumnReference,
                  "table \"" + rel->alias + "\" has " + std::to_string(rel->columns.size()) +
                      " columns available but " + std::to_string(ref.column_aliases.size()) +
                      " columns specified",
                  ref.position);
  }
  for (size_t i = 0; i < ref.column_aliases.size(); i++) {
    rel->columns[i].name = ref.column_aliases[i];
  }
}

LogicalOpPtr Binder::BindViewRef(const ViewDef& view, const std::string& alias,
                                 ScopeRelation* rel) {
  if (std::find(views_expanding_.begin(), views_expanding_.end(), view.name) !=
          views_expanding_.end() ||
      views_expanding_.size() > 64) {
    throw DbError("42P17",
                  "infinite recursion detected in rules for relation \"" + view.name + "\"");
  }
  std::vector<sql::StatementPtr> parsed = sql::Parser(view.sql).ParseAll();
  if (parsed.size() != 1 || parsed[0]->kind != sql::StatementKind::kSelect || !parsed[0]->query) {
    throw DbError(sqlstate::kInternalError,
                  "stored query of view \"" + view.name + "\" does not parse");
  }
  const sql::Query& query = *parsed[0]->query;
  view_statements_.push_back(std::move(parsed[0]));
  // The view's query sees neither the statement's CTEs nor what it reads.
  std::vector<const sql::CommonTableExpr*> saved_ctes;
  saved_ctes.swap(ctes_);
  std::vector<std::string>* saved_read = relations_read_;
  relations_read_ = nullptr;
  views_expanding_.push_back(view.name);
  BoundQuery bq;
  try {
    bq = BindQuery(query, nullptr);
  } catch (...) {
    views_expanding_.pop_back();
    relations_read_ = saved_read;
    ctes_.swap(saved_ctes);
    throw;
  }
  views_expanding_.pop_back();
  relations_read_ = saved_read;
  ctes_.swap(saved_ctes);
  if (bq.columns.size() < view.column_names.size()) {
    throw DbError(sqlstate::kInternalError,
                  "view \"" + view.name + "\" has fewer columns than it was created with");
  }
  if (bq.columns.size() > view.column_names.size()) {
    // `*` over a table that gained columns since (ALTER TABLE ADD COLUMN):
    // as in PostgreSQL, the view keeps the columns it was created with.
    auto project = std::make_unique<LogicalOp>();
    project->kind = LogicalOpKind::kProject;
    bq.columns.resize(view.column_names.size());
    for (const LogicalColumn& c : bq.columns) {
      project->columns.push_back(c);
      project->expressions.push_back(ColumnRef(c.id, c.type));
    }
    project->children.push_back(std::move(bq.plan));
    bq.plan = std::move(project);
  }
  rel->alias = alias;
  rel->columns = bq.columns;
  rel->hidden.assign(bq.columns.size(), false);
  for (size_t c = 0; c < view.column_names.size(); c++) rel->columns[c].name = view.column_names[c];
  return std::move(bq.plan);
}

LogicalOpPtr Binder::BindTableRef(const sql::TableRef& ref, Scope* scope) {
  switch (ref.kind) {
    case sql::TableRefKind::kTable: {
      const std::string& name = ref.names.back();
      ScopeRelation rel;
      std::string alias = ref.alias.empty() ? name : ref.alias;
      LogicalOpPtr plan;
      // A CTE of that name (innermost first) hides a table.
      for (size_t i = ctes_.size(); ref.names.size() == 1 && i-- > 0;) {
        if (ctes_[i]->name != name) continue;
        plan = BindCteRef(i, alias, scope->outer != nullptr, &rel);
        break;
      }
      if (!plan) {
        // pg_catalog relations come first on the search path (binder_catalog.h).
        if (const SystemRelationDef* sys = SystemRelationFor(ref.names)) {
          plan = BindSystemRelation(*this, *sys, alias, &rel);
        }
      }
      if (!plan && (ref.names.size() == 1 || ref.names[ref.names.size() - 2] == "public")) {
        if (const ViewDef* view = catalog_.FindView(name)) {
          if (relations_read_ != nullptr) relations_read_->push_back(name);
          plan = BindViewRef(*view, alias, &rel);
        }
      }
      if (!plan && (ref.names.size() == 1 || ref.names[ref.names.size() - 2] == "public")) {
        if (const Sequence* sequence = catalog_.FindSequence(name)) {
          if (relations_read_ != nullptr) relations_read_->push_back(name);
          plan = BindSequenceRelation(*this, *sequence, alias, &rel);  // binder_catalog.h
        }
      }
      if (plan && ref.sample) {
        throw DbError(sqlstate::kFeatureNotSupported,
                      "TABLESAMPLE clause can only be applied to tables and materialized views",
                      ref.position);
      }
      if (!plan) {
        plan = MakeGet(LookupTable(ref.names, ref.position), alias, &rel);
        if (relations_read_ != nullptr) relations_read_->push_back(name);
        if (ref.sample) plan = BindTableSample(*this, *ref.sample, std::move(plan), rel);
      }
      ApplyColumnAliases(ref, &rel);
      for (const ScopeRelation& other : scope->relations) {
        if (other.alias == rel.alias) {
          throw DbError(sqlstate::kDuplicateAlias,
                        "table name \"" + rel.alias + "\" specified more than once");
        }
      }
      scope->relations.push_back(std::move(rel));
      return plan;
    }
    case sql::TableRefKind::kSubquery: {
      BoundQuery bq = BindFromSubquery(*this, ref, scope);  // binder_lateral.h
      ScopeRelation rel;
      rel.alias = ref.alias;
      rel.columns = bq.columns;
      rel.hidden.assign(bq.columns.size(), false);
      ApplyColumnAliases(ref, &rel);
      scope->relations.push_back(std::move(rel));
      return std::move(bq.plan);
    }
    case sql::TableRefKind::kFunction: {
      ScopeRelation rel;
      LogicalOpPtr plan = BindTableFunction(*this, ref, scope, &rel);  // binder_catalog.h
      ApplyColumnAliases(ref, &rel);
      scope->relations.push_back(std::move(rel));
      return plan;
    }
    case sql::TableRefKind::kJoin:
      break;
  }
  Scope left_scope, right_scope;
  left_scope.outer = right_scope.outer = scope->outer;
  // The sides an outer join pads with NULLs (WITH RECURSIVE's work table
  // must not be read there: BindCteRef).
  auto bind_side = [&](const sql::TableRef& side, Scope* side_scope, bool padded) {
    nullable_side_ += padded ? 1 : 0;
    try {
      LogicalOpPtr plan = BindTableRef(side, side_scope);
      nullable_side_ -= padded ? 1 : 0;
      return plan;
    } catch (...) {
      nullable_side_ -= padded ? 1 : 0;
      throw;
    }
  };
  const bool full = ref.join_kind == sql::JoinKind::kFull;
  LogicalOpPtr left =
      bind_side(*ref.left, &left_scope, full || ref.join_kind == sql::JoinKind::kRight);
  // A LATERAL item (or function) on the right sees the left side; a
  // subquery without LATERAL only to report 42P01 (binder_lateral.h).
  const bool sees_left = ref.right->kind == sql::TableRefKind::kFunction ||
                         ref.right->kind == sql::TableRefKind::kSubquery;
  if (sees_left) right_scope.relations = left_scope.relations;
  LogicalOpPtr right =
      bind_side(*ref.right, &right_scope, full || ref.join_kind == sql::JoinKind::kLeft);
  if (sees_left) {
    right_scope.relations.erase(right_scope.relations.begin(),
                                right_scope.relations.begin() + left_scope.relations.size());
  }
  Scope both;
  both.outer = scope->outer;
  for (ScopeRelation& r : left_scope.relations) both.relations.push_back(r);
  for (ScopeRelation& r : right_scope.relations) both.relations.push_back(r);
  std::vector<ExprPtr> conditions;
  // USING / NATURAL: merged columns first (binder_join.h).
  UsingMerge merge = BindUsingColumns(
      *this, ref.natural ? NaturalJoinColumns(left_scope, right_scope) : ref.using_columns,
      ref.join_kind, left_scope, right_scope, &both, &conditions);
  if (!merge.merged.columns.empty()) both.relations.insert(both.relations.begin(), merge.merged);
  if (ref.on) {
    ExprContext ctx;
    ctx.scope = &both;
    ctx.plan = nullptr;
    ctx.clause = "JOIN conditions";
    conditions.push_back(BindCondition(*ref.on, ctx, "JOIN/ON"));
  }
  for (const ScopeRelation& rel : both.relations) {
    for (const ScopeRelation& other : scope->relations) {
      if (!rel.alias.empty() && other.alias == rel.alias) {
        throw DbError(sqlstate::kDuplicateAlias,
                      "table name \"" + rel.alias + "\" specified more than once");
      }
    }
    scope->relations.push_back(rel);
  }
  LogicalJoinKind kind = LogicalJoinKind::kInner;
  if (ref.join_kind == sql::JoinKind::kCross) kind = LogicalJoinKind::kCross;
  if (ref.join_kind == sql::JoinKind::kLeft) kind = LogicalJoinKind::kLeft;
  if (ref.join_kind == sql::JoinKind::kRight) {
    kind = LogicalJoinKind::kLeft;
    std::swap(left, right);
  }
  if (ref.join_kind == sql::JoinKind::kFull) {
    kind = LogicalJoinKind::kFull;
    PrepareFullJoinKeys(*this, &left, &right, &conditions);  // binder_join.h
  }
  LogicalOpPtr join =
      JoinMaybeLateral(*this, kind, std::move(left), std::move(right), std::move(conditions),
                       ref.join_kind == sql::JoinKind::kRight);
  return AddUsingMerge(std::move(join), &merge);
}

LogicalOpPtr Binder::BindFrom(const std::vector<sql::TableRefPtr>& from, Scope* scope) {
  LogicalOpPtr plan;
  for (const sql::TableRefPtr& item : from) {
    LogicalOpPtr p = BindTableRef(*item, scope);
    plan = plan ? JoinMaybeLateral(*this, LogicalJoinKind::kCross, std::move(plan), std::move(p),
                                   {}, false)
                : std::move(p);
  }
  return plan;
}

LogicalOpPtr Binder::RowPlan() {
  auto op = std::make_unique<LogicalOp>();
  op->kind = LogicalOpKind::kValues;
  op->rows.emplace_back();
  return op;
}

LogicalOpPtr Binder::ProjectRow(LogicalOpPtr plan, std::vector<ExprPtr> row,
                                std::vector<LogicalColumn> columns) {
  return MakeProject(std::move(plan), std::move(columns), std::move(row));
}

bool Binder::ExpectOneRowWithSubqueries(const std::vector<std::vector<sql::ExprPtr>>& rows) {
  for (const auto& row : rows) {
    for (const sql::ExprPtr& x : row) {
      if (!HasSubquery(*x)) continue;
      if (rows.size() > 1) {
        NotSupported("a subquery in a VALUES list of more than one row", x->position);
      }
      return true;
    }
  }
  return false;
}

BoundQuery Binder::BindValues(const sql::Query& q, const Scope* outer) {
  (void)outer;
  size_t n = q.values.empty() ? 0 : q.values[0].size();
  auto op = std::make_unique<LogicalOp>();
  op->kind = LogicalOpKind::kValues;
  op->rows.resize(q.values.size());
  // A row with a subquery binds over a one-row plan (ProjectRow).
  const bool subqueries = ExpectOneRowWithSubqueries(q.values);
  LogicalOpPtr row_plan = subqueries ? RowPlan() : nullptr;
  ExprContext ctx;
  ctx.plan = subqueries ? &row_plan : nullptr;
  ctx.clause = "VALUES";
  for (size_t c = 0; c < n; c++) {
    std::optional<Type> t;
    for (size_t r = 0; r < q.values.size(); r++) {
      if (IsUnknownTyped(*q.values[r][c])) continue;
      ExprContext x = ctx;
      ExprPtr e = BindExpr(*q.values[r][c], x);
      try {
        t = t ? CommonType(*t, e->type, false) : e->type;
      } catch (const DbError&) {
        throw DbError(sqlstate::kDatatypeMismatch,
                      "VALUES types " + BaseTypeName(*t) + " and " + BaseTypeName(e->type) +
                          " cannot be matched",
                      q.values[r][c]->position);
      }
      op->rows[r].resize(n);
      op->rows[r][c] = std::move(e);
    }
    if (!t) t = Type::Text();
    if (t->IsString() && !t->IsArrayText()) t = Type::Text();
    for (size_t r = 0; r < q.values.size(); r++) {
      op->rows[r].resize(n);
      if (!op->rows[r][c]) {
        ExprContext x = ctx;
        x.hint = &*t;
        op->rows[r][c] = BindExpr(*q.values[r][c], x);
      }
      ExprPtr& e = op->rows[r][c];
      if (!(e->type == *t) && !(e->type.IsString() && t->IsString() && !t->IsArrayText())) {
        e = Cast(std::move(e), *t);
      }
      e = FoldExpression(std::move(e));
    }
    op->columns.push_back({NewId(), "column" + std::to_string(c + 1), *t});
  }
  BoundQuery bq;
  bq.columns = op->columns;
  bq.plan = subqueries ? ProjectRow(std::move(row_plan), std::move(op->rows[0]), op->columns)
                       : std::move(op);
  ApplyOrderLimit(q, &bq);
  return bq;
}

BoundQuery Binder::BindSetOp(const sql::Query& q, const Scope* outer) {
  BoundQuery l = BindQuery(*q.left, outer);
  BoundQuery r = BindQuery(*q.right, outer);
  const char* name = q.set_op == sql::SetOpKind::kUnion       ? "UNION"
                     : q.set_op == sql::SetOpKind::kIntersect ? "INTERSECT"
                                                              : "EXCEPT";
  if (l.columns.size() != r.columns.size()) {
    // PostgreSQL points at the right operand's select list.
    int pos = q.right->position;
    if (q.right->kind == sql::QueryKind::kSelect && !q.right->select_list.empty()) {
      pos = q.right->select_list[0].position;
    }
    throw DbError(sqlstate::kSyntaxError,
                  std::string("each ") + name + " query must have the same number of columns", pos);
  }
  std::vector<Type> types;
  for (size_t i = 0; i < l.columns.size(); i++) {
    try {
      Type t = CommonType(l.columns[i].type, r.columns[i].type, false);
      types.push_back(t.IsString() && !t.IsArrayText() ? Type::Text() : t);
    } catch (const DbError&) {
      throw DbError(sqlstate::kDatatypeMismatch,
                    std::string(name) + " types " + BaseTypeName(l.columns[i].type) + " and " +
                        BaseTypeName(r.columns[i].type) + " cannot be matched",
                    q.right->position);
    }
  }
  // Bring each side to the common types, positionally.
  for (BoundQuery* side : {&l, &r}) {
    std::vector<LogicalColumn> cols;
    std::vector<ExprPtr> exprs;
    bool cast = side->plan->columns.size() != side->columns.size();
    for (size_t i = 0; i < side->columns.size(); i++) {
      const LogicalColumn& c = side->columns[i];
      ExprPtr e = ColumnRef(c.id, c.type);
      if (!(c.type == types[i]) &&
          !(c.type.IsString() && types[i].IsString() && !types[i].IsArrayText())) {
        e = Cast(std::move(e), types[i]);
        cast = true;
        cols.push_back({NewId(), c.name, types[i]});
      } else {
        cols.push_back(c);
      }
      exprs.push_back(std::move(e));
    }
    if (cast) side->plan = MakeProject(std::move(side->plan), cols, std::move(exprs));
    side->columns = cols;
  }
  auto op = std::make_unique<LogicalOp>();
  op->kind = q.set_op == sql::SetOpKind::kUnion       ? LogicalOpKind::kUnion
             : q.set_op == sql::SetOpKind::kIntersect ? LogicalOpKind::kIntersect
                                                      : LogicalOpKind::kExcept;
  op->set_distinct = !q.set_all;
  for (size_t i = 0; i < l.columns.size(); i++) {
    op->columns.push_back({NewId(), l.columns[i].name, types[i]});
  }
  op->children.push_back(std::move(l.plan));
  op->children.push_back(std::move(r.plan));
  BoundQuery bq;
  bq.columns = op->columns;
  bq.plan = std::move(op);
  ApplyOrderLimit(q, &bq);
  return bq;
}

void Binder::ApplyLimit(const sql::Query& q, LogicalOpPtr* plan) {
  if (!q.limit && !q.offset) return;
  auto op = std::make_unique<LogicalOp>();
  op->kind = LogicalOpKind::kLimit;
  if (q.limit) op->limit = ConstantInt(*q.limit, "LIMIT");
  if (q.offset) {
    int64_t off = ConstantInt(*q.offset, "OFFSET");
    op->offset = off == kNoRowLimit ? 0 : off;
  }
  op->children.push_back(std::move(*plan));
  RecomputeColumns(op.get());
  *plan = std::move(op);
}

void Binder::ApplyOrderLimit(const sql::Query& q, BoundQuery* bq) {
  if (!q.order_by.empty()) {
    Scope scope;
    ScopeRelation rel;
    rel.columns = bq->columns;
    rel.hidden.assign(rel.columns.size(), false);
    scope.relations.push_back(rel);
    auto sort = std::make_unique<LogicalOp>();
    sort->kind = LogicalOpKind::kSort;
    for (const sql::OrderItem& item : q.order_by) {
      const sql::Expr& e = *item.expr;
      uint32_t id = 0;
      if (e.kind == sql::ExprKind::kLiteral && e.literal_kind == sql::LiteralKind::kInteger) {
        int64_t k = std::stoll(e.text);
        if (k < 1 || k > static_cast<int64_t>(bq->columns.size())) {
          throw DbError(sqlstate::kInvalidColumnReference,
                        "ORDER BY position " + e.text + " is not in select list", e.position);
        }
        id = bq->columns[k - 1].id;
      } else {
        ExprContext ctx;
        ctx.scope = &scope;
        ctx.clause = "ORDER BY";
        ExprPtr b = BindExpr(e, ctx);
        if (b->kind != ExprKind::kColumnRef) {
          NotSupported("ORDER BY on an expression of a UNION/VALUES result", e.position);
        }
        id = b->column;
      }
      SortKeyRef k;
      k.column = id;
      k.descending = item.direction == sql::SortDirection::kDesc;
      k.nulls_first = item.nulls == sql::NullsOrder::kDefault
                          ? k.descending
                          : item.nulls == sql::NullsOrder::kFirst;
      sort->sort_keys.push_back(k);
    }
    sort->children.push_back(std::move(bq->plan));
    RecomputeColumns(sort.get());
    bq->plan = std::move(sort);
  }
  ApplyLimit(q, &bq->plan);
}

}  // namespace forktail
