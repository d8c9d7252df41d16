// DATE/TIMESTAMP text input and output, EXTRACT and month arithmetic.
// Interval parsing, formatting and arithmetic are in the second half.
#include "storage/value/datetime.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "storage/error.h"
#include "storage/value/timezone.h"

namespace forktail::datetime {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// A hand-written scanner over the ISO forms; PostgreSQL's general date parser
// (field guessing, month names, DMY/MDY) is out of scope.
class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}
  bool Done() const { return i_ >= s_.size(); }
  char Peek() const { return Done() ? '\0' : s_[i_]; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++i_;
    return true;
  }
  void SkipSpaces() {
    while (!Done() && IsSpace(s_[i_])) ++i_;
  }
  // Reads 1..max_digits digits; returns the number of digits read (0: none).
  int Number(int64_t* out, int max_digits = 9) {
    int n = 0;
    int64_t v = 0;
    while (!Done() && IsDigit(s_[i_]) && n < max_digits) {
      v = v * 10 + (s_[i_++] - '0');
      ++n;
    }
    *out = v;
    return n;
  }
  std::string_view Rest() const { return s_.substr(i_); }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

// The zone a literal ends with: none, a fixed offset ('+05:30', 'EST', 'Z'),
// or a zone whose offset depends on the date ('Europe/Paris', 'MSK').
struct ZoneSuffix {
  bool present = false;
  int32_t seconds_east = 0;
  TimeZonePtr zone;
};

struct Fields {
  int64_t year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, micros = 0;
  ZoneSuffix zone;
};

enum class ParseResult { kOk, kSyntax, kFieldRange, kZoneRange, kBc };

bool IEqualsLower(std::string_view a, std::string_view lower) {
  if (a.size() != lower.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != lower[i]) return false;
  }
  return true;
}

ParseResult ParseFields(std::string_view text, Fields* f) {
  Scanner sc(text);
  sc.SkipSpaces();
  if (sc.Number(&f->year, 9) < 4 || !sc.Eat('-')) return ParseResult::kSyntax;
  if (sc.Number(&f->month, 2) == 0 || !sc.Eat('-')) return ParseResult::kSyntax;
  if (sc.Number(&f->day, 2) == 0) return ParseResult::kSyntax;
  // Optional time: 'T' or blanks, then HH:MM[:SS[.ffffff]].
  bool t_sep = sc.Eat('T') || sc.Eat('t');
  sc.SkipSpaces();
  if (IsDigit(sc.Peek())) {
    if (sc.Number(&f->hour, 2) == 0 || !sc.Eat(':')) return ParseResult::kSyntax;
    if (sc.Number(&f->minute, 2) != 2) return ParseResult::kSyntax;
    if (sc.Eat(':')) {
      if (sc.Number(&f->second, 2) != 2) return ParseResult::kSyntax;
      if (sc.Eat('.')) {
        // Fraction: six digits kept, the seventh rounds half up, the rest ignored.
        int64_t digit = 0;
        int n = 0;
        while (IsDigit(sc.Peek())) {
          sc.Number(&digit, 1);
          if (n < 6) f->micros = f->micros * 10 + digit;
          if (n == 6 && digit >= 5) ++f->micros;
          ++n;
        }
        if (n == 0) return ParseResult::kSyntax;
        for (int k = n; k < 6; ++k) f->micros *= 10;
      }
    }
  } else if (t_sep) {
    return ParseResult::kSyntax;
  }
  sc.SkipSpaces();
  // Optional zone: +HH[:MM[:SS]], +HHMM, an abbreviation (Z, UTC, EST, ...)
  // or a tz database name; types without time zone check and ignore it.
  std::string_view rest = sc.Rest();
  while (!rest.empty() && IsSpace(rest.back())) rest.remove_suffix(1);
  if (IEqualsLower(rest, "bc")) return ParseResult::kBc;
  if (IEqualsLower(rest, "ad")) rest = {};
  if (!rest.empty() && (rest[0] == '+' || rest[0] == '-')) {
    Scanner z(rest);
    int sign = z.Eat('-') ? -1 : (z.Eat('+'), 1);
    int64_t hh = 0, mm = 0, ss = 0;
    int n = z.Number(&hh, 4);
    if (n == 4) {
      mm = hh % 100;
      hh /= 100;
    } else if (n == 0 || n == 3) {
      return ParseResult::kSyntax;
    } else if (z.Eat(':')) {
      if (z.Number(&mm, 2) != 2) return ParseResult::kSyntax;
      if (z.Eat(':') && z.Number(&ss, 2) != 2) return ParseResult::kSyntax;
    }
    if (!z.Done()) return ParseResult::kSyntax;
    if (hh > 15 || mm > 59 || ss > 59) return ParseResult::kZoneRange;
    f->zone.present = true;
    f->zone.seconds_east = static_cast<int32_t>(sign * (hh * 3600 + mm * 60 + ss));
  } else if (!rest.empty()) {
    ZoneAbbreviation abbrev;
    if (FindZoneAbbreviation(rest, &abbrev)) {
      f->zone = {true, abbrev.seconds_east, abbrev.zone};
    } else if (TimeZonePtr zone = TimeZone::FindRegion(rest)) {
      f->zone = {true, 0, zone};
    } else {
      return ParseResult::kSyntax;
    }
  }
  if (f->year == 0 || !IsValidDate(static_cast<int32_t>(std::min<int64_t>(f->year, 1 << 30)),
                                   static_cast<int32_t>(f->month), static_cast<int32_t>(f->day))) {
    return ParseResult::kFieldRange;
  }
  // 24:00:00 is allowed (the next midnight); seconds up to 60 (a leap second
  // rolls over), as in PostgreSQL.
  bool is_24 = f->hour == 24 && f->minute == 0 && f->second == 0 && f->micros == 0;
  if ((f->hour > 23 && !is_24) || f->minute > 59 || f->second > 60) return ParseResult::kFieldRange;
  return ParseResult::kOk;
}

