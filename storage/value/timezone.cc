// TimeZone: the tz database reader (TZif, RFC 8536), POSIX TZ rules, the
// PostgreSQL names SET TIME ZONE accepts, and the thread's current zone.
#include "storage/value/timezone.h"

#include <dirent.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "storage/fork_guard.h"
#include "storage/value/datetime.h"

namespace forktail::datetime {
namespace {

constexpr const char* kZoneDir = "/usr/share/zoneinfo";
constexpr int64_t kSecondsPerDay = 86400;
// Rules are expanded into transitions up to the last year a timestamp holds.
constexpr int32_t kLastRuleYear = 9999;

bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return out;
}

// ---- POSIX TZ strings ------------------------------------------------------

class PosixReader {
 public:
  explicit PosixReader(std::string_view s) : s_(s) {}
  bool Done() const { return i_ >= s_.size(); }
  char Peek() const { return Done() ? '\0' : s_[i_]; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++i_;
    return true;
  }
  // A zone name: 3+ letters, or anything but '>' quoted in <...>, as the
  // tz code PostgreSQL carries reads it (its own offset zones are named
  // "<+05:30>-05:30"). `allow_empty` accepts none (PostgreSQL's reading of
  // '+05:30').
  bool Name(bool allow_empty) {
    if (Eat('<')) {
      size_t start = i_;
      while (!Done() && Peek() != '>') ++i_;
      return i_ > start && Eat('>');
    }
    size_t start = i_;
    while (!Done() && IsAlpha(Peek())) ++i_;
    return i_ - start >= 3 || (allow_empty && i_ == start);
  }
  // [+|-]hh[:mm[:ss]], hours up to `max_hours`; seconds, sign as written.
  bool Offset(int64_t* seconds, int max_hours = 24) {
    int sign = 1;
    if (Eat('-')) {
      sign = -1;
    } else {
      Eat('+');
    }
    int64_t h = 0, m = 0, sec = 0;
    if (!Number(&h, 3) || h > max_hours) return false;
    if (Eat(':')) {
      if (!Number(&m, 2) || m > 59) return false;
      if (Eat(':') && (!Number(&sec, 2) || sec > 59)) return false;
    }
    *seconds = sign * (h * 3600 + m * 60 + sec);
    return true;
  }
  bool Number(int64_t* out, int max_digits) {
    int n = 0;
    int64_t v = 0;
    while (!Done() && IsDigit(Peek()) && n < max_digits) {
      v = v * 10 + (s_[i_++] - '0');
      ++n;
    }
    *out = v;
    return n > 0;
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

// One end of a daylight period: Jn (1..365, no Feb 29), n (0..365), or
// Mm.w.d (day d of week w of month m; w = 5 is the last), at `time`
// seconds of local time.
struct PosixRule {
  char kind = 'M';
  int64_t day = 0, week = 0, month = 0;
  int64_t time = 2 * 3600;
};

bool ReadRule(PosixReader& r, PosixRule* rule) {
  if (r.Eat('J')) {
    rule->kind = 'J';
    if (!r.Number(&rule->day, 3) || rule->day < 1 || rule->day > 365) return false;
  } else if (r.Eat('M')) {
    rule->kind = 'M';
    if (!r.Number(&rule->month, 2) || rule->month < 1 || rule->month > 12 || !r.Eat('.')) {
      return false;
    }
    if (!r.Number(&rule->week, 1) || rule->week < 1 || rule->week > 5 || !r.Eat('.')) return false;
    if (!r.Number(&rule->day, 1) || rule->day > 6) return false;
  } else {
    rule->kind = 'N';
    if (!r.Number(&rule->day, 3) || rule->day > 365) return false;
  }
  if (r.Eat('/')) return r.Offset(&rule->time, 167);
  return true;
}

// Seconds since 1970 of a rule's moment in year `y`, in the local time the
// rule is written in (before subtracting the offset then in effect).
int64_t RuleLocalSeconds(const PosixRule& rule, int32_t y) {
  int64_t day = 0;
  int32_t jan1 = DaysFromCivil(y, 1, 1);
  switch (rule.kind) {
    case 'J':
      day = jan1 + rule.day - 1 + (IsLeapYear(y) && rule.day >= 60 ? 1 : 0);
      break;
    case 'N':
      day = jan1 + rule.day;
      break;
    default: {
      int32_t first = DaysFromCivil(y, static_cast<int32_t>(rule.month), 1);
      int32_t dow = ((first + 4) % 7 + 7) % 7;  // 1970-01-01 was a Thursday (4)
      int64_t d = first + ((rule.day - dow + 7) % 7) + (rule.week - 1) * 7;
      int32_t month_end = first + DaysInMonth(y, static_cast<int32_t>(rule.month));
      while (d >= month_end) d -= 7;
      day = d;
    }
  }
  return day * kSecondsPerDay + rule.time;
}

// Appends t unless it repeats the last offset.
void Push(std::vector<TimeZone::Transition>* out, int32_t* last, int64_t at, int32_t offset) {
  if (offset == *last) return;
  if (!out->empty() && at <= out->back().at) return;
  out->push_back({at, offset, *last});
  *last = offset;
}

// The US rules PostgreSQL's "posixrules" gives a POSIX zone with daylight
// time but no rule of its own.
constexpr const char* kDefaultRule = ",M3.2.0,M11.1.0";

}  // namespace

TimeZonePtr ParsePosixTimeZone(std::string_view spec, std::string name, int64_t from_seconds) {
  PosixReader r(spec);
  bool leading_sign = !spec.empty() && (spec[0] == '+' || spec[0] == '-');
  if (!r.Name(leading_sign)) return nullptr;
  int64_t std_west = 0;
  if (!r.Offset(&std_west)) return nullptr;
  int32_t std_off = static_cast<int32_t>(-std_west);
  if (r.Done())
    return std::make_shared<const TimeZone>(std::move(name), std_off,
                                            std::vector<TimeZone::Transition>{});
  if (!r.Name(false)) return nullptr;
  int32_t dst_off = std_off + 3600;
  if (!r.Done() && r.Peek() != ',') {
    int64_t dst_west = 0;
    if (!r.Offset(&dst_west)) return nullptr;
    dst_off = static_cast<int32_t>(-dst_west);
  }
  PosixReader default_rule(kDefaultRule);
  PosixReader& rules = r.Done() ? default_rule : r;
  PosixRule start, end;
  if (!rules.Eat(',') || !ReadRule(rules, &start) || !rules.Eat(',') || !ReadRule(rules, &end) ||
      !rules.Done()) {
    return nullptr;
  }
  std::vector<TimeZone::Transition> out;
  // After a TZif file's last transition the first event counts whatever
  // offset it sets: the file's own offset there may be either.
  int32_t last = from_seconds == INT64_MIN ? std_off : INT32_MIN;
  int32_t first_year = 1;
  if (from_seconds != INT64_MIN) {
    first_year = CivilFromDays(static_cast<int32_t>(from_seconds / kSecondsPerDay)).year;
  }
  for (int32_t y = first_year; y <= kLastRuleYear; ++y) {
    // Start is written in standard time, end in daylight time.
    int64_t s = RuleLocalSeconds(start, y) - std_off;
    int64_t e = RuleLocalSeconds(end, y) - dst_off;
    std::pair<int64_t, int32_t> moves[2] = {{s, dst_off}, {e, std_off}};
    if (e < s) std::swap(moves[0], moves[1]);
    for (auto [at, off] : moves) {
      if (at > from_seconds) Push(&out, &last, at, off);
    }
  }
  return std::make_shared<const TimeZone>(std::move(name), std_off, std::move(out));
}

TimeZonePtr ParseTzif(std::string_view b, std::string name) {
  auto u32 = [&](size_t at) -> uint32_t {
    return (uint32_t{static_cast<uint8_t>(b[at])} << 24) |
           (uint32_t{static_cast<uint8_t>(b[at + 1])} << 16) |
           (uint32_t{static_cast<uint8_t>(b[at + 2])} << 8) |
           uint32_t{static_cast<uint8_t>(b[at + 3])};
  };
  auto i64 = [&](size_t at) -> int64_t {
    return static_cast<int64_t>((uint64_t{u32(at)} << 32) | u32(at + 4));
  };
  constexpr size_t kHeader = 44;
  if (b.size() < kHeader || b.substr(0, 4) != "TZif") return nullptr;
  char version = b[4];
  struct Counts {
    uint32_t isut, isstd, leap, time, type, chars;
  };
  auto counts = [&](size_t at) {
    return Counts{u32(at + 20), u32(at + 24), u32(at + 28),
                  u32(at + 32), u32(at + 36), u32(at + 40)};
  };
  auto block_size = [](const Counts& c, size_t time_size) {
    return c.time * time_size + c.time + c.type * 6 + c.chars + c.leap * (time_size + 4) + c.isstd +
           c.isut;
  };
  Counts c = counts(0);
  size_t at = kHeader;
  size_t time_size = 4;
  if (version >= '2') {
    // Skip the 32-bit block; the 64-bit one follows its own header.
    at += block_size(c, 4);
    if (b.size() < at + kHeader || b.substr(at, 4) != "TZif") return nullptr;
    c = counts(at);
    at += kHeader;
    time_size = 8;
  }
  if (c.type == 0 || b.size() < at + block_size(c, time_size)) return nullptr;
  std::vector<int64_t> times(c.time);
  for (uint32_t i = 0; i < c.time; ++i) {
    times[i] = time_size == 8 ? i64(at + i * 8) : static_cast<int32_t>(u32(at + i * 4));
  }
  size_t idx_at = at + c.time * time_size;
  size_t type_at = idx_at + c.time;
  std::vector<int32_t> offsets(c.type);
  for (uint32_t i = 0; i < c.type; ++i) offsets[i] = static_cast<int32_t>(u32(type_at + i * 6));
  std::vector<TimeZone::Transition> out;
  int32_t base = offsets[0];
  int32_t last = base;
  for (uint32_t i = 0; i < c.time; ++i) {
    uint8_t type = static_cast<uint8_t>(b[idx_at + i]);
    if (type >= c.type) return nullptr;
    Push(&out, &last, times[i], offsets[type]);
  }
  size_t footer_at = at + block_size(c, time_size);
  if (time_size == 8 && footer_at < b.size() && b[footer_at] == '\n') {
    size_t end = b.find('\n', footer_at + 1);
    std::string_view footer = end == std::string_view::npos
                                  ? std::string_view()
                                  : b.substr(footer_at + 1, end - footer_at - 1);
    if (!footer.empty()) {
      int64_t from = c.time > 0 ? times[c.time - 1] : INT64_MIN;
      TimeZonePtr rule = ParsePosixTimeZone(footer, name, from);
      if (rule == nullptr) return nullptr;
      if (c.time == 0) return rule;
      for (const TimeZone::Transition& t : rule->transitions()) Push(&out, &last, t.at, t.offset);
    }
  }
  return std::make_shared<const TimeZone>(std::move(name), base, std::move(out));
}

}  // namespace forktail::datetime

namespace forktail::datetime {
namespace {

int64_t FloorSeconds(int64_t micros) {
  int64_t s = micros / 1'000'000;
  return micros % 1'000'000 < 0 ? s - 1 : s;
}

bool SafeZoneName(std::string_view name) {
  if (name.empty() || name.size() > 255 || name[0] == '/' || name.find("..") != name.npos) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return IsAlpha(c) || IsDigit(c) || c == '/' || c == '_' || c == '-' || c == '+';
  });
}

// The file under kZoneDir whose path equals `name` ignoring case, as
// PostgreSQL's pg_open_tzfile finds it; "" if none. `canonical` gets the
// path as the file system spells it.
std::string FindZoneFile(std::string_view name, std::string* canonical) {
  std::string dir = kZoneDir;
  canonical->clear();
  size_t start = 0;
  while (start <= name.size()) {
    size_t slash = name.find('/', start);
    std::string_view part = name.substr(start, slash == name.npos ? name.npos : slash - start);
    if (part.empty()) return "";
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) return "";
    std::string found;
    std::string want = Lower(part);
    while (dirent* e = readdir(d)) {
      if (Lower(e->d_name) == want) {
        found = e->d_name;
        break;
      }
    }
    closedir(d);
    if (found.empty()) return "";
    dir += "/" + found;
    if (!canonical->empty()) *canonical += '/';
    *canonical += found;
    if (slash == name.npos) break;
    start = slash + 1;
  }
  return dir;
}

