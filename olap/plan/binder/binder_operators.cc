// Literals, parameters and operators: AST expressions -> bound Expressions with PostgreSQL's
// typing. Unknown-typed operands (string literals, NULL, parameters of no
// known type) take the type of the other side of their operator, as
// PostgreSQL resolves "unknown" literals; alone they become TEXT.
#include <cstdlib>
#include <optional>
#include <string>

#include "olap/plan/binder/binder_catalog.h"
#include "olap/plan/binder/binder_internal.h"
#include "olap/plan/catalog/system_catalog.h"
#include "olap/plan/constant_folding.h"
#include "storage/value/interval.h"
#include "storage/value/utf8.h"

namespace forktail {

namespace {

ExprContext WithHint(const ExprContext& ctx, const Type* hint) {
  ExprContext c = ctx;
  c.hint = hint;
  return c;
}

std::string TypeText(const Type& t) { return BaseTypeName(t); }

bool CompareOpOf(const std::string& op, CompareOp* out) {
  if (op == "=")
    *out = CompareOp::kEq;
  else if (op == "<>")
    *out = CompareOp::kNe;
  else if (op == "<")
    *out = CompareOp::kLt;
  else if (op == "<=")
    *out = CompareOp::kLe;
  else if (op == ">")
    *out = CompareOp::kGt;
  else if (op == ">=")
    *out = CompareOp::kGe;
  else
    return false;
  return true;
}

// If `c` is a constant of another numeric type than `other` and survives
// the round trip into other's type, it becomes a constant of that type.
void FitConstant(const ExprPtr& other, ExprPtr* c) {
  if ((*c)->kind != ExprKind::kConstant || other->kind == ExprKind::kConstant) return;
  const Type& want = other->type;
  const Value& v = (*c)->constant;
  if (v.is_null() || v.type() == want || !want.IsNumeric() || !v.type().IsNumeric()) return;
  if (want.id == TypeId::kDouble) return;
  try {
    Value fitted = v.CastTo(want);
    if (fitted.Compare(v) == 0) *c = Constant(std::move(fitted));
  } catch (const DbError&) {
    // Out of the column's range: keep the wider comparison.
  }
}

constexpr int kMaxProductScale = 8;

// A DECIMAL constant with its trailing fractional zeros dropped (same value).
void TrimConstantScale(ExprPtr* c) {
  if ((*c)->kind != ExprKind::kConstant || (*c)->constant.is_null()) return;
  const Value& v = (*c)->constant;
  __int128 unscaled = v.GetWide();
  int scale = v.type().scale, precision = v.type().precision;
  while (scale > 0 && unscaled % 10 == 0) {
    unscaled /= 10;
    scale--;
    precision--;
  }
  if (scale == v.type().scale) return;
  *c = Constant(Value::Decimal(unscaled, std::max(precision, std::max(scale, 1)), scale));
}

// `date_side op *ts_side` with a DATE expression and a TIMESTAMP that folds
// to a constant: the same comparison against a DATE constant where one is
// exact (dates are midnights: d < ts is d < ceil(ts), d <= ts is
// d <= floor(ts)), so zone maps and the scan's push-down see a DATE bound
// (l_shipdate <= date '1998-12-01' - interval '90' day).
void DateBound(const ExprPtr& date_side, CompareOp op, ExprPtr* ts_side) {
  if (date_side->type.id != TypeId::kDate || date_side->kind == ExprKind::kConstant ||
      (*ts_side)->type.id != TypeId::kTimestamp) {
    return;
  }
  *ts_side = FoldExpression(std::move(*ts_side));
  const ExprPtr& c = *ts_side;
  if (c->kind != ExprKind::kConstant || c->constant.is_null()) return;
  datetime::DayTime dt = datetime::SplitTimestamp(c->constant.GetInt());
  bool midnight = dt.time == 0;
  int32_t day = dt.days;
  switch (op) {
    case CompareOp::kEq:
    case CompareOp::kNe:
      if (!midnight) return;
      break;
    case CompareOp::kLt:
    case CompareOp::kGe:
      if (!midnight) ++day;
      break;
    case CompareOp::kLe:
    case CompareOp::kGt:
      break;
  }
  if (day < datetime::kMinDate || day > datetime::kMaxDate) return;
  *ts_side = Constant(Value::Date(day));
}

const char* RegexFunction(const std::string& op) {
  if (op == "~") return "textregexeq";
  if (op == "~*") return "texticregexeq";
  if (op == "!~") return "textregexne";
  if (op == "!~*") return "texticregexne";
  return nullptr;
}

// Binds both operands of a string operator: unknown ones as TEXT.
std::pair<ExprPtr, ExprPtr> BindTextOperands(Binder& b, const sql::Expr& l, const sql::Expr& r,
                                             ExprContext& ctx) {
  Type text = Type::Text();
  ExprContext lc = WithHint(ctx, b.IsUnknownTyped(l) ? &text : nullptr);
  ExprPtr left = b.BindExpr(l, lc);
  ExprContext rc = WithHint(ctx, b.IsUnknownTyped(r) ? &text : nullptr);
  ExprPtr right = b.BindExpr(r, rc);
  return {std::move(left), std::move(right)};
}

[[noreturn]] void NoOperator(const Type& l, const std::string& op, const Type& r, int position) {
  throw DbError(sqlstate::kUndefinedFunction,
                "operator does not exist: " + TypeText(l) + " " + op + " " + TypeText(r), position);
}

// The same for a string operator's operands, naming unknown-typed ones
// "unknown" as PostgreSQL does.
[[noreturn]] void NoTextOperator(Binder& b, const sql::Expr& e, const Type& l, const Type& r) {
  std::string ln = b.IsUnknownTyped(*e.children[0]) ? "unknown" : TypeText(l);
  std::string rn = b.IsUnknownTyped(*e.children[1]) ? "unknown" : TypeText(r);
  throw DbError(sqlstate::kUndefinedFunction,
                "operator does not exist: " + ln + " " + e.op + " " + rn, e.position);
}

// PostgreSQL's text || anynonarray: either side a string, the other cast to
// TEXT; NULL if either is NULL.
ExprPtr BindConcatOperator(Binder& b, const sql::Expr& e, ExprContext& ctx) {
  auto [left, right] = BindTextOperands(b, *e.children[0], *e.children[1], ctx);
  if (left->type.id == TypeId::kJsonb || right->type.id == TypeId::kJsonb) {
    ExprPtr l = CloneExpr(*left), r = CloneExpr(*right);
    if (ExprPtr j = b.BindJsonbConcatOrDelete(e, std::move(l), std::move(r))) return j;
  }
  if (ArrayElementType(left->type) || ArrayElementType(right->type)) {
    return BindArrayConcat(std::move(left), std::move(right), b.IsUnknownTyped(*e.children[0]),
                           b.IsUnknownTyped(*e.children[1]), e.position);
  }
  // bytea || bytea, an unknown literal beside a bytea being one too.
  const bool left_bytea = left->type.id == TypeId::kBytea;
  const bool right_bytea = right->type.id == TypeId::kBytea;
  if ((left_bytea && (right_bytea || b.IsUnknownTyped(*e.children[1]))) ||
      (right_bytea && b.IsUnknownTyped(*e.children[0]))) {
    std::vector<ExprPtr> args;
    args.push_back(left_bytea ? std::move(left) : Cast(std::move(left), Type::Bytea()));
    args.push_back(right_bytea ? std::move(right) : Cast(std::move(right), Type::Bytea()));
    try {
      return FunctionRegistry::Global().Call("byteacat", std::move(args), b.FunctionContext());
    } catch (const DbError& err) {
      RethrowAt(err, e.position);
    }
  }
  if (!left->type.IsString() && !right->type.IsString()) {
    NoTextOperator(b, e, left->type, right->type);
  }
  // CHAR(n) becomes TEXT without its trailing blanks, as PostgreSQL's
  // bpchar -> text cast: 'ALGERIA'::char(25) || '-' is 'ALGERIA-'.
  if (!left->type.IsString() || left->type.id == TypeId::kChar) {
    left = Cast(std::move(left), Type::Text());
  }
  if (!right->type.IsString() || right->type.id == TypeId::kChar) {
    right = Cast(std::move(right), Type::Text());
  }
  std::vector<ExprPtr> args;
  args.push_back(std::move(left));
  args.push_back(std::move(right));
  try {
    return FunctionRegistry::Global().Call("textcat", std::move(args), b.FunctionContext());
  } catch (const DbError& err) {
    RethrowAt(err, e.position);
  }
}

ExprPtr BindRegexOperator(Binder& b, const sql::Expr& e, const char* fn, ExprContext& ctx) {
  auto [left, right] = BindTextOperands(b, *e.children[0], *e.children[1], ctx);
  if (!left->type.IsString() || !right->type.IsString()) {
    NoTextOperator(b, e, left->type, right->type);
  }
  std::vector<ExprPtr> args;
  args.push_back(std::move(left));
  args.push_back(std::move(right));
  try {
    return FunctionRegistry::Global().Call(fn, std::move(args), b.FunctionContext());
  } catch (const DbError& err) {
    RethrowAt(err, e.position);
  }
}

// The integer type both sides of a bitwise operator take (int2 & int4 is
// int4), or nullopt when one is no integer.
std::optional<Type> BitwiseType(const Type& l, const Type& r) {
  if (!l.IsInteger() || !r.IsInteger()) return std::nullopt;
  auto rank = [](const Type& t) {
    return t.id == TypeId::kBigInt ? 2 : t.id == TypeId::kInteger ? 1 : 0;
  };
  return rank(l) >= rank(r) ? l : r;
}

ExprPtr CallMath(const char* name, const Type& type, ScalarKernel kernel,
                 std::vector<ExprPtr> args) {
  return Function(MakeScalarFunction(name, type, std::move(kernel)), std::move(args));
}

// An integer kernel over int64 values, its result kept in `type`'s width:
// a shift wraps as PostgreSQL's (C's) int4 / int2 shifts do.
ExprPtr IntegerOperator(const char* name, const Type& type, int64_t (*fn)(int64_t, int64_t, int),
                        std::vector<ExprPtr> args) {
  const int bits = type.id == TypeId::kBigInt ? 64 : type.id == TypeId::kInteger ? 32 : 16;
  for (ExprPtr& a : args) a = Cast(std::move(a), Type::BigInt());
  ExprPtr wide = CallMath(
      name, Type::BigInt(),
      [fn, bits](const ScalarArgs& a, Rows rows, Vector* out) {
        const int64_t* x = a[0]->data<int64_t>();
        const int64_t* y = a.size() > 1 ? a[1]->data<int64_t>() : nullptr;
        int64_t* o = out->mutable_data<int64_t>();
        ForEachRow(rows, [&](uint32_t i) { o[i] = fn(x[i], y ? y[i] : 0, bits); });
      },
      std::move(args));
  return type.id == TypeId::kBigInt ? std::move(wide) : Cast(std::move(wide), type);
}

// Wraps v to a signed integer of `bits` bits.
int64_t Wrap(uint64_t v, int bits) {
  if (bits == 64) return static_cast<int64_t>(v);
  const uint64_t sign = uint64_t{1} << (bits - 1);
  v &= (sign << 1) - 1;
  return static_cast<int64_t>(v ^ sign) - static_cast<int64_t>(sign);
}

}  // namespace

ExprPtr BindMathOperator(Binder& b, const sql::Expr& e, ExprContext& ctx) {
  const std::string& op = e.op;
  if (e.kind == sql::ExprKind::kUnaryOp) {
    const char* fn = op == "|/" ? "sqrt" : op == "||/" ? "cbrt" : op == "@" ? "abs" : nullptr;
    if (fn == nullptr && op != "~") return nullptr;
    ExprContext c = WithHint(ctx, nullptr);
    ExprPtr x = b.BindExpr(*e.children[0], c);
    std::vector<ExprPtr> args;
    if (fn == nullptr) {  // ~: bitwise NOT
      if (!x->type.IsInteger()) {
        throw DbError(sqlstate::kUndefinedFunction,
                      "operator does not exist: " + op + " " + TypeText(x->type), e.position);
      }
      const Type type = x->type;
      args.push_back(std::move(x));
      return IntegerOperator(
          "int_not", type, [](int64_t v, int64_t, int bits) { return Wrap(~v, bits); },
          std::move(args));
    }
    args.push_back(std::move(x));
    try {
      return FunctionRegistry::Global().Call(fn, std::move(args), b.FunctionContext());
    } catch (const DbError& err) {
      RethrowAt(err, e.position);
    }
  }
  if (op != "^" && op != "&" && op != "|" && op != "#" && op != "<<" && op != ">>") {
    return nullptr;
  }
  auto [left, right] = b.BindPair(*e.children[0], *e.children[1], ctx);
  std::vector<ExprPtr> args;
  if (op == "^") {  // double precision ^ double precision, as power()
    if (!left->type.IsNumeric() || !right->type.IsNumeric()) {
      NoOperator(left->type, op, right->type, e.position);
    }
    args.push_back(std::move(left));
    args.push_back(std::move(right));
    try {
      return FunctionRegistry::Global().Call("power", std::move(args), b.FunctionContext());
    } catch (const DbError& err) {
      RethrowAt(err, e.position);
    }
  }
  const bool shift = op == "<<" || op == ">>";
  std::optional<Type> type = BitwiseType(left->type, right->type);
  if (!type) NoOperator(left->type, op, right->type, e.position);
  if (shift) type = left->type;  // the count is an int4 of any width
  args.push_back(std::move(left));
  args.push_back(std::move(right));
  using Fn = int64_t (*)(int64_t, int64_t, int);
  Fn fn = op == "&"   ? Fn([](int64_t x, int64_t y, int) { return x & y; })
          : op == "|" ? Fn([](int64_t x, int64_t y, int) { return x | y; })
          : op == "#" ? Fn([](int64_t x, int64_t y, int) { return x ^ y; })
          : op == "<<"
              ? Fn([](int64_t x, int64_t y, int bits) {
                  return Wrap(static_cast<uint64_t>(x) << (y & (bits == 64 ? 63 : 31)), bits);
                })
              : Fn([](int64_t x, int64_t y, int bits) {
                  return Wrap(static_cast<uint64_t>(x >> (y & (bits == 64 ? 63 : 31))), bits);
                });
  return IntegerOperator(shift ? "int_shift" : "int_bitwise", *type, fn, std::move(args));
}

bool IsIntervalLiteral(const sql::Expr& e) {
  if (e.kind == sql::ExprKind::kLiteral && e.literal_kind == sql::LiteralKind::kTyped) {
    return e.type.name == "interval";
  }
  if (e.kind == sql::ExprKind::kCast && e.type.name == "interval") {
    const sql::Expr& c = *e.children[0];
    return c.kind == sql::ExprKind::kLiteral && c.literal_kind == sql::LiteralKind::kString;
  }
  return false;
}

Interval IntervalOfLiteral(const sql::Expr& e) {
  std::string text = e.kind == sql::ExprKind::kCast ? e.children[0]->text : e.text;
  const std::string& fields = e.type.interval_fields;
  try {
    if (!fields.empty()) {
      // INTERVAL '3' MONTH: a bare number in the field's unit.
      bool bare = !text.empty() && text.find_first_not_of("+-0123456789. ") == std::string::npos;
      if (bare) text += " " + fields.substr(0, fields.find(' '));
    }
    Interval iv = datetime::ParseInterval(text);
    if (fields.empty() && !e.type.modifiers.empty()) {
      // INTERVAL(p) '...': seconds rounded to p digits, half away from zero.
      const int64_t p = e.type.modifiers[0];
      if (p < 0 || p > 6 || e.type.modifiers.size() > 1) {
        throw DbError(sqlstate::kInvalidParameterValue,
                      "INTERVAL(" + std::to_string(p) + ") precision must be between 0 and 6");
      }
      int64_t unit = 1;
      for (int64_t k = p; k < 6; ++k) unit *= 10;
      const int64_t half = unit / 2;
      iv.micros =
          iv.micros >= 0 ? (iv.micros + half) / unit * unit : -((-iv.micros + half) / unit * unit);
    }
    return iv;
  } catch (const DbError& err) {
    RethrowAt(err, e.position);
  }
}

bool Binder::IsUnknownTyped(const sql::Expr& e) const {
  if (e.kind == sql::ExprKind::kLiteral) {
    return e.literal_kind == sql::LiteralKind::kString || e.literal_kind == sql::LiteralKind::kNull;
  }
  if (e.kind == sql::ExprKind::kParameter) {
    size_t i = static_cast<size_t>(e.param_index - 1);
    return i >= param_types_.size() || !param_types_[i].has_value();
  }
  return false;
}

std::pair<ExprPtr, ExprPtr> Binder::BindPair(const sql::Expr& l, const sql::Expr& r,
                                             ExprContext& ctx) {
  if (IsUnknownTyped(l) && !IsUnknownTyped(r)) {
    ExprContext rc = WithHint(ctx, nullptr);
    ExprPtr right = BindExpr(r, rc);
    ExprContext lc = WithHint(ctx, &right->type);
    ExprPtr left = BindExpr(l, lc);
    return {std::move(left), std::move(right)};
  }
  ExprContext lc = WithHint(ctx, nullptr);
  ExprPtr left = BindExpr(l, lc);
  Type lt = left->type;
  ExprContext rc = WithHint(ctx, &lt);
  ExprPtr right = BindExpr(r, rc);
  return {std::move(left), std::move(right)};
}

ExprPtr Binder::BindLiteral(const sql::Expr& e, const Type* hint) {
  try {
    switch (e.literal_kind) {
      case sql::LiteralKind::kNull:
        return Constant(Value::Null(hint ? *hint : Type::Text()));
      case sql::LiteralKind::kBoolean:
        return Constant(Value::Boolean(e.text == "true"));
      case sql::LiteralKind::kInteger: {
        errno = 0;
        char* end = nullptr;
        long long v = std::strtoll(e.text.c_str(), &end, 10);
        if (errno == 0 && *end == '\0') {
          if (v >= INT32_MIN && v <= INT32_MAX)
            return Constant(Value::Integer(static_cast<int32_t>(v)));
          return Constant(Value::BigInt(v));
        }
        [[fallthrough]];
      }
      case sql::LiteralKind::kNumeric: {
        const std::string& t = e.text;
        if (t.find_first_of("eE") != std::string::npos) {
          return Constant(Value::Parse(Type::Double(), t));
        }
        size_t dot = t.find('.');
        std::string int_part = t.substr(0, dot);
        std::string frac = dot == std::string::npos ? "" : t.substr(dot + 1);
        size_t nz = int_part.find_first_not_of("+-0");
        int_part = nz == std::string::npos ? "" : int_part.substr(nz);
        int scale = static_cast<int>(frac.size());
        int precision = std::max(1, static_cast<int>(int_part.size()) + scale);
        if (precision > kMaxDecimalPrecision) {
          if (scale == 0) {
            throw DbError(sqlstate::kFeatureNotSupported,
                          "integer constant " + t + " does not fit in 38 digits", e.position);
          }
          return Constant(Value::Parse(Type::Double(), t));
        }
        return Constant(Value::Parse(Type::Decimal(precision, scale), t));
      }
      case sql::LiteralKind::kString:
        if (hint != nullptr && !hint->IsString()) return Constant(Value::Parse(*hint, e.text));
        return Constant(Value::Text(e.text));
      case sql::LiteralKind::kTyped: {
        if (e.type.name == "interval") {
          return Constant(Value::String(Type::Interval(), interval::Encode(IntervalOfLiteral(e))));
        }
        Type t = TypeFromName(e.type);
        if (t.IsString()) {
          // varchar(n) 'text' is an explicit cast: cut to n characters.
          std::string_view text = e.text;
          if (t.length > 0) text = text.substr(0, Utf8Offset(text, t.length));
          return Constant(Value::String(t, std::string(text)).CastTo(t));
        }
        return Constant(Value::Parse(t, e.text));
      }
      case sql::LiteralKind::kBitString:
        break;
    }
  } catch (const DbError& err) {
    RethrowAt(err, e.position);
  }
  throw DbError(sqlstate::kFeatureNotSupported, "bit string literals are not supported",
                e.position);
}

ExprPtr Binder::BindParameter(const sql::Expr& e, const Type* hint) {
  size_t i = static_cast<size_t>(e.param_index - 1);
  if (param_types_.size() <= i) param_types_.resize(i + 1);
  if (!param_types_[i]) param_types_[i] = hint != nullptr ? *hint : Type::Text();
  Type t = *param_types_[i];
  ExprPtr c;
  if (i >= options_.parameters.size() || options_.parameters[i].is_null()) {
    c = Constant(Value::Null(t));
  } else {
    try {
      c = Constant(options_.parameters[i].CastTo(t));
    } catch (const DbError& err) {
      RethrowAt(err, e.position);
    }
  }
  if (options_.tag_parameters) {
    // A number past the tag's range stays untagged: the count then tells
    // that the binding cannot be reused.
    if (e.param_index <= UINT16_MAX) c->parameter = static_cast<uint16_t>(e.param_index);
    if (parameter_uses_.size() <= i) parameter_uses_.resize(i + 1);
    parameter_uses_[i]++;
  }
  return c;
}

ExprPtr Binder::BindCondition(const sql::Expr& e, ExprContext& ctx, const char* clause) {
  ExprContext c = WithHint(ctx, nullptr);
  Type b = Type::Boolean();
  if (IsUnknownTyped(e)) c.hint = &b;
  ExprPtr r = BindExpr(e, c);
  if (r->type.id != TypeId::kBoolean) {
    throw DbError(sqlstate::kDatatypeMismatch,
                  std::string("argument of ") + clause + " must be type boolean, not type " +
                      TypeText(r->type),
                  e.position);
  }
  return r;
}

ExprPtr Binder::BindComparison(CompareOp op, const sql::Expr& l, const sql::Expr& r,
                               ExprContext& ctx, int position) {
  if (l.kind == sql::ExprKind::kRow || r.kind == sql::ExprKind::kRow) {
    return BindRowComparison(op, l, r, ctx, position);
  }
  auto [left, right] = BindPair(l, r, ctx);
  // A constant compared with a column takes the column's type when that
  // loses nothing (l_quantity >= 1 compares DECIMAL(15,2) values with 1.00
  // instead of casting every row to DECIMAL(18,2)).
  FitConstant(left, &right);
  FitConstant(right, &left);
  DateBound(left, op, &right);
  DateBound(right, FlipComparison(op), &left);
  Type lt = left->type, rt = right->type;
  if (lt.id == TypeId::kJson || rt.id == TypeId::kJson) {  // json has no comparison operators
    throw DbError(
        sqlstate::kUndefinedFunction,
        "operator does not exist: " + TypeText(lt) + " " + CompareSymbol(op) + " " + TypeText(rt),
        position)
        .WithHint(
            "No operator matches the given name and argument types. You might need to add "
            "explicit type casts.");
  }
  if (lt.id == TypeId::kDecimal && rt.id == TypeId::kDecimal && lt.scale == rt.scale &&
      lt.IsWideDecimal() == rt.IsWideDecimal()) {
    // Same scale: the unscaled integers compare directly; the factory would
    // cast both sides to DECIMAL(18,s) on every row for nothing.
    auto e = std::make_unique<Expression>();
    e->kind = ExprKind::kCompare;
    e->type = Type::Boolean();
    e->compare = op;
    e->children.push_back(std::move(left));
    e->children.push_back(std::move(right));
    return e;
  }
  try {
    return Compare(op, std::move(left), std::move(right));
  } catch (const DbError&) {
    throw DbError(
        sqlstate::kUndefinedFunction,
        "operator does not exist: " + TypeText(lt) + " " + CompareSymbol(op) + " " + TypeText(rt),
        position);
  }
}

ExprPtr Binder::BindRowComparison(CompareOp op, const sql::Expr& l, const sql::Expr& r,
                                  ExprContext& ctx, int position) {
  const bool l_row = l.kind == sql::ExprKind::kRow, r_row = r.kind == sql::ExprKind::kRow;
  if (!l_row || !r_row) {
    const sql::Expr& other = l_row ? r : l;
    if (other.kind == sql::ExprKind::kSubquery) {
      NotSupported("a row value compared with a subquery", position);
    }
    ExprContext c = WithoutHint(ctx);
    const std::string other_type = TypeText(BindExpr(other, c)->type);
    throw DbError(sqlstate::kUndefinedFunction,
                  "operator does not exist: " + (l_row ? "record" : other_type) + " " +
                      CompareSymbol(op) + " " + (r_row ? "record" : other_type),
                  position);
  }
  const size_t n = l.children.size();
  if (r.children.size() != n) {
    throw DbError(sqlstate::kSyntaxError, "unequal number of entries in row expressions", position);
  }
  auto pair = [&](CompareOp o, size_t i) {
    return BindComparison(o, *l.children[i], *r.children[i], ctx, position);
  };
  if (op == CompareOp::kEq || op == CompareOp::kNe) {
    ExprPtr result;
    for (size_t i = 0; i < n; i++) {
      ExprPtr c = pair(op, i);
      result = !result ? std::move(c)
                       : (op == CompareOp::kEq ? And(std::move(result), std::move(c))
                                               : Or(std::move(result), std::move(c)));
    }
    return result;
  }
  // Lexicographic, from the last pair back: the last pair compares with `op`
  // itself; an earlier pair i gives (a_i strict b_i) OR (a_i = b_i AND rest).
  const CompareOp strict = op == CompareOp::kLe   ? CompareOp::kLt
                           : op == CompareOp::kGe ? CompareOp::kGt
                                                  : op;
  ExprPtr rest = pair(op, n - 1);
  for (size_t i = n - 1; i-- > 0;) {
    rest = Or(pair(strict, i), And(pair(CompareOp::kEq, i), std::move(rest)));
  }
  return rest;
}

// date + integer, integer + date, date - integer (DATE), date - date
// (INTEGER); timestamp - timestamp (INTERVAL; a date as its midnight, both
// as timestamptz when one is).
ExprPtr Binder::BindDateArith(const sql::Expr& e, ArithOp op, ExprPtr left, ExprPtr right) {
  Type lt = left->type, rt = right->type;
  bool l_date = lt.id == TypeId::kDate, r_date = rt.id == TypeId::kDate;
  bool l_time = lt.IsDateTime(), r_time = rt.IsDateTime();
  const char* fn = nullptr;
  if (op == ArithOp::kAdd && l_date && rt.IsInteger()) fn = "date_pli";
  if (op == ArithOp::kAdd && lt.IsInteger() && r_date) fn = "integer_pl_date";
  if (op == ArithOp::kSub && l_date && rt.IsInteger()) fn = "date_mii";
  if (op == ArithOp::kSub && l_date && r_date) fn = "date_mi";
  if (fn == nullptr && op == ArithOp::kSub && l_time && r_time) {
    const bool zoned = lt.id == TypeId::kTimestampTz || rt.id == TypeId::kTimestampTz;
    const Type common = zoned ? Type::TimestampTz() : Type::Timestamp();
    if (lt != common) left = Cast(std::move(left), common);
    if (rt != common) right = Cast(std::move(right), common);
    fn = zoned ? "timestamptz_mi" : "timestamp_mi";
  }
  ExprPtr r;
  if (fn != nullptr) {
    std::vector<ExprPtr> args;
    args.push_back(std::move(left));
    args.push_back(std::move(right));
    try {
      r = FunctionRegistry::Global().Call(fn, std::move(args), FunctionContext());
    } catch (const DbError& err) {
      RethrowAt(err, e.position);
    }
  }
  if (!r) NoOperator(lt, e.op, rt, e.position);
  return r;
}

// The operators on intervals: interval +/- interval, date/timestamp[tz] +/-
// interval (interval + date/timestamp[tz]), interval * number, number *
// interval, interval / number. A date becomes its midnight (PostgreSQL:
// date + interval is a timestamp).
ExprPtr Binder::BindIntervalArith(const sql::Expr& e, ArithOp op, ExprPtr left, ExprPtr right) {
  const Type lt = left->type, rt = right->type;
  const bool l_iv = lt.id == TypeId::kInterval, r_iv = rt.id == TypeId::kInterval;
  const bool add_or_sub = op == ArithOp::kAdd || op == ArithOp::kSub;
  const char* fn = nullptr;
  if (l_iv && r_iv && add_or_sub) {
    fn = op == ArithOp::kAdd ? "interval_pl" : "interval_mi";
  } else if (add_or_sub && (r_iv || op == ArithOp::kAdd)) {
    // date/timestamp[tz] +/- interval, interval + date/timestamp[tz].
    if (!r_iv) std::swap(left, right);
    Type t = left->type;
    if (t.id == TypeId::kTime) {
      fn = op == ArithOp::kAdd ? "time_pl_interval" : "time_mi_interval";
    } else if (t.IsDateTime()) {
      if (t.id == TypeId::kDate) left = Cast(std::move(left), Type::Timestamp());
      const bool zoned = t.id == TypeId::kTimestampTz;
      fn = op == ArithOp::kAdd ? (zoned ? "timestamptz_pl_interval" : "timestamp_pl_interval")
                               : (zoned ? "timestamptz_mi_interval" : "timestamp_mi_interval");
    }
  } else if (op == ArithOp::kMul && (l_iv ? rt : lt).IsNumeric()) {
    if (!l_iv) std::swap(left, right);
    right = Cast(std::move(right), Type::Double());
    fn = "interval_mul";
  } else if (op == ArithOp::kDiv && l_iv && rt.IsNumeric()) {
    right = Cast(std::move(right), Type::Double());
    fn = "interval_div";
  }
  if (fn == nullptr) NoOperator(lt, e.op, rt, e.position);
  std::vector<ExprPtr> args;
  args.push_back(std::move(left));
  args.push_back(std::move(right));
  try {
    return FunctionRegistry::Global().Call(fn, std::move(args), FunctionContext());
  } catch (const DbError& err) {
    RethrowAt(err, e.position);
  }
}

ExprPtr Binder::FoldCaseForILike(ExprPtr x, std::string* pattern) {
  if (!x->type.IsString()) return x;  // Like() reports the operator error
  for (char& c : *pattern) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  std::vector<ExprPtr> args;
  args.push_back(std::move(x));
  return FunctionRegistry::Global().Call("lower", std::move(args), FunctionContext());
}

ExprPtr Binder::BindBinary(const sql::Expr& e, ExprContext& ctx) {
  const sql::Expr& l = *e.children[0];
  const sql::Expr& r = *e.children[1];
  CompareOp cmp;
  if (!e.op_schema.empty() && e.op_schema != "pg_catalog") {
    throw DbError("3F000", "schema \"" + e.op_schema + "\" does not exist", e.position);
  }
  if (CompareOpOf(e.op, &cmp)) return BindComparison(cmp, l, r, ctx, e.position);
  if (ExprPtr j = BindJsonbOperator(e, ctx)) return j;  // binder_jsonb.cc
  if (e.op == "||") return BindConcatOperator(*this, e, ctx);
  if (const char* fn = RegexFunction(e.op)) return BindRegexOperator(*this, e, fn, ctx);
  if (ExprPtr m = BindMathOperator(*this, e, ctx)) return m;
  ArithOp op;
  if (e.op == "+")
    op = ArithOp::kAdd;
  else if (e.op == "-")
    op = ArithOp::kSub;
  else if (e.op == "*")
    op = ArithOp::kMul;
  else if (e.op == "/")
    op = ArithOp::kDiv;
  else if (e.op == "%")
    op = ArithOp::kMod;
  else {
    throw DbError(sqlstate::kFeatureNotSupported, "operator " + e.op + " is not supported",
                  e.position);
  }
  // date/timestamp +/- an interval literal (and an interval literal + date):
  // a kDateAdd node, which the optimizer folds and pushes down (TPC-H's
  // date '1998-12-01' - interval '90' day).
  ExprPtr left, right;
  if ((op == ArithOp::kAdd || op == ArithOp::kSub) && IsIntervalLiteral(r)) {
    Type d = Type::Date();
    ExprContext lc = WithHint(ctx, &d);
    left = BindExpr(l, lc);
    const Interval iv = IntervalOfLiteral(r);
    if (left->type.IsDateTime()) {
      try {
        return DateAdd(std::move(left), iv, op == ArithOp::kSub);
      } catch (const DbError& err) {
        RethrowAt(err, e.position);
      }
    }
    right = Constant(Value::String(Type::Interval(), interval::Encode(iv)));
  } else if (op == ArithOp::kAdd && IsIntervalLiteral(l)) {
    ExprContext rc = WithHint(ctx, nullptr);
    right = BindExpr(r, rc);
    const Interval iv = IntervalOfLiteral(l);
    if (right->type.IsDateTime()) {
      try {
        return DateAdd(std::move(right), iv, false);
      } catch (const DbError& err) {
        RethrowAt(err, e.position);
      }
    }
    left = Constant(Value::String(Type::Interval(), interval::Encode(iv)));
  } else if (op == ArithOp::kSub && !IsUnknownTyped(l)) {
    // BindPair's order, with a look at the left side first: jsonb - 'key'
    // must not bind 'key' as jsonb.
    ExprContext lc = WithHint(ctx, nullptr);
    left = BindExpr(l, lc);
    if (left->type.id == TypeId::kJsonb) {
      Type text = Type::Text();
      ExprContext rc = WithHint(ctx, IsUnknownTyped(r) ? &text : nullptr);
      return BindJsonbConcatOrDelete(e, std::move(left), BindExpr(r, rc));
    }
    Type left_type = left->type;
    ExprContext rc = WithHint(ctx, &left_type);
    right = BindExpr(r, rc);
  } else {
    std::tie(left, right) = BindPair(l, r, ctx);
  }
  Type lt = left->type, rt = right->type;
  if (lt.id == TypeId::kInterval || rt.id == TypeId::kInterval) {
    return BindIntervalArith(e, op, std::move(left), std::move(right));
  }
  if (lt.id == TypeId::kTime || rt.id == TypeId::kTime) {
    // time - time (an interval), date + time and time + date (a timestamp).
    const char* fn = nullptr;
    if (op == ArithOp::kSub && lt.id == TypeId::kTime && rt.id == TypeId::kTime) {
      fn = "time_mi_time";
    } else if (op == ArithOp::kAdd && (lt.id == TypeId::kDate || rt.id == TypeId::kDate)) {
      if (lt.id == TypeId::kTime) std::swap(left, right);
      fn = "datetime_pl";
    }
    if (fn == nullptr) NoOperator(lt, e.op, rt, e.position);
    std::vector<ExprPtr> args;
    args.push_back(std::move(left));
    args.push_back(std::move(right));
    return FunctionRegistry::Global().Call(fn, std::move(args), FunctionContext());
  }
  if (lt.IsDateTime() || rt.IsDateTime()) {
    return BindDateArith(e, op, std::move(left), std::move(right));
  }
  bool numeric = lt.IsNumeric() && rt.IsNumeric();
  if (!numeric) {
    throw DbError(sqlstate::kUndefinedFunction,
                  "operator does not exist: " + TypeText(lt) + " " + e.op + " " + TypeText(rt),
                  e.position);
  }
  if (op == ArithOp::kMul && lt.id == TypeId::kDecimal && rt.id == TypeId::kDecimal &&
      lt.scale + rt.scale > kMaxProductScale) {
    // A product's scale is the sum of its operands' (18 digits in all): a
    // literal's trailing fractional zeros (TPC-H Q11's 0.0001000000) would
    // only eat the integer digits.
    TrimConstantScale(&left);
    TrimConstantScale(&right);
  }
  try {
    return Arith(op, std::move(left), std::move(right));
  } catch (const DbError& err) {
    RethrowAt(err, e.position);
  }
}

int64_t Binder::ConstantInt(const sql::Expr& e, const char* what) {
  ExprContext ctx;
  ctx.plan = nullptr;
  ctx.clause = what;
  Type bigint = Type::BigInt();
  ctx.hint = &bigint;
  ExprPtr bound = FoldExpression(BindExpr(e, ctx));
  if (bound->kind != ExprKind::kConstant) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  std::string("argument of ") + what + " must be a constant", e.position);
  }
  if (!bound->type.IsInteger() && !bound->constant.is_null()) {
    try {
      bound = Constant(bound->constant.CastTo(Type::BigInt()));
    } catch (const DbError& err) {
      throw DbError(sqlstate::kDatatypeMismatch,
                    std::string("argument of ") + what + " must be type bigint, not type " +
                        TypeText(bound->type),
                    e.position);
    }
  }
  if (bound->constant.is_null()) return kNoRowLimit;
  int64_t v = bound->constant.GetInt();
  if (v < 0) {
    throw DbError(std::string(what) == "OFFSET" ? "2201X" : "2201W",
                  std::string(what) + " must not be negative");
  }
  return v;
}

void NotSupported(const std::string& what, int position) {
  throw DbError(sqlstate::kFeatureNotSupported, what + " is not supported", position);
}

}  // namespace forktail
