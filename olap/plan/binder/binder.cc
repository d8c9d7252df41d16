// Bind(): statement dispatch, write statements and CREATE TABLE.
#include "olap/plan/binder/binder.h"

#include <algorithm>
#include <set>
#include <string>

#include "olap/execution/operator/physical_chunk_block.h"
#include "olap/expression/expression_executor.h"
#include "olap/parser/parser.h"
#include "olap/plan/binder/binder_catalog.h"
#include "olap/plan/binder/binder_internal.h"
#include "olap/plan/binder/sequence_functions.h"
#include "olap/plan/constant_folding.h"
#include "olap/plan/logical_util.h"

namespace forktail {

namespace {

ExprPtr AssignTo(ExprPtr e, const ColumnDef& col, int position) {
  if (!AssignmentCastExists(e->type, col.type)) {
    throw DbError(sqlstate::kDatatypeMismatch,
                  "column \"" + col.name + "\" is of type " + BaseTypeName(col.type) +
                      " but expression is of type " + BaseTypeName(e->type),
                  position);
  }
  if (e->type == col.type) return e;
  return Cast(std::move(e), col.type);
}

}  // namespace

bool ExplicitCastExists(const Type& from, const Type& to) {
  // time: from the strings and timestamps, to the strings and interval.
  if (to.id == TypeId::kTime) {
    return from.id == TypeId::kTime || from.IsString() || from.id == TypeId::kTimestamp ||
           from.id == TypeId::kTimestampTz;
  }
  if (from.id == TypeId::kTime) return to.IsString() || to.id == TypeId::kInterval;
  // uuid, bytea and interval convert to and from the string types only; jsonb from
  // them, and to them, numbers and booleans (Value::CastTo's rules).
  auto only_strings = [&](TypeId id) {
    if (to.id == id) return from.id == id || from.IsString();
    if (from.id == id) return to.IsString();
    return true;
  };
  if (!only_strings(TypeId::kUuid) || !only_strings(TypeId::kBytea) ||
      !only_strings(TypeId::kInterval)) {
    return false;
  }
  // json: to and from the string types and jsonb only.
  if (to.id == TypeId::kJson) {
    return from.id == TypeId::kJson || from.id == TypeId::kJsonb || from.IsString();
  }
  if (from.id == TypeId::kJson) return to.IsString() || to.id == TypeId::kJsonb;
  if (to.id == TypeId::kJsonb) return from.id == TypeId::kJsonb || from.IsString();
  if (from.id == TypeId::kJsonb) {
    return to.IsString() || to.IsNumeric() || to.id == TypeId::kBoolean;
  }
  return true;
}

bool AssignmentCastExists(const Type& from, const Type& to) {
  if (to.IsString()) return true;
  if (from.IsNumeric() && to.IsNumeric()) return true;
  if (from.IsDateTime() && to.IsDateTime()) return true;
  return from.id == to.id;
}

Binder::Binder(const Catalog& catalog, const BindOptions& options)
    : catalog_(catalog), options_(options), param_types_(options.parameter_types) {}

namespace {

// T[] (any number of [] or [n]: PostgreSQL ignores them) and _T, one
// dimension; nullopt for a name that is neither. The element type carries no
// modifier: it would not be kept.
std::optional<Type> ArrayTypeFromName(const sql::TypeName& t) {
  const std::string& n = t.name;
  sql::TypeName base = t;
  base.array_bounds = 0;
  if (t.array_bounds == 0) {
    if (n.size() < 2 || n[0] != '_' || !t.schema.empty()) return std::nullopt;
    base.name = n.substr(1);
    try {
      TypeFromName(base);
    } catch (const DbError&) {
      return std::nullopt;  // an unknown name, reported as written
    }
  }
  Type element = TypeFromName(base);
  if (!base.modifiers.empty() || element.id == TypeId::kChar) {
    NotSupported("the array type " + element.ToString() + "[]", t.position);
  }
  return Type::ArrayText(element);
}

}  // namespace

Type TypeFromName(const sql::TypeName& t) {
  const std::string& n = t.name;
  auto mods = [&](size_t max) {
    if (t.modifiers.size() > max) {
      throw DbError(sqlstate::kSyntaxError, "invalid type modifier", t.position);
    }
  };
  if (std::optional<Type> array = ArrayTypeFromName(t)) return *array;
  if (!t.schema.empty() && t.schema != "pg_catalog") {
    throw DbError(sqlstate::kUndefinedObject, "type \"" + t.schema + "." + n + "\" does not exist",
                  t.position);
  }
  if (n == "int2" || n == "smallint") return mods(0), Type::SmallInt();
  if (n == "int4" || n == "int" || n == "integer") return mods(0), Type::Integer();
  if (n == "int8" || n == "bigint") return mods(0), Type::BigInt();
  if (n == "float8" || n == "float4" || n == "double precision" || n == "real" || n == "float") {
    return Type::Double();
  }
  if (n == "bool" || n == "boolean") return mods(0), Type::Boolean();
  if (n == "numeric" || n == "decimal") {
    mods(2);
    if (t.modifiers.empty()) return Type::Decimal(18, 4);
    int64_t p = t.modifiers[0];
    int64_t s = t.modifiers.size() > 1 ? t.modifiers[1] : 0;
    if (p < 1 || p > 1000) {
      throw DbError(sqlstate::kInvalidParameterValue,
                    "NUMERIC precision " + std::to_string(p) + " must be between 1 and 1000",
                    t.position);
    }
    if (s < 0 || s > p) {
      throw DbError(sqlstate::kInvalidParameterValue,
                    "NUMERIC scale " + std::to_string(s) + " must be between 0 and precision " +
                        std::to_string(p),
                    t.position);
    }
    if (p > kMaxDecimalPrecision) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    "numeric precision " + std::to_string(p) + " is not supported (at most " +
                        std::to_string(kMaxDecimalPrecision) + " digits)",
                    t.position);
    }
    return Type::Decimal(static_cast<int>(p), static_cast<int>(s));
  }
  if (n == "bpchar" || n == "char" || n == "character") {
    mods(1);
    int64_t len = t.modifiers.empty() ? 1 : t.modifiers[0];
    if (len < 1) {
      throw DbError(sqlstate::kInvalidParameterValue, "length for type char must be at least 1",
                    t.position);
    }
    if (len > kMaxStringTypeLength) {
      throw DbError(sqlstate::kInvalidParameterValue,
                    "length for type char cannot exceed " + std::to_string(kMaxStringTypeLength),
                    t.position);
    }
    return Type::Char(static_cast<uint32_t>(len));
  }
  if (n == "varchar" || n == "character varying") {
    mods(1);
    int64_t len = t.modifiers.empty() ? 0 : t.modifiers[0];
    if (!t.modifiers.empty() && len < 1) {
      throw DbError(sqlstate::kInvalidParameterValue, "length for type varchar must be at least 1",
                    t.position);
    }
    if (len > kMaxStringTypeLength) {
      throw DbError(sqlstate::kInvalidParameterValue,
                    "length for type varchar cannot exceed " + std::to_string(kMaxStringTypeLength),
                    t.position);
    }
    return Type::Varchar(static_cast<uint32_t>(len));
  }
  if (n == "text") return mods(0), Type::Text();
  if (n == "date") return mods(0), Type::Date();
  if (n == "timestamp" || n == "timestamp without time zone") return Type::Timestamp();
  if (n == "timestamptz" || n == "timestamp with time zone") return Type::TimestampTz();
  if (n == "jsonb") return mods(0), Type::Jsonb();
  if (n == "json") return mods(0), Type::Json();
  if (n == "uuid") return mods(0), Type::Uuid();
  if (n == "bytea") return mods(0), Type::Bytea();
  if (n == "interval") {
    // INTERVAL DAY TO SECOND, INTERVAL(3): a column or cast that keeps only
    // some fields, or rounds the seconds.
    if (!t.interval_fields.empty() || !t.modifiers.empty()) {
      NotSupported("an interval with fields or a precision", t.position);
    }
    return Type::Interval();
  }
  if (n == "time" || n == "time without time zone") {
    // TIME(p): a column or cast that rounds the seconds.
    if (!t.modifiers.empty()) NotSupported("a time with a precision", t.position);
    return Type::Time();
  }
  if (n == "serial" || n == "bigserial" || n == "smallserial" || n == "timetz") {
    NotSupported("type " + n, t.position);
  }
  throw DbError(sqlstate::kUndefinedObject, "type \"" + n + "\" does not exist", t.position);
}

