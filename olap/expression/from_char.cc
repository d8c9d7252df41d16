#include "olap/expression/from_char.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <string>
#include <vector>

#include "olap/expression/to_char.h"
#include "storage/error.h"
#include "storage/value/datetime.h"

namespace forktail {

namespace {

namespace dt = datetime;

constexpr const char* kInvalidFormat = "22007";  // invalid_datetime_format
constexpr const char* kFieldOverflow = "22008";  // datetime_field_overflow

// One element of the template (formatting.c's FormatNode).
struct Node {
  enum Kind { kAction, kSpace, kSeparator, kChar } kind = kChar;
  std::string upper;    // kAction: the pattern in upper case ("HH24", "MONTH")
  std::string written;  // kAction: the pattern as written, for messages
  bool fm = false;      // FM before it: no fixed width
  bool th = false;      // TH/th after it: a suffix to skip
};

// ASCII printable, neither letter nor digit (is_separator_char).
bool IsSeparator(char c) {
  return c > 0x20 && c < 0x7F && !std::isalnum(static_cast<unsigned char>(c));
}

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

std::vector<Node> ParseTemplate(std::string_view f) {
  std::vector<Node> nodes;
  size_t i = 0;
  while (i < f.size()) {
    std::string_view rest = f.substr(i);
    if (rest[0] == '"') {  // quoted text: each character skips one of the input
      for (++i; i < f.size() && f[i] != '"'; ++i) {
        if (f[i] == '\\' && i + 1 < f.size()) ++i;
        nodes.push_back({Node::kChar});
      }
      ++i;
      continue;
    }
    if (rest[0] == '\\' && rest.size() > 1) {
      nodes.push_back({rest[1] == ' ' ? Node::kSpace : Node::kChar});
      i += 2;
      continue;
    }
    bool fm = false;
    if (rest.substr(0, 2) == "FM" || rest.substr(0, 2) == "fm") {
      fm = true;
      rest.remove_prefix(2);
      i += 2;
    }
    std::string_view p = MatchDateTimePattern(rest);
    if (p.empty() && (rest.substr(0, 2) == "FX" || rest.substr(0, 2) == "fx"))
      p = rest.substr(0, 2);
    if (p.empty()) {
      if (rest.empty()) break;
      const char c = rest[0];
      nodes.push_back({IsSpace(c)       ? Node::kSpace
                       : IsSeparator(c) ? Node::kSeparator
                                        : Node::kChar});
      ++i;
      continue;
    }
    Node n{Node::kAction, std::string(p), std::string(p), fm};
    for (char& c : n.upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    i += p.size();
    if (f.substr(i, 2) == "TH" || f.substr(i, 2) == "th") {
      n.th = true;
      i += 2;
    }
    nodes.push_back(std::move(n));
  }
  return nodes;
}

// The fields read (formatting.c's TmFromChar; 0 = not given).
struct Fields {
  enum class Mode { kNone, kGregorian, kIso } mode = Mode::kNone;
  int year = 0, yysz = 0, bc = 0, cc = 0, j = 0;
  int mm = 0, dd = 0, ddd = 0, d = 0, ww = 0, w = 0;
  int hh = 0, mi = 0, ss = 0, ssss = 0, ms = 0, us = 0;
  bool clock12 = false;
  int pm = 0;
  int tzsign = 0, tzh = 0, tzm = 0;
};

bool IsDigitPattern(const std::string& upper) {
  // formatting.c's is_digit false: names, TZH (it takes a sign), FFn, FX.
  static const char* const kNonDigit[] = {
      "MONTH", "MON", "DAY", "DY", "AM", "PM",  "A.M.", "P.M.", "AD",  "BC",  "A.D.", "B.C.",
      "RM",    "TZ",  "TZH", "OF", "FX", "FF1", "FF2",  "FF3",  "FF4", "FF5", "FF6"};
  for (const char* p : kNonDigit) {
    if (upper == p) return false;
  }
  return true;
}

class Reader {
 public:
  Reader(std::string_view input, std::vector<Node> nodes) : in_(input), nodes_(std::move(nodes)) {}

  void Run(Fields* out) {
    int extra_skip = 0;  // input spaces skipped beyond what the template asked for
    bool fx = false;
    for (size_t k = 0; k < nodes_.size() && s_ < in_.size(); ++k) {
      const Node& n = nodes_[k];
      // Spaces are skipped at the start and before each field (not in FX).
      const bool is_fx = n.kind == Node::kAction && n.upper == "FX";
      if (!fx && !is_fx && (n.kind == Node::kAction || k == 0)) {
        while (s_ < in_.size() && IsSpace(in_[s_])) ++s_, ++extra_skip;
      }
      if (n.kind == Node::kSpace || n.kind == Node::kSeparator) {
        if (!fx) {  // one space or separator of the input, or none
          --extra_skip;
          if (s_ < in_.size() && (IsSpace(in_[s_]) || IsSeparator(in_[s_]))) ++s_, ++extra_skip;
        } else {
          ++s_;
        }
        continue;
      }
      if (n.kind == Node::kChar) {  // consumes one character, whichever it is
        if (!fx && extra_skip > 0) {
          --extra_skip;
        } else {
          SkipChar();
        }
        continue;
      }
      node_ = k;
      Field(n, out, &fx, extra_skip);
      if (!fx) {  // spaces after a field are skipped too
        extra_skip = 0;
        while (s_ < in_.size() && IsSpace(in_[s_])) ++s_, ++extra_skip;
      }
    }
  }

 private:
  void SkipChar() {
    if (s_ >= in_.size()) return;
    // one UTF-8 character
    ++s_;
    while (s_ < in_.size() && (static_cast<unsigned char>(in_[s_]) & 0xC0) == 0x80) ++s_;
  }

  // Whether what follows node `k` cannot be a digit (is_next_separator).
  bool NextIsSeparator() const {
    const Node& n = nodes_[node_];
    if (n.th) return true;
    if (node_ + 1 >= nodes_.size()) return true;  // the template's end
    const Node& next = nodes_[node_ + 1];
    if (next.kind == Node::kAction) return !IsDigitPattern(next.upper);
    return true;  // a space, separator or quoted text
  }

  [[noreturn]] void Invalid(const std::string& copy) const {
    throw DbError(kInvalidFormat,
                  fmt::format("invalid value \"{}\" for \"{}\"", copy, nodes_[node_].written));
  }

  // from_char_parse_int_len: an integer of `len` digits (or any number of
  // them after FM or before a non-digit); returns the characters read.
  int ParseInt(int* dest, int len) {
    const size_t init = s_;
    while (s_ < in_.size() && in_[s_] == ' ') ++s_;
    const std::string copy(in_.substr(s_, len));
    long value = 0;
    const Node& n = nodes_[node_];
    if (n.fm || NextIsSeparator()) {
      const std::string rest(in_.substr(init));  // strtol skips spaces, takes a sign
      char* end = nullptr;
      errno = 0;
      value = std::strtol(rest.c_str(), &end, 10);
      s_ = init + static_cast<size_t>(end - rest.c_str());
    } else {
      if (copy.size() < static_cast<size_t>(len)) {
        throw DbError(kInvalidFormat,
                      fmt::format("source string too short for \"{}\" formatting field", n.written))
            .WithHint("If your source string is not fixed-width, try using the \"FM\" modifier.");
      }
      char* end = nullptr;
      errno = 0;
      value = std::strtol(copy.c_str(), &end, 10);
      const int used = static_cast<int>(end - copy.c_str());
      if (used > 0 && used < len) {
        throw DbError(kInvalidFormat,
                      fmt::format("invalid value \"{}\" for \"{}\"", copy, n.written))
            .WithHint("If your source string is not fixed-width, try using the \"FM\" modifier.");
      }
      s_ += static_cast<size_t>(used);
    }
    if (s_ == init) Invalid(copy);
    if (errno == ERANGE || value < INT_MIN || value > INT_MAX) {
      throw DbError(kFieldOverflow,
                    fmt::format("value for \"{}\" in source string is out of range", n.written));
    }
    if (dest != nullptr) Set(dest, static_cast<int>(value));
    return static_cast<int>(s_ - init);
  }
  int ParseInt(int* dest) { return ParseInt(dest, static_cast<int>(nodes_[node_].written.size())); }

  // from_char_set_int: a field given twice must agree.
  void Set(int* dest, int value) const {
    if (*dest != 0 && *dest != value) {
      throw DbError(kInvalidFormat,
                    fmt::format("conflicting values for \"{}\" field in formatting string",
                                nodes_[node_].written));
    }
    *dest = value;
  }

  // from_char_seq_search: the first of `words` the input starts with,
  // case-insensitively; its index.
  template <size_t N>
  int Search(const std::array<const char*, N>& words) {
    for (size_t w = 0; w < N; ++w) {
      const std::string_view word = words[w];
      if (in_.size() - s_ < word.size()) continue;
      bool match = true;
      for (size_t c = 0; c < word.size() && match; ++c) {
        match = std::tolower(static_cast<unsigned char>(in_[s_ + c])) ==
                std::tolower(static_cast<unsigned char>(word[c]));
      }
      if (match) {
        s_ += word.size();
        return static_cast<int>(w);
      }
    }
    Invalid(std::string(in_.substr(s_, nodes_[node_].written.size())));
  }

  void SkipSuffix(const Node& n) {
    if (!n.th) return;
    SkipChar();
    SkipChar();
  }

  void SetMode(Fields* out, Fields::Mode mode) const {
    if (mode == Fields::Mode::kNone) return;
    if (out->mode != Fields::Mode::kNone && out->mode != mode) {
      throw DbError(kInvalidFormat, "invalid combination of date conventions")
          .WithHint("Do not mix Gregorian and ISO week date conventions in a formatting template.");
    }
    out->mode = mode;
  }

  int PartialYear(int year, int digits) const {  // adjust_partial_year_to_2020
    if (digits >= 4) return year;
    if (year < 70) return year + 2000;
    if (year < 100) return year + 1900;
    if (year < 520) return year + 2000;
    if (year < 1000) return year + 1000;
    return year;
  }

  void Field(const Node& n, Fields* out, bool* fx, int extra_skip) {
    static constexpr std::array<const char*, 12> kMonths = {
        "January", "February", "March",     "April",   "May",      "June",
        "July",    "August",   "September", "October", "November", "December"};
    static constexpr std::array<const char*, 12> kMon = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    static constexpr std::array<const char*, 7> kDays = {
        "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};
    static constexpr std::array<const char*, 7> kDy = {"Sun", "Mon", "Tue", "Wed",
                                                       "Thu", "Fri", "Sat"};
    // Longest first: XII before XI before X (rm_months_lower's order).
    static constexpr std::array<const char*, 12> kRoman = {"xii", "xi", "x",  "ix",  "viii", "vii",
                                                           "vi",  "v",  "iv", "iii", "ii",   "i"};
    static constexpr std::array<const char*, 4> kAmPm = {"am", "pm", "AM", "PM"};
    static constexpr std::array<const char*, 4> kAmPmLong = {"a.m.", "p.m.", "A.M.", "P.M."};
    static constexpr std::array<const char*, 4> kAdBc = {"ad", "bc", "AD", "BC"};
    static constexpr std::array<const char*, 4> kAdBcLong = {"a.d.", "b.c.", "A.D.", "B.C."};
    using Mode = Fields::Mode;
    const std::string& u = n.upper;
    if (u == "FX") {
      *fx = true;
    } else if (u == "AM" || u == "PM") {
      Set(&out->pm, Search(kAmPm) % 2 + 1);  // 1 = AM, 2 = PM (0: not given)
      out->clock12 = true;
    } else if (u == "A.M." || u == "P.M.") {
      Set(&out->pm, Search(kAmPmLong) % 2 + 1);
      out->clock12 = true;
    } else if (u == "HH" || u == "HH12") {
      ParseInt(&out->hh, 2);
      out->clock12 = true;
      SkipSuffix(n);
    } else if (u == "HH24") {
      ParseInt(&out->hh, 2);
      SkipSuffix(n);
    } else if (u == "MI") {
      ParseInt(&out->mi);
      SkipSuffix(n);
    } else if (u == "SS") {
      ParseInt(&out->ss);
      SkipSuffix(n);
    } else if (u == "MS") {
      const int len = ParseInt(&out->ms, 3);
      out->ms *= len == 1 ? 100 : len == 2 ? 10 : 1;  // .5 is 500 ms, .05 is 50
      SkipSuffix(n);
    } else if (u == "US" || (u.size() == 3 && u.compare(0, 2, "FF") == 0)) {
      const int width = u == "US" ? 6 : u[2] - '0';
      const int len = ParseInt(&out->us, width);
      static constexpr int kScale[] = {1, 100000, 10000, 1000, 100, 10, 1};
      out->us *= kScale[std::min(len, 6)];
      SkipSuffix(n);
    } else if (u == "SSSS" || u == "SSSSS") {
      ParseInt(&out->ssss);
      SkipSuffix(n);
    } else if (u == "TZ" || u == "OF") {
      throw DbError(sqlstate::kFeatureNotSupported,
                    fmt::format("formatting field \"{}\" is only supported in to_char", n.written));
    } else if (u == "TZH") {
      // A minus skipped as a separator before it is its sign.
      if (s_ < in_.size() && (in_[s_] == '+' || in_[s_] == '-' || in_[s_] == ' ')) {
        out->tzsign = in_[s_] == '-' ? -1 : 1;
        ++s_;
      } else {
        out->tzsign = extra_skip > 0 && s_ > 0 && in_[s_ - 1] == '-' ? -1 : 1;
      }
      ParseInt(&out->tzh, 2);
    } else if (u == "TZM") {
      if (out->tzsign == 0) out->tzsign = 1;
      ParseInt(&out->tzm, 2);
    } else if (u == "AD" || u == "BC") {
      Set(&out->bc, Search(kAdBc) % 2 + 1);  // 1 = AD, 2 = BC
    } else if (u == "A.D." || u == "B.C.") {
      Set(&out->bc, Search(kAdBcLong) % 2 + 1);
    } else if (u == "MONTH") {
      SetMode(out, Mode::kGregorian);
      Set(&out->mm, Search(kMonths) + 1);
    } else if (u == "MON") {
      SetMode(out, Mode::kGregorian);
      Set(&out->mm, Search(kMon) + 1);
    } else if (u == "MM") {
      SetMode(out, Mode::kGregorian);
      ParseInt(&out->mm);
      SkipSuffix(n);
    } else if (u == "DAY") {
      Set(&out->d, Search(kDays) + 1);
    } else if (u == "DY") {
      Set(&out->d, Search(kDy) + 1);
    } else if (u == "DDD") {
      SetMode(out, Mode::kGregorian);
      ParseInt(&out->ddd);
      SkipSuffix(n);
    } else if (u == "IDDD") {
      SetMode(out, Mode::kIso);
      ParseInt(&out->ddd, 3);
      SkipSuffix(n);
    } else if (u == "DD") {
      SetMode(out, Mode::kGregorian);
      ParseInt(&out->dd);
      SkipSuffix(n);
    } else if (u == "D") {
      SetMode(out, Mode::kGregorian);
      ParseInt(&out->d);
      SkipSuffix(n);
    } else if (u == "ID") {
      SetMode(out, Mode::kIso);
      ParseInt(&out->d, 1);
      if (++out->d > 7) out->d = 1;  // Sunday = 1, as D counts
      SkipSuffix(n);
    } else if (u == "WW" || u == "IW") {
      SetMode(out, u == "IW" ? Mode::kIso : Mode::kGregorian);
      ParseInt(&out->ww);
      SkipSuffix(n);
    } else if (u == "Q") {
      ParseInt(nullptr);  // read and ignored, as in PostgreSQL
      SkipSuffix(n);
    } else if (u == "CC") {
      ParseInt(&out->cc);
      SkipSuffix(n);
    } else if (u == "Y,YYY") {
      SetMode(out, Mode::kGregorian);
      const std::string rest(in_.substr(s_));
      int millennia = 0, years = 0, used = 0;
      if (std::sscanf(rest.c_str(), "%d,%03d%n", &millennia, &years, &used) < 2) {
        throw DbError(kInvalidFormat, "invalid input string for \"Y,YYY\"");
      }
      Set(&out->year, years + millennia * 1000);
      out->yysz = 4;
      s_ += static_cast<size_t>(used);
      SkipSuffix(n);
    } else if (u == "YYYY" || u == "IYYY" || u == "YYY" || u == "IYY" || u == "YY" || u == "IY" ||
               u == "Y" || u == "I") {
      SetMode(out, u[0] == 'I' ? Mode::kIso : Mode::kGregorian);
      const int digits = static_cast<int>(u.size()) - (u[0] == 'I' && u.size() > 1 ? 1 : 0);
      const int len = ParseInt(&out->year);
      if (digits < 4) out->year = PartialYear(out->year, len);
      out->yysz = digits;
      SkipSuffix(n);
    } else if (u == "RM") {
      SetMode(out, Mode::kGregorian);
      Set(&out->mm, 12 - Search(kRoman));
    } else if (u == "W") {
      SetMode(out, Mode::kGregorian);
      ParseInt(&out->w);
      SkipSuffix(n);
    } else if (u == "J") {
      ParseInt(&out->j);
      SkipSuffix(n);
    } else {
      throw DbError(sqlstate::kFeatureNotSupported,
                    fmt::format("the pattern \"{}\" of to_timestamp is not supported", n.written));
    }
  }

  std::string_view in_;
  std::vector<Node> nodes_;
  size_t s_ = 0;
  size_t node_ = 0;
};

// Julian day number -> days since 1970-01-01.
constexpr int32_t kJulianOf1970 = 2440588;

// The Monday of ISO week `week` of ISO year `year` (isoweek2j), as days.
int32_t IsoWeekMonday(int32_t year, int32_t week) {
  const int32_t jan4 = dt::DaysFromCivil(year, 1, 4);
  const int32_t iso_dow = ((jan4 + 3) % 7 + 7) % 7;  // 0 = Monday (1970-01-01 was a Thursday)
  return jan4 - iso_dow + (week - 1) * 7;
}

[[noreturn]] void OutOfRange(std::string_view input) {
  throw DbError(kFieldOverflow, fmt::format("date/time field value out of range: \"{}\"", input));
}

}  // namespace

FromCharResult FromChar(std::string_view input, std::string_view format) {
  Fields f;
  Reader(input, ParseTemplate(format)).Run(&f);

  // do_to_timestamp: from the fields to a date and time (tm: year 0 is 1 BC).
  int year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0;
  bool has_year = false, has_month = false, has_day = false, full_date = false;
  if (f.ssss != 0) {
    hour = f.ssss / 3600;
    minute = f.ssss % 3600 / 60;
    second = f.ssss % 60;
  }
  if (f.ss != 0) second = f.ss;
  if (f.mi != 0) minute = f.mi;
  if (f.hh != 0) hour = f.hh;
  if (f.clock12) {
    if (hour < 1 || hour > 12) {
      throw DbError(kInvalidFormat,
                    fmt::format("hour \"{}\" is invalid for the 12-hour clock", hour))
          .WithHint("Use the 24-hour clock, or give an hour between 1 and 12.");
    }
    if (f.pm == 2 && hour < 12) hour += 12;
    if (f.pm != 2 && hour == 12) hour = 0;
  }
  const bool bc = f.bc == 2;
  if (f.year != 0) {
    if (f.cc != 0 && f.yysz <= 2) {  // YY within century CC (the 21st: 2001-2100)
      const int cc = bc ? -f.cc : f.cc;
      year = f.year % 100;
      if (year != 0) {
        year = cc >= 0 ? year + (cc - 1) * 100 : (cc + 1) * 100 - year + 1;
      } else {
        year = cc * 100 + (cc >= 0 ? 0 : 1);
      }
    } else {
      year = bc ? -f.year : f.year;
      if (year < 0) year++;
    }
    has_year = true;
  } else if (f.cc != 0) {
    const int cc = bc ? -f.cc : f.cc;
    year = cc >= 0 ? (cc - 1) * 100 + 1 : cc * 100 + 1;
    has_year = true;
  }
  if (f.j != 0) {
    const dt::CivilDate c = dt::CivilFromDays(f.j - kJulianOf1970);
    year = c.year, month = c.month, day = c.day;
    full_date = true;
  }
  int ddd = f.ddd;
  if (f.ww != 0) {
    if (f.mode == Fields::Mode::kIso) {
      int32_t days = IsoWeekMonday(year, f.ww);
      if (f.d != 0) days += f.d > 1 ? f.d - 2 : 6;  // d counts from Sunday = 1
      const dt::CivilDate c = dt::CivilFromDays(days);
      year = c.year, month = c.month, day = c.day;
      full_date = true;
    } else {
      ddd = (f.ww - 1) * 7 + 1;
    }
  }
  int dd = f.dd;
  if (f.w != 0) dd = (f.w - 1) * 7 + 1;
  if (dd != 0) day = dd, has_day = true;
  if (f.mm != 0) month = f.mm, has_month = true;
  if (ddd != 0 && (month <= 1 || day <= 1)) {
    if (year == 0 && !bc) {
      throw DbError(kInvalidFormat, "cannot calculate day of year without year information");
    }
    if (f.mode == Fields::Mode::kIso) {
      const dt::CivilDate c = dt::CivilFromDays(IsoWeekMonday(year, 1) - 1 + ddd);
      year = c.year, month = c.month, day = c.day;
      full_date = true;
    } else {
      int m = 1, before = 0;
      while (m < 12 && ddd > before + dt::DaysInMonth(year, m))
        before += dt::DaysInMonth(year, m++);
      if (month <= 1) month = m;
      if (day <= 1) day = ddd - before;
      has_month = has_day = true;
    }
  }
  const int64_t fraction = int64_t{f.ms} * 1000 + f.us;

  // ValidateDate, then the time fields.
  if (has_month && (month < 1 || month > 12)) OutOfRange(input);
  if (has_day && (day < 1 || day > 31)) OutOfRange(input);
  if ((full_date || (has_year && has_month && has_day)) && day > dt::DaysInMonth(year, month)) {
    OutOfRange(input);
  }
  if (hour < 0 || hour >= 24 || minute < 0 || minute >= 60 || second < 0 || second >= 60 ||
      fraction < 0 || fraction >= 1'000'000) {
    OutOfRange(input);
  }
  FromCharResult result;
  if (f.tzsign != 0) {
    if (f.tzh < 0 || f.tzh > 15 || f.tzm < 0 || f.tzm >= 60) {
      throw DbError(kFieldOverflow,
                    fmt::format("time zone displacement out of range: \"{}\"", input));
    }
    result.offset_seconds = f.tzsign * (f.tzh * 3600 + f.tzm * 60);
  }
  result.year = year, result.month = month, result.day = day;
  result.time = ((int64_t{hour} * 60 + minute) * 60 + second) * 1'000'000 + fraction;
  return result;
}

}  // namespace forktail
