// INTERVAL's operators and functions, under PostgreSQL's names: interval_pl,
// interval_mi, interval_um, interval_mul, interval_div (the binder's + - * /
// and unary minus), timestamp[tz]_pl_interval, timestamp[tz]_mi_interval,
// timestamp[tz]_mi (timestamp - timestamp), age, justify_days,
// justify_hours, justify_interval, date_part(text, interval) (float8) and
// extract(text, interval) (numeric; EXTRACT(field FROM interval)).
// The arithmetic is storage/value/interval.h's.
#include <fmt/format.h>

#include <cctype>
#include <cmath>

#include "olap/common/kernel_util.h"
#include "olap/expression/scalar_function.h"
#include "storage/value/interval.h"
#include "storage/value/timezone.h"

namespace forktail {
namespace {

using datetime::Interval;
using Sv = std::string_view;

constexpr TypeId kIv = TypeId::kInterval;

Interval Iv(const ScalarArgs& a, size_t k, uint32_t i) {
  return interval::Decode(a[k]->data<Sv>()[i]);
}
int64_t Ts(const ScalarArgs& a, size_t k, uint32_t i) { return a[k]->data<int64_t>()[i]; }
double Dbl(const ScalarArgs& a, size_t k, uint32_t i) { return a[k]->data<double>()[i]; }

// A kernel whose row result is an interval.
template <typename F>
ScalarKernel Intervals(F f) {
  return [f](const ScalarArgs& a, Rows rows, Vector* out) {
    Sv* o = out->mutable_data<Sv>();
    StringArena* arena = out->arena();
    ForEachRow(rows, [&](uint32_t i) { o[i] = arena->Add(interval::Encode(f(a, i))); });
  };
}

// A kernel whose row result is a timestamp (int64 microseconds).
template <typename F>
ScalarKernel Timestamps(F f) {
  return [f](const ScalarArgs& a, Rows rows, Vector* out) {
    int64_t* o = out->mutable_data<int64_t>();
    ForEachRow(rows, [&](uint32_t i) { o[i] = f(a, i); });
  };
}

// A function of the session's time zone, fixed when the statement is bound.
template <typename MakeKernel>
FunctionOverload Zoned(std::vector<TypeId> params, Type result, const char* name,
                       MakeKernel make_kernel) {
  FunctionOverload o;
  o.params = std::move(params);
  o.bind = [result, name, make_kernel](const FunctionBindContext& ctx, std::vector<ExprPtr>&) {
    std::shared_ptr<const datetime::TimeZone> zone =
        ctx.time_zone ? ctx.time_zone : datetime::CurrentTimeZonePtr();
    return MakeScalarFunction(name, result, make_kernel(zone, ctx.statement_timestamp));
  };
  return o;
}

void RegisterIntervalArithmetic(FunctionRegistry& r) {
  const Type iv = Type::Interval();
  r.Register("interval_pl", {kIv, kIv}, iv, Intervals([](const ScalarArgs& a, uint32_t i) {
               return interval::Add(Iv(a, 0, i), Iv(a, 1, i));
             }));
  r.Register("interval_mi", {kIv, kIv}, iv, Intervals([](const ScalarArgs& a, uint32_t i) {
               return interval::Subtract(Iv(a, 0, i), Iv(a, 1, i));
             }));
  r.Register("interval_um", {kIv}, iv, Intervals([](const ScalarArgs& a, uint32_t i) {
               return interval::Negate(Iv(a, 0, i));
             }));
  r.Register("interval_mul", {kIv, TypeId::kDouble}, iv,
             Intervals([](const ScalarArgs& a, uint32_t i) {
               return interval::Multiply(Iv(a, 0, i), Dbl(a, 1, i));
             }));
  r.Register("interval_div", {kIv, TypeId::kDouble}, iv,
             Intervals([](const ScalarArgs& a, uint32_t i) {
               return interval::Divide(Iv(a, 0, i), Dbl(a, 1, i));
             }));
  for (int sign : {1, -1}) {
    const char* local = sign > 0 ? "timestamp_pl_interval" : "timestamp_mi_interval";
    r.Register(local, {TypeId::kTimestamp, kIv}, Type::Timestamp(),
               Timestamps([sign](const ScalarArgs& a, uint32_t i) {
                 Interval x = Iv(a, 1, i);
                 return datetime::AddInterval(Ts(a, 0, i), sign > 0 ? x : interval::Negate(x));
               }));
    const char* zoned = sign > 0 ? "timestamptz_pl_interval" : "timestamptz_mi_interval";
    r.Register(zoned, Zoned({TypeId::kTimestampTz, kIv}, Type::TimestampTz(), zoned,
                            [sign](std::shared_ptr<const datetime::TimeZone> zone, int64_t) {
                              return Timestamps([sign, zone](const ScalarArgs& a, uint32_t i) {
                                Interval x = Iv(a, 1, i);
                                return datetime::AddIntervalTz(
                                    Ts(a, 0, i), sign > 0 ? x : interval::Negate(x), *zone);
                              });
                            }));
  }
  // timestamp - timestamp: instants (or wall clocks) apart, as days and time.
  for (TypeId t : {TypeId::kTimestamp, TypeId::kTimestampTz}) {
    r.Register(t == TypeId::kTimestamp ? "timestamp_mi" : "timestamptz_mi", {t, t}, iv,
               Intervals([](const ScalarArgs& a, uint32_t i) {
                 return interval::Between(Ts(a, 0, i), Ts(a, 1, i));
               }));
  }
}

void RegisterAge(FunctionRegistry& r) {
  const Type iv = Type::Interval();
  r.Register("age", {TypeId::kTimestamp, TypeId::kTimestamp}, iv,
             Intervals([](const ScalarArgs& a, uint32_t i) {
               return interval::Age(Ts(a, 0, i), Ts(a, 1, i));
             }));
  // The zoned forms compare wall clocks of the session's zone; age(x) is
  // age(current_date, x).
  r.Register("age", Zoned({TypeId::kTimestampTz, TypeId::kTimestampTz}, iv, "age",
                          [](std::shared_ptr<const datetime::TimeZone> zone, int64_t) {
                            return Intervals([zone](const ScalarArgs& a, uint32_t i) {
                              return interval::Age(zone->ToLocal(Ts(a, 0, i)),
                                                   zone->ToLocal(Ts(a, 1, i)));
                            });
                          }));
  for (TypeId t : {TypeId::kTimestamp, TypeId::kTimestampTz}) {
    const bool zoned = t == TypeId::kTimestampTz;
    r.Register(
        "age",
        Zoned({t}, iv, "age", [zoned](std::shared_ptr<const datetime::TimeZone> zone, int64_t now) {
          const int64_t today =
              datetime::DateToTimestamp(datetime::TimestampToDate(zone->ToLocal(now)));
          return Intervals([zone, zoned, today](const ScalarArgs& a, uint32_t i) {
            int64_t x = Ts(a, 0, i);
            return interval::Age(today, zoned ? zone->ToLocal(x) : x);
          });
        }));
  }
}

// make_interval(years, months, weeks, days, hours, mins, secs) (the binder
// supplies the defaults and the names).
void RegisterMakeInterval(FunctionRegistry& r) {
  constexpr TypeId kI = TypeId::kInteger;
  r.Register("make_interval", {kI, kI, kI, kI, kI, kI, TypeId::kDouble}, Type::Interval(),
             Intervals([](const ScalarArgs& a, uint32_t i) {
               auto n = [&](size_t k) { return __int128{a[k]->data<int32_t>()[i]}; };
               const double secs = Dbl(a, 6, i);
               const double micros = std::rint(secs * 1e6);
               if (!std::isfinite(micros) || std::fabs(micros) > 9.2e18) {
                 throw DbError(sqlstate::kDatetimeFieldOverflow, "interval out of range");
               }
               return interval::FromWide(n(0) * 12 + n(1), n(2) * 7 + n(3),
                                         n(4) * datetime::kMicrosPerHour +
                                             n(5) * datetime::kMicrosPerMinute +
                                             static_cast<int64_t>(micros));
             }));
}

void RegisterJustify(FunctionRegistry& r) {
  const std::pair<const char*, Interval (*)(const Interval&)> kJustify[] = {
      {"justify_days", interval::JustifyDays},
      {"justify_hours", interval::JustifyHours},
      {"justify_interval", interval::JustifyInterval}};
  for (const auto& [name, fn] : kJustify) {
    r.Register(name, {kIv}, Type::Interval(),
               Intervals([fn = fn](const ScalarArgs& a, uint32_t i) { return fn(Iv(a, 0, i)); }));
  }
}

// date_part(text, interval) (float8) and extract(text, interval) (numeric:
// the field's scale decides the result's, so the field must be a constant).
void RegisterIntervalParts(FunctionRegistry& r) {
  r.Register("date_part", {TypeId::kText, kIv}, Type::Double(),
             [](const ScalarArgs& a, Rows rows, Vector* out) {
               double* o = out->mutable_data<double>();
               ForEachRow(rows, [&](uint32_t i) {
                 interval::IntervalPart p = interval::Part(a[0]->data<Sv>()[i], Iv(a, 1, i));
                 double scaled = static_cast<double>(p.scaled);
                 for (int k = 0; k < p.scale; ++k) scaled /= 10;
                 o[i] = scaled;
               });
             });
  FunctionOverload o;
  o.params = {TypeId::kText, kIv};
  o.bind = [](const FunctionBindContext&, std::vector<ExprPtr>& args) {
    if (args[0]->kind != ExprKind::kConstant || args[0]->constant.is_null()) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    "extract(text, interval) needs a constant field name");
    }
    std::string field(args[0]->constant.GetString());
    for (char& c : field) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const interval::IntervalPart probe = interval::Part(field, Interval{});  // checks the unit
    const bool epoch = field == "epoch";
    const Type result =
        Type::Decimal(epoch ? kMaxDecimalPrecision : kMaxNarrowDecimalPrecision, probe.scale);
    return MakeScalarFunction(
        "extract", result, [field, epoch](const ScalarArgs& a, Rows rows, Vector* out) {
          if (epoch) {
            __int128* o = out->mutable_data<__int128>();
            ForEachRow(rows, [&](uint32_t i) { o[i] = interval::Part(field, Iv(a, 1, i)).scaled; });
          } else {
            int64_t* o = out->mutable_data<int64_t>();
            ForEachRow(rows, [&](uint32_t i) {
              o[i] = static_cast<int64_t>(interval::Part(field, Iv(a, 1, i)).scaled);
            });
          }
        });
  };
  r.Register("extract", std::move(o));
}

