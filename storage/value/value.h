// Value: one SQL value of any type, or NULL. Used on the row-at-a-time paths
// (inserts, point reads, stored procedures, statistics, the wire protocol);
// the vectorized operators read column stripes directly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/value/types.h"

namespace forktail {

class Value {
 public:
  // A NULL of type INTEGER; use Null(type) for a typed NULL.
  Value() : null_(true) {}

  static Value Null(Type type) {
    Value v;
    v.type_ = type;
    return v;
  }
  static Value Boolean(bool b) { return Value(Type::Boolean(), b ? 1 : 0); }
  static Value SmallInt(int16_t i) { return Value(Type::SmallInt(), i); }
  static Value Integer(int32_t i) { return Value(Type::Integer(), i); }
  static Value BigInt(int64_t i) { return Value(Type::BigInt(), i); }
  static Value Double(double d) {
    Value v(Type::Double(), 0);
    v.d_ = d;
    return v;
  }
  // `unscaled` is the value times 10^scale; it must fit the precision
  // (1..38; above 18 the Value holds it as __int128, see GetWide()).
  static Value Decimal(__int128 unscaled, int precision, int scale) {
    Value v(Type::Decimal(precision, scale), static_cast<int64_t>(unscaled));
    if (v.type_.IsWideDecimal()) {
      v.i_ = 0;
      v.wide_ = unscaled;
    }
    return v;
  }
  static Value Date(int32_t days_since_epoch) { return Value(Type::Date(), days_since_epoch); }
  static Value Timestamp(int64_t micros_since_epoch) {
    return Value(Type::Timestamp(), micros_since_epoch);
  }
  // The instant, microseconds since 1970-01-01 00:00:00 UTC.
  static Value TimestampTz(int64_t utc_micros) { return Value(Type::TimestampTz(), utc_micros); }
  // A string of a string type, taken as is (no padding or length check:
  // CastTo / Parse apply those).
  static Value String(Type type, std::string s) {
    Value v(type, 0);
    v.s_ = std::move(s);
    return v;
  }
  static Value Text(std::string s) { return String(Type::Text(), std::move(s)); }

  // Parses PostgreSQL's text form of a value of `type` ('t'/'true'/'yes'/'on'/'1',
  // '12.50', '2024-01-02', '2024-01-02 10:00:00.5', ...). Throws DbError with the
  // SQLSTATE PostgreSQL uses (22P02, 22003, 22007, 22008, 22001) on bad input.
  // A TIMESTAMPTZ without a zone is local time in this thread's current zone
  // (datetime::CurrentTimeZone, timezone.h), as ToString and CastTo use it.
  static Value Parse(const Type& type, std::string_view text);

  const Type& type() const { return type_; }
  bool is_null() const { return null_; }

  bool GetBool() const { return i_ != 0; }
  // SMALLINT, INTEGER, BIGINT, DATE (days), TIMESTAMP[TZ] (micros), DECIMAL
  // p <= 18 (unscaled). Not for a wide DECIMAL: use GetWide().
  int64_t GetInt() const { return i_; }
  // Any integer-represented value widened: a wide DECIMAL's unscaled
  // __int128, otherwise GetInt().
  __int128 GetWide() const { return type_.IsWideDecimal() ? wide_ : __int128{i_}; }
  double GetDouble() const { return d_; }
  std::string_view GetString() const { return s_; }

  // PostgreSQL's text output: "t"/"f", "12.50", "2024-01-02", "2024-01-02 10:00:00.5",
  // shortest round-trip doubles ("0.1", "1e+20", "NaN", "Infinity"). Not for NULL.
  std::string ToString() const;

  // SQL CAST: numeric conversions (rounding half away from zero into integers
  // and decimals), string <-> anything via Parse/ToString, DATE <-> TIMESTAMP,
  // CHAR padding and VARCHAR(n) length checks. NULL casts to NULL. Throws DbError.
  // Casts into CHAR(n)/VARCHAR(n) follow PostgreSQL's *assignment* rule (22001
  // `value too long for type character varying(3)` unless only blanks are cut),
  // not its explicit-cast rule (silent truncation): INSERT/UPDATE use CastTo.
  // Boolean to a string gives "true"/"false" (PostgreSQL's bool::text). Into
  // integers, doubles and decimals round half away from zero (PostgreSQL's
  // float8 -> int rounds half to even; we follow numeric's rule for both).
  // Unsupported pairs (date -> integer, ...) throw 42846 `cannot cast type date
  // to integer`.
  Value CastTo(const Type& target) const;

  // Total order for sorting and statistics: NULLs sort last; numbers compare by
  // value across integer, decimal and double types; strings bytewise with CHAR's
  // trailing blanks ignored. Comparing incompatible types throws DbError (42804).
  int Compare(const Value& other) const;
  // Equality by Compare (NULL == NULL here; SQL's three-valued logic is the
  // caller's business).
  bool operator==(const Value& other) const { return Compare(other) == 0; }

  // Consistent with Compare() == 0 within one type, and across the numeric
  // types (Integer(3), Decimal(300,5,2) and Double(3.0) hash alike), CHAR vs
  // other strings, and DATE vs TIMESTAMP (TIMESTAMPTZ hashes its instant:
  // like the TIMESTAMP it equals only in UTC; SQL casts one side first).
  uint64_t Hash() const;

 private:
  Value(Type type, int64_t i) : type_(type), null_(false), i_(i) {}
  int64_t LocalMicros() const;  // a date/time value's local wall clock

  Type type_;
  bool null_ = false;
  int64_t i_ = 0;
  __int128 wide_ = 0;  // wide DECIMAL only
  double d_ = 0;
  std::string s_;
};

using Row = std::vector<Value>;

// `v` as a value of `type` when the conversion loses nothing (the cast
// back compares equal); nullopt for NULL, a lossy cast or one that fails.
// An index probe for `column = v` in the column's type is then exact.
std::optional<Value> CastExactly(const Value& v, const Type& type);

}  // namespace forktail
