// SQL types and their physical representation.
//
//   type            in a column stripe          in a Value
//   BOOLEAN         uint8_t (0/1)               bool
//   SMALLINT        int16_t                     int64
//   INTEGER         int32_t                     int64
//   BIGINT          int64_t                     int64
//   DOUBLE          double                      double
//   DECIMAL(p,s)    int64_t, value * 10^s       int64 (unscaled), p <= 18
//   DECIMAL(p,s)    __int128, value * 10^s      __int128 (unscaled), 19 <= p <= 38
//   CHAR(n)         StringRef into block heap   string, blank-padded to n
//   VARCHAR(n)/TEXT StringRef into block heap   string (n = 0: unbounded)
//   DATE            int32_t days since 1970-01-01
//   TIMESTAMP       int64_t microseconds since 1970-01-01 00:00:00 (no zone)
//   TIMESTAMPTZ     int64_t microseconds since 1970-01-01 00:00:00 UTC (the
//                   instant; text I/O in the session's zone, timezone.h)
//
// NULL exists for every type; in a block it is a bit in the column's null
// bitmap, in a Value a flag.
#pragma once

#include <cstdint>
#include <string>

namespace forktail {

enum class TypeId : uint8_t {
  kBoolean,
  kSmallInt,
  kInteger,
  kBigInt,
  kDouble,
  kDecimal,
  kChar,
  kVarchar,
  kText,
  kDate,
  kTimestamp,
  // Values are persisted (catalog images, log records): append new types.
  kTimestampTz,
  kJsonb,     // canonical jsonb text (storage/value/jsonb.h), stored as a string
  kUuid,      // canonical uuid text (36 lower-case characters), stored as a string
  kBytea,     // the raw bytes, stored as a string (storage/value/bytea.h)
  kInterval,  // months, days, microseconds: 24 bytes stored as a string (storage/value/interval.h)
  kTime,      // time of day in microseconds: 8 bytes big-endian stored as a string (datetime.h)
  kJson,      // json: the input text as written (checked), stored as a string
};

// A persisted type id (catalog image, log record, snapshot rows) is valid.
inline constexpr bool IsKnownTypeId(uint8_t id) {
  return id <= static_cast<uint8_t>(TypeId::kJson);
}

inline constexpr int kMaxDecimalPrecision = 38;
// CHAR(n) and VARCHAR(n): n at most PostgreSQL's MaxAttrSize (10 MiB), so
// that a CHAR value's blank padding stays bounded.
inline constexpr uint32_t kMaxStringTypeLength = 10485760;
// DECIMALs up to this precision are int64 ("narrow"); wider ones __int128.
inline constexpr int kMaxNarrowDecimalPrecision = 18;

struct Type {
  TypeId id = TypeId::kInteger;
  uint8_t precision = 0;  // DECIMAL: 1..38
  uint8_t scale = 0;      // DECIMAL: 0..precision
  uint32_t length = 0;    // CHAR(n) / VARCHAR(n): n; 0 means unbounded (VARCHAR, TEXT)

  static Type Boolean() { return {TypeId::kBoolean}; }
  static Type SmallInt() { return {TypeId::kSmallInt}; }
  static Type Integer() { return {TypeId::kInteger}; }
  static Type BigInt() { return {TypeId::kBigInt}; }
  static Type Double() { return {TypeId::kDouble}; }
  // Throws DbError (22023) unless 1 <= precision <= 38 and 0 <= scale <= precision.
  static Type Decimal(int precision, int scale);
  static Type Char(uint32_t n) { return {TypeId::kChar, 0, 0, n}; }
  static Type Varchar(uint32_t n = 0) { return {TypeId::kVarchar, 0, 0, n}; }
  static Type Text() { return {TypeId::kText}; }
  static Type Date() { return {TypeId::kDate}; }
  static Type Timestamp() { return {TypeId::kTimestamp}; }
  static Type TimestampTz() { return {TypeId::kTimestampTz}; }
  static Type Jsonb() { return {TypeId::kJsonb}; }
  static Type Uuid() { return {TypeId::kUuid}; }
  static Type Bytea() { return {TypeId::kBytea}; }
  static Type Interval() { return {TypeId::kInterval}; }
  static Type Time() { return {TypeId::kTime}; }
  static Type Json() { return {TypeId::kJson}; }

  bool IsString() const {
    return id == TypeId::kChar || id == TypeId::kVarchar || id == TypeId::kText;
  }
  // Held as bytes (a StringRef in stripes, GetString() in a Value): the
  // string types, and jsonb, uuid, bytea and interval, which are none of
  // them to SQL (no implicit casts to or from text, no string functions). A
  // uuid's canonical text orders as its 16 bytes do, bytea compares
  // bytewise, and an interval's bytes are built to order as it does, so all
  // three compare as strings.
  bool StoredAsString() const {
    return IsString() || id == TypeId::kJsonb || id == TypeId::kUuid || id == TypeId::kBytea ||
           id == TypeId::kInterval || id == TypeId::kTime || id == TypeId::kJson;
  }
  // Arrays travel through expressions in their text form ('{1,2}',
  // storage/value/array_text.h): TEXT tagged with the element type (the
  // otherwise unused `precision` holds the element's TypeId + 1). The
  // pg_catalog's array-like columns (int2vector, oid[], ...) carry
  // kCatalogArray too: they go out on the wire as text, as they always have.
  static constexpr uint8_t kCatalogArray = 0x80;
  static Type ArrayText(const Type& element, bool catalog = false) {
    Type t = Text();
    t.precision =
        static_cast<uint8_t>((static_cast<int>(element.id) + 1) | (catalog ? kCatalogArray : 0));
    return t;
  }
  bool IsArrayText() const { return id == TypeId::kText && precision != 0; }
  bool IsCatalogArrayText() const { return IsArrayText() && (precision & kCatalogArray) != 0; }
  // The element type of an array (a DECIMAL element as DECIMAL(18,4));
  // only for IsArrayText().
  Type ArrayElement() const {
    Type e;
    e.id = static_cast<TypeId>((precision & ~kCatalogArray) - 1);
    if (e.id == TypeId::kDecimal) e = Decimal(18, 4);
    return e;
  }
  bool IsInteger() const {
    return id == TypeId::kSmallInt || id == TypeId::kInteger || id == TypeId::kBigInt;
  }
  bool IsNumeric() const { return IsInteger() || id == TypeId::kDouble || id == TypeId::kDecimal; }
  // DATE, TIMESTAMP, TIMESTAMPTZ: the types that compare as points in time.
  bool IsDateTime() const {
    return id == TypeId::kDate || id == TypeId::kTimestamp || id == TypeId::kTimestampTz;
  }
  bool IsTimestamp() const { return id == TypeId::kTimestamp || id == TypeId::kTimestampTz; }
  // A DECIMAL held as __int128 (precision 19..38).
  bool IsWideDecimal() const {
    return id == TypeId::kDecimal && precision > kMaxNarrowDecimalPrecision;
  }

  // Bytes one value takes in a column stripe (strings: a StringRef).
  uint32_t StripeWidth() const;

  // PostgreSQL's spelling, as format_type() prints it: "integer", "numeric(15,2)",
  // "character(10)", "character varying(25)", "text", "timestamp without time zone",
  // "timestamp with time zone".
  std::string ToString() const;

  friend bool operator==(const Type&, const Type&) = default;
};

}  // namespace forktail