// sum(interval)'s parts (the binder's rewrite of sum and avg): an
// interval's months, days and microseconds, and an interval from the three
// sums (22008 when one does not fit its field).
void RegisterIntervalSumParts(FunctionRegistry& r) {
  r.Register("interval_months", {kIv}, Type::Integer(),
             [](const ScalarArgs& a, Rows rows, Vector* out) {
               int32_t* o = out->mutable_data<int32_t>();
               ForEachRow(rows, [&](uint32_t i) { o[i] = Iv(a, 0, i).months; });
             });
  r.Register("interval_days", {kIv}, Type::Integer(),
             [](const ScalarArgs& a, Rows rows, Vector* out) {
               int32_t* o = out->mutable_data<int32_t>();
               ForEachRow(rows, [&](uint32_t i) { o[i] = Iv(a, 0, i).days; });
             });
  r.Register("interval_micros", {kIv}, Type::BigInt(),
             [](const ScalarArgs& a, Rows rows, Vector* out) {
               int64_t* o = out->mutable_data<int64_t>();
               ForEachRow(rows, [&](uint32_t i) { o[i] = Iv(a, 0, i).micros; });
             });
  FunctionOverload o;
  o.params = {TypeId::kDecimal, TypeId::kDecimal, TypeId::kDecimal};
  o.bind = [](const FunctionBindContext&, std::vector<ExprPtr>& args) {
    for (ExprPtr& x : args) {
      if (x->type != Type::Decimal(kMaxDecimalPrecision, 0)) {
        x = Cast(std::move(x), Type::Decimal(kMaxDecimalPrecision, 0));
      }
    }
    return MakeScalarFunction("interval_from_sums", Type::Interval(),
                              Intervals([](const ScalarArgs& a, uint32_t i) {
                                auto part = [&](size_t k) { return a[k]->data<__int128>()[i]; };
                                return interval::FromWide(part(0), part(1), part(2));
                              }));
  };
  r.Register("interval_from_sums", std::move(o));
}

}  // namespace

void RegisterIntervalFunctions(FunctionRegistry& r) {
  RegisterIntervalSumParts(r);
  RegisterIntervalArithmetic(r);
  RegisterAge(r);
  RegisterJustify(r);
  RegisterMakeInterval(r);
  RegisterIntervalParts(r);
}

}  // namespace forktail
