// DECIMAL(p,s), p <= 18: exact fixed-point numbers stored as a scaled int64
// ("unscaled" = value * 10^s). Arithmetic widens to __int128, so no
// intermediate of two 18-digit operands can overflow, and checks the result
// against 18 digits.
//
// The kernels below are inline and branch-light (rounding is arithmetic on the
// sign, not an if-chain) because the vectorized operators call them per row;
// the only out-of-line code is the cold path that throws.
//
// Result-type rules (the binder calls the *ResultType functions once per
// expression; the kernels then take the result scale):
//   Add/Sub: scale max(s1,s2); precision min(18, max(p1-s1, p2-s2) + max(s1,s2) + 1)
//   Mul:     scale min(18, s1+s2), the exact product rounded half away from zero
//            when s1+s2 > 18; precision min(18, p1+p2)
//   Div:     integer digits i = min(18, (p1-s1) + s2) (the largest quotient of a
//            DECIMAL(p1,s1) by the smallest non-zero DECIMAL(p2,s2));
//            scale min(max(6, s1, s2), 18 - i); precision 18. PostgreSQL's
//            numeric gives at least 16 significant digits, which an int64
//            cannot carry next to a large integer part; SQL Server's "at
//            least 6 fractional digits, fewer if the integer part needs
//            room" is the closest fit for 18 digits, so we follow it.
//   Mod:     scale max(s1,s2); precision min(18, min(p1-s1, p2-s2) + max(s1,s2));
//            the sign follows the dividend (as in PostgreSQL and C).
// Any result whose magnitude needs more than 18 digits throws DbError 22003
// "numeric field overflow"; a zero divisor throws 22012 "division by zero".
#pragma once

#include <cassert>
#include <cstdint>
#include <string>
#include <string_view>

#include "storage/types.h"

