// DECIMAL(p,s): exact fixed-point numbers stored as a scaled integer
// ("unscaled" = value * 10^s). p <= 18 ("narrow"): an int64, and the kernels
// below widen to __int128, so no intermediate of two 18-digit operands can
// overflow, and check the result against 18 digits. 19 <= p <= 38 ("wide"):
// an __int128 (DuckDB's hugeint decimals); the *Wide functions further down
// take and return __int128, check against the result precision, and fall
// back to 256-bit intermediates (MulDivRound) where a product can pass 2^127.
//
// The kernels below are inline and branch-light (rounding is arithmetic on the
// sign, not an if-chain) because the vectorized operators call them per row;
// the only out-of-line code is the cold path that throws.
//
// Result-type rules (the binder calls the *ResultType functions once per
// expression; the kernels then take the result scale). They are DuckDB's:
// when both operands are narrow the result stays narrow (precision capped at
// 18, overflow checked per row) unless its scale alone needs more, so the
// int64 kernels keep running; a wide operand makes a result of up to 38.
//   Add/Sub: scale max(s1,s2); precision max(p1-s1, p2-s2) + max(s1,s2) + 1,
//            capped at 18 (both narrow) or 38
//   Mul:     scale s1+s2; precision p1+p2, capped at 18 (both narrow and
//            s1+s2 <= 18) or 38. A scale past 38 (DuckDB: an error) is cut
//            to 38 and the exact product rounded half away from zero.
//   Div:     both narrow: integer digits i = min(18, (p1-s1) + s2) (the
//            largest quotient of a DECIMAL(p1,s1) by the smallest non-zero
//            DECIMAL(p2,s2)); scale min(max(6, s1, s2), 18 - i); precision
//            18 (SQL Server's "at least 6 fractional digits, fewer if the
//            integer part needs room"). A wide operand: precision 38, scale
//            max(6, s1, s2), cut to max(6, 38 - i) if i + scale > 38 (the
//            quotient keeps 6 fractional digits; a 33-digit integer part is
//            the runtime 22003). DuckDB divides decimals as DOUBLE and
//            PostgreSQL's numeric keeps >= 16 significant digits; this is
//            the exact middle ground.
//   Mod:     scale max(s1,s2); precision min(p1-s1, p2-s2) + max(s1,s2), capped
//            at 18 / 38 as Add; the sign follows the dividend (PostgreSQL, C).
// Any result whose magnitude needs more digits than its precision throws
// DbError 22003 "numeric field overflow"; a zero divisor throws 22012
// "division by zero".
#pragma once

#include <cassert>
#include <cstdint>
#include <string>
#include <string_view>

#include "storage/value/types.h"

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
  // n in [0, 38]: two table entries multiplied (37, 38: three).
  assert(n >= 0 && n <= 38);
  if (n <= 18) return __int128{kPow10[n]};
  if (n <= 36) return __int128{kPow10[18]} * kPow10[n - 18];
  return __int128{kPow10[18]} * kPow10[18] * kPow10[n - 36];
}

// Cold paths, out of line.
[[noreturn]] void ThrowOverflow();
[[noreturn]] void ThrowDivisionByZero();

// Divides a wide value by a positive power of ten, rounding half away from zero.
// "abs_r >= divisor - abs_r", not "2 * abs_r >= divisor": for 10^38 twice
// the remainder can pass INT128_MAX.
inline __int128 DivRound(__int128 v, __int128 divisor) {
  __int128 q = v / divisor;
  __int128 r = v % divisor;
  __int128 abs_r = r < 0 ? -r : r;
  __int128 sign = v < 0 ? -1 : 1;
  return q + sign * static_cast<__int128>(abs_r >= divisor - abs_r);
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

// ---- Wide (19..38 digits) --------------------------------------------------
// The *Wide kernels take operands of either width as __int128 (a narrow one
// sign-extended) and the result's precision `rp` (1..38): they throw 22003
// "numeric field overflow" when the result needs more than rp digits.

// True if |v| < 10^precision (precision 1..38).
inline bool FitsPrecisionWide(__int128 v, int precision) {
  __int128 limit = Pow10Wide(precision);
  return v < limit && v > -limit;
}
inline __int128 CheckWide(__int128 v, int precision) {
  if (!FitsPrecisionWide(v, precision)) [[unlikely]] {
    ThrowOverflow();
  }
  return v;
}
// v * 10^k (k 0..38), 22003 if that passes 2^127.
inline __int128 ScaleUpWide(__int128 v, int k) {
  __int128 r;
  if (__builtin_mul_overflow(v, Pow10Wide(k), &r)) [[unlikely]] {
    ThrowOverflow();
  }
  return r;
}
// Rescale for 0..38 scales, half away from zero when reducing.
inline __int128 RescaleWide(__int128 v, int from_scale, int to_scale) {
  if (to_scale >= from_scale) return ScaleUpWide(v, to_scale - from_scale);
  return DivRound(v, Pow10Wide(from_scale - to_scale));
}
// round(a * m / d) half away from zero, exact through a 256-bit
// intermediate; d != 0. Throws 22003 if the quotient passes 2^127.
__int128 MulDivRound(__int128 a, __int128 m, __int128 d);

inline __int128 AddWide(__int128 a, int sa, __int128 b, int sb, int rs, int rp) {
  __int128 r;
  if (__builtin_add_overflow(ScaleUpWide(a, rs - sa), ScaleUpWide(b, rs - sb), &r)) [[unlikely]] {
    ThrowOverflow();
  }
  return CheckWide(r, rp);
}
inline __int128 SubWide(__int128 a, int sa, __int128 b, int sb, int rs, int rp) {
  __int128 r;
  if (__builtin_sub_overflow(ScaleUpWide(a, rs - sa), ScaleUpWide(b, rs - sb), &r)) [[unlikely]] {
    ThrowOverflow();
  }
  return CheckWide(r, rp);
}
// The product at scale rs <= sa + sb.
inline __int128 MulWide(__int128 a, int sa, __int128 b, int sb, int rs, int rp) {
  int drop = sa + sb - rs;
  __int128 p;
  if (drop == 0) {
    if (__builtin_mul_overflow(a, b, &p)) [[unlikely]] {
      ThrowOverflow();
    }
  } else {
    p = MulDivRound(a, b, Pow10Wide(drop));
  }
  return CheckWide(p, rp);
}
// The quotient at scale rs, rounded half away from zero.
__int128 DivWide(__int128 a, int sa, __int128 b, int sb, int rs, int rp);
// The remainder at scale rs = max(sa, sb); sign of the dividend.
__int128 ModWide(__int128 a, int sa, __int128 b, int sb, int rs, int rp);

double ToDoubleWide(__int128 unscaled, int scale);
__int128 FromDoubleWide(double d, int precision, int scale);
// Parse for any precision 1..38 (Parse is this narrowed to int64).
__int128 ParseWide(std::string_view text, int precision, int scale);
std::string FormatWide(__int128 unscaled, int scale);

// The 22003 error raised when a value does not fit DECIMAL(precision, scale),
// with PostgreSQL's DETAIL folded in.
[[noreturn]] void ThrowFieldOverflow(int precision, int scale);

}  // namespace forktail::decimal
