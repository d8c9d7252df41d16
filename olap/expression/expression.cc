#include "olap/expression/expression.h"

#include <algorithm>
#include <cassert>

#include "olap/expression/scalar_function.h"
#include "storage/error.h"
#include "storage/value/decimal.h"

namespace forktail {
namespace {

ExprPtr MakeNode(ExprKind kind, const Type& type) {
  auto e = std::make_unique<Expression>();
  e->kind = kind;
  e->type = type;
  return e;
}

// Casts `e` to `t` unless it already has that type; constants fold.
ExprPtr CastIfNeeded(ExprPtr e, const Type& t) {
  if (e->type == t) return e;
  if (e->type.IsString() && t.IsString()) return e;  // same representation
  return Cast(std::move(e), t);
}

[[noreturn]] void Mismatch(const Type& a, const Type& b, const char* what) {
  throw DbError(sqlstate::kDatatypeMismatch, std::string("operator does not exist: ") +
                                                 a.ToString() + " " + what + " " + b.ToString());
}

}  // namespace

Type DecimalDigits(const Type& t) {
  switch (t.id) {
    case TypeId::kDecimal:
      return t;
    case TypeId::kSmallInt:
      return Type::Decimal(5, 0);
    case TypeId::kInteger:
      return Type::Decimal(10, 0);
    default:
      return Type::Decimal(19, 0);  // BIGINT: 9223372036854775807 has 19 digits
  }
}

Type CommonType(const Type& a, const Type& b, bool for_arith) {
  if (!for_arith && a.IsArrayText() && b.IsArrayText()) {  // int[] and bigint[]: bigint[]
    if (a == b) return a;
    return Type::ArrayText(CommonType(a.ArrayElement(), b.ArrayElement(), false));
  }
  if (a.IsString() && b.IsString() && !for_arith) {
    return a.id == TypeId::kChar && b.id == TypeId::kChar ? a : Type::Text();
  }
  if (a.IsNumeric() && b.IsNumeric()) {
    if (a.id == TypeId::kDouble || b.id == TypeId::kDouble) return Type::Double();
    if (a.id == TypeId::kDecimal || b.id == TypeId::kDecimal) {
      // Room for both sides' integer digits at the larger scale: DECIMAL(18,s)
      // while that fits an int64 (as before 38-digit decimals), else wide.
      int s = std::max(DecimalDigits(a).scale, DecimalDigits(b).scale);
      int int_digits = std::max(DecimalDigits(a).precision - DecimalDigits(a).scale,
                                DecimalDigits(b).precision - DecimalDigits(b).scale);
      if (int_digits + s <= kMaxNarrowDecimalPrecision) {
        return Type::Decimal(kMaxNarrowDecimalPrecision, s);
      }
      return Type::Decimal(std::min(kMaxDecimalPrecision, int_digits + s), s);
    }
    return NumericRank(a.id) >= NumericRank(b.id) ? a : b;
  }
  if (!for_arith && a.id == b.id) return a;
  if (!for_arith && a.IsDateTime() && b.IsDateTime()) {
    // PostgreSQL's preferred type of the category wins: timestamptz.
    bool zoned = a.id == TypeId::kTimestampTz || b.id == TypeId::kTimestampTz;
    return zoned ? Type::TimestampTz() : Type::Timestamp();
  }
  Mismatch(a, b, for_arith ? "+" : "=");
}

ExprPtr ColumnRef(uint32_t column, const Type& type) {
  auto e = MakeNode(ExprKind::kColumnRef, type);
  e->column = column;
  return e;
}

ExprPtr Constant(Value v) {
  auto e = MakeNode(ExprKind::kConstant, v.type());
  e->constant = std::move(v);
  return e;
}

ExprPtr Arith(ArithOp op, ExprPtr left, ExprPtr right) {
  Type common = CommonType(left->type, right->type, true);
  if (common.id == TypeId::kDouble && op == ArithOp::kMod) {
    Mismatch(left->type, right->type, "%");
  }
  Type result = common;
  if (common.id == TypeId::kDecimal) {
    // Integers become the narrowest DECIMAL holding them; decimal operands
    // keep their own scales (the kernel aligns them).
    auto as_decimal = [](ExprPtr x) {
      if (x->type.id == TypeId::kDecimal) return x;
      Type t = DecimalDigits(x->type);
      return Cast(std::move(x), t);
    };
    left = as_decimal(std::move(left));
    right = as_decimal(std::move(right));
    const Type& a = left->type;
    const Type& b = right->type;
    switch (op) {
      case ArithOp::kAdd:
        result = decimal::AddResultType(a, b);
        break;
      case ArithOp::kSub:
        result = decimal::SubResultType(a, b);
        break;
      case ArithOp::kMul:
        result = decimal::MulResultType(a, b);
        break;
      case ArithOp::kDiv:
        result = decimal::DivResultType(a, b);
        break;
      case ArithOp::kMod:
        result = decimal::ModResultType(a, b);
        break;
    }
    auto e = MakeNode(ExprKind::kArith, result);
    e->arith = op;
    e->children.push_back(std::move(left));
    e->children.push_back(std::move(right));
    return e;
  }
  auto e = MakeNode(ExprKind::kArith, result);
  e->arith = op;
  e->children.push_back(CastIfNeeded(std::move(left), common));
  e->children.push_back(CastIfNeeded(std::move(right), common));
  return e;
}

CompareOp FlipComparison(CompareOp op) {
  switch (op) {
    case CompareOp::kLt:
      return CompareOp::kGt;
    case CompareOp::kLe:
      return CompareOp::kGe;
    case CompareOp::kGt:
      return CompareOp::kLt;
    case CompareOp::kGe:
      return CompareOp::kLe;
    default:
      return op;
  }
}

ExprPtr Compare(CompareOp op, ExprPtr left, ExprPtr right) {
  Type common = CommonType(left->type, right->type, false);
  auto e = MakeNode(ExprKind::kCompare, Type::Boolean());
  e->compare = op;
  // CHAR semantics (ignore trailing blanks) apply if either side is CHAR.
  if (left->type.id == TypeId::kChar || right->type.id == TypeId::kChar) {
    common = Type::Char(0);
  }
  e->children.push_back(CastIfNeeded(std::move(left), common));
  e->children.push_back(CastIfNeeded(std::move(right), common));
  return e;
}

static ExprPtr Logic(ExprKind kind, ExprPtr l, ExprPtr r) {
  if (l->type.id != TypeId::kBoolean || r->type.id != TypeId::kBoolean) {
    throw DbError(sqlstate::kDatatypeMismatch, "argument of AND/OR must be type boolean");
  }
  auto e = MakeNode(kind, Type::Boolean());
  e->children.push_back(std::move(l));
  e->children.push_back(std::move(r));
  return e;
}

ExprPtr And(ExprPtr left, ExprPtr right) {
  return Logic(ExprKind::kAnd, std::move(left), std::move(right));
}
ExprPtr Or(ExprPtr left, ExprPtr right) {
  return Logic(ExprKind::kOr, std::move(left), std::move(right));
}

ExprPtr Not(ExprPtr child) {
  if (child->type.id != TypeId::kBoolean) {
    throw DbError(sqlstate::kDatatypeMismatch, "argument of NOT must be type boolean");
  }
  auto e = MakeNode(ExprKind::kNot, Type::Boolean());
  e->children.push_back(std::move(child));
  return e;
}

ExprPtr IsNull(ExprPtr child, bool negated) {
  auto e = MakeNode(ExprKind::kIsNull, Type::Boolean());
  e->negated = negated;
  e->children.push_back(std::move(child));
  return e;
}

ExprPtr In(ExprPtr child, std::vector<Value> list, bool negated) {
  auto e = MakeNode(ExprKind::kIn, Type::Boolean());
  e->negated = negated;
  for (Value& v : list) {
    if (!v.is_null() && !(v.type() == child->type) &&
        !(v.type().IsString() && child->type.IsString())) {
      // Constant folding of the cast happens through a one-row evaluation.
      throw DbError(sqlstate::kDatatypeMismatch, "IN list value of type " + v.type().ToString() +
                                                     " does not match " + child->type.ToString());
    }
  }
  e->in_list = std::move(list);
  e->children.push_back(std::move(child));
  return e;
}

ExprPtr Like(ExprPtr child, std::string pattern, bool negated, char escape) {
  if (!child->type.IsString()) {
    throw DbError(sqlstate::kDatatypeMismatch,
                  "operator does not exist: " + child->type.ToString() + " ~~ unknown");
  }
  auto e = MakeNode(ExprKind::kLike, Type::Boolean());
  e->negated = negated;
  e->pattern = std::move(pattern);
  e->escape = escape;
  e->children.push_back(std::move(child));
  return e;
}

ExprPtr Case(std::vector<std::pair<ExprPtr, ExprPtr>> whens, ExprPtr else_result) {
  assert(!whens.empty());
  Type t = whens[0].second->type;
  for (auto& w : whens) t = CommonType(t, w.second->type, false);
  if (else_result != nullptr) t = CommonType(t, else_result->type, false);
  if (t.IsString()) t = Type::Text();
  auto e = MakeNode(ExprKind::kCase, t);
  for (auto& w : whens) {
    if (w.first->type.id != TypeId::kBoolean) {
      throw DbError(sqlstate::kDatatypeMismatch, "argument of CASE/WHEN must be type boolean");
    }
    e->children.push_back(std::move(w.first));
    e->children.push_back(CastIfNeeded(std::move(w.second), t));
  }
  e->children.push_back(else_result == nullptr ? Constant(Value::Null(t))
                                               : CastIfNeeded(std::move(else_result), t));
  return e;
}

ExprPtr Cast(ExprPtr child, const Type& target) {
  if (child->kind == ExprKind::kConstant && child->constant.is_null()) {
    return Constant(Value::Null(target));
  }
  auto e = MakeNode(ExprKind::kCast, target);
  if (target.id == TypeId::kTimestampTz || child->type.id == TypeId::kTimestampTz) {
    e->zone = datetime::CurrentTimeZonePtr();
  }
  e->children.push_back(std::move(child));
  return e;
}

ExprPtr DateAdd(ExprPtr child, Interval interval, bool subtract) {
  if (!child->type.IsDateTime()) {
    throw DbError(sqlstate::kDatatypeMismatch,
                  "operator does not exist: " + child->type.ToString() + " + interval");
  }
  if (subtract) {
    interval.months = -interval.months;
    interval.days = -interval.days;
    interval.micros = -interval.micros;
  }
  const bool zoned = child->type.id == TypeId::kTimestampTz;
  auto e = MakeNode(ExprKind::kDateAdd, zoned ? Type::TimestampTz() : Type::Timestamp());
  if (zoned) e->zone = datetime::CurrentTimeZonePtr();
  e->interval = interval;
  e->children.push_back(std::move(child));
  return e;
}

ExprPtr Extract(DateField field, ExprPtr child) {
  if (!child->type.IsDateTime()) {
    throw DbError(sqlstate::kDatatypeMismatch,
                  "function extract(unknown, " + child->type.ToString() + ") does not exist");
  }
  // SECOND and EPOCH of a timestamp keep their microseconds: numeric with 6
  // decimals, as PostgreSQL's extract (the other fields are integers).
  const bool fraction = (field == DateField::kSecond || field == DateField::kEpoch) &&
                        child->type.id != TypeId::kDate;
  auto e = MakeNode(ExprKind::kExtract,
                    fraction ? Type::Decimal(kMaxNarrowDecimalPrecision, 6) : Type::BigInt());
  if (child->type.id == TypeId::kTimestampTz) e->zone = datetime::CurrentTimeZonePtr();
  e->field = field;
  e->children.push_back(std::move(child));
  return e;
}

ExprPtr Substring(ExprPtr s, ExprPtr start, ExprPtr length) {
  if (!s->type.IsString()) {
    throw DbError(sqlstate::kDatatypeMismatch, "function substring requires a string argument");
  }
  auto e = MakeNode(ExprKind::kSubstring, Type::Text());
  e->children.push_back(std::move(s));
  e->children.push_back(CastIfNeeded(std::move(start), Type::BigInt()));
  if (length != nullptr) e->children.push_back(CastIfNeeded(std::move(length), Type::BigInt()));
  return e;
}

ExprPtr Coalesce(std::vector<ExprPtr> args) {
  assert(!args.empty());
  Type t = args[0]->type;
  for (auto& a : args) t = CommonType(t, a->type, false);
  if (t.IsString()) t = Type::Text();
  auto e = MakeNode(ExprKind::kCoalesce, t);
  for (auto& a : args) e->children.push_back(CastIfNeeded(std::move(a), t));
  return e;
}

ExprPtr Function(std::shared_ptr<const ScalarFunction> function, std::vector<ExprPtr> args) {
  auto e = MakeNode(ExprKind::kFunction, function->result_type());
  e->function = std::move(function);
  e->children = std::move(args);
  return e;
}

const char* CompareSymbol(CompareOp op) {
  switch (op) {
    case CompareOp::kEq:
      return "=";
    case CompareOp::kNe:
      return "<>";
    case CompareOp::kLt:
      return "<";
    case CompareOp::kLe:
      return "<=";
    case CompareOp::kGt:
      return ">";
    case CompareOp::kGe:
      return ">=";
  }
  return "?";
}

int NumericRank(TypeId id) {
  switch (id) {
    case TypeId::kSmallInt:
      return 1;
    case TypeId::kInteger:
      return 2;
    case TypeId::kBigInt:
      return 3;
    case TypeId::kDecimal:
      return 4;
    case TypeId::kDouble:
      return 5;
    default:
      return 0;
  }
}

ExprPtr CloneExpr(const Expression& e) {
  auto c = std::make_unique<Expression>();
  c->kind = e.kind;
  c->type = e.type;
  c->column = e.column;
  c->constant = e.constant;
  c->arith = e.arith;
  c->compare = e.compare;
  c->negated = e.negated;
  c->in_list = e.in_list;
  c->pattern = e.pattern;
  c->escape = e.escape;
  c->interval = e.interval;
  c->field = e.field;
  c->function = e.function;
  c->zone = e.zone;
  c->parameter = e.parameter;
  for (const ExprPtr& child : e.children) {
    c->children.push_back(child ? CloneExpr(*child) : nullptr);
  }
  return c;
}

}  // namespace forktail
