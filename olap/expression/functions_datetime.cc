// Date/time functions (PostgreSQL 15): now(), current_timestamp,
// transaction_timestamp(), statement_timestamp() (TIMESTAMPTZ: the
// transaction's start, which the binder takes once, see FunctionBindContext),
// clock_timestamp() (volatile: the time of each call), localtimestamp and
// current_date (the session zone's wall clock), date_trunc(unit, ts),
// date_part(unit, ts), timezone(zone, ts) (AT TIME ZONE), and the date
// operators date + int, int + date, date - int, date - date.
//
// A TIMESTAMPTZ argument is taken in the session's zone (captured at bind
// time): date_trunc('day', tz) is the local midnight, date_part('hour', tz)
// the local hour. date_trunc/date_part of a DATE work on its midnight.
#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include "olap/common/kernel_util.h"
#include "olap/expression/scalar_function.h"
#include "storage/value/datetime.h"
#include "storage/value/timezone.h"

namespace forktail {
namespace {

namespace dt = datetime;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return out;
}

// The constant unit argument (a NULL unit makes the whole call NULL).
std::optional<std::string> ConstantUnit(const ExprPtr& e, const char* fn) {
  if (e->kind != ExprKind::kConstant) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  std::string(fn) + " with a non-constant unit is not supported");
  }
  if (e->constant.is_null()) return std::nullopt;
  return Lower(e->constant.GetString());
}

[[noreturn]] void BadUnit(const std::string& unit, const Type& type = Type::Timestamp()) {
  throw DbError(sqlstate::kInvalidParameterValue,
                "unit \"" + unit + "\" not recognized for type " + type.ToString());
}

int64_t Trunc(const std::string& unit, int64_t ts) {
  dt::DayTime d = dt::SplitTimestamp(ts);
  auto floor_time = [&](int64_t step) {
    return dt::CombineTimestamp(d.days, d.time / step * step);
  };
  if (unit == "microseconds" || unit == "microsecond") return ts;
  if (unit == "milliseconds" || unit == "millisecond") return floor_time(1000);
  if (unit == "second") return floor_time(dt::kMicrosPerSecond);
  if (unit == "minute") return floor_time(dt::kMicrosPerMinute);
  if (unit == "hour") return floor_time(dt::kMicrosPerHour);
  if (unit == "day") return dt::CombineTimestamp(d.days, 0);
  if (unit == "week") {
    // Monday of the ISO week (1970-01-01 was a Thursday).
    int32_t dow = ((d.days + 3) % 7 + 7) % 7;  // 0 = Monday
    return dt::CombineTimestamp(d.days - dow, 0);
  }
  dt::CivilDate c = dt::CivilFromDays(d.days);
  int32_t y = c.year, m = c.month;
  if (unit == "month") {
  } else if (unit == "quarter") {
    m = (m - 1) / 3 * 3 + 1;
  } else if (unit == "year") {
    m = 1;
  } else if (unit == "decade") {
    m = 1;
    y = y / 10 * 10;
  } else if (unit == "century") {
    m = 1;
    y = (y - 1) / 100 * 100 + 1;
  } else if (unit == "millennium") {
    m = 1;
    y = (y - 1) / 1000 * 1000 + 1;
  } else {
    BadUnit(unit);
  }
  return dt::CombineTimestamp(dt::DaysFromCivil(y, m, 1), 0);
}

