#include "storage/table/cell.h"

#include <xxhash.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace forktail {

uint64_t HashInt(int64_t i) { return XXH3_64bits(&i, sizeof(i)); }

uint64_t HashDouble(double d) {
  if (d == 0) d = 0;  // -0 -> 0
  if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof(bits));
  return XXH3_64bits(&bits, sizeof(bits));
}

uint64_t HashBytes(std::string_view s) { return XXH3_64bits(s.data(), s.size()); }

uint64_t HashCell(const Value& v) {
  if (v.is_null()) return 0x5bd1e9955bd1e995ull;
  if (v.type().StoredAsString()) return HashBytes(v.GetString());
  if (v.type().id == TypeId::kDouble) return HashDouble(v.GetDouble());
  if (v.type().IsWideDecimal()) {
    __int128 w = v.GetWide();
    return XXH3_64bits(&w, sizeof(w));
  }
  return HashInt(v.GetInt());
}

Value IntValue(const Type& type, int64_t i) {
  switch (type.id) {
    case TypeId::kBoolean:
      return Value::Boolean(i != 0);
    case TypeId::kSmallInt:
      return Value::SmallInt(static_cast<int16_t>(i));
    case TypeId::kInteger:
      return Value::Integer(static_cast<int32_t>(i));
    case TypeId::kDate:
      return Value::Date(static_cast<int32_t>(i));
    case TypeId::kTimestamp:
      return Value::Timestamp(i);
    case TypeId::kTimestampTz:
      return Value::TimestampTz(i);
    case TypeId::kDecimal:
      return Value::Decimal(i, type.precision, type.scale);
    default:
      return Value::BigInt(i);
  }
}

int CompareCell(const Value& a, const Value& b) {
  if (a.is_null() || b.is_null()) return a.is_null() == b.is_null() ? 0 : (a.is_null() ? 1 : -1);
  if (a.type().StoredAsString()) {
    int c = a.GetString().compare(b.GetString());
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (a.type().id == TypeId::kDouble) {
    double x = a.GetDouble(), y = b.GetDouble();
    bool xn = std::isnan(x), yn = std::isnan(y);
    if (xn || yn) return xn == yn ? 0 : (xn ? 1 : -1);
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  __int128 x = a.GetWide(), y = b.GetWide();  // same type: same scale
  return x < y ? -1 : (x > y ? 1 : 0);
}

}  // namespace forktail
