// Value: text input/output (PostgreSQL 15 rules), casts, comparison and
// hashing. The DECIMAL and DATE/TIMESTAMP text codecs live in decimal.cc and
// datetime.cc.
#include "storage/value/value.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "storage/error.h"
#include "storage/value/array_text.h"
#include "storage/value/bytea.h"
#include "storage/value/datetime.h"
#include "storage/value/decimal.h"
#include "storage/value/interval.h"
#include "storage/value/jsonb.h"
#include "storage/value/timezone.h"
#include "storage/value/utf8.h"
#include "storage/value/uuid.h"

namespace forktail {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool IEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// True if `s` is a non-empty case-insensitive prefix of `word` at least `min` long.
bool IsPrefixOf(std::string_view s, std::string_view word, size_t min = 1) {
  return s.size() >= min && s.size() <= word.size() && IEquals(s, word.substr(0, s.size()));
}

bool ParseBool(std::string_view text) {
  std::string_view s = Trim(text);
  // PostgreSQL's parse_bool: any unique prefix of the words.
  if (IsPrefixOf(s, "true") || IsPrefixOf(s, "yes") || IsPrefixOf(s, "on", 2) || s == "1") {
    return true;
  }
  if (IsPrefixOf(s, "false") || IsPrefixOf(s, "no") || IsPrefixOf(s, "off", 2) || s == "0") {
    return false;
  }
  throw DbError(sqlstate::kInvalidTextRepresentation,
                fmt::format("invalid input syntax for type boolean: \"{}\"", text));
}

int64_t ParseInt(std::string_view text, const Type& type, int64_t lo, int64_t hi) {
  std::string_view s = Trim(text);
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  uint64_t mag = 0;
  bool overflow = false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), mag);
  if (s.empty() || s[0] < '0' || s[0] > '9' || end != s.data() + s.size()) {
    throw DbError(sqlstate::kInvalidTextRepresentation,
                  fmt::format("invalid input syntax for type {}: \"{}\"", type.ToString(), text));
  }
  overflow = ec == std::errc::result_out_of_range;
  uint64_t limit = negative ? static_cast<uint64_t>(-(lo + 1)) + 1 : static_cast<uint64_t>(hi);
  if (overflow || mag > limit) {
    throw DbError(sqlstate::kNumericValueOutOfRange,
                  fmt::format("value \"{}\" is out of range for type {}", text, type.ToString()));
  }
  return negative ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
}

double ParseDouble(std::string_view text) {
  std::string_view s = Trim(text);
  auto syntax = [&] {
    return DbError(sqlstate::kInvalidTextRepresentation,
                   fmt::format("invalid input syntax for type double precision: \"{}\"", text));
  };
  bool negative = false;
  std::string_view body = s;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body.empty() || body[0] == '+' || body[0] == '-') throw syntax();
  double d = 0;
  auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), d);
  if (end != body.data() + body.size()) throw syntax();
  if (ec == std::errc::result_out_of_range) {
    throw DbError(sqlstate::kNumericValueOutOfRange,
                  fmt::format("\"{}\" is out of range for type double precision", text));
  }
  if (ec != std::errc()) throw syntax();
  return negative ? -d : d;
}

// PostgreSQL's float8out with extra_float_digits = 1: the shortest digits that
// round-trip, fixed notation when the decimal exponent is in [-4, 15),
// otherwise d.ddde+XX with at least two exponent digits.
std::string FormatDouble(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  if (d == 0) return std::signbit(d) ? "-0" : "0";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string_view sci(buf, r.ptr - buf);  // "-1.2345e+02"
  bool negative = sci[0] == '-';
  if (negative) sci.remove_prefix(1);
  size_t e_pos = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e_pos)) {
    if (c != '.') digits.push_back(c);
  }
  int exp = 0;
  std::string_view e_text = sci.substr(e_pos + 1);
  if (e_text[0] == '+') e_text.remove_prefix(1);
  std::from_chars(e_text.data(), e_text.data() + e_text.size(), exp);
  std::string out = negative ? "-" : "";
  int n = static_cast<int>(digits.size());
  if (exp >= -4 && exp < 15) {
    if (exp < 0) {
      out += "0.";
      out.append(-exp - 1, '0');
      out += digits;
    } else if (exp + 1 >= n) {
      out += digits;
      out.append(exp + 1 - n, '0');
    } else {
      out += digits.substr(0, exp + 1);
      out += '.';
      out += digits.substr(exp + 1);
    }
    return out;
  }
  out += digits[0];
  if (n > 1) {
    out += '.';
    out += digits.substr(1);
  }
  out += fmt::format("e{}{:02d}", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
  return out;
}

