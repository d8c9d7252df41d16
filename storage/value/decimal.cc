#include "storage/value/decimal.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "storage/error.h"

namespace forktail::decimal {

void ThrowOverflow() { throw DbError(sqlstate::kNumericValueOutOfRange, "numeric field overflow"); }

void ThrowDivisionByZero() { throw DbError(sqlstate::kDivisionByZero, "division by zero"); }

void ThrowFieldOverflow(int precision, int scale) {
  int max_digits = precision - scale;
  std::string limit = max_digits > 0 ? fmt::format("10^{}", max_digits) : "1";
  throw DbError(sqlstate::kNumericValueOutOfRange,
                fmt::format("numeric field overflow: a field with precision {}, scale {} must "
                            "round to an absolute value less than {}",
                            precision, scale, limit));
}

namespace {

bool BothNarrow(const Type& a, const Type& b) {
  return a.precision <= kMaxNarrowDecimalPrecision && b.precision <= kMaxNarrowDecimalPrecision;
}

// Caps a result precision: 18 when both operands are narrow (DuckDB keeps
// those results in int64 and checks each row), 38 otherwise.
int CapPrecision(const Type& a, const Type& b, int precision) {
  return std::min(BothNarrow(a, b) ? kMaxNarrowDecimalPrecision : kMaxDecimalPrecision, precision);
}

}  // namespace

Type AddResultType(const Type& a, const Type& b) {
  int scale = std::max(a.scale, b.scale);
  int int_digits = std::max(a.precision - a.scale, b.precision - b.scale);
  int precision = CapPrecision(a, b, int_digits + scale + 1);
  return Type::Decimal(std::max(precision, std::max(scale, 1)), scale);
}

Type MulResultType(const Type& a, const Type& b) {
  int scale = std::min(kMaxDecimalPrecision, a.scale + b.scale);
  int precision = a.precision + b.precision;
  precision = scale <= kMaxNarrowDecimalPrecision ? CapPrecision(a, b, precision)
                                                  : std::min(kMaxDecimalPrecision, precision);
  return Type::Decimal(std::max(precision, std::max(scale, 1)), scale);
}

Type DivResultType(const Type& a, const Type& b) {
  int scale = std::max({6, int(a.scale), int(b.scale)});
  if (BothNarrow(a, b)) {
    int int_digits = std::min(kMaxNarrowDecimalPrecision, (a.precision - a.scale) + b.scale);
    scale = std::min(scale, kMaxNarrowDecimalPrecision - int_digits);
    return Type::Decimal(kMaxNarrowDecimalPrecision, scale);
  }
  int int_digits = std::min(kMaxDecimalPrecision, (a.precision - a.scale) + b.scale);
  if (int_digits + scale > kMaxDecimalPrecision) {
    scale = std::min(scale, std::max(6, kMaxDecimalPrecision - int_digits));
  }
  return Type::Decimal(kMaxDecimalPrecision, scale);
}

Type ModResultType(const Type& a, const Type& b) {
  int scale = std::max(a.scale, b.scale);
  int int_digits = std::min(a.precision - a.scale, b.precision - b.scale);
  int precision = CapPrecision(a, b, int_digits + scale);
  return Type::Decimal(std::max(precision, std::max(scale, 1)), scale);
}

namespace {

using U128 = unsigned __int128;

U128 Magnitude(__int128 v) { return v < 0 ? U128(0) - U128(v) : U128(v); }

// a * b as a 256-bit magnitude {hi, lo}.
void Mul256(U128 a, U128 b, U128* hi, U128* lo) {
  uint64_t a0 = static_cast<uint64_t>(a), a1 = static_cast<uint64_t>(a >> 64);
  uint64_t b0 = static_cast<uint64_t>(b), b1 = static_cast<uint64_t>(b >> 64);
  U128 p00 = U128(a0) * b0, p01 = U128(a0) * b1, p10 = U128(a1) * b0, p11 = U128(a1) * b1;
  U128 mid = (p00 >> 64) + static_cast<uint64_t>(p01) + static_cast<uint64_t>(p10);
  *lo = (mid << 64) | static_cast<uint64_t>(p00);
  *hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
}

}  // namespace

__int128 MulDivRound(__int128 a, __int128 m, __int128 d) {
  if (d == 0) ThrowDivisionByZero();
  bool negative = ((a < 0) != (m < 0)) != (d < 0);
  U128 ad = Magnitude(d), q, r;
  __int128 p;
  if (!__builtin_mul_overflow(a, m, &p)) {
    U128 ap = Magnitude(p);
    q = ap / ad;
    r = ap % ad;
  } else {
    U128 hi, lo;
    Mul256(Magnitude(a), Magnitude(m), &hi, &lo);
    if (hi >= ad) ThrowOverflow();  // the quotient needs more than 128 bits
    // Long division of hi:lo by ad, one bit at a time (rare path).
    q = 0;
    r = hi;
    for (int i = 127; i >= 0; --i) {
      bool carry = (r >> 127) != 0;
      r = (r << 1) | ((lo >> i) & 1);
      q <<= 1;
      if (carry || r >= ad) {
        r -= ad;
        q |= 1;
      }
    }
  }
  if (r >= ad - r) ++q;  // 2r >= d without overflow
  if (q > (U128(1) << 127) - 1) ThrowOverflow();
  __int128 out = static_cast<__int128>(q);
  return negative ? -out : out;
}

__int128 DivWide(__int128 a, int sa, __int128 b, int sb, int rs, int rp) {
  if (b == 0) [[unlikely]]
    ThrowDivisionByZero();
  int shift = rs - sa + sb;
  __int128 q;
  if (shift > 38) {
    // |b| < 10^38: if a * 10^(shift-38) passes 2^127, so does the quotient.
    q = MulDivRound(ScaleUpWide(a, shift - 38), Pow10Wide(38), b);
  } else if (shift >= 0) {
    q = MulDivRound(a, Pow10Wide(shift), b);
  } else {
    q = DivRound(DivRound(a, b), Pow10Wide(-shift));
  }
  return CheckWide(q, rp);
}

__int128 ModWide(__int128 a, int sa, __int128 b, int sb, int rs, int rp) {
  if (b == 0) [[unlikely]]
    ThrowDivisionByZero();
  return CheckWide(ScaleUpWide(a, rs - sa) % ScaleUpWide(b, rs - sb), rp);
}

double ToDoubleWide(__int128 unscaled, int scale) {
  if (unscaled < (__int128{1} << 53) && unscaled > -(__int128{1} << 53) && scale <= 22) {
    // Both operands exact in a double (10^22 is): one correctly rounded division.
    return static_cast<double>(static_cast<int64_t>(unscaled)) /
           static_cast<double>(Pow10Wide(scale));
  }
  std::string s = FormatWide(unscaled, scale);
  double d = 0;
  std::from_chars(s.data(), s.data() + s.size(), d);
  return d;
}

__int128 FromDoubleWide(double d, int precision, int scale) {
  if (std::isnan(d)) {
    throw DbError(sqlstate::kNumericValueOutOfRange, "cannot convert NaN to numeric");
  }
  if (std::isinf(d)) {
    throw DbError(sqlstate::kNumericValueOutOfRange, "cannot convert infinity to numeric");
  }
  char buf[64];
  int n = std::snprintf(buf, sizeof(buf), "%.15g", d);
  return ParseWide(std::string_view(buf, n), precision, scale);
}

double ToDouble(int64_t unscaled, int scale) {
  // Both operands exact in a double: one correctly rounded division.
  if (unscaled < (int64_t{1} << 53) && unscaled > -(int64_t{1} << 53)) {
    return static_cast<double>(unscaled) / static_cast<double>(kPow10[scale]);
  }
  return ToDoubleWide(unscaled, scale);
}

int64_t FromDouble(double d, int precision, int scale) {
  assert(precision <= kMaxNarrowDecimalPrecision);
  return static_cast<int64_t>(FromDoubleWide(d, precision, scale));
}

namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

[[noreturn]] void ThrowSyntax(std::string_view text) {
  throw DbError(sqlstate::kInvalidTextRepresentation,
                fmt::format("invalid input syntax for type numeric: \"{}\"", text));
}

}  // namespace

