// Expression binding: the dispatcher over AST expression kinds, boolean
// logic, CASE, IN lists, LIKE, BETWEEN, CAST, EXTRACT. In a grouped query
// (ctx.aggs->grouped) every bound subexpression equal to a GROUP BY
// expression becomes a reference to the group key's column, so
// `SELECT extract(year FROM d) ... GROUP BY extract(year FROM d)` reads the
// key; whatever column is left ungrouped is reported by the caller (42803).
#include <string>

#include "olap/expression/regex.h"
#include "olap/plan/binder/binder_catalog.h"
#include "olap/plan/binder/binder_internal.h"
#include "olap/plan/binder/binder_srf.h"
#include "olap/plan/constant_folding.h"
#include "storage/value/interval.h"

namespace forktail {

namespace {

DateField FieldOf(const std::string& name, int position) {
  if (name == "year") return DateField::kYear;
  if (name == "quarter") return DateField::kQuarter;
  if (name == "month") return DateField::kMonth;
  if (name == "day") return DateField::kDay;
  if (name == "dow") return DateField::kDow;
  if (name == "doy") return DateField::kDoy;
  if (name == "hour") return DateField::kHour;
  if (name == "minute") return DateField::kMinute;
  if (name == "second") return DateField::kSecond;
  if (name == "epoch") return DateField::kEpoch;
  throw DbError(sqlstate::kFeatureNotSupported, "unit \"" + name + "\" not supported", position);
}

// Binds a list where unknown-typed members take the common type of the
// others (CASE results, COALESCE arguments, IN lists, VALUES columns).
std::vector<ExprPtr> BindUnknownLast(Binder& b, const std::vector<const sql::Expr*>& items,
                                     ExprContext& ctx, const Type* first_hint) {
  std::vector<ExprPtr> out(items.size());
  std::optional<Type> common;
  if (first_hint != nullptr) common = *first_hint;
  for (size_t i = 0; i < items.size(); i++) {
    if (b.IsUnknownTyped(*items[i])) continue;
    ExprContext c = WithoutHint(ctx);
    out[i] = b.BindExpr(*items[i], c);
    try {
      common = common ? CommonType(*common, out[i]->type, false) : out[i]->type;
    } catch (const DbError&) {
      throw DbError(sqlstate::kDatatypeMismatch,
                    "types " + BaseTypeName(*common) + " and " + BaseTypeName(out[i]->type) +
                        " cannot be matched",
                    items[i]->position);
    }
  }
  for (size_t i = 0; i < items.size(); i++) {
    if (out[i]) continue;
    ExprContext c = WithoutHint(ctx);
    c.hint = common ? &*common : nullptr;
    out[i] = b.BindExpr(*items[i], c);
  }
  return out;
}

}  // namespace

static ExprPtr BindCaseExpr(Binder& b, const sql::Expr& e, ExprContext& outer) {
  ExprContext ctx = WithoutSrfs(outer, "CASE");
  std::vector<ExprPtr> conditions;
  for (const auto& [cond, result] : e.whens) {
    (void)result;
    if (e.case_operand) {
      conditions.push_back(
          b.BindComparison(CompareOp::kEq, *e.case_operand, *cond, ctx, cond->position));
    } else {
      conditions.push_back(b.BindCondition(*cond, ctx, "CASE/WHEN"));
    }
  }
  std::vector<const sql::Expr*> results;
  for (const auto& w : e.whens) results.push_back(w.second.get());
  if (e.else_result) results.push_back(e.else_result.get());
  std::vector<ExprPtr> bound = BindUnknownLast(b, results, ctx, nullptr);
  std::vector<std::pair<ExprPtr, ExprPtr>> whens;
  for (size_t i = 0; i < conditions.size(); i++) {
    whens.emplace_back(std::move(conditions[i]), std::move(bound[i]));
  }
  ExprPtr else_result = e.else_result ? std::move(bound.back()) : nullptr;
  try {
    return Case(std::move(whens), std::move(else_result));
  } catch (const DbError& err) {
    RethrowAt(err, e.position);
  }
}

static ExprPtr BindInList(Binder& b, const sql::Expr& e, ExprContext& ctx) {
  if (e.children[0]->kind == sql::ExprKind::kRow) {
    // (a, b) [NOT] IN ((1, 2), (3, 4)): the row compared with each item.
    ExprPtr any;
    for (size_t i = 1; i < e.children.size(); i++) {
      ExprPtr eq =
          b.BindComparison(CompareOp::kEq, *e.children[0], *e.children[i], ctx, e.position);
      any = !any ? std::move(eq) : Or(std::move(any), std::move(eq));
    }
    return e.negated ? Not(std::move(any)) : std::move(any);
  }
  std::vector<const sql::Expr*> items;
  for (size_t i = 0; i < e.children.size(); i++) items.push_back(e.children[i].get());
  std::vector<ExprPtr> bound = BindUnknownLast(b, items, ctx, nullptr);
  ExprPtr x = std::move(bound[0]);
  Type t = x->type;
  bool constants = true;
  for (size_t i = 1; i < bound.size(); i++) {
    bound[i] = FoldExpression(std::move(bound[i]));
    constants = constants && bound[i]->kind == ExprKind::kConstant;
    try {
      t = CommonType(t, bound[i]->type, false);
    } catch (const DbError&) {
      throw DbError(sqlstate::kUndefinedFunction,
                    "operator does not exist: " + BaseTypeName(x->type) + " = " +
                        BaseTypeName(bound[i]->type),
                    e.position);
    }
  }
  if (constants) {
    std::vector<Value> values;
    for (size_t i = 1; i < bound.size(); i++) {
      const Value& v = bound[i]->constant;
      values.push_back(v.is_null() ? Value::Null(t) : v.CastTo(t));
    }
    if (!(x->type == t) && !(x->type.IsString() && t.IsString())) x = Cast(std::move(x), t);
    return In(std::move(x), std::move(values), e.negated);
  }
  ExprPtr result;
  for (size_t i = 1; i < bound.size(); i++) {
    ExprPtr c =
        Compare(e.negated ? CompareOp::kNe : CompareOp::kEq, CloneExpr(*x), std::move(bound[i]));
    if (!result) {
      result = std::move(c);
    } else {
      result =
          e.negated ? And(std::move(result), std::move(c)) : Or(std::move(result), std::move(c));
    }
  }
  return result;
}

// x [NOT] LIKE / SIMILAR TO pattern [ESCAPE e] where the pattern or the
// escape is not known at bind time (a column): `function` (forktail_like or
// forktail_similar) of x, the pattern and the escape (null: the default) as
// TEXT, per row. `op` names the operator in 42883.
static ExprPtr BindRowPattern(Binder& b, const sql::Expr& e, ExprPtr x, ExprPtr pattern,
                              ExprPtr escape, const char* function, const char* op) {
  if (!escape) escape = Constant(Value::Text("\\"));
  if (!x->type.IsString() || !pattern->type.IsString() || !escape->type.IsString()) {
    throw DbError(sqlstate::kUndefinedFunction,
                  std::string("operator does not exist: ") + BaseTypeName(x->type) + " " + op +
                      " " + BaseTypeName(pattern->type),
                  e.position);
  }
  std::vector<ExprPtr> args;
  for (ExprPtr* a : {&x, &pattern, &escape}) {
    if ((*a)->type.id != TypeId::kText) *a = Cast(std::move(*a), Type::Text());
    if (e.case_insensitive && a != &escape) {  // ILIKE: both sides lower-cased
      std::vector<ExprPtr> one;
      one.push_back(std::move(*a));
      *a = FunctionRegistry::Global().Call("lower", std::move(one), b.FunctionContext());
    }
    args.push_back(std::move(*a));
  }
  ExprPtr match = FunctionRegistry::Global().Call(function, std::move(args), b.FunctionContext());
  return e.negated ? Not(std::move(match)) : std::move(match);
}

static bool ConstantString(const ExprPtr& x) {
  return x->kind == ExprKind::kConstant && x->type.IsString();
}

static ExprPtr BindLikeExpr(Binder& b, const sql::Expr& e, ExprContext& ctx) {
  ExprContext c = WithoutHint(ctx);
  ExprPtr x = b.BindExpr(*e.children[0], c);
  Type text = Type::Text();
  c.hint = &text;
  ExprPtr pattern = FoldExpression(b.BindExpr(*e.children[1], c));
  ExprPtr esc;
  if (e.children.size() > 2) esc = FoldExpression(b.BindExpr(*e.children[2], c));
  if (!ConstantString(pattern) || (esc && !ConstantString(esc))) {
    return BindRowPattern(b, e, std::move(x), std::move(pattern), std::move(esc), "forktail_like",
                          e.case_insensitive ? "~~*" : "~~");
  }
  char escape = '\\';
  if (esc) {
    std::string_view s = esc->constant.GetString();
    if (s.size() > 1) {
      throw DbError(sqlstate::kInvalidEscapeSequence, "invalid escape string",
                    e.children[2]->position);
    }
    escape = s.empty() ? 0 : s[0];
  }
  if (pattern->constant.is_null()) return Constant(Value::Null(Type::Boolean()));
  try {
    std::string pat(pattern->constant.GetString());
    if (e.case_insensitive) x = b.FoldCaseForILike(std::move(x), &pat);  // binder_operators.cc
    return Like(std::move(x), pat, e.negated, escape);
  } catch (const DbError&) {
    throw DbError(sqlstate::kUndefinedFunction,
                  "operator does not exist: " + e.children[0]->text + " ~~ unknown", e.position);
  }
}

// x [NOT] SIMILAR TO pattern [ESCAPE e]: x ~ (or !~) the extended regular
// expression the pattern stands for (regex.h's SimilarToRegex), as
// PostgreSQL rewrites it; a pattern or escape not known at bind time goes
// per row (BindRowPattern).
static ExprPtr BindSimilarExpr(Binder& b, const sql::Expr& e, ExprContext& ctx) {
  ExprContext c = WithoutHint(ctx);
  Type text = Type::Text();
  c.hint = &text;
  ExprPtr x = b.BindExpr(*e.children[0], c);
  ExprPtr pattern = FoldExpression(b.BindExpr(*e.children[1], c));
  ExprPtr esc;
  if (e.children.size() > 2) esc = FoldExpression(b.BindExpr(*e.children[2], c));
  if (!ConstantString(pattern) || (esc && !ConstantString(esc))) {
    return BindRowPattern(b, e, std::move(x), std::move(pattern), std::move(esc),
                          "forktail_similar", "~");
  }
  if (!x->type.IsString()) {
    throw DbError(sqlstate::kUndefinedFunction,
                  "operator does not exist: " + BaseTypeName(x->type) + " ~ text", e.position);
  }
  char escape = '\\';
  bool null_escape = false;
  if (esc) {
    null_escape = esc->constant.is_null();
    std::string_view s = null_escape ? std::string_view() : esc->constant.GetString();
    if (s.size() > 1) {
      throw DbError(sqlstate::kInvalidEscapeSequence, "invalid escape string",
                    e.children[2]->position)
          .WithHint("Escape string must be empty or one character.");
    }
    escape = s.empty() ? 0 : s[0];
  }
  if (pattern->constant.is_null() || null_escape) return Constant(Value::Null(Type::Boolean()));
  if (x->type.id != TypeId::kText) x = Cast(std::move(x), Type::Text());
  std::vector<ExprPtr> args;
  args.push_back(std::move(x));
  args.push_back(Constant(Value::Text(SimilarToRegex(pattern->constant.GetString(), escape))));
  return FunctionRegistry::Global().Call(e.negated ? "textregexne" : "textregexeq", std::move(args),
                                         b.FunctionContext());
}

ExprPtr Binder::BindExpr(const sql::Expr& e, ExprContext& ctx) {
  if (IsArrayExpr(e)) return BindArrayExpr(*this, e, ctx);  // binder_catalog_array_ops.cc
  ExprPtr r;
  switch (e.kind) {
    case sql::ExprKind::kColumnRef:
      if (ctx.scope == nullptr) {
        throw DbError(sqlstate::kUndefinedColumn,
                      "column \"" + e.names.back() + "\" does not exist", e.position);
      }
      r = ResolveColumn(e, *ctx.scope);
      break;
    case sql::ExprKind::kLiteral:
      r = BindLiteral(e, ctx.hint);
      break;
    case sql::ExprKind::kParameter:
      r = BindParameter(e, ctx.hint);
      break;
    case sql::ExprKind::kUnaryOp: {
      const sql::Expr& c = *e.children[0];
      if (e.op == "+") {
        r = BindExpr(c, ctx);
        break;
      }
      if (ExprPtr m = BindMathOperator(*this, e, ctx)) {
        r = std::move(m);
        break;
      }
      if (e.op != "-") NotSupported("operator " + e.op, e.position);
      if (c.kind == sql::ExprKind::kLiteral && (c.literal_kind == sql::LiteralKind::kInteger ||
                                                c.literal_kind == sql::LiteralKind::kNumeric)) {
        sql::Expr neg;
        neg.kind = sql::ExprKind::kLiteral;
        neg.literal_kind = c.literal_kind;
        neg.text = c.text[0] == '-' ? c.text.substr(1) : "-" + c.text;
        neg.position = e.position;
        r = BindLiteral(neg, nullptr);
        break;
      }
      ExprContext cc = ctx;
      ExprPtr x = BindExpr(c, cc);
      if (x->type.id == TypeId::kInterval) {
        std::vector<ExprPtr> args;
        args.push_back(std::move(x));
        r = FunctionRegistry::Global().Call("interval_um", std::move(args), FunctionContext());
        break;
      }
      if (!x->type.IsNumeric()) {
        throw DbError(sqlstate::kUndefinedFunction,
                      "operator does not exist: - " + BaseTypeName(x->type), e.position);
      }
      Value zero = Value::Integer(0).CastTo(x->type.IsInteger() ? x->type : Type::Integer());
      r = Arith(ArithOp::kSub, Constant(zero), std::move(x));
      break;
    }
    case sql::ExprKind::kBinaryOp:
      r = BindBinary(e, ctx);
      break;
    case sql::ExprKind::kAnd:
    case sql::ExprKind::kOr: {
      const char* name = e.kind == sql::ExprKind::kAnd ? "AND" : "OR";
      for (const sql::ExprPtr& c : e.children) {
        ExprPtr b = BindCondition(*c, ctx, name);
        r = !r ? std::move(b)
               : (e.kind == sql::ExprKind::kAnd ? And(std::move(r), std::move(b))
                                                : Or(std::move(r), std::move(b)));
      }
      break;
    }
    case sql::ExprKind::kNot:
      r = Not(BindCondition(*e.children[0], ctx, "NOT"));
      break;
    case sql::ExprKind::kIsNull: {
      ExprContext c = WithoutHint(ctx);
      r = IsNull(BindExpr(*e.children[0], c), e.negated);
      break;
    }
    case sql::ExprKind::kIsBool: {
      ExprPtr x = BindCondition(*e.children[0], ctx, "IS");
      switch (e.bool_test) {
        case sql::BoolTest::kTrue:
          r = Coalesce2(std::move(x), Constant(Value::Boolean(false)));
          break;
        case sql::BoolTest::kFalse:
          r = Coalesce2(Not(std::move(x)), Constant(Value::Boolean(false)));
          break;
        case sql::BoolTest::kUnknown:
          r = IsNull(std::move(x));
          break;
      }
      if (e.negated) r = Not(std::move(r));
      break;
    }
    case sql::ExprKind::kIsDistinctFrom: {
      if (e.children[0]->kind == sql::ExprKind::kRow ||
          e.children[1]->kind == sql::ExprKind::kRow) {
        NotSupported("IS DISTINCT FROM on row values", e.position);
      }
      ExprPtr eq = BindComparison(CompareOp::kEq, *e.children[0], *e.children[1], ctx, e.position);
      ExprPtr a = CloneExpr(*eq->children[0]);
      ExprPtr b = CloneExpr(*eq->children[1]);
      // Not distinct: equal, or both NULL.
      ExprPtr same = Or(Coalesce2(std::move(eq), Constant(Value::Boolean(false))),
                        And(IsNull(std::move(a)), IsNull(std::move(b))));
      r = e.negated ? std::move(same) : Not(std::move(same));
      break;
    }
    case sql::ExprKind::kBetween: {
      if (e.symmetric) NotSupported("BETWEEN SYMMETRIC", e.position);
      ExprPtr lo = BindComparison(e.negated ? CompareOp::kLt : CompareOp::kGe, *e.children[0],
                                  *e.children[1], ctx, e.position);
      ExprPtr hi = BindComparison(e.negated ? CompareOp::kGt : CompareOp::kLe, *e.children[0],
                                  *e.children[2], ctx, e.position);
      r = e.negated ? Or(std::move(lo), std::move(hi)) : And(std::move(lo), std::move(hi));
      break;
    }
    case sql::ExprKind::kInList:
      r = BindInList(*this, e, ctx);
      break;
    case sql::ExprKind::kLike:
      r = BindLikeExpr(*this, e, ctx);
      break;
    case sql::ExprKind::kSimilar:
      r = BindSimilarExpr(*this, e, ctx);
      break;
    case sql::ExprKind::kCase:
      r = BindCaseExpr(*this, e, ctx);
      break;
    case sql::ExprKind::kCast: {
      if (BindCatalogCast(*this, e, ctx, &r)) break;  // ::regclass etc.
      if (IsIntervalLiteral(e)) {
        r = Constant(Value::String(Type::Interval(), interval::Encode(IntervalOfLiteral(e))));
        break;
      }
      Type t = TypeFromName(e.type);
      ExprContext c = WithoutHint(ctx);
      c.hint = &t;
      ExprPtr x = BindExpr(*e.children[0], c);
      if (x->type == t) {
        r = std::move(x);
        break;
      }
      if (!ExplicitCastExists(x->type, t)) {
        throw DbError("42846",
                      "cannot cast type " + BaseTypeName(x->type) + " to " + BaseTypeName(t),
                      e.position);
      }
      if ((t.id == TypeId::kVarchar || t.id == TypeId::kChar) && t.length > 0) {
        // An explicit cast to VARCHAR(n) or CHAR(n) cuts the value to n
        // characters, as PostgreSQL's does (an assignment fails with 22001).
        if (!x->type.IsString() || x->type.id == TypeId::kChar)
          x = Cast(std::move(x), Type::Text());
        std::vector<ExprPtr> args;
        args.push_back(std::move(x));
        args.push_back(Constant(Value::Integer(static_cast<int32_t>(t.length))));
        x = FunctionRegistry::Global().Call("left", std::move(args), FunctionContext());
      }
      r = Cast(std::move(x), t);
      break;
    }
    case sql::ExprKind::kExtract: {
      ExprContext c = WithoutHint(ctx);
      Type ts = Type::Timestamp();
      c.hint = &ts;
      try {
        ExprPtr x = BindExpr(*e.children[0], c);
        if (x->type.id == TypeId::kInterval || x->type.id == TypeId::kTime) {
          // EXTRACT(field FROM interval | time): numeric, as interval_part
          // and time_part.
          std::vector<ExprPtr> args;
          args.push_back(Constant(Value::Text(e.text)));
          args.push_back(std::move(x));
          r = FunctionRegistry::Global().Call("extract", std::move(args), FunctionContext());
        } else {
          r = Extract(FieldOf(e.text, e.position), std::move(x));
        }
      } catch (const DbError& err) {
        RethrowAt(err, e.position);
      }
      break;
    }
    case sql::ExprKind::kFunction:
      r = IsSetReturningCall(e) ? BindSrfCall(*this, e, ctx, nullptr)  // binder_srf.h
                                : BindFunction(e, ctx);
      break;
    case sql::ExprKind::kFieldSelect:
      r = BindFieldSelect(*this, e, ctx);  // binder_srf.h
      break;
    case sql::ExprKind::kSubquery:
      r = BindScalarSubquery(e, ctx);
      break;
    case sql::ExprKind::kArraySubquery:
      r = BindArraySubquery(*this, e, ctx);  // binder_list_agg.cc
      break;
    case sql::ExprKind::kExists:
    case sql::ExprKind::kInSubquery:
    case sql::ExprKind::kQuantified:
      r = BindSubqueryValue(e, ctx);  // an Apply (binder_apply.cc)
      break;
    case sql::ExprKind::kStar:
      throw DbError(sqlstate::kSyntaxError, "syntax error at or near \"*\"", e.position);
    case sql::ExprKind::kDefault:
      throw DbError(sqlstate::kSyntaxError, "DEFAULT is not allowed in this context", e.position);
    case sql::ExprKind::kRow:
      // Comparisons and IN take row values apart (binder_operators.cc);
      // a record as a value of its own has no type here.
      NotSupported("a row value outside a comparison (a record type)", e.position);
    default:
      NotSupported("this expression", e.position);
  }
  if (ctx.aggs != nullptr && ctx.aggs->grouped && !ctx.aggs->in_aggregate) {
    for (size_t i = 0; i < ctx.aggs->group_exprs.size(); i++) {
      if (ExprEquals(*r, *ctx.aggs->group_exprs[i])) {
        return ColumnRef(ctx.aggs->group_ids[i], r->type);
      }
    }
  }
  return r;
}

}  // namespace forktail
