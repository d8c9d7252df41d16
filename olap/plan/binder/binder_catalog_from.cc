// Set-returning functions in FROM, as psql's catalog queries use them:
// generate_series(a, b [, step]) over integers, unnest(array [, array ...]),
// jsonb_array_elements[_text], jsonb_object_keys, jsonb_each[_text] (key,
// value), pg_partition_ancestors(rel), each optionally WITH ORDINALITY.
//
// Arguments see the FROM items before the function (PostgreSQL's implicit
// LATERAL: `scope`'s relations) and the enclosing queries. Constant
// arguments bind to a Values node at once; arguments reading columns bind to
// a kTableFunction node (olap/plan/binder/table_function.h), which the binder puts
// in an Apply's subplan (binder_lateral.h; a correlated subquery is an Apply
// already) and which becomes a Values node per binding.
// pg_partition_ancestors has exactly one row (Forktail has no partitioning:
// a relation is its own only ancestor), so its argument may be any
// expression: a Values row holding it.
#include <string>
#include <vector>

#include "olap/plan/binder/binder_catalog.h"
#include "olap/plan/binder/binder_srf.h"
#include "olap/plan/binder/table_function.h"

namespace forktail {

Type BindSeriesArguments(Binder& binder, const std::vector<sql::ExprPtr>& children,
                         const ExprContext& ctx, int position, std::vector<ExprPtr>* out) {
  auto bind = [&](size_t i, const Type& hint) {
    ExprContext c = ctx;
    c.hint = &hint;
    return binder.BindExpr(*children[i], c);
  };
  ExprPtr first = bind(0, Type::Integer());
  if (first->type.IsDateTime() && children.size() == 3) {
    ExprPtr last = bind(1, first->type);
    ExprPtr step = bind(2, Type::Interval());
    if (!last->type.IsDateTime() || step->type.id != TypeId::kInterval) {
      throw DbError(sqlstate::kUndefinedFunction,
                    "function generate_series(" + BaseTypeName(first->type) + ", " +
                        BaseTypeName(last->type) + ", " + BaseTypeName(step->type) +
                        ") does not exist",
                    position);
    }
    const Type type = first->type.id == TypeId::kTimestamp && last->type.id == TypeId::kTimestamp
                          ? Type::Timestamp()
                          : Type::TimestampTz();
    out->push_back(first->type == type ? std::move(first) : Cast(std::move(first), type));
    out->push_back(last->type == type ? std::move(last) : Cast(std::move(last), type));
    out->push_back(std::move(step));
    return type;
  }
  bool bigint = false;
  for (size_t i = 0; i < children.size(); i++) {
    ExprPtr x = i == 0 ? std::move(first) : bind(i, Type::Integer());
    if (!x->type.IsInteger()) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    "generate_series over " + BaseTypeName(x->type) + " is not supported",
                    position);
    }
    bigint = bigint || x->type.id == TypeId::kBigInt;
    out->push_back(std::move(x));
  }
  const Type type = bigint ? Type::BigInt() : Type::Integer();
  for (ExprPtr& a : *out) {
    if (!(a->type == type)) a = Cast(std::move(a), type);
  }
  return type;
}

std::vector<ExprPtr> BindSubscriptsArguments(Binder& binder,
                                             const std::vector<sql::ExprPtr>& children,
                                             ExprContext& ctx, int position) {
  std::vector<ExprPtr> args;
  const size_t n = children.size();
  if (n == 2 || n == 3) {
    ExprContext c = WithoutHint(ctx);
    args.push_back(binder.BindExpr(*children[0], c));
    const Type hints[] = {Type::Integer(), Type::Boolean()};
    for (size_t i = 1; i < n; i++) {
      c.hint = &hints[i - 1];
      args.push_back(binder.BindExpr(*children[i], c));
    }
  }
  const bool fits = n >= 2 && ArrayElementType(args[0]->type) && args[1]->type.IsInteger() &&
                    (n == 2 || args[2]->type.id == TypeId::kBoolean);
  if (!fits) {
    std::string types;
    for (const ExprPtr& a : args) types += (types.empty() ? "" : ", ") + BaseTypeName(a->type);
    throw DbError(sqlstate::kUndefinedFunction,
                  "function generate_subscripts(" + types + ") does not exist", position);
  }
  if (args[1]->type.id != TypeId::kInteger) args[1] = Cast(std::move(args[1]), Type::Integer());
  return args;
}