[[noreturn]] void ThrowParseError(ParseResult r, const char* type, std::string_view text) {
  if (r == ParseResult::kBc) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  fmt::format("BC dates are not supported: \"{}\"", text));
  }
  if (r == ParseResult::kFieldRange) {
    throw DbError(sqlstate::kDatetimeFieldOverflow,
                  fmt::format("date/time field value out of range: \"{}\"", text));
  }
  if (r == ParseResult::kZoneRange) {
    throw DbError(sqlstate::kInvalidTimeZoneDisplacement,
                  fmt::format("time zone displacement out of range: \"{}\"", text));
  }
  throw DbError(sqlstate::kInvalidDatetimeFormat,
                fmt::format("invalid input syntax for type {}: \"{}\"", type, text));
}

}  // namespace

int32_t ParseDate(std::string_view text) {
  Fields f;
  ParseResult r = ParseFields(text, &f);
  if (r != ParseResult::kOk) ThrowParseError(r, "date", text);
  if (f.year > 9999) {
    throw DbError(sqlstate::kDatetimeFieldOverflow, fmt::format("date out of range: \"{}\"", text));
  }
  return DaysFromCivil(static_cast<int32_t>(f.year), static_cast<int32_t>(f.month),
                       static_cast<int32_t>(f.day));
}

namespace {

// The fields as a local timestamp; throws 22008 outside years 1..9999.
int64_t LocalTimestamp(const Fields& f, std::string_view text) {
  int64_t ts = kMaxTimestamp + 1;
  if (f.year <= 9999) {
    int32_t days = DaysFromCivil(static_cast<int32_t>(f.year), static_cast<int32_t>(f.month),
                                 static_cast<int32_t>(f.day));
    ts = CombineTimestamp(days, f.hour * kMicrosPerHour + f.minute * kMicrosPerMinute +
                                    f.second * kMicrosPerSecond + f.micros);
  }
  if (ts < kMinTimestamp || ts > kMaxTimestamp) {
    throw DbError(sqlstate::kDatetimeFieldOverflow,
                  fmt::format("timestamp out of range: \"{}\"", text));
  }
  return ts;
}

}  // namespace

