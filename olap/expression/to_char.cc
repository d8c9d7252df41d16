#include "olap/expression/to_char.h"

#include <fmt/format.h>

#include <array>
#include <vector>

#include "storage/error.h"
#include "storage/value/datetime.h"
#include "storage/value/timezone.h"

namespace forktail {

namespace {

namespace dt = datetime;

[[noreturn]] void NotSupportedPattern(std::string_view pattern, const char* kind) {
  throw DbError(sqlstate::kFeatureNotSupported,
                fmt::format("the {} pattern \"{}\" of to_char is not supported", kind, pattern));
}

// ---- dates and times ---------------------------------------------------------

constexpr std::array<const char*, 12> kMonths = {"January",   "February", "March",    "April",
                                                 "May",       "June",     "July",     "August",
                                                 "September", "October",  "November", "December"};
constexpr std::array<const char*, 7> kDays = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                              "Thursday", "Friday", "Saturday"};
constexpr std::array<const char*, 12> kRomanMonths = {"I",   "II",   "III", "IV", "V",  "VI",
                                                      "VII", "VIII", "IX",  "X",  "XI", "XII"};

// The templates, longest first where one is a prefix of another.
constexpr std::string_view kPatterns[] = {
    "Y,YYY", "y,yyy", "YYYY",  "yyyy",  "YYY",  "yyy",  "YY",   "yy",    "IYYY",  "iyyy", "IYY",
    "iyy",   "IY",    "iy",    "IDDD",  "iddd", "ID",   "id",   "IW",    "iw",    "I",    "i",
    "HH24",  "hh24",  "HH12",  "hh12",  "HH",   "hh",   "MI",   "mi",    "MS",    "ms",   "MM",
    "mm",    "MONTH", "Month", "month", "MON",  "Mon",  "mon",  "SSSSS", "sssss", "SSSS", "ssss",
    "SS",    "ss",    "US",    "us",    "FF1",  "ff1",  "FF2",  "ff2",   "FF3",   "ff3",  "FF4",
    "ff4",   "FF5",   "ff5",   "FF6",   "ff6",  "DDD",  "ddd",  "DD",    "dd",    "DAY",  "Day",
    "day",   "DY",    "Dy",    "dy",    "D",    "d",    "WW",   "ww",    "W",     "w",    "CC",
    "cc",    "Q",     "q",     "J",     "j",    "A.M.", "a.m.", "P.M.",  "p.m.",  "AM",   "am",
    "PM",    "pm",    "A.D.",  "a.d.",  "B.C.", "b.c."};
constexpr std::string_view kMorePatterns[] = {"Y",   "y",   "AD",  "ad",  "BC", "bc", "RM", "rm",
                                              "TZH", "tzh", "TZM", "tzm", "TZ", "tz", "OF", "of"};

std::string Cased(std::string_view word, std::string_view pattern) {
  std::string out(word);
  const bool upper = pattern.size() > 1 && std::isupper(static_cast<unsigned char>(pattern[1]));
  const bool lower = std::islower(static_cast<unsigned char>(pattern[0]));
  for (char& c : out) {
    if (upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string Ordinal(int64_t n, bool upper) {
  const int64_t last2 = n % 100, last = n % 10;
  const char* s = "th";
  if (last2 < 11 || last2 > 13) {
    if (last == 1) s = "st";
    if (last == 2) s = "nd";
    if (last == 3) s = "rd";
  }
  return upper ? Cased(s, "AA") : s;
}

int32_t DayOfWeek(int32_t days) { return ((days + 4) % 7 + 7) % 7; }  // 0 = Sunday

// ISO 8601 year and week of a date (weeks start on Monday; week 1 holds
// the year's first Thursday).
void IsoWeek(int32_t days, int64_t* iso_year, int64_t* week) {
  const int32_t iso_dow = (DayOfWeek(days) + 6) % 7;  // 0 = Monday
  const int32_t thursday = days - iso_dow + 3;
  const dt::CivilDate c = dt::CivilFromDays(thursday);
  *iso_year = c.year;
  *week = (thursday - dt::DaysFromCivil(c.year, 1, 1)) / 7 + 1;
}

// Walks a date/time template: quoted text and \-escapes are copied, FM
// and TH/th are read around each pattern, and `field(pattern, upper-case
// pattern, fill, &number, &text)` gives a pattern's text (true: a number,
// which TH follows with its ordinal suffix).
template <typename Field>
std::string WalkDateTemplate(std::string_view format, Field field) {
  std::string out;
  size_t i = 0;
  while (i < format.size()) {
    std::string_view rest = format.substr(i);
    if (rest[0] == '"') {  // quoted text, \" inside
      for (++i; i < format.size() && format[i] != '"'; ++i) {
        if (format[i] == '\\' && i + 1 < format.size()) ++i;
        out.push_back(format[i]);
      }
      ++i;
      continue;
    }
    if (rest[0] == '\\' && rest.size() > 1) {
      out.push_back(rest[1]);
      i += 2;
      continue;
    }
    bool fill = false;  // FM: no padding for the next pattern
    if (rest.substr(0, 2) == "FM" || rest.substr(0, 2) == "fm") {
      fill = true;
      rest.remove_prefix(2);
      i += 2;
    }
    std::string_view p = MatchDateTimePattern(rest);
    if (p.empty()) {
      if (!fill) {
        out.push_back(rest[0]);
        ++i;
      }
      continue;
    }
    i += p.size();
    std::string upper(p);
    for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    int64_t number = 0;
    std::string text;
    const bool numeric = field(p, upper, fill, &number, &text);
    out += text;
    // TH / th after a number: its ordinal suffix.
    std::string_view after = format.substr(i);
    if (after.substr(0, 2) == "TH" || after.substr(0, 2) == "th") {
      if (numeric) out += Ordinal(number, after[0] == 'T');
      i += 2;
    }
  }
  return out;
}

}  // namespace

std::string_view MatchDateTimePattern(std::string_view rest) {
  for (std::string_view p : kPatterns) {
    if (rest.substr(0, p.size()) == p) return p;
  }
  for (std::string_view p : kMorePatterns) {
    if (rest.substr(0, p.size()) == p) return p;
  }
  return {};
}

std::string ToCharTimestamp(int64_t local, int32_t offset_seconds, const datetime::TimeZone* zone,
                            std::string_view format) {
  const dt::DayTime split = dt::SplitTimestamp(local);
  const dt::CivilDate c = dt::CivilFromDays(split.days);
  const int64_t t = split.time;
  const int64_t hour = t / dt::kMicrosPerHour, minute = t / dt::kMicrosPerMinute % 60;
  const int64_t second = t / dt::kMicrosPerSecond % 60, micros = t % dt::kMicrosPerSecond;
  const int32_t doy = split.days - dt::DaysFromCivil(c.year, 1, 1) + 1;
  const int32_t dow = DayOfWeek(split.days);
  auto field = [&](std::string_view p, const std::string& upper, bool fill, int64_t* number_out,
                   std::string* text_out) {
    // A number, zero-padded to `width` unless FM, then an ordinal suffix.
    bool numeric = true;
    int64_t number = 0;
    int width = 0;
    std::string text;
    if (upper == "YYYY") {
      number = c.year, width = 4;
    } else if (upper == "Y,YYY") {
      numeric = false;
      text = fmt::format("{},{:03d}", c.year / 1000, c.year % 1000);
    } else if (upper == "YYY" || upper == "YY" || upper == "Y") {
      width = static_cast<int>(upper.size());
      number = c.year % (width == 3 ? 1000 : width == 2 ? 100 : 10);
    } else if (upper == "IYYY" || upper == "IYY" || upper == "IY" || upper == "I" ||
               upper == "IW") {
      int64_t iso_year = 0, week = 0;
      IsoWeek(split.days, &iso_year, &week);
      if (upper == "IW") {
        number = week, width = 2;
      } else {
        width = static_cast<int>(upper.size() == 4 ? 4 : upper.size());
        number = width == 4 ? iso_year : iso_year % (width == 3 ? 1000 : width == 2 ? 100 : 10);
      }
    } else if (upper == "IDDD") {
      int64_t iso_year = 0, week = 0;
      IsoWeek(split.days, &iso_year, &week);
      number = (week - 1) * 7 + (dow + 6) % 7 + 1, width = 3;
    } else if (upper == "ID") {
      number = (dow + 6) % 7 + 1, width = 1;
    } else if (upper == "HH24") {
      number = hour, width = 2;
    } else if (upper == "HH12" || upper == "HH") {
      number = hour % 12 == 0 ? 12 : hour % 12, width = 2;
    } else if (upper == "MI") {
      number = minute, width = 2;
    } else if (upper == "SS") {
      number = second, width = 2;
    } else if (upper == "SSSS" || upper == "SSSSS") {
      number = t / dt::kMicrosPerSecond;
    } else if (upper == "MS") {
      number = micros / 1000, width = 3;
    } else if (upper == "US") {
      number = micros, width = 6;
    } else if (upper.substr(0, 2) == "FF") {
      width = upper[2] - '0';
      number = micros;
      for (int k = width; k < 6; ++k) number /= 10;
    } else if (upper == "MM") {
      number = c.month, width = 2;
    } else if (upper == "MONTH" || upper == "DAY") {
      numeric = false;
      text = Cased(upper == "MONTH" ? kMonths[c.month - 1] : kDays[dow], p);
      if (!fill) text = fmt::format("{:<9}", text);
    } else if (upper == "MON" || upper == "DY") {
      numeric = false;
      text = Cased(
          std::string_view(upper == "MON" ? kMonths[c.month - 1] : kDays[dow]).substr(0, 3), p);
    } else if (upper == "DDD") {
      number = doy, width = 3;
    } else if (upper == "DD") {
      number = c.day, width = 2;
    } else if (upper == "D") {
      number = dow + 1, width = 1;
    } else if (upper == "WW") {
      number = (doy - 1) / 7 + 1, width = 2;
    } else if (upper == "W") {
      number = (c.day - 1) / 7 + 1, width = 1;
    } else if (upper == "CC") {
      number = (c.year + 99) / 100, width = 2;
    } else if (upper == "Q") {
      number = (c.month - 1) / 3 + 1, width = 1;
    } else if (upper == "J") {
      number = int64_t{split.days} + 2440588;  // Julian day of 1970-01-01
    } else if (upper == "AM" || upper == "PM" || upper == "A.M." || upper == "P.M.") {
      numeric = false;
      const bool dots = upper.size() == 4;
      text = Cased(hour < 12 ? (dots ? "A.M." : "AM") : (dots ? "P.M." : "PM"),
                   std::islower(static_cast<unsigned char>(p[0])) ? "aa" : "AA");
    } else if (upper == "AD" || upper == "BC" || upper == "A.D." || upper == "B.C.") {
      numeric = false;  // years before 1 are out of Forktail's range
      text = Cased(upper.size() == 4 ? "A.D." : "AD",
                   std::islower(static_cast<unsigned char>(p[0])) ? "aa" : "AA");
    } else if (upper == "RM") {
      numeric = false;
      text = Cased(kRomanMonths[c.month - 1],
                   std::islower(static_cast<unsigned char>(p[0])) ? "aa" : "AA");
      if (!fill) text = fmt::format("{:<4}", text);
    } else if (upper == "OF" || upper == "TZH" || upper == "TZM") {
      numeric = false;
      const int32_t a = offset_seconds < 0 ? -offset_seconds : offset_seconds;
      const char sign = offset_seconds < 0 ? '-' : '+';
      if (upper == "OF") {
        text = fmt::format("{}{:02d}", sign, a / 3600);
        if (a % 3600 != 0) text += fmt::format(":{:02d}", a % 3600 / 60);
      } else if (upper == "TZH") {
        text = fmt::format("{}{:02d}", sign, a / 3600);
      } else {
        text = fmt::format("{:02d}", a % 3600 / 60);
      }
    } else if (upper == "TZ") {
      numeric = false;
      if (zone != nullptr) {
        if (!zone->is_utc()) NotSupportedPattern(p, "time zone abbreviation");
        text = Cased("UTC", p);
      }
    }
    if (numeric) {
      text = fill || width == 0 ? std::to_string(number) : fmt::format("{:0{}d}", number, width);
    }
    *number_out = number;
    *text_out = std::move(text);
    return numeric;
  };
  return WalkDateTemplate(format, field);
}

std::string ToCharInterval(const datetime::Interval& iv, std::string_view format) {
  // interval2itm's fields: hours are not folded into days, and a negative
  // time has negative fields (printed one digit wider, for the sign).
  const int64_t year = iv.months / 12, month = iv.months % 12, day = iv.days;
  const int64_t hour = iv.micros / dt::kMicrosPerHour;
  const int64_t minute = iv.micros / dt::kMicrosPerMinute % 60;
  const int64_t second = iv.micros / dt::kMicrosPerSecond % 60;
  const int64_t micros = iv.micros % dt::kMicrosPerSecond;
  auto field = [&](std::string_view p, const std::string& upper, bool fill, int64_t* number_out,
                   std::string* text_out) {
    int64_t number = 0;
    int width = 0;
    if (upper == "YYYY") {
      number = year, width = 4;
    } else if (upper == "MM") {
      number = month, width = 2;
    } else if (upper == "DD") {
      number = day, width = 2;
    } else if (upper == "HH24") {
      number = hour, width = 2;
    } else if (upper == "HH" || upper == "HH12") {
      number = hour % 12 == 0 ? 12 : hour % 12, width = 2;
    } else if (upper == "MI") {
      number = minute, width = 2;
    } else if (upper == "SS") {
      number = second, width = 2;
    } else if (upper == "MS") {
      number = micros / 1000, width = 3;
    } else if (upper == "US") {
      number = micros, width = 6;
    } else if (upper == "SSSS" || upper == "SSSSS") {
      number = hour * 3600 + minute * 60 + second;
    } else if (upper == "DAY" || upper == "DY" || upper == "D" || upper == "ID") {
      throw DbError(sqlstate::kInvalidDatetimeFormat,
                    "invalid format specification for an interval value")
          .WithHint("Intervals are not tied to specific calendar dates.");
    } else {
      throw DbError(sqlstate::kFeatureNotSupported,
                    fmt::format("the pattern \"{}\" of to_char is not supported for intervals", p));
    }
    if (number < 0 && width > 0) ++width;  // room for the sign
    *number_out = number;
    *text_out = fill || width == 0 ? std::to_string(number) : fmt::format("{:0{}d}", number, width);
    return true;
  };
  return WalkDateTemplate(format, field);
}

// ---- numbers -----------------------------------------------------------------

namespace {

struct NumberTemplate {
  struct Item {
    enum Kind { kDigit9, kDigit0, kPoint, kGroup, kSignS, kMinus, kPlus, kSignSG, kBracket, kText };
    Kind kind;
    std::string text;  // kText
  };
  std::vector<Item> items;
  int pre = 0, post = 0;
  int zero_start = -1;         // index among the integer digit positions of the first '0'
  bool fill = false;           // FM
  bool explicit_sign = false;  // S, MI, SG: no position kept for the sign
  bool bracket = false;        // PR
};

NumberTemplate ParseNumberTemplate(std::string_view f) {
  NumberTemplate t;
  bool after_point = false;
  size_t i = 0;
  auto starts = [&](std::string_view s) {
    if (f.size() - i < s.size()) return false;
    for (size_t k = 0; k < s.size(); ++k) {
      if (std::toupper(static_cast<unsigned char>(f[i + k])) != s[k]) return false;
    }
    return true;
  };
  using Item = NumberTemplate::Item;
  while (i < f.size()) {
    const char ch = f[i];
    if (ch == '9' || ch == '0') {
      if (after_point) {
        ++t.post;
      } else {
        if (ch == '0' && t.zero_start < 0) t.zero_start = t.pre;
        ++t.pre;
      }
      t.items.push_back({ch == '9' ? Item::kDigit9 : Item::kDigit0, {}});
      ++i;
    } else if (ch == '.' || ch == 'D' || ch == 'd') {
      if (after_point) throw DbError(sqlstate::kSyntaxError, "multiple decimal points");
      after_point = true;
      t.items.push_back({Item::kPoint, {}});
      ++i;
    } else if (ch == ',' || ch == 'G' || ch == 'g') {
      t.items.push_back({Item::kGroup, {}});
      ++i;
    } else if (starts("FM")) {
      t.fill = true;
      i += 2;
    } else if (starts("MI")) {
      t.explicit_sign = true;
      t.items.push_back({Item::kMinus, {}});
      i += 2;
    } else if (starts("PL")) {
      t.items.push_back({Item::kPlus, {}});
      i += 2;
    } else if (starts("SG")) {
      t.explicit_sign = true;
      t.items.push_back({Item::kSignSG, {}});
      i += 2;
    } else if (starts("PR")) {
      t.bracket = true;
      t.items.push_back({Item::kBracket, {}});
      i += 2;
    } else if (ch == 'S' || ch == 's') {
      t.explicit_sign = true;
      t.items.push_back({Item::kSignS, {}});
      ++i;
    } else if (starts("EEEE") || starts("RN") || starts("TH") || ch == 'V' || ch == 'v' ||
               ch == 'L' || ch == 'l') {
      NotSupportedPattern(f.substr(i, starts("EEEE")                                       ? 4
                                      : (ch == 'V' || ch == 'v' || ch == 'L' || ch == 'l') ? 1
                                                                                           : 2),
                          "number");
    } else if (ch == '"') {
      std::string text;
      for (++i; i < f.size() && f[i] != '"'; ++i) {
        if (f[i] == '\\' && i + 1 < f.size()) ++i;
        text.push_back(f[i]);
      }
      ++i;
      t.items.push_back({Item::kText, text});
    } else {
      if (ch == '\\' && i + 1 < f.size()) ++i;
      t.items.push_back({Item::kText, std::string(1, f[i])});
      ++i;
    }
  }
  return t;
}

// `text` ("[-]digits[.digits]") rounded half away from zero to `post`
// decimals: the integer digits and exactly `post` fraction digits.
void RoundDecimalText(std::string_view text, int post, bool* negative, std::string* int_part,
                      std::string* frac_part) {
  *negative = !text.empty() && text[0] == '-';
  if (*negative || (!text.empty() && text[0] == '+')) text.remove_prefix(1);
  const size_t dot = text.find('.');
  std::string digits(text.substr(0, dot));
  std::string frac = dot == std::string_view::npos ? "" : std::string(text.substr(dot + 1));
  const bool round_up = static_cast<int>(frac.size()) > post && frac[post] >= '5';
  frac.resize(post, '0');
  std::string all = digits + frac;
  if (round_up) {
    int k = static_cast<int>(all.size()) - 1;
    for (; k >= 0 && all[k] == '9'; --k) all[k] = '0';
    if (k >= 0) {
      ++all[k];
    } else {
      all.insert(all.begin(), '1');
    }
  }
  *int_part = all.substr(0, all.size() - post);
  *frac_part = all.substr(all.size() - post);
  const size_t nz = int_part->find_first_not_of('0');
  *int_part = nz == std::string::npos ? "0" : int_part->substr(nz);
  if (all.find_first_not_of('0') == std::string::npos) *negative = false;  // -0.00 prints 0.00
}

}  // namespace

int ToCharNumberDecimals(std::string_view format) { return ParseNumberTemplate(format).post; }

std::string ToCharNumber(std::string_view text, std::string_view format) {
  const NumberTemplate t = ParseNumberTemplate(format);
  bool negative = false;
  std::string int_part, frac_part;
  RoundDecimalText(text, t.post, &negative, &int_part, &frac_part);
  const bool overflow = static_cast<int>(int_part.size()) > t.pre;
  // A zero integer part prints nothing before a fraction (".5"), unless a
  // '0' asks for it.
  if (int_part == "0" && t.post > 0) int_part.clear();
  const int pad = overflow ? 0 : t.pre - static_cast<int>(int_part.size());
  // In FM, trailing fraction zeros at '9' positions go.
  int frac_keep = t.post;
  if (t.fill && !overflow) {
    std::vector<bool> nine_after_point;
    bool after = false;
    for (const auto& item : t.items) {
      if (item.kind == NumberTemplate::Item::kPoint) after = true;
      if (after && (item.kind == NumberTemplate::Item::kDigit9 ||
                    item.kind == NumberTemplate::Item::kDigit0)) {
        nine_after_point.push_back(item.kind == NumberTemplate::Item::kDigit9);
      }
    }
    while (frac_keep > 0 && nine_after_point[frac_keep - 1] && frac_part[frac_keep - 1] == '0') {
      --frac_keep;
    }
  }
  std::string out;
  std::vector<bool> padding;  // out[k] is a blank a sign may take
  auto put = [&](char ch, bool is_pad) {
    out.push_back(ch);
    padding.push_back(is_pad);
  };
  int first_digit = -1;  // where the number's first printed character is
  const bool float_sign = !t.explicit_sign;
  bool leading_s = false;  // S before the digits floats as the default sign does
  for (const NumberTemplate::Item& item : t.items) {
    if (item.kind == NumberTemplate::Item::kSignS) {
      leading_s = true;
      break;
    }
    if (item.kind == NumberTemplate::Item::kDigit9 || item.kind == NumberTemplate::Item::kDigit0 ||
        item.kind == NumberTemplate::Item::kPoint) {
      break;
    }
  }
  bool reserved = false;
  int int_pos = 0, frac_pos = 0;
  bool printed_digit = false;
  bool after_point = false;
  using Item = NumberTemplate::Item;
  for (const Item& item : t.items) {
    const bool numeric_item =
        item.kind == Item::kDigit9 || item.kind == Item::kDigit0 || item.kind == Item::kPoint;
    if (numeric_item && !reserved && !t.fill && (float_sign || t.bracket || leading_s)) {
      put(' ', true);  // the sign's position
      reserved = true;
    }
    switch (item.kind) {
      case Item::kDigit9:
      case Item::kDigit0:
        if (after_point) {
          if (frac_pos < frac_keep) {
            if (first_digit < 0) first_digit = static_cast<int>(out.size());
            put(overflow ? '#' : frac_part[frac_pos], false);
          }
          ++frac_pos;
        } else {
          if (overflow) {
            if (first_digit < 0) first_digit = static_cast<int>(out.size());
            put('#', false);
          } else if (int_pos < pad) {
            if (t.zero_start >= 0 && int_pos >= t.zero_start) {
              if (first_digit < 0) first_digit = static_cast<int>(out.size());
              put('0', false);
              printed_digit = true;
            } else if (!t.fill) {
              put(' ', true);
            }
          } else {
            if (first_digit < 0) first_digit = static_cast<int>(out.size());
            put(int_part[int_pos - pad], false);
            printed_digit = true;
          }
          ++int_pos;
        }
        break;
      case Item::kPoint:
        after_point = true;
        if (t.post == 0) break;  // "99." prints no point
        if (t.fill && !printed_digit && frac_keep == 0 && !overflow) {
          // Nothing would be left of the number: print its zero.
          if (first_digit < 0) first_digit = static_cast<int>(out.size());
          put('0', false);
        }
        if (first_digit < 0) first_digit = static_cast<int>(out.size());
        put('.', false);
        break;
      case Item::kGroup:
        if (printed_digit || overflow) {
          put(',', false);
        } else if (!t.fill) {
          put(' ', true);
        }
        break;
      case Item::kSignS:
        if (first_digit < 0) {
          // S before the number: floats to its first digit (below).
        } else {
          put(negative ? '-' : '+', false);
        }
        break;
      case Item::kMinus:
        if (negative) {
          put('-', false);
        } else if (!t.fill) {
          put(' ', false);
        }
        break;
      case Item::kPlus:
        if (!negative) {
          put('+', false);
        } else if (!t.fill) {
          put(' ', false);
        }
        break;
      case Item::kSignSG:
        put(negative ? '-' : '+', false);
        break;
      case Item::kBracket:
        if (negative) {
          put('>', false);
        } else if (!t.fill) {
          put(' ', false);
        }
        break;
      case Item::kText:
        for (char ch : item.text) put(ch, false);
        break;
    }
  }
  // The floating sign: '-' (S: '+' too; PR: '<') right before the first
  // printed character of the number, in a padding blank if there is one.
  char sign = 0;
  if (t.bracket) {
    sign = negative ? '<' : 0;
  } else if (leading_s) {
    sign = negative ? '-' : '+';
  } else if (float_sign && negative) {
    sign = '-';
  }
  if (sign != 0 && first_digit >= 0) {
    if (first_digit > 0 && padding[first_digit - 1]) {
      out[first_digit - 1] = sign;
    } else {
      out.insert(out.begin() + first_digit, sign);
    }
  }
  return out;
}

}  // namespace forktail
