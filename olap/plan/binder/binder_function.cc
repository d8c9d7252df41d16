// Function calls: the aggregates (COUNT(*), COUNT, COUNT(DISTINCT), SUM,
// AVG, MIN, MAX, with FILTER (WHERE c) rewritten to a CASE input; string_agg
// and array_agg in binder_list_agg.cc; ORDER BY inside COUNT/SUM/AVG/MIN/MAX
// is checked and ignored), the
// scalar functions the kernels have (SUBSTRING, COALESCE), those that lower
// to CASE (NULLIF, GREATEST, LEAST) or to an operator (mod), and then every
// function of the FunctionRegistry (olap/expression/scalar_function.h: abs, round,
// upper, now, ...). Anything else: 42883 `function f(integer) does not
// exist`, as PostgreSQL reports it. COUNT/SUM/AVG(DISTINCT x) keep a set
// of x per group (group_table.h); MIN/MAX(DISTINCT x) are MIN/MAX(x).
#include <fmt/format.h>

#include <iterator>
#include <string>

#include "olap/execution/aggregate/group_table.h"
#include "olap/plan/binder/binder_catalog.h"
#include "olap/plan/binder/binder_internal.h"

namespace forktail {

namespace {}  // namespace

bool Binder::IsAggregateName(const std::string& name) {
  return name == "count" || name == "sum" || name == "avg" || name == "min" || name == "max" ||
         name == "string_agg" || name == "array_agg" || name == "jsonb_agg" ||
         name == "jsonb_object_agg" || name == "json_agg" || name == "json_object_agg" ||
         name == "bool_and" || name == "bool_or" || name == "every";
}

bool Binder::ContainsAggregate(const sql::Expr& e) {
  if (e.kind == sql::ExprKind::kFunction && !e.over &&
      (IsAggregateName(e.names.back()) || IsOrderedSetAggregateName(e.names.back()))) {
    return true;
  }
  for (const sql::ExprPtr& c : e.children) {
    if (c && ContainsAggregate(*c)) return true;
  }
  if (e.case_operand && ContainsAggregate(*e.case_operand)) return true;
  for (const auto& [w, t] : e.whens) {
    if (ContainsAggregate(*w) || ContainsAggregate(*t)) return true;
  }
  if (e.over) {  // rank() OVER (ORDER BY count(*))
    for (const sql::ExprPtr& p : e.over->partition_by) {
      if (ContainsAggregate(*p)) return true;
    }
    for (const sql::OrderItem& o : e.over->order_by) {
      if (ContainsAggregate(*o.expr)) return true;
    }
  }
  return e.else_result && ContainsAggregate(*e.else_result);
}

void NoSuchFunction(Binder& b, const sql::Expr& e, ExprContext& ctx) {
  std::string args;
  auto add = [&](const sql::Expr& a) {
    if (!args.empty()) args += ", ";
    if (b.IsUnknownTyped(a)) {
      args += "unknown";
    } else {
      ExprContext c = WithoutHint(ctx);
      args += BaseTypeName(b.BindExpr(a, c)->type);
    }
  };
  for (const sql::ExprPtr& a : e.children) add(*a);
  if (e.within_group) {  // PostgreSQL lists the aggregated arguments too
    const bool inside = ctx.aggs != nullptr && ctx.aggs->in_aggregate;
    if (ctx.aggs != nullptr) ctx.aggs->in_aggregate = true;  // no GROUP BY check for them
    try {
      for (const sql::OrderItem& o : e.agg_order) add(*o.expr);
    } catch (...) {
      if (ctx.aggs != nullptr) ctx.aggs->in_aggregate = inside;
      throw;
    }
    if (ctx.aggs != nullptr) ctx.aggs->in_aggregate = inside;
  }
  throw DbError(sqlstate::kUndefinedFunction,
                "function " + e.names.back() + "(" + args + ") does not exist", e.position)
      .WithHint(
          "No function matches the given name and argument types. You might need to add "
          "explicit type casts.");
}

ExprPtr Binder::BindAggregate(const sql::Expr& e, ExprContext& ctx) {
  const std::string& name = e.names.back();
  if (ctx.aggs == nullptr) {
    throw DbError(sqlstate::kGroupingError,
                  std::string("aggregate functions are not allowed in ") + ctx.clause, e.position);
  }
  AggState& st = *ctx.aggs;
  if (st.in_aggregate) {
    throw DbError(sqlstate::kGroupingError, "aggregate function calls cannot be nested",
                  e.position);
  }
  if (name == "string_agg" || name == "array_agg") return BindListAggregate(*this, e, ctx);
  if (name == "jsonb_agg" || name == "jsonb_object_agg" || name == "json_agg" ||
      name == "json_object_agg") {
    return BindJsonbAggregate(e, ctx);
  }
  if (e.star ? name != "count" : e.children.size() != 1) NoSuchFunction(*this, e, ctx);
  st.in_aggregate = true;
  ExprContext c = WithoutHint(ctx);
  c.plan = nullptr;  // no subqueries inside aggregate arguments
  ExprPtr input;
  ExprPtr filter;
  try {
    if (!e.star) input = BindExpr(*e.children[0], c);
    if (e.filter) filter = BindCondition(*e.filter, c, "FILTER");
  } catch (...) {
    st.in_aggregate = false;
    throw;
  }
  st.in_aggregate = false;
  AggKind kind = AggKind::kCountStar;
  if (name == "count") {
    kind = e.star ? AggKind::kCountStar : (e.distinct ? AggKind::kCountDistinct : AggKind::kCount);
  } else if (name == "sum" || name == "avg") {
    if (input->type.id == TypeId::kInterval) {
      if (e.distinct) NotSupported(name + "(DISTINCT interval)", e.position);
      return BindIntervalSumOrAvg(name == "avg", std::move(input), std::move(filter), ctx);
    }
    if (!input->type.IsNumeric()) NoSuchFunction(*this, e, ctx);
    if (e.distinct) {
      kind = name == "sum" ? AggKind::kSumDistinct : AggKind::kAvgDistinct;
    } else {
      kind = name == "sum" ? AggKind::kSum : AggKind::kAvg;
    }
  } else if (name == "bool_and" || name == "bool_or" || name == "every") {
    // min / max of the inputs as 0 and 1, compared with 1: NULL inputs are
    // skipped and a group of none gives NULL, as PostgreSQL's.
    if (input->type.id != TypeId::kBoolean) NoSuchFunction(*this, e, ctx);
    kind = name == "bool_or" ? AggKind::kMax : AggKind::kMin;
    input = Cast(std::move(input), Type::Integer());
  } else {
    // PostgreSQL 15 has no min/max of boolean, json, jsonb, uuid or bytea.
    if (input->type.id == TypeId::kBoolean || input->type.id == TypeId::kJsonb ||
        input->type.id == TypeId::kJson || input->type.id == TypeId::kUuid ||
        input->type.id == TypeId::kBytea) {
      NoSuchFunction(*this, e, ctx);
    }
    // Aggregate states compare bytes; an array's order is its elements'.
    if (input->type.IsArrayText()) NotSupported(name + " of an array", e.position);
    kind = name == "min" ? AggKind::kMin : AggKind::kMax;
  }
  // ORDER BY does not change COUNT/SUM/AVG/MIN/MAX: its keys are only checked.
  for (const sql::OrderItem& o : e.agg_order) {
    st.in_aggregate = true;
    try {
      BindExpr(*o.expr, c);
    } catch (...) {
      st.in_aggregate = false;
      throw;
    }
    st.in_aggregate = false;
  }
  if (filter) {
    if (kind == AggKind::kCountStar) {
      kind = AggKind::kCount;
      input = Constant(Value::Integer(1));
    }
    std::vector<std::pair<ExprPtr, ExprPtr>> whens;
    whens.emplace_back(std::move(filter), std::move(input));
    Type t = whens[0].second->type;
    input = Case(std::move(whens), Constant(Value::Null(t)));
    if (input->type.id == TypeId::kText && t.IsString()) input->type = t;
  }
  const bool boolean = name == "bool_and" || name == "bool_or" || name == "every";
  auto as_boolean = [boolean](ExprPtr r) {
    return boolean ? Compare(CompareOp::kEq, std::move(r), Constant(Value::Integer(1)))
                   : std::move(r);
  };
  // The same aggregate twice is computed once.
  for (size_t i = 0; i < st.aggs.size(); i++) {
    if (st.aggs[i].kind != kind) continue;
    bool same = (!input && !st.agg_inputs[i]) ||
                (input && st.agg_inputs[i] && ExprEquals(*input, *st.agg_inputs[i]));
    if (same) return as_boolean(ColumnRef(st.agg_columns[i].id, st.agg_columns[i].type));
  }
  AggregateSpec spec;
  spec.kind = kind;
  if (input) spec.input_type = input->type;
  LogicalAggregate agg;
  agg.kind = kind;
  return as_boolean(
      AddAggregate(*this, std::move(agg), std::move(input), AggregateResultType(spec), name, ctx));
}

// sum(interval) adds months, days and microseconds apart (interval_pl's
// rule), so it is three sums put back together; avg(interval) divides that
// by the count (interval_avg). `filter` is applied to the input first.
ExprPtr Binder::BindIntervalSumOrAvg(bool avg, ExprPtr input, ExprPtr filter, ExprContext& ctx) {
  if (filter) {
    std::vector<std::pair<ExprPtr, ExprPtr>> whens;
    whens.emplace_back(std::move(filter), std::move(input));
    input = Case(std::move(whens), Constant(Value::Null(Type::Interval())));
  }
  auto aggregate = [&](AggKind kind, ExprPtr x, const char* name) {
    AggState& st = *ctx.aggs;
    for (size_t i = 0; i < st.aggs.size(); i++) {
      if (st.aggs[i].kind == kind && st.agg_inputs[i] && ExprEquals(*x, *st.agg_inputs[i])) {
        return ColumnRef(st.agg_columns[i].id, st.agg_columns[i].type);
      }
    }
    AggregateSpec spec;
    spec.kind = kind;
    spec.input_type = x->type;
    LogicalAggregate agg;
    agg.kind = kind;
    return AddAggregate(*this, std::move(agg), std::move(x), AggregateResultType(spec), name, ctx);
  };
  auto call = [this](const char* fn, std::vector<ExprPtr> args) {
    return FunctionRegistry::Global().Call(fn, std::move(args), FunctionContext());
  };
  std::vector<ExprPtr> sums;
  for (const char* part : {"interval_months", "interval_days", "interval_micros"}) {
    std::vector<ExprPtr> args;
    args.push_back(CloneExpr(*input));
    ExprPtr x = call(part, std::move(args));
    // Microseconds add up past BIGINT in a few thousand rows of years.
    if (x->type.id == TypeId::kBigInt)
      x = Cast(std::move(x), Type::Decimal(kMaxDecimalPrecision, 0));
    ExprPtr sum = aggregate(AggKind::kSum, std::move(x), "sum");
    sums.push_back(Cast(std::move(sum), Type::Decimal(kMaxDecimalPrecision, 0)));
  }
  ExprPtr total = call("interval_from_sums", std::move(sums));
  if (!avg) return total;
  std::vector<ExprPtr> args;
  args.push_back(std::move(total));
  args.push_back(Cast(aggregate(AggKind::kCount, std::move(input), "avg"), Type::Double()));
  return call("interval_div", std::move(args));
}

ExprPtr AddAggregate(Binder& binder, LogicalAggregate agg, ExprPtr input, const Type& type,
                     const std::string& name, ExprContext& ctx) {
  AggState& st = *ctx.aggs;
  AggKind kind = agg.kind;
  LogicalColumn out{binder.NewId(), name, type};
  st.aggs.push_back(std::move(agg));
  st.agg_inputs.push_back(std::move(input));
  st.agg_columns.push_back(out);
  if (kind == AggKind::kCount || kind == AggKind::kCountStar || kind == AggKind::kCountDistinct) {
    st.count_ids.insert(out.id);
  }
  st.grouped = true;
  return ColumnRef(out.id, out.type);
}

// make_interval(years, months, weeks, days, hours, mins, secs): every
// parameter defaults to 0 and may be named (make_interval(days => 3)).
ExprPtr Binder::BindMakeInterval(const sql::Expr& e, ExprContext& ctx) {
  static const char* const kParams[] = {"years", "months", "weeks", "days",
                                        "hours", "mins",   "secs"};
  constexpr size_t kCount = std::size(kParams);
  std::vector<ExprPtr> args(kCount);
  auto bind = [&](size_t param, const sql::Expr& x) {
    if (args[param]) {
      throw DbError(sqlstate::kSyntaxError,
                    fmt::format("argument name \"{}\" used more than once", kParams[param]),
                    x.position);
    }
    Type want = param == kCount - 1 ? Type::Double() : Type::Integer();
    ExprContext c = WithoutHint(ctx);
    c.hint = &want;
    ExprPtr v = BindExpr(x, c);
    if (!v->type.IsNumeric() || (param < kCount - 1 && !v->type.IsInteger())) {
      NoSuchFunction(*this, e, ctx);
    }
    args[param] = v->type == want ? std::move(v) : Cast(std::move(v), want);
  };
  if (e.children.size() > kCount) NoSuchFunction(*this, e, ctx);
  for (size_t i = 0; i < e.children.size(); ++i) {
    const std::string& arg_name = e.arg_names.empty() ? std::string() : e.arg_names[i];
    if (arg_name.empty()) {
      if (i > 0 && !e.arg_names.empty() && !e.arg_names[i - 1].empty()) {
        throw DbError(sqlstate::kSyntaxError, "positional argument cannot follow named argument",
                      e.children[i]->position);
      }
      bind(i, *e.children[i]);
      continue;
    }
    size_t param = kCount;
    for (size_t p = 0; p < kCount; ++p) {
      if (arg_name == kParams[p]) param = p;
    }
    if (param == kCount) NoSuchFunction(*this, e, ctx);
    bind(param, *e.children[i]);
  }
  for (size_t p = 0; p < kCount; ++p) {
    if (!args[p]) args[p] = Constant(p == kCount - 1 ? Value::Double(0) : Value::Integer(0));
  }
  return FunctionRegistry::Global().Call("make_interval", std::move(args), FunctionContext());
}

ExprPtr Binder::BindFunction(const sql::Expr& e, ExprContext& ctx) {
  const std::string& name = e.names.back();
  if (e.names.size() > 1 && e.names[0] != "pg_catalog") NoSuchFunction(*this, e, ctx);
  if (name == "make_interval" && !e.over && !e.star && !e.distinct) return BindMakeInterval(e, ctx);
  if (!e.arg_names.empty()) {
    // Only make_interval has parameter names Forktail knows; a name is never
    // dropped (it would bind the value to another parameter).
    throw DbError(sqlstate::kFeatureNotSupported,
                  "named arguments (name => value) are not supported for function " + name,
                  e.position);
  }
  if (name == "grouping" && e.names.size() == 1) return BindGroupingCall(e, ctx);
  if (IsOrderedSetAggregateName(name)) return BindOrderedSetAggregate(*this, e, ctx);
  if (e.within_group) {
    if (!IsAggregateName(name)) NoSuchFunction(*this, e, ctx);
    throw DbError(sqlstate::kWrongObjectType,
                  name + " is not an ordered-set aggregate, so it cannot have WITHIN GROUP",
                  e.position);
  }
  if (e.over || IsWindowOnlyName(name)) return BindWindowCall(e, ctx);  // binder_window.cc
  if (IsAggregateName(name)) return BindAggregate(e, ctx);
  ExprPtr call = BindScalarFunction(e, ctx);
  // Checked once the function is known, so that an unknown one still reports
  // 42883 as in PostgreSQL.
  if (e.filter) {
    throw DbError(sqlstate::kWrongObjectType,
                  "FILTER specified, but " + name + " is not an aggregate function", e.position);
  }
  return call;
}

ExprPtr Binder::BindScalarFunction(const sql::Expr& e, ExprContext& ctx) {
  const std::string& name = e.names.back();
  if (ExprPtr r; BindCatalogFunction(*this, e, ctx, &r)) return r;  // binder_catalog.h
  if (ExprPtr r; BindSequenceFunction(*this, e, ctx, &r)) return r;
  if (ExprPtr r; BindSerialSequenceFunction(*this, e, ctx, &r)) return r;
  if (ExprPtr r; BindFormatFunction(*this, e, ctx, &r)) return r;  // binder_format.cc
  if (ExprPtr r; BindJsonbConstructor(e, ctx, &r)) return r;       // binder_jsonb.cc
  if (e.star || e.distinct) NoSuchFunction(*this, e, ctx);
  std::vector<const sql::Expr*> args;
  for (const sql::ExprPtr& a : e.children) args.push_back(a.get());
  try {
    // substr(s, from [, count]) is substring(s FROM from [FOR count]).
    if ((name == "substring" || name == "substr") && (args.size() == 2 || args.size() == 3)) {
      ExprContext c = WithoutHint(ctx);
      ExprPtr s = BindExpr(*args[0], c);
      if (!s->type.IsString()) NoSuchFunction(*this, e, ctx);
      // CHAR(n) is taken as TEXT, without its padding (as in PostgreSQL).
      if (s->type.id == TypeId::kChar) s = Cast(std::move(s), Type::Text());
      Type i = Type::Integer();
      c.hint = &i;
      ExprPtr start = BindExpr(*args[1], c);
      ExprPtr len = args.size() == 3 ? BindExpr(*args[2], c) : nullptr;
      if (!start->type.IsInteger() || (len && !len->type.IsInteger())) {
        NoSuchFunction(*this, e, ctx);
      }
      return Substring(std::move(s), std::move(start), std::move(len));
    }
    if (name == "coalesce" && !args.empty()) {
      std::vector<ExprPtr> bound;
      // Known-typed arguments first, then unknown ones in their type.
      std::optional<Type> t;
      std::vector<ExprPtr> out(args.size());
      const ExprContext operands = WithoutSrfs(ctx, "COALESCE");
      for (size_t i = 0; i < args.size(); i++) {
        if (IsUnknownTyped(*args[i])) continue;
        ExprContext c = WithoutHint(operands);
        out[i] = BindExpr(*args[i], c);
        t = t ? CommonType(*t, out[i]->type, false) : out[i]->type;
      }
      for (size_t i = 0; i < args.size(); i++) {
        if (out[i]) continue;
        ExprContext c = WithoutHint(operands);
        c.hint = t ? &*t : nullptr;
        out[i] = BindExpr(*args[i], c);
      }
      return Coalesce(std::move(out));
    }
    if (name == "nullif" && args.size() == 2) {
      ExprPtr eq = BindComparison(CompareOp::kEq, *args[0], *args[1], ctx, e.position);
      ExprPtr a = CloneExpr(*eq->children[0]);
      Type t = a->type;
      std::vector<std::pair<ExprPtr, ExprPtr>> whens;
      whens.emplace_back(std::move(eq), Constant(Value::Null(t)));
      return Case(std::move(whens), std::move(a));
    }
    if ((name == "greatest" || name == "least") && !args.empty()) {
      std::optional<Type> t;
      std::vector<ExprPtr> out;
      for (const sql::Expr* a : args) {
        ExprContext c = WithoutHint(ctx);
        c.hint = t ? &*t : nullptr;
        out.push_back(BindExpr(*a, c));
        t = t ? CommonType(*t, out.back()->type, false) : out.back()->type;
      }
      // NULLs are ignored: the result is NULL only if every argument is.
      ExprPtr acc = std::move(out[0]);
      for (size_t i = 1; i < out.size(); i++) {
        ExprPtr x = std::move(out[i]);
        CompareOp better = name == "greatest" ? CompareOp::kGt : CompareOp::kLt;
        std::vector<std::pair<ExprPtr, ExprPtr>> whens;
        whens.emplace_back(IsNull(CloneExpr(*x)), CloneExpr(*acc));
        whens.emplace_back(IsNull(CloneExpr(*acc)), CloneExpr(*x));
        whens.emplace_back(Compare(better, CloneExpr(*x), CloneExpr(*acc)), CloneExpr(*x));
        acc = Case(std::move(whens), std::move(acc));
      }
      return acc;
    }
    if (name == "mod" && args.size() == 2) {
      // The % operator's semantics; PostgreSQL has no mod(double precision).
      auto [l, r] = BindPair(*args[0], *args[1], ctx);
      if (!l->type.IsNumeric() || !r->type.IsNumeric()) NoSuchFunction(*this, e, ctx);
      return Arith(ArithOp::kMod, std::move(l), std::move(r));
    }
    if (FunctionRegistry::Global().Contains(name)) return BindRegisteredFunction(e, ctx);
  } catch (const DbError& err) {
    if (std::string(err.sqlstate()) == sqlstate::kDatatypeMismatch) NoSuchFunction(*this, e, ctx);
    RethrowAt(err, e.position);
  }
  NoSuchFunction(*this, e, ctx);
}

ExprPtr Binder::BindRegisteredFunction(const sql::Expr& e, ExprContext& ctx) {
  // Known-typed arguments first: they choose the overload; unknown ones
  // (literals, NULL, untyped parameters) are then bound in its parameter
  // types, as PostgreSQL resolves them.
  std::vector<std::optional<Type>> types;
  std::vector<ExprPtr> bound(e.children.size());
  for (size_t i = 0; i < e.children.size(); i++) {
    if (IsUnknownTyped(*e.children[i])) {
      types.emplace_back();
      continue;
    }
    ExprContext c = WithoutHint(ctx);
    bound[i] = BindExpr(*e.children[i], c);
    types.emplace_back(bound[i]->type);
  }
  std::optional<FunctionRegistry::Resolution> r;
  try {
    r = FunctionRegistry::Global().Resolve(e.names.back(), types);
  } catch (const DbError& err) {
    RethrowAt(err, e.position);
  }
  if (!r) NoSuchFunction(*this, e, ctx);
  for (size_t i = 0; i < e.children.size(); i++) {
    if (bound[i]) continue;
    Type t = ParameterType(r->param_types[i], std::nullopt);
    ExprContext c = WithoutHint(ctx);
    c.hint = &t;
    bound[i] = BindExpr(*e.children[i], c);
  }
  return FunctionRegistry::MakeCall(*r, std::move(bound), FunctionContext());
}

FunctionBindContext Binder::FunctionContext() {
  if (statement_timestamp_ == 0) statement_timestamp_ = options_.transaction_timestamp;
  if (statement_timestamp_ == 0) {
    // TIMESTAMP values count microseconds since 1970-01-01 (UTC here).
    statement_timestamp_ = std::chrono::duration_cast<std::chrono::microseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  }
  FunctionBindContext c;
  c.catalog = &catalog_;
  c.statement_timestamp = statement_timestamp_;
  c.time_zone = datetime::CurrentTimeZonePtr();
  return c;
}

namespace {

// How firmly an expression names its output column, as PostgreSQL's
// FigureColname ranks it: 2 for a column, a function call and the like, 1
// for a cast or CASE, 0 for anything else. A cast names the column after its
// type unless its argument's name is firmer: 'abc'::text::bytea is "bytea",
// a::text::bytea is "a".
int NameStrength(const sql::Expr& e) {
  switch (e.kind) {
    case sql::ExprKind::kColumnRef:
    case sql::ExprKind::kFunction:
    case sql::ExprKind::kExtract:
    case sql::ExprKind::kExists:
    case sql::ExprKind::kSubquery:
      return 2;
    case sql::ExprKind::kCast:
      return NameStrength(*e.children[0]) == 2 ? 2 : 1;
    case sql::ExprKind::kCase:
      return 1;
    case sql::ExprKind::kLiteral:
      return e.literal_kind == sql::LiteralKind::kTyped ||
                     e.literal_kind == sql::LiteralKind::kBoolean
                 ? 1
                 : 0;
    default:
      return 0;
  }
}

}  // namespace

std::string Binder::OutputName(const sql::Expr& e) {
  switch (e.kind) {
    case sql::ExprKind::kColumnRef:
      return e.names.back();
    case sql::ExprKind::kFunction:
      return e.names.back();
    case sql::ExprKind::kCast:
      if (NameStrength(*e.children[0]) == 2) return OutputName(*e.children[0]);
      return e.type.name;
    case sql::ExprKind::kLiteral:
      if (e.literal_kind == sql::LiteralKind::kTyped) return e.type.name;
      if (e.literal_kind == sql::LiteralKind::kBoolean) return "bool";
      return "?column?";
    case sql::ExprKind::kExtract:
      return "extract";
    case sql::ExprKind::kCase:
      return "case";
    case sql::ExprKind::kExists:
      return "exists";
    case sql::ExprKind::kSubquery:
      if (e.subquery && e.subquery->kind == sql::QueryKind::kSelect &&
          !e.subquery->select_list.empty()) {
        const sql::SelectItem& item = e.subquery->select_list[0];
        return item.alias.empty() ? OutputName(*item.expr) : item.alias;
      }
      return "?column?";
    default:
      return "?column?";
  }
}

}  // namespace forktail
