// Mathematical functions (PostgreSQL 15): abs, sign, ceil/ceiling, floor,
// round, trunc, power/pow, sqrt, cbrt, exp, ln, log, log10, pi.
//
// Integer and DECIMAL overloads are exact (DECIMAL values are unscaled
// int64s, or __int128s past 18 digits; see storage/value/decimal.h); the DOUBLE ones follow the C
// library and PostgreSQL's error checks (22003 on overflow, 2201E for logarithms of zero/negatives,
// 2201F for bad powers). Differences from PostgreSQL: sqrt/exp/ln/log/power of a DECIMAL compute in
// DOUBLE (PostgreSQL keeps numeric); round(numeric, n) with a non-constant n keeps the argument's
// scale (PostgreSQL's numeric has a per-value scale).
#include <xxhash.h>

#include <cmath>

#include "olap/common/kernel_util.h"
#include "olap/expression/scalar_function.h"
#include "storage/value/decimal.h"
#include "storage/value/random_source.h"
#include "storage/value/uuid.h"

namespace forktail {
namespace {

template <typename In, typename Out, typename F>
ScalarKernel Unary(F f) {
  return [f](const ScalarArgs& a, Rows rows, Vector* out) {
    const In* x = a[0]->data<In>();
    Out* o = out->mutable_data<Out>();
    ForEachRow(rows, [&](uint32_t i) { o[i] = f(x[i]); });
  };
}

template <typename T>
ScalarKernel Binary(T (*f)(T, T)) {
  return [f](const ScalarArgs& a, Rows rows, Vector* out) {
    const T* x = a[0]->data<T>();
    const T* y = a[1]->data<T>();
    T* o = out->mutable_data<T>();
    ForEachRow(rows, [&](uint32_t i) { o[i] = f(x[i], y[i]); });
  };
}

double CheckDouble(double r, double x) {
  if (std::isinf(r) && !std::isinf(x)) {
    throw DbError(sqlstate::kNumericValueOutOfRange, "value out of range: overflow");
  }
  return r;
}

template <typename T>
void RegisterAbs(FunctionRegistry& r, TypeId id) {
  Type t = ParameterType(id, std::nullopt);
  r.Register("abs", {id}, t, Unary<T, T>([t](T x) -> T {
               if (x == std::numeric_limits<T>::min()) OutOfRange(t);
               return x < 0 ? static_cast<T>(-x) : x;
             }));
}

// DECIMAL kernels run on __int128 values; Dec<In, Out> reads a narrow
// (int64) or wide (__int128) argument and writes a narrow or wide result,
// decided once per bound call from the types.
template <typename In, typename Out, typename F>
void DecimalMap(const ScalarArgs& a, Rows rows, Vector* out, const F& f) {
  const In* x = a[0]->data<In>();
  Out* o = out->mutable_data<Out>();
  ForEachRow(rows, [&](uint32_t i) { o[i] = static_cast<Out>(f(static_cast<__int128>(x[i]), i)); });
}

// f(__int128 value, uint32_t row) -> __int128, in the result's precision.
template <typename F>
ScalarKernel DecimalUnary(const Type& in, const Type& out, F f) {
  bool wide_in = in.IsWideDecimal(), wide_out = out.IsWideDecimal();
  return [f, wide_in, wide_out](const ScalarArgs& a, Rows rows, Vector* o) {
    if (wide_in && wide_out) return DecimalMap<__int128, __int128>(a, rows, o, f);
    if (wide_in) return DecimalMap<__int128, int64_t>(a, rows, o, f);
    if (wide_out) return DecimalMap<int64_t, __int128>(a, rows, o, f);
    DecimalMap<int64_t, int64_t>(a, rows, o, f);
  };
}

// Narrow arguments keep narrow results (as before 38-digit decimals); wide
// ones may use 38 digits.
int MaxPrecisionFor(const Type& in) {
  return in.IsWideDecimal() ? kMaxDecimalPrecision : kMaxNarrowDecimalPrecision;
}

// DECIMAL(p,s) unscaled v rounded (or truncated) to `digits` fractional
// digits (digits may be negative), returned at scale max(digits, 0).
__int128 RoundDecimal(__int128 v, int scale, int digits, bool truncate) {
  if (digits >= scale) return decimal::RescaleWide(v, scale, digits);
  int drop = scale - digits;
  if (drop > 38) return 0;
  __int128 unit = decimal::Pow10Wide(drop);
  __int128 q = truncate ? v / unit : DivRound(v, unit);
  if (digits < 0) q = decimal::ScaleUpWide(q, std::min(-digits, 38));
  return decimal::CheckWide(q, kMaxDecimalPrecision);
}

// round/trunc for DECIMAL; digits_arg: the constant second argument (if
// any, else the argument's own scale for a non-constant one).
void RegisterDecimalRounding(FunctionRegistry& r, const std::string& name, bool truncate) {
  for (bool two_args : {false, true}) {
    FunctionOverload o;
    o.params = {TypeId::kDecimal};
    if (two_args) o.params.push_back(TypeId::kInteger);
    o.bind = [name, truncate, two_args](const FunctionBindContext&, std::vector<ExprPtr>& args) {
      Type in = args[0]->type;
      int p = in.precision, s = in.scale;
      int max_precision = MaxPrecisionFor(in);
      bool constant_digits =
          !two_args || (args[1]->kind == ExprKind::kConstant && !args[1]->constant.is_null());
      int digits = two_args && constant_digits ? static_cast<int>(args[1]->constant.GetInt()) : 0;
      int out_scale = !constant_digits ? s : std::clamp(digits, 0, max_precision);
      int int_digits = p - s + 1;  // rounding up may add a digit
      int out_precision = std::min(max_precision, std::max(int_digits + out_scale, 1));
      if (out_scale > out_precision) out_scale = out_precision;
      Type out_type = Type::Decimal(out_precision, out_scale);
      auto kernel = [s, out_scale, out_precision, truncate, two_args, constant_digits, digits, in,
                     out_type](const ScalarArgs& a, Rows rows, Vector* out) {
        const int32_t* d = two_args ? a[1]->data<int32_t>() : nullptr;
        DecimalUnary(in, out_type, [&](__int128 x, uint32_t i) {
          int want = constant_digits ? digits : d[i];
          __int128 v = RoundDecimal(x, s, std::min(want, out_scale), truncate);
          int at = std::max(std::min(want, out_scale), 0);
          return decimal::CheckWide(decimal::RescaleWide(v, at, out_scale), out_precision);
        })(a, rows, out);
      };
      return MakeScalarFunction(name, out_type, kernel);
    };
    r.Register(name, std::move(o));
  }
}

// ceil / floor of a DECIMAL: scale 0.
void RegisterDecimalCeilFloor(FunctionRegistry& r, const std::string& name, bool ceil) {
  FunctionOverload o;
  o.params = {TypeId::kDecimal};
  o.bind = [name, ceil](const FunctionBindContext&, std::vector<ExprPtr>& args) {
    Type in = args[0]->type;
    int s = in.scale;
    Type out_type = Type::Decimal(std::min(MaxPrecisionFor(in), in.precision - s + 1), 0);
    __int128 unit = decimal::Pow10Wide(s);
    return MakeScalarFunction(name, out_type,
                              DecimalUnary(in, out_type, [unit, ceil](__int128 v, uint32_t) {
                                __int128 q = v / unit, rem = v % unit;
                                if (ceil && rem > 0) ++q;
                                if (!ceil && rem < 0) --q;
                                return q;
                              }));
  };
  r.Register(name, std::move(o));
}

void RegisterDecimalSignAbs(FunctionRegistry& r) {
  FunctionOverload abs;
  abs.params = {TypeId::kDecimal};
  abs.bind = [](const FunctionBindContext&, std::vector<ExprPtr>& args) {
    const Type& t = args[0]->type;
    return MakeScalarFunction(
        "abs", t, DecimalUnary(t, t, [](__int128 v, uint32_t) { return v < 0 ? -v : v; }));
  };
  r.Register("abs", std::move(abs));
  FunctionOverload sign;
  sign.params = {TypeId::kDecimal};
  sign.bind = [](const FunctionBindContext&, std::vector<ExprPtr>& args) {
    Type out = Type::Decimal(1, 0);
    return MakeScalarFunction("sign", out,
                              DecimalUnary(args[0]->type, out, [](__int128 v, uint32_t) {
                                return __int128{(v > 0) - (v < 0)};
                              }));
  };
  r.Register("sign", std::move(sign));
}

double Power(double x, double y) {
  if (x == 0 && y < 0) {
    throw DbError("2201F", "zero raised to a negative power is undefined");
  }
  if (x < 0 && std::floor(y) != y) {
    throw DbError("2201F",
                  "a negative number raised to a non-integer power yields a complex result");
  }
  double r = std::pow(x, y);
  if (std::isinf(r) && !std::isinf(x) && !std::isinf(y)) {
    throw DbError(sqlstate::kNumericValueOutOfRange, "value out of range: overflow");
  }
  if (r == 0 && x != 0 && !std::isinf(y)) {
    throw DbError(sqlstate::kNumericValueOutOfRange, "value out of range: underflow");
  }
  return r;
}

double Logarithm(double x, double (*f)(double)) {
  if (x == 0) throw DbError("2201E", "cannot take logarithm of zero");
  if (x < 0) throw DbError("2201E", "cannot take logarithm of a negative number");
  return f(x);
}

}  // namespace

namespace {

// random() and gen_random_uuid(): volatile (a value per row, never folded
// into a constant at bind time).
void RegisterRandom(FunctionRegistry& r) {
  FunctionOverload random;
  random.bind = [](const FunctionBindContext&, std::vector<ExprPtr>&) {
    return MakeScalarFunction(
        "random", Type::Double(),
        [](const ScalarArgs&, Rows rows, Vector* out) {
          double* o = out->mutable_data<double>();
          // 53 random bits: uniform in [0, 1), as PostgreSQL's.
          ForEachRow(rows, [&](uint32_t i) {
            o[i] = static_cast<double>(random_source::Next() >> 11) * 0x1.0p-53;
          });
        },
        /*strict=*/true, /*is_volatile=*/true);
  };
  r.Register("random", std::move(random));
  FunctionOverload uuid;
  uuid.bind = [](const FunctionBindContext&, std::vector<ExprPtr>&) {
    return MakeScalarFunction(
        "gen_random_uuid", Type::Uuid(),
        [](const ScalarArgs&, Rows rows, Vector* out) {
          auto* o = out->mutable_data<std::string_view>();
          StringArena* arena = out->arena();
          ForEachRow(rows, [&](uint32_t i) { o[i] = arena->Add(uuid::Random()); });
        },
        /*strict=*/true, /*is_volatile=*/true);
  };
  r.Register("gen_random_uuid", std::move(uuid));
}

// forktail_sample_fraction(seed, VARIADIC "any"): a fraction in [0, 1)
// that depends only on the seed and the arguments' text, so that TABLESAMPLE
// ... REPEATABLE (seed) picks the same rows of an unchanged table each time
// (the binder passes every column of the row).
void RegisterSampleFraction(FunctionRegistry& r) {
  FunctionOverload o;
  o.params = {TypeId::kText};
  o.variadic = true;
  o.any_to_text = true;
  auto f = MakeScalarFunction(
      "forktail_sample_fraction", Type::Double(),
      [](const ScalarArgs& a, Rows rows, Vector* out) {
        double* o = out->mutable_data<double>();
        ForEachRow(rows, [&](uint32_t i) {
          uint64_t h = 0x9E3779B97F4A7C15ull;
          for (size_t k = 0; k < a.size(); ++k) {
            const std::string_view v =
                a[k]->IsNull(i) ? std::string_view("\\N") : a[k]->data<std::string_view>()[i];
            h = XXH3_64bits_withSeed(v.data(), v.size(), h + k);
          }
          o[i] = static_cast<double>(h >> 11) * 0x1.0p-53;
        });
      },
      /*strict=*/false);
  o.bind = [f](const FunctionBindContext&, std::vector<ExprPtr>&) { return f; };
  r.Register("forktail_sample_fraction", std::move(o));
}

}  // namespace

// width_bucket(operand, low, high, count): the bucket of `count` equal-width
// buckets between low and high the operand falls in; 0 below the range and
// count + 1 above it (a range given high to low counts the other way).
void RegisterWidthBucket(FunctionRegistry& r) {
  r.Register("width_bucket", {TypeId::kDouble, TypeId::kDouble, TypeId::kDouble, TypeId::kInteger},
             Type::Integer(), [](const ScalarArgs& a, Rows rows, Vector* out) {
               const auto* x = a[0]->data<double>();
               const auto* lo = a[1]->data<double>();
               const auto* hi = a[2]->data<double>();
               const auto* count = a[3]->data<int32_t>();
               auto* o = out->mutable_data<int32_t>();
               ForEachRow(rows, [&](uint32_t i) {
                 if (count[i] <= 0) throw DbError("2201G", "count must be greater than zero");
                 if (lo[i] == hi[i]) throw DbError("2201G", "lower bound cannot equal upper bound");
                 if (std::isnan(x[i]) || std::isnan(lo[i]) || std::isnan(hi[i])) {
                   throw DbError("2201G", "operand, lower bound, and upper bound cannot be NaN");
                 }
                 if (!std::isfinite(lo[i]) || !std::isfinite(hi[i])) {
                   throw DbError("2201G", "lower and upper bounds must be finite");
                 }
                 const bool up = lo[i] < hi[i];
                 if (up ? x[i] < lo[i] : x[i] > lo[i]) {
                   o[i] = 0;
                 } else if (up ? x[i] >= hi[i] : x[i] <= hi[i]) {
                   if (count[i] == INT32_MAX) throw DbError("22003", "integer out of range");
                   o[i] = count[i] + 1;
                 } else {
                   const double fraction =
                       up ? (x[i] - lo[i]) / (hi[i] - lo[i]) : (lo[i] - x[i]) / (lo[i] - hi[i]);
                   o[i] = std::min(static_cast<int32_t>(fraction * count[i]), count[i] - 1) + 1;
                 }
               });
             });
}

void RegisterMathFunctions(FunctionRegistry& r) {
  RegisterRandom(r);
  RegisterWidthBucket(r);
  RegisterSampleFraction(r);
  RegisterAbs<int16_t>(r, TypeId::kSmallInt);
  RegisterAbs<int32_t>(r, TypeId::kInteger);
  RegisterAbs<int64_t>(r, TypeId::kBigInt);
  r.Register("abs", {TypeId::kDouble}, Type::Double(),
             Unary<double, double>([](double x) { return std::fabs(x); }));
  RegisterDecimalSignAbs(r);
  r.Register("sign", {TypeId::kDouble}, Type::Double(), Unary<double, double>([](double x) {
               return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
             }));
  for (const char* name : {"ceil", "ceiling"}) {
    r.Register(name, {TypeId::kDouble}, Type::Double(),
               Unary<double, double>([](double x) { return std::ceil(x); }));
    RegisterDecimalCeilFloor(r, name, true);
  }
  r.Register("floor", {TypeId::kDouble}, Type::Double(),
             Unary<double, double>([](double x) { return std::floor(x); }));
  RegisterDecimalCeilFloor(r, "floor", false);
  // round(double) rounds half to even (rint), round(numeric) half away from 0.
  r.Register("round", {TypeId::kDouble}, Type::Double(),
             Unary<double, double>([](double x) { return std::rint(x); }));
  r.Register("trunc", {TypeId::kDouble}, Type::Double(),
             Unary<double, double>([](double x) { return std::trunc(x); }));
  RegisterDecimalRounding(r, "round", false);
  RegisterDecimalRounding(r, "trunc", true);
  for (const char* name : {"power", "pow"}) {
    r.Register(name, {TypeId::kDouble, TypeId::kDouble}, Type::Double(), Binary<double>(Power));
  }
  r.Register("sqrt", {TypeId::kDouble}, Type::Double(), Unary<double, double>([](double x) {
               if (x < 0) {
                 throw DbError("2201F", "cannot take square root of a negative number");
               }
               return std::sqrt(x);
             }));
  r.Register("cbrt", {TypeId::kDouble}, Type::Double(),
             Unary<double, double>([](double x) { return std::cbrt(x); }));
  r.Register("exp", {TypeId::kDouble}, Type::Double(), Unary<double, double>([](double x) {
               double v = std::exp(x);
               if (v == 0 && !std::isinf(x)) {
                 throw DbError(sqlstate::kNumericValueOutOfRange, "value out of range: underflow");
               }
               return CheckDouble(v, x);
             }));
  r.Register("ln", {TypeId::kDouble}, Type::Double(), Unary<double, double>([](double x) {
               return Logarithm(x, [](double v) { return std::log(v); });
             }));
  for (const char* name : {"log", "log10"}) {
    r.Register(name, {TypeId::kDouble}, Type::Double(), Unary<double, double>([](double x) {
                 return Logarithm(x, [](double v) { return std::log10(v); });
               }));
  }
  r.Register("pi", {}, Type::Double(), [](const ScalarArgs&, Rows rows, Vector* out) {
    double* o = out->mutable_data<double>();
    ForEachRow(rows, [&](uint32_t i) { o[i] = M_PI; });
  });
}

}  // namespace forktail
