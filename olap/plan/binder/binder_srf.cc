#include "olap/plan/binder/binder_srf.h"

#include <string>
#include <utility>
#include <vector>

#include "olap/plan/binder/binder_catalog.h"
#include "olap/plan/binder/binder_lateral.h"
#include "olap/plan/binder/table_function.h"
#include "olap/plan/catalog/system_catalog.h"

namespace forktail {

namespace {

[[noreturn]] void NotAllowed(const std::string& message, int position) {
  throw DbError(sqlstate::kFeatureNotSupported, message, position);
}

// Binds the arguments and fills name, args and the column types (ids later).
SrfCall BindCall(Binder& binder, const sql::Expr& e, ExprContext& ctx) {
  SrfCall call;
  call.name = e.names.back();
  size_t n = e.children.size();
  auto bind = [&](size_t i, const Type* hint) {
    ExprContext c = ctx;
    c.hint = hint;
    return binder.BindExpr(*e.children[i], c);
  };
  auto no_function = [&](const ExprPtr& arg) {
    throw DbError(sqlstate::kUndefinedFunction,
                  "function " + call.name + "(" + BaseTypeName(arg->type) + ") does not exist",
                  e.position);
  };
  if (call.name == "generate_series") {
    if (n != 2 && n != 3) {
      throw DbError(sqlstate::kUndefinedFunction, "function generate_series does not exist",
                    e.position);
    }
    Type type = BindSeriesArguments(binder, e.children, ctx, e.position, &call.args);
    call.columns.push_back({0, "generate_series", type});
    return call;
  }
  if (IsTextSetFunction(call.name)) {
    Type type = BindTextSetArguments(binder, call.name, e.children, ctx, e.position, &call.args);
    call.columns.push_back({0, call.name, type});
    return call;
  }
  if (call.name == "generate_subscripts") {
    call.args = BindSubscriptsArguments(binder, e.children, ctx, e.position);
    call.columns.push_back({0, "generate_subscripts", Type::Integer()});
    return call;
  }
  if (n != 1) {
    throw DbError(sqlstate::kUndefinedFunction, "function " + call.name + " does not exist",
                  e.position);
  }
  if (IsJsonbSetFunction(call.name)) {
    Type jsonb = Type::Jsonb();
    ExprPtr j = bind(0, &jsonb);
    if (j->type.id != TypeId::kJsonb) no_function(j);
    const bool as_text = call.name != "jsonb_array_elements";
    call.args.push_back(std::move(j));
    call.columns.push_back({0, call.name, as_text ? Type::Text() : Type::Jsonb()});
    return call;
  }
  ExprPtr arr = bind(0, nullptr);
  std::optional<Type> element = ArrayElementType(arr->type);
  if (!element) no_function(arr);
  call.args.push_back(std::move(arr));
  if (call.name == "unnest") {
    call.columns.push_back({0, "unnest", *element});
  } else {
    call.columns.push_back({0, "x", *element});
    call.columns.push_back({0, "n", Type::Integer()});
  }
  return call;
}

// The calls' index in ctx.srfs (an identical earlier call is reused).
size_t AddCall(Binder& binder, const sql::Expr& e, ExprContext& ctx) {
  SrfState* st = ctx.srfs;
  if (st == nullptr) {
    if (std::string(ctx.clause) == "GROUP BY") {
      NotAllowed("set-returning functions in GROUP BY are not supported", e.position);
    }
    NotAllowed(std::string("set-returning functions are not allowed in ") + ctx.clause, e.position);
  }
  const char* lateral_hint =
      "You might be able to move the set-returning function into a LATERAL FROM item.";
  if (ctx.aggs != nullptr && ctx.aggs->in_aggregate) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  "aggregate function calls cannot contain set-returning function calls",
                  e.position)
        .WithHint(lateral_hint);
  }
  if (ctx.windows != nullptr && ctx.windows->binding == 1) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  "window function calls cannot contain set-returning function calls", e.position)
        .WithHint(lateral_hint);
  }
  if (ctx.windows != nullptr && ctx.windows->binding != 0) {
    NotAllowed("set-returning functions in a window definition are not supported", e.position);
  }
  if (st->binding) NotAllowed("nested set-returning functions are not supported", e.position);
  st->binding = true;
  SrfCall call;
  try {
    call = BindCall(binder, e, ctx);
  } catch (...) {
    st->binding = false;
    throw;
  }
  st->binding = false;
  for (size_t i = 0; i < st->calls.size(); i++) {
    const SrfCall& c = st->calls[i];
    if (c.name != call.name || c.args.size() != call.args.size()) continue;
    bool same = true;
    for (size_t k = 0; k < c.args.size() && same; k++) same = ExprEquals(*c.args[k], *call.args[k]);
    if (same) return i;
  }
  for (LogicalColumn& c : call.columns) c.id = binder.NewId();
  st->calls.push_back(std::move(call));
  return st->calls.size() - 1;
}

}  // namespace