BoundStatement Binder::BindStatement(const sql::Statement& stmt) {
  BoundStatement out;
  switch (stmt.kind) {
    case sql::StatementKind::kSelect: {
      BoundQuery bq = BindQuery(*stmt.query, nullptr);
      out.kind = BoundStatementKind::kQuery;
      out.plan = std::move(bq.plan);
      // The root lists exactly the result columns, with their names.
      if (out.plan->columns.size() != bq.columns.size() || [&] {
            for (size_t i = 0; i < bq.columns.size(); i++) {
              if (out.plan->columns[i].id != bq.columns[i].id ||
                  out.plan->columns[i].name != bq.columns[i].name) {
                return true;
              }
            }
            return false;
          }()) {
        auto top = std::make_unique<LogicalOp>();
        top->kind = LogicalOpKind::kProject;
        for (const LogicalColumn& c : bq.columns) {
          top->columns.push_back(c);
          top->expressions.push_back(ColumnRef(c.id, c.type));
        }
        top->children.push_back(std::move(out.plan));
        out.plan = std::move(top);
      }
      break;
    }
    case sql::StatementKind::kInsert:
      out = BindInsert(*stmt.insert);
      break;
    case sql::StatementKind::kUpdate:
      out = BindUpdate(*stmt.update);
      break;
    case sql::StatementKind::kDelete:
      out = BindDelete(*stmt.del);
      break;
    case sql::StatementKind::kCreateTable:
      out = BindCreateTable(*stmt.create_table);
      break;
    default:
      NotSupported("binding this statement", stmt.position);
  }
  out.sequence_use = sequence_use_;
  for (size_t i = 0; i < param_types_.size(); i++) {
    out.parameter_types.push_back(param_types_[i] ? *param_types_[i] : Type::Text());
  }
  for (size_t i = param_types_.size(); i < static_cast<size_t>(stmt.max_parameter); i++) {
    out.parameter_types.push_back(Type::Text());
  }
  if (options_.tag_parameters) {
    out.parameter_uses = parameter_uses_;
    out.parameter_uses.resize(out.parameter_types.size());
  }
  return out;
}

BoundStatement Bind(const sql::Statement& statement, const Catalog& catalog,
                    const BindOptions& options) {
  Binder binder(catalog, options);
  BoundStatement bound = binder.BindStatement(statement);
  bound.uses_server_state = binder.uses_server_state_;
  return bound;
}

std::pair<uint32_t, ExprPtr> Binder::BindSetClause(const sql::SetClause& set,
                                                   const TableSchema& schema, const Scope& scope,
                                                   LogicalOpPtr* plan) {
  std::optional<ColumnId> id = schema.FindColumn(set.column);
  if (!id) {
    throw DbError(
        sqlstate::kUndefinedColumn,
        "column \"" + set.column + "\" of relation \"" + schema.name + "\" does not exist",
        set.position);
  }
  const ColumnDef& col = schema.columns[id->value()];
  ExprPtr e;
  if (set.value->kind == sql::ExprKind::kDefault) {
    e = DefaultOf(col, schema.name);
  } else if (col.identity == ColumnIdentity::kAlways) {
    throw DbError("428C9", "column \"" + col.name +
                               "\" can only be updated to DEFAULT\nDETAIL:  Column \"" + col.name +
                               "\" is an identity column defined as GENERATED ALWAYS.");
  } else {
    ExprContext ctx;
    ctx.scope = &scope;
    ctx.plan = plan;
    ctx.clause = "UPDATE";
    ctx.hint = &col.type;
    e = AssignTo(BindExpr(*set.value, ctx), col, set.value->position);
  }
  return {id->value(), FoldExpression(std::move(e))};
}

void Binder::BindReturning(const std::vector<sql::SelectItem>& items, const Scope& scope,
                           BoundStatement* out) {
  const ScopeRelation& rel = scope.relations[0];
  for (const sql::SelectItem& item : items) {
    const sql::Expr& e = *item.expr;
    if (e.kind == sql::ExprKind::kStar) {
      if (!e.names.empty() && e.names.back() != rel.alias) {
        throw DbError(sqlstate::kUndefinedTable,
                      "missing FROM-clause entry for table \"" + e.names.back() + "\"", e.position);
      }
      for (const LogicalColumn& c : rel.columns) {
        out->returning.push_back(ColumnRef(c.id, c.type));
        out->returning_columns.push_back(c);
      }
      continue;
    }
    ExprContext ctx;
    ctx.scope = &scope;
    ctx.clause = "RETURNING";
    ExprPtr bound = FoldExpression(BindExpr(e, ctx));
    out->returning_columns.push_back(
        {0, item.alias.empty() ? OutputName(e) : item.alias, bound->type});
    out->returning.push_back(std::move(bound));
  }
}