// CHAR(n)/VARCHAR(n) assignment: too long is an error unless only blanks are
// cut; CHAR pads with blanks. Lengths count UTF-8 characters.
std::string FitString(const Type& type, std::string_view s) {
  if (type.length == 0 || type.id == TypeId::kText) return std::string(s);
  size_t len = Utf8Length(s);
  if (len > type.length) {
    size_t cut = Utf8Offset(s, type.length);
    if (s.find_first_not_of(' ', cut) != std::string_view::npos) {
      throw DbError(sqlstate::kStringDataRightTruncation,
                    fmt::format("value too long for type {}", type.ToString()));
    }
    return std::string(s.substr(0, cut));
  }
  std::string out(s);
  if (type.id == TypeId::kChar) out.append(type.length - len, ' ');
  return out;
}

std::string_view StripTrailingBlanks(std::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

enum class Family { kBoolean, kNumeric, kString, kDateTime };

Family FamilyOf(const Type& t) {
  if (t.id == TypeId::kBoolean) return Family::kBoolean;
  if (t.IsNumeric()) return Family::kNumeric;
  if (t.StoredAsString()) return Family::kString;
  return Family::kDateTime;
}

template <typename T>
int Cmp(T a, T b) {
  return (a > b) - (a < b);
}

// NaN sorts above every other double and equals itself; -0 == 0 (PostgreSQL).
int CompareDoubles(double a, double b) {
  bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return Cmp<int>(na, nb);
  return Cmp(a, b);
}

// An exact-or-nearest long double of a numeric value (x86 long double holds
// every int64 exactly).
long double NumericAsLongDouble(const Value& v) {
  switch (v.type().id) {
    case TypeId::kDouble:
      return v.GetDouble();
    case TypeId::kDecimal:
      return static_cast<long double>(v.GetWide()) /
             static_cast<long double>(decimal::Pow10Wide(v.type().scale));
    default:
      return static_cast<long double>(v.GetInt());
  }
}

int CompareNumeric(const Value& a, const Value& b) {
  bool da = a.type().id == TypeId::kDouble, db = b.type().id == TypeId::kDouble;
  if (da && db) return CompareDoubles(a.GetDouble(), b.GetDouble());
  if (da || db) {
    double d = da ? a.GetDouble() : b.GetDouble();
    if (std::isnan(d)) return da ? 1 : -1;
    long double x = NumericAsLongDouble(a), y = NumericAsLongDouble(b);
    return Cmp(x, y);
  }
  // Integers and decimals: exact, aligned to the larger scale in 128 bits.
  // A side whose alignment passes 2^127 is larger in magnitude than any
  // 38-digit value, so its sign decides.
  int sa = a.type().id == TypeId::kDecimal ? a.type().scale : 0;
  int sb = b.type().id == TypeId::kDecimal ? b.type().scale : 0;
  int s = std::max(sa, sb);
  __int128 x, y;
  if (__builtin_mul_overflow(a.GetWide(), decimal::Pow10Wide(s - sa), &x)) {
    return a.GetWide() < 0 ? -1 : 1;
  }
  if (__builtin_mul_overflow(b.GetWide(), decimal::Pow10Wide(s - sb), &y)) {
    return b.GetWide() < 0 ? 1 : -1;
  }
  return Cmp(x, y);
}

uint64_t HashBytes(const void* p, size_t n, uint64_t seed) {
  return XXH3_64bits_withSeed(p, n, seed);
}

uint64_t HashInt(int64_t v) { return HashBytes(&v, sizeof(v), 0x6e756d); }

uint64_t HashDouble(double d) { return HashBytes(&d, sizeof(d), 0x64626c); }

[[noreturn]] void ThrowCannotCast(const Type& from, const Type& to) {
  throw DbError("42846", fmt::format("cannot cast type {} to {}", from.ToString(), to.ToString()));
}

// Range check for a cast into an integer type (PostgreSQL: "integer out of range").
int64_t CheckIntRange(__int128 v, const Type& target) {
  int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  if (target.id == TypeId::kSmallInt) {
    lo = std::numeric_limits<int16_t>::min();
    hi = std::numeric_limits<int16_t>::max();
  } else if (target.id == TypeId::kInteger) {
    lo = std::numeric_limits<int32_t>::min();
    hi = std::numeric_limits<int32_t>::max();
  }
  if (v < lo || v > hi) {
    throw DbError(sqlstate::kNumericValueOutOfRange,
                  fmt::format("{} out of range", target.ToString()));
  }
  return static_cast<int64_t>(v);
}

}  // namespace

