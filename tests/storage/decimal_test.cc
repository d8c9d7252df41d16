#include "storage/value/decimal.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "storage/error.h"

namespace forktail::decimal {
namespace {

constexpr uint64_t kSeed = 20261121;

// Naive reference rounding: drop digits one at a time, then round on the most
// significant dropped digit (which alone decides half away from zero).
__int128 NaiveRound(__int128 v, int drop) {
  bool negative = v < 0;
  __int128 m = negative ? -v : v;
  int last = 0;
  for (int i = 0; i < drop; ++i) {
    last = static_cast<int>(m % 10);
    m /= 10;
  }
  if (drop > 0 && last >= 5) ++m;
  return negative ? -m : m;
}

__int128 NaiveScaleUp(__int128 v, int n) {
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

bool Overflows(__int128 v) { return v > kMaxUnscaled || v < -kMaxUnscaled; }

struct Operand {
  int64_t v;
  Type type;
};

Operand RandomOperand(std::mt19937_64& rng) {
  int p = std::uniform_int_distribution<int>(1, 18)(rng);
  int s = std::uniform_int_distribution<int>(0, p)(rng);
  int64_t limit = kPow10[p] - 1;
  int64_t v;
  switch (rng() % 4) {
    case 0:
      v = limit;
      break;  // edges are where overflow lives
    case 1:
      v = std::uniform_int_distribution<int64_t>(-999, 999)(rng) % (limit + 1);
      break;
    default:
      v = std::uniform_int_distribution<int64_t>(-limit, limit)(rng);
  }
  if (rng() % 2) v = -v;
  return {v, Type::Decimal(p, s)};
}

// Runs `fn`; returns false if it threw 22003 (and checks nothing else threw).
template <typename Fn>
bool RunOp(Fn fn, int64_t* out) {
  try {
    *out = fn();
    return true;
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kNumericValueOutOfRange);
    EXPECT_STREQ(e.what(), "numeric field overflow");
    return false;
  }
}

TEST(DecimalTest, Pow10Table) {
  __int128 p = 1;
  for (int i = 0; i <= 18; ++i, p *= 10) EXPECT_EQ(kPow10[i], static_cast<int64_t>(p));
  EXPECT_EQ(Pow10Wide(36), NaiveScaleUp(1, 36));
}

TEST(DecimalTest, Rescale) {
  EXPECT_EQ(Rescale(1250, 2, 4), 125000);
  EXPECT_EQ(Rescale(1250, 2, 1), 125);
  EXPECT_EQ(Rescale(1255, 2, 1), 126);
  EXPECT_EQ(Rescale(-1255, 2, 1), -126);
  EXPECT_EQ(Rescale(-1254, 2, 1), -125);
  EXPECT_EQ(Rescale(5, 1, 0), 1);
  EXPECT_EQ(Rescale(-5, 1, 0), -1);
  EXPECT_EQ(Rescale(4, 1, 0), 0);
  EXPECT_EQ(Rescale(kMaxUnscaled, 18, 0), 1);
  EXPECT_EQ(Rescale(kMaxUnscaled, 0, 0), kMaxUnscaled);
  int64_t out;
  EXPECT_FALSE(RunOp([] { return Rescale(kMaxUnscaled, 0, 1); }, &out));
  EXPECT_FALSE(RunOp([] { return Rescale(1, 0, 18); }, &out));
  EXPECT_EQ(Rescale(-1, 0, 17), -kPow10[17]);
}

TEST(DecimalTest, ResultTypes) {
  Type a = Type::Decimal(5, 2), b = Type::Decimal(7, 3);
  EXPECT_EQ(AddResultType(a, b), Type::Decimal(8, 3));
  EXPECT_EQ(SubResultType(a, b), Type::Decimal(8, 3));
  EXPECT_EQ(MulResultType(a, b), Type::Decimal(12, 5));
  EXPECT_EQ(DivResultType(a, b), Type::Decimal(18, 6));
  EXPECT_EQ(ModResultType(a, b), Type::Decimal(6, 3));
  EXPECT_EQ(AddResultType(Type::Decimal(18, 0), Type::Decimal(18, 18)), Type::Decimal(18, 18));
  // Narrow operands keep a narrow result unless the scale needs more (DuckDB).
  EXPECT_EQ(MulResultType(Type::Decimal(18, 10), Type::Decimal(18, 10)), Type::Decimal(36, 20));
  EXPECT_EQ(MulResultType(Type::Decimal(15, 2), Type::Decimal(16, 2)), Type::Decimal(18, 4));
  EXPECT_EQ(DivResultType(Type::Decimal(18, 0), Type::Decimal(5, 2)), Type::Decimal(18, 0));
  // Eleven integer digits leave room for only seven fractional ones.
  EXPECT_EQ(DivResultType(Type::Decimal(10, 8), Type::Decimal(10, 9)), Type::Decimal(18, 7));
}

TEST(DecimalTest, Examples) {
  EXPECT_EQ(Add(1250, 2, 5, 1, 2), 1300);     // 12.50 + 0.5
  EXPECT_EQ(Sub(1250, 2, 15, 1, 2), 1100);    // 12.50 - 1.5
  EXPECT_EQ(Mul(1250, 2, 15, 1, 3), 18750);   // 12.50 * 1.5 = 18.750
  EXPECT_EQ(Mul(125, 2, 125, 2, 3), 1563);    // 1.25 * 1.25 = 1.5625 -> 1.563
  EXPECT_EQ(Mul(-125, 2, 125, 2, 3), -1563);  // half away from zero
  EXPECT_EQ(Div(1, 0, 3, 0, 6), 333333);      // 1/3
  EXPECT_EQ(Div(2, 0, 3, 0, 6), 666667);
  EXPECT_EQ(Div(-2, 0, 3, 0, 6), -666667);
  EXPECT_EQ(Div(1000, 2, -4, 1, 6), -25000000);  // 10.00 / -0.4 = -25
  EXPECT_EQ(Mod(1050, 2, 3, 0, 2), 150);         // 10.50 % 3 = 1.50
  EXPECT_EQ(Mod(-1050, 2, 3, 0, 2), -150);       // sign of the dividend
  EXPECT_EQ(Mod(1050, 2, -3, 0, 2), 150);
  try {
    Div(1, 0, 0, 0, 6);
    ADD_FAILURE();
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), "22012");
    EXPECT_STREQ(e.what(), "division by zero");
  }
  try {
    Mod(1, 0, 0, 2, 2);
    ADD_FAILURE();
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), "22012");
  }
  int64_t out;
  EXPECT_FALSE(RunOp([] { return Add(kMaxUnscaled, 0, 1, 0, 0); }, &out));
  EXPECT_FALSE(RunOp([] { return Mul(kPow10[10], 0, kPow10[9], 0, 0); }, &out));
}

