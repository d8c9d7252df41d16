// INTERVAL values as PostgreSQL's interval type computes them: months, days
// and microseconds kept apart (datetime::Interval), compared by their span
// with a month as 30 days and a day as 24 hours.
//
// A value is held as a 24-byte string (TypeId::kInterval is stored as a
// string) built so that memcmp orders intervals as interval_cmp does: the
// span in microseconds (16 bytes, big-endian, sign bit flipped), then months
// and days (4 bytes each, the same way). The microseconds are the span less
// the months and days. Keys, indexes, sorts, joins and GROUP BY then work on
// the bytes unchanged. One difference from PostgreSQL remains: intervals of
// equal span but different fields ('1 mon' and '30 days') are equal there
// and different here (they sort next to each other, '30 days' first).
//
// Arithmetic follows PostgreSQL 15's interval_pl/mi/mul/div, timestamp_mi,
// age and justify_*; results out of range throw 22008 "interval out of
// range" (or "timestamp out of range").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "storage/value/datetime.h"

namespace forktail::interval {

using datetime::Interval;

inline constexpr size_t kEncodedBytes = 24;

std::string Encode(const Interval& iv);
// `bytes` must be kEncodedBytes long (an encoded value).
Interval Decode(std::string_view bytes);

// The span in microseconds: a month is 30 days, a day 24 hours.
__int128 Span(const Interval& iv);

// An interval of these fields; 22008 when one does not fit.
Interval FromWide(__int128 months, __int128 days, __int128 micros);

Interval Add(const Interval& a, const Interval& b);
Interval Subtract(const Interval& a, const Interval& b);
Interval Negate(const Interval& a);
// interval * float8 and interval / float8 (22012 for / 0): fractions of a
// month spill into 30-day days, fractions of a day into time.
Interval Multiply(const Interval& a, double factor);
Interval Divide(const Interval& a, double divisor);

// timestamp - timestamp (either both local times or both UTC instants):
// days and time, as timestamp_mi (justify_hours of the difference).
Interval Between(int64_t later, int64_t earlier);
// age(a, b): the symbolic difference in years, months and days, then time,
// of two local timestamps (timestamp_age).
Interval Age(int64_t a, int64_t b);

Interval JustifyHours(const Interval& a);     // 24 hours -> 1 day
Interval JustifyDays(const Interval& a);      // 30 days -> 1 month
Interval JustifyInterval(const Interval& a);  // both, with the signs made to agree

// EXTRACT(field FROM interval) and date_part(field, interval), as
// interval_part: the field's value scaled by 10^scale, exact (PostgreSQL's
// numeric result). `field` is a lower-case unit name (year, month, day,
// hour, minute, second, millisecond(s), microsecond(s), epoch, quarter,
// decade, century, millennium and their abbreviations). Unknown units throw
// 22023; units an interval does not have (dow, doy, week, timezone) 0A000.
struct IntervalPart {
  __int128 scaled = 0;
  int scale = 0;  // 0, 3 (milliseconds) or 6 (second, epoch)
};
IntervalPart Part(std::string_view field, const Interval& iv);

}  // namespace forktail::interval
