#include "server/pg_types.h"

#include <bit>
#include <cstring>
#include <vector>

#include "server/wire_format.h"
#include "storage/error.h"
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

// Reads a binary value as the PostgreSQL type `oid`.
Value DecodeBinaryAs(std::string_view b, int32_t oid, int n) {
  auto need = [&](size_t size) {
    if (b.size() != size) ThrowBadBinary(n);
  };
  switch (oid) {
    case pgoid::kBool:
      need(1);
      return Value::Boolean(b[0] != 0);
    case pgoid::kInt2:
      need(2);
      return Value::SmallInt(static_cast<int16_t>(GetBigEndian(b)));
    case pgoid::kInt4:
      need(4);
      return Value::Integer(static_cast<int32_t>(GetBigEndian(b)));
    case pgoid::kInt8:
    case pgoid::kOid:
      if (oid == pgoid::kOid) {
        need(4);
        return Value::BigInt(static_cast<uint32_t>(GetBigEndian(b)));
      }
      need(8);
      return Value::BigInt(static_cast<int64_t>(GetBigEndian(b)));
    case pgoid::kFloat4:
      need(4);
      return Value::Double(std::bit_cast<float>(static_cast<uint32_t>(GetBigEndian(b))));
    case pgoid::kFloat8:
      need(8);
      return Value::Double(std::bit_cast<double>(GetBigEndian(b)));
    case pgoid::kNumeric: {
      std::string text = NumericBinaryToText(b, n);
      return ParseText(text, DecimalTypeFor(text));
    }
    case pgoid::kDate: {
      need(4);
      int64_t days = int64_t{static_cast<int32_t>(GetBigEndian(b))} + kPgEpochDays;
      if (days < INT32_MIN || days > INT32_MAX)
        throw DbError(sqlstate::kDatetimeFieldOverflow, "date out of range");
      return Value::Date(static_cast<int32_t>(days));
    }
    case pgoid::kTimestamp:
    case pgoid::kTimestampTz: {
      need(8);
      auto us = static_cast<int64_t>(GetBigEndian(b));
      if (__builtin_add_overflow(us, kPgEpochMicros, &us)) {
        throw DbError(sqlstate::kDatetimeFieldOverflow, "timestamp out of range");
      }
      return Value::Timestamp(us);
    }
    case pgoid::kText:
    case pgoid::kVarchar:
    case pgoid::kBpchar:
    case pgoid::kName:
    case pgoid::kChar:
    case pgoid::kUnknown:
      CheckUtf8(b);
      return Value::Text(std::string(b));
    default:
      throw DbError(sqlstate::kFeatureNotSupported,
                    "binary format is not supported for parameter " + std::to_string(n) +
                        " of type oid " + std::to_string(oid));
  }
}

}  // namespace

PgTypeInfo PgTypeOf(const Type& type) {
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
    case pgoid::kTimestampTz:
      return Type::Timestamp();
    default:
      return std::nullopt;
  }
}

std::string EncodeTextValue(const Value& value) { return value.ToString(); }

