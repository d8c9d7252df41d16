// Wide (19..38 digit) DECIMAL kernels: result types, arithmetic against a
// reference computed with __int128 (where the exact value fits) or text
// (where it does not), text/double conversions and the 22003 edges.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "storage/error.h"
#include "storage/value/decimal.h"
#include "storage/value/value.h"

namespace forktail::decimal {
namespace {

constexpr uint64_t kSeed = 20261122;

__int128 P(int n) { return Pow10Wide(n); }

// 38 nines.
const __int128 kMax38 = P(38) - 1;

template <typename Fn>
bool Overflowed(Fn fn) {
  try {
    fn();
    return false;
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kNumericValueOutOfRange);
    return true;
  }
}

TEST(DecimalWideTest, ResultTypesFollowDuckDb) {
  // Narrow operands stay narrow (DuckDB caps at 18 and checks per row).
  EXPECT_EQ(AddResultType(Type::Decimal(18, 2), Type::Decimal(18, 2)), Type::Decimal(18, 2));
  EXPECT_EQ(AddResultType(Type::Decimal(15, 2), Type::Decimal(15, 2)), Type::Decimal(16, 2));
  EXPECT_EQ(MulResultType(Type::Decimal(9, 2), Type::Decimal(9, 2)), Type::Decimal(18, 4));
  // A wide operand: up to 38.
  EXPECT_EQ(AddResultType(Type::Decimal(20, 2), Type::Decimal(20, 2)), Type::Decimal(21, 2));
  EXPECT_EQ(AddResultType(Type::Decimal(38, 2), Type::Decimal(38, 2)), Type::Decimal(38, 2));
  EXPECT_EQ(AddResultType(Type::Decimal(18, 2), Type::Decimal(19, 0)), Type::Decimal(22, 2));
  EXPECT_EQ(MulResultType(Type::Decimal(19, 2), Type::Decimal(9, 2)), Type::Decimal(28, 4));
  EXPECT_EQ(MulResultType(Type::Decimal(20, 2), Type::Decimal(10, 0)), Type::Decimal(30, 2));
  EXPECT_EQ(MulResultType(Type::Decimal(38, 2), Type::Decimal(11, 10)), Type::Decimal(38, 12));
  // Scale past 38 is cut to 38 (DuckDB raises an error instead).
  EXPECT_EQ(MulResultType(Type::Decimal(30, 20), Type::Decimal(30, 20)), Type::Decimal(38, 38));
  EXPECT_EQ(ModResultType(Type::Decimal(30, 2), Type::Decimal(15, 2)), Type::Decimal(15, 2));
  // Division with a wide operand keeps >= 6 fractional digits.
  EXPECT_EQ(DivResultType(Type::Decimal(38, 4), Type::Decimal(38, 4)), Type::Decimal(38, 6));
  EXPECT_EQ(DivResultType(Type::Decimal(20, 2), Type::Decimal(5, 2)), Type::Decimal(38, 6));
  EXPECT_EQ(DivResultType(Type::Decimal(20, 10), Type::Decimal(5, 2)), Type::Decimal(38, 10));
}

TEST(DecimalWideTest, ParseAndFormat38Digits) {
  std::string nines(38, '9');
  EXPECT_EQ(ParseWide(nines, 38, 0), kMax38);
  EXPECT_EQ(FormatWide(kMax38, 0), nines);
  EXPECT_EQ(FormatWide(-kMax38, 2), "-" + nines.substr(0, 36) + ".99");
  EXPECT_EQ(ParseWide("-1234567890123456789012.345", 30, 3),
            -(P(18) * 1234 + 567890123456789012) * 1000 - 345);
  EXPECT_EQ(FormatWide(ParseWide("0.00000000000000000000000000000000000001", 38, 38), 38),
            "0.00000000000000000000000000000000000001");
  EXPECT_EQ(ParseWide("12345678901234567890.125", 25, 2),
            ParseWide("12345678901234567890.13", 25, 2));
  EXPECT_EQ(ParseWide("1e30", 31, 0), P(30));
  // 39 digits do not fit any DECIMAL.
  EXPECT_TRUE(Overflowed([&] { ParseWide(nines + "9", 38, 0); }));
  EXPECT_TRUE(Overflowed([&] { ParseWide("99999999999999999999.995", 22, 2); }));
  try {
    ParseWide("12345678901234567890", 19, 0);
    ADD_FAILURE();
  } catch (const DbError& e) {
    EXPECT_STREQ(e.what(),
                 "numeric field overflow: a field with precision 19, scale 0 must round to an "
                 "absolute value less than 10^19");
  }
}

TEST(DecimalWideTest, Examples) {
  // Q01's shape at SF10: a 19-digit sum at scale 6 stays exact.
  __int128 big = ParseWide("1123456789012.345678", 38, 6);
  EXPECT_EQ(AddWide(big, 6, big, 6, 6, 38), 2 * big);
  EXPECT_EQ(FormatWide(AddWide(big, 6, 1, 0, 6, 38), 6), "1123456789013.345678");
  // Q11's shape: sum(DECIMAL(38,2)) * 0.0000100000.
  __int128 sum = ParseWide("8102913720.99", 38, 2);
  EXPECT_EQ(FormatWide(MulWide(sum, 2, 100000, 10, 12, 38), 12), "81029.137209900000");
  EXPECT_EQ(DivWide(1, 0, 3, 0, 6, 38), 333333);
  EXPECT_EQ(DivWide(-2, 0, 3, 0, 6, 38), -666667);
  EXPECT_EQ(DivWide(kMax38, 0, 1, 0, 0, 38), kMax38);
  EXPECT_EQ(ModWide(P(30) + 7, 0, 10, 0, 0, 38), 7);
  EXPECT_EQ(ModWide(-(P(30) + 7), 0, 10, 0, 0, 38), -7);
  EXPECT_TRUE(Overflowed([&] { AddWide(kMax38, 0, 1, 0, 0, 38); }));
  EXPECT_TRUE(Overflowed([&] { MulWide(P(20), 0, P(19), 0, 0, 38); }));
  EXPECT_TRUE(Overflowed([&] { DivWide(kMax38, 0, 1, 0, 1, 38); }));
  EXPECT_TRUE(Overflowed([&] { AddWide(P(20), 0, 0, 0, 0, 20); }));
  try {
    DivWide(1, 0, 0, 0, 6, 38);
    ADD_FAILURE();
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kDivisionByZero);
  }
}

