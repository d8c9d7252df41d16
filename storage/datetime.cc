// DATE/TIMESTAMP text input and output, EXTRACT and month arithmetic.
// Interval parsing, formatting and arithmetic are in the second half.
#include "storage/datetime.h"

#include <fmt/format.h>

#include <cctype>

#include "storage/error.h"

namespace forktail {
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

struct Fields {
  int64_t year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, micros = 0;
};

enum class ParseResult { kOk, kSyntax, kFieldRange, kBc };

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
  // Optional zone, ignored: Z, UTC, GMT, +HH, +HH:MM, +HHMM.
  std::string_view rest = sc.Rest();
  while (!rest.empty() && IsSpace(rest.back())) rest.remove_suffix(1);
  if (IEqualsLower(rest, "bc")) return ParseResult::kBc;
  if (IEqualsLower(rest, "ad")) rest = {};
  if (IEqualsLower(rest, "z") || IEqualsLower(rest, "utc") || IEqualsLower(rest, "gmt")) rest = {};
  if (!rest.empty()) {
    Scanner z(rest);
    if (!z.Eat('+') && !z.Eat('-')) return ParseResult::kSyntax;
    int64_t hh = 0, mm = 0;
    int n = z.Number(&hh, 4);
    if (n == 4) {
      mm = hh % 100;
      hh /= 100;
    } else if (n == 0 || n > 2) {
      return ParseResult::kSyntax;
    } else if (z.Eat(':') && z.Number(&mm, 2) != 2) {
      return ParseResult::kSyntax;
    }
    if (!z.Done()) return ParseResult::kSyntax;
    if (hh > 15 || mm > 59) return ParseResult::kFieldRange;
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

int64_t ParseTimestamp(std::string_view text) {
  Fields f;
  ParseResult r = ParseFields(text, &f);
  if (r != ParseResult::kOk) ThrowParseError(r, "timestamp", text);
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

}  // namespace forktail