int64_t ParseTimestamp(std::string_view text) {
  Fields f;
  ParseResult r = ParseFields(text, &f);
  if (r != ParseResult::kOk) ThrowParseError(r, "timestamp", text);
  return LocalTimestamp(f, text);
}

int64_t ParseTimestampTz(std::string_view text, const TimeZone& session) {
  Fields f;
  ParseResult r = ParseFields(text, &f);
  if (r != ParseResult::kOk) ThrowParseError(r, "timestamp with time zone", text);
  int64_t local = LocalTimestamp(f, text);
  int64_t utc = 0;
  if (!f.zone.present) {
    utc = session.ToUtc(local);
  } else if (f.zone.zone != nullptr) {
    utc = f.zone.zone->ToUtc(local);
  } else {
    utc = local - int64_t{f.zone.seconds_east} * kMicrosPerSecond;
  }
  if (utc < kMinTimestamp || utc > kMaxTimestamp) {
    throw DbError(sqlstate::kDatetimeFieldOverflow,
                  fmt::format("timestamp out of range: \"{}\"", text));
  }
  return utc;
}

std::string FormatDate(int32_t days) {
  CivilDate c = CivilFromDays(days);
  return fmt::format("{:04d}-{:02d}-{:02d}", c.year, c.month, c.day);
}

std::string FormatTimestamp(int64_t micros) {
  DayTime dt = SplitTimestamp(micros);
  int64_t t = dt.time;
  std::string out = fmt::format("{} {:02d}:{:02d}:{:02d}", FormatDate(dt.days), t / kMicrosPerHour,
                                t / kMicrosPerMinute % 60, t / kMicrosPerSecond % 60);
  int64_t frac = t % kMicrosPerSecond;
  if (frac != 0) {
    std::string f = fmt::format(".{:06d}", frac);
    while (f.back() == '0') f.pop_back();
    out += f;
  }
  return out;
}

namespace {

// HH:MM[:SS[.f]], HHMM or HHMMSS, then AM/PM: the time of day in
// microseconds, or kSyntax / kFieldRange.
ParseResult ParseClock(Scanner& sc, int64_t* out) {
  int64_t hour = 0, minute = 0, second = 0, micros = 0;
  int64_t first = 0;
  const int n = sc.Number(&first, 6);
  if (n == 0) return ParseResult::kSyntax;
  if (sc.Eat(':')) {
    if (n > 2) return ParseResult::kSyntax;
    hour = first;
    if (sc.Number(&minute, 2) == 0) return ParseResult::kSyntax;
    if (sc.Eat(':') && sc.Number(&second, 2) == 0) return ParseResult::kSyntax;
  } else if (n == 4 || n == 6) {
    hour = n == 4 ? first / 100 : first / 10000;
    minute = n == 4 ? first % 100 : first / 100 % 100;
    second = n == 4 ? 0 : first % 100;
  } else {
    return ParseResult::kSyntax;
  }
  if (sc.Eat('.')) {  // six digits kept, the seventh rounds half up
    int64_t digit = 0;
    int digits = 0;
    while (IsDigit(sc.Peek())) {
      sc.Number(&digit, 1);
      if (digits < 6) micros = micros * 10 + digit;
      if (digits == 6 && digit >= 5) ++micros;
      ++digits;
    }
    for (int k = digits; k < 6; ++k) micros *= 10;
  }
  sc.SkipSpaces();
  std::string_view rest = sc.Rest();
  if (rest.size() >= 2 &&
      (IEqualsLower(rest.substr(0, 2), "am") || IEqualsLower(rest.substr(0, 2), "pm"))) {
    const bool pm = IEqualsLower(rest.substr(0, 2), "pm");
    if (hour < 1 || hour > 12) return ParseResult::kFieldRange;
    hour = hour % 12 + (pm ? 12 : 0);
    for (int k = 0; k < 2; ++k) sc.Eat(rest[k]);
  }
  if (minute > 59 || second > 60) return ParseResult::kFieldRange;
  const int64_t t =
      hour * kMicrosPerHour + minute * kMicrosPerMinute + second * kMicrosPerSecond + micros;
  if (t > kMaxTime) return ParseResult::kFieldRange;
  *out = t;
  return ParseResult::kOk;
}

}  // namespace