Value Value::Parse(const Type& type, std::string_view text) {
  switch (type.id) {
    case TypeId::kBoolean:
      return Boolean(ParseBool(text));
    case TypeId::kSmallInt:
      return Value(type, ParseInt(text, type, std::numeric_limits<int16_t>::min(),
                                  std::numeric_limits<int16_t>::max()));
    case TypeId::kInteger:
      return Value(type, ParseInt(text, type, std::numeric_limits<int32_t>::min(),
                                  std::numeric_limits<int32_t>::max()));
    case TypeId::kBigInt:
      return Value(type, ParseInt(text, type, std::numeric_limits<int64_t>::min(),
                                  std::numeric_limits<int64_t>::max()));
    case TypeId::kDouble:
      return Double(ParseDouble(text));
    case TypeId::kDecimal:
      return Decimal(decimal::ParseWide(text, type.precision, type.scale), type.precision,
                     type.scale);
    case TypeId::kChar:
    case TypeId::kVarchar:
    case TypeId::kText:
      if (type.IsArrayText() && !type.IsCatalogArrayText()) {
        return String(type, CanonicalArrayText(text, type.ArrayElement()));
      }
      return String(type, FitString(type, text));
    case TypeId::kDate:
      return Date(datetime::ParseDate(text));
    case TypeId::kTimestamp:
      return Timestamp(datetime::ParseTimestamp(text));
    case TypeId::kTimestampTz:
      return TimestampTz(datetime::ParseTimestampTz(text, datetime::CurrentTimeZone()));
    case TypeId::kJsonb:
      return String(type, jsonb::Canonicalize(text));
    case TypeId::kUuid:
      return String(type, uuid::Canonicalize(text));
    case TypeId::kBytea:
      return String(type, bytea::Parse(text));
    case TypeId::kInterval:
      return String(type, interval::Encode(datetime::ParseInterval(text)));
    case TypeId::kTime:
      return String(type, datetime::EncodeTime(datetime::ParseTime(text)));
    case TypeId::kJson:  // json keeps its text as written, once it is valid json
      jsonb::Parse(text);
      return String(type, std::string(text));
  }
  throw DbError(sqlstate::kInternalError, "unknown type");
}

std::string Value::ToString() const {
  assert(!null_ && "Value::ToString of NULL");
  switch (type_.id) {
    case TypeId::kBoolean:
      return i_ ? "t" : "f";
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kBigInt:
      return std::to_string(i_);
    case TypeId::kDouble:
      return FormatDouble(d_);
    case TypeId::kDecimal:
      return decimal::FormatWide(GetWide(), type_.scale);
    case TypeId::kChar:
    case TypeId::kVarchar:
    case TypeId::kText:
    case TypeId::kJsonb:
    case TypeId::kJson:
    case TypeId::kUuid:
      return s_;
    case TypeId::kBytea:
      return bytea::FormatHex(s_);
    case TypeId::kInterval:
      return datetime::FormatInterval(interval::Decode(s_));
    case TypeId::kTime:
      return datetime::FormatTime(datetime::DecodeTime(s_));
    case TypeId::kDate:
      return datetime::FormatDate(static_cast<int32_t>(i_));
    case TypeId::kTimestamp:
      return datetime::FormatTimestamp(i_);
    case TypeId::kTimestampTz:
      return datetime::FormatTimestampTz(i_, datetime::CurrentTimeZone());
  }
  return "";
}