void Binder::BindInsertClauses(const Table& table, const sql::InsertStmt& s, BoundStatement* out) {
  if (!s.on_conflict && s.returning.empty()) return;
  const TableSchema& schema = table.schema();
  Scope scope;
  ScopeRelation rel;
  MakeGet(table, s.alias.empty() ? schema.name : s.alias, &rel, /*ids_are_positions=*/true);
  scope.relations.push_back(rel);
  // Ids 0..2n-1 name the existing and the proposed row's columns.
  next_id_ = std::max(next_id_, 2 * static_cast<uint32_t>(schema.columns.size()));
  if (const sql::OnConflict* c = s.on_conflict.get()) {
    BindOnConflict(*c, table, scope, out);
  }
  BindReturning(s.returning, scope, out);
}

void Binder::BindOnConflict(const sql::OnConflict& c, const Table& table, const Scope& target,
                            BoundStatement* out) {
  const TableSchema& schema = table.schema();
  const uint32_t n = static_cast<uint32_t>(schema.columns.size());
  // The arbiter: the primary key or a unique index, named by its columns or
  // its constraint (index) name.
  if (!c.constraint.empty()) {
    if (!schema.primary_key.empty() && c.constraint == schema.name + "_pkey") {
      out->conflict_arbiters = {IndexRange::kPrimaryKey};
    } else if (std::optional<size_t> i = schema.FindIndex(c.constraint);
               i && schema.indexes[*i].unique) {
      out->conflict_arbiters = {static_cast<int>(*i)};
    } else {
      throw DbError(sqlstate::kUndefinedObject, "constraint \"" + c.constraint + "\" for table \"" +
                                                    schema.name + "\" does not exist");
    }
  } else if (!c.target_columns.empty()) {
    std::set<uint16_t> named;
    for (size_t i = 0; i < c.target_columns.size(); i++) {
      const std::string& name = c.target_columns[i];
      std::optional<ColumnId> id = schema.FindColumn(name);
      if (!id) {
        throw DbError(sqlstate::kUndefinedColumn, "column \"" + name + "\" does not exist",
                      c.target_positions[i]);
      }
      named.insert(id->value());
    }
    auto same = [&](const std::vector<ColumnId>& columns) {
      std::set<uint16_t> set;
      for (ColumnId k : columns) set.insert(k.value());
      return !set.empty() && set == named;
    };
    if (same(schema.primary_key)) {
      out->conflict_arbiters = {IndexRange::kPrimaryKey};
    } else {
      for (size_t i = 0; i < schema.indexes.size(); i++) {
        if (schema.indexes[i].unique && same(schema.indexes[i].columns)) {
          out->conflict_arbiters = {static_cast<int>(i)};
          break;
        }
      }
    }
    if (out->conflict_arbiters.empty()) {
      throw DbError(sqlstate::kInvalidColumnReference,
                    "there is no unique or exclusion constraint matching the ON CONFLICT "
                    "specification");
    }
    if (c.target_where) {
      // A predicate selects partial unique indexes; the primary key's index
      // is not partial and satisfies any predicate (PostgreSQL's inference),
      // so the predicate is only checked.
      ExprContext ctx;
      ctx.scope = &target;
      ctx.clause = "WHERE";
      BindCondition(*c.target_where, ctx, "WHERE");
    }
  } else if (c.do_update) {
    throw DbError(sqlstate::kSyntaxError,
                  "ON CONFLICT DO UPDATE requires inference specification or constraint name",
                  c.position)
        .WithHint("For example, ON CONFLICT (column_name).");
  }
  if (!c.do_update) {
    out->on_conflict = BoundStatement::OnConflictAction::kNothing;
    return;
  }
  out->on_conflict = BoundStatement::OnConflictAction::kUpdate;
  // The existing row under the target's name, the proposed one as EXCLUDED.
  Scope scope = target;
  ScopeRelation excluded;
  excluded.alias = "excluded";
  for (uint32_t i = 0; i < n; i++) {
    excluded.columns.push_back({n + i, schema.columns[i].name, schema.columns[i].type});
    excluded.hidden.push_back(false);
  }
  scope.relations.push_back(std::move(excluded));
  for (const sql::SetClause& set : c.set) {
    out->conflict_set.push_back(BindSetClause(set, schema, scope));
  }
  if (c.where) {
    ExprContext ctx;
    ctx.scope = &scope;
    ctx.clause = "WHERE";
    out->conflict_where = FoldExpression(BindCondition(*c.where, ctx, "WHERE"));
  }
}

namespace {

// What a stored expression may not contain (PostgreSQL's 0A000 errors):
// subqueries, and column references unless `columns_allowed`. `where` names
// the place as the messages do ("DEFAULT expression", "check constraint").
void RefuseInStoredExpr(const sql::Expr& e, const char* where, bool columns_allowed) {
  if (!columns_allowed && e.kind == sql::ExprKind::kColumnRef) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  std::string("cannot use column reference in ") + where, e.position);
  }
  if (e.subquery != nullptr || e.kind == sql::ExprKind::kExists ||
      e.kind == sql::ExprKind::kSubquery || e.kind == sql::ExprKind::kInSubquery ||
      e.kind == sql::ExprKind::kArraySubquery) {
    throw DbError(sqlstate::kFeatureNotSupported, std::string("cannot use subquery in ") + where,
                  e.position);
  }
  sql::ForEachSubExpr(e,
                      [&](const sql::Expr& c) { RefuseInStoredExpr(c, where, columns_allowed); });
}

}  // namespace

void ColumnNamesIn(const sql::Expr& e, std::vector<std::string>* out) {
  if (e.kind == sql::ExprKind::kColumnRef && !e.names.empty() &&
      std::find(out->begin(), out->end(), e.names.back()) == out->end()) {
    out->push_back(e.names.back());
  }
  sql::ForEachSubExpr(e, [&](const sql::Expr& c) { ColumnNamesIn(c, out); });
}

ExprPtr Binder::BindCheck(const sql::Expr& e, const TableSchema& schema) {
  RefuseInStoredExpr(e, "check constraint", /*columns_allowed=*/true);
  Scope scope;
  ScopeRelation rel;
  rel.alias = schema.name;
  for (size_t i = 0; i < schema.columns.size(); i++) {
    rel.columns.push_back(
        {static_cast<uint32_t>(i), schema.columns[i].name, schema.columns[i].type});
  }
  rel.hidden.assign(schema.columns.size(), false);
  scope.relations.push_back(std::move(rel));
  next_id_ = std::max<uint32_t>(next_id_, static_cast<uint32_t>(schema.columns.size()));
  ExprContext ctx;
  ctx.scope = &scope;
  ctx.clause = "check constraints";
  return FoldExpression(BindCondition(e, ctx, "CHECK"));
}