int64_t ParseTime(std::string_view text) {
  std::string_view s = text;
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  if (IEqualsLower(s, "allballs")) return 0;
  // A leading date ('2024-03-05 14:07'): its time.
  size_t digits = 0;
  while (digits < s.size() && IsDigit(s[digits])) ++digits;
  if (digits >= 4 && digits < s.size() && s[digits] == '-') {
    Fields f;
    ParseResult r = ParseFields(s, &f);
    if (r != ParseResult::kOk) ThrowParseError(r, "time", text);
    const int64_t t = f.hour * kMicrosPerHour + f.minute * kMicrosPerMinute +
                      f.second * kMicrosPerSecond + f.micros;
    if (t > kMaxTime) ThrowParseError(ParseResult::kFieldRange, "time", text);
    return t;
  }
  Scanner sc(s);
  if (!sc.Eat('T')) sc.Eat('t');
  int64_t t = 0;
  ParseResult r = ParseClock(sc, &t);
  if (r != ParseResult::kOk) ThrowParseError(r, "time", text);
  sc.SkipSpaces();
  // A zone is checked and ignored, as PostgreSQL does for time: an offset or
  // an abbreviation ('Z', 'UTC', '+02', '-08:00').
  std::string_view zone = sc.Rest();
  if (!zone.empty()) {
    ZoneAbbreviation abbrev;
    Fields f;
    const std::string as_timestamp = "2000-01-01 00:00 " + std::string(zone);
    const bool offset = zone[0] == '+' || zone[0] == '-';
    if (!offset && !FindZoneAbbreviation(zone, &abbrev)) {
      ThrowParseError(ParseResult::kSyntax, "time", text);
    }
    if (offset) {
      r = ParseFields(as_timestamp, &f);
      if (r != ParseResult::kOk) ThrowParseError(r, "time", text);
    }
  }
  return t;
}

std::string FormatTime(int64_t t) {
  std::string out = fmt::format("{:02d}:{:02d}:{:02d}", t / kMicrosPerHour,
                                t / kMicrosPerMinute % 60, t / kMicrosPerSecond % 60);
  int64_t frac = t % kMicrosPerSecond;
  if (frac != 0) {
    std::string f = fmt::format(".{:06d}", frac);
    while (f.back() == '0') f.pop_back();
    out += f;
  }
  return out;
}

std::string EncodeTime(int64_t micros) {
  std::string out(8, '\0');
  for (int i = 7; i >= 0; --i, micros >>= 8) out[i] = static_cast<char>(micros & 0xff);
  return out;
}

int64_t DecodeTime(std::string_view bytes) {
  int64_t v = 0;
  for (unsigned char c : bytes) v = (v << 8) | c;
  return v;
}

std::string FormatOffset(int32_t seconds_east) {
  int32_t a = seconds_east < 0 ? -seconds_east : seconds_east;
  std::string out = fmt::format("{}{:02d}", seconds_east < 0 ? '-' : '+', a / 3600);
  if (a % 3600 != 0) out += fmt::format(":{:02d}", a / 60 % 60);
  if (a % 60 != 0) out += fmt::format(":{:02d}", a % 60);
  return out;
}

std::string FormatTimestampTz(int64_t utc_micros, const TimeZone& zone) {
  int32_t offset = zone.OffsetAt(utc_micros);
  return FormatTimestamp(utc_micros + int64_t{offset} * kMicrosPerSecond) + FormatOffset(offset);
}