double Part(const std::string& unit, int64_t ts) {
  auto f = [&](dt::DateField field) { return static_cast<double>(dt::Extract(field, ts)); };
  dt::DayTime d = dt::SplitTimestamp(ts);
  double sec = static_cast<double>(d.time % dt::kMicrosPerMinute) / 1e6;
  if (unit == "year" || unit == "years") return f(dt::DateField::kYear);
  if (unit == "quarter") return f(dt::DateField::kQuarter);
  if (unit == "month" || unit == "months" || unit == "mon") return f(dt::DateField::kMonth);
  if (unit == "day" || unit == "days") return f(dt::DateField::kDay);
  if (unit == "dow") return f(dt::DateField::kDow);
  if (unit == "isodow") {
    double w = f(dt::DateField::kDow);
    return w == 0 ? 7 : w;
  }
  if (unit == "doy") return f(dt::DateField::kDoy);
  if (unit == "hour" || unit == "hours") return f(dt::DateField::kHour);
  if (unit == "minute" || unit == "minutes" || unit == "min") return f(dt::DateField::kMinute);
  if (unit == "second" || unit == "seconds" || unit == "sec") return sec;
  if (unit == "milliseconds" || unit == "millisecond") return sec * 1000;
  if (unit == "microseconds" || unit == "microsecond") {
    return static_cast<double>(d.time % dt::kMicrosPerMinute);
  }
  if (unit == "epoch") return static_cast<double>(ts) / 1e6;
  if (unit == "decade") return std::floor(f(dt::DateField::kYear) / 10);
  if (unit == "century") {
    double y = f(dt::DateField::kYear);
    return std::floor((y - 1) / 100) + 1;
  }
  if (unit == "millennium") {
    double y = f(dt::DateField::kYear);
    return std::floor((y - 1) / 1000) + 1;
  }
  BadUnit(unit);
}

// date_part's units that read a timestamptz's offset, not its wall clock.
bool IsZoneUnit(const std::string& unit) {
  return unit == "timezone" || unit == "timezone_hour" || unit == "timezone_minute";
}

// As PostgreSQL's timestamptz_part: hours and minutes truncate toward zero
// and keep the offset's sign (-03:30 is -3 hours, -30 minutes).
double ZonePart(const std::string& unit, int32_t seconds_east) {
  if (unit == "timezone_hour") return seconds_east / 3600;
  if (unit == "timezone_minute") return seconds_east / 60 % 60;
  return seconds_east;
}

// A function of (constant unit, timestamp) that maps each timestamp. With a
// TIMESTAMPTZ argument `map` sees the session zone's wall clock and, when
// the result is a TIMESTAMPTZ too, its result is a wall clock of that zone.
template <typename Out, typename F>
FunctionOverload UnitFunction(const char* name, Type result, F map,
                              TypeId arg = TypeId::kTimestamp) {
  FunctionOverload o;
  o.params = {TypeId::kText, arg};
  o.bind = [name, result, map, arg](const FunctionBindContext& ctx, std::vector<ExprPtr>& args) {
    std::optional<std::string> unit = ConstantUnit(args[0], name);
    Type arg_type = Type::Timestamp();
    arg_type.id = arg;
    // date_part's zone fields are a timestamptz's only.
    const bool zone_unit = std::is_same_v<Out, double> && unit && IsZoneUnit(*unit);
    if (zone_unit && arg != TypeId::kTimestampTz) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    "unit \"" + *unit + "\" not supported for type " + arg_type.ToString());
    }
    if (unit && !zone_unit) {
      try {
        map(*unit, 0);  // rejects a bad unit at bind time
      } catch (const DbError& e) {
        if (std::string_view(e.sqlstate()) == sqlstate::kInvalidParameterValue) {
          BadUnit(*unit, arg_type);
        }
        throw;
      }
    }
    dt::TimeZonePtr zone = arg == TypeId::kTimestampTz ? ctx.time_zone : nullptr;
    if (arg == TypeId::kTimestampTz && zone == nullptr) zone = dt::TimeZone::Utc();
    const bool zoned_result = result.id == TypeId::kTimestampTz;
    return MakeScalarFunction(
        name, result, [unit, map, zone, zoned_result](const ScalarArgs& a, Rows rows, Vector* out) {
          if (!unit) {
            ForEachRow(rows, [&](uint32_t i) { out->SetNull(i, true); });
            return;
          }
          const int64_t* ts = a[1]->data<int64_t>();
          Out* o = out->mutable_data<Out>();
          if (zone == nullptr) {
            ForEachRow(rows, [&](uint32_t i) { o[i] = map(*unit, ts[i]); });
            return;
          }
          ForEachRow(rows, [&](uint32_t i) {
            // EPOCH counts from the instant, the zone fields are the offset
            // then in effect, every other field reads the wall clock.
            if constexpr (std::is_same_v<Out, double>) {
              if (*unit == "epoch") {
                o[i] = static_cast<double>(ts[i]) / 1e6;
                return;
              }
              if (IsZoneUnit(*unit)) {
                o[i] = ZonePart(*unit, zone->OffsetAt(ts[i]));
                return;
              }
            }
            auto v = map(*unit, zone->ToLocal(ts[i]));
            if constexpr (std::is_same_v<Out, int64_t>) {
              if (zoned_result) v = zone->ToUtc(v);
            }
            o[i] = v;
          });
        });
  };
  return o;
}