// Casts between families go through text (PostgreSQL's I/O conversion);
// within the numeric family they are exact where possible and otherwise round
// as PostgreSQL does: DECIMAL half away from zero, DOUBLE half to even (rint). Casting to
// CHAR(n)/VARCHAR(n) applies the *assignment* rule (too long -> 22001 unless only blanks are cut):
// Forktail uses CastTo for INSERT and UPDATE, where silent truncation would lose data. SQL's
// explicit casts cut to n characters before (the binder's ::varchar(n), PostgreSQL's rule).
Value Value::CastTo(const Type& target) const {
  if (null_) return Null(target);
  Family src = FamilyOf(type_), dst = FamilyOf(target);
  // To an array: array_in over the text form (an array of another element
  // type too), so a stored array is always canonical and valid.
  if (target.IsArrayText() && !target.IsCatalogArrayText() && type_ != target) {
    if (!type_.IsString()) ThrowCannotCast(type_, target);
    return Parse(target, type_.id == TypeId::kChar ? StripTrailingBlanks(s_) : s_);
  }
  // uuid: from and to the string types only, by its input and output.
  if (target.id == TypeId::kUuid) {
    if (type_.id == TypeId::kUuid) return *this;
    if (!type_.IsString()) ThrowCannotCast(type_, target);
    return Parse(target, type_.id == TypeId::kChar ? StripTrailingBlanks(s_) : s_);
  }
  if (type_.id == TypeId::kUuid && !target.IsString()) ThrowCannotCast(type_, target);
  // bytea: from the string types by its input function (PostgreSQL's I/O
  // conversion: '\\x41'::text::bytea), to them by its output (the hex
  // format); nothing else.
  if (target.id == TypeId::kBytea) {
    if (type_.id == TypeId::kBytea) return *this;
    if (!type_.IsString()) ThrowCannotCast(type_, target);
    return Parse(target, type_.id == TypeId::kChar ? StripTrailingBlanks(s_) : s_);
  }
  if (type_.id == TypeId::kBytea) {
    if (!target.IsString()) ThrowCannotCast(type_, target);
    return String(target, FitString(target, ToString()));
  }
  // json: from and to the string types and jsonb (its text), nothing else.
  if (target.id == TypeId::kJson) {
    if (type_.id == TypeId::kJson) return *this;
    if (type_.id == TypeId::kJsonb) return String(target, s_);
    if (!type_.IsString()) ThrowCannotCast(type_, target);
    return Parse(target, type_.id == TypeId::kChar ? StripTrailingBlanks(s_) : s_);
  }
  if (type_.id == TypeId::kJson) {
    if (target.id == TypeId::kJsonb) return Parse(target, s_);
    if (!target.IsString()) ThrowCannotCast(type_, target);
    return String(target, FitString(target, s_));
  }
  // time: from the string types and the time of a timestamp (timestamptz in
  // the current zone); to the string types and interval.
  if (target.id == TypeId::kTime) {
    if (type_.id == TypeId::kTime) return *this;
    if (type_.id == TypeId::kTimestamp || type_.id == TypeId::kTimestampTz) {
      return String(target, datetime::EncodeTime(datetime::SplitTimestamp(LocalMicros()).time));
    }
    if (!type_.IsString()) ThrowCannotCast(type_, target);
    return Parse(target, type_.id == TypeId::kChar ? StripTrailingBlanks(s_) : s_);
  }
  if (type_.id == TypeId::kTime) {
    if (target.id == TypeId::kInterval) {
      datetime::Interval iv;
      iv.micros = datetime::DecodeTime(s_);
      return String(target, interval::Encode(iv));
    }
    if (!target.IsString()) ThrowCannotCast(type_, target);
    return String(target, FitString(target, ToString()));
  }
  // interval: likewise from and to the string types only (and from time).
  if (target.id == TypeId::kInterval) {
    if (type_.id == TypeId::kInterval) return *this;
    if (!type_.IsString()) ThrowCannotCast(type_, target);
    return Parse(target, s_);
  }
  if (type_.id == TypeId::kInterval) {
    if (!target.IsString()) ThrowCannotCast(type_, target);
    return String(target, FitString(target, ToString()));
  }
  // jsonb: from and to text by its input and output functions; to a number
  // or a boolean when it is one (PostgreSQL 11+); nothing else.
  if (target.id == TypeId::kJsonb) {
    if (type_.id == TypeId::kJsonb) return *this;
    if (!type_.IsString()) ThrowCannotCast(type_, target);
    return Parse(target, type_.id == TypeId::kChar ? StripTrailingBlanks(s_) : s_);
  }
  if (type_.id == TypeId::kJsonb && dst != Family::kString) {
    const jsonb::Json j = jsonb::Parse(s_);
    if (j.kind == jsonb::Json::Kind::kNumber && target.IsNumeric()) return Parse(target, j.number);
    if (j.kind == jsonb::Json::Kind::kBool && target.id == TypeId::kBoolean) {
      return Boolean(j.boolean);
    }
    if (!target.IsNumeric() && target.id != TypeId::kBoolean) ThrowCannotCast(type_, target);
    throw DbError(
        sqlstate::kInvalidParameterValue,
        fmt::format("cannot cast jsonb {} to type {}", jsonb::TypeOf(s_), target.ToString()));
  }
  if (dst == Family::kString) {
    std::string text;
    if (src == Family::kString) {
      text = type_.id == TypeId::kChar ? std::string(StripTrailingBlanks(s_)) : s_;
    } else if (src == Family::kBoolean) {
      text = i_ ? "true" : "false";  // bool::text differs from boolout
    } else {
      text = ToString();
    }
    return String(target, FitString(target, text));
  }
  if (src == Family::kString) {
    return Parse(target, type_.id == TypeId::kChar ? StripTrailingBlanks(s_) : s_);
  }
  switch (target.id) {
    case TypeId::kBoolean:
      if (src == Family::kBoolean) return *this;
      if (type_.IsInteger()) return Boolean(i_ != 0);
      break;
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kBigInt:
      if (src == Family::kBoolean || type_.IsInteger())
        return Value(target, CheckIntRange(i_, target));
      if (type_.id == TypeId::kDecimal) {
        return Value(
            target,
            CheckIntRange(decimal::DivRound(GetWide(), decimal::Pow10Wide(type_.scale)), target));
      }
      if (type_.id == TypeId::kDouble) {
        // PostgreSQL's float8 -> integer casts use rint(): half to even.
        double r = std::nearbyint(d_);
        if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0)) {
          throw DbError(sqlstate::kNumericValueOutOfRange,
                        fmt::format("{} out of range", target.ToString()));
        }
        return Value(target, CheckIntRange(static_cast<__int128>(r), target));
      }
      break;
    case TypeId::kDouble:
      if (type_.IsInteger()) return Double(static_cast<double>(i_));
      if (type_.id == TypeId::kDecimal)
        return Double(decimal::ToDoubleWide(GetWide(), type_.scale));
      if (type_.id == TypeId::kDouble) return *this;
      break;
    case TypeId::kDecimal: {
      __int128 v;
      bool overflow = false;
      if (type_.IsInteger() || type_.id == TypeId::kDecimal) {
        int from = type_.id == TypeId::kDecimal ? type_.scale : 0;
        if (target.scale >= from) {
          overflow = __builtin_mul_overflow(GetWide(), decimal::Pow10Wide(target.scale - from), &v);
        } else {
          v = decimal::DivRound(GetWide(), decimal::Pow10Wide(from - target.scale));
        }
      } else if (type_.id == TypeId::kDouble) {
        return Decimal(decimal::FromDoubleWide(d_, target.precision, target.scale),
                       target.precision, target.scale);
      } else {
        break;
      }
      if (overflow || !decimal::FitsPrecisionWide(v, target.precision)) {
        decimal::ThrowFieldOverflow(target.precision, target.scale);
      }
      return Decimal(v, target.precision, target.scale);
    }
    case TypeId::kDate:
      if (type_.id == TypeId::kDate) return *this;
      if (type_.IsTimestamp()) return Date(datetime::TimestampToDate(LocalMicros()));
      break;
    case TypeId::kTimestamp:
      if (type_.IsDateTime()) return Timestamp(LocalMicros());
      break;
    case TypeId::kTimestampTz:
      if (type_.id == TypeId::kTimestampTz) return *this;
      if (type_.IsDateTime()) {
        return TimestampTz(datetime::CurrentTimeZone().ToUtc(LocalMicros()));
      }
      break;
    default:
      break;
  }
  ThrowCannotCast(type_, target);
}