std::vector<ExprPtr> BindChecks(const TableSchema& schema) {
  std::vector<ExprPtr> out;
  if (schema.checks.empty()) return out;
  Catalog none;
  BindOptions options;
  Binder binder(none, options);
  for (const CheckDef& check : schema.checks) {
    std::vector<sql::StatementPtr> parsed = sql::Parser("SELECT " + check.sql).ParseAll();
    if (parsed.size() != 1 || !parsed[0]->query || parsed[0]->query->select_list.size() != 1) {
      throw DbError(sqlstate::kInternalError,
                    "stored check constraint \"" + check.name + "\" does not parse");
    }
    out.push_back(binder.BindCheck(*parsed[0]->query->select_list[0].expr, schema));
  }
  return out;
}

ExprPtr Binder::BindDefault(const sql::Expr& e, const ColumnDef& col) {
  RefuseInStoredExpr(e, "DEFAULT expression", /*columns_allowed=*/false);
  Scope none;
  ExprContext ctx;
  ctx.scope = &none;
  ctx.clause = "DEFAULT";
  ctx.hint = &col.type;
  return FoldExpression(AssignTo(BindExpr(e, ctx), col, e.position));
}

ExprPtr Binder::DefaultOf(const ColumnDef& col, const std::string& table) {
  if (col.identity == ColumnIdentity::kByDefault || col.identity == ColumnIdentity::kAlways) {
    // As PostgreSQL: the next value of the column's own sequence.
    const Table* t = catalog_.FindTable(table);
    const Sequence* sequence =
        t != nullptr ? catalog_.IdentitySequence(t->id(), col.name) : nullptr;
    if (sequence == nullptr) {
      throw DbError(sqlstate::kInternalError, "identity column \"" + col.name + "\" of table \"" +
                                                  table + "\" has no sequence");
    }
    return AssignTo(NextvalOf(*this, sequence->id), col, 0);
  }
  if (col.default_sql.empty()) return Constant(Value::Null(col.type));
  // Stored as text (storage keeps no expression trees): parsed and bound for
  // each statement that needs it, so now() is the statement's.
  sql::Parser parser("SELECT " + col.default_sql);
  std::vector<sql::StatementPtr> statements = parser.ParseAll();
  if (statements.size() != 1 || !statements[0]->query ||
      statements[0]->query->select_list.size() != 1) {
    throw DbError(sqlstate::kInternalError,
                  "stored DEFAULT of column \"" + col.name + "\" does not parse");
  }
  return BindDefault(*statements[0]->query->select_list[0].expr, col);
}

ViewDef BindViewDefinition(const sql::CreateViewStmt& create, const Catalog& catalog) {
  BindOptions options;
  Binder binder(catalog, options);
  ViewDef view;
  view.name = create.name.back();
  std::vector<std::string> read;
  binder.relations_read_ = &read;
  BoundQuery bq = binder.BindQuery(*create.query, nullptr);
  if (create.column_names.size() > bq.columns.size()) {
    throw DbError(sqlstate::kSyntaxError, "CREATE VIEW specifies more column names than columns");
  }
  for (size_t i = 0; i < bq.columns.size(); i++) {
    std::string name = i < create.column_names.size() ? create.column_names[i] : bq.columns[i].name;
    if (std::find(view.column_names.begin(), view.column_names.end(), name) !=
        view.column_names.end()) {
      throw DbError(sqlstate::kDuplicateColumn, "column \"" + name + "\" specified more than once");
    }
    view.column_names.push_back(std::move(name));
    view.column_types.push_back(bq.columns[i].type);
  }
  for (const std::string& r : read) {
    if (std::find(view.depends_on.begin(), view.depends_on.end(), r) == view.depends_on.end()) {
      view.depends_on.push_back(r);
    }
  }
  // Kept as text and bound again wherever the view is read: the text must
  // give back the same columns.
  view.sql = sql::ToString(*create.query);
  std::vector<sql::StatementPtr> again = sql::Parser(view.sql).ParseAll();
  Binder check(catalog, options);
  if (again.size() != 1 || !again[0]->query ||
      check.BindQuery(*again[0]->query, nullptr).columns.size() != bq.columns.size()) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  "this view's query cannot be stored: its text does not bind back the same way");
  }
  return view;
}

Value EvaluateColumnDefault(const ColumnDef& column) {
  if (column.default_sql.empty()) return Value::Null(column.type);
  Catalog none;
  const BindOptions options{};
  Binder binder(none, options);
  ExprPtr e = binder.DefaultOf(column, "");
  if (e->kind == ExprKind::kConstant) return e->constant.CastTo(column.type);
  DataChunk one;  // no columns, one row
  one.set_size(1);
  ExpressionExecutor executor(*e);
  return VectorValue(executor.Execute(one, one.rows()), 0).CastTo(column.type);
}

bool DefaultIsPerRow(const ColumnDef& column) {
  if (column.identity != ColumnIdentity::kNone) return true;
  if (column.default_sql.empty()) return false;
  if (CallsSequenceFunctions(column.default_sql)) return true;
  Catalog none;
  const BindOptions options{};
  Binder binder(none, options);
  return HasVolatileCall(*binder.DefaultOf(column, ""));
}

std::vector<Value> EvaluateExecuteArguments(const std::vector<sql::ExprPtr>& arguments,
                                            const std::vector<Type>& types, const Catalog& catalog,
                                            const BindOptions& options) {
  Binder binder(catalog, options);
  std::vector<Value> values;
  for (size_t i = 0; i < arguments.size(); i++) {
    const sql::Expr& argument = *arguments[i];
    if (HasSubquery(argument)) {
      throw DbError(sqlstate::kFeatureNotSupported, "cannot use subquery in EXECUTE parameter",
                    argument.position);
    }
    Value v =
        EvaluateArgumentNow(binder, argument, types[i], "EXECUTE parameters", [&](const Type& got) {
          return DbError(sqlstate::kDatatypeMismatch,
                         "parameter $" + std::to_string(i + 1) + " of type " + BaseTypeName(got) +
                             " cannot be coerced to the expected type " + BaseTypeName(types[i]),
                         argument.position)
              .WithHint("You will need to rewrite or cast the expression.");
        });
    values.push_back(v.CastTo(types[i]));
  }
  return values;
}