// The zone AT TIME ZONE names, as PostgreSQL's timestamptz_zone reads it: a
// zone abbreviation, a tz database name, or a POSIX string ('+05' is five
// hours WEST, as POSIX writes offsets).
dt::TimeZonePtr AtTimeZone(const std::string& name) {
  dt::ZoneAbbreviation abbrev;
  if (dt::FindZoneAbbreviation(name, &abbrev)) {
    return abbrev.zone != nullptr ? abbrev.zone : dt::TimeZone::FixedOffset(abbrev.seconds_east);
  }
  if (dt::TimeZonePtr zone = dt::TimeZone::FindRegion(name)) return zone;
  if (dt::TimeZonePtr zone = dt::ParsePosixTimeZone(name, name)) return zone;
  throw DbError(sqlstate::kInvalidParameterValue, "time zone \"" + name + "\" not recognized");
}

// timezone(zone, timestamptz) -> the wall clock there (timestamp);
// timezone(zone, timestamp) -> the instant of that wall clock (timestamptz).
FunctionOverload AtTimeZoneFunction(TypeId arg) {
  FunctionOverload o;
  o.params = {TypeId::kText, arg};
  o.bind = [arg](const FunctionBindContext&, std::vector<ExprPtr>& args) -> ScalarFunctionPtr {
    if (args[0]->kind != ExprKind::kConstant) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    "AT TIME ZONE with a non-constant zone is not supported");
    }
    const bool to_local = arg == TypeId::kTimestampTz;
    Type result = to_local ? Type::Timestamp() : Type::TimestampTz();
    if (args[0]->constant.is_null()) {
      return MakeScalarFunction("timezone", result, [](const ScalarArgs&, Rows rows, Vector* out) {
        ForEachRow(rows, [&](uint32_t i) { out->SetNull(i, true); });
      });
    }
    dt::TimeZonePtr zone = AtTimeZone(std::string(args[0]->constant.GetString()));
    return MakeScalarFunction("timezone", result,
                              [zone, to_local](const ScalarArgs& a, Rows rows, Vector* out) {
                                const int64_t* ts = a[1]->data<int64_t>();
                                int64_t* o = out->mutable_data<int64_t>();
                                ForEachRow(rows, [&](uint32_t i) {
                                  o[i] = to_local ? zone->ToLocal(ts[i]) : zone->ToUtc(ts[i]);
                                });
                              });
  };
  return o;
}

// now() and its kin: the binder's statement timestamp (the transaction's
// start), as TIMESTAMPTZ, or the session zone's wall clock (localtimestamp,
// current_date).
enum class NowKind { kInstant, kLocal, kDate, kTime };

void RegisterNow(FunctionRegistry& r, const char* name, NowKind kind) {
  FunctionOverload o;
  o.bind = [name, kind](const FunctionBindContext& ctx, std::vector<ExprPtr>&) {
    const int64_t now = ctx.statement_timestamp;
    const dt::TimeZone& zone = ctx.time_zone ? *ctx.time_zone : *dt::TimeZone::Utc();
    if (kind == NowKind::kDate) {
      int32_t day = dt::TimestampToDate(zone.ToLocal(now));
      return MakeScalarFunction(name, Type::Date(),
                                [day](const ScalarArgs&, Rows rows, Vector* out) {
                                  int32_t* o = out->mutable_data<int32_t>();
                                  ForEachRow(rows, [&](uint32_t i) { o[i] = day; });
                                });
    }
    if (kind == NowKind::kTime) {  // localtime: the wall clock's time of day
      const std::string time = dt::EncodeTime(dt::SplitTimestamp(zone.ToLocal(now)).time);
      return MakeScalarFunction(name, Type::Time(),
                                [time](const ScalarArgs&, Rows rows, Vector* out) {
                                  auto* o = out->mutable_data<std::string_view>();
                                  const std::string_view v = out->arena()->Add(time);
                                  ForEachRow(rows, [&](uint32_t i) { o[i] = v; });
                                });
    }
    const int64_t value = kind == NowKind::kLocal ? zone.ToLocal(now) : now;
    return MakeScalarFunction(name,
                              kind == NowKind::kLocal ? Type::Timestamp() : Type::TimestampTz(),
                              [value](const ScalarArgs&, Rows rows, Vector* out) {
                                int64_t* o = out->mutable_data<int64_t>();
                                ForEachRow(rows, [&](uint32_t i) { o[i] = value; });
                              });
  };
  r.Register(name, std::move(o));
}

