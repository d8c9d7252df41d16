// SessionParameters: a session's run-time parameters (SET / SHOW / RESET and
// the ParameterStatus values a server reports).
//
// Names are case-insensitive (PostgreSQL folds them); each known parameter has
// a canonical spelling ("DateStyle", "TimeZone") that SHOW's column header and
// ParameterStatus use. Values Forktail cannot honour are refused rather than
// silently ignored: client_encoding is UTF8 only, DateStyle ISO only. TimeZone
// takes what PostgreSQL's takes (storage/value/timezone.h: a number of hours,
// a tz database name, a POSIX string; 22023 `invalid value for parameter
// "TimeZone": "Foo/Bar"` otherwise).
// The isolation level accepts every level and stays "serializable": every
// transaction runs serially on the transaction thread, which is stronger than
// any level a client may ask for. Read-only parameters (server_version,
// server_encoding, integer_datetimes, ...) refuse SET with 55P02. Names with a
// dot are custom placeholders (as in PostgreSQL) except forktail.*, which must
// be known. An unknown name is 42704 `unrecognized configuration parameter "x"`.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace forktail {

class SessionParameters {
 public:
  // Defaults, with the session's user and application name.
  SessionParameters(std::string user, std::string application_name);
  // A copy, or a copy assigned (a block's settings restored at its end), is
  // a new version: see version().
  SessionParameters(const SessionParameters& other);
  SessionParameters& operator=(const SessionParameters& other);

  // SET name = value / SET name TO DEFAULT (value empty: default). Throws DbError.
  void Set(std::string_view name, std::string_view value);
  void Reset(std::string_view name);
  void ResetAll();
  // Empty for an unknown name.
  std::string Get(std::string_view name) const;
  // SHOW name: throws 42704 for an unknown name.
  std::string Show(std::string_view name) const;
  // The canonical spelling of a known name (or the name lower-cased).
  std::string Canonical(std::string_view name) const;
  // Every parameter: (canonical name, value, description), sorted by name.
  std::vector<std::vector<std::string>> All() const;

  // The parameters a server sends in ParameterStatus at startup.
  static const std::vector<std::string>& Reported();

  // Changes whenever a value may have changed (SET, RESET, an assignment),
  // and never returns to an earlier number (one counter for all sessions):
  // a connection re-reads the parameters it reports only when it moved.
  uint64_t version() const { return version_; }

 private:
  // By lower-case name; found by string_view too (Get runs for every
  // parameter a connection reports after each Execute).
  std::map<std::string, std::string, std::less<>> values_;
  std::map<std::string, std::string, std::less<>> defaults_;
  uint64_t version_;
};

}  // namespace forktail
