// Set-returning functions in FROM, as psql's catalog queries use them:
// generate_series(a, b [, step]) over integers, unnest(array),
// pg_partition_ancestors(rel), each optionally WITH ORDINALITY.
//
// They bind to a Values node. generate_series and unnest need constant
// arguments (their row count is fixed at bind time; at most
// kMaxSeriesRows rows); pg_partition_ancestors has exactly one row (Forktail
// has no partitioning: a relation is its own only ancestor), so its argument
// may be any expression, also a reference to an enclosing query's column (a
// correlated subquery then runs it per outer row). Arguments see the
// enclosing queries' columns but not the FROM items beside the function
// (PostgreSQL's implicit LATERAL is not supported: 42703 / 0A000).
#include <string>
#include <vector>

#include "olap/plan/binder_catalog.h"

namespace forktail {

namespace {

constexpr int64_t kMaxSeriesRows = 1'000'000;

[[noreturn]] void Unsupported(const std::string& what, int position) {
  throw DbError(sqlstate::kFeatureNotSupported, what + " is not supported", position);
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
  // Arguments see the enclosing queries only.
  Scope outer_only;
  outer_only.outer = scope != nullptr ? scope->outer : nullptr;
  ExprContext ctx;
  ctx.scope = &outer_only;
  ctx.clause = "functions in FROM";
  auto bind = [&](size_t i, const Type& hint) {
    ExprContext c = ctx;
    c.hint = &hint;
    return binder.BindExpr(*call.children[i], c);
  };
  std::string column = name;
  Type type = Type::BigInt();
  std::vector<ExprPtr> values;
  size_t n = call.children.size();
  if (name == "generate_series" && (n == 2 || n == 3)) {
    std::vector<int64_t> a;
    bool bigint = false;
    for (size_t i = 0; i < n; i++) {
      ExprPtr x = bind(i, Type::Integer());
      if (!x->type.IsInteger())
        Unsupported("generate_series over " + BaseTypeName(x->type), call.position);
      if (x->kind != ExprKind::kConstant) {
        Unsupported("generate_series with non-constant arguments", call.position);
      }
      bigint = bigint || x->type.id == TypeId::kBigInt;
      if (x->constant.is_null())
        a.push_back(INT64_MIN);
      else
        a.push_back(x->constant.GetInt());
    }
    type = bigint ? Type::BigInt() : Type::Integer();
    int64_t step = n == 3 ? a[2] : 1;
    if (step == 0) {
      throw DbError(sqlstate::kInvalidParameterValue, "step size cannot equal zero");
    }
    bool null_arg = a[0] == INT64_MIN || a[1] == INT64_MIN || step == INT64_MIN;
    if (!null_arg) {
      int64_t count = step > 0 ? (a[1] >= a[0] ? (a[1] - a[0]) / step + 1 : 0)
                               : (a[0] >= a[1] ? (a[0] - a[1]) / -step + 1 : 0);
      if (count > kMaxSeriesRows)
        Unsupported("generate_series of more than 1000000 rows", call.position);
      for (int64_t i = 0, v = a[0]; i < count; i++, v += step) {
        values.push_back(
            Constant(bigint ? Value::BigInt(v) : Value::Integer(static_cast<int32_t>(v))));
      }
    }
  } else if (name == "unnest" && n == 1) {
    ExprContext c = ctx;
    ExprPtr arr = binder.BindExpr(*call.children[0], c);
    std::optional<Type> element = ArrayElementType(arr->type);
    if (!element) {
      throw DbError(sqlstate::kUndefinedFunction,
                    "function unnest(" + BaseTypeName(arr->type) + ") does not exist",
                    call.position);
    }
    if (arr->kind != ExprKind::kConstant)
      Unsupported("unnest of a non-constant array", call.position);
    type = *element;
    if (!arr->constant.is_null()) {
      for (const std::optional<std::string>& v : ParseArrayText(arr->constant.GetString())) {
        values.push_back(Constant(v ? Value::Parse(type, *v) : Value::Null(type)));
      }
    }
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
    Unsupported("function " + name + " in FROM", call.position);
  }
  // A function returning one column, with a table alias and no column
  // aliases, names its column after the alias (PostgreSQL's rule).
  if (!ref.alias.empty() && ref.column_aliases.empty()) column = ref.alias;
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
  if (ref.with_ordinality) add_column("ordinality", Type::BigInt());
  for (size_t i = 0; i < values.size(); i++) {
    std::vector<ExprPtr> row;
    row.push_back(std::move(values[i]));
    if (ref.with_ordinality) row.push_back(Constant(Value::BigInt(static_cast<int64_t>(i + 1))));
    op->rows.push_back(std::move(row));
  }
  return op;
}

}  // namespace forktail