// clock_timestamp(): the time of each call, so of each row (volatile: a
// statement reading it gives another answer when an optimistic block's
// COMMIT runs it again, docs/client_contract.md).
void RegisterClockTimestamp(FunctionRegistry& r) {
  FunctionOverload o;
  o.bind = [](const FunctionBindContext&, std::vector<ExprPtr>&) {
    return MakeScalarFunction(
        "clock_timestamp", Type::TimestampTz(),
        [](const ScalarArgs&, Rows rows, Vector* out) {
          int64_t* o = out->mutable_data<int64_t>();
          ForEachRow(rows, [&](uint32_t i) {
            o[i] = std::chrono::duration_cast<std::chrono::microseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
          });
        },
        /*strict=*/true, /*is_volatile=*/true);  // never folded at bind time
  };
  r.Register("clock_timestamp", std::move(o));
}

// date_part(text, date), PostgreSQL's SQL function over the date's
// timestamp: without it a date would promote to timestamptz, and its EPOCH
// would count from the session zone's midnight instead of UTC's.
FunctionOverload DatePartOfDate() {
  FunctionOverload of_timestamp = UnitFunction<double>("date_part", Type::Double(), Part);
  FunctionOverload o;
  o.params = {TypeId::kText, TypeId::kDate};
  o.bind = [bind = of_timestamp.bind](const FunctionBindContext& ctx, std::vector<ExprPtr>& args) {
    args[1] = Cast(std::move(args[1]), Type::Timestamp());
    return bind(ctx, args);
  };
  return o;
}

int32_t CheckDate(int64_t days) {
  if (days < dt::kMinDate || days > dt::kMaxDate) {
    throw DbError("22008", "date out of range");
  }
  return static_cast<int32_t>(days);
}

// The operators date + integer, integer + date, date - integer (DATE) and
// date - date (INTEGER days), under PostgreSQL's function names.
void RegisterDateArithmetic(FunctionRegistry& r) {
  auto date_int = [](int sign, bool int_first) {
    return [sign, int_first](const ScalarArgs& a, Rows rows, Vector* out) {
      const int32_t* d = a[int_first ? 1 : 0]->data<int32_t>();
      const int32_t* n = a[int_first ? 0 : 1]->data<int32_t>();
      int32_t* o = out->mutable_data<int32_t>();
      ForEachRow(rows, [&](uint32_t i) { o[i] = CheckDate(int64_t{d[i]} + sign * int64_t{n[i]}); });
    };
  };
  r.Register("date_pli", {TypeId::kDate, TypeId::kInteger}, Type::Date(), date_int(1, false));
  r.Register("integer_pl_date", {TypeId::kInteger, TypeId::kDate}, Type::Date(), date_int(1, true));
  r.Register("date_mii", {TypeId::kDate, TypeId::kInteger}, Type::Date(), date_int(-1, false));
  r.Register("date_mi", {TypeId::kDate, TypeId::kDate}, Type::Integer(),
             [](const ScalarArgs& a, Rows rows, Vector* out) {
               const int32_t* x = a[0]->data<int32_t>();
               const int32_t* y = a[1]->data<int32_t>();
               int32_t* o = out->mutable_data<int32_t>();
               ForEachRow(rows, [&](uint32_t i) { o[i] = x[i] - y[i]; });
             });
}