std::vector<Value> EvaluateCallArguments(const std::string& procedure,
                                         const std::vector<sql::ExprPtr>& arguments,
                                         const std::vector<std::optional<Type>>& types,
                                         const Catalog& catalog, const BindOptions& options) {
  Binder binder(catalog, options);
  std::vector<Value> values;
  for (size_t i = 0; i < arguments.size(); i++) {
    const sql::Expr& argument = *arguments[i];
    if (HasSubquery(argument)) {
      throw DbError(sqlstate::kFeatureNotSupported, "cannot use subquery in CALL argument",
                    argument.position);
    }
    if (i < types.size() && types[i]) {
      const Type& want = *types[i];
      Value v = EvaluateArgumentNow(binder, argument, want, "CALL arguments", [&](const Type& got) {
        return DbError(sqlstate::kDatatypeMismatch,
                       "argument " + std::to_string(i + 1) + " of procedure " + procedure +
                           " must be " + BaseTypeName(want) + ", got " + BaseTypeName(got),
                       argument.position)
            .WithHint("You will need to rewrite or cast the expression.");
      });
      values.push_back(v.CastTo(want));
      continue;
    }
    ExprContext ctx;
    ctx.clause = "CALL arguments";
    ExprPtr e = binder.BindExpr(argument, ctx);
    if (binder.sequence_use() != SequenceUse::kNone) {
      NotSupported("a sequence function in CALL arguments", argument.position);
    }
    values.push_back(EvaluateNow(std::move(e)));
  }
  return values;
}

Value EvaluateArgumentNow(Binder& binder, const sql::Expr& argument, const Type& want,
                          const char* clause,
                          const std::function<DbError(const Type& got)>& mismatch) {
  ExprContext ctx;
  ctx.clause = clause;
  ctx.hint = &want;
  ExprPtr e = binder.BindExpr(argument, ctx);
  if (!(e->type == want)) {
    if (!AssignmentCastExists(e->type, want)) throw mismatch(e->type);
    e = Cast(std::move(e), want);
  }
  // nextval and its kin need the transaction thread's sequences, which
  // arguments evaluated here do not reach.
  if (binder.sequence_use() != SequenceUse::kNone) {
    NotSupported(std::string("a sequence function in ") + clause, argument.position);
  }
  return EvaluateNow(std::move(e));
}

Value EvaluateNow(ExprPtr e) {
  e = FoldExpression(std::move(e));
  if (e->kind == ExprKind::kConstant) return e->constant;
  DataChunk one;  // no columns, one row
  one.set_size(1);
  ExpressionExecutor executor(*e);
  return VectorValue(executor.Execute(one, one.rows()), 0);
}

ExprPtr BindColumnDefault(const TableSchema& schema, size_t column, const Catalog& catalog,
                          const BindOptions& options) {
  Binder binder(catalog, options);
  return binder.DefaultOf(schema.columns[column], schema.name);
}

BoundStatement Binder::BindInsert(const sql::InsertStmt& s) {
  Table& table = LookupTable(s.table, s.table_position);
  const TableSchema& schema = table.schema();
  BoundStatement out;
  out.kind = BoundStatementKind::kInsert;
  out.table_id = table.id();
  out.table_name = schema.name;
  // Target columns in the order given (default: all, in table order).
  std::vector<uint32_t> targets;
  if (s.columns.empty()) {
    for (size_t i = 0; i < schema.columns.size(); i++) targets.push_back(static_cast<uint32_t>(i));
  }
  for (const std::string& c : s.columns) {
    std::optional<ColumnId> id = schema.FindColumn(c);
    if (!id) {
      throw DbError(sqlstate::kUndefinedColumn,
                    "column \"" + c + "\" of relation \"" + schema.name + "\" does not exist",
                    s.table_position);
    }
    for (uint32_t t : targets) {
      if (t == id->value()) {
        throw DbError(sqlstate::kDuplicateColumn, "column \"" + c + "\" specified more than once",
                      s.table_position);
      }
    }
    targets.push_back(id->value());
  }
  size_t ncols = schema.columns.size();
  // An explicit value into GENERATED ALWAYS: 428C9.
  auto refuse_explicit = [&](uint32_t c, int position) {
    if (schema.columns[c].identity == ColumnIdentity::kAlways) {
      (void)position;
      throw DbError("428C9", "cannot insert a non-DEFAULT value into column \"" +
                                 schema.columns[c].name + "\"\nDETAIL:  Column \"" +
                                 schema.columns[c].name +
                                 "\" is an identity column defined as GENERATED ALWAYS.")
          .WithHint("Use OVERRIDING SYSTEM VALUE to override.");
    }
  };
  const sql::Query* src = s.source.get();
  if (!src || (src->kind == sql::QueryKind::kValues && src->order_by.empty() && !src->limit &&
               !src->offset && src->with.empty())) {
    // VALUES (DEFAULT VALUES: one row of defaults): each expression bound
    // with its target column's type as the hint.
    bool constants = true;
    std::vector<std::vector<ExprPtr>> rows;
    if (!src) {
      std::vector<ExprPtr> full(ncols);
      for (size_t c = 0; c < ncols; c++) {
        full[c] = FoldExpression(DefaultOf(schema.columns[c], schema.name));
        constants = constants && full[c]->kind == ExprKind::kConstant;
      }
      rows.push_back(std::move(full));
    }
    static const std::vector<std::vector<sql::ExprPtr>> kNoRows;
    // A row with a subquery binds over a one-row plan (ProjectRow).
    const bool subqueries = src != nullptr && ExpectOneRowWithSubqueries(src->values);
    LogicalOpPtr row_plan = subqueries ? RowPlan() : nullptr;
    for (const auto& row : src ? src->values : kNoRows) {
      if (row.size() > targets.size()) {
        throw DbError(sqlstate::kSyntaxError, "INSERT has more expressions than target columns",
                      row[targets.size()]->position);
      }
      if (row.size() < targets.size() && !s.columns.empty()) {
        throw DbError(sqlstate::kSyntaxError, "INSERT has more target columns than expressions",
                      s.table_position);
      }
      std::vector<ExprPtr> full(ncols);
      for (size_t i = 0; i < row.size(); i++) {
        const ColumnDef& col = schema.columns[targets[i]];
        ExprPtr e;
        if (row[i]->kind == sql::ExprKind::kDefault) {
          e = DefaultOf(col, schema.name);
        } else {
          refuse_explicit(targets[i], row[i]->position);
          ExprContext ctx;
          ctx.clause = "VALUES";
          ctx.hint = &col.type;
          if (subqueries) ctx.plan = &row_plan;
          e = AssignTo(BindExpr(*row[i], ctx), col, row[i]->position);
        }
        e = FoldExpression(std::move(e));
        constants = constants && e->kind == ExprKind::kConstant;
        full[targets[i]] = std::move(e);
      }
      for (size_t c = 0; c < ncols; c++) {
        if (!full[c]) {
          full[c] = FoldExpression(DefaultOf(schema.columns[c], schema.name));
          constants = constants && full[c]->kind == ExprKind::kConstant;
        }
      }
      rows.push_back(std::move(full));
    }
    if (constants && !subqueries) {
      for (auto& row : rows) {
        Row r;
        for (size_t c = 0; c < ncols; c++) {
          if (row[c]->parameter != 0) {
            out.parameter_cells.push_back({static_cast<uint32_t>(out.insert_rows.size()),
                                           static_cast<uint32_t>(c), row[c]->parameter});
          }
          try {
            r.push_back(row[c]->constant.CastTo(schema.columns[c].type));
          } catch (const DbError& err) {
            RethrowAt(err, 0);
          }
        }
        out.insert_rows.push_back(std::move(r));
      }
      BindInsertClauses(table, s, &out);
      return out;
    }
    auto values = std::make_unique<LogicalOp>();
    values->kind = LogicalOpKind::kValues;
    for (size_t c = 0; c < ncols; c++) {
      values->columns.push_back({NewId(), schema.columns[c].name, schema.columns[c].type});
    }
    if (subqueries) {
      out.plan = ProjectRow(std::move(row_plan), std::move(rows[0]), values->columns);
    } else {
      values->rows = std::move(rows);
      out.plan = std::move(values);
    }
    BindInsertClauses(table, s, &out);
    return out;
  }
  // INSERT ... SELECT.
  BoundQuery bq = BindQuery(*src, nullptr);
  if (bq.columns.size() > targets.size()) {
    throw DbError(sqlstate::kSyntaxError, "INSERT has more expressions than target columns",
                  src->position);
  }
  // A select list's NULL or string literal has no type of its own in
  // PostgreSQL: it takes the target column's (INSERT INTO t SELECT 1, NULL
  // into a date column), read by that type's input function.
  auto untyped_literal = [&](size_t i) {
    if (src->kind != sql::QueryKind::kSelect || src->select_list.size() != bq.columns.size()) {
      return false;
    }
    const sql::Expr& e = *src->select_list[i].expr;
    return e.kind == sql::ExprKind::kLiteral && (e.literal_kind == sql::LiteralKind::kString ||
                                                 e.literal_kind == sql::LiteralKind::kNull);
  };
  auto proj = std::make_unique<LogicalOp>();
  proj->kind = LogicalOpKind::kProject;
  std::vector<ExprPtr> exprs(ncols);
  for (size_t i = 0; i < bq.columns.size(); i++) {
    const ColumnDef& col = schema.columns[targets[i]];
    refuse_explicit(targets[i], src->position);
    ExprPtr value = ColumnRef(bq.columns[i].id, bq.columns[i].type);
    if (untyped_literal(i) && value->type != col.type) {
      exprs[targets[i]] = Cast(std::move(value), col.type);
    } else {
      exprs[targets[i]] = AssignTo(std::move(value), col, src->position);
    }
  }
  for (size_t c = 0; c < ncols; c++) {
    if (!exprs[c]) exprs[c] = DefaultOf(schema.columns[c], schema.name);
    proj->columns.push_back({NewId(), schema.columns[c].name, schema.columns[c].type});
  }
  proj->expressions = std::move(exprs);
  proj->children.push_back(std::move(bq.plan));
  out.plan = std::move(proj);
  BindInsertClauses(table, s, &out);
  return out;
}