struct ZoneCache {
  std::mutex mu;
  std::map<std::string, TimeZonePtr> regions;  // by lower-case name; nullptr: none
  std::map<std::string, TimeZonePtr> by_name;  // what Find answered
};

ZoneCache& Cache() {
  static ZoneCache* cache = [] {
    auto* c = new ZoneCache();
    // Sessions look zones up while the transaction thread forks snapshot
    // processes, which look zones up too.
    HoldAcrossFork(&c->mu);
    return c;
  }();
  return *cache;
}

thread_local TimeZonePtr tls_zone;

}  // namespace

int32_t TimeZone::OffsetAt(int64_t utc_micros) const {
  if (transitions_.empty()) return base_offset_;
  int64_t t = FloorSeconds(utc_micros);
  auto it = std::upper_bound(transitions_.begin(), transitions_.end(), t,
                             [](int64_t x, const Transition& tr) { return x < tr.at; });
  return it == transitions_.begin() ? base_offset_ : std::prev(it)->offset;
}

// PostgreSQL's DetermineTimeZoneOffsetInternal: the first offset change
// after the local time less a day decides, as if the local time were UTC.
int32_t TimeZone::OffsetForLocal(int64_t local_micros) const {
  if (transitions_.empty()) return base_offset_;
  int64_t t = FloorSeconds(local_micros);
  int64_t prev = t - kSecondsPerDay;
  auto it = std::upper_bound(transitions_.begin(), transitions_.end(), prev,
                             [](int64_t x, const Transition& tr) { return x < tr.at; });
  int32_t before = it == transitions_.begin() ? base_offset_ : std::prev(it)->offset;
  if (it == transitions_.end()) return before;
  int64_t boundary = it->at;
  int32_t after = it->offset;
  int64_t before_time = t - before, after_time = t - after;
  if (before_time < boundary && after_time < boundary) return before;
  if (before_time > boundary && after_time >= boundary) return after;
  // In a gap (spring forward) the "before" reading, in an overlap the "after".
  return before_time > after_time ? before : after;
}

