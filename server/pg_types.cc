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
        return ParseText(text, DecimalTypeForText(text));
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

}  // namespace

std::string EncodeTextValue(const Value& value) { return value.ToString(); }

std::string EncodeBinaryValue(const Value& value) { return PgBinarySend(value); }

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
    if (client_oid == pgoid::kNumeric) return ParseText(bytes, DecimalTypeForText(bytes));
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