int64_t ExtractMicros(DateField field, int64_t timestamp) {
  DayTime dt = SplitTimestamp(timestamp);
  CivilDate c = CivilFromDays(dt.days);
  int64_t v = 0;
  switch (field) {
    case DateField::kYear:
      v = c.year;
      break;
    case DateField::kQuarter:
      v = (c.month - 1) / 3 + 1;
      break;
    case DateField::kMonth:
      v = c.month;
      break;
    case DateField::kDay:
      v = c.day;
      break;
    case DateField::kDow:
      v = ((dt.days + 4) % 7 + 7) % 7;
      break;  // 1970-01-01 was a Thursday
    case DateField::kDoy:
      v = dt.days - DaysFromCivil(c.year, 1, 1) + 1;
      break;
    case DateField::kHour:
      v = dt.time / kMicrosPerHour;
      break;
    case DateField::kMinute:
      v = dt.time / kMicrosPerMinute % 60;
      break;
    case DateField::kSecond:
      return dt.time % kMicrosPerMinute;
    case DateField::kEpoch:
      return timestamp;
  }
  return v * kMicrosPerSecond;
}

int64_t Extract(DateField field, int64_t timestamp) {
  return ExtractMicros(field, timestamp) / kMicrosPerSecond;
}

int32_t AddMonthsToDate(int32_t days, int32_t months) {
  CivilDate c = CivilFromDays(days);
  int64_t total = int64_t{c.year} * 12 + (c.month - 1) + months;
  int64_t year = total >= 0 ? total / 12 : (total - 11) / 12;
  int32_t month = static_cast<int32_t>(total - year * 12) + 1;
  int32_t y = static_cast<int32_t>(year);
  return DaysFromCivil(y, month, std::min(c.day, DaysInMonth(y, month)));
}

int64_t AddMonthsToTimestamp(int64_t ts, int32_t months) {
  DayTime dt = SplitTimestamp(ts);
  return CombineTimestamp(AddMonthsToDate(dt.days, months), dt.time);
}

int64_t AddInterval(int64_t timestamp, const Interval& interval) {
  if (timestamp < kMinTimestamp || timestamp > kMaxTimestamp) {
    throw DbError(sqlstate::kDatetimeFieldOverflow, "timestamp out of range");
  }
  // Bounded inputs keep every intermediate far from int64 overflow.
  int64_t ts = AddMonthsToTimestamp(timestamp, interval.months);
  __int128 r = __int128{ts} + __int128{interval.days} * kMicrosPerDay + interval.micros;
  if (r < kMinTimestamp || r > kMaxTimestamp) {
    throw DbError(sqlstate::kDatetimeFieldOverflow, "timestamp out of range");
  }
  return static_cast<int64_t>(r);
}

int64_t SubtractInterval(int64_t timestamp, const Interval& interval) {
  return AddInterval(timestamp, Interval{-interval.months, -interval.days, -interval.micros});
}

int64_t AddIntervalTz(int64_t utc, const Interval& interval, const TimeZone& zone) {
  if (interval.months != 0) utc = zone.ToUtc(AddInterval(zone.ToLocal(utc), {interval.months}));
  if (interval.days != 0) utc = zone.ToUtc(AddInterval(zone.ToLocal(utc), {0, interval.days}));
  return AddInterval(utc, {0, 0, interval.micros});
}

