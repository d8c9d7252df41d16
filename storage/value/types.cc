#include "storage/value/types.h"

#include <fmt/format.h>

#include "storage/error.h"

namespace forktail {

Type Type::Decimal(int precision, int scale) {
  if (precision < 1 || precision > kMaxDecimalPrecision) {
    throw DbError(sqlstate::kInvalidParameterValue,
                  fmt::format("NUMERIC precision {} must be between 1 and {}", precision,
                              kMaxDecimalPrecision));
  }
  if (scale < 0 || scale > precision) {
    throw DbError(
        sqlstate::kInvalidParameterValue,
        fmt::format("NUMERIC scale {} must be between 0 and precision {}", scale, precision));
  }
  return {TypeId::kDecimal, static_cast<uint8_t>(precision), static_cast<uint8_t>(scale)};
}

uint32_t Type::StripeWidth() const {
  switch (id) {
    case TypeId::kBoolean:
      return 1;
    case TypeId::kSmallInt:
      return 2;
    case TypeId::kInteger:
      return 4;
    case TypeId::kDate:
      return 4;
    case TypeId::kDecimal:
      return IsWideDecimal() ? 16 : 8;
    case TypeId::kBigInt:
    case TypeId::kDouble:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return 8;
    case TypeId::kChar:
    case TypeId::kVarchar:
    case TypeId::kText:
    case TypeId::kJsonb:
    case TypeId::kUuid:
    case TypeId::kBytea:
    case TypeId::kInterval:
    case TypeId::kTime:
    case TypeId::kJson:
      return 8;  // StringRef
  }
  return 8;
}

std::string Type::ToString() const {
  switch (id) {
    case TypeId::kBoolean:
      return "boolean";
    case TypeId::kSmallInt:
      return "smallint";
    case TypeId::kInteger:
      return "integer";
    case TypeId::kBigInt:
      return "bigint";
    case TypeId::kDouble:
      return "double precision";
    case TypeId::kDecimal:
      return fmt::format("numeric({},{})", precision, scale);
    case TypeId::kChar:
      return fmt::format("character({})", length);
    case TypeId::kVarchar:
      return length == 0 ? "character varying" : fmt::format("character varying({})", length);
    case TypeId::kText:
      if (IsArrayText()) {
        Type e = ArrayElement();
        return (e.id == TypeId::kDecimal ? std::string("numeric") : e.ToString()) + "[]";
      }
      return "text";
    case TypeId::kDate:
      return "date";
    case TypeId::kTimestamp:
      return "timestamp without time zone";
    case TypeId::kTimestampTz:
      return "timestamp with time zone";
    case TypeId::kJsonb:
      return "jsonb";
    case TypeId::kUuid:
      return "uuid";
    case TypeId::kBytea:
      return "bytea";
    case TypeId::kInterval:
      return "interval";
    case TypeId::kTime:
      return "time without time zone";
    case TypeId::kJson:
      return "json";
  }
  return "unknown";
}

}  // namespace forktail
