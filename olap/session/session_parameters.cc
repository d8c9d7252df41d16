#include "olap/session/session_parameters.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>

#include "olap/plan/catalog/system_catalog.h"
#include "storage/error.h"
#include "storage/value/timezone.h"

namespace forktail {
namespace {

constexpr const char* kCantChange = "55P02";

// kMilliseconds: an integer with an optional unit (ms, s, min, h, d; none:
// ms), kept as the number of milliseconds, as PostgreSQL's time settings.
enum class Kind {
  kFree,
  kReadOnly,
  kEncoding,
  kDateStyle,
  kTimeZone,
  kInteger,
  kMilliseconds,
  kIsolation,
  kBool
};

struct Known {
  const char* name;  // canonical spelling
  const char* value;
  Kind kind;
  const char* description;
  long min = 0, max = 0;  // kInteger
};

// The server_version is PostgreSQL's number first (drivers parse it).
const Known kKnown[] = {
    {"application_name", "", Kind::kFree, "Sets the application name."},
    {"bytea_output", "hex", Kind::kFree, "Sets the output format for bytea."},
    {"client_encoding", "UTF8", Kind::kEncoding, "Sets the client's character set encoding."},
    {"client_min_messages", "notice", Kind::kFree, "Sets the message levels sent to the client."},
    {"DateStyle", "ISO, MDY", Kind::kDateStyle, "Sets the display format for date values."},
    {"default_transaction_isolation", "serializable", Kind::kIsolation,
     "Sets the isolation level of each new transaction."},
    {"default_transaction_read_only", "off", Kind::kBool,
     "Default read-only status of new transactions."},
    {"extra_float_digits", "1", Kind::kInteger, "Sets the number of digits displayed for floats.",
     -15, 3},
    {"forktail.max_snapshot_age_ms", "0", Kind::kInteger,
     "Oldest snapshot (ms) a SELECT may read; 0: one holding every commit acknowledged before "
     "the SELECT arrived.",
     0, 86'400'000},
    {"idle_in_transaction_session_timeout", "0", Kind::kMilliseconds,
     "Closes a connection idle in a transaction block this long, rolling the block back "
     "(ms; 0: never).",
     0, 2'147'483'647},
    {"idle_session_timeout", "0", Kind::kMilliseconds,
     "Closes a connection idle (outside a transaction block) this long (ms; 0: never).", 0,
     2'147'483'647},
    {"integer_datetimes", "on", Kind::kReadOnly, "Datetimes are integer based."},
    {"IntervalStyle", "postgres", Kind::kFree, "Sets the display format for interval values."},
    {"is_superuser", "on", Kind::kReadOnly, "Whether the user is a superuser."},
    {"lc_messages", "C", Kind::kFree, "Sets the language of messages."},
    {"lock_timeout", "0", Kind::kMilliseconds,
     "Cancels a statement that waits this long for a row lock (FOR UPDATE / SHARE; ms; 0: "
     "never).",
     0, 2'147'483'647},
    {"max_identifier_length", "63", Kind::kReadOnly, "Maximum identifier length."},
    {"search_path", "\"$user\", public", Kind::kFree, "Sets the schema search order."},
    {"server_encoding", "UTF8", Kind::kReadOnly, "The server's character set encoding."},
    {"server_version", kPostgresVersion, Kind::kReadOnly,
     "The server's version (PostgreSQL protocol level)."},
    {"server_version_num", kPostgresVersionNum, Kind::kReadOnly,
     "The server's version as an integer."},
    {"session_authorization", "", Kind::kReadOnly, "The session user name."},
    {"standard_conforming_strings", "on", Kind::kReadOnly,
     "'...' strings treat backslashes literally."},
    {"statement_timeout", "0", Kind::kMilliseconds,
     "Cancels a statement that runs longer than this (ms; 0: never), 57014.", 0, 2'147'483'647},
    {"TimeZone", "UTC", Kind::kTimeZone, "Sets the time zone for timestamps."},
    {"transaction_isolation", "serializable", Kind::kIsolation,
     "The current transaction's isolation level."},
    {"transaction_read_only", "off", Kind::kBool, "Whether the current transaction is read-only."},
};

// Parameter names and keyword values are ASCII: no locale lookup per char.
char LowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), LowerAscii);
  return out;
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) b++;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) e--;
  return std::string(s.substr(b, e - b));
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    if (LowerAscii(a[i]) != LowerAscii(b[i])) return false;
  }
  return true;
}