TEST(DecimalTest, RandomAgainstNaiveReference) {
  std::mt19937_64 rng(kSeed);
  SCOPED_TRACE(testing::Message() << "seed " << kSeed);
  for (int iter = 0; iter < 20000; ++iter) {
    Operand a = RandomOperand(rng), b = RandomOperand(rng);
    int sa = a.type.scale, sb = b.type.scale;
    SCOPED_TRACE(testing::Message()
                 << "iter " << iter << " a=" << Format(a.v, sa) << " " << a.type.ToString()
                 << " b=" << Format(b.v, sb) << " " << b.type.ToString());
    int64_t got;
    // Add and Sub.
    Type rt = AddResultType(a.type, b.type);
    __int128 ea = NaiveScaleUp(a.v, rt.scale - sa), eb = NaiveScaleUp(b.v, rt.scale - sb);
    for (int op = 0; op < 2; ++op) {
      __int128 want = op == 0 ? ea + eb : ea - eb;
      bool ok = RunOp(
          [&] {
            return op == 0 ? Add(a.v, sa, b.v, sb, rt.scale) : Sub(a.v, sa, b.v, sb, rt.scale);
          },
          &got);
      ASSERT_EQ(ok, !Overflows(want));
      if (ok) {
        ASSERT_EQ(got, static_cast<int64_t>(want));
        ASSERT_TRUE(FitsPrecision(got, rt.precision));
      }
    }
    // Mul.
    rt = MulResultType(a.type, b.type);
    __int128 want = NaiveRound(__int128{a.v} * b.v, sa + sb - rt.scale);
    if (rt.IsWideDecimal()) {  // scale past 18: exact in 128 bits
      ASSERT_EQ(MulWide(a.v, sa, b.v, sb, rt.scale, rt.precision), want);
    } else {
      ASSERT_EQ(RunOp([&] { return Mul(a.v, sa, b.v, sb, rt.scale); }, &got), !Overflows(want));
      if (!Overflows(want)) {
        ASSERT_EQ(got, static_cast<int64_t>(want));
      }
    }
    if (b.v == 0) continue;
    // Div: compared with long double (exact enough for a +-1 ulp window and
    // the overflow boundary far from ties).
    rt = DivResultType(a.type, b.type);
    long double q = (static_cast<long double>(a.v) / b.v) * std::pow(10.0L, rt.scale - sa + sb);
    if (std::fabs(q) < 0.99e18L) {
      ASSERT_TRUE(RunOp([&] { return Div(a.v, sa, b.v, sb, rt.scale); }, &got));
      ASSERT_LE(std::fabs(static_cast<long double>(got) - q), 0.5L + std::fabs(q) * 1e-17L);
    } else if (std::fabs(q) > 1.01e18L) {
      ASSERT_FALSE(RunOp([&] { return Div(a.v, sa, b.v, sb, rt.scale); }, &got));
    }
    // Mod: (a - trunc(a/b)*b) exactly, at the common scale.
    rt = ModResultType(a.type, b.type);
    ea = NaiveScaleUp(a.v, rt.scale - sa);
    eb = NaiveScaleUp(b.v, rt.scale - sb);
    want = ea - (ea / eb) * eb;
    ASSERT_TRUE(RunOp([&] { return Mod(a.v, sa, b.v, sb, rt.scale); }, &got));
    ASSERT_EQ(got, static_cast<int64_t>(want));
    ASSERT_TRUE(FitsPrecision(got, rt.precision));
  }
}

