// Mathematical functions against PostgreSQL 15's results (psql).
#include "tests/olap/expression/functions_testing.h"

namespace forktail {
namespace {

using Math = FunctionsSql;

TEST_F(Math, AbsSignCeilFloor) {
  EXPECT_EQ(Eval("abs(-5), abs(-5.25), abs(-2.5::float8), abs(NULL::int)"), "5|5.25|2.5|NULL");
  EXPECT_EQ(TypeOf("abs(-5::smallint)"), "smallint");
  EXPECT_EQ(TypeOf("abs(2)"), "integer");
  EXPECT_EQ(TypeOf("abs(n) FROM t"), "numeric(10,2)");
  EXPECT_EQ(TypeOf("abs('5')"), "double precision");  // unknown -> double precision, as PostgreSQL
  EXPECT_EQ(Eval("sign(-3.5), sign(0), sign(2::float8)"), "-1|0|1");
  EXPECT_EQ(Eval("ceil(1.2), ceil(-1.2), ceiling(1.2), floor(-1.2), floor(2.5::float8)"),
            "2|-1|2|-2|2");
  EXPECT_EQ(Query("SELECT abs(i), abs(n), abs(f), ceil(n), floor(n) FROM t ORDER BY id"),
            "5|12.35|2.5|13|12;NULL|NULL|NULL|NULL|NULL;7|0.50|1.5|0|-1;");
}

TEST_F(Math, RoundTrunc) {
  EXPECT_EQ(Eval("round(12.345, 2), round(-12.345, 1), round(1234.5, -2), round(2.5), "
                 "round(-2.5)"),
            "12.35|-12.3|1200|3|-3");
  // double precision rounds half to even (rint), numeric half away from zero.
  EXPECT_EQ(Eval("round(2.5::float8), round(3.5::float8)"), "2|4");
  EXPECT_EQ(TypeOf("round(5)"), "double precision");
  EXPECT_EQ(TypeOf("round(12.345, 2)"), "numeric(5,2)");
  EXPECT_EQ(Eval("trunc(12.349, 2), trunc(-1.5), trunc(-1.5::float8)"), "12.34|-1|-1");
  EXPECT_EQ(Query("SELECT round(n, 1), round(n), trunc(n, 1), round(n, i) FROM t ORDER BY id"),
            "12.4|12|12.3|12.35;NULL|NULL|NULL|NULL;-0.5|-1|-0.5|0.00;");
  EXPECT_EQ(Eval("round(NULL::numeric, 2), round(1.5, NULL)"), "NULL|NULL");
}

TEST_F(Math, PowerRootsLogs) {
  EXPECT_EQ(Eval("power(2, 10), pow(2.0, 3), sqrt(16), exp(0), ln(1), log(1000), log10(100)"),
            "1024|8|4|1|0|3|2");
  EXPECT_EQ(TypeOf("sqrt(2)"), "double precision");
  EXPECT_EQ(Eval("mod(7, 3), mod(-7, 3), 7 % 3"), "1|-1|1");
  EXPECT_EQ(TypeOf("mod(7::bigint, 3)"), "bigint");
}

TEST_F(Math, Errors) {
  EXPECT_EQ(Error("SELECT abs(-2147483647 - 1)"), "22003 integer out of range");
  EXPECT_EQ(Error("SELECT sqrt(-1)"), "2201F cannot take square root of a negative number");
  EXPECT_EQ(Error("SELECT ln(0)"), "2201E cannot take logarithm of zero");
  EXPECT_EQ(Error("SELECT log(-1)"), "2201E cannot take logarithm of a negative number");
  EXPECT_EQ(Error("SELECT mod(5, 0)"), "22012 division by zero");
  EXPECT_EQ(Error("SELECT power(0, -1)"), "2201F zero raised to a negative power is undefined");
  EXPECT_EQ(Error("SELECT power(10, 400)"), "22003 value out of range: overflow");
  EXPECT_EQ(Error("SELECT exp(1000)"), "22003 value out of range: overflow");
  EXPECT_EQ(Error("SELECT abs(true)"), "42883 function abs(boolean) does not exist");
  EXPECT_EQ(Error("SELECT abs(s) FROM t"), "42883 function abs(text) does not exist");
  EXPECT_EQ(Error("SELECT round(1.5, 2, 3)"),
            "42883 function round(numeric, integer, integer) does not exist");
  // Errors only for rows evaluated.
  EXPECT_EQ(Query("SELECT CASE WHEN f > 0 THEN sqrt(f) END FROM t ORDER BY id"),
            "1.5811388300841898;NULL;NULL;");
}

}  // namespace
}  // namespace forktail