namespace forktail::decimal {

inline constexpr int64_t kPow10[19] = {1,
                                       10,
                                       100,
                                       1000,
                                       10000,
                                       100000,
                                       1000000,
                                       10000000,
                                       100000000,
                                       1000000000,
                                       10000000000,
                                       100000000000,
                                       1000000000000,
                                       10000000000000,
                                       100000000000000,
                                       1000000000000000,
                                       10000000000000000,
                                       100000000000000000,
                                       1000000000000000000};
// The largest unscaled magnitude of any DECIMAL: 18 nines.
inline constexpr int64_t kMaxUnscaled = kPow10[18] - 1;

inline __int128 Pow10Wide(int n) {
  // n in [0, 36]: two table entries multiplied.
  return n <= 18 ? __int128{kPow10[n]} : __int128{kPow10[18]} * kPow10[n - 18];
}

// Cold paths, out of line.
[[noreturn]] void ThrowOverflow();
[[noreturn]] void ThrowDivisionByZero();

// Divides a wide value by a positive power of ten, rounding half away from zero.
inline __int128 DivRound(__int128 v, __int128 divisor) {
  __int128 q = v / divisor;
  __int128 r = v % divisor;
  __int128 abs_r = r < 0 ? -r : r;
  __int128 sign = v < 0 ? -1 : 1;
  return q + sign * static_cast<__int128>(2 * abs_r >= divisor);
}

// The same in 64 bits: a hardware division instead of a __divti3 call.
inline int64_t DivRound(int64_t v, int64_t divisor) {
  int64_t q = v / divisor;
  int64_t r = v % divisor;
  int64_t abs_r = r < 0 ? -r : r;
  int64_t sign = v < 0 ? -1 : 1;
  return q + sign * static_cast<int64_t>(2 * abs_r >= divisor);
}

// Narrows to int64 and throws unless the magnitude fits 18 digits.
inline int64_t CheckedNarrow(__int128 v) {
  if (v > kMaxUnscaled || v < -kMaxUnscaled) [[unlikely]] {
    ThrowOverflow();
  }
  return static_cast<int64_t>(v);
}

// True if |v| < 10^precision.
inline bool FitsPrecision(int64_t v, int precision) {
  int64_t limit = kPow10[precision];
  return v < limit && v > -limit;
}

// Changes the scale of `v` from `from_scale` to `to_scale` (both 0..18),
// rounding half away from zero when reducing. Throws 22003 past 18 digits.
inline int64_t Rescale(int64_t v, int from_scale, int to_scale) {
  assert(from_scale >= 0 && from_scale <= 18 && to_scale >= 0 && to_scale <= 18);
  if (to_scale >= from_scale) {
    return CheckedNarrow(__int128{v} * kPow10[to_scale - from_scale]);
  }
  return DivRound(v, kPow10[from_scale - to_scale]);
}

Type AddResultType(const Type& a, const Type& b);
inline Type SubResultType(const Type& a, const Type& b) { return AddResultType(a, b); }
Type MulResultType(const Type& a, const Type& b);
Type DivResultType(const Type& a, const Type& b);
Type ModResultType(const Type& a, const Type& b);

// a (scale sa) + b (scale sb) with the result at scale `rs` >= max(sa, sb).
inline int64_t Add(int64_t a, int sa, int64_t b, int sb, int rs) {
  assert(rs >= sa && rs >= sb && rs <= 18);
  return CheckedNarrow(__int128{a} * kPow10[rs - sa] + __int128{b} * kPow10[rs - sb]);
}
inline int64_t Sub(int64_t a, int sa, int64_t b, int sb, int rs) {
  assert(rs >= sa && rs >= sb && rs <= 18);
  return CheckedNarrow(__int128{a} * kPow10[rs - sa] - __int128{b} * kPow10[rs - sb]);
}
// The product has scale sa + sb; it is rounded to `rs` <= sa + sb.
inline int64_t Mul(int64_t a, int sa, int64_t b, int sb, int rs) {
  __int128 p = __int128{a} * b;
  int drop = sa + sb - rs;
  assert(drop >= 0 && rs <= 18);
  if (drop > 0) p = DivRound(p, Pow10Wide(drop));
  return CheckedNarrow(p);
}
// Quotient at scale `rs`, rounded half away from zero. Requires
// rs - sa + sb <= 18 (true for DivResultType's scale).
inline int64_t Div(int64_t a, int sa, int64_t b, int sb, int rs) {
  if (b == 0) [[unlikely]]
    ThrowDivisionByZero();
  int shift = rs - sa + sb;
  assert(shift <= 18 && shift >= -18);
  __int128 num = __int128{a};
  __int128 den = __int128{b};
  if (shift >= 0) {
    num *= kPow10[shift];
  } else {
    den *= Pow10Wide(-shift);
  }
  // Round half away from zero: |num| / |den| rounded, then the sign.
  __int128 an = num < 0 ? -num : num;
  __int128 ad = den < 0 ? -den : den;
  if ((an >> 62) == 0 && (ad >> 62) == 0) [[likely]] {
    // Both fit 62 bits (2 * remainder cannot overflow): 64-bit division.
    uint64_t n64 = static_cast<uint64_t>(an), d64 = static_cast<uint64_t>(ad);
    int64_t q = static_cast<int64_t>(n64 / d64 + (2 * (n64 % d64) >= d64));
    return CheckedNarrow(((num < 0) != (den < 0)) ? -q : q);
  }
  __int128 q = an / ad;
  q += static_cast<__int128>(2 * (an % ad) >= ad);
  return CheckedNarrow(((num < 0) != (den < 0)) ? -q : q);
}
// Remainder at scale rs = max(sa, sb); sign of the dividend.
inline int64_t Mod(int64_t a, int sa, int64_t b, int sb, int rs) {
  if (b == 0) [[unlikely]]
    ThrowDivisionByZero();
  __int128 x = __int128{a} * kPow10[rs - sa];
  __int128 y = __int128{b} * kPow10[rs - sb];
  return CheckedNarrow(x % y);
}

// Conversions. ToDouble is correctly rounded; FromDouble rounds the double's
// 15-significant-digit decimal form (as PostgreSQL's float8 -> numeric does)
// half away from zero to `scale` and throws 22003 unless it fits `precision`
// (NaN and infinities throw too).
double ToDouble(int64_t unscaled, int scale);
int64_t FromDouble(double d, int precision, int scale);

// PostgreSQL's numeric text input for a DECIMAL(precision, scale): blanks,
// sign, digits, optional '.', optional exponent ("1.5e3"); extra fractional
// digits round half away from zero. Throws 22P02 `invalid input syntax for
// type numeric: "..."` or 22003 `numeric field overflow: ...`.
int64_t Parse(std::string_view text, int precision, int scale);
// Exactly `scale` fractional digits: Format(1250, 2) == "12.50".
std::string Format(int64_t unscaled, int scale);

// The 22003 error raised when a value does not fit DECIMAL(precision, scale),
// with PostgreSQL's DETAIL folded in.
[[noreturn]] void ThrowFieldOverflow(int precision, int scale);

}  // namespace forktail::decimal
