// A plain row-at-a-time evaluator of bound expressions over forktail::Value,
// the reference the vectorized kernels are tested against. Written for
// clarity, not speed; dates go through the C library (gmtime/timegm).
#pragma once

#include <ctime>

#include "olap/olap.h"
#include "storage/error.h"
#include "tests/olap/execution/test_data.h"

namespace forktail::test {

inline __int128 Pow10(int k) {
  __int128 r = 1;
  while (k-- > 0) r *= 10;
  return r;
}
inline __int128 RoundDiv(__int128 n, __int128 d) {
  // Half away from zero, via magnitudes.
  bool neg = (n < 0) != (d < 0);
  __int128 an = n < 0 ? -n : n, ad = d < 0 ? -d : d;
  __int128 q = (2 * an + ad) / (2 * ad);
  return neg ? -q : q;
}

inline Value RefEval(const Expression& e, const Row& row);

inline bool IsTrue(const Value& v) { return !v.is_null() && v.GetBool(); }

// Decimal results are checked against `digits` (arithmetic: 18, as
// storage/value/decimal.h; casts: the target precision).
inline Value MakeOfType(const Type& t, __int128 i, double d = 0, int digits = 0) {
  switch (t.id) {
    case TypeId::kBoolean:
      return Value::Boolean(i != 0);
    case TypeId::kSmallInt:
      if (i < INT16_MIN || i > INT16_MAX) throw DbError("22003", "smallint out of range");
      return Value::SmallInt(static_cast<int16_t>(i));
    case TypeId::kInteger:
      if (i < INT32_MIN || i > INT32_MAX) throw DbError("22003", "integer out of range");
      return Value::Integer(static_cast<int32_t>(i));
    case TypeId::kBigInt:
      if (i < INT64_MIN || i > INT64_MAX) throw DbError("22003", "bigint out of range");
      return Value::BigInt(static_cast<int64_t>(i));
    case TypeId::kDecimal:
      if (digits == 0) digits = t.precision;
      if (i >= Pow10(digits) || i <= -Pow10(digits)) {
        throw DbError("22003", "numeric field overflow");
      }
      return Value::Decimal(static_cast<int64_t>(i), t.precision, t.scale);
    case TypeId::kDouble:
      return Value::Double(d);
    case TypeId::kDate:
      return Value::Date(static_cast<int32_t>(i));
    case TypeId::kTimestamp:
      return Value::Timestamp(static_cast<int64_t>(i));
    default:
      abort();
  }
}

inline int ScaleOf(const Value& v) { return v.type().id == TypeId::kDecimal ? v.type().scale : 0; }
inline double AsDouble(const Value& v) {
  if (v.type().id == TypeId::kDouble) return v.GetDouble();
  return static_cast<double>(v.GetInt()) / static_cast<double>(Pow10(ScaleOf(v)));
}
inline std::string_view AsString(const Value& v, bool trim) {
  std::string_view s = v.GetString();
  if (trim) {
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  }
  return s;
}

inline int RefCompare(const Value& a, const Value& b, bool trim) {
  if (a.type().IsString()) {
    std::string_view x = AsString(a, trim), y = AsString(b, trim);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.type().id == TypeId::kDouble || b.type().id == TypeId::kDouble) {
    double x = AsDouble(a), y = AsDouble(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  int s = std::max(ScaleOf(a), ScaleOf(b));
  __int128 x = a.GetInt() * Pow10(s - ScaleOf(a)), y = b.GetInt() * Pow10(s - ScaleOf(b));
  if (a.type().id == TypeId::kTimestamp && b.type().id == TypeId::kDate) y *= 86400000000LL;
  if (a.type().id == TypeId::kDate && b.type().id == TypeId::kTimestamp) x *= 86400000000LL;
  return x < y ? -1 : x > y ? 1 : 0;
}

inline bool RefLike(std::string_view s, std::string_view p, char esc) {
  if (p.empty()) return s.empty();
  if (p[0] == '%') {
    for (size_t i = 0; i <= s.size(); ++i) {
      if (RefLike(s.substr(i), p.substr(1), esc)) return true;
    }
    return false;
  }
  if (s.empty()) return false;
  if (esc != 0 && p[0] == esc) return s[0] == p[1] && RefLike(s.substr(1), p.substr(2), esc);
  if (p[0] == '_' || p[0] == s[0]) return RefLike(s.substr(1), p.substr(1), esc);
  return false;
}

inline void Civil(int64_t days, std::tm* tm) {
  time_t t = static_cast<time_t>(days) * 86400;
  gmtime_r(&t, tm);
}
inline int64_t DaysOf(int y, int m, int d) {
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = m - 1;
  tm.tm_mday = d;
  return static_cast<int64_t>(timegm(&tm)) / 86400;
}

inline Value RefCast(const Value& v, const Type& to) {
  if (v.is_null()) return Value::Null(to);
  const Type& from = v.type();
  if (to.IsString()) {
    std::string s;
    if (from.IsString())
      s = std::string(v.GetString());
    else if (from.id == TypeId::kDecimal) {
      int64_t x = v.GetInt();
      std::string digits = std::to_string(x < 0 ? -x : x);
      while (digits.size() <= from.scale) digits = "0" + digits;
      if (from.scale > 0) digits.insert(digits.size() - from.scale, ".");
      s = (x < 0 ? "-" : "") + digits;
    } else if (from.IsInteger())
      s = std::to_string(v.GetInt());
    else
      abort();
    return Value::String(to, s);
  }
  if (to.id == TypeId::kDouble) return Value::Double(AsDouble(v));
  if (from.id == TypeId::kDouble) {
    double r = std::round(v.GetDouble() *
                          static_cast<double>(Pow10(to.id == TypeId::kDecimal ? to.scale : 0)));
    return MakeOfType(to, static_cast<__int128>(r));
  }
  if (to.id == TypeId::kTimestamp && from.id == TypeId::kDate)
    return Value::Timestamp(v.GetInt() * 86400000000LL);
  int ts = to.id == TypeId::kDecimal ? to.scale : 0, fs = ScaleOf(v);
  __int128 x = v.GetInt();
  x = ts >= fs ? x * Pow10(ts - fs) : RoundDiv(x, Pow10(fs - ts));
  return MakeOfType(to, x);
}

inline Value RefEval(const Expression& e, const Row& row) {
  auto child = [&](size_t i) { return RefEval(*e.children[i], row); };
  switch (e.kind) {
    case ExprKind::kColumnRef:
      return row[e.column];
    case ExprKind::kConstant:
      return e.constant;
    case ExprKind::kCast:
      return RefCast(child(0), e.type);
    case ExprKind::kArith: {
      Value a = child(0), b = child(1);
      if (a.is_null() || b.is_null()) return Value::Null(e.type);
      if (e.type.id == TypeId::kDouble) {
        double x = a.GetDouble(), y = b.GetDouble();
        if (e.arith == ArithOp::kDiv && y == 0) throw DbError("22012", "division by zero");
        double r = e.arith == ArithOp::kAdd   ? x + y
                   : e.arith == ArithOp::kSub ? x - y
                   : e.arith == ArithOp::kMul ? x * y
                                              : x / y;
        return Value::Double(r);
      }
      int sa = ScaleOf(a), sb = ScaleOf(b), so = ScaleOf(Value::Null(e.type));
      if (e.type.id == TypeId::kDecimal) so = e.type.scale;
      __int128 x = a.GetInt(), y = b.GetInt(), r = 0;
      int s = std::max(sa, sb);
      if ((e.arith == ArithOp::kDiv || e.arith == ArithOp::kMod) && y == 0) {
        throw DbError("22012", "division by zero");
      }
      switch (e.arith) {
        case ArithOp::kAdd:
          r = x * Pow10(s - sa) + y * Pow10(s - sb);
          break;
        case ArithOp::kSub:
          r = x * Pow10(s - sa) - y * Pow10(s - sb);
          break;
        case ArithOp::kMul:
          r = x * y;
          s = sa + sb;
          break;
        case ArithOp::kDiv:
          if (e.type.id != TypeId::kDecimal) {
            r = x / y;
            break;
          }
          r = RoundDiv(x * Pow10(so + sb - sa), y);
          s = so;
          break;
        case ArithOp::kMod:
          r = (x * Pow10(s - sa)) % (y * Pow10(s - sb));
          break;
      }
      if (e.type.id == TypeId::kDecimal)
        r = so >= s ? r * Pow10(so - s) : RoundDiv(r, Pow10(s - so));
      return MakeOfType(e.type, r, 0, 18);
    }
    case ExprKind::kCompare: {
      Value a = child(0), b = child(1);
      if (a.is_null() || b.is_null()) return Value::Null(Type::Boolean());
      bool trim = a.type().id == TypeId::kChar || b.type().id == TypeId::kChar;
      int c = RefCompare(a, b, trim);
      bool r = e.compare == CompareOp::kEq   ? c == 0
               : e.compare == CompareOp::kNe ? c != 0
               : e.compare == CompareOp::kLt ? c < 0
               : e.compare == CompareOp::kLe ? c <= 0
               : e.compare == CompareOp::kGt ? c > 0
                                             : c >= 0;
      return Value::Boolean(r);
    }
    case ExprKind::kAnd:
    case ExprKind::kOr: {
      Value a = child(0), b = child(1);
      bool is_and = e.kind == ExprKind::kAnd;
      bool dom = is_and ? false : true;
      if ((!a.is_null() && a.GetBool() == dom) || (!b.is_null() && b.GetBool() == dom))
        return Value::Boolean(dom);
      if (a.is_null() || b.is_null()) return Value::Null(Type::Boolean());
      return Value::Boolean(!dom);
    }
    case ExprKind::kNot: {
      Value a = child(0);
      return a.is_null() ? a : Value::Boolean(!a.GetBool());
    }
    case ExprKind::kIsNull:
      return Value::Boolean(child(0).is_null() != e.negated);
    case ExprKind::kIn: {
      Value a = child(0);
      if (a.is_null()) return Value::Null(Type::Boolean());
      bool found = false, saw_null = false;
      for (const Value& c : e.in_list) {
        if (c.is_null())
          saw_null = true;
        else if (RefCompare(a, c, a.type().id == TypeId::kChar) == 0)
          found = true;
      }
      if (!found && saw_null) return Value::Null(Type::Boolean());
      return Value::Boolean(found != e.negated);
    }
    case ExprKind::kLike: {
      Value a = child(0);
      if (a.is_null()) return Value::Null(Type::Boolean());
      return Value::Boolean(RefLike(a.GetString(), e.pattern, e.escape) != e.negated);
    }
    case ExprKind::kCase: {
      size_t n = (e.children.size() - 1) / 2;
      for (size_t w = 0; w < n; ++w) {
        if (IsTrue(child(2 * w))) return child(2 * w + 1);
      }
      return child(e.children.size() - 1);
    }
    case ExprKind::kCoalesce:
      for (size_t i = 0; i < e.children.size(); ++i) {
        Value v = child(i);
        if (!v.is_null()) return v;
      }
      return Value::Null(e.type);
    case ExprKind::kDateAdd: {
      Value a = child(0);
      if (a.is_null()) return Value::Null(e.type);
      int64_t micros = a.type().id == TypeId::kDate ? a.GetInt() * 86400000000LL : a.GetInt();
      int64_t day =
          micros >= 0 ? micros / 86400000000LL : -((-micros + 86399999999LL) / 86400000000LL);
      int64_t tod = micros - day * 86400000000LL;
      std::tm tm;
      Civil(day, &tm);
      int months = tm.tm_year * 12 + tm.tm_mon + e.interval.months;
      int y = months / 12 + 1900, m = months % 12 + 1;
      int last =
          static_cast<int>(DaysOf(m == 12 ? y + 1 : y, m == 12 ? 1 : m + 1, 1) - DaysOf(y, m, 1));
      int64_t nd = DaysOf(y, m, std::min(tm.tm_mday, last)) + e.interval.days;
      if (e.type.id == TypeId::kDate) return Value::Date(static_cast<int32_t>(nd));
      return Value::Timestamp(nd * 86400000000LL + tod + e.interval.micros);
    }
    case ExprKind::kExtract: {
      Value a = child(0);
      if (a.is_null()) return Value::Null(Type::BigInt());
      int64_t micros = a.type().id == TypeId::kDate ? a.GetInt() * 86400000000LL : a.GetInt();
      time_t secs =
          static_cast<time_t>(micros >= 0 ? micros / 1000000 : -((-micros + 999999) / 1000000));
      std::tm tm;
      gmtime_r(&secs, &tm);
      int64_t r = 0;
      switch (e.field) {
        case DateField::kEpoch:
          r = secs;
          break;
        case DateField::kYear:
          r = tm.tm_year + 1900;
          break;
        case DateField::kQuarter:
          r = tm.tm_mon / 3 + 1;
          break;
        case DateField::kMonth:
          r = tm.tm_mon + 1;
          break;
        case DateField::kDay:
          r = tm.tm_mday;
          break;
        case DateField::kHour:
          r = tm.tm_hour;
          break;
        case DateField::kMinute:
          r = tm.tm_min;
          break;
        case DateField::kSecond:
          r = tm.tm_sec;
          break;
        case DateField::kDow:
          r = tm.tm_wday;
          break;
        case DateField::kDoy:
          r = tm.tm_yday + 1;
          break;
      }
      return Value::BigInt(r);
    }
    case ExprKind::kFunction:
      break;  // not modelled: scalar functions have their own tests (tests/sql)
    case ExprKind::kSubstring: {
      Value s = child(0), st = child(1);
      Value len = e.children.size() > 2 ? child(2) : Value::BigInt(INT32_MAX);
      if (s.is_null() || st.is_null() || len.is_null()) return Value::Null(e.type);
      if (len.GetInt() < 0) throw DbError("22011", "negative substring length not allowed");
      std::string str(s.GetString());
      std::string out;
      for (int64_t pos = 1; pos <= static_cast<int64_t>(str.size()); ++pos) {
        if (pos >= st.GetInt() && pos < st.GetInt() + len.GetInt()) out += str[pos - 1];
      }
      return Value::String(e.type, out);
    }
  }
  abort();
}

}  // namespace forktail::test
