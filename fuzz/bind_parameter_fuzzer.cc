// Bind parameters (server/pg_types.h DecodeParameter): the value bytes a
// client sends, read by the text input functions (integers, numeric, dates,
// timestamps, booleans, ...) or by the binary receive functions
// (storage/value/pg_binary.h), then cast to the type the statement expects.
// Byte 0: bit 7 binary format, bits 0-4 the OID Parse declared; byte 1 the
// target type; the rest the value. Bad values are DbErrors (22P02, 22P03,
// 22007, 22008, 22003, 22021, 42P18, ...).
#include <array>
#include <optional>
#include <string_view>

#include "fuzz/fuzz_target.h"
#include "server/pg_types.h"

namespace forktail {
namespace {

constexpr std::array<int32_t, 19> kClientOids = {pgoid::kUnspecified,
                                                 pgoid::kBool,
                                                 pgoid::kChar,
                                                 pgoid::kName,
                                                 pgoid::kInt8,
                                                 pgoid::kInt2,
                                                 pgoid::kInt4,
                                                 pgoid::kText,
                                                 pgoid::kOid,
                                                 pgoid::kFloat4,
                                                 pgoid::kFloat8,
                                                 pgoid::kUnknown,
                                                 pgoid::kBpchar,
                                                 pgoid::kVarchar,
                                                 pgoid::kDate,
                                                 pgoid::kTimestamp,
                                                 pgoid::kTimestampTz,
                                                 pgoid::kNumeric,
                                                 17 /* bytea: not known */};

std::optional<Type> Target(uint8_t index) {
  switch (index % 18) {
    case 0:
      return std::nullopt;
    case 1:
      return Type::Boolean();
    case 2:
      return Type::SmallInt();
    case 3:
      return Type::Integer();
    case 4:
      return Type::BigInt();
    case 5:
      return Type::Double();
    case 6:
      return Type::Decimal(10, 2);
    case 7:
      return Type::Decimal(38, 10);
    case 8:
      return Type::Decimal(18, 0);
    case 9:
      return Type::Decimal(1, 1);
    case 10:
      return Type::Char(3);
    case 11:
      return Type::Varchar(5);
    case 12:
      return Type::Varchar();
    case 13:
      return Type::Text();
    case 14:
      return Type::Date();
    case 15:
      return Type::Timestamp();
    case 16:
      return Type::TimestampTz();
    default:
      return Type::Decimal(20, 19);
  }
}

}  // namespace
}  // namespace forktail

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const int16_t format = (data[0] & 0x80) ? 1 : 0;
  const int32_t oid = forktail::kClientOids[(data[0] & 0x1f) % forktail::kClientOids.size()];
  std::string_view bytes(reinterpret_cast<const char*>(data) + 2, size - 2);
  try {
    std::optional<forktail::Type> target = forktail::Target(data[1]);
    forktail::Value v = forktail::DecodeParameter(bytes, format, oid, target, 1);
    // What the server then does with a value: send it back in both formats.
    if (!v.is_null()) {
      (void)forktail::EncodeTextValue(v);
      (void)forktail::EncodeBinaryValue(v);
    }
  } catch (const forktail::DbError& e) {
    forktail::fuzz::CheckDbError(e);
  }
  return 0;
}
