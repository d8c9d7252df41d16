// Time zones for TIMESTAMP WITH TIME ZONE: a session's TimeZone setting, the
// zones a timestamptz literal names, and AT TIME ZONE.
//
// A timestamptz is stored as its UTC instant; a zone only turns instants into
// local wall-clock time and back. A TimeZone is one of
//   - UTC;
//   - a fixed offset (SET TIME ZONE 2, '<+02>-02', 'UTC+3' without daylight
//     rules), as PostgreSQL's pg_tzset_offset makes them;
//   - a zone of the system tz database (/usr/share/zoneinfo, the files
//     Debian's PostgreSQL reads too): its TZif transitions, then its POSIX
//     footer rule (or a POSIX string given directly: 'EST5EDT', 'XYZ+3ABC',
//     whose missing rule is the US one, as PostgreSQL's posixrules) expanded
//     into transitions up to year 9999.
// Offsets are seconds EAST of UTC (ISO sign); POSIX strings write them west.
//
// Local -> UTC follows PostgreSQL's DetermineTimeZoneOffset: a local time in
// a spring-forward gap takes the offset before the transition ('02:30' on a
// Paris spring-forward day is 03:30+02), an ambiguous one in a fall-back
// overlap the offset after it (02:30+01).
//
// Zones are immutable and shared; Find caches them for the process. The
// current zone of a thread (CurrentTimeZone) is what the row-at-a-time text
// I/O of timestamptz values uses (Value::Parse / ToString / CastTo); a SQL
// session sets it (ScopedTimeZone) while it runs or answers a statement, and
// the binder copies it into the expressions that need it, so that vectorized
// kernels on worker threads never read it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace forktail::datetime {

class TimeZone {
 public:
  // What SET TIME ZONE accepts, as PostgreSQL's check_timezone reads it: a
  // number of hours ('2', '-3.5'), a tz database name (case-insensitive:
  // 'europe/paris' is 'Europe/Paris'), or a POSIX TZ string. nullptr if
  // none of those.
  static std::shared_ptr<const TimeZone> Find(std::string_view name);
  // A zone of the tz database only (the names a timestamptz literal may end
  // with: '... Europe/Paris'); nullptr otherwise.
  static std::shared_ptr<const TimeZone> FindRegion(std::string_view name);
  static std::shared_ptr<const TimeZone> Utc();
  // A fixed offset, named as PostgreSQL names it ("<+05:30>-05:30").
  static std::shared_ptr<const TimeZone> FixedOffset(int32_t seconds_east);

  // The name SHOW TimeZone prints.
  const std::string& name() const { return name_; }
  bool is_utc() const { return transitions_.empty() && base_offset_ == 0; }

  // Offset (seconds east of UTC) in effect at a UTC instant (microseconds).
  int32_t OffsetAt(int64_t utc_micros) const;
  // Offset that a local wall-clock time (microseconds, as a TIMESTAMP) has in
  // this zone: its UTC instant is local - offset * 10^6.
  int32_t OffsetForLocal(int64_t local_micros) const;

  int64_t ToLocal(int64_t utc_micros) const {
    return utc_micros + int64_t{OffsetAt(utc_micros)} * 1'000'000;
  }
  int64_t ToUtc(int64_t local_micros) const {
    return local_micros - int64_t{OffsetForLocal(local_micros)} * 1'000'000;
  }

  // The offset changes, as the constructors below build them.
  struct Transition {
    int64_t at = 0;           // UTC seconds from which `offset` holds
    int32_t offset = 0;       // seconds east
    int32_t prev_offset = 0;  // the offset before `at`
  };
  TimeZone(std::string name, int32_t base_offset, std::vector<Transition> transitions)
      : name_(std::move(name)), base_offset_(base_offset), transitions_(std::move(transitions)) {}
  const std::vector<Transition>& transitions() const { return transitions_; }
  // A copy named `name` (SHOW prints what the user wrote for POSIX zones).
  std::shared_ptr<const TimeZone> Renamed(std::string name) const {
    return std::make_shared<const TimeZone>(std::move(name), base_offset_, transitions_);
  }

 private:
  std::string name_;
  int32_t base_offset_ = 0;              // before the first transition (or always)
  std::vector<Transition> transitions_;  // sorted by `at`, only offset changes
};

using TimeZonePtr = std::shared_ptr<const TimeZone>;

// A POSIX TZ string ("CET-1CEST,M3.5.0,M10.5.0/3", "<+02>-02", "UTC+3")
// as a zone named `name`; nullptr if it does not parse. Transitions start at
// `from_seconds` (UTC) and end with year 9999.
TimeZonePtr ParsePosixTimeZone(std::string_view spec, std::string name,
                               int64_t from_seconds = INT64_MIN);
// A TZif file's contents (RFC 8536, versions 1-4) as a zone named `name`;
// nullptr if malformed.
TimeZonePtr ParseTzif(std::string_view bytes, std::string name);

// The zone this thread's row-at-a-time timestamptz text I/O uses: the
// innermost live ScopedTimeZone's, else UTC.
const TimeZone& CurrentTimeZone();
TimeZonePtr CurrentTimeZonePtr();

class ScopedTimeZone {
 public:
  explicit ScopedTimeZone(TimeZonePtr zone);
  ~ScopedTimeZone();
  ScopedTimeZone(const ScopedTimeZone&) = delete;
  ScopedTimeZone& operator=(const ScopedTimeZone&) = delete;

 private:
  TimeZonePtr previous_;
};

// PostgreSQL's "Default" timezone_abbreviations, which a timestamptz
// literal may end with: a fixed offset ("EST" -5h, "CEST" +2h, "Z", "UTC")
// or a zone whose offset at that time it means ("MSK": Europe/Moscow).
struct ZoneAbbreviation {
  int32_t seconds_east = 0;
  TimeZonePtr zone;  // set for the zone-dependent ones
};
// false if `abbrev` (any case) is none of them.
bool FindZoneAbbreviation(std::string_view abbrev, ZoneAbbreviation* out);

}  // namespace forktail::datetime