int Value::Compare(const Value& other) const {
  if (null_ || other.null_) return Cmp<int>(null_, other.null_);
  if (type_.id == TypeId::kJsonb && other.type_.id == TypeId::kJsonb) {
    return jsonb::Compare(s_, other.s_);
  }
  if (type_.IsArrayText() && other.type_.IsArrayText()) {
    return CompareArrayText(s_, other.s_, type_.ArrayElement());
  }
  Family fa = FamilyOf(type_), fb = FamilyOf(other.type_);
  if (fa != fb) {
    throw DbError(sqlstate::kDatatypeMismatch,
                  fmt::format("cannot compare values of types {} and {}", type_.ToString(),
                              other.type_.ToString()));
  }
  switch (fa) {
    case Family::kBoolean:
      return Cmp(i_, other.i_);
    case Family::kNumeric:
      return CompareNumeric(*this, other);
    case Family::kString: {
      std::string_view a = s_, b = other.s_;
      if (type_.id == TypeId::kChar) a = StripTrailingBlanks(a);
      if (other.type_.id == TypeId::kChar) b = StripTrailingBlanks(b);
      int c = a.compare(b);
      return (c > 0) - (c < 0);
    }
    case Family::kDateTime: {
      // Mixed with TIMESTAMPTZ, the other side is taken in the current zone
      // (PostgreSQL casts it to timestamptz).
      bool zoned = type_.id == TypeId::kTimestampTz || other.type_.id == TypeId::kTimestampTz;
      auto instant = [&](const Value& v) {
        if (v.type_.id == TypeId::kTimestampTz) return v.i_;
        return zoned ? datetime::CurrentTimeZone().ToUtc(v.LocalMicros()) : v.LocalMicros();
      };
      return Cmp(instant(*this), instant(other));
    }
  }
  return 0;
}