bool HasSubquery(const sql::Expr& e) {
  if (e.subquery) return true;
  bool found = false;
  sql::ForEachSubExpr(e, [&](const sql::Expr& c) { found = found || HasSubquery(c); });
  return found;
}

BoundStatement Binder::BindJoinedWrite(BoundStatementKind kind, const Table& table,
                                       const std::string& alias,
                                       const std::vector<sql::TableRefPtr>& others,
                                       const sql::Expr* where,
                                       const std::vector<sql::SetClause>* set,
                                       const std::vector<sql::SelectItem>& returning,
                                       int position) {
  const TableSchema& schema = table.schema();
  const bool update = kind == BoundStatementKind::kUpdate;
  const std::string what = !others.empty()
                               ? (update ? "UPDATE ... FROM" : "DELETE ... USING")
                               : (update ? "UPDATE" : "DELETE") + std::string(" with a subquery");
  // Each target row is named by its primary key in the joined query.
  if (schema.primary_key.empty())
    NotSupported(what + " on a table without a primary key", position);
  BoundStatement out;
  out.kind = kind;
  out.table_id = table.id();
  out.table_name = schema.name;
  if (!returning.empty()) {
    // Over the target row as written (DELETE: as it was), as for a plain
    // UPDATE / DELETE; the FROM tables' columns are not there.
    Scope target;
    ScopeRelation row;
    MakeGet(table, alias, &row, /*ids_are_positions=*/true);
    target.relations.push_back(row);
    try {
      BindReturning(returning, target, &out);
    } catch (const DbError& e) {
      const std::string_view state = e.sqlstate();
      if (others.empty() ||
          (state != sqlstate::kUndefinedTable && state != sqlstate::kUndefinedColumn))
        throw;
      NotSupported("RETURNING of a column not in the target table with " + what,
                   returning[0].position);
    }
  }
  Scope scope;
  ScopeRelation rel;
  LogicalOpPtr plan = MakeGet(table, alias, &rel);
  scope.relations.push_back(rel);
  if (!others.empty()) {
    LogicalOpPtr other = BindFrom(others, &scope);
    plan = MakeJoin(LogicalJoinKind::kCross, std::move(plan), std::move(other), {}, {}, {});
  }
  if (where) {
    // As a SELECT's WHERE: [NOT] EXISTS / IN (subquery) conjuncts become joins.
    ExprContext ctx;
    ctx.scope = &scope;
    ctx.plan = &plan;
    ctx.clause = "WHERE";
    std::vector<const sql::Expr*> conjuncts;
    const bool split = where->kind == sql::ExprKind::kAnd;
    if (split) {
      for (const sql::ExprPtr& c : where->children) conjuncts.push_back(c.get());
    } else {
      conjuncts.push_back(where);
    }
    std::vector<ExprPtr> conditions;
    for (const sql::Expr* c : conjuncts) {
      if (BindSubqueryConjunct(*c, ctx)) continue;
      conditions.push_back(BindCondition(*c, ctx, split ? "AND" : "WHERE"));
    }
    if (!conditions.empty()) plan = MakeFilter(std::move(plan), std::move(conditions));
  }
  auto project = std::make_unique<LogicalOp>();
  project->kind = LogicalOpKind::kProject;
  for (ColumnId k : schema.primary_key) {
    const LogicalColumn& c = rel.columns[k.value()];
    project->columns.push_back({NewId(), c.name, c.type});
    project->expressions.push_back(ColumnRef(c.id, c.type));
  }
  if (set != nullptr) {
    for (const sql::SetClause& clause : *set) {
      auto [column, value] = BindSetClause(clause, schema, scope, &plan);
      const uint32_t at = static_cast<uint32_t>(project->expressions.size());
      project->columns.push_back({NewId(), schema.columns[column].name, value->type});
      // The SET value is the plan row's column `at`.
      out.set.emplace_back(column, ColumnRef(at, value->type));
      project->expressions.push_back(std::move(value));
    }
  }
  project->children.push_back(std::move(plan));
  out.plan = std::move(project);
  return out;
}