// No allocation: it runs for parameters read or reported per statement.
const Known* Find(std::string_view name) {
  for (const Known& k : kKnown) {
    if (EqualsIgnoringCase(k.name, name)) return &k;
  }
  return nullptr;
}

[[noreturn]] void Invalid(const Known& k, std::string_view value) {
  throw DbError(sqlstate::kInvalidParameterValue, "invalid value for parameter \"" +
                                                      std::string(k.name) + "\": \"" +
                                                      std::string(value) + "\"");
}

[[noreturn]] void Unknown(std::string_view name) {
  throw DbError(sqlstate::kUndefinedObject,
                "unrecognized configuration parameter \"" + std::string(name) + "\"");
}

// The value to store, or throws.
std::string Validate(const Known& k, std::string_view raw) {
  std::string v = Trim(raw);
  std::string lower = Lower(v);
  switch (k.kind) {
    case Kind::kFree:
      return v;
    case Kind::kReadOnly:
      throw DbError(kCantChange, "parameter \"" + std::string(k.name) + "\" cannot be changed");
    case Kind::kEncoding:
      if (lower == "utf8" || lower == "utf-8" || lower == "unicode") return "UTF8";
      Invalid(k, v);
    case Kind::kDateStyle: {
      // "ISO", "ISO, MDY", "MDY, ISO", "iso,ymd": ISO output is all we print.
      if (lower.find("iso") == std::string::npos && lower != "mdy") Invalid(k, v);
      return "ISO, MDY";
    }
    case Kind::kTimeZone:
      // Kept as the zone's name, which TimeZone::Find reads back.
      if (datetime::TimeZonePtr zone = datetime::TimeZone::Find(v)) return zone->name();
      Invalid(k, v);
    case Kind::kInteger: {
      char* end = nullptr;
      long n = v.empty() ? 0 : std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < k.min || n > k.max) Invalid(k, v);
      return std::to_string(n);
    }
    case Kind::kMilliseconds: {
      char* end = nullptr;
      const std::string trimmed = Trim(lower);
      long long n = trimmed.empty() ? -1 : std::strtoll(trimmed.c_str(), &end, 10);
      if (trimmed.empty() || end == trimmed.c_str()) Invalid(k, v);
      const std::string unit = Trim(end);
      long long scale = 0;
      if (unit.empty() || unit == "ms") scale = 1;
      if (unit == "s") scale = 1000;
      if (unit == "min") scale = 60'000;
      if (unit == "h") scale = 3'600'000;
      if (unit == "d") scale = 86'400'000;
      if (scale == 0 || n < k.min || n > k.max / scale) Invalid(k, v);
      return std::to_string(n * scale);
    }
    case Kind::kIsolation:
      if (lower == "serializable" || lower == "repeatable read" || lower == "read committed" ||
          lower == "read uncommitted") {
        return "serializable";
      }
      Invalid(k, v);
    case Kind::kBool:
      if (lower == "on" || lower == "true" || lower == "1" || lower == "yes") return "on";
      if (lower == "off" || lower == "false" || lower == "0" || lower == "no") return "off";
      Invalid(k, v);
  }
  Invalid(k, v);
}

uint64_t NextVersion() {
  static std::atomic<uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

}  // namespace

SessionParameters::SessionParameters(const SessionParameters& other)
    : values_(other.values_), defaults_(other.defaults_), version_(NextVersion()) {}

SessionParameters& SessionParameters::operator=(const SessionParameters& other) {
  values_ = other.values_;
  defaults_ = other.defaults_;
  version_ = NextVersion();
  return *this;
}