// Equal numbers hash alike across all numeric types: integral values (any
// integer, a DECIMAL without fraction, an integral DOUBLE) hash the exact
// int64, so large BIGINT keys do not collide; other DECIMALs hash their
// correctly rounded double, which equals the DOUBLE they compare equal to.
uint64_t Value::Hash() const {
  if (null_) return 0x9e3779b97f4a7c15ull;
  switch (type_.id) {
    case TypeId::kBoolean:
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kBigInt:
      return HashInt(i_);
    case TypeId::kDecimal: {
      // Narrow and wide alike: by value, never by representation.
      __int128 v = GetWide();
      __int128 pow = decimal::Pow10Wide(type_.scale);
      if (v % pow == 0) {
        __int128 q = v / pow;
        if (q >= std::numeric_limits<int64_t>::min() && q <= std::numeric_limits<int64_t>::max()) {
          return HashInt(static_cast<int64_t>(q));
        }
      }
      return HashDouble(decimal::ToDoubleWide(v, type_.scale));
    }
    case TypeId::kDouble: {
      double d = d_;
      if (std::isnan(d)) return 0x7ff8000000000000ull;
      if (d == std::trunc(d) && std::fabs(d) < 9.2e18) return HashInt(static_cast<int64_t>(d));
      return HashDouble(d);
    }
    case TypeId::kChar: {
      std::string_view s = StripTrailingBlanks(s_);
      return HashBytes(s.data(), s.size(), 0x737472);
    }
    case TypeId::kVarchar:
    case TypeId::kText:
    case TypeId::kJsonb:
    case TypeId::kUuid:
    case TypeId::kBytea:
    case TypeId::kInterval:
    case TypeId::kTime:
    case TypeId::kJson:
      return HashBytes(s_.data(), s_.size(), 0x737472);
    case TypeId::kDate:
      return HashInt(datetime::DateToTimestamp(static_cast<int32_t>(i_)));
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return HashInt(i_);
  }
  return 0;
}

// DATE as its midnight, TIMESTAMP as is, TIMESTAMPTZ as the current zone's
// wall clock.
int64_t Value::LocalMicros() const {
  switch (type_.id) {
    case TypeId::kDate:
      return datetime::DateToTimestamp(static_cast<int32_t>(i_));
    case TypeId::kTimestampTz:
      return datetime::CurrentTimeZone().ToLocal(i_);
    default:
      return i_;
  }
}

std::optional<Value> CastExactly(const Value& v, const Type& type) {
  if (v.is_null()) return std::nullopt;
  try {
    Value cast = v.CastTo(type);
    if (cast.is_null() || cast.Compare(v) != 0) return std::nullopt;
    return cast;
  } catch (const DbError&) {
    return std::nullopt;
  }
}

}  // namespace forktail
