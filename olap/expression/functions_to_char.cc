// to_char(timestamp | timestamptz | number, text), PostgreSQL's templates
// (to_char.h); to_timestamp(text, text) and to_date(text, text) read them
// (from_char.h). A DATE argument is a TIMESTAMPTZ at its local midnight (the
// overload PostgreSQL picks too).
#include "olap/common/kernel_util.h"
#include "olap/expression/from_char.h"
#include "olap/expression/scalar_function.h"
#include "olap/expression/to_char.h"
#include "storage/value/datetime.h"
#include "storage/value/decimal.h"
#include "storage/value/interval.h"
#include "storage/value/timezone.h"
#include "storage/value/value.h"

#include <fmt/format.h>

#include <cmath>

namespace forktail {
namespace {

using Sv = std::string_view;

Sv Str(const ScalarArgs& a, size_t k, uint32_t i) { return a[k]->data<Sv>()[i]; }

template <typename F>
ScalarKernel Texts(F f) {
  return [f](const ScalarArgs& a, Rows rows, Vector* out) {
    Sv* o = out->mutable_data<Sv>();
    StringArena* arena = out->arena();
    ForEachRow(rows, [&](uint32_t i) { o[i] = arena->Add(f(a, i)); });
  };
}

// The date FromChar read, as days, when Forktail's dates hold it (years 1
// to 9999): 22008 "<what> out of range" otherwise.
int32_t CheckedDate(const FromCharResult& r, Sv input, const char* what) {
  if (r.year < 1 || r.year > 9999 || r.day > datetime::DaysInMonth(r.year, r.month)) {
    DbError e("22008", fmt::format("{} out of range: \"{}\"", what, input));
    if (r.year < 1) e.WithHint("Forktail's dates and timestamps are years 1 to 9999.");
    throw e;
  }
  return datetime::DaysFromCivil(r.year, r.month, r.day);
}

}  // namespace

void RegisterToCharFunctions(FunctionRegistry& r) {
  r.Register("to_char", {TypeId::kTimestamp, TypeId::kText}, Type::Text(),
             Texts([](const ScalarArgs& a, uint32_t i) {
               return ToCharTimestamp(a[0]->data<int64_t>()[i], 0, nullptr, Str(a, 1, i));
             }));
  FunctionOverload zoned;
  zoned.params = {TypeId::kTimestampTz, TypeId::kText};
  zoned.bind = [](const FunctionBindContext& ctx, std::vector<ExprPtr>&) {
    std::shared_ptr<const datetime::TimeZone> zone =
        ctx.time_zone ? ctx.time_zone : datetime::CurrentTimeZonePtr();
    return MakeScalarFunction("to_char", Type::Text(),
                              Texts([zone](const ScalarArgs& a, uint32_t i) {
                                const int64_t utc = a[0]->data<int64_t>()[i];
                                const int32_t offset = zone->OffsetAt(utc);
                                return ToCharTimestamp(utc + int64_t{offset} * 1'000'000, offset,
                                                       zone.get(), Str(a, 1, i));
                              }));
  };
  r.Register("to_char", std::move(zoned));
  r.Register("to_char", {TypeId::kInterval, TypeId::kText}, Type::Text(),
             Texts([](const ScalarArgs& a, uint32_t i) {
               return ToCharInterval(interval::Decode(Str(a, 0, i)), Str(a, 1, i));
             }));
  // Numbers: integers and DECIMALs exactly, doubles as printed with the
  // template's decimals first.
  r.Register("to_char", {TypeId::kBigInt, TypeId::kText}, Type::Text(),
             Texts([](const ScalarArgs& a, uint32_t i) {
               return ToCharNumber(std::to_string(a[0]->data<int64_t>()[i]), Str(a, 1, i));
             }));
  FunctionOverload decimal;
  decimal.params = {TypeId::kDecimal, TypeId::kText};
  decimal.bind = [](const FunctionBindContext&, std::vector<ExprPtr>& args) {
    const Type t = args[0]->type;
    return MakeScalarFunction(
        "to_char", Type::Text(), Texts([t](const ScalarArgs& a, uint32_t i) {
          const __int128 unscaled =
              t.IsWideDecimal() ? a[0]->data<__int128>()[i] : a[0]->data<int64_t>()[i];
          return ToCharNumber(decimal::FormatWide(unscaled, t.scale), Str(a, 1, i));
        }));
  };
  r.Register("to_char", std::move(decimal));
  r.Register("to_char", {TypeId::kDouble, TypeId::kText}, Type::Text(),
             Texts([](const ScalarArgs& a, uint32_t i) {
               const double x = a[0]->data<double>()[i];
               const Sv format = Str(a, 1, i);
               const int post = ToCharNumberDecimals(format);
               // Beyond 1e300 or NaN: too wide for any template.
               std::string text = std::isfinite(x) && std::fabs(x) < 1e300
                                      ? fmt::format("{:.{}f}", x, post)
                                      : std::string(400, '9');
               return ToCharNumber(text, format);
             }));

  // The other way: to_timestamp(text, template) in the session's zone unless
  // the input gives its offset (TZH/TZM), and to_date(text, template).
  FunctionOverload to_timestamp;
  to_timestamp.params = {TypeId::kText, TypeId::kText};
  to_timestamp.bind = [](const FunctionBindContext& ctx, std::vector<ExprPtr>&) {
    std::shared_ptr<const datetime::TimeZone> zone =
        ctx.time_zone ? ctx.time_zone : datetime::CurrentTimeZonePtr();
    return MakeScalarFunction(
        "to_timestamp", Type::TimestampTz(), [zone](const ScalarArgs& a, Rows rows, Vector* out) {
          int64_t* o = out->mutable_data<int64_t>();
          ForEachRow(rows, [&](uint32_t i) {
            const Sv input = Str(a, 0, i);
            const FromCharResult r = FromChar(input, Str(a, 1, i));
            const int64_t local =
                int64_t{CheckedDate(r, input, "timestamp")} * datetime::kMicrosPerDay + r.time;
            o[i] = r.offset_seconds ? local - int64_t{*r.offset_seconds} * 1'000'000
                                    : zone->ToUtc(local);
            if (o[i] < datetime::kMinTimestamp || o[i] > datetime::kMaxTimestamp) {
              throw DbError("22008", fmt::format("timestamp out of range: \"{}\"", input));
            }
          });
        });
  };
  r.Register("to_timestamp", std::move(to_timestamp));
  r.Register("to_date", {TypeId::kText, TypeId::kText}, Type::Date(),
             [](const ScalarArgs& a, Rows rows, Vector* out) {
               int32_t* o = out->mutable_data<int32_t>();
               ForEachRow(rows, [&](uint32_t i) {
                 const Sv input = Str(a, 0, i);
                 o[i] = CheckedDate(FromChar(input, Str(a, 1, i)), input, "date");
               });
             });
}

}  // namespace forktail