TEST(DecimalTest, DoubleConversions) {
  EXPECT_EQ(ToDouble(1250, 2), 12.5);
  EXPECT_EQ(ToDouble(1, 1), 0.1);
  EXPECT_EQ(ToDouble(-1, 18), -1e-18);
  EXPECT_EQ(ToDouble(kMaxUnscaled, 0), 1e18);
  EXPECT_EQ(ToDouble(123456789012345678, 9), 123456789.012345678);
  EXPECT_EQ(FromDouble(0.1, 5, 3), 100);
  EXPECT_EQ(FromDouble(-2.5, 5, 0), -3);
  EXPECT_EQ(FromDouble(1e-20, 5, 3), 0);
  EXPECT_THROW(FromDouble(1e6, 5, 2), DbError);
  EXPECT_THROW(FromDouble(NAN, 5, 2), DbError);
  std::mt19937_64 rng(kSeed);
  for (int i = 0; i < 2000; ++i) {
    int64_t v = std::uniform_int_distribution<int64_t>(-kPow10[15] + 1, kPow10[15] - 1)(rng);
    int s = static_cast<int>(rng() % 16);
    ASSERT_EQ(FromDouble(ToDouble(v, s), 15, s), v) << "seed " << kSeed << " i " << i;
  }
}

TEST(DecimalTest, ParseAndFormat) {
  EXPECT_EQ(Format(0, 0), "0");
  EXPECT_EQ(Format(0, 2), "0.00");
  EXPECT_EQ(Format(-5, 3), "-0.005");
  EXPECT_EQ(Format(kMaxUnscaled, 18), "0.999999999999999999");
  EXPECT_EQ(Format(-kMaxUnscaled, 0), "-999999999999999999");
  EXPECT_EQ(Parse("-0.005", 3, 3), -5);
  EXPECT_EQ(Parse("1e-1000", 3, 3), 0);
  EXPECT_EQ(Parse("0e1000", 3, 3), 0);
  EXPECT_THROW(Parse("1e1000", 3, 3), DbError);
  std::mt19937_64 rng(kSeed);
  for (int i = 0; i < 2000; ++i) {
    Operand a = RandomOperand(rng);
    ASSERT_EQ(Parse(Format(a.v, a.type.scale), a.type.precision, a.type.scale), a.v)
        << "seed " << kSeed << " i " << i;
  }
}

}  // namespace
}  // namespace forktail::decimal