TEST(DecimalWideTest, MulDivRoundThrough256Bits) {
  // (10^37 * 10^20) / 10^20 needs a 57-digit intermediate.
  EXPECT_EQ(MulDivRound(P(37), P(20), P(20)), P(37));
  EXPECT_EQ(MulDivRound(-P(37), P(20), P(20)), -P(37));
  EXPECT_EQ(MulDivRound(kMax38, kMax38, kMax38), kMax38);
  EXPECT_EQ(MulDivRound(kMax38, 3, 7), kMax38 / 7 * 3 + ((kMax38 % 7) * 3 + 3) / 7);
  // Half away from zero.
  EXPECT_EQ(MulDivRound(5, 1, 10), 1);
  EXPECT_EQ(MulDivRound(-5, 1, 10), -1);
  EXPECT_EQ(MulDivRound(P(30) * 5 + 4, P(10), P(11)), P(29) * 5);
  EXPECT_TRUE(Overflowed([&] { MulDivRound(kMax38, kMax38, 1); }));
}

TEST(DecimalWideTest, RandomAgainstReference) {
  std::mt19937_64 rng(kSeed);
  SCOPED_TRACE(testing::Message() << "seed " << kSeed);
  auto random_wide = [&](int digits) {
    __int128 v = 0;
    for (int i = 0; i < digits; ++i) v = v * 10 + static_cast<int>(rng() % 10);
    return rng() % 2 ? -v : v;
  };
  for (int iter = 0; iter < 20000; ++iter) {
    int da = 1 + static_cast<int>(rng() % 37), db = 1 + static_cast<int>(rng() % 37);
    __int128 a = random_wide(da), b = random_wide(db);
    int sa = static_cast<int>(rng() % (da + 1)), sb = static_cast<int>(rng() % (db + 1));
    SCOPED_TRACE(testing::Message()
                 << "iter " << iter << " a=" << FormatWide(a, sa) << " b=" << FormatWide(b, sb));
    // Add: exact in __int128 when both align at the larger scale under 38 digits.
    int rs = std::max(sa, sb);
    if (da + rs - sa <= 37 && db + rs - sb <= 37) {
      __int128 want = a * P(rs - sa) + b * P(rs - sb);
      EXPECT_EQ(AddWide(a, sa, b, sb, rs, 38), want);
      EXPECT_EQ(SubWide(a, sa, b, sb, rs, 38), a * P(rs - sa) - b * P(rs - sb));
    }
    // Mul: against long double (relative 1e-17) or exact when the product fits.
    if (da + db <= 38) {
      EXPECT_EQ(MulWide(a, sa, b, sb, sa + sb, 38), a * b);
    }
    if (b != 0) {
      // Div at scale 6 past the dividend's: compare with long double.
      int qs = std::max(6, std::max(sa, sb));
      long double q =
          static_cast<long double>(a) / static_cast<long double>(b) * std::pow(10.0L, qs - sa + sb);
      if (std::fabs(q) < 1e36L) {
        __int128 got = DivWide(a, sa, b, sb, qs, 38);
        EXPECT_LE(std::fabs(static_cast<long double>(got) - q), 1.0L + std::fabs(q) * 1e-17L);
      }
    }
    // Text round trip.
    EXPECT_EQ(ParseWide(FormatWide(a, sa), 38, sa), a);
    // Doubles: correctly rounded against the text form.
    EXPECT_EQ(ToDoubleWide(a, sa), std::stod(FormatWide(a, sa)));
  }
}

