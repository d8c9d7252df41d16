// Calendar arithmetic for DATE and TIMESTAMP (without time zone), and the
// INTERVAL used by SQL date arithmetic.
//
// A DATE is int32 days since 1970-01-01 and a TIMESTAMP int64 microseconds
// since 1970-01-01 00:00:00, both in the proleptic Gregorian calendar (as in
// PostgreSQL). Forktail supports years 1..9999 (0001-01-01 .. 9999-12-31
// 23:59:59.999999): text input outside that range throws 22008, BC dates throw
// 0A000. The day <-> civil conversions are Howard Hinnant's algorithms
// ("chrono-Compatible Low-Level Date Algorithms"), valid far beyond that range.
//
// An Interval keeps months, days and microseconds apart, as PostgreSQL does,
// because a month has no fixed number of days and a day (across DST in zoned
// types) no fixed number of microseconds: '1 month' added to 01-31 clamps to the
// month's last day, whereas '30 days' does not.
//
// Everything lives in forktail::datetime (like forktail::decimal) so that it
// cannot clash with the names other modules use for their own helpers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace forktail::datetime {

class TimeZone;

inline constexpr int64_t kMicrosPerSecond = 1'000'000;
inline constexpr int64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
inline constexpr int64_t kMicrosPerHour = 60 * kMicrosPerMinute;
inline constexpr int64_t kMicrosPerDay = 24 * kMicrosPerHour;

struct CivilDate {
  int32_t year = 1970;
  int32_t month = 1;  // 1..12
  int32_t day = 1;    // 1..31
};

// Days since 1970-01-01 of a proleptic Gregorian date (month and day in range).
constexpr int32_t DaysFromCivil(int32_t y, int32_t m, int32_t d) {
  y -= m <= 2;
  const int32_t era = (y >= 0 ? y : y - 399) / 400;
  const int32_t yoe = y - era * 400;                                    // [0, 399]
  const int32_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;  // [0, 365]
  const int32_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;            // [0, 146096]
  return era * 146097 + doe - 719468;
}

constexpr CivilDate CivilFromDays(int32_t days) {
  const int32_t z = days + 719468;
  const int32_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int32_t doe = z - era * 146097;                                       // [0, 146096]
  const int32_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  const int32_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                // [0, 365]
  const int32_t mp = (5 * doy + 2) / 153;                                     // [0, 11]
  const int32_t d = doy - (153 * mp + 2) / 5 + 1;
  const int32_t m = mp < 10 ? mp + 3 : mp - 9;
  return {yoe + era * 400 + (m <= 2), m, d};
}

constexpr bool IsLeapYear(int32_t y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }
constexpr int32_t DaysInMonth(int32_t y, int32_t m) {
  constexpr int8_t kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeapYear(y) ? 29 : kDays[m - 1];
}
constexpr bool IsValidDate(int32_t y, int32_t m, int32_t d) {
  return m >= 1 && m <= 12 && d >= 1 && d <= DaysInMonth(y, m);
}

inline constexpr int32_t kMinDate = DaysFromCivil(1, 1, 1);
inline constexpr int32_t kMaxDate = DaysFromCivil(9999, 12, 31);
inline constexpr int64_t kMinTimestamp = int64_t{kMinDate} * kMicrosPerDay;
inline constexpr int64_t kMaxTimestamp = (int64_t{kMaxDate} + 1) * kMicrosPerDay - 1;

// A timestamp split into its day and the microseconds into that day
// (0 <= time < kMicrosPerDay, also for timestamps before 1970).
struct DayTime {
  int32_t days = 0;
  int64_t time = 0;
};
constexpr DayTime SplitTimestamp(int64_t ts) {
  int64_t days = ts / kMicrosPerDay;
  int64_t time = ts % kMicrosPerDay;
  if (time < 0) {
    time += kMicrosPerDay;
    --days;
  }
  return {static_cast<int32_t>(days), time};
}
constexpr int64_t CombineTimestamp(int32_t days, int64_t time) {
  return int64_t{days} * kMicrosPerDay + time;
}

// Text forms (PostgreSQL ISO style). Parse* throw DbError: 22007 `invalid input
// syntax for type date: "..."` (or timestamp), 22008 `date/time field value out
// of range: "..."` for impossible fields (2023-02-29, month 13) and `date out of
// range: "..."` / `timestamp out of range: "..."` outside years 1..9999.
// Both accept 'YYYY-MM-DD', an optional time ('T' or blank separator,
// HH:MM[:SS[.ffffff]], fractions rounded to microseconds) and an optional zone
// ('Z', 'UTC', '+05', '-08:00', '+0530', 'EST', 'Europe/Paris') which is checked
// and ignored, as PostgreSQL does for types without time zone. A date ignores a
// time part.
int32_t ParseDate(std::string_view text);
int64_t ParseTimestamp(std::string_view text);
std::string FormatDate(int32_t days);         // "2024-01-02"
std::string FormatTimestamp(int64_t micros);  // "2024-01-02 10:00:00.5"

