// to_timestamp(text, text) and to_date(text, text): reading a date and time
// by a template, as PostgreSQL 15's formatting.c (from_char) does.
//
// The template's patterns are to_char's (to_char.h). Outside FX mode,
// spaces before a field are skipped, a space or separator of the template
// matches one space or separator of the input or nothing, and any other
// template character skips one input character. A numeric field takes
// exactly its width when a digit pattern follows it, otherwise as many
// digits as there are (FM, or a separator next); names (MON, Month, DAY,
// AM, B.C., RM) match case-insensitively. YY, YYY and Y pick the year
// nearest 2020, CC with them picks the century, DDD and J give the date,
// IYYY/IW/ID/IDDD an ISO week date (mixing both conventions is an error),
// TZH and TZM the input's UTC offset, TH/th after a field skip its suffix;
// input left over after the template is ignored. Errors are PostgreSQL's:
// 22007 for input the template does not read, 22008 for a value out of
// range ("date/time field value out of range", conflicting fields).
//
// The callers (functions_to_char.cc) check the date against Forktail's
// range, years 1 to 9999: a template without a year (year 0, 1 BC in
// PostgreSQL) and BC dates are out of range there (22008). TZ and OF are
// 0A000 (PostgreSQL 15: only in to_char).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace forktail {

struct FromCharResult {
  int32_t year = 0, month = 1, day = 1;   // year 0 is 1 BC, as PostgreSQL counts
  int64_t time = 0;                       // microseconds since midnight
  std::optional<int32_t> offset_seconds;  // TZH/TZM given: the input's offset east of UTC
};

FromCharResult FromChar(std::string_view input, std::string_view format);

}  // namespace forktail