SessionParameters::SessionParameters(std::string user, std::string application_name)
    : version_(NextVersion()) {
  for (const Known& k : kKnown) defaults_[Lower(k.name)] = k.value;
  defaults_["session_authorization"] = user;
  defaults_["application_name"] = std::move(application_name);
  values_ = defaults_;
}

void SessionParameters::Set(std::string_view name, std::string_view value) {
  version_ = NextVersion();
  const Known* k = Find(name);
  std::string lower = Lower(name);
  if (k == nullptr) {
    // Custom placeholders (a dotted name), as PostgreSQL allows; forktail.* are ours.
    if (lower.find('.') == std::string::npos || lower.rfind("forktail.", 0) == 0) Unknown(name);
    values_[lower] = Trim(value);
    return;
  }
  if (value.empty()) {
    if (k->kind == Kind::kReadOnly) Validate(*k, value);  // throws 55P02
    values_[lower] = defaults_[lower];
    return;
  }
  values_[lower] = Validate(*k, value);
}

void SessionParameters::Reset(std::string_view name) {
  version_ = NextVersion();
  Set(name, "");
}

void SessionParameters::ResetAll() {
  version_ = NextVersion();
  for (auto& [name, value] : values_) {
    auto d = defaults_.find(name);
    if (d != defaults_.end()) value = d->second;
  }
}

std::string SessionParameters::Get(std::string_view name) const {
  // Lower-cased on the stack: a connection asks for a dozen names after
  // every Execute (lower-casing into new strings was 5-7% of a pipelined
  // INSERT's server time).
  char lower[64];
  if (name.size() > sizeof(lower)) {
    auto it = values_.find(Lower(name));
    return it == values_.end() ? std::string() : it->second;
  }
  std::transform(name.begin(), name.end(), lower, LowerAscii);
  auto it = values_.find(std::string_view(lower, name.size()));
  return it == values_.end() ? std::string() : it->second;
}

namespace {

// SHOW's form of a kept value: a number of milliseconds in the largest unit
// that divides it, as PostgreSQL prints time parameters ("8s", "1500ms", "2min").
std::string Displayed(std::string_view name, const std::string& value) {
  const Known* k = Find(name);
  if (k == nullptr || k->kind != Kind::kMilliseconds || value == "0") return value;
  char* end = nullptr;
  const long long ms = std::strtoll(value.c_str(), &end, 10);
  if (end == value.c_str() || *end != '\0' || ms <= 0) return value;
  static const std::pair<long long, const char*> kUnits[] = {
      {86400000, "d"}, {3600000, "h"}, {60000, "min"}, {1000, "s"}, {1, "ms"}};
  for (const auto& [size, unit] : kUnits) {
    if (ms % size == 0) return std::to_string(ms / size) + unit;
  }
  return value;
}

}  // namespace

std::string SessionParameters::Show(std::string_view name) const {
  auto it = values_.find(Lower(name));
  if (it == values_.end()) Unknown(name);
  return Displayed(name, it->second);
}

std::string SessionParameters::Canonical(std::string_view name) const {
  const Known* k = Find(name);
  return k != nullptr ? std::string(k->name) : Lower(name);
}

std::vector<std::vector<std::string>> SessionParameters::All() const {
  std::vector<std::vector<std::string>> rows;
  for (const auto& [name, value] : values_) {
    const Known* k = Find(name);
    rows.push_back({k != nullptr ? k->name : name, Displayed(name, value),
                    k != nullptr ? k->description : ""});
  }
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return Lower(a[0]) < Lower(b[0]); });
  return rows;
}

const std::vector<std::string>& SessionParameters::Reported() {
  static const std::vector<std::string> kReported = {"application_name",
                                                     "client_encoding",
                                                     "DateStyle",
                                                     "integer_datetimes",
                                                     "IntervalStyle",
                                                     "is_superuser",
                                                     "server_encoding",
                                                     "server_version",
                                                     "session_authorization",
                                                     "standard_conforming_strings",
                                                     "TimeZone"};
  return kReported;
}

}  // namespace forktail