TimeZonePtr TimeZone::Utc() {
  static const TimeZonePtr utc =
      std::make_shared<const TimeZone>("UTC", 0, std::vector<Transition>{});
  return utc;
}

TimeZonePtr TimeZone::FixedOffset(int32_t seconds_east) {
  std::string east = FormatOffset(seconds_east);
  std::string west = FormatOffset(-seconds_east);
  return std::make_shared<const TimeZone>("<" + east + ">" + west, seconds_east,
                                          std::vector<Transition>{});
}

TimeZonePtr TimeZone::FindRegion(std::string_view name) {
  if (!SafeZoneName(name)) return nullptr;
  ZoneCache& cache = Cache();
  std::string key = Lower(name);
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    auto it = cache.regions.find(key);
    if (it != cache.regions.end()) return it->second;
  }
  std::string canonical;
  std::string path = FindZoneFile(name, &canonical);
  TimeZonePtr zone;
  if (!path.empty()) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    if (in) zone = ParseTzif(bytes.str(), canonical);
  }
  std::lock_guard<std::mutex> lock(cache.mu);
  cache.regions.emplace(key, zone);
  return zone;
}

TimeZonePtr TimeZone::Find(std::string_view name) {
  ZoneCache& cache = Cache();
  std::string key(name);
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    auto it = cache.by_name.find(key);
    if (it != cache.by_name.end()) return it->second;
  }
  TimeZonePtr zone;
  // A number of hours, ISO sign (check_timezone turns it into a POSIX zone).
  char* end = nullptr;
  double hours = key.empty() ? 0 : std::strtod(key.c_str(), &end);
  if (!key.empty() && end == key.c_str() + key.size() && std::isfinite(hours)) {
    if (std::fabs(hours) <= 168) zone = FixedOffset(static_cast<int32_t>(hours * 3600));
  } else if (Lower(key) == "utc") {
    zone = Utc();
  } else if ((zone = FindRegion(key)) == nullptr) {
    // A POSIX string keeps the spelling it was given.
    zone = ParsePosixTimeZone(key, key);
  }
  if (zone == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(cache.mu);
  if (cache.by_name.size() < 1024) {
    cache.by_name.emplace(key, zone);
    // The session keeps the zone's name (SHOW's answer) and finds it again
    // by that name: '5.5' is "<+05:30>-05:30" from then on.
    cache.by_name.emplace(zone->name(), zone);
  }
  return zone;
}