bool IsJsonbSetFunction(const std::string& name) {
  return name == "jsonb_array_elements" || name == "jsonb_array_elements_text" ||
         name == "jsonb_object_keys";
}

bool IsSetReturningCall(const sql::Expr& e) {
  if (e.kind != sql::ExprKind::kFunction || e.names.empty()) return false;
  const std::string& name = e.names.back();
  if (e.names.size() == 1 || (e.names.size() == 2 && e.names[0] == "pg_catalog")) {
    return name == "generate_series" || name == "generate_subscripts" || name == "unnest" ||
           IsJsonbSetFunction(name) || IsTextSetFunction(name);
  }
  return e.names.size() == 2 && e.names[0] == "information_schema" && name == "_pg_expandarray";
}

bool IsRecordSrfCall(const sql::Expr& e) {
  return IsSetReturningCall(e) && e.names.back() == "_pg_expandarray";
}

ExprPtr BindSrfCall(Binder& binder, const sql::Expr& e, ExprContext& ctx,
                    const std::string* field) {
  size_t index = AddCall(binder, e, ctx);
  const SrfCall& call = ctx.srfs->calls[index];
  if (field == nullptr) {
    if (call.columns.size() > 1) {
      NotAllowed("a record-returning function in an expression is not supported", e.position);
    }
    return ColumnRef(call.columns[0].id, call.columns[0].type);
  }
  for (const LogicalColumn& c : call.columns) {
    if (call.columns.size() > 1 && c.name == *field) return ColumnRef(c.id, c.type);
  }
  if (call.columns.size() == 1) {
    throw DbError(sqlstate::kWrongObjectType,
                  "column notation ." + *field + " applied to type " +
                      BaseTypeName(call.columns[0].type) + ", which is not a composite type",
                  e.position);
  }
  throw DbError(sqlstate::kUndefinedColumn,
                "could not identify column \"" + *field + "\" in record data type", e.position);
}

std::vector<LogicalColumn> BindRecordSrf(Binder& binder, const sql::Expr& e, ExprContext& ctx) {
  size_t i = AddCall(binder, e, ctx);
  return ctx.srfs->calls[i].columns;
}

ExprPtr BindFieldSelect(Binder& binder, const sql::Expr& e, ExprContext& ctx) {
  const sql::Expr& inner = *e.children[0];
  const std::string& field = e.names[0];
  if (IsSetReturningCall(inner)) return BindSrfCall(binder, inner, ctx, &field);
  if (inner.kind != sql::ExprKind::kColumnRef) {
    throw DbError(sqlstate::kFeatureNotSupported, "this expression is not supported", e.position);
  }
  // A record column passed through a subquery: its field's column.
  sql::Expr dotted;
  dotted.kind = sql::ExprKind::kColumnRef;
  dotted.names = inner.names;
  dotted.names.back() += "." + field;
  dotted.position = inner.position;
  try {
    return binder.BindExpr(dotted, ctx);
  } catch (const DbError& err) {
    if (std::string(err.sqlstate()) != sqlstate::kUndefinedColumn) throw;
  }
  ExprPtr plain = binder.BindExpr(inner, ctx);  // the column's own error if missing
  throw DbError(sqlstate::kWrongObjectType,
                "column notation ." + field + " applied to type " + BaseTypeName(plain->type) +
                    ", which is not a composite type",
                inner.position);
}

LogicalOpPtr JoinSrfs(Binder& binder, LogicalOpPtr plan, SrfState* st) {
  auto op = std::make_unique<LogicalOp>();
  op->kind = LogicalOpKind::kTableFunction;
  std::vector<std::pair<std::string, size_t>> spec;
  bool constant = true;
  for (SrfCall& c : st->calls) {
    spec.emplace_back(c.name, c.args.size());
    for (ExprPtr& a : c.args) {
      constant = constant && ColumnsOf(*a).empty();
      op->expressions.push_back(std::move(a));
    }
    for (const LogicalColumn& col : c.columns) op->columns.push_back(col);
  }
  op->function_name = ZipFunctionName(spec);
  LogicalOpPtr item = std::move(op);
  if (constant) item = ExpandTableFunction(*item);
  return JoinMaybeLateral(binder, LogicalJoinKind::kCross, std::move(plan), std::move(item), {},
                          false);
}

}  // namespace forktail