bool IsTextSetFunction(const std::string& name) {
  return name == "regexp_matches" || name == "regexp_split_to_table" || name == "string_to_table";
}

Type BindTextSetArguments(Binder& binder, const std::string& name,
                          const std::vector<sql::ExprPtr>& children, const ExprContext& ctx,
                          int position, std::vector<ExprPtr>* out) {
  std::string types;
  bool fits = children.size() == 2 || children.size() == 3;
  for (const sql::ExprPtr& child : children) {
    ExprContext c = WithoutHint(ctx);
    const Type text = Type::Text();
    c.hint = &text;
    const bool unknown = binder.IsUnknownTyped(*child);
    ExprPtr x = binder.BindExpr(*child, c);
    types += (types.empty() ? "" : ", ") + (unknown ? "unknown" : BaseTypeName(x->type));
    fits = fits && x->type.IsString() && !x->type.IsArrayText();
    out->push_back(x->type.id == TypeId::kText ? std::move(x) : Cast(std::move(x), text));
  }
  if (!fits) {
    throw DbError(sqlstate::kUndefinedFunction,
                  "function " + name + "(" + types + ") does not exist", position);
  }
  return name == "regexp_matches" ? Type::ArrayText(Type::Text()) : Type::Text();
}

namespace {

// unnest(a, b, ...): the arrays side by side, one column each, the shorter
// ones padded with NULLs (PostgreSQL's ROWS FROM (unnest(a), unnest(b))):
// the select list's zipped table function (table_function.h).
LogicalOpPtr BindMultiUnnest(Binder& binder, const sql::TableRef& ref, ExprContext& ctx,
                             ScopeRelation* rel) {
  const sql::Expr& call = *ref.function;
  auto op = std::make_unique<LogicalOp>();
  op->kind = LogicalOpKind::kTableFunction;
  std::vector<std::pair<std::string, size_t>> calls;
  bool constant = true;
  rel->alias = ref.alias.empty() ? "unnest" : ref.alias;
  auto add_column = [&](const std::string& name, const Type& type) {
    LogicalColumn c{binder.NewId(), name, type};
    op->columns.push_back(c);
    rel->columns.push_back(c);
    rel->hidden.push_back(false);
  };
  std::vector<Type> elements;
  for (const sql::ExprPtr& a : call.children) {
    ExprContext c = ctx;
    ExprPtr array = binder.BindExpr(*a, c);
    std::optional<Type> element = ArrayElementType(array->type);
    if (!element) {  // (PostgreSQL names the one-argument call it makes of it)
      throw DbError(sqlstate::kUndefinedFunction,
                    "function pg_catalog.unnest(" + BaseTypeName(array->type) + ") does not exist",
                    a->position);
    }
    elements.push_back(*element);
    constant = constant && ColumnsOf(*array).empty();
    op->expressions.push_back(std::move(array));
    calls.emplace_back("unnest", 1);
  }
  for (const Type& t : elements) add_column("unnest", t);
  if (ref.with_ordinality) add_column("ordinality", Type::BigInt());
  op->function_name = ZipFunctionName(calls);
  return constant ? ExpandTableFunction(*op) : std::move(op);
}

}  // namespace