const TimeZone& CurrentTimeZone() { return tls_zone ? *tls_zone : *TimeZone::Utc(); }

TimeZonePtr CurrentTimeZonePtr() { return tls_zone ? tls_zone : TimeZone::Utc(); }

ScopedTimeZone::ScopedTimeZone(TimeZonePtr zone) : previous_(std::move(tls_zone)) {
  tls_zone = std::move(zone);
}

ScopedTimeZone::~ScopedTimeZone() { tls_zone = std::move(previous_); }

namespace {

struct FixedAbbreviation {
  const char* name;
  int32_t seconds_east;
};

// share/timezonesets/Default of PostgreSQL 15, the fixed-offset entries.
constexpr FixedAbbreviation kFixedAbbreviations[] = {
    {"EAT", 10800},   {"SAST", 7200},   {"WAT", 3600},    {"ACT", -18000},   {"AKDT", -28800},
    {"AKST", -32400}, {"BOT", -14400},  {"BRA", -10800},  {"BRST", -7200},   {"BRT", -10800},
    {"COT", -18000},  {"CDT", -18000},  {"CLST", -10800}, {"CST", -21600},   {"EDT", -14400},
    {"EGST", 0},      {"EGT", -3600},   {"EST", -18000},  {"FNT", -7200},    {"FNST", -3600},
    {"GFT", -10800},  {"MDT", -21600},  {"MST", -25200},  {"NDT", -9000},    {"NFT", -12600},
    {"NST", -12600},  {"PET", -18000},  {"PDT", -25200},  {"PMDT", -7200},   {"PMST", -10800},
    {"PST", -28800},  {"PYST", -10800}, {"UYST", -7200},  {"UYT", -10800},   {"WGST", -7200},
    {"WGT", -10800},  {"DDUT", 36000},  {"AFT", 16200},   {"ALMT", 21600},   {"ALMST", 25200},
    {"AMT", -14400},  {"BDT", 21600},   {"BNT", 28800},   {"BORT", 28800},   {"BTT", 21600},
    {"CCT", 28800},   {"HKT", 28800},   {"ICT", 25200},   {"IDT", 10800},    {"IRT", 12600},
    {"IST", 7200},    {"JAYT", 32400},  {"JST", 32400},   {"KDT", 36000},    {"KGST", 21600},
    {"KST", 32400},   {"MMT", 23400},   {"MYT", 28800},   {"NPT", 20700},    {"PHT", 28800},
    {"PKT", 18000},   {"PKST", 21600},  {"TJT", 18000},   {"ULAST", 32400},  {"UZST", 21600},
    {"UZT", 18000},   {"XJT", 21600},   {"YEKST", 21600}, {"ADT", -10800},   {"AST", -14400},
    {"AZOST", 0},     {"AZOT", -3600},  {"ACSST", 37800}, {"ACDT", 37800},   {"ACST", 34200},
    {"ACWST", 31500}, {"AESST", 39600}, {"AEDT", 39600},  {"AEST", 36000},   {"AWSST", 32400},
    {"AWST", 28800},  {"CADT", 37800},  {"CAST", 34200},  {"LHST", 37800},   {"LIGT", 36000},
    {"NZT", 43200},   {"SADT", 37800},  {"WADT", 28800},  {"WAST", 25200},   {"WDT", 32400},
    {"GMT", 0},       {"UCT", 0},       {"UT", 0},        {"UTC", 0},        {"Z", 0},
    {"ZULU", 0},      {"BST", 3600},    {"BDST", 7200},   {"CEST", 7200},    {"CET", 3600},
    {"CETDST", 7200}, {"EEST", 10800},  {"EET", 7200},    {"EETDST", 10800}, {"FET", 10800},
    {"MEST", 7200},   {"MESZ", 7200},   {"MET", 3600},    {"METDST", 7200},  {"MEZ", 3600},
    {"MSD", 14400},   {"WET", 0},       {"WETDST", 3600}, {"CXT", 25200},    {"MUT", 14400},
    {"MUST", 18000},  {"MVT", 18000},   {"RET", 14400},   {"SCT", 14400},    {"TFT", 18000},
    {"CHADT", 49500}, {"CHAST", 45900}, {"CHUT", 36000},  {"FJST", 46800},   {"FJT", 43200},
    {"GALT", -21600}, {"GAMT", -32400}, {"GILT", 43200},  {"HST", -36000},   {"MART", -34200},
    {"MHT", 43200},   {"MPT", 36000},   {"NZDT", 46800},  {"NZST", 43200},   {"PGT", 36000},
    {"PONT", 39600},  {"PWT", 32400},   {"TAHT", -36000}, {"TOT", 46800},    {"TRUT", 36000},
    {"TVT", 43200},   {"VUT", 39600},   {"WAKT", 43200},  {"WFT", 43200},    {"YAPT", 36000},
};

struct ZoneDependentAbbreviation {
  const char* name;
  const char* zone;
};

// The same file's entries whose offset depends on the date.
constexpr ZoneDependentAbbreviation kZoneAbbreviations[] = {
    {"ART", "America/Argentina/Buenos_Aires"},
    {"ARST", "America/Argentina/Buenos_Aires"},
    {"CLT", "America/Santiago"},
    {"GYT", "America/Guyana"},
    {"PYT", "America/Asuncion"},
    {"VET", "America/Caracas"},
    {"DAVT", "Antarctica/Davis"},
    {"MAWT", "Antarctica/Mawson"},
    {"AMST", "Asia/Yerevan"},
    {"ANAST", "Asia/Anadyr"},
    {"ANAT", "Asia/Anadyr"},
    {"AZST", "Asia/Baku"},
    {"AZT", "Asia/Baku"},
    {"GEST", "Asia/Tbilisi"},
    {"GET", "Asia/Tbilisi"},
    {"IRKST", "Asia/Irkutsk"},
    {"IRKT", "Asia/Irkutsk"},
    {"KGT", "Asia/Bishkek"},
    {"KRAST", "Asia/Krasnoyarsk"},
    {"KRAT", "Asia/Krasnoyarsk"},
    {"LKT", "Asia/Colombo"},
    {"MAGST", "Asia/Magadan"},
    {"MAGT", "Asia/Magadan"},
    {"NOVST", "Asia/Novosibirsk"},
    {"NOVT", "Asia/Novosibirsk"},
    {"OMSST", "Asia/Omsk"},
    {"OMST", "Asia/Omsk"},
    {"PETST", "Asia/Kamchatka"},
    {"PETT", "Asia/Kamchatka"},
    {"SGT", "Asia/Singapore"},
    {"TMT", "Asia/Ashgabat"},
    {"ULAT", "Asia/Ulaanbaatar"},
    {"VLAST", "Asia/Vladivostok"},
    {"VLAT", "Asia/Vladivostok"},
    {"YAKST", "Asia/Yakutsk"},
    {"YAKT", "Asia/Yakutsk"},
    {"YEKT", "Asia/Yekaterinburg"},
    {"FKST", "Atlantic/Stanley"},
    {"FKT", "Atlantic/Stanley"},
    {"LHDT", "Australia/Lord_Howe"},
    {"MSK", "Europe/Moscow"},
    {"VOLT", "Europe/Volgograd"},
    {"IOT", "Indian/Chagos"},
    {"CKT", "Pacific/Rarotonga"},
    {"EASST", "Pacific/Easter"},
    {"EAST", "Pacific/Easter"},
    {"KOST", "Pacific/Kosrae"},
    {"LINT", "Pacific/Kiritimati"},
    {"NUT", "Pacific/Niue"},
    {"TKT", "Pacific/Fakaofo"},
};

bool IEquals(std::string_view a, std::string_view upper) {
  if (a.size() != upper.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    if (c != upper[i]) return false;
  }
  return true;
}

}  // namespace

bool FindZoneAbbreviation(std::string_view abbrev, ZoneAbbreviation* out) {
  for (const FixedAbbreviation& a : kFixedAbbreviations) {
    if (IEquals(abbrev, a.name)) {
      *out = {a.seconds_east, nullptr};
      return true;
    }
  }
  for (const ZoneDependentAbbreviation& a : kZoneAbbreviations) {
    if (IEquals(abbrev, a.name)) {
      TimeZonePtr zone = TimeZone::FindRegion(a.zone);
      if (zone == nullptr) return false;
      *out = {0, zone};
      return true;
    }
  }
  return false;
}

}  // namespace forktail::datetime
