#include "storage/value/pg_type_oid.h"

#include <algorithm>
#include <bit>
#include <vector>

#include "storage/error.h"
#include "storage/value/array_text.h"
#include "storage/value/pg_binary.h"

namespace forktail {
namespace {

void PutBig(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetBig(std::string_view in) {
  uint64_t v = 0;
  for (unsigned char c : in) v = (v << 8) | c;
  return v;
}

[[noreturn]] void ThrowBadArray() {
  throw DbError("22P03", "incorrect binary data format in array");
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
    case TypeId::kTime:
      return 1183;
    case TypeId::kJson:
      return 199;
  }
  return pgoid::kText;
}

// The array type a client's array oid names (int4[] -> ArrayText(INTEGER));
// float4[] reads as float8[], bpchar[] and name[] as varchar[] and text[].
std::optional<Type> ArrayTypeFromOid(int32_t oid) {
  if (oid == 1021) return Type::ArrayText(Type::Double());
  if (oid == 1014) return Type::ArrayText(Type::Varchar());
  if (oid == 1003) return Type::ArrayText(Type::Text());
  for (Type element : {Type::Boolean(), Type::SmallInt(), Type::Integer(), Type::BigInt(),
                       Type::Double(), Type::Decimal(18, 4), Type::Varchar(), Type::Text(),
                       Type::Date(), Type::Timestamp(), Type::TimestampTz(), Type::Jsonb(),
                       Type::Uuid(), Type::Bytea(), Type::Interval(), Type::Time(), Type::Json()}) {
    if (ArrayOidOf(element) == oid) return Type::ArrayText(element);
  }
  return std::nullopt;
}

// A user array (not a pg_catalog column's, which go out as text).
std::optional<Type> ArrayElementOf(const Type& t) {
  if (!t.IsArrayText() || t.IsCatalogArrayText()) return std::nullopt;
  return t.ArrayElement();
}

}  // namespace

Type DecimalTypeForText(std::string_view text) {
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
    case TypeId::kTime:
      return {pgoid::kTime, 8, -1};
    case TypeId::kJson:
      return {pgoid::kJson, -1, -1};
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
    case pgoid::kTime:
      return Type::Time();
    case pgoid::kJson:
      return Type::Json();
    default:
      return ArrayTypeFromOid(oid);
  }
}

namespace {

// array_send of a one-dimensional array: dimensions, a NULL flag, the
// element oid, then each element as its type's binary (or -1 for NULL).
std::string ArraySend(const Value& array, const Type& element) {
  std::vector<std::optional<std::string>> items = ParseArrayText(array.GetString());
  std::string out;
  auto put32 = [&out](uint32_t v) { PutBig(&out, v, 4); };
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
    const Type t = element.id == TypeId::kDecimal ? DecimalTypeForText(*item) : element;
    const std::string bytes = PgBinarySend(Value::Parse(t, *item));
    put32(static_cast<uint32_t>(bytes.size()));
    out += bytes;
  }
  return out;
}

// An element of an array received in binary, as the type its oid names.
std::string ElementText(std::string_view b, int32_t oid) {
  switch (oid) {
    case pgoid::kFloat4:
      if (b.size() != 4) ThrowBadArray();
      return Value::Double(std::bit_cast<float>(static_cast<uint32_t>(GetBig(b)))).ToString();
    case pgoid::kNumeric:
      return PgNumericBinaryToText(b);
    case pgoid::kName:
    case pgoid::kChar:
    case pgoid::kBpchar:
      return PgBinaryReceive(b, Type::Text()).ToString();
    default:
      if (std::optional<Type> type = TypeFromPgOid(oid); type && !type->IsArrayText()) {
        return PgBinaryReceive(b, *type).ToString();
      }
      throw DbError(
          sqlstate::kFeatureNotSupported,
          "binary format is not supported for array elements of type oid " + std::to_string(oid));
  }
}

}  // namespace

std::string PgArraySend(const Value& array) {
  return ArraySend(array, array.type().ArrayElement());
}

Value PgArrayReceive(std::string_view b, const Type& array) {
  auto get32 = [&]() -> uint32_t {
    if (b.size() < 4) ThrowBadArray();
    uint32_t v = static_cast<uint32_t>(GetBig(b.substr(0, 4)));
    b.remove_prefix(4);
    return v;
  };
  const uint32_t ndim = get32();
  get32();  // the has-NULL flag: the elements say
  const int32_t element_oid = static_cast<int32_t>(get32());
  if (ndim > 1) {
    throw DbError(sqlstate::kFeatureNotSupported, "multidimensional arrays are not supported");
  }
  std::vector<std::optional<std::string>> items;
  if (ndim == 1) {
    const uint32_t count = get32();
    get32();  // the lower bound: a one-dimensional array prints from 1 anyway
    if (count > b.size() / 4) ThrowBadArray();
    for (uint32_t i = 0; i < count; i++) {
      const uint32_t len = get32();
      if (len == 0xFFFFFFFFu) {
        items.emplace_back(std::nullopt);
        continue;
      }
      if (len > b.size()) ThrowBadArray();
      items.emplace_back(ElementText(b.substr(0, len), element_oid));
      b.remove_prefix(len);
    }
  }
  if (!b.empty()) ThrowBadArray();
  return Value::Parse(array, FormatArrayText(items));
}

}  // namespace forktail
