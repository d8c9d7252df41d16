#include "server/pg_types.h"

#include <bit>
#include <cstring>
#include <vector>

#include "server/wire_format.h"
#include "storage/error.h"
#include "storage/value/array_text.h"
#include "storage/value/decimal.h"
#include "storage/value/utf8.h"

namespace forktail {
namespace {

[[noreturn]] void ThrowBadBinary(int parameter_number) {
  throw DbError("22P03", "incorrect binary data format in bind parameter " +
                             std::to_string(parameter_number));
}

// A DECIMAL type wide enough for a numeric text literal ("12.345" -> (18,3));
// DECIMAL(38,s) only when 18 digits cannot hold it.
Type DecimalTypeFor(std::string_view text) {
  size_t dot = text.find('.');
  int scale = 0;
  if (dot != std::string_view::npos) {
    size_t end = text.find_first_not_of("0123456789", dot + 1);
    scale = static_cast<int>((end == std::string_view::npos ? text.size() : end) - dot - 1);
  }
  size_t first = text.find_first_of("123456789");
  size_t int_end = dot == std::string_view::npos ? text.find_first_not_of("+-0123456789 ") : dot;
  if (int_end == std::string_view::npos) int_end = text.size();
  int int_digits =
      first != std::string_view::npos && first < int_end ? static_cast<int>(int_end - first) : 0;
  int precision = int_digits + std::min(scale, kMaxDecimalPrecision) > kMaxNarrowDecimalPrecision
                      ? kMaxDecimalPrecision
                      : kMaxNarrowDecimalPrecision;
  return Type::Decimal(precision, std::min(scale, precision));
}

Value ParseText(std::string_view text, const Type& type) { return Value::Parse(type, text); }

// Reads a binary value as the PostgreSQL type `oid`: Forktail's types by
// their receive functions (storage/value/pg_binary.h); a malformed value is
// 22P03 naming the parameter.
Value DecodeBinaryAs(std::string_view b, int32_t oid, int n) {
  try {
    switch (oid) {
      case pgoid::kOid:
        if (b.size() != 4) ThrowBadBinary(n);
        return Value::BigInt(static_cast<uint32_t>(GetBigEndian(b)));
      case pgoid::kFloat4:
        if (b.size() != 4) ThrowBadBinary(n);
        return Value::Double(std::bit_cast<float>(static_cast<uint32_t>(GetBigEndian(b))));
      case pgoid::kNumeric: {
        // An unconstrained numeric keeps its own scale.
        std::string text = PgNumericBinaryToText(b);
        return ParseText(text, DecimalTypeFor(text));
      }
      case pgoid::kName:
      case pgoid::kChar:
      case pgoid::kUnknown:
        return PgBinaryReceive(b, Type::Text());
      default:
        if (std::optional<Type> type = TypeFromPgOid(oid)) return PgBinaryReceive(b, *type);
        throw DbError(sqlstate::kFeatureNotSupported,
                      "binary format is not supported for parameter " + std::to_string(n) +
                          " of type oid " + std::to_string(oid));
    }
  } catch (const DbError& e) {
    const std::string_view state = e.sqlstate();
    if (state == sqlstate::kProtocolViolation || state == "22P03") ThrowBadBinary(n);
    throw;
  }
}

// Arrays travel through expressions in their text form, as TEXT tagged with
// the element type (Type::ArrayText); on the wire they are the element
// type's array type, so that clients read lists (psycopg), java.sql.Array
// (JDBC).
int32_t ArrayOidOf(const Type& element) {
  switch (element.id) {
    case TypeId::kBoolean:
      return 1000;
    case TypeId::kSmallInt:
      return 1005;
    case TypeId::kInteger:
      return 1007;
    case TypeId::kBigInt:
      return 1016;
    case TypeId::kDouble:
      return 1022;
    case TypeId::kDecimal:
      return 1231;
    case TypeId::kChar:
      return 1014;
    case TypeId::kVarchar:
      return 1015;
    case TypeId::kText:
      return 1009;
    case TypeId::kDate:
      return 1182;
    case TypeId::kTimestamp:
      return 1115;
    case TypeId::kTimestampTz:
      return 1185;
    case TypeId::kJsonb:
      return 3807;
    case TypeId::kUuid:
      return 2951;
    case TypeId::kBytea:
      return 1001;
    case TypeId::kInterval:
      return 1187;
  }
  return pgoid::kText;
}

// array_send of a one-dimensional array: dimensions, a NULL flag, the
// element oid, then each element as its type's binary (or -1 for NULL).
std::string ArrayBinarySend(const Value& array, const Type& element) {
  std::vector<std::optional<std::string>> items = ParseArrayText(array.GetString());
  std::string out;
  auto put32 = [&out](uint32_t v) { PutBigEndian(&out, v, 4); };
  bool has_null = false;
  for (const auto& item : items) has_null = has_null || !item;
  put32(items.empty() ? 0 : 1);
  put32(has_null ? 1 : 0);
  put32(static_cast<uint32_t>(PgTypeOf(element).oid));
  if (items.empty()) return out;
  put32(static_cast<uint32_t>(items.size()));
  put32(1);  // lower bound
  for (const auto& item : items) {
    if (!item) {
      put32(0xFFFFFFFFu);
      continue;
    }
    const Type t = element.id == TypeId::kDecimal ? DecimalTypeFor(*item) : element;
    const std::string bytes = PgBinarySend(Value::Parse(t, *item));
    put32(static_cast<uint32_t>(bytes.size()));
    out += bytes;
  }
  return out;
}

// A user array (not a pg_catalog column's, which go out as text).
std::optional<Type> ArrayElementOf(const Type& t) {
  if (!t.IsArrayText() || t.IsCatalogArrayText()) return std::nullopt;
  return t.ArrayElement();
}

}  // namespace

PgTypeInfo PgTypeOf(const Type& type) {
  if (std::optional<Type> element = ArrayElementOf(type)) return {ArrayOidOf(*element), -1, -1};
  switch (type.id) {
    case TypeId::kBoolean:
      return {pgoid::kBool, 1, -1};
    case TypeId::kSmallInt:
      return {pgoid::kInt2, 2, -1};
    case TypeId::kInteger:
      return {pgoid::kInt4, 4, -1};
    case TypeId::kBigInt:
      return {pgoid::kInt8, 8, -1};
    case TypeId::kDouble:
      return {pgoid::kFloat8, 8, -1};
    case TypeId::kDecimal:
      return {pgoid::kNumeric, -1,
              type.precision == 0 ? -1 : ((type.precision << 16) | type.scale) + 4};
    case TypeId::kChar:
      return {pgoid::kBpchar, -1, type.length == 0 ? -1 : static_cast<int32_t>(type.length) + 4};
    case TypeId::kVarchar:
      return {pgoid::kVarchar, -1, type.length == 0 ? -1 : static_cast<int32_t>(type.length) + 4};
    case TypeId::kText:
      return {pgoid::kText, -1, -1};
    case TypeId::kDate:
      return {pgoid::kDate, 4, -1};
    case TypeId::kTimestamp:
      return {pgoid::kTimestamp, 8, -1};
    case TypeId::kTimestampTz:
      return {pgoid::kTimestampTz, 8, -1};
    case TypeId::kJsonb:
      return {pgoid::kJsonb, -1, -1};
    case TypeId::kUuid:
      return {pgoid::kUuid, 16, -1};
    case TypeId::kBytea:
      return {pgoid::kBytea, -1, -1};
    case TypeId::kInterval:
      return {pgoid::kInterval, 16, -1};
  }
  return {pgoid::kText, -1, -1};
}

std::optional<Type> TypeFromPgOid(int32_t oid) {
  switch (oid) {
    case pgoid::kBool:
      return Type::Boolean();
    case pgoid::kInt2:
      return Type::SmallInt();
    case pgoid::kInt4:
      return Type::Integer();
    case pgoid::kInt8:
    case pgoid::kOid:
      return Type::BigInt();
    case pgoid::kFloat4:
    case pgoid::kFloat8:
      return Type::Double();
    // Unconstrained numeric: the widest DECIMAL, with a scale for typical money/measures.
    case pgoid::kNumeric:
      return Type::Decimal(kMaxNarrowDecimalPrecision, 6);
    case pgoid::kBpchar:
    case pgoid::kVarchar:
      return Type::Varchar();
    case pgoid::kText:
    case pgoid::kName:
    case pgoid::kChar:
      return Type::Text();
    case pgoid::kDate:
      return Type::Date();
    case pgoid::kTimestamp:
      return Type::Timestamp();
    case pgoid::kTimestampTz:
      return Type::TimestampTz();
    case pgoid::kJsonb:
      return Type::Jsonb();
    case pgoid::kUuid:
      return Type::Uuid();
    case pgoid::kBytea:
      return Type::Bytea();
    case pgoid::kInterval:
      return Type::Interval();
    default:
      return std::nullopt;
  }
}

std::string EncodeTextValue(const Value& value) { return value.ToString(); }

std::string EncodeBinaryValue(const Value& value) {
  if (std::optional<Type> element = ArrayElementOf(value.type())) {
    return ArrayBinarySend(value, *element);
  }
  return PgBinarySend(value);
}

Value DecodeParameter(std::string_view bytes, int16_t format, int32_t client_oid,
                      const std::optional<Type>& target, int parameter_number) {
  if (format != 0 && format != 1) {
    throw DbError(sqlstate::kInvalidParameterValue,
                  "unsupported format code: " + std::to_string(format));
  }
  std::optional<Type> declared = TypeFromPgOid(client_oid);
  // Text (and binary text types) arrive in the client encoding, UTF8 only.
  if (format == 0) CheckUtf8(bytes);
  if (format == 0) {
    if (target) return ParseText(bytes, *target);
    if (client_oid == pgoid::kNumeric) return ParseText(bytes, DecimalTypeFor(bytes));
    if (declared) return ParseText(bytes, *declared);
    return Value::Text(std::string(bytes));
  }
  int32_t oid = client_oid;
  if (oid == pgoid::kUnspecified || oid == pgoid::kUnknown) {
    if (!target) {
      throw DbError(
          sqlstate::kIndeterminateDatatype,
          "could not determine data type of parameter $" + std::to_string(parameter_number));
    }
    oid = PgTypeOf(*target).oid;
  }
  Value v = DecodeBinaryAs(bytes, oid, parameter_number);
  if (target && !(v.type() == *target)) return v.CastTo(*target);
  return v;
}

std::string NumericBinaryToText(std::string_view bytes, int n) {
  try {
    return PgNumericBinaryToText(bytes);
  } catch (const DbError& e) {
    const std::string_view state = e.sqlstate();
    if (state == sqlstate::kProtocolViolation || state == "22P03") ThrowBadBinary(n);
    throw;
  }
}

}  // namespace forktail