std::string EncodeBinaryValue(const Value& value) {
  std::string out;
  switch (value.type().id) {
    case TypeId::kBoolean:
      out.push_back(value.GetBool() ? 1 : 0);
      break;
    case TypeId::kSmallInt:
      PutBigEndian(&out, static_cast<uint16_t>(value.GetInt()), 2);
      break;
    case TypeId::kInteger:
      PutBigEndian(&out, static_cast<uint32_t>(value.GetInt()), 4);
      break;
    case TypeId::kBigInt:
      PutBigEndian(&out, static_cast<uint64_t>(value.GetInt()), 8);
      break;
    case TypeId::kDouble:
      PutBigEndian(&out, std::bit_cast<uint64_t>(value.GetDouble()), 8);
      break;
    case TypeId::kDecimal:
      out = DecimalToNumericBinary(value.GetWide(), value.type().scale);
      break;
    case TypeId::kChar:
    case TypeId::kVarchar:
    case TypeId::kText:
      out = value.GetString();
      break;
    case TypeId::kDate:
      PutBigEndian(&out, static_cast<uint32_t>(static_cast<int32_t>(value.GetInt() - kPgEpochDays)),
                   4);
      break;
    case TypeId::kTimestamp:
      PutBigEndian(&out, static_cast<uint64_t>(value.GetInt() - kPgEpochMicros), 8);
      break;
  }
  return out;
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
  WireReader r(bytes);
  if (bytes.size() < 8) ThrowBadBinary(n);
  int ndigits = r.ReadInt16();
  int weight = r.ReadInt16();
  auto sign = static_cast<uint16_t>(r.ReadInt16());
  int dscale = r.ReadInt16();
  if (ndigits < 0 || dscale < 0 || dscale > 1000 || r.remaining() != size_t(ndigits) * 2 ||
      (sign != 0 && sign != 0x4000 && sign != 0xC000)) {
    ThrowBadBinary(n);
  }
  if (sign == 0xC000) return "NaN";
  std::vector<int> digits(ndigits);
  for (int& d : digits) {
    d = r.ReadInt16();
    if (d < 0 || d > 9999) ThrowBadBinary(n);
  }
  // Digits beyond 38 integer digits overflow any DECIMAL: refuse early
  // instead of building a huge string.
  if (ndigits > 0 && weight > 9)
    throw DbError(sqlstate::kNumericValueOutOfRange, "numeric field overflow");
  auto group = [&](int w) {
    int i = weight - w;
    return i >= 0 && i < ndigits ? digits[i] : 0;
  };
  std::string text = sign == 0x4000 ? "-" : "";
  std::string int_part;
  for (int w = weight; w >= 0; --w) {
    char buf[8];
    std::snprintf(buf, sizeof buf, int_part.empty() ? "%d" : "%04d", group(w));
    if (!(int_part.empty() && buf[0] == '0' && buf[1] == 0)) int_part += buf;
  }
  text += int_part.empty() ? "0" : int_part;
  if (dscale > 0) {
    std::string frac;
    for (int w = -1; static_cast<int>(frac.size()) < dscale; --w) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "%04d", group(w));
      frac += buf;
    }
    text += "." + frac.substr(0, dscale);
  }
  return text;
}

std::string DecimalToNumericBinary(__int128 unscaled, int scale) {
  bool negative = unscaled < 0;
  std::string digits = decimal::FormatWide(unscaled, 0);
  if (negative) digits.erase(0, 1);
  if (static_cast<int>(digits.size()) <= scale) digits.insert(0, scale + 1 - digits.size(), '0');
  std::string int_part = digits.substr(0, digits.size() - scale);
  std::string frac_part = digits.substr(digits.size() - scale);
  int_part.insert(0, (4 - int_part.size() % 4) % 4, '0');
  frac_part.append((4 - frac_part.size() % 4) % 4, '0');
  std::vector<int16_t> groups;
  for (size_t i = 0; i < int_part.size(); i += 4)
    groups.push_back(std::stoi(int_part.substr(i, 4)));
  int weight = static_cast<int>(groups.size()) - 1;
  for (size_t i = 0; i < frac_part.size(); i += 4)
    groups.push_back(std::stoi(frac_part.substr(i, 4)));
  size_t first = 0;
  while (first < groups.size() && groups[first] == 0) {
    ++first;
    --weight;
  }
  size_t last = groups.size();
  while (last > first && groups[last - 1] == 0) --last;
  std::string out;
  if (first == last) weight = 0;
  PutBigEndian(&out, static_cast<uint16_t>(last - first), 2);
  PutBigEndian(&out, static_cast<uint16_t>(static_cast<int16_t>(weight)), 2);
  PutBigEndian(&out, negative && first != last ? 0x4000 : 0, 2);
  PutBigEndian(&out, static_cast<uint16_t>(scale), 2);
  for (size_t i = first; i < last; ++i) PutBigEndian(&out, static_cast<uint16_t>(groups[i]), 2);
  return out;
}

}  // namespace forktail