// TIMESTAMP WITH TIME ZONE: the UTC instant of a literal. A literal without
// a zone is local time in `session`; zones as ParseTimestamp reads them, and
// also tz database names ('2024-01-02 10:00 Europe/Paris') and PostgreSQL's
// zone abbreviations (timezone.h). 22009 `time zone displacement out of
// range` beyond +-15:59:59, errors name "timestamp with time zone".
int64_t ParseTimestampTz(std::string_view text, const TimeZone& session);
// "2024-01-02 10:00:00.5+01", the local time in `zone` and its offset
// ("+05:30", "+00:09:21" when not whole hours).
std::string FormatTimestampTz(int64_t utc_micros, const TimeZone& zone);
std::string FormatOffset(int32_t seconds_east);  // "+01", "-03:30"

// TIME (without time zone): microseconds since midnight, 0 to 24:00:00
// inclusive. ParseTime reads PostgreSQL's time_in forms: HH:MM[:SS[.f]]
// ('14:7' too), HHMM and HHMMSS, AM/PM, 'allballs', a leading date or 'T'
// (ignored) and a trailing zone (checked and ignored); fractions round to
// microseconds, 23:59:60 is 24:00:00. Errors: 22007 `invalid input syntax
// for type time: "..."`, 22008 `date/time field value out of range: "..."`.
inline constexpr int64_t kMaxTime = 24 * kMicrosPerHour;
int64_t ParseTime(std::string_view text);
std::string FormatTime(int64_t micros);  // "14:07:09.5"
// A TIME value is held as 8 bytes, big-endian, so that its bytes order as
// it does (TypeId::kTime is stored as a string, as interval is).
std::string EncodeTime(int64_t micros);
int64_t DecodeTime(std::string_view bytes);

enum class DateField { kYear, kQuarter, kMonth, kDay, kDow, kDoy, kHour, kMinute, kSecond, kEpoch };

// EXTRACT(field FROM timestamp), scaled by 10^6 so that SECOND and EPOCH keep
// their fraction exactly (PostgreSQL returns numeric): ExtractMicros(kSecond,
// ..05.5) == 5'500'000, ExtractMicros(kYear, ..) == 2024'000'000. DOW is 0 for
// Sunday. A DATE is extracted as its midnight.
int64_t ExtractMicros(DateField field, int64_t timestamp);
// The integral fields (all but SECOND and EPOCH, which are truncated).
int64_t Extract(DateField field, int64_t timestamp);

// Month arithmetic clamps the day to the target month's length, as PostgreSQL
// does ('2024-01-31' + 1 month = '2024-02-29').
int32_t AddMonthsToDate(int32_t days, int32_t months);
int64_t AddMonthsToTimestamp(int64_t ts, int32_t months);
constexpr int32_t AddDays(int32_t days, int32_t n) { return days + n; }

struct Interval {
  int32_t months = 0;
  int32_t days = 0;
  int64_t micros = 0;

  friend bool operator==(const Interval&, const Interval&) = default;
};

// PostgreSQL interval literals: '3 months', '1 year 2 days', '90 minutes',
// '1 day 02:00:00', '-1 day +02:03', '1.5 hours', '@ 1 day ago', units
// year(s)/y, month(s)/mon(s), week(s)/w, day(s)/d, hour(s)/h/hr, minute(s)/min/m,
// second(s)/sec/s, millisecond(s)/ms, microsecond(s)/us. Fractional years and
// months spill into months and days (30-day months), fractional days into time.
// Throws 22007 `invalid input syntax for type interval: "..."`, 22008 `interval
// field value out of range: "..."`.
Interval ParseInterval(std::string_view text);
// PostgreSQL's default (postgres) output: "1 year 2 mons 3 days 04:05:06",
// "-1 days -00:00:01.5", "00:00:00" for zero.
std::string FormatInterval(const Interval& interval);

// Date/timestamp +/- interval: months first (clamping the day), then days,
// then microseconds. A date plus an interval is a timestamp (as in SQL).
// Results outside years 1..9999 throw 22008 `timestamp out of range`.
int64_t AddInterval(int64_t timestamp, const Interval& interval);
int64_t SubtractInterval(int64_t timestamp, const Interval& interval);
// timestamptz + interval, as PostgreSQL's timestamptz_pl_interval: months and
// then days move the wall clock of `zone` (a day across a daylight-saving
// change is 23 or 25 hours), microseconds the instant.
int64_t AddIntervalTz(int64_t utc, const Interval& interval, const TimeZone& zone);
inline int64_t DateToTimestamp(int32_t days) { return int64_t{days} * kMicrosPerDay; }
// Floors: a timestamp before midnight belongs to its day.
inline int32_t TimestampToDate(int64_t ts) { return SplitTimestamp(ts).days; }

}  // namespace forktail::datetime
