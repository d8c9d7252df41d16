// to_char's templates, as PostgreSQL 15's formatting.c reads them.
//
// Date/time templates: YYYY YYY YY Y Y,YYY IYYY IYY IY I CC Q MM MONTH Month
// month MON Mon mon DD DDD IDDD D ID DAY Day day DY Dy dy WW IW W J HH HH12
// HH24 MI SS MS US FF1..FF6 SSSS SSSSS AM PM A.M. P.M. (and lower case) AD
// BC A.D. B.C. RM rm OF TZH TZM TZ tz; the prefix FM (no padding) and the
// suffixes TH/th (ordinals); "quoted text" and \-escaped characters are
// copied. The TZ pattern needs a zone abbreviation, which Forktail's zones do
// not carry: it prints "UTC" in UTC and is 0A000 elsewhere.
//
// Interval templates (interval2itm's fields: hours not folded into days):
// YYYY MM DD HH HH12 HH24 MI SS MS US SSSS, with FM and TH; the others are
// 0A000 (PostgreSQL prints some of them from a calendar the interval does
// not have).
//
// Number templates: 9 0 . , D G S MI PL SG PR FM, with PostgreSQL's widths
// (a position for the sign unless FM or an explicit sign), rounding to the
// template's decimals, and '#'s when the integer part does not fit. V, EEEE,
// RN, L and TH are 0A000.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "storage/value/datetime.h"

namespace forktail {

namespace datetime {
class TimeZone;
}

// The date/time pattern `rest` starts with (longest first; "" for none).
std::string_view MatchDateTimePattern(std::string_view rest);

// `local` is the wall-clock timestamp; `offset_seconds` its UTC offset and
// `zone` its zone (nullptr for a TIMESTAMP without time zone: TZ prints
// nothing and OF "+00").
std::string ToCharTimestamp(int64_t local, int32_t offset_seconds, const datetime::TimeZone* zone,
                            std::string_view format);

std::string ToCharInterval(const datetime::Interval& iv, std::string_view format);

// `text` is the number in decimal ("-1234.5678", no exponent); it is
// rounded half away from zero to the template's decimals, which
// ToCharNumberDecimals tells (a double is printed with that many first, as
// PostgreSQL's float8 to_char does).
std::string ToCharNumber(std::string_view text, std::string_view format);
int ToCharNumberDecimals(std::string_view format);

}  // namespace forktail
