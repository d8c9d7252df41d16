// Forktail types as PostgreSQL types: the OIDs clients see (RowDescription,
// parameter types, pg_type), and the binary form of arrays (array_send /
// array_recv), which the wire protocol (server/pg_types.h) and binary COPY
// (olap/session/format/) share through PgBinarySend / PgBinaryReceive.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "storage/value/value.h"

namespace forktail {

namespace pgoid {
inline constexpr int32_t kUnspecified = 0;
inline constexpr int32_t kBool = 16;
inline constexpr int32_t kChar = 18;
inline constexpr int32_t kName = 19;
inline constexpr int32_t kInt8 = 20;
inline constexpr int32_t kInt2 = 21;
inline constexpr int32_t kInt4 = 23;
inline constexpr int32_t kText = 25;
inline constexpr int32_t kOid = 26;
inline constexpr int32_t kFloat4 = 700;
inline constexpr int32_t kFloat8 = 701;
inline constexpr int32_t kUnknown = 705;
inline constexpr int32_t kBpchar = 1042;
inline constexpr int32_t kVarchar = 1043;
inline constexpr int32_t kDate = 1082;
inline constexpr int32_t kTimestamp = 1114;
inline constexpr int32_t kTimestampTz = 1184;
inline constexpr int32_t kJsonb = 3802;
inline constexpr int32_t kUuid = 2950;
inline constexpr int32_t kBytea = 17;
inline constexpr int32_t kInterval = 1186;
inline constexpr int32_t kTime = 1083;
inline constexpr int32_t kJson = 114;
inline constexpr int32_t kNumeric = 1700;
}  // namespace pgoid

struct PgTypeInfo {
  int32_t oid = 0;
  int16_t length = -1;
  int32_t modifier = -1;
};
PgTypeInfo PgTypeOf(const Type& type);

// The Forktail type a client's parameter OID stands for; nullopt for 0 and
// OIDs Forktail has no type for.
std::optional<Type> TypeFromPgOid(int32_t oid);

// A DECIMAL type wide enough for a numeric text ("12.345" -> (18,3));
// DECIMAL(38,s) only when 18 digits cannot hold it: an unconstrained
// numeric keeps its own scale.
Type DecimalTypeForText(std::string_view text);

// array_send of a one-dimensional array (Type::ArrayText, not a catalog
// one): dimensions, a NULL flag, the element oid, then each element in its
// type's binary form (-1 for NULL).
std::string PgArraySend(const Value& array);
// array_recv: the elements read as the element oid the bytes name (a client
// may send int2 elements for a bigint[]), the result an `array` value in
// canonical form. 22P03 for a malformed one, 0A000 for more than one
// dimension.
Value PgArrayReceive(std::string_view bytes, const Type& array);

}  // namespace forktail
