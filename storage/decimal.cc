#include "storage/decimal.h"

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

Type AddResultType(const Type& a, const Type& b) {
  int scale = std::max(a.scale, b.scale);
  int int_digits = std::max(a.precision - a.scale, b.precision - b.scale);
  int precision = std::min(kMaxDecimalPrecision, int_digits + scale + 1);
  return Type::Decimal(std::max(precision, std::max(scale, 1)), scale);
}

Type MulResultType(const Type& a, const Type& b) {
  int scale = std::min(kMaxDecimalPrecision, a.scale + b.scale);
  int precision = std::min(kMaxDecimalPrecision, a.precision + b.precision);
  return Type::Decimal(std::max(precision, scale), scale);
}

Type DivResultType(const Type& a, const Type& b) {
  int int_digits = std::min(kMaxDecimalPrecision, (a.precision - a.scale) + b.scale);
  int scale = std::max({6, int(a.scale), int(b.scale)});
  scale = std::min(scale, kMaxDecimalPrecision - int_digits);
  return Type::Decimal(kMaxDecimalPrecision, scale);
}

Type ModResultType(const Type& a, const Type& b) {
  int scale = std::max(a.scale, b.scale);
  int int_digits = std::min(a.precision - a.scale, b.precision - b.scale);
  int precision = std::min(kMaxDecimalPrecision, int_digits + scale);
  return Type::Decimal(std::max(precision, std::max(scale, 1)), scale);
}

double ToDouble(int64_t unscaled, int scale) {
  // Both operands exact in a double: one correctly rounded division.
  if (unscaled < (int64_t{1} << 53) && unscaled > -(int64_t{1} << 53)) {
    return static_cast<double>(unscaled) / static_cast<double>(kPow10[scale]);
  }
  std::string s = Format(unscaled, scale);
  double d = 0;
  std::from_chars(s.data(), s.data() + s.size(), d);
  return d;
}

int64_t FromDouble(double d, int precision, int scale) {
  if (std::isnan(d)) {
    throw DbError(sqlstate::kNumericValueOutOfRange, "cannot convert NaN to numeric");
  }
  if (std::isinf(d)) {
    throw DbError(sqlstate::kNumericValueOutOfRange, "cannot convert infinity to numeric");
  }
  char buf[64];
  int n = std::snprintf(buf, sizeof(buf), "%.15g", d);
  return Parse(std::string_view(buf, n), precision, scale);
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
  if (v >= kPow10[precision]) ThrowFieldOverflow(precision, scale);
  int64_t r = static_cast<int64_t>(v);
  return negative ? -r : r;
}

std::string Format(int64_t unscaled, int scale) {
  uint64_t mag = unscaled < 0 ? 0 - static_cast<uint64_t>(unscaled) : unscaled;
  std::string digits = std::to_string(mag);
  if (static_cast<int>(digits.size()) <= scale) {
    digits.insert(0, scale + 1 - digits.size(), '0');
  }
  if (scale > 0) digits.insert(digits.size() - scale, 1, '.');
  if (unscaled < 0) digits.insert(0, 1, '-');
  return digits;
}

}  // namespace forktail::decimal
