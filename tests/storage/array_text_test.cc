// storage/value/array_text.h: array_in (canonical form, errors) and the
// order of arrays, with PostgreSQL 15's answers.
#include "storage/value/array_text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "storage/error.h"
#include "storage/value/value.h"

namespace forktail {
namespace {

std::string In(std::string_view text, const Type& element) {
  try {
    return CanonicalArrayText(text, element);
  } catch (const DbError& e) {
    return std::string(e.sqlstate()) + " " + e.what();
  }
}

TEST(ArrayText, CanonicalFormIsArrayOut) {
  EXPECT_EQ(In(" { 1 , 2 } ", Type::Integer()), "{1,2}");
  EXPECT_EQ(In("{ 01,+2,-3}", Type::BigInt()), "{1,2,-3}");
  EXPECT_EQ(In(R"({ "a b" , c d ,NULL, "NULL", "" })", Type::Text()),
            R"({"a b","c d",NULL,"NULL",""})");
  EXPECT_EQ(In(R"({a\,b})", Type::Text()), R"({"a,b"})");
  EXPECT_EQ(In(R"({"a\"b\\c"})", Type::Text()), R"({"a\"b\\c"})");
  EXPECT_EQ(In("{ab  }", Type::Text()), "{ab}");
  EXPECT_EQ(In("{\"a\" }", Type::Text()), "{a}");
  EXPECT_EQ(In("{}", Type::Integer()), "{}");
  EXPECT_EQ(In("{ }", Type::Integer()), "{}");
  EXPECT_EQ(In("{null,NuLl}", Type::Integer()), "{NULL,NULL}");
  // numeric elements keep their own scale, as numeric_in does
  EXPECT_EQ(In("{1.50, 2}", Type::Decimal(18, 4)), "{1.50,2}");
  EXPECT_EQ(In("{1.5,2.25e1}", Type::Double()), "{1.5,22.5}");
  EXPECT_EQ(In("{true,f}", Type::Boolean()), "{t,f}");
  EXPECT_EQ(In("{2024-1-2}", Type::Date()), "{2024-01-02}");
}

TEST(ArrayText, MalformedInputIsRefused) {
  for (const char* bad : {"{1,}", "{,1}", "{1} x", "1,2", "", "{", "{1", R"({"a"b})", R"({a"b"c})",
                          R"({"a)", "{a\\"}) {
    EXPECT_EQ(In(bad, Type::Text()), std::string("22P02 malformed array literal: \"") + bad + "\"")
        << bad;
  }
  EXPECT_EQ(In("{1 2}", Type::Integer()), "22P02 invalid input syntax for type integer: \"1 2\"");
  EXPECT_EQ(In("{x}", Type::Integer()), "22P02 invalid input syntax for type integer: \"x\"");
  // What Forktail does not hold: more than one dimension, explicit bounds.
  EXPECT_EQ(In("{{1}}", Type::Integer()).substr(0, 5), "0A000");
  EXPECT_EQ(In("[1:2]={1,2}", Type::Integer()).substr(0, 5), "0A000");
}

TEST(ArrayText, OrderIsElementByElement) {
  const Type i = Type::Integer();
  EXPECT_GT(CompareArrayText("{10}", "{9}", i), 0);  // not the text's order
  EXPECT_LT(CompareArrayText("{1,2}", "{1,2,3}", i), 0);
  EXPECT_GT(CompareArrayText("{1,NULL}", "{1,2}", i), 0);  // NULL above all others
  EXPECT_EQ(CompareArrayText("{1,NULL}", "{1,NULL}", i), 0);
  EXPECT_LT(CompareArrayText("{}", "{NULL}", i), 0);
  EXPECT_EQ(CompareArrayText("{1.0}", "{1}", Type::Decimal(18, 4)), 0);
  EXPECT_LT(CompareArrayText("{-1.5}", "{-1.25}", Type::Decimal(18, 4)), 0);
  EXPECT_LT(CompareArrayText("{2024-01-02}", "{2024-10-01}", Type::Date()), 0);
  EXPECT_LT(CompareArrayText(R"({"a b"})", "{ab}", Type::Text()), 0);

  // A sort by CompareArrayText agrees with PostgreSQL's ORDER BY.
  std::vector<std::string> arrays = {"{9}", "{10}", "{1,2}", "{1,NULL}", "{}", "{-3}", "{1}"};
  std::sort(arrays.begin(), arrays.end(), [&](const std::string& a, const std::string& b) {
    return CompareArrayText(a, b, i) < 0;
  });
  EXPECT_EQ(arrays,
            (std::vector<std::string>{"{}", "{-3}", "{1}", "{1,2}", "{1,NULL}", "{9}", "{10}"}));
}

TEST(ArrayText, ValuesOfArrayTypesAreCanonicalAndOrdered) {
  const Type array = Type::ArrayText(Type::Integer());
  EXPECT_EQ(Value::Parse(array, "{ 3, 01 }").GetString(), "{3,1}");
  EXPECT_GT(Value::Parse(array, "{10}").Compare(Value::Parse(array, "{9}")), 0);
  // Text and an array of another element type cast through array_in.
  EXPECT_EQ(Value::Text("{1, 2}").CastTo(array).GetString(), "{1,2}");
  EXPECT_EQ(Value::String(Type::ArrayText(Type::Text()), "{1,2}").CastTo(array).GetString(),
            "{1,2}");
  EXPECT_THROW(Value::Text("{a}").CastTo(array), DbError);
  EXPECT_EQ(array.ToString(), "integer[]");
  EXPECT_EQ(Type::ArrayText(Type::Decimal(18, 4)).ToString(), "numeric[]");
}

}  // namespace
}  // namespace forktail
