// CAST kernel. Numeric conversions round half away from zero (as
// Value::CastTo documents); range errors are 22003; text input errors 22P02.
#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "olap/common/data_chunk.h"
#include "olap/common/kernel_util.h"
#include "olap/expression/kernels.h"
#include "storage/value/datetime.h"
#include "storage/value/decimal.h"
#include "storage/value/timezone.h"
#include "storage/value/utf8.h"

namespace forktail {
namespace {

enum class Cat { kBool, kInt, kDecimal, kDouble, kDate, kTimestamp, kString };

Cat CategoryOf(const Type& t) {
  switch (t.id) {
    case TypeId::kBoolean:
      return Cat::kBool;
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kBigInt:
      return Cat::kInt;
    case TypeId::kDecimal:
      return Cat::kDecimal;
    case TypeId::kDouble:
      return Cat::kDouble;
    case TypeId::kDate:
      return Cat::kDate;
    case TypeId::kTimestamp:
      return Cat::kTimestamp;
    default:
      return Cat::kString;
  }
}

int64_t IntMin(const Type& t) {
  return t.id == TypeId::kSmallInt ? INT16_MIN : t.id == TypeId::kInteger ? INT32_MIN : INT64_MIN;
}
int64_t IntMax(const Type& t) {
  return t.id == TypeId::kSmallInt ? INT16_MAX : t.id == TypeId::kInteger ? INT32_MAX : INT64_MAX;
}

[[noreturn]] void BadText(const Type& t, std::string_view s) {
  throw DbError(sqlstate::kInvalidTextRepresentation,
                fmt::format("invalid input syntax for type {}: \"{}\"", t.ToString(), s));
}

// Parses text into the target's category value: int64 (ints, decimal
// unscaled, date days), or double.
int64_t ParseInt(const Type& t, std::string_view s) {
  std::string_view x = TrimTrailingBlanks(s);
  while (!x.empty() && x[0] == ' ') x.remove_prefix(1);
  int64_t v = 0;
  auto [p, ec] = std::from_chars(x.data(), x.data() + x.size(), v);
  if (ec == std::errc::result_out_of_range) OutOfRange(t);
  if (ec != std::errc() || p != x.data() + x.size() || x.empty()) BadText(t, s);
  return v;
}

double ParseDouble(const Type& t, std::string_view s) {
  std::string x(TrimTrailingBlanks(s));
  char* end = nullptr;
  double v = strtod(x.c_str(), &end);
  if (x.empty() || end != x.c_str() + x.size()) BadText(t, s);
  return v;
}

template <typename In, typename Out, typename F>
void Map(const Vector& in, Rows rows, Vector* out, F f) {
  const In* a = in.data<In>();
  Out* o = out->mutable_data<Out>();
  const uint64_t* nulls = out->nulls();
  ForEachRow(rows, [&](uint32_t i) {
    if (!NullAt(nulls, i)) o[i] = static_cast<Out>(f(a[i]));
  });
}

// Loads any numeric-ish input as int64 (ints, decimal unscaled, dates, bool).
template <typename Out, typename F>
void FromInt(const Vector& in, Rows rows, Vector* out, F f) {
  DispatchPhysical(in.physical(), [&]<typename In>() {
    if constexpr (std::is_integral_v<In>) {
      Map<In, Out>(in, rows, out, [&](In x) { return f(static_cast<int64_t>(x)); });
    } else {
      abort();
    }
  });
}

template <typename F>
void ToOut(Vector* out, F f) {
  DispatchPhysical(out->physical(), [&]<typename Out>() {
    if constexpr (std::is_integral_v<Out>) f.template operator()<Out>();
  });
}

std::string ToText(const Type& t, int64_t i, double d) {
  switch (CategoryOf(t)) {
    case Cat::kBool:
      return i != 0 ? "true" : "false";
    case Cat::kInt:
      return std::to_string(i);
    case Cat::kDecimal:
      return decimal::Format(i, t.scale);
    case Cat::kDouble:  // PostgreSQL's spellings, not printf's nan / inf
      if (std::isnan(d)) return "NaN";
      if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
      return fmt::format("{}", d);
    case Cat::kDate:
      return datetime::FormatDate(static_cast<int32_t>(i));
    case Cat::kTimestamp:
      return datetime::FormatTimestamp(i);
    case Cat::kString:
      break;
  }
  abort();
}

// Reads row i of an integer-represented vector (bool, ints, narrow or wide
// DECIMAL) as __int128.
template <typename F>
void ForEachWide(const Vector& in, Rows rows, const uint64_t* nulls, F f) {
  DispatchPhysical(in.physical(), [&]<typename In>() {
    if constexpr (std::is_integral_v<In> || std::is_same_v<In, __int128>) {
      const In* a = in.data<In>();
      ForEachRow(rows, [&](uint32_t i) {
        if (!NullAt(nulls, i)) f(i, static_cast<__int128>(a[i]));
      });
    } else {
      abort();
    }
  });
}

// Writes an __int128 into an integer-represented output (range already checked).
template <typename F>
void StoreWide(Vector* out, Rows rows, const uint64_t* nulls, F f) {
  DispatchPhysical(out->physical(), [&]<typename Out>() {
    if constexpr (std::is_integral_v<Out> || std::is_same_v<Out, __int128>) {
      Out* o = out->mutable_data<Out>();
      ForEachRow(rows, [&](uint32_t i) {
        if (!NullAt(nulls, i)) o[i] = static_cast<Out>(f(i));
      });
    } else {
      abort();
    }
  });
}

// Casts where either side is a wide DECIMAL (19..38 digits).
void WideDecimalCast(const Vector& in, Rows rows, Vector* out, Cat cf, Cat ct) {
  const Type& from = in.type();
  const Type& to = out->type();
  const uint64_t* nulls = out->nulls();
  if (ct == Cat::kString) {
    auto* o = out->mutable_data<std::string_view>();
    StringArena* arena = out->arena();
    ForEachWide(in, rows, nulls, [&](uint32_t i, __int128 v) {
      std::string s = decimal::FormatWide(v, from.scale);
      if (to.length != 0 && s.size() > to.length) {
        throw DbError(sqlstate::kStringDataRightTruncation,
                      fmt::format("value too long for type {}", to.ToString()));
      }
      if (to.id == TypeId::kChar && s.size() < to.length) s.resize(to.length, ' ');
      o[i] = arena->Add(s);
    });
    return;
  }
  if (cf == Cat::kString) {
    const auto* a = in.data<std::string_view>();
    StoreWide(out, rows, nulls, [&](uint32_t i) {
      return decimal::ParseWide(TrimTrailingBlanks(a[i]), to.precision, to.scale);
    });
    return;
  }
  if (ct == Cat::kDouble) {
    double* o = out->mutable_data<double>();
    ForEachWide(in, rows, nulls,
                [&](uint32_t i, __int128 v) { o[i] = decimal::ToDoubleWide(v, from.scale); });
    return;
  }
  if (cf == Cat::kDouble) {
    const double* a = in.data<double>();
    StoreWide(out, rows, nulls,
              [&](uint32_t i) { return decimal::FromDoubleWide(a[i], to.precision, to.scale); });
    return;
  }
  // Integer-represented to integer-represented, through __int128.
  std::vector<__int128> tmp(kVectorSize);
  int from_scale = cf == Cat::kDecimal ? from.scale : 0;
  ForEachWide(in, rows, nulls, [&](uint32_t i, __int128 v) {
    switch (ct) {
      case Cat::kDecimal:
        tmp[i] = decimal::CheckWide(decimal::RescaleWide(v, from_scale, to.scale), to.precision);
        break;
      case Cat::kInt: {
        __int128 x = decimal::RescaleWide(v, from_scale, 0);
        if (x < IntMin(to) || x > IntMax(to)) OutOfRange(to);
        tmp[i] = x;
        break;
      }
      case Cat::kBool:
        tmp[i] = v != 0;
        break;
      default:
        throw DbError("42846",
                      fmt::format("cannot cast type {} to {}", from.ToString(), to.ToString()));
    }
  });
  StoreWide(out, rows, nulls, [&](uint32_t i) { return tmp[i]; });
}

// Casts to or from TIMESTAMPTZ: through the session's zone (text in and
// out, the wall clock of timestamp and date).
void TimestampTzCast(const Vector& in, Rows rows, Vector* out, const datetime::TimeZone& zone) {
  const Type& from = in.type();
  const Type& to = out->type();
  const uint64_t* nulls = out->nulls();
  if (to.IsString()) {
    const int64_t* a = in.data<int64_t>();
    auto* o = out->mutable_data<std::string_view>();
    StringArena* arena = out->arena();
    ForEachRow(rows, [&](uint32_t i) {
      if (NullAt(nulls, i)) return;
      Value text = Value::Text(datetime::FormatTimestampTz(a[i], zone)).CastTo(to);
      o[i] = arena->Add(text.GetString());
    });
    return;
  }
  if (from.IsString()) {
    const auto* a = in.data<std::string_view>();
    int64_t* o = out->mutable_data<int64_t>();
    ForEachRow(rows, [&](uint32_t i) {
      if (!NullAt(nulls, i)) o[i] = datetime::ParseTimestampTz(TrimTrailingBlanks(a[i]), zone);
    });
    return;
  }
  auto local = [&](uint32_t i) -> int64_t {
    switch (from.id) {
      case TypeId::kDate:
        return datetime::DateToTimestamp(in.data<int32_t>()[i]);
      case TypeId::kTimestamp:
        return in.data<int64_t>()[i];
      case TypeId::kTimestampTz:
        return zone.ToLocal(in.data<int64_t>()[i]);
      default:
        throw DbError("42846",
                      fmt::format("cannot cast type {} to {}", from.ToString(), to.ToString()));
    }
  };
  ForEachRow(rows, [&](uint32_t i) {
    if (NullAt(nulls, i)) return;
    switch (to.id) {
      case TypeId::kDate:
        out->mutable_data<int32_t>()[i] = datetime::TimestampToDate(local(i));
        break;
      case TypeId::kTimestamp:
        out->mutable_data<int64_t>()[i] = local(i);
        break;
      case TypeId::kTimestampTz:
        out->mutable_data<int64_t>()[i] =
            from.id == TypeId::kTimestampTz ? in.data<int64_t>()[i] : zone.ToUtc(local(i));
        break;
      default:
        throw DbError("42846",
                      fmt::format("cannot cast type {} to {}", from.ToString(), to.ToString()));
    }
  });
}

}  // namespace

// Casts to or from jsonb (only strings and jsonb itself go to jsonb; jsonb
// goes to strings, numbers and booleans) and uuid (to and from strings):
// row by row through Value, whose CastTo parses and prints them
// (storage/value/jsonb.h, uuid.h).
void CastByValue(const Vector& in, Rows rows, Vector* out) {
  const Type& from = in.type();
  const Type& to = out->type();
  if (!from.StoredAsString()) {
    throw DbError("42846",
                  fmt::format("cannot cast type {} to {}", from.ToString(), to.ToString()));
  }
  const uint64_t* nulls = out->nulls();
  const auto* a = in.data<std::string_view>();
  ForEachRow(rows, [&](uint32_t i) {
    if (NullAt(nulls, i)) return;
    SetVectorValue(*out, i, Value::String(from, std::string(a[i])).CastTo(to));
  });
}

void CastKernel(const Vector& in, Rows rows, Vector* out, const datetime::TimeZone* zone) {
  UnionNulls(in, nullptr, rows, out);
  const Type& from = in.type();
  const Type& to = out->type();
  if (to.id == TypeId::kTime &&
      (from.id == TypeId::kTimestamp || from.id == TypeId::kTimestampTz)) {
    // The time of day of the wall clock (a timestamptz's in the session's zone).
    const datetime::TimeZone& z = zone != nullptr ? *zone : *datetime::TimeZone::Utc();
    const int64_t* a = in.data<int64_t>();
    const uint64_t* nulls = out->nulls();
    auto* o = out->mutable_data<std::string_view>();
    ForEachRow(rows, [&](uint32_t i) {
      if (NullAt(nulls, i)) return;
      const int64_t local = from.id == TypeId::kTimestamp ? a[i] : z.ToLocal(a[i]);
      o[i] = out->arena()->Add(datetime::EncodeTime(datetime::SplitTimestamp(local).time));
    });
    return;
  }
  if (from.id == TypeId::kJsonb || to.id == TypeId::kJsonb || from.id == TypeId::kJson ||
      to.id == TypeId::kJson || from.id == TypeId::kUuid || to.id == TypeId::kUuid ||
      from.id == TypeId::kBytea || to.id == TypeId::kBytea || from.id == TypeId::kInterval ||
      to.id == TypeId::kInterval || from.id == TypeId::kTime || to.id == TypeId::kTime ||
      (to.IsArrayText() && !to.IsCatalogArrayText() && from != to)) {
    CastByValue(in, rows, out);
    return;
  }
  if (from.id == TypeId::kTimestampTz || to.id == TypeId::kTimestampTz) {
    TimestampTzCast(in, rows, out, zone != nullptr ? *zone : *datetime::TimeZone::Utc());
    return;
  }
  Cat cf = CategoryOf(from), ct = CategoryOf(to);
  const uint64_t* nulls = out->nulls();
  if (from.IsWideDecimal() || to.IsWideDecimal()) {
    WideDecimalCast(in, rows, out, cf, ct);
    return;
  }

  if (ct == Cat::kString) {
    auto* o = out->mutable_data<std::string_view>();
    StringArena* arena = out->arena();
    auto fit = [&](std::string_view s) -> std::string_view {
      // CHAR(n) to VARCHAR or TEXT drops the padding (PostgreSQL's rtrim).
      if (from.id == TypeId::kChar && to.id != TypeId::kChar) s = TrimTrailingBlanks(s);
      if (to.length == 0) return s;
      // Lengths count characters (no more bytes than n: no more characters).
      if (to.id == TypeId::kChar) {
        std::string_view t = TrimTrailingBlanks(s);
        const size_t chars = Utf8Length(t);
        if (chars > to.length) {
          throw DbError(sqlstate::kStringDataRightTruncation,
                        fmt::format("value too long for type character({})", to.length));
        }
        if (s.size() == t.size() + (to.length - chars)) return s;  // padded already
        std::string padded(t);
        padded.append(to.length - chars, ' ');
        return arena->Add(padded);
      }
      if (s.size() > to.length && Utf8Length(s) > to.length) {
        const size_t cut = Utf8Offset(s, to.length);
        if (TrimTrailingBlanks(s).size() <= cut) return s.substr(0, cut);
        throw DbError(sqlstate::kStringDataRightTruncation,
                      fmt::format("value too long for type character varying({})", to.length));
      }
      return s;
    };
    if (cf == Cat::kString) {
      const auto* a = in.data<std::string_view>();
      ForEachRow(rows, [&](uint32_t i) {
        if (!NullAt(nulls, i)) o[i] = fit(a[i]);
      });
      return;
    }
    DispatchPhysical(in.physical(), [&]<typename In>() {
      if constexpr (!std::is_same_v<In, std::string_view>) {
        const In* a = in.data<In>();
        ForEachRow(rows, [&](uint32_t i) {
          if (NullAt(nulls, i)) return;
          std::string s = std::is_same_v<In, double> ? ToText(from, 0, static_cast<double>(a[i]))
                                                     : ToText(from, static_cast<int64_t>(a[i]), 0);
          o[i] = fit(arena->Add(s));
        });
      }
    });
    return;
  }

  if (cf == Cat::kString) {
    const auto* a = in.data<std::string_view>();
    DispatchPhysical(out->physical(), [&]<typename Out>() {
      if constexpr (!std::is_same_v<Out, std::string_view>) {
        Out* o = out->mutable_data<Out>();
        ForEachRow(rows, [&](uint32_t i) {
          if (NullAt(nulls, i)) return;
          switch (ct) {
            case Cat::kDouble:
              o[i] = static_cast<Out>(ParseDouble(to, a[i]));
              break;
            case Cat::kDecimal:
              o[i] = static_cast<Out>(decimal::Parse(a[i], to.precision, to.scale));
              break;
            case Cat::kDate:
              o[i] = static_cast<Out>(datetime::ParseDate(a[i]));
              break;
            case Cat::kTimestamp:
              o[i] = static_cast<Out>(datetime::ParseTimestamp(a[i]));
              break;
            case Cat::kBool: {
              std::string_view t = TrimTrailingBlanks(a[i]);
              if (t == "t" || t == "true" || t == "1" || t == "yes" || t == "on") {
                o[i] = 1;
              } else if (t == "f" || t == "false" || t == "0" || t == "no" || t == "off") {
                o[i] = 0;
              } else {
                BadText(to, a[i]);
              }
              break;
            }
            default: {
              int64_t v = ParseInt(to, a[i]);
              if (v < IntMin(to) || v > IntMax(to)) OutOfRange(to);
              o[i] = static_cast<Out>(v);
            }
          }
        });
      }
    });
    return;
  }

  if (ct == Cat::kDouble) {
    if (cf == Cat::kDouble) return CopyRows(in, rows, out);
    double div = cf == Cat::kDecimal ? static_cast<double>(kPow10[from.scale]) : 1.0;
    FromInt<double>(in, rows, out, [&](int64_t x) { return static_cast<double>(x) / div; });
    return;
  }
  if (cf == Cat::kDouble) {
    const double* a = in.data<double>();
    double mul = ct == Cat::kDecimal ? static_cast<double>(kPow10[to.scale]) : 1.0;
    ToOut(out, [&]<typename Out>() {
      Out* o = out->mutable_data<Out>();
      ForEachRow(rows, [&](uint32_t i) {
        if (NullAt(nulls, i)) return;
        double r = std::round(a[i] * mul);  // half away from zero
        if (ct == Cat::kDecimal) {
          if (!(std::fabs(r) < static_cast<double>(kPow10[to.precision]))) {
            throw DbError(sqlstate::kNumericValueOutOfRange, "numeric field overflow");
          }
        } else if (!(r >= static_cast<double>(IntMin(to)) &&
                     r < -static_cast<double>(IntMin(to)))) {
          OutOfRange(to);
        }
        o[i] = static_cast<Out>(r);
      });
    });
    return;
  }
  // Integer-represented to integer-represented.
  int from_scale = cf == Cat::kDecimal ? from.scale : 0;
  ToOut(out, [&]<typename Out>() {
    FromInt<Out>(in, rows, out, [&](int64_t x) -> int64_t {
      switch (ct) {
        case Cat::kBool:
          return x != 0;
        case Cat::kDecimal:
          return CheckDecimal(Rescale(x, from_scale, to.scale), to.precision);
        case Cat::kInt: {
          int64_t v = cf == Cat::kDecimal ? static_cast<int64_t>(Rescale(x, from_scale, 0)) : x;
          if (v < IntMin(to) || v > IntMax(to)) OutOfRange(to);
          return v;
        }
        case Cat::kTimestamp:
          return cf == Cat::kDate ? x * 86400000000LL : x;
        case Cat::kDate:
          return cf == Cat::kTimestamp
                     ? (x >= 0 ? x / 86400000000LL : -((-x + 86399999999LL) / 86400000000LL))
                     : x;
        default:
          abort();
      }
    });
  });
}

}  // namespace forktail
