#include "olap/session/statement/parameter_template.h"

#include <atomic>
#include <functional>
#include <string>
#include <utility>

#include "olap/parser/ast.h"
#include "olap/plan/logical.h"
#include "olap/plan/logical_util.h"
#include "storage/error.h"

namespace forktail {
namespace {

std::atomic<uint64_t> template_executions{0};

// ---- The text: where its parameters stand, and nothing bind-time-valued.

bool IsColumn(const sql::Expr& e) { return e.kind == sql::ExprKind::kColumnRef; }
bool IsParameter(const sql::Expr& e) { return e.kind == sql::ExprKind::kParameter; }

bool IsComparison(const std::string& op) {
  return op == "=" || op == "<>" || op == "<" || op == "<=" || op == ">" || op == ">=";
}

bool IsAggregateCall(const sql::Expr& e) {
  if (e.names.size() != 1 || e.over || e.filter || !e.agg_order.empty() || e.variadic ||
      !e.arg_names.empty()) {
    return false;
  }
  const std::string& name = e.names[0];
  if (name == "count" && e.star) return true;
  return (name == "count" || name == "sum" || name == "min" || name == "max" || name == "avg") &&
         e.children.size() == 1;
}

// Whether `e` (no parameter of its own) holds parameters only where their
// values decide nothing at bind time.
bool ValueFree(const sql::Expr& e) {
  switch (e.kind) {
    case sql::ExprKind::kColumnRef:
      return true;
    case sql::ExprKind::kLiteral:
      // Strings are left out: one compared with a timestamp column is cast
      // at bind time, and 'now' is the clock's.
      return e.literal_kind == sql::LiteralKind::kInteger ||
             e.literal_kind == sql::LiteralKind::kNumeric ||
             e.literal_kind == sql::LiteralKind::kBoolean ||
             e.literal_kind == sql::LiteralKind::kNull;
    case sql::ExprKind::kBinaryOp: {
      const bool arithmetic = e.op == "+" || e.op == "-" || e.op == "*";
      if (!arithmetic && !IsComparison(e.op)) return false;
      const sql::Expr& l = *e.children[0];
      const sql::Expr& r = *e.children[1];
      if (IsParameter(l)) return IsColumn(r);
      if (IsParameter(r)) return IsColumn(l);
      return ValueFree(l) && ValueFree(r);
    }
    case sql::ExprKind::kBetween:
      if (e.symmetric || !IsColumn(*e.children[0])) return false;
      for (size_t i = 1; i < e.children.size(); i++) {
        if (!IsParameter(*e.children[i]) && !ValueFree(*e.children[i])) return false;
      }
      return true;
    case sql::ExprKind::kAnd:
    case sql::ExprKind::kOr:
    case sql::ExprKind::kNot:
    case sql::ExprKind::kIsNull:
      for (const sql::ExprPtr& c : e.children) {
        if (!ValueFree(*c)) return false;
      }
      return true;
    case sql::ExprKind::kFunction:
      if (!IsAggregateCall(e)) return false;
      for (const sql::ExprPtr& c : e.children) {
        if (!IsColumn(*c)) return false;
      }
      return true;
    default:
      return false;
  }
}

bool ColumnsOnly(const std::vector<sql::SelectItem>& items) {
  for (const sql::SelectItem& item : items) {
    if (!IsColumn(*item.expr)) return false;
  }
  return true;
}

// A user table of `schemas` by that name (not a view, a sequence or a
// pg_catalog relation, which the binder reads into constants).
bool PlainTable(const sql::QualifiedName& names, const Catalog& schemas) {
  if (names.empty() || names.size() > 2 || (names.size() == 2 && names[0] != "public")) {
    return false;
  }
  const std::string& name = names.back();
  if (name.rfind("pg_", 0) == 0) return false;
  return schemas.FindTable(name) != nullptr && schemas.FindView(name) == nullptr &&
         schemas.FindSequence(name) == nullptr;
}

bool SelectShape(const sql::Query& q, const Catalog& schemas) {
  if (q.kind != sql::QueryKind::kSelect || !q.with.empty() || !q.distinct_on.empty() ||
      !q.grouping_sets.empty() || !q.into.empty() || q.having || !q.windows.empty() ||
      q.from.empty() || q.offset) {
    return false;
  }
  if (q.limit && !(q.limit->kind == sql::ExprKind::kLiteral &&
                   q.limit->literal_kind == sql::LiteralKind::kInteger)) {
    return false;
  }
  for (const sql::TableRefPtr& ref : q.from) {
    if (ref->kind != sql::TableRefKind::kTable || ref->sample || !ref->column_aliases.empty() ||
        !PlainTable(ref->names, schemas)) {
      return false;
    }
  }
  for (const sql::SelectItem& item : q.select_list) {
    if (item.expr->kind != sql::ExprKind::kStar && !ValueFree(*item.expr)) return false;
  }
  if (q.where && !ValueFree(*q.where)) return false;
  for (const sql::ExprPtr& g : q.group_by) {
    if (!IsColumn(*g)) return false;
  }
  for (const sql::OrderItem& o : q.order_by) {
    if (!IsColumn(*o.expr)) return false;
  }
  return true;
}

bool InsertShape(const sql::InsertStmt& s, const Catalog& schemas) {
  if (!PlainTable(s.table, schemas) || s.on_conflict || !ColumnsOnly(s.returning) || !s.source ||
      s.source->kind != sql::QueryKind::kValues || !s.source->with.empty() ||
      !s.source->order_by.empty() || s.source->limit || s.source->offset) {
    return false;
  }
  for (const auto& row : s.source->values) {
    for (const sql::ExprPtr& v : row) {
      if (!IsParameter(*v) && !ValueFree(*v)) return false;
    }
  }
  // A column the INSERT leaves out gets its DEFAULT, bound with the
  // statement (now(), a sequence): only columns without one may be left out.
  const TableSchema& schema = schemas.FindTable(s.table.back())->schema();
  for (const ColumnDef& column : schema.columns) {
    bool listed = s.columns.empty();
    for (const std::string& name : s.columns) listed = listed || name == column.name;
    if (!listed && (!column.default_sql.empty() || column.identity != ColumnIdentity::kNone)) {
      return false;
    }
  }
  return true;
}

bool TextShape(const sql::Statement& s, const Catalog& schemas) {
  switch (s.kind) {
    case sql::StatementKind::kSelect:
      return s.query && SelectShape(*s.query, schemas);
    case sql::StatementKind::kInsert:
      return InsertShape(*s.insert, schemas);
    case sql::StatementKind::kUpdate: {
      const sql::UpdateStmt& u = *s.update;
      if (!PlainTable(u.table, schemas) || !u.from.empty() || !ColumnsOnly(u.returning)) {
        return false;
      }
      for (const sql::SetClause& set : u.set) {
        if (!IsParameter(*set.value) && !ValueFree(*set.value)) return false;
      }
      return !u.where || ValueFree(*u.where);
    }
    case sql::StatementKind::kDelete: {
      const sql::DeleteStmt& d = *s.del;
      return PlainTable(d.table, schemas) && d.using_tables.empty() && ColumnsOnly(d.returning) &&
             (!d.where || ValueFree(*d.where));
    }
    default:
      return false;
  }
}

// ---- The binding: every constant made of a parameter, where it went.

// Calls fn(constant) for each tagged constant of `bound`, with whether it
// stands where its value decides nothing: an operand of a comparison or of
// an arithmetic operator, or a SET value. Returns false when a plan leaf is
// not a table scan (a relation the binder read into constants).
template <typename Fn>
bool ForEachTagged(BoundStatement& bound, Fn&& fn) {
  std::function<void(ExprPtr&, const Expression*)> visit = [&](ExprPtr& e,
                                                               const Expression* parent) {
    if (!e) return;
    if (e->kind == ExprKind::kConstant && e->parameter != 0) {
      const bool inert = parent == nullptr ? false
                                           : parent->kind == ExprKind::kCompare ||
                                                 parent->kind == ExprKind::kArith;
      fn(*e, inert);
    }
    for (ExprPtr& c : e->children) visit(c, e.get());
  };
  bool scans_only = true;
  std::function<void(LogicalOp&)> walk = [&](LogicalOp& op) {
    if (op.children.empty() && op.kind != LogicalOpKind::kGet) scans_only = false;
    ForEachExpression(op, [&](ExprPtr& e) { visit(e, nullptr); });
    for (LogicalOpPtr& c : op.children) walk(*c);
    if (op.subplan) walk(*op.subplan);
  };
  if (bound.plan) walk(*bound.plan);
  visit(bound.where, nullptr);
  for (auto& [column, value] : bound.set) {
    if (value && value->kind == ExprKind::kConstant && value->parameter != 0) {
      fn(*value, true);  // the whole SET value
      continue;
    }
    visit(value, nullptr);
  }
  for (ExprPtr& e : bound.returning) visit(e, nullptr);
  for (auto& [column, value] : bound.conflict_set) visit(value, nullptr);
  visit(bound.conflict_where, nullptr);
  return scans_only;
}

}  // namespace

uint64_t ParameterTemplateExecutions() { return template_executions.load(); }

std::unique_ptr<ParameterTemplate> ParameterTemplate::Make(const sql::Statement& statement,
                                                           const PreBoundStatement& pre,
                                                           const Catalog& schemas) {
  const BoundStatement& b = pre.bound;
  if (b.sequence_use != SequenceUse::kNone || b.uses_server_state ||
      b.parameter_uses.size() != b.parameter_types.size() || !TextShape(statement, schemas)) {
    return nullptr;
  }
  auto t = std::make_unique<ParameterTemplate>();
  t->bound_.schema_version = pre.schema_version;
  t->bound_.bound = CopyBound(b);
  t->cells_ = b.parameter_cells;
  std::vector<uint32_t> found(b.parameter_types.size(), 0);
  bool exact = true;
  const bool scans_only = ForEachTagged(t->bound_.bound, [&](const Expression& c, bool inert) {
    const size_t i = c.parameter - 1;
    exact = exact && inert && i < found.size() && c.type == b.parameter_types[i];
    if (i < found.size()) found[i]++;
  });
  if (!exact || !scans_only) return nullptr;
  for (const BoundStatement::ParameterCell& cell : t->cells_) {
    const size_t i = cell.parameter - 1;
    if (i >= found.size()) return nullptr;
    found[i]++;
  }
  if (found != b.parameter_uses) return nullptr;
  return t;
}

std::optional<PreBoundStatement> ParameterTemplate::Instantiate(const std::vector<Value>& values,
                                                                const Catalog& schemas) const {
  const BoundStatement& b = bound_.bound;
  if (values.size() != b.parameter_types.size()) return std::nullopt;
  for (const Value& v : values) {
    if (v.is_null()) return std::nullopt;
  }
  PreBoundStatement out;
  out.schema_version = bound_.schema_version;
  out.bound = CopyBound(b);
  try {
    ForEachTagged(out.bound, [&](Expression& c, bool) {
      const size_t i = c.parameter - 1;
      c.constant = values[i].type() == c.type ? values[i] : values[i].CastTo(c.type);
    });
    for (const BoundStatement::ParameterCell& cell : cells_) {
      // The template's cell holds a non-NULL value cast to the column's type.
      Value& stored = out.bound.insert_rows[cell.row][cell.column];
      const Value& v = values[cell.parameter - 1];
      stored = v.type() == stored.type() ? v : v.CastTo(stored.type());
    }
  } catch (const DbError&) {
    return std::nullopt;  // binding reports it, at its position
  }
  if (b.kind == BoundStatementKind::kQuery) {
    out.point_select = PointSelect::Make(*out.bound.plan, schemas);
  }
  template_executions.fetch_add(1, std::memory_order_relaxed);
  return out;
}

std::optional<PreBoundStatement> PreparedBinding::PreBind(const sql::Statement& statement,
                                                          const BindOptions& options,
                                                          const Catalog& schemas,
                                                          const datetime::TimeZonePtr& zone) {
  if (!locking_form_) {
    if (statement_ == nullptr) statement_ = &statement;
    if (statement_ != &statement) return forktail::PreBind(statement, options, schemas);
  }
  const uint64_t version = schemas.schema_version();
  if (template_ && template_->schema_version() == version && zone_ == zone) {
    if (std::optional<PreBoundStatement> pre =
            template_->Instantiate(options.parameters, schemas)) {
      return pre;
    }
    return forktail::PreBind(statement, options, schemas);
  }
  bool has_null = false;
  for (const Value& v : options.parameters) has_null = has_null || v.is_null();
  // A NULL may bind differently (folded); a later execution tries again.
  if (has_null || refused_at_ == version) return forktail::PreBind(statement, options, schemas);
  BindOptions tagged = options;
  tagged.tag_parameters = true;
  std::optional<PreBoundStatement> pre = forktail::PreBind(statement, tagged, schemas);
  if (!pre) return pre;
  template_ = ParameterTemplate::Make(statement, *pre, schemas);
  zone_ = zone;
  if (!template_) refused_at_ = version;
  return pre;
}

PreparedBinding& PreparedBinding::LockingForm() {
  if (!locking_) {
    locking_ = std::make_unique<PreparedBinding>();
    locking_->locking_form_ = true;
  }
  return *locking_;
}

}  // namespace forktail