namespace {

[[noreturn]] void ThrowIntervalSyntax(std::string_view text) {
  throw DbError(sqlstate::kInvalidDatetimeFormat,
                fmt::format("invalid input syntax for type interval: \"{}\"", text));
}

enum class Unit { kYear, kMonth, kWeek, kDay, kHour, kMinute, kSecond, kMilli, kMicro, kNone };

Unit UnitFromName(std::string_view name) {
  std::string n;
  for (char c : name) n.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (n.size() > 1 && n.back() == 's' && n != "s" && n != "ms" && n != "us") n.pop_back();
  if (n == "year" || n == "y" || n == "yr") return Unit::kYear;
  if (n == "month" || n == "mon") return Unit::kMonth;
  if (n == "week" || n == "w") return Unit::kWeek;
  if (n == "day" || n == "d") return Unit::kDay;
  if (n == "hour" || n == "h" || n == "hr") return Unit::kHour;
  if (n == "minute" || n == "min" || n == "m") return Unit::kMinute;
  if (n == "second" || n == "sec" || n == "s") return Unit::kSecond;
  if (n == "millisecond" || n == "m" || n == "ms" || n == "msec") return Unit::kMilli;
  if (n == "microsecond" || n == "us" || n == "usec") return Unit::kMicro;
  return Unit::kNone;
}

// Accumulates in wide integers and checks the int32/int64 ranges at the end.
struct IntervalSum {
  __int128 months = 0, days = 0, micros = 0;

  // value = whole + frac (frac in (-1, 1), same sign as whole).
  void Add(Unit unit, int64_t whole, long double frac) {
    switch (unit) {
      case Unit::kYear:
        AddMonths(whole * 12, frac * 12);
        break;
      case Unit::kMonth:
        AddMonths(whole, frac);
        break;
      case Unit::kWeek:
        AddDays(whole * 7, frac * 7);
        break;
      case Unit::kDay:
        AddDays(whole, frac);
        break;
      case Unit::kHour:
        AddMicros(whole, frac, kMicrosPerHour);
        break;
      case Unit::kMinute:
        AddMicros(whole, frac, kMicrosPerMinute);
        break;
      case Unit::kSecond:
      case Unit::kNone:
        AddMicros(whole, frac, kMicrosPerSecond);
        break;
      case Unit::kMilli:
        AddMicros(whole, frac, 1000);
        break;
      case Unit::kMicro:
        AddMicros(whole, frac, 1);
        break;
    }
  }
  // Fractional months spill into 30-day days, fractional days into time.
  void AddMonths(__int128 whole, long double frac) {
    int64_t extra = static_cast<int64_t>(frac);
    months += whole + extra;
    AddDays(0, (frac - extra) * 30);
  }
  void AddDays(__int128 whole, long double frac) {
    int64_t extra = static_cast<int64_t>(frac);
    days += whole + extra;
    micros += static_cast<int64_t>(std::llround((frac - extra) * kMicrosPerDay));
  }
  void AddMicros(__int128 whole, long double frac, int64_t unit) {
    micros += whole * unit + std::llround(frac * unit);
  }
};

}  // namespace

