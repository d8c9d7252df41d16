// Arithmetic and constant kernels.
#include "olap/common/kernel_util.h"
#include "olap/expression/kernels.h"
#include "storage/value/decimal.h"

namespace forktail {
namespace {

template <typename T>
void IntArith(ArithOp op, const Vector& l, const Vector& r, Rows rows, Vector* out) {
  const T* a = l.data<T>();
  const T* b = r.data<T>();
  T* o = out->mutable_data<T>();
  const uint64_t* nulls = out->nulls();
  auto body = [&](auto f) {
    if (nulls == nullptr) {
      ForEachRow(rows, [&](uint32_t i) { o[i] = f(a[i], b[i]); });
    } else {
      ForEachRow(rows, [&](uint32_t i) {
        if (!NullAt(nulls, i)) o[i] = f(a[i], b[i]);
      });
    }
  };
  const Type& t = out->type();
  switch (op) {
    case ArithOp::kAdd:
      body([&](T x, T y) {
        T z;
        if (__builtin_add_overflow(x, y, &z)) OutOfRange(t);
        return z;
      });
      break;
    case ArithOp::kSub:
      body([&](T x, T y) {
        T z;
        if (__builtin_sub_overflow(x, y, &z)) OutOfRange(t);
        return z;
      });
      break;
    case ArithOp::kMul:
      body([&](T x, T y) {
        T z;
        if (__builtin_mul_overflow(x, y, &z)) OutOfRange(t);
        return z;
      });
      break;
    case ArithOp::kDiv:
      body([&](T x, T y) -> T {
        if (y == 0) DivisionByZero();
        if (y == -1) {
          if (x == std::numeric_limits<T>::min()) OutOfRange(t);
          return static_cast<T>(-x);
        }
        return static_cast<T>(x / y);
      });
      break;
    case ArithOp::kMod:
      body([&](T x, T y) -> T {
        if (y == 0) DivisionByZero();
        if (y == -1) return 0;
        return static_cast<T>(x % y);
      });
      break;
  }
}

void DoubleArith(ArithOp op, const Vector& l, const Vector& r, Rows rows, Vector* out) {
  const double* a = l.data<double>();
  const double* b = r.data<double>();
  double* o = out->mutable_data<double>();
  const uint64_t* nulls = out->nulls();
  switch (op) {
    case ArithOp::kAdd:
      ForEachRow(rows, [&](uint32_t i) { o[i] = a[i] + b[i]; });
      break;
    case ArithOp::kSub:
      ForEachRow(rows, [&](uint32_t i) { o[i] = a[i] - b[i]; });
      break;
    case ArithOp::kMul:
      ForEachRow(rows, [&](uint32_t i) { o[i] = a[i] * b[i]; });
      break;
    case ArithOp::kDiv:
      ForEachRow(rows, [&](uint32_t i) {
        if (NullAt(nulls, i)) return;
        if (b[i] == 0) DivisionByZero();
        o[i] = a[i] / b[i];
      });
      break;
    case ArithOp::kMod:
      abort();  // rejected at bind time
  }
}

void DecimalArith(ArithOp op, const Vector& l, const Vector& r, Rows rows, Vector* out) {
  const int64_t* a = l.data<int64_t>();
  const int64_t* b = r.data<int64_t>();
  int64_t* o = out->mutable_data<int64_t>();
  const uint64_t* nulls = out->nulls();
  const int s1 = l.type().scale, s2 = r.type().scale, so = out->type().scale;
  // Lambdas, not function pointers, so that the scale factors are hoisted
  // out of the loop and the kernels inline (TPC-H Q01's three products).
  auto body = [&](auto f) {
    if (nulls == nullptr) {
      ForEachRow(rows, [&](uint32_t i) { o[i] = f(a[i], b[i]); });
    } else {
      ForEachRow(rows, [&](uint32_t i) {
        if (!NullAt(nulls, i)) o[i] = f(a[i], b[i]);
      });
    }
  };
  switch (op) {
    case ArithOp::kAdd:
    case ArithOp::kSub: {
      // In int64 while no step overflows it; past that (a rescaled operand
      // beyond int64 that the other may bring back) in __int128, exactly.
      const int64_t m1 = decimal::kPow10[so - s1], m2 = decimal::kPow10[so - s2];
      const bool sub = op == ArithOp::kSub;
      body([&](int64_t x, int64_t y) {
        int64_t xs, ys, z;
        if (__builtin_mul_overflow(x, m1, &xs) || __builtin_mul_overflow(y, m2, &ys) ||
            (sub ? __builtin_sub_overflow(xs, ys, &z) : __builtin_add_overflow(xs, ys, &z)))
            [[unlikely]] {
          return sub ? decimal::Sub(x, s1, y, s2, so) : decimal::Add(x, s1, y, s2, so);
        }
        if (z > decimal::kMaxUnscaled || z < -decimal::kMaxUnscaled) [[unlikely]] {
          decimal::ThrowOverflow();
        }
        return z;
      });
      break;
    }
    case ArithOp::kMul:
      if (s1 + s2 == so) {  // no rounding: the common case
        body([](int64_t x, int64_t y) {
          int64_t z;
          if (__builtin_mul_overflow(x, y, &z) || z > decimal::kMaxUnscaled ||
              z < -decimal::kMaxUnscaled) [[unlikely]] {
            decimal::ThrowOverflow();
          }
          return z;
        });
      } else {
        body([&](int64_t x, int64_t y) { return decimal::Mul(x, s1, y, s2, so); });
      }
      break;
    case ArithOp::kDiv:
      body([&](int64_t x, int64_t y) { return decimal::Div(x, s1, y, s2, so); });
      break;
    case ArithOp::kMod:
      body([&](int64_t x, int64_t y) { return decimal::Mod(x, s1, y, s2, so); });
      break;
  }
}

// Some operand or the result is a wide DECIMAL: every value goes through
// __int128 and the result is checked against its precision.
template <typename A, typename B, typename O>
void WideDecimalArith(ArithOp op, const Vector& l, const Vector& r, Rows rows, Vector* out) {
  const A* a = l.data<A>();
  const B* b = r.data<B>();
  O* o = out->mutable_data<O>();
  const uint64_t* nulls = out->nulls();
  const int s1 = l.type().scale, s2 = r.type().scale, so = out->type().scale;
  const int po = out->type().precision;
  auto body = [&](auto f) {
    ForEachRow(rows, [&](uint32_t i) {
      if (!NullAt(nulls, i)) o[i] = static_cast<O>(f(a[i], s1, b[i], s2, so, po));
    });
  };
  switch (op) {
    case ArithOp::kAdd:
      body(decimal::AddWide);
      break;
    case ArithOp::kSub:
      body(decimal::SubWide);
      break;
    case ArithOp::kMul:
      body(decimal::MulWide);
      break;
    case ArithOp::kDiv:
      body(decimal::DivWide);
      break;
    case ArithOp::kMod:
      body(decimal::ModWide);
      break;
  }
}

template <typename A, typename B>
void WideDecimalArithOut(ArithOp op, const Vector& l, const Vector& r, Rows rows, Vector* out) {
  if (out->type().IsWideDecimal()) {
    WideDecimalArith<A, B, __int128>(op, l, r, rows, out);
  } else {
    WideDecimalArith<A, B, int64_t>(op, l, r, rows, out);
  }
}

template <typename A>
void WideDecimalArithRight(ArithOp op, const Vector& l, const Vector& r, Rows rows, Vector* out) {
  if (r.type().IsWideDecimal()) {
    WideDecimalArithOut<A, __int128>(op, l, r, rows, out);
  } else {
    WideDecimalArithOut<A, int64_t>(op, l, r, rows, out);
  }
}

}  // namespace

void ArithKernel(ArithOp op, const Vector& l, const Vector& r, Rows rows, Vector* out) {
  UnionNulls(l, &r, rows, out);
  switch (out->type().id) {
    case TypeId::kSmallInt:
      IntArith<int16_t>(op, l, r, rows, out);
      break;
    case TypeId::kInteger:
      IntArith<int32_t>(op, l, r, rows, out);
      break;
    case TypeId::kBigInt:
      IntArith<int64_t>(op, l, r, rows, out);
      break;
    case TypeId::kDouble:
      DoubleArith(op, l, r, rows, out);
      break;
    case TypeId::kDecimal:
      if (!out->type().IsWideDecimal() && !l.type().IsWideDecimal() && !r.type().IsWideDecimal()) {
        DecimalArith(op, l, r, rows, out);  // the int64 fast path
      } else if (l.type().IsWideDecimal()) {
        WideDecimalArithRight<__int128>(op, l, r, rows, out);
      } else {
        WideDecimalArithRight<int64_t>(op, l, r, rows, out);
      }
      break;
    default:
      abort();
  }
}

void ConstantKernel(const Value& c, Rows rows, Vector* out) {
  if (c.is_null()) {
    ForEachRow(rows, [&](uint32_t i) { out->SetNull(i, true); });
    return;
  }
  DispatchPhysical(out->physical(), [&]<typename T>() {
    T* o = out->mutable_data<T>();
    T v;
    if constexpr (std::is_same_v<T, std::string_view>) {
      v = out->arena()->Add(c.GetString());
    } else if constexpr (std::is_same_v<T, double>) {
      v = c.GetDouble();
    } else {
      v = static_cast<T>(c.GetWide());
    }
    ForEachRow(rows, [&](uint32_t i) { o[i] = v; });
  });
}

void CopyRows(const Vector& in, Rows rows, Vector* out) {
  DispatchPhysical(in.physical(), [&]<typename T>() {
    const T* a = in.data<T>();
    T* o = out->mutable_data<T>();
    ForEachRow(rows, [&](uint32_t i) { o[i] = a[i]; });
  });
  if (in.nulls() != nullptr || out->nulls() != nullptr) {
    ForEachRow(rows, [&](uint32_t i) { out->SetNull(i, in.IsNull(i)); });
  }
}

void GatherRows(const Vector& in, Rows rows, Vector* out, uint32_t out_offset, StringArena* arena) {
  DispatchPhysical(in.physical(), [&]<typename T>() {
    const T* a = in.data<T>();
    T* o = out->mutable_data<T>() + out_offset;
    if constexpr (std::is_same_v<T, std::string_view>) {
      if (arena != nullptr) {
        for (uint32_t k = 0; k < rows.count; ++k) {
          o[k] = in.IsNull(rows[k]) ? std::string_view() : arena->AddReusing(a[rows[k]]);
        }
        return;
      }
    }
    for (uint32_t k = 0; k < rows.count; ++k) o[k] = a[rows[k]];
  });
  if (in.nulls() != nullptr || out->nulls() != nullptr) {
    for (uint32_t k = 0; k < rows.count; ++k) out->SetNull(out_offset + k, in.IsNull(rows[k]));
  }
}

}  // namespace forktail