// make_date(year, month, day) and to_timestamp(seconds since 1970 UTC).
void RegisterMakeDateAndToTimestamp(FunctionRegistry& r) {
  r.Register("make_date", {TypeId::kInteger, TypeId::kInteger, TypeId::kInteger}, Type::Date(),
             [](const ScalarArgs& a, Rows rows, Vector* out) {
               const int32_t* y = a[0]->data<int32_t>();
               const int32_t* m = a[1]->data<int32_t>();
               const int32_t* d = a[2]->data<int32_t>();
               int32_t* o = out->mutable_data<int32_t>();
               ForEachRow(rows, [&](uint32_t i) {
                 if (y[i] == 0 || m[i] < 1 || m[i] > 12 || d[i] < 1 ||
                     (y[i] > 0 && y[i] <= 9999 && d[i] > dt::DaysInMonth(y[i], m[i]))) {
                   throw DbError(sqlstate::kDatetimeFieldOverflow,
                                 fmt::format("date field value out of range: {}-{:02d}-{:02d}",
                                             y[i], m[i], d[i]));
                 }
                 if (y[i] < 1 || y[i] > 9999) throw DbError("22008", "date out of range");
                 o[i] = dt::DaysFromCivil(y[i], m[i], d[i]);
               });
             });
  r.Register("to_timestamp", {TypeId::kDouble}, Type::TimestampTz(),
             [](const ScalarArgs& a, Rows rows, Vector* out) {
               const double* x = a[0]->data<double>();
               int64_t* o = out->mutable_data<int64_t>();
               ForEachRow(rows, [&](uint32_t i) {
                 if (std::isnan(x[i])) {
                   throw DbError(sqlstate::kDatetimeFieldOverflow, "timestamp cannot be NaN");
                 }
                 const double us = std::nearbyint(x[i] * 1e6);
                 if (!(us >= static_cast<double>(dt::kMinTimestamp) &&
                       us <= static_cast<double>(dt::kMaxTimestamp))) {
                   throw DbError(sqlstate::kDatetimeFieldOverflow,
                                 fmt::format("timestamp out of range: \"{}\"",
                                             Value::Double(x[i]).ToString()));
                 }
                 o[i] = static_cast<int64_t>(us);
               });
             });
}

}  // namespace

void RegisterDatetimeFunctions(FunctionRegistry& r) {
  RegisterDateArithmetic(r);
  RegisterMakeDateAndToTimestamp(r);
  for (const char* name :
       {"now", "current_timestamp", "transaction_timestamp", "statement_timestamp"}) {
    RegisterNow(r, name, NowKind::kInstant);
  }
  RegisterNow(r, "localtimestamp", NowKind::kLocal);
  RegisterNow(r, "current_date", NowKind::kDate);
  RegisterNow(r, "localtime", NowKind::kTime);
  // current_time is a time with time zone in PostgreSQL, a type Forktail
  // does not have.
  FunctionOverload current_time;
  current_time.bind = [](const FunctionBindContext&, std::vector<ExprPtr>&) -> ScalarFunctionPtr {
    throw DbError(sqlstate::kFeatureNotSupported,
                  "current_time (a time with time zone) is not supported")
        .WithHint("localtime is the time of day without time zone.");
  };
  r.Register("current_time", std::move(current_time));
  RegisterClockTimestamp(r);
  r.Register("date_trunc", UnitFunction<int64_t>("date_trunc", Type::Timestamp(), Trunc));
  r.Register("date_trunc",
             UnitFunction<int64_t>("date_trunc", Type::TimestampTz(), Trunc, TypeId::kTimestampTz));
  r.Register("date_part", UnitFunction<double>("date_part", Type::Double(), Part));
  r.Register("date_part",
             UnitFunction<double>("date_part", Type::Double(), Part, TypeId::kTimestampTz));
  r.Register("date_part", DatePartOfDate());
  r.Register("timezone", AtTimeZoneFunction(TypeId::kTimestampTz));
  r.Register("timezone", AtTimeZoneFunction(TypeId::kTimestamp));
}

}  // namespace forktail