BoundStatement Binder::BindUpdate(const sql::UpdateStmt& s) {
  Table& table = LookupTable(s.table, s.table_position);
  const TableSchema& schema = table.schema();
  bool subquery = s.where && HasSubquery(*s.where);
  for (const sql::SetClause& set : s.set) subquery = subquery || HasSubquery(*set.value);
  if (!s.from.empty() || subquery) {
    return BindJoinedWrite(BoundStatementKind::kUpdate, table,
                           s.alias.empty() ? schema.name : s.alias, s.from, s.where.get(), &s.set,
                           s.returning, s.table_position);
  }
  Scope scope;
  ScopeRelation rel;
  MakeGet(table, s.alias.empty() ? schema.name : s.alias, &rel, /*ids_are_positions=*/true);
  scope.relations.push_back(rel);
  next_id_ = std::max<uint32_t>(next_id_, static_cast<uint32_t>(schema.columns.size()));
  BoundStatement out;
  out.kind = BoundStatementKind::kUpdate;
  out.table_id = table.id();
  out.table_name = schema.name;
  for (const sql::SetClause& set : s.set) {
    out.set.push_back(BindSetClause(set, schema, scope));
  }
  if (s.where) {
    ExprContext ctx;
    ctx.scope = &scope;
    ctx.clause = "WHERE";
    out.where = FoldExpression(BindCondition(*s.where, ctx, "WHERE"));
  }
  BindReturning(s.returning, scope, &out);
  return out;
}

BoundStatement Binder::BindDelete(const sql::DeleteStmt& s) {
  Table& table = LookupTable(s.table, s.table_position);
  if (!s.using_tables.empty() || (s.where && HasSubquery(*s.where))) {
    return BindJoinedWrite(BoundStatementKind::kDelete, table,
                           s.alias.empty() ? table.schema().name : s.alias, s.using_tables,
                           s.where.get(), nullptr, s.returning, s.table_position);
  }
  Scope scope;
  ScopeRelation rel;
  MakeGet(table, s.alias.empty() ? table.schema().name : s.alias, &rel, true);
  scope.relations.push_back(rel);
  next_id_ = std::max<uint32_t>(next_id_, static_cast<uint32_t>(table.schema().columns.size()));
  BoundStatement out;
  out.kind = BoundStatementKind::kDelete;
  out.table_id = table.id();
  out.table_name = table.schema().name;
  if (s.where) {
    ExprContext ctx;
    ctx.scope = &scope;
    ctx.clause = "WHERE";
    out.where = FoldExpression(BindCondition(*s.where, ctx, "WHERE"));
  }
  BindReturning(s.returning, scope, &out);
  return out;
}

ColumnDef Binder::BindColumnDef(const sql::ColumnDef& c, const std::string& table,
                                std::vector<Sequence>* sequences) {
  ColumnDef def;
  def.name = c.name;
  // SERIAL types: an integer column with NOT NULL and a DEFAULT of nextval
  // of a sequence it owns, named "<table>_<column>_seq", as in PostgreSQL.
  const std::string& tn = c.type.name;
  const bool serial = (tn == "serial" || tn == "serial4" || tn == "bigserial" || tn == "serial8" ||
                       tn == "smallserial" || tn == "serial2") &&
                      c.type.schema.empty() && c.type.array_bounds == 0;
  if (serial) {
    def.type = tn == "bigserial" || tn == "serial8"     ? Type::BigInt()
               : tn == "smallserial" || tn == "serial2" ? Type::SmallInt()
                                                        : Type::Integer();
    def.not_null = true;
    if (c.default_value) {
      throw DbError(sqlstate::kSyntaxError,
                    "multiple default values specified for column \"" + c.name + "\" of table \"" +
                        table + "\"",
                    c.default_value->position);
    }
  } else {
    def.type = TypeFromName(c.type);
  }
  if (c.identity != 0) {
    if (c.default_value || serial) {
      throw DbError(sqlstate::kSyntaxError,
                    "both default and identity specified for column \"" + c.name +
                        "\" of table \"" + table + "\"",
                    c.position);
    }
    def.identity = c.identity == 2 ? ColumnIdentity::kAlways : ColumnIdentity::kByDefault;
    def.not_null = true;
  }
  if (serial || c.identity != 0) {
    // The column's sequence, AS the column's type (22023 for another type).
    BoundSequenceOptions bound =
        BindSequenceOptions(c.identity_options, SequenceOptionsOf::kIdentity);
    bound.options.type = def.type.id;
    Sequence sequence;
    ApplySequenceOptions(bound.options, /*init=*/true, /*for_identity=*/true, &sequence.def,
                         &sequence.state);
    // PostgreSQL's ChooseRelationName, also avoiding the statement's others.
    std::vector<std::string> taken;
    for (const Sequence& other : *sequences) taken.push_back(other.def.name);
    const std::string name =
        bound.sequence_name.value_or(catalog_.ChooseIndexName(table, {c.name}, "seq", taken));
    sequence.def.name = name;
    sequence.def.owner_column = c.name;
    sequence.def.identity = c.identity != 0;
    if (serial) def.default_sql = NextvalDefault(name);
    sequences->push_back(std::move(sequence));
  }
  if (def.type.IsWideDecimal()) {
    // Tables keep DECIMALs as int64 (block stripes, WAL, checkpoints); the
    // 38-digit form lives only in query execution for now.
    throw DbError(sqlstate::kFeatureNotSupported,
                  "numeric precision " + std::to_string(def.type.precision) +
                      " is not supported for a table column (at most " +
                      std::to_string(kMaxNarrowDecimalPrecision) + " digits)",
                  c.type.position);
  }
  def.not_null = def.not_null || c.not_null || c.primary_key;
  if (c.default_value) {
    BindDefault(*c.default_value, def);  // its errors now, not at the first INSERT
    def.default_sql = StoredDefaultText(*c.default_value, catalog_);
  }
  return def;
}

