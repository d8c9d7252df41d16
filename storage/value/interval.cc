#include "storage/value/interval.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "storage/error.h"

namespace forktail::interval {

namespace {

using datetime::kMicrosPerDay;
using datetime::kMicrosPerHour;
using datetime::kMicrosPerMinute;
using datetime::kMicrosPerSecond;

constexpr int kDaysPerMonth = 30;
constexpr int kMonthsPerYear = 12;

[[noreturn]] void OutOfRange() {
  throw DbError(sqlstate::kDatetimeFieldOverflow, "interval out of range");
}

// std::make_unsigned has no __int128 in strict C++20.
template <typename T>
struct UnsignedOf;
template <>
struct UnsignedOf<int32_t> {
  using type = uint32_t;
};
template <>
struct UnsignedOf<__int128> {
  using type = unsigned __int128;
};

// Big-endian with the sign bit flipped: memcmp orders as the signed values.
template <typename T>
void PutBigEndianFlipped(T v, std::string* out) {
  using U = typename UnsignedOf<T>::type;
  U u = static_cast<U>(v) ^ (U{1} << (sizeof(T) * 8 - 1));
  for (int i = sizeof(T) - 1; i >= 0; --i) out->push_back(static_cast<char>((u >> (8 * i)) & 0xFF));
}

template <typename T>
T GetBigEndianFlipped(const char* p) {
  using U = typename UnsignedOf<T>::type;
  U u = 0;
  for (size_t i = 0; i < sizeof(T); ++i) u = (u << 8) | static_cast<uint8_t>(p[i]);
  return static_cast<T>(u ^ (U{1} << (sizeof(T) * 8 - 1)));
}

int32_t CheckedI32(__int128 v) {
  if (v > std::numeric_limits<int32_t>::max() || v < std::numeric_limits<int32_t>::min()) {
    OutOfRange();
  }
  return static_cast<int32_t>(v);
}

int64_t CheckedI64(__int128 v) {
  if (v > std::numeric_limits<int64_t>::max() || v < std::numeric_limits<int64_t>::min()) {
    OutOfRange();
  }
  return static_cast<int64_t>(v);
}

bool FitsI32(double d) { return !std::isnan(d) && d >= -2147483648.0 && d < 2147483648.0; }
bool FitsI64(double d) {
  return !std::isnan(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0;
}

// PostgreSQL's TSROUND: to whole microseconds of a value in seconds or days.
double TsRound(double v) { return std::rint(v * 1e6) / 1e6; }

// interval_mul and interval_div share their cascade: the whole months and
// days of the scaled fields, the fractions spilled down (PostgreSQL 15).
Interval Scale(double month_f, double day_f, double time_f) {
  if (!FitsI32(month_f) || !FitsI32(day_f)) OutOfRange();
  Interval r;
  r.months = static_cast<int32_t>(month_f);
  int64_t days = static_cast<int32_t>(day_f);
  double month_remainder_days = TsRound((month_f - r.months) * kDaysPerMonth);
  double sec_remainder = TsRound(
      (day_f - days + month_remainder_days - static_cast<int>(month_remainder_days)) * 86400.0);
  if (std::fabs(sec_remainder) >= 86400.0) {
    days += static_cast<int>(sec_remainder / 86400.0);
    sec_remainder -= static_cast<int>(sec_remainder / 86400.0) * 86400.0;
  }
  days += static_cast<int32_t>(month_remainder_days);
  r.days = CheckedI32(days);
  double time = std::rint(time_f + sec_remainder * 1e6);
  if (!FitsI64(time)) OutOfRange();
  r.micros = static_cast<int64_t>(time);
  return r;
}

struct Fields {
  int64_t year, mon, mday, hour, min, sec, usec;
};

Fields Split(int64_t ts) {
  datetime::DayTime dt = datetime::SplitTimestamp(ts);
  datetime::CivilDate c = datetime::CivilFromDays(dt.days);
  int64_t t = dt.time;
  return Fields{c.year,
                c.month,
                c.day,
                t / kMicrosPerHour,
                t / kMicrosPerMinute % 60,
                t / kMicrosPerSecond % 60,
                t % kMicrosPerSecond};
}

std::string Lower(std::string_view s) {
  std::string out;
  for (char c : s) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

}  // namespace

std::string Encode(const Interval& iv) {
  std::string out;
  out.reserve(kEncodedBytes);
  PutBigEndianFlipped<__int128>(Span(iv), &out);
  PutBigEndianFlipped<int32_t>(iv.months, &out);
  PutBigEndianFlipped<int32_t>(iv.days, &out);
  return out;
}

Interval Decode(std::string_view bytes) {
  Interval iv;
  __int128 span = GetBigEndianFlipped<__int128>(bytes.data());
  iv.months = GetBigEndianFlipped<int32_t>(bytes.data() + 16);
  iv.days = GetBigEndianFlipped<int32_t>(bytes.data() + 20);
  iv.micros =
      static_cast<int64_t>(span - (__int128{iv.months} * kDaysPerMonth + iv.days) * kMicrosPerDay);
  return iv;
}

__int128 Span(const Interval& iv) {
  return (__int128{iv.months} * kDaysPerMonth + iv.days) * kMicrosPerDay + iv.micros;
}

Interval FromWide(__int128 months, __int128 days, __int128 micros) {
  return Interval{CheckedI32(months), CheckedI32(days), CheckedI64(micros)};
}

Interval Add(const Interval& a, const Interval& b) {
  return Interval{CheckedI32(__int128{a.months} + b.months), CheckedI32(__int128{a.days} + b.days),
                  CheckedI64(__int128{a.micros} + b.micros)};
}

Interval Subtract(const Interval& a, const Interval& b) {
  return Interval{CheckedI32(__int128{a.months} - b.months), CheckedI32(__int128{a.days} - b.days),
                  CheckedI64(__int128{a.micros} - b.micros)};
}

Interval Negate(const Interval& a) {
  return Interval{CheckedI32(-__int128{a.months}), CheckedI32(-__int128{a.days}),
                  CheckedI64(-__int128{a.micros})};
}

Interval Multiply(const Interval& a, double factor) {
  return Scale(a.months * factor, a.days * factor, static_cast<double>(a.micros) * factor);
}

Interval Divide(const Interval& a, double divisor) {
  if (divisor == 0.0) throw DbError(sqlstate::kDivisionByZero, "division by zero");
  return Scale(a.months / divisor, a.days / divisor, static_cast<double>(a.micros) / divisor);
}

Interval Between(int64_t later, int64_t earlier) {
  return JustifyHours(Interval{0, 0, CheckedI64(__int128{later} - earlier)});
}

Interval Age(int64_t a, int64_t b) {
  Fields f1 = Split(a), f2 = Split(b);
  Fields d{f1.year - f2.year, f1.mon - f2.mon, f1.mday - f2.mday, f1.hour - f2.hour,
           f1.min - f2.min,   f1.sec - f2.sec, f1.usec - f2.usec};
  const bool negative = a < b;
  auto flip = [&d] { d = Fields{-d.year, -d.mon, -d.mday, -d.hour, -d.min, -d.sec, -d.usec}; };
  if (negative) flip();
  // Borrow from the next larger field, a month by the length of the earlier
  // timestamp's month (timestamp_age).
  while (d.usec < 0) d.usec += kMicrosPerSecond, --d.sec;
  while (d.sec < 0) d.sec += 60, --d.min;
  while (d.min < 0) d.min += 60, --d.hour;
  while (d.hour < 0) d.hour += 24, --d.mday;
  const Fields& earlier = negative ? f1 : f2;
  while (d.mday < 0) {
    d.mday += datetime::DaysInMonth(static_cast<int32_t>(earlier.year),
                                    static_cast<int32_t>(earlier.mon));
    --d.mon;
  }
  while (d.mon < 0) d.mon += 12, --d.year;
  if (negative) flip();
  return Interval{
      CheckedI32(__int128{d.year} * kMonthsPerYear + d.mon), CheckedI32(d.mday),
      CheckedI64(((__int128{d.hour} * 60 + d.min) * 60 + d.sec) * kMicrosPerSecond + d.usec)};
}

Interval JustifyHours(const Interval& a) {
  Interval r = a;
  int64_t whole_days = r.micros / kMicrosPerDay;
  r.micros -= whole_days * kMicrosPerDay;
  int64_t days = int64_t{r.days} + whole_days;
  if (days > 0 && r.micros < 0) {
    r.micros += kMicrosPerDay;
    --days;
  } else if (days < 0 && r.micros > 0) {
    r.micros -= kMicrosPerDay;
    ++days;
  }
  r.days = CheckedI32(days);
  return r;
}

Interval JustifyDays(const Interval& a) {
  Interval r = a;
  int32_t whole_months = r.days / kDaysPerMonth;
  r.days -= whole_months * kDaysPerMonth;
  int64_t months = int64_t{r.months} + whole_months;
  if (months > 0 && r.days < 0) {
    r.days += kDaysPerMonth;
    --months;
  } else if (months < 0 && r.days > 0) {
    r.days -= kDaysPerMonth;
    ++months;
  }
  r.months = CheckedI32(months);
  return r;
}

Interval JustifyInterval(const Interval& a) {
  int64_t micros = a.micros;
  int64_t whole_days = micros / kMicrosPerDay;
  micros -= whole_days * kMicrosPerDay;
  int64_t days = int64_t{a.days} + whole_days;
  int64_t whole_months = days / kDaysPerMonth;
  days -= whole_months * kDaysPerMonth;
  int64_t months = int64_t{a.months} + whole_months;
  if (months > 0 && (days < 0 || (days == 0 && micros < 0))) {
    days += kDaysPerMonth;
    --months;
  } else if (months < 0 && (days > 0 || (days == 0 && micros > 0))) {
    days -= kDaysPerMonth;
    ++months;
  }
  if (days > 0 && micros < 0) {
    micros += kMicrosPerDay;
    --days;
  } else if (days < 0 && micros > 0) {
    micros -= kMicrosPerDay;
    ++days;
  }
  return Interval{CheckedI32(months), CheckedI32(days), micros};
}

IntervalPart Part(std::string_view field, const Interval& iv) {
  std::string f = Lower(field);
  const int64_t year = iv.months / kMonthsPerYear, mon = iv.months % kMonthsPerYear;
  int64_t t = iv.micros;
  const int64_t hour = t / kMicrosPerHour;
  t -= hour * kMicrosPerHour;
  const int64_t min = t / kMicrosPerMinute;
  t -= min * kMicrosPerMinute;
  const int64_t sec_micros = t;  // seconds and their fraction, in microseconds
  auto is = [&f](std::initializer_list<const char*> names) {
    for (const char* n : names) {
      if (f == n) return true;
    }
    return false;
  };
  if (is({"microsecond", "microseconds", "us", "usec", "usecs", "useconds"})) {
    return {sec_micros, 0};
  }
  if (is({"millisecond", "milliseconds", "ms", "msec", "msecs", "mseconds"})) {
    return {sec_micros, 3};  // 10^-3 ms = 1 us
  }
  if (is({"second", "seconds", "s", "sec", "secs"})) return {sec_micros, 6};
  if (is({"minute", "minutes", "m", "min", "mins"})) return {min, 0};
  if (is({"hour", "hours", "h", "hr", "hrs"})) return {hour, 0};
  if (is({"day", "days", "d"})) return {iv.days, 0};
  if (is({"month", "months", "mon", "mons"})) return {mon, 0};
  if (is({"quarter", "qtr"})) return {mon / 3 + 1, 0};
  if (is({"year", "years", "y", "yr", "yrs"})) return {year, 0};
  if (is({"decade", "decades", "dec"})) return {year / 10, 0};
  if (is({"century", "centuries", "c", "cent"})) return {year / 100, 0};
  if (is({"millennium", "millennia", "millenniums", "mil", "mils"})) return {year / 1000, 0};
  if (f == "epoch") {
    // A year is 365.25 days here, a month 30 (interval_part_common).
    __int128 secs = __int128{31557600} * year + __int128{kDaysPerMonth} * 86400 * mon +
                    __int128{86400} * iv.days;
    return {secs * kMicrosPerSecond + iv.micros, 6};
  }
  if (is({"week", "weeks", "w", "dow", "doy", "isodow", "isoyear", "julian", "timezone",
          "timezone_h", "timezone_m"})) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  fmt::format("unit \"{}\" not supported for type interval", field));
  }
  throw DbError(sqlstate::kInvalidParameterValue,
                fmt::format("unit \"{}\" not recognized for type interval", field));
}

}  // namespace forktail::interval
