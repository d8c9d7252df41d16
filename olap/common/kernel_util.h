// Helpers shared by the kernel files (internal to olap).
#pragma once

#include <cmath>
#include <limits>
#include <string>

#include "olap/common/data_chunk.h"
#include "storage/error.h"

namespace forktail {

inline constexpr int64_t kPow10[19] = {1LL,
                                       10LL,
                                       100LL,
                                       1000LL,
                                       10000LL,
                                       100000LL,
                                       1000000LL,
                                       10000000LL,
                                       100000000LL,
                                       1000000000LL,
                                       10000000000LL,
                                       100000000000LL,
                                       1000000000000LL,
                                       10000000000000LL,
                                       100000000000000LL,
                                       1000000000000000LL,
                                       10000000000000000LL,
                                       100000000000000000LL,
                                       1000000000000000000LL};

inline __int128 Pow10i128(int k) {
  __int128 r = 1;
  for (int i = 0; i < k; ++i) r *= 10;
  return r;
}

// n / d rounded half away from zero (d != 0).
inline __int128 DivRound(__int128 n, __int128 d) {
  __int128 q = n / d, r = n % d;
  if (r < 0) r = -r;
  __int128 ad = d < 0 ? -d : d;
  if (2 * r >= ad) q += ((n < 0) != (d < 0)) ? -1 : 1;
  return q;
}

// Checks a DECIMAL(p, s) unscaled value fits p digits.
inline int64_t CheckDecimal(__int128 v, int precision) {
  __int128 lim = kPow10[precision];
  if (v >= lim || v <= -lim) {
    throw DbError(sqlstate::kNumericValueOutOfRange, "numeric field overflow");
  }
  return static_cast<int64_t>(v);
}

// Rescales an unscaled decimal from scale `from` to scale `to` (rounding).
inline __int128 Rescale(__int128 v, int from, int to) {
  if (to >= from) return v * Pow10i128(to - from);
  return DivRound(v, Pow10i128(from - to));
}

[[noreturn]] inline void OutOfRange(const Type& t) {
  const char* name = t.id == TypeId::kSmallInt  ? "smallint"
                     : t.id == TypeId::kInteger ? "integer"
                                                : "bigint";
  throw DbError(sqlstate::kNumericValueOutOfRange, std::string(name) + " out of range");
}

[[noreturn]] inline void DivisionByZero() {
  throw DbError(sqlstate::kDivisionByZero, "division by zero");
}

// Output nulls = union of the inputs' nulls, over the words `rows` touch.
inline void UnionNulls(const Vector& a, const Vector* b, Rows rows, Vector* out) {
  if (rows.count == 0) return;
  const uint64_t* na = a.nulls();
  const uint64_t* nb = b == nullptr ? nullptr : b->nulls();
  if (na == nullptr && nb == nullptr) {
    out->ClearNulls();
    return;
  }
  uint32_t words = rows[rows.count - 1] / 64 + 1;
  uint64_t* o = out->mutable_nulls();
  uint64_t any = 0;
  for (uint32_t w = 0; w < words; ++w) {
    o[w] = (na == nullptr ? 0 : na[w]) | (nb == nullptr ? 0 : nb[w]);
    any |= o[w];
  }
  // No NULL among the rows: no bitmap, so the kernel and those after it take
  // their no-NULL loops.
  if (any == 0) out->ClearNulls();
}

inline std::string_view TrimTrailingBlanks(std::string_view s) {
  size_t n = s.size();
  while (n > 0 && s[n - 1] == ' ') --n;
  return s.substr(0, n);
}

}  // namespace forktail