TEST(DecimalWideTest, ValueHoldsWideDecimals) {
  Value w = Value::Parse(Type::Decimal(30, 2), "1234567890123456789012.34");
  EXPECT_TRUE(w.type().IsWideDecimal());
  EXPECT_EQ(w.ToString(), "1234567890123456789012.34");
  EXPECT_EQ(w.type().StripeWidth(), 16u);
  EXPECT_EQ(Type::Decimal(18, 2).StripeWidth(), 8u);
  // Compare and hash alike with equal narrow, integer and double values.
  Value wide_three = Value::Decimal(300, 25, 2);
  EXPECT_EQ(wide_three.Compare(Value::Integer(3)), 0);
  EXPECT_EQ(wide_three.Compare(Value::Decimal(3000, 10, 3)), 0);
  EXPECT_EQ(wide_three.Compare(Value::Double(3.0)), 0);
  EXPECT_EQ(wide_three.Hash(), Value::Integer(3).Hash());
  EXPECT_EQ(wide_three.Hash(), Value::Decimal(3000, 10, 3).Hash());
  Value wide_half = Value::Decimal(50, 25, 2);
  EXPECT_EQ(wide_half.Hash(), Value::Double(0.5).Hash());
  EXPECT_EQ(wide_half.Hash(), Value::Decimal(5, 3, 1).Hash());
  EXPECT_GT(Value::Decimal(P(37), 38, 0).Compare(Value::Decimal(P(37) - 1, 38, 38)), 0);
  EXPECT_GT(w.Compare(Value::BigInt(INT64_MAX)), 0);
  EXPECT_LT(Value::Decimal(-P(37), 38, 0).Compare(Value::BigInt(INT64_MIN)), 0);
  // Casts.
  EXPECT_EQ(w.CastTo(Type::Double()).GetDouble(), 1234567890123456789012.34);
  EXPECT_EQ(w.CastTo(Type::Text()).GetString(), "1234567890123456789012.34");
  EXPECT_EQ(w.CastTo(Type::Decimal(38, 5)).ToString(), "1234567890123456789012.34000");
  EXPECT_EQ(w.CastTo(Type::Decimal(23, 0)).ToString(), "1234567890123456789012");
  EXPECT_EQ(Value::BigInt(INT64_MAX).CastTo(Type::Decimal(21, 2)).ToString(),
            "9223372036854775807.00");
  EXPECT_EQ(Value::Decimal(-1234567, 20, 2).CastTo(Type::BigInt()).GetInt(), -12346);
  EXPECT_EQ(Value::Decimal(1234567, 20, 2).CastTo(Type::Decimal(10, 1)).ToString(), "12345.7");
  // Dropping all 38 fractional digits divides by 10^38 and rounds: twice the
  // remainder passed INT128_MAX (found by fuzz/bind_parameter).
  EXPECT_EQ(Value::Decimal(kMax38, 38, 38).CastTo(Type::Decimal(18, 0)).ToString(), "1");
  EXPECT_EQ(Value::Decimal(-kMax38, 38, 38).CastTo(Type::Decimal(18, 0)).ToString(), "-1");
  EXPECT_EQ(Value::Decimal(P(38) / 2 - 1, 38, 38).CastTo(Type::Decimal(18, 0)).ToString(), "0");
  EXPECT_EQ(Value::Decimal(P(38) / 2, 38, 38).CastTo(Type::Decimal(18, 0)).ToString(), "1");
  EXPECT_EQ(DivRound(kMax38, P(38)), 1);
  EXPECT_EQ(Value::Double(1e30).CastTo(Type::Decimal(38, 2)).ToString(),
            "1000000000000000000000000000000.00");
  try {
    w.CastTo(Type::BigInt());
    ADD_FAILURE();
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kNumericValueOutOfRange);
    EXPECT_STREQ(e.what(), "bigint out of range");
  }
  try {
    w.CastTo(Type::Decimal(18, 2));
    ADD_FAILURE();
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kNumericValueOutOfRange);
  }
  try {
    Value::Decimal(P(37), 38, 0).CastTo(Type::Decimal(38, 2));
    ADD_FAILURE();
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kNumericValueOutOfRange);
  }
}

}  // namespace
}  // namespace forktail::decimal
