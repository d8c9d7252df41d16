// TIME's operators and functions, under PostgreSQL's names: time_mi_time
// (time - time, an interval), time_pl_interval and time_mi_interval (time
// +/- interval: the interval's time part, wrapping at midnight; its days
// and months are ignored, as in PostgreSQL), datetime_pl (date + time, a
// timestamp), make_time, and date_part / extract(text, time) for the fields
// a time has (hour, minute, second, milliseconds, microseconds, epoch).
#include <fmt/format.h>

#include <cctype>
#include <cmath>

#include "olap/common/kernel_util.h"
#include "olap/expression/scalar_function.h"
#include "storage/value/interval.h"

namespace forktail {
namespace {

namespace dt = datetime;
using Sv = std::string_view;

constexpr TypeId kTime = TypeId::kTime;
constexpr TypeId kIv = TypeId::kInterval;

int64_t Time(const ScalarArgs& a, size_t k, uint32_t i) {
  return dt::DecodeTime(a[k]->data<Sv>()[i]);
}

// A kernel whose row result is a string (a time or an interval, encoded).
template <typename F>
ScalarKernel Encoded(F f) {
  return [f](const ScalarArgs& a, Rows rows, Vector* out) {
    Sv* o = out->mutable_data<Sv>();
    StringArena* arena = out->arena();
    ForEachRow(rows, [&](uint32_t i) { o[i] = arena->Add(f(a, i)); });
  };
}

// time_pl_interval: the time part of the interval, modulo a day.
int64_t AddToTime(int64_t time, int64_t micros) {
  int64_t t = (time + micros % dt::kMicrosPerDay) % dt::kMicrosPerDay;
  return t < 0 ? t + dt::kMicrosPerDay : t;
}

// The field of a time `name` names (lower case), as interval::Part reads
// it; PostgreSQL's errors for the others.
std::string TimeField(Sv name) {
  std::string field(name);
  for (char& c : field) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const char* const kFields[] = {
      "microsecond", "microseconds", "us",           "usec",    "usecs",
      "useconds",    "millisecond",  "milliseconds", "ms",      "msec",
      "msecs",       "mseconds",     "second",       "seconds", "s",
      "sec",         "secs",         "minute",       "minutes", "m",
      "min",         "mins",         "hour",         "hours",   "h",
      "hr",          "hrs",          "epoch"};
  for (const char* f : kFields) {
    if (field == f) return field;
  }
  bool recognized = true;
  try {
    interval::Part(field, dt::Interval{});
  } catch (const DbError& e) {
    recognized = std::string_view(e.sqlstate()) != sqlstate::kInvalidParameterValue;
  }
  if (!recognized) {
    throw DbError(sqlstate::kInvalidParameterValue,
                  fmt::format("unit \"{}\" not recognized for type time without time zone", name));
  }
  throw DbError(sqlstate::kFeatureNotSupported,
                fmt::format("unit \"{}\" not supported for type time without time zone", name));
}

interval::IntervalPart PartOfTime(const std::string& field, int64_t time) {
  dt::Interval iv;
  iv.micros = time;  // below a day: the interval's fields are the time's
  return interval::Part(field, iv);
}

void RegisterTimeParts(FunctionRegistry& r) {
  r.Register("date_part", {TypeId::kText, kTime}, Type::Double(),
             [](const ScalarArgs& a, Rows rows, Vector* out) {
               double* o = out->mutable_data<double>();
               ForEachRow(rows, [&](uint32_t i) {
                 const interval::IntervalPart p =
                     PartOfTime(TimeField(a[0]->data<Sv>()[i]), Time(a, 1, i));
                 double scaled = static_cast<double>(p.scaled);
                 for (int k = 0; k < p.scale; ++k) scaled /= 10;
                 o[i] = scaled;
               });
             });
  FunctionOverload o;
  o.params = {TypeId::kText, kTime};
  o.bind = [](const FunctionBindContext&, std::vector<ExprPtr>& args) {
    if (args[0]->kind != ExprKind::kConstant || args[0]->constant.is_null()) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    "extract(text, time) needs a constant field name");
    }
    const std::string field = TimeField(args[0]->constant.GetString());
    const interval::IntervalPart probe = PartOfTime(field, 0);
    return MakeScalarFunction("extract", Type::Decimal(kMaxNarrowDecimalPrecision, probe.scale),
                              [field](const ScalarArgs& a, Rows rows, Vector* out) {
                                int64_t* o = out->mutable_data<int64_t>();
                                ForEachRow(rows, [&](uint32_t i) {
                                  o[i] =
                                      static_cast<int64_t>(PartOfTime(field, Time(a, 1, i)).scaled);
                                });
                              });
  };
  r.Register("extract", std::move(o));
}

}  // namespace

void RegisterTimeFunctions(FunctionRegistry& r) {
  r.Register("time_mi_time", {kTime, kTime}, Type::Interval(),
             Encoded([](const ScalarArgs& a, uint32_t i) {
               dt::Interval iv;
               iv.micros = Time(a, 0, i) - Time(a, 1, i);
               return interval::Encode(iv);
             }));
  r.Register("time_pl_interval", {kTime, kIv}, Type::Time(),
             Encoded([](const ScalarArgs& a, uint32_t i) {
               const int64_t micros = interval::Decode(a[1]->data<Sv>()[i]).micros;
               return dt::EncodeTime(AddToTime(Time(a, 0, i), micros));
             }));
  r.Register("time_mi_interval", {kTime, kIv}, Type::Time(),
             Encoded([](const ScalarArgs& a, uint32_t i) {
               const int64_t micros = interval::Decode(a[1]->data<Sv>()[i]).micros;
               return dt::EncodeTime(AddToTime(Time(a, 0, i), -micros));
             }));
  r.Register("datetime_pl", {TypeId::kDate, kTime}, Type::Timestamp(),
             [](const ScalarArgs& a, Rows rows, Vector* out) {
               int64_t* o = out->mutable_data<int64_t>();
               ForEachRow(rows, [&](uint32_t i) {
                 o[i] = dt::DateToTimestamp(a[0]->data<int32_t>()[i]) + Time(a, 1, i);
                 if (o[i] > dt::kMaxTimestamp) throw DbError("22008", "timestamp out of range");
               });
             });
  // make_time(hour, min, sec): PostgreSQL's checks (22008 naming the fields).
  r.Register("make_time", {TypeId::kInteger, TypeId::kInteger, TypeId::kDouble}, Type::Time(),
             Encoded([](const ScalarArgs& a, uint32_t i) {
               const int64_t hour = a[0]->data<int32_t>()[i], minute = a[1]->data<int32_t>()[i];
               const double sec = a[2]->data<double>()[i];
               const int64_t micros = static_cast<int64_t>(std::llround(sec * 1e6));
               const int64_t t = hour * dt::kMicrosPerHour + minute * dt::kMicrosPerMinute + micros;
               if (hour < 0 || hour > 24 || minute < 0 || minute > 59 || !(sec >= 0) || sec > 60 ||
                   t > dt::kMaxTime) {
                 throw DbError("22008", fmt::format("time field value out of range: {}:{:02}:{:02}",
                                                    hour, minute, sec));
               }
               return dt::EncodeTime(t);
             }));
  RegisterTimeParts(r);
}

}  // namespace forktail
