// Date/time functions (PostgreSQL 15): now(), current_timestamp,
// localtimestamp, transaction_timestamp(), statement_timestamp(),
// current_date, date_trunc(unit, ts), date_part(unit, ts), and the date
// operators date + int, int + date, date - int, date - date.
//
// There is no TIMESTAMP WITH TIME ZONE type: now() and current_timestamp
// yield TIMESTAMP in UTC (PostgreSQL: timestamptz in the session zone). The
// value is taken once per statement by the binder (PostgreSQL: once per
// transaction). date_trunc/date_part of a DATE work on its midnight
// (PostgreSQL goes through timestamptz for date_trunc).
#include <cmath>

#include "olap/common/kernel_util.h"
#include "olap/expression/scalar_function.h"
#include "storage/value/datetime.h"

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

[[noreturn]] void BadUnit(const std::string& unit) {
  throw DbError(sqlstate::kInvalidParameterValue,
                "unit \"" + unit + "\" not recognized for type timestamp without time zone");
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

// A function of (constant unit, timestamp) that maps each timestamp.
template <typename Out, typename F>
FunctionOverload UnitFunction(const char* name, Type result, F map) {
  FunctionOverload o;
  o.params = {TypeId::kText, TypeId::kTimestamp};
  o.bind = [name, result, map](const FunctionBindContext&, std::vector<ExprPtr>& args) {
    std::optional<std::string> unit = ConstantUnit(args[0], name);
    if (unit) map(*unit, 0);  // rejects a bad unit at bind time
    return MakeScalarFunction(name, result,
                              [unit, map](const ScalarArgs& a, Rows rows, Vector* out) {
                                if (!unit) {
                                  ForEachRow(rows, [&](uint32_t i) { out->SetNull(i, true); });
                                  return;
                                }
                                const int64_t* ts = a[1]->data<int64_t>();
                                Out* o = out->mutable_data<Out>();
                                ForEachRow(rows, [&](uint32_t i) { o[i] = map(*unit, ts[i]); });
                              });
  };
  return o;
}

void RegisterNow(FunctionRegistry& r, const char* name, bool date) {
  FunctionOverload o;
  o.bind = [name, date](const FunctionBindContext& ctx, std::vector<ExprPtr>&) {
    int64_t now = ctx.statement_timestamp;
    if (date) {
      int32_t day = dt::TimestampToDate(now);
      return MakeScalarFunction(name, Type::Date(),
                                [day](const ScalarArgs&, Rows rows, Vector* out) {
                                  int32_t* o = out->mutable_data<int32_t>();
                                  ForEachRow(rows, [&](uint32_t i) { o[i] = day; });
                                });
    }
    return MakeScalarFunction(name, Type::Timestamp(),
                              [now](const ScalarArgs&, Rows rows, Vector* out) {
                                int64_t* o = out->mutable_data<int64_t>();
                                ForEachRow(rows, [&](uint32_t i) { o[i] = now; });
                              });
  };
  r.Register(name, std::move(o));
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

}  // namespace

void RegisterDatetimeFunctions(FunctionRegistry& r) {
  RegisterDateArithmetic(r);
  for (const char* name : {"now", "current_timestamp", "localtimestamp", "transaction_timestamp",
                           "statement_timestamp"}) {
    RegisterNow(r, name, false);
  }
  RegisterNow(r, "current_date", true);
  r.Register("date_trunc", UnitFunction<int64_t>("date_trunc", Type::Timestamp(), Trunc));
  r.Register("date_part", UnitFunction<double>("date_part", Type::Double(), Part));
}

}  // namespace forktail