Interval ParseInterval(std::string_view text) {
  IntervalSum sum;
  std::string_view s = text;
  bool any = false;
  bool ago = false;
  auto next_token = [&s]() {
    while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
    size_t end = 0;
    while (end < s.size() && !IsSpace(s[end])) ++end;
    std::string_view tok = s.substr(0, end);
    s.remove_prefix(end);
    return tok;
  };
  for (std::string_view tok = next_token(); !tok.empty(); tok = next_token()) {
    if (ago) ThrowIntervalSyntax(text);
    if (tok == "@" && !any) continue;
    if (IEqualsLower(tok, "ago") && any) {
      ago = true;
      continue;
    }
    bool negative = tok[0] == '-';
    std::string_view body = (tok[0] == '-' || tok[0] == '+') ? tok.substr(1) : tok;
    if (body.find(':') != std::string_view::npos) {
      // [-]H:MM[:SS[.ffffff]]
      Scanner sc(body);
      int64_t h = 0, m = 0, sec = 0, frac = 0;
      if (sc.Number(&h, 9) == 0 || !sc.Eat(':') || sc.Number(&m, 2) != 2) ThrowIntervalSyntax(text);
      int frac_digits = 0;
      if (sc.Eat(':')) {
        if (sc.Number(&sec, 2) != 2) ThrowIntervalSyntax(text);
        if (sc.Eat('.')) {
          frac_digits = sc.Number(&frac, 6);
          if (frac_digits == 0) ThrowIntervalSyntax(text);
          while (IsDigit(sc.Peek())) sc.Eat(sc.Peek());
        }
      }
      if (!sc.Done() || m > 59 || sec > 59) ThrowIntervalSyntax(text);
      for (int k = frac_digits; k < 6; ++k) frac *= 10;
      __int128 t =
          __int128{h} * kMicrosPerHour + m * kMicrosPerMinute + sec * kMicrosPerSecond + frac;
      sum.micros += negative ? -t : t;
      any = true;
      continue;
    }
    // A number, its unit attached ("3days") or in the next token.
    size_t k = 0;
    int64_t whole = 0;
    long double frac = 0, scale = 0.1L;
    bool digits = false;
    while (k < body.size() && IsDigit(body[k])) {
      if (whole > (int64_t{1} << 50)) ThrowIntervalSyntax(text);
      whole = whole * 10 + (body[k++] - '0');
      digits = true;
    }
    if (k < body.size() && body[k] == '.') {
      for (++k; k < body.size() && IsDigit(body[k]); ++k, scale /= 10) {
        frac += (body[k] - '0') * scale;
        digits = true;
      }
    }
    if (!digits) ThrowIntervalSyntax(text);
    std::string_view unit_name = body.substr(k);
    if (unit_name.empty()) {
      std::string_view peek = s;
      std::string_view u = next_token();
      if (!u.empty() && (UnitFromName(u) != Unit::kNone)) {
        unit_name = u;
      } else {
        s = peek;  // a bare number means seconds
      }
    }
    Unit unit = unit_name.empty() ? Unit::kNone : UnitFromName(unit_name);
    if (!unit_name.empty() && unit == Unit::kNone) ThrowIntervalSyntax(text);
    sum.Add(unit, negative ? -whole : whole, negative ? -frac : frac);
    any = true;
  }
  if (!any) ThrowIntervalSyntax(text);
  if (ago) {
    sum.months = -sum.months;
    sum.days = -sum.days;
    sum.micros = -sum.micros;
  }
  constexpr int64_t kI32Max = std::numeric_limits<int32_t>::max();
  constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
  if (sum.months > kI32Max || sum.months < -kI32Max || sum.days > kI32Max || sum.days < -kI32Max ||
      sum.micros > kI64Max || sum.micros < -kI64Max) {
    throw DbError(sqlstate::kDatetimeFieldOverflow,
                  fmt::format("interval field value out of range: \"{}\"", text));
  }
  return Interval{static_cast<int32_t>(sum.months), static_cast<int32_t>(sum.days),
                  static_cast<int64_t>(sum.micros)};
}

std::string FormatInterval(const Interval& iv) {
  std::string out;
  bool is_before = false;  // the previous field was negative
  bool is_zero = true;     // nothing printed yet
  auto part = [&](int64_t value, const char* unit) {
    if (value == 0) return;
    out += fmt::format("{}{}{} {}{}", is_zero ? "" : " ", is_before && value > 0 ? "+" : "", value,
                       unit, value != 1 ? "s" : "");
    is_before = value < 0;
    is_zero = false;
  };
  part(iv.months / 12, "year");
  part(iv.months % 12, "mon");
  part(iv.days, "day");
  if (is_zero || iv.micros != 0) {
    uint64_t t = iv.micros < 0 ? 0 - static_cast<uint64_t>(iv.micros) : iv.micros;
    const char* sign = iv.micros < 0 ? "-" : (is_before ? "+" : "");
    out += fmt::format("{}{}{:02d}:{:02d}:{:02d}", is_zero ? "" : " ", sign, t / kMicrosPerHour,
                       t / kMicrosPerMinute % 60, t / kMicrosPerSecond % 60);
    if (uint64_t frac = t % kMicrosPerSecond; frac != 0) {
      std::string f = fmt::format(".{:06d}", frac);
      while (f.back() == '0') f.pop_back();
      out += f;
    }
  }
  return out;
}

}  // namespace forktail::datetime