LogicalOpPtr BindTableFunction(Binder& binder, const sql::TableRef& ref, const Scope* scope,
                               ScopeRelation* rel) {
  const sql::Expr& call = *ref.function;
  const std::string& name = call.names.back();
  if (call.names.size() > 1 && call.names[0] != "pg_catalog") {
    throw DbError(sqlstate::kUndefinedFunction, "function " + name + " does not exist",
                  call.position);
  }
  if (IsJsonRecordFunction(name)) return BindJsonRecordFunction(binder, ref, scope, rel);
  if (!ref.column_types.empty()) {
    throw DbError(sqlstate::kSyntaxError,
                  "a column definition list is only allowed for functions returning \"record\"",
                  call.position);
  }
  ExprContext ctx;
  ctx.scope = scope;
  ctx.clause = "functions in FROM";
  auto bind = [&](size_t i, const Type& hint) {
    ExprContext c = ctx;
    c.hint = &hint;
    return binder.BindExpr(*call.children[i], c);
  };
  if (name == "unnest" && call.children.size() > 1) return BindMultiUnnest(binder, ref, ctx, rel);
  std::string column = name;
  Type type = Type::BigInt();
  std::vector<ExprPtr> args;  // generate_series, unnest
  std::vector<ExprPtr> values;
  std::optional<LogicalColumn> second;  // jsonb_each's value column
  size_t n = call.children.size();
  if (name == "generate_series" && (n == 2 || n == 3)) {
    type = BindSeriesArguments(binder, call.children, ctx, call.position, &args);
  } else if (name == "generate_subscripts") {
    type = Type::Integer();
    args = BindSubscriptsArguments(binder, call.children, ctx, call.position);
  } else if (IsTextSetFunction(name)) {
    type = BindTextSetArguments(binder, name, call.children, ctx, call.position, &args);
  } else if (name == "unnest" && n == 1) {
    ExprContext c = ctx;
    ExprPtr arr = binder.BindExpr(*call.children[0], c);
    std::optional<Type> element = ArrayElementType(arr->type);
    if (!element) {
      throw DbError(sqlstate::kUndefinedFunction,
                    "function unnest(" + BaseTypeName(arr->type) + ") does not exist",
                    call.position);
    }
    type = *element;
    args.push_back(std::move(arr));
  } else if ((IsJsonbSetFunction(name) || name == "jsonb_each" || name == "jsonb_each_text") &&
             n == 1) {
    ExprPtr j = bind(0, Type::Jsonb());
    if (j->type.id != TypeId::kJsonb) {
      throw DbError(sqlstate::kUndefinedFunction,
                    "function " + name + "(" + BaseTypeName(j->type) + ") does not exist",
                    call.position);
    }
    const bool jsonb_value = name == "jsonb_array_elements" || name == "jsonb_each";
    type = jsonb_value ? Type::Jsonb() : Type::Text();
    if (name != "jsonb_object_keys") column = "value";
    if (name == "jsonb_each" || name == "jsonb_each_text") {
      column = "key";
      second = LogicalColumn{0, "value", type};
      type = Type::Text();
    }
    args.push_back(std::move(j));
  } else if (name == "pg_partition_ancestors" && n == 1) {
    ExprPtr x = bind(0, Type::Integer());
    if (!x->type.IsInteger()) {
      throw DbError(sqlstate::kUndefinedFunction,
                    "function pg_partition_ancestors(" + BaseTypeName(x->type) + ") does not exist",
                    call.position);
    }
    column = "relid";
    type = x->type;
    values.push_back(std::move(x));
  } else {
    throw DbError(sqlstate::kFeatureNotSupported, "function " + name + " in FROM is not supported",
                  call.position);
  }
  // A function returning one column, with a table alias and no column
  // aliases, names its column after the alias (PostgreSQL's rule).
  if (!ref.alias.empty() && ref.column_aliases.empty() && !second) column = ref.alias;
  auto op = std::make_unique<LogicalOp>();
  op->kind = LogicalOpKind::kValues;
  rel->alias = ref.alias.empty() ? name : ref.alias;
  auto add_column = [&](const std::string& col, const Type& t) {
    LogicalColumn c{binder.NewId(), col, t};
    op->columns.push_back(c);
    rel->columns.push_back(c);
    rel->hidden.push_back(false);
  };
  add_column(column, type);
  if (second) add_column(second->name, second->type);
  if (ref.with_ordinality) add_column("ordinality", Type::BigInt());
  if (!args.empty()) {
    op->kind = LogicalOpKind::kTableFunction;
    op->function_name = name;
    bool constant = true;
    for (const ExprPtr& a : args) constant = constant && ColumnsOf(*a).empty();
    op->expressions = std::move(args);
    if (!constant) return op;
    try {
      return ExpandTableFunction(*op);
    } catch (const DbError& err) {
      // As before: the call's position on 0A000 (PostgreSQL's 22023 has none).
      if (std::string(err.sqlstate()) != sqlstate::kFeatureNotSupported) throw;
      throw DbError(err.sqlstate(), err.what(), call.position);
    }
  }
  for (size_t i = 0; i < values.size(); i++) {
    std::vector<ExprPtr> row;
    row.push_back(std::move(values[i]));
    if (ref.with_ordinality) row.push_back(Constant(Value::BigInt(static_cast<int64_t>(i + 1))));
    op->rows.push_back(std::move(row));
  }
  return op;
}

}  // namespace forktail
