#include "storage/value/types.h"

#include <gtest/gtest.h>

#include "storage/error.h"

namespace forktail {
namespace {

TEST(TypesTest, PostgresSpelling) {
  EXPECT_EQ(Type::Boolean().ToString(), "boolean");
  EXPECT_EQ(Type::SmallInt().ToString(), "smallint");
  EXPECT_EQ(Type::Integer().ToString(), "integer");
  EXPECT_EQ(Type::BigInt().ToString(), "bigint");
  EXPECT_EQ(Type::Double().ToString(), "double precision");
  EXPECT_EQ(Type::Decimal(15, 2).ToString(), "numeric(15,2)");
  EXPECT_EQ(Type::Char(10).ToString(), "character(10)");
  EXPECT_EQ(Type::Varchar(25).ToString(), "character varying(25)");
  EXPECT_EQ(Type::Varchar().ToString(), "character varying");
  EXPECT_EQ(Type::Text().ToString(), "text");
  EXPECT_EQ(Type::Date().ToString(), "date");
  EXPECT_EQ(Type::Timestamp().ToString(), "timestamp without time zone");
}

TEST(TypesTest, StripeWidths) {
  EXPECT_EQ(Type::Boolean().StripeWidth(), 1u);
  EXPECT_EQ(Type::SmallInt().StripeWidth(), 2u);
  EXPECT_EQ(Type::Integer().StripeWidth(), 4u);
  EXPECT_EQ(Type::Date().StripeWidth(), 4u);
  EXPECT_EQ(Type::BigInt().StripeWidth(), 8u);
  EXPECT_EQ(Type::Decimal(18, 2).StripeWidth(), 8u);
  EXPECT_EQ(Type::Timestamp().StripeWidth(), 8u);
  EXPECT_EQ(Type::Text().StripeWidth(), 8u);
}

TEST(TypesTest, DecimalBounds) {
  EXPECT_NO_THROW(Type::Decimal(1, 0));
  EXPECT_NO_THROW(Type::Decimal(18, 18));
  EXPECT_NO_THROW(Type::Decimal(38, 38));  // wide: __int128
  EXPECT_FALSE(Type::Decimal(18, 2).IsWideDecimal());
  EXPECT_TRUE(Type::Decimal(19, 2).IsWideDecimal());
  EXPECT_EQ(Type::Decimal(19, 2).StripeWidth(), 16u);
  for (auto [p, s] : {std::pair{0, 0}, {39, 0}, {5, 6}, {5, -1}}) {
    try {
      Type::Decimal(p, s);
      ADD_FAILURE() << p << "," << s;
    } catch (const DbError& e) {
      EXPECT_STREQ(e.sqlstate(), sqlstate::kInvalidParameterValue);
    }
  }
}

TEST(TypesTest, Predicates) {
  EXPECT_TRUE(Type::Char(3).IsString());
  EXPECT_TRUE(Type::Text().IsString());
  EXPECT_FALSE(Type::Date().IsString());
  EXPECT_TRUE(Type::SmallInt().IsInteger());
  EXPECT_FALSE(Type::Decimal(5, 0).IsInteger());
  EXPECT_TRUE(Type::Decimal(5, 0).IsNumeric());
  EXPECT_TRUE(Type::Double().IsNumeric());
  EXPECT_FALSE(Type::Boolean().IsNumeric());
  EXPECT_EQ(Type::Decimal(5, 2), Type::Decimal(5, 2));
  EXPECT_NE(Type::Decimal(5, 2), Type::Decimal(5, 1));
}

}  // namespace
}  // namespace forktail