BoundStatement Binder::BindCreateTable(const sql::CreateTableStmt& s) {
  if (s.as_query) return BindCreateTableAs(s);  // binder_create_table_as.cc
  BoundStatement out;
  out.kind = BoundStatementKind::kCreateTable;
  out.if_not_exists = s.if_not_exists;
  out.schema.name = s.table.back();
  bool have_pk = false;
  auto set_pk = [&](const std::vector<std::string>& cols, int position) {
    if (have_pk) {
      throw DbError(sqlstate::kInvalidTableDefinition,
                    "multiple primary keys for table \"" + out.schema.name + "\" are not allowed",
                    position);
    }
    have_pk = true;
    for (const std::string& c : cols) {
      std::optional<ColumnId> id = out.schema.FindColumn(c);
      if (!id) {
        throw DbError(sqlstate::kUndefinedColumn,
                      "column \"" + c + "\" named in key does not exist", position);
      }
      out.schema.primary_key.push_back(*id);
      out.schema.columns[id->value()].not_null = true;
    }
  };
  // LIKE t: t's columns (names, types, NOT NULL; DEFAULT, comments as asked).
  std::vector<std::pair<const sql::ColumnDef*, const Table*>> likes;
  for (const sql::ColumnDef& c : s.columns) {
    if (c.like.empty()) {
      out.schema.columns.push_back(BindColumnDef(c, out.schema.name, &out.sequences));
      continue;
    }
    const Table& source = LookupTable(c.like, c.position);
    for (ColumnDef column : source.schema().columns) {
      if (column.identity != ColumnIdentity::kNone && (c.like_including & sql::kLikeIdentity)) {
        NotSupported("LIKE ... INCLUDING IDENTITY of a table with an identity column", c.position);
      }
      column.identity = ColumnIdentity::kNone;  // a plain NOT NULL column, as PostgreSQL
      if (!(c.like_including & sql::kLikeDefaults)) column.default_sql.clear();
      if (!(c.like_including & sql::kLikeComments)) column.comment.clear();
      if (out.schema.FindColumn(column.name)) {
        throw DbError(sqlstate::kDuplicateColumn,
                      "column \"" + column.name + "\" specified more than once");
      }
      out.schema.columns.push_back(std::move(column));
    }
    likes.emplace_back(&c, &source);
  }
  std::vector<std::string> index_names;
  auto add_unique = [&](const std::vector<std::string>& cols, const std::string& name,
                        int position) {
    IndexDef index;
    index.unique = true;
    index.constraint = true;
    for (const std::string& c : cols) {
      std::optional<ColumnId> id = out.schema.FindColumn(c);
      if (!id) {
        throw DbError(sqlstate::kUndefinedColumn,
                      "column \"" + c + "\" named in key does not exist", position);
      }
      index.columns.push_back(*id);
    }
    index.name =
        name.empty() ? catalog_.ChooseIndexName(out.schema.name, cols, "key", index_names) : name;
    index_names.push_back(index.name);
    out.schema.indexes.push_back(std::move(index));
  };
  auto add_check = [&](const sql::TableConstraint& k, const std::string& column) {
    BindCheck(*k.check, out.schema);  // its errors now
    std::vector<std::string> columns;
    if (!column.empty()) {
      columns.push_back(column);
    } else {
      ColumnNamesIn(*k.check, &columns);
      if (columns.size() != 1) columns.clear();  // PostgreSQL: t_check
    }
    std::vector<std::string> taken = index_names;
    for (const CheckDef& c : out.schema.checks) taken.push_back(c.name);
    CheckDef check;
    check.name = !k.name.empty()
                     ? k.name
                     : catalog_.ChooseIndexName(out.schema.name, columns, "check", taken);
    check.sql = sql::ToString(*k.check);
    out.schema.checks.push_back(std::move(check));
  };
  for (const sql::ColumnDef& c : s.columns) {
    if (c.primary_key) set_pk({c.name}, c.position);
    if (c.unique) add_unique({c.name}, "", c.position);
  }
  // LIKE ... INCLUDING INDEXES / CONSTRAINTS: the source's keys and indexes
  // (named for the new table, as PostgreSQL names them) and its CHECKs.
  for (const auto& [like, source] : likes) {
    const TableSchema& from = source->schema();
    auto names = [&](const std::vector<ColumnId>& ids) {
      std::vector<std::string> out_names;
      for (ColumnId id : ids) out_names.push_back(from.column(id).name);
      return out_names;
    };
    if (like->like_including & sql::kLikeIndexes) {
      if (!from.primary_key.empty()) set_pk(names(from.primary_key), like->position);
      for (const IndexDef& index : from.indexes) {
        if (index.constraint) {
          add_unique(names(index.columns), "", like->position);
          continue;
        }
        IndexDef copy = index;
        for (ColumnId& id : copy.columns) id = *out.schema.FindColumn(from.column(id).name);
        copy.name =
            catalog_.ChooseIndexName(out.schema.name, names(index.columns), "idx", index_names);
        index_names.push_back(copy.name);
        out.schema.indexes.push_back(std::move(copy));
      }
    }
    if (like->like_including & sql::kLikeConstraints) {
      for (const CheckDef& check : from.checks) out.schema.checks.push_back(check);
    }
  }
  for (const sql::TableConstraint& k : s.constraints) {
    switch (k.kind) {
      case sql::ConstraintKind::kPrimaryKey:
        set_pk(k.columns, k.position);
        break;
      case sql::ConstraintKind::kUnique:
        add_unique(k.columns, k.name, k.position);
        break;
      case sql::ConstraintKind::kForeignKey:
      case sql::ConstraintKind::kCheck:
        break;  // below, once every column is known
    }
  }
  // CHECK constraints, PostgreSQL's order: columns' first, then the table's.
  for (const sql::ColumnDef& c : s.columns) {
    for (const sql::TableConstraint& k : c.constraints) {
      if (k.kind == sql::ConstraintKind::kCheck) add_check(k, c.name);
    }
  }
  for (const sql::TableConstraint& k : s.constraints) {
    if (k.kind == sql::ConstraintKind::kCheck) add_check(k, "");
  }
  // Foreign keys last, as PostgreSQL adds them once the table and its keys
  // exist (a table may reference itself): the columns', then the table's.
  auto add_foreign_key = [&](const sql::TableConstraint& k) {
    if (k.kind != sql::ConstraintKind::kForeignKey) return;
    out.schema.foreign_keys.push_back(BindForeignKey(k, out.schema, catalog_));
  };
  for (const sql::ColumnDef& c : s.columns) {
    for (const sql::TableConstraint& k : c.constraints) add_foreign_key(k);
  }
  for (const sql::TableConstraint& k : s.constraints) add_foreign_key(k);
  return out;
}

}  // namespace forktail