int64_t Parse(std::string_view text, int precision, int scale) {
  assert(precision <= kMaxNarrowDecimalPrecision);
  return static_cast<int64_t>(ParseWide(text, precision, scale));
}

__int128 ParseWide(std::string_view text, int precision, int scale) {
  size_t i = 0, n = text.size();
  while (i < n && IsSpace(text[i])) ++i;
  bool negative = false;
  if (i < n && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  // Significant digits (leading zeros dropped) and the power of ten of the
  // last one: value = digits * 10^exp10.
  std::string digits;
  int64_t exp10 = 0;
  bool any_digit = false, seen_point = false;
  for (; i < n; ++i) {
    char c = text[i];
    if (c >= '0' && c <= '9') {
      any_digit = true;
      if (!digits.empty() || c != '0') digits.push_back(c);
      if (seen_point) --exp10;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!any_digit) {
    std::string_view rest = text.substr(i);
    while (!rest.empty() && IsSpace(rest.back())) rest.remove_suffix(1);
    auto iequals = [](std::string_view a, std::string_view b) {
      return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return (x | 0x20) == (y | 0x20);
             });
    };
    if (iequals(rest, "nan") || iequals(rest, "infinity") || iequals(rest, "inf")) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    fmt::format("NaN and infinity are not supported for type {}: \"{}\"",
                                Type::Decimal(precision, scale).ToString(), text));
    }
    ThrowSyntax(text);
  }
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < n && (text[i] == '+' || text[i] == '-')) exp_negative = text[i++] == '-';
    if (i >= n || text[i] < '0' || text[i] > '9') ThrowSyntax(text);
    int64_t e = 0;
    for (; i < n && text[i] >= '0' && text[i] <= '9'; ++i) {
      e = std::min<int64_t>(e * 10 + (text[i] - '0'), 1000000);
    }
    exp10 += exp_negative ? -e : e;
  }
  while (i < n && IsSpace(text[i])) ++i;
  if (i != n) ThrowSyntax(text);

  if (digits.empty()) return 0;
  int64_t len = static_cast<int64_t>(digits.size());
  if (len + exp10 > precision - scale) ThrowFieldOverflow(precision, scale);
  int64_t shift = exp10 + scale;  // digits * 10^shift is the unscaled value
  __int128 v = 0;
  if (shift >= 0) {
    for (char c : digits) v = v * 10 + (c - '0');
    v *= Pow10Wide(static_cast<int>(shift));
  } else {
    int64_t keep = len + shift;  // digits left after dropping -shift of them
    for (int64_t k = 0; k < keep; ++k) v = v * 10 + (digits[k] - '0');
    if (keep >= 0 && digits[keep] >= '5') ++v;
  }
  if (v >= Pow10Wide(precision)) ThrowFieldOverflow(precision, scale);
  return negative ? -v : v;
}

std::string Format(int64_t unscaled, int scale) { return FormatWide(unscaled, scale); }

std::string FormatWide(__int128 unscaled, int scale) {
  U128 mag = Magnitude(unscaled);
  char buf[48];
  char* end = buf + sizeof(buf);
  char* p = end;
  do {
    *--p = static_cast<char>('0' + static_cast<int>(mag % 10));
    mag /= 10;
  } while (mag != 0);
  std::string digits(p, end);
  if (static_cast<int>(digits.size()) <= scale) {
    digits.insert(0, scale + 1 - digits.size(), '0');
  }
  if (scale > 0) digits.insert(digits.size() - scale, 1, '.');
  if (unscaled < 0) digits.insert(0, 1, '-');
  return digits;
}

}  // namespace forktail::decimal
