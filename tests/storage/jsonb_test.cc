// jsonb over canonical text (storage/value/jsonb.h). Every expected value here
// is PostgreSQL 15's answer to the same input, checked with psql.
#include "storage/value/jsonb.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "storage/error.h"

namespace forktail {
namespace {

using jsonb::Canonicalize;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

// Runs `fn`, expecting a DbError; returns "<sqlstate>: <message>".
template <typename Fn>
std::string ErrorOf(Fn fn) {
  try {
    fn();
  } catch (const DbError& e) {
    return std::string(e.sqlstate()) + ": " + e.what();
  }
  return "no error";
}

std::string SyntaxErrorOf(std::string_view text) {
  return ErrorOf([&] { Canonicalize(text); });
}

TEST(JsonbTest, CanonicalKeyOrderDuplicatesAndWhitespace) {
  EXPECT_EQ(Canonicalize(R"({"b":1,"aa":2,"a":3,"a":4})"), R"({"a": 4, "b": 1, "aa": 2})");
  EXPECT_EQ(Canonicalize("  [1 , 2,{\"x\" :\n\tnull} ]\r\n"), R"([1, 2, {"x": null}])");
  EXPECT_EQ(Canonicalize("{}"), "{}");
  EXPECT_EQ(Canonicalize("[ ]"), "[]");
  EXPECT_EQ(Canonicalize(" true "), "true");
}

TEST(JsonbTest, CanonicalNumbersAreNumericText) {
  EXPECT_EQ(Canonicalize("[1.0, 1.50, 1e2, 1.5e3, 1e-2, -0, 1E+2, 0.000, -1.5e-1, -0.00, 0e5, "
                         "0.0e-3, 123e-5, 100e-2, 1.23e1, -0e-0]"),
            "[1.0, 1.50, 100, 1500, 0.01, 0, 100, 0.000, -0.15, 0.00, 0, 0.0000, 0.00123, 1.00, "
            "12.3, 0]");
  EXPECT_EQ(Canonicalize("1e131071").size(), 131072u);
  EXPECT_EQ(Canonicalize("1e-16383").size(), 16385u);
  EXPECT_EQ(Canonicalize("0e999999"), "0");
  EXPECT_EQ(ErrorOf([] { Canonicalize("1e131072"); }), "22003: value overflows numeric format");
  EXPECT_EQ(ErrorOf([] { Canonicalize("1e-16384"); }), "22003: value overflows numeric format");
  EXPECT_EQ(ErrorOf([] { Canonicalize("0e2000000000"); }), "22003: value overflows numeric format");
}

TEST(JsonbTest, StringEscapesAndUnicode) {
  EXPECT_EQ(Canonicalize(R"("a\"\\\/\b\f\n\r\t\u0001\u001f)"
                         "\x7f \xc3\xa9\\u00e9\\ud83d\\ude00\""),
            "\"a\\\"\\\\/\\b\\f\\n\\r\\t\\u0001\\u001f\x7f \xc3\xa9\xc3\xa9\xf0\x9f\x98\x80\"");
  EXPECT_EQ(jsonb::Quote("a\"b\\c\n\x01/\xc3\xa9"), "\"a\\\"b\\\\c\\n\\u0001/\xc3\xa9\"");
  EXPECT_EQ(ErrorOf([] { Canonicalize(R"("\u0000")"); }),
            "22P05: unsupported Unicode escape sequence\nDETAIL:  \\u0000 cannot be converted to "
            "text.");
  EXPECT_EQ(ErrorOf([] { Canonicalize("\"\xff\""); }),
            "22021: invalid byte sequence for encoding \"UTF8\": 0xff");
}

TEST(JsonbTest, SyntaxErrorsCarryPostgresDetail) {
  const std::string p = "22P02: invalid input syntax for type json\nDETAIL:  ";
  EXPECT_EQ(SyntaxErrorOf("01"), p + "Token \"01\" is invalid.");
  EXPECT_EQ(SyntaxErrorOf("1.x"), p + "Token \"1.x\" is invalid.");
  EXPECT_EQ(SyntaxErrorOf("-"), p + "Token \"-\" is invalid.");
  EXPECT_EQ(SyntaxErrorOf("truex"), p + "Token \"truex\" is invalid.");
  EXPECT_EQ(SyntaxErrorOf("NaN"), p + "Token \"NaN\" is invalid.");
  EXPECT_EQ(SyntaxErrorOf("@"), p + "Token \"@\" is invalid.");
  EXPECT_EQ(SyntaxErrorOf("\"abc"), p + "Token \"\"abc\" is invalid.");
  EXPECT_EQ(SyntaxErrorOf(""), p + "The input string ended unexpectedly.");
  EXPECT_EQ(SyntaxErrorOf("[1,2"), p + "The input string ended unexpectedly.");
  EXPECT_EQ(SyntaxErrorOf("[1 2]"), p + "Expected \",\" or \"]\", but found \"2\".");
  EXPECT_EQ(SyntaxErrorOf(R"({"a" 1})"), p + "Expected \":\", but found \"1\".");
  EXPECT_EQ(SyntaxErrorOf("{1:2}"), p + "Expected string or \"}\", but found \"1\".");
  EXPECT_EQ(SyntaxErrorOf(R"({"a":1,})"), p + "Expected string, but found \"}\".");
  EXPECT_EQ(SyntaxErrorOf(R"({"a":1 "b")"), p + "Expected \",\" or \"}\", but found \"\"b\"\".");
  EXPECT_EQ(SyntaxErrorOf("[1,]"), p + "Expected JSON value, but found \"]\".");
  EXPECT_EQ(SyntaxErrorOf("1 2"), p + "Expected end of input, but found \"2\".");
  EXPECT_EQ(SyntaxErrorOf("\"a\nb\""), p + "Character with value 0x0a must be escaped.");
  EXPECT_EQ(SyntaxErrorOf(R"("\x")"), p + "Escape sequence \"\\x\" is invalid.");
  EXPECT_EQ(SyntaxErrorOf(R"("\u12")"), p + "\"\\u\" must be followed by four hexadecimal digits.");
  EXPECT_EQ(SyntaxErrorOf(R"("\ud83d")"),
            p + "Unicode low surrogate must follow a high surrogate.");
  EXPECT_EQ(SyntaxErrorOf(R"("\ude00")"),
            p + "Unicode low surrogate must follow a high surrogate.");
  EXPECT_EQ(SyntaxErrorOf(R"("\ud83d\ud83d")"),
            p + "Unicode high surrogate must not follow a high surrogate.");
}

TEST(JsonbTest, DeepNesting) {
  const std::string deep = std::string(10000, '[') + std::string(10000, ']');
  EXPECT_EQ(Canonicalize(deep), deep);
  EXPECT_EQ(jsonb::Compare(deep, deep), 0);
  EXPECT_TRUE(jsonb::Contains(deep, deep));
  const std::string deeper = std::string(10001, '[') + std::string(10001, ']');
  EXPECT_EQ(ErrorOf([&] { Canonicalize(deeper); }), "54001: stack depth limit exceeded");
  std::string object_in, object_out;
  for (int i = 0; i < 10000; i++) object_in += "{\"a\":", object_out += "{\"a\": ";
  object_in += "1" + std::string(10000, '}');
  object_out += "1" + std::string(10000, '}');
  EXPECT_EQ(Canonicalize(object_in), object_out);
  EXPECT_EQ(jsonb::StripNulls(object_in), object_out);
}

TEST(JsonbTest, FieldElementPathText) {
  EXPECT_EQ(jsonb::Field(R"({"a": {"b": 1}})", "a"), R"({"b": 1})");
  EXPECT_EQ(jsonb::Field(R"({"a": 1})", "b"), std::nullopt);
  EXPECT_EQ(jsonb::Field("[1]", "a"), std::nullopt);
  EXPECT_EQ(jsonb::Field(R"("a")", "a"), std::nullopt);

  EXPECT_EQ(jsonb::Element("[1, 2, 3]", 0), "1");
  EXPECT_EQ(jsonb::Element("[1, 2, 3]", -1), "3");
  EXPECT_EQ(jsonb::Element("[1, 2, 3]", 3), std::nullopt);
  EXPECT_EQ(jsonb::Element("[1, 2, 3]", -4), std::nullopt);
  EXPECT_EQ(jsonb::Element(R"({"a": 1})", 0), std::nullopt);
  EXPECT_EQ(jsonb::Element("1", 0), "1");  // a raw scalar is a one-element array
  EXPECT_EQ(jsonb::Element(R"("x")", -1), R"("x")");
  EXPECT_EQ(jsonb::Element("1", 1), std::nullopt);

  const std::string doc = R"({"a": [1, {"b": 2}]})";
  EXPECT_EQ(jsonb::Path(doc, {"a", "1", "b"}), "2");
  EXPECT_EQ(jsonb::Path(doc, {"a", "-1"}), R"({"b": 2})");
  EXPECT_EQ(jsonb::Path(doc, {"a", " 1"}), R"({"b": 2})");  // strtol syntax
  EXPECT_EQ(jsonb::Path(doc, {"a", "+1"}), R"({"b": 2})");
  EXPECT_EQ(jsonb::Path(doc, {"a", "1 "}), std::nullopt);
  EXPECT_EQ(jsonb::Path(doc, {"a", "x"}), std::nullopt);
  EXPECT_EQ(jsonb::Path(doc, {"a", "-3"}), std::nullopt);
  EXPECT_EQ(jsonb::Path(doc, {"a", "99999999999"}), std::nullopt);
  EXPECT_EQ(jsonb::Path(doc, {"a", "0", "b"}), std::nullopt);
  EXPECT_EQ(jsonb::Path(doc, {}), doc);
  EXPECT_EQ(jsonb::Path("1", {}), "1");
  EXPECT_EQ(jsonb::Path("1", {"0"}), std::nullopt);

  EXPECT_EQ(jsonb::Text(R"("a\"b")"), "a\"b");
  EXPECT_EQ(jsonb::Text("null"), std::nullopt);
  EXPECT_EQ(jsonb::Text("1.50"), "1.50");
  EXPECT_EQ(jsonb::Text(R"({"x": "y"})"), R"({"x": "y"})");
  EXPECT_EQ(jsonb::Text("true"), "true");
}

TEST(JsonbTest, Containment) {
  EXPECT_TRUE(jsonb::Contains(R"({"a":1,"b":{"c":[1,2,3]}})", R"({"b":{"c":[3,1]}})"));
  EXPECT_FALSE(jsonb::Contains("[1,2,[3]]", "[3]"));
  EXPECT_TRUE(jsonb::Contains("[1,2,[3]]", "[[3]]"));
  EXPECT_TRUE(jsonb::Contains("[1,2]", "1"));
  EXPECT_FALSE(jsonb::Contains("1", "[1]"));
  EXPECT_FALSE(jsonb::Contains(R"({"a":[1,2]})", R"({"a":1})"));
  EXPECT_TRUE(jsonb::Contains("[1,1,2]", "[2,2,1,1]"));
  EXPECT_TRUE(jsonb::Contains("[1]", "[1,1]"));
  EXPECT_TRUE(jsonb::Contains("[1.0]", "1"));
  EXPECT_TRUE(jsonb::Contains(R"({"a":1})", "{}"));
  EXPECT_FALSE(jsonb::Contains("{}", "[]"));
  EXPECT_TRUE(jsonb::Contains(R"([{"a":1,"b":2}])", R"([{"a":1}])"));
  EXPECT_FALSE(jsonb::Contains("[[1,2]]", "[1]"));
  EXPECT_FALSE(jsonb::Contains(R"([{"a":1}])", R"({"a":1})"));
  EXPECT_FALSE(jsonb::Contains(R"({"a":[1]})", R"({"a":{}})"));
  EXPECT_TRUE(jsonb::Contains(R"([1,"1"])", R"(["1"])"));
  EXPECT_FALSE(jsonb::Contains("[]", "1"));
  EXPECT_TRUE(jsonb::Contains("1", "1.00"));
  EXPECT_TRUE(jsonb::Contains("[null]", "null"));
  EXPECT_FALSE(jsonb::Contains("null", "[null]"));
}

TEST(JsonbTest, Existence) {
  EXPECT_TRUE(jsonb::Exists(R"({"a":1})", "a"));
  EXPECT_TRUE(jsonb::Exists(R"(["a","b"])", "b"));
  EXPECT_FALSE(jsonb::Exists(R"([["b"]])", "b"));
  EXPECT_TRUE(jsonb::Exists(R"("b")", "b"));
  EXPECT_FALSE(jsonb::Exists(R"({"x":{"b":1}})", "b"));
  EXPECT_FALSE(jsonb::Exists("[1]", "1"));
}

TEST(JsonbTest, Concatenation) {
  EXPECT_EQ(jsonb::Concat(R"({"a":1,"b":2})", R"({"b":3,"c":4})"), R"({"a": 1, "b": 3, "c": 4})");
  EXPECT_EQ(jsonb::Concat("[1,2]", "[3]"), "[1, 2, 3]");
  EXPECT_EQ(jsonb::Concat(R"({"a":1})", "[1]"), R"([{"a": 1}, 1])");
  EXPECT_EQ(jsonb::Concat("[1]", R"({"a":1})"), R"([1, {"a": 1}])");
  EXPECT_EQ(jsonb::Concat("1", "2"), "[1, 2]");
  EXPECT_EQ(jsonb::Concat(R"({"a":1})", "1"), R"([{"a": 1}, 1])");
  EXPECT_EQ(jsonb::Concat("[]", "1"), "[1]");
  EXPECT_EQ(jsonb::Concat("{}", "[]"), "[{}]");
  EXPECT_EQ(jsonb::Concat("[]", "[]"), "[]");
  EXPECT_EQ(jsonb::Concat("{}", "{}"), "{}");
  EXPECT_EQ(jsonb::Concat("[1]", "null"), "[1, null]");
}

TEST(JsonbTest, Deletion) {
  EXPECT_EQ(jsonb::DeleteKey(R"({"a":1,"b":2})", "a"), R"({"b": 2})");
  EXPECT_EQ(jsonb::DeleteKey(R"(["a","b","a",1])", "a"), R"(["b", 1])");
  EXPECT_EQ(jsonb::DeleteKey(R"([["a"]])", "a"), R"([["a"]])");
  EXPECT_EQ(jsonb::DeleteKey("{}", "a"), "{}");
  EXPECT_EQ(ErrorOf([] { jsonb::DeleteKey("1", "a"); }), "22023: cannot delete from scalar");

  EXPECT_EQ(jsonb::DeleteIndex("[1,2,3]", 1), "[1, 3]");
  EXPECT_EQ(jsonb::DeleteIndex("[1,2,3]", -1), "[1, 2]");
  EXPECT_EQ(jsonb::DeleteIndex("[1,2,3]", 5), "[1, 2, 3]");
  EXPECT_EQ(jsonb::DeleteIndex("[1,2,3]", -5), "[1, 2, 3]");
  EXPECT_EQ(ErrorOf([] { jsonb::DeleteIndex("{}", 1); }),
            "22023: cannot delete from object using integer index");
  EXPECT_EQ(ErrorOf([] { jsonb::DeleteIndex("1", 1); }), "22023: cannot delete from scalar");

  EXPECT_EQ(jsonb::DeletePath(R"({"a":[1,{"b":2,"c":3}]})", {"a", "1", "b"}),
            R"({"a": [1, {"c": 3}]})");
  EXPECT_EQ(jsonb::DeletePath(R"({"a":[1,2]})", {"a", "-1"}), R"({"a": [1]})");
  EXPECT_EQ(jsonb::DeletePath(R"({"a":[1,2]})", {"a", "5"}), R"({"a": [1, 2]})");
  EXPECT_EQ(jsonb::DeletePath(R"({"a":[1,2]})", {"a", "-3"}), R"({"a": [1, 2]})");
  EXPECT_EQ(jsonb::DeletePath(R"({"a":[1,2]})", {}), R"({"a": [1, 2]})");
  EXPECT_EQ(jsonb::DeletePath(R"({"a":1})", {"a", "b"}), R"({"a": 1})");
  EXPECT_EQ(jsonb::DeletePath("[]", {"x"}), "[]");
  EXPECT_EQ(ErrorOf([] {
              jsonb::DeletePath(R"({"a":[1,2]})", {"a", "x"});
            }),
            "22P02: path element at position 2 is not an integer: \"x\"");
  EXPECT_EQ(ErrorOf([] { jsonb::DeletePath("1", {}); }), "22023: cannot delete path in scalar");
}

TEST(JsonbTest, SetPath) {
  const std::string doc = R"({"a":[1,2]})";
  EXPECT_EQ(jsonb::Set(doc, {"a", "0"}, R"("x")", true), R"({"a": ["x", 2]})");
  EXPECT_EQ(jsonb::Set(doc, {"a", "5"}, R"("x")", true), R"({"a": [1, 2, "x"]})");
  EXPECT_EQ(jsonb::Set(doc, {"a", "-5"}, R"("x")", true), R"({"a": ["x", 1, 2]})");
  EXPECT_EQ(jsonb::Set(doc, {"a", "5"}, R"("x")", false), R"({"a": [1, 2]})");
  EXPECT_EQ(jsonb::Set(R"({"a":1})", {"b"}, "2", true), R"({"a": 1, "b": 2})");
  EXPECT_EQ(jsonb::Set(R"({"a":1})", {"b"}, "2", false), R"({"a": 1})");
  EXPECT_EQ(jsonb::Set(R"({"a":1})", {"b", "c"}, "2", true), R"({"a": 1})");
  EXPECT_EQ(jsonb::Set(R"({"a":1})", {"a", "c"}, "2", true), R"({"a": 1})");
  EXPECT_EQ(jsonb::Set("{}", {"a"}, "[1]", true), R"({"a": [1]})");
  EXPECT_EQ(jsonb::Set("{}", {"a"}, "[1]", false), "{}");
  EXPECT_EQ(jsonb::Set("[]", {"0"}, "1", true), "[1]");
  EXPECT_EQ(jsonb::Set("[]", {"x"}, "1", false), "[]");
  EXPECT_EQ(jsonb::Set("[1,2]", {"-1"}, "9", true), "[1, 9]");
  EXPECT_EQ(jsonb::Set(R"({"b":1})", {"aa"}, R"({"z":null})", true),
            R"({"b": 1, "aa": {"z": null}})");
  EXPECT_EQ(ErrorOf([] { jsonb::Set("[1]", {"x"}, "1", false); }),
            "22P02: path element at position 1 is not an integer: \"x\"");
  EXPECT_EQ(ErrorOf([] {
              jsonb::Set(R"({"a":[[1]]})", {"a", "0", "x"}, "1", true);
            }),
            "22P02: path element at position 3 is not an integer: \"x\"");
  EXPECT_EQ(ErrorOf([] { jsonb::Set("1", {}, "1", true); }), "22023: cannot set path in scalar");
}

TEST(JsonbTest, TypeLengthKeysElementsEach) {
  EXPECT_EQ(jsonb::TypeOf("{}"), "object");
  EXPECT_EQ(jsonb::TypeOf("[]"), "array");
  EXPECT_EQ(jsonb::TypeOf(R"("a")"), "string");
  EXPECT_EQ(jsonb::TypeOf("1.5"), "number");
  EXPECT_EQ(jsonb::TypeOf("true"), "boolean");
  EXPECT_EQ(jsonb::TypeOf("null"), "null");

  EXPECT_EQ(jsonb::ArrayLength("[1,[2,3],{}]"), 3);
  EXPECT_EQ(jsonb::ArrayLength("[]"), 0);
  EXPECT_EQ(ErrorOf([] { jsonb::ArrayLength("1"); }), "22023: cannot get array length of a scalar");
  EXPECT_EQ(ErrorOf([] { jsonb::ArrayLength("{}"); }),
            "22023: cannot get array length of a non-array");

  EXPECT_THAT(jsonb::ObjectKeys(R"({"bb":1,"a":{"z":1},"c":2})"), ElementsAre("a", "c", "bb"));
  EXPECT_EQ(ErrorOf([] { jsonb::ObjectKeys("1"); }),
            "22023: cannot call jsonb_object_keys on a scalar");
  EXPECT_EQ(ErrorOf([] { jsonb::ObjectKeys("[]"); }),
            "22023: cannot call jsonb_object_keys on an array");

  EXPECT_THAT(jsonb::ArrayElements(R"([1,"a",{"b":[2]},null])"),
              ElementsAre("1", R"("a")", R"({"b": [2]})", "null"));
  EXPECT_EQ(ErrorOf([] { jsonb::ArrayElements("1"); }),
            "22023: cannot extract elements from a scalar");
  EXPECT_EQ(ErrorOf([] { jsonb::ArrayElements("{}"); }),
            "22023: cannot extract elements from an object");

  EXPECT_THAT(jsonb::Each(R"({"bb":1,"a":{"z":1},"c":null})"),
              ElementsAre(Pair("a", R"({"z": 1})"), Pair("c", "null"), Pair("bb", "1")));
  EXPECT_EQ(ErrorOf([] { jsonb::Each("[]"); }), "22023: cannot call jsonb_each on a non-object");
  EXPECT_EQ(ErrorOf([] { jsonb::Each("1"); }), "22023: cannot call jsonb_each on a non-object");
}

TEST(JsonbTest, StripNullsAndPretty) {
  EXPECT_EQ(jsonb::StripNulls(R"({"a":null,"b":[null,{"c":null,"d":1}],"e":{"f":null}})"),
            R"({"b": [null, {"d": 1}], "e": {}})");
  EXPECT_EQ(jsonb::StripNulls("null"), "null");
  EXPECT_EQ(jsonb::StripNulls("[null]"), "[null]");

  EXPECT_EQ(jsonb::Pretty(R"({"a":1,"b":[1,{"c":[]},{}],"d":{"e":"x"}})"),
            "{\n"
            "    \"a\": 1,\n"
            "    \"b\": [\n"
            "        1,\n"
            "        {\n"
            "            \"c\": [\n"
            "            ]\n"
            "        },\n"
            "        {\n"
            "        }\n"
            "    ],\n"
            "    \"d\": {\n"
            "        \"e\": \"x\"\n"
            "    }\n"
            "}");
  EXPECT_EQ(jsonb::Pretty("[]"), "[\n]");
  EXPECT_EQ(jsonb::Pretty("1"), "1");
  EXPECT_EQ(jsonb::Pretty(R"("a\nb")"), R"("a\nb")");
}

TEST(JsonbTest, BuildObjectAndArray) {
  EXPECT_EQ(jsonb::ObjectFromPairs({{"b", "1"}, {"a", "2"}, {"b", "3"}}), R"({"a": 2, "b": 3})");
  EXPECT_EQ(jsonb::ObjectFromPairs({}), "{}");
  EXPECT_EQ(jsonb::ArrayFromElements({"1", R"({"a":1})"}), R"([1, {"a": 1}])");
  EXPECT_EQ(jsonb::ArrayFromElements({}), "[]");
}

TEST(JsonbTest, CompareEqualities) {
  EXPECT_EQ(jsonb::Compare("1.0", "1.00"), 0);
  EXPECT_EQ(jsonb::Compare("1e2", "100.0"), 0);
  EXPECT_EQ(jsonb::Compare(R"({"a":[1.0]})", R"({"a":[1]})"), 0);
  EXPECT_EQ(jsonb::Compare(R"({"b":1,"a":2})", R"({"a":2,"b":1})"), 0);
  EXPECT_NE(jsonb::Compare(R"("a")", R"("a ")"), 0);
}

TEST(JsonbTest, CompareOrder) {
  // Each pair: PostgreSQL says first < second.
  const std::vector<std::pair<std::string, std::string>> less = {
      {"[]", "null"},  // an empty top-level array sorts before scalars
      {"[]", "1"},
      {"[]", R"("")"},
      {"1", "[0]"},      // a scalar sorts before a non-empty array
      {R"("b")", "1"},   // String < Number
      {"1000", "true"},  // Number < Boolean
      {"false", "true"},
      {"null", R"("")"},  // Null < String
      {"[1,2,3]", R"({"a":1})"},
      {R"({"z":9})", R"({"a":1,"b":1})"},         // more pairs sort later
      {"[9]", "[1,2]"},                           // more elements sort later
      {R"({"aa":1})", R"({"b":1})"},              // keys by bytes
      {R"({"c":1,"a":1})", R"({"b":1,"aa":1})"},  // pairs in jsonb order: "a" < "b"
      {"[1,[2]]", R"([1,{"a":1}])"},
      {R"([1,"a"])", "[1,[]]"},
      {R"("abc")", R"("abd")"},
      {R"("ab")", R"("abc")"},
      {R"("Z")", R"("a")"},
      {R"("z")", "\"\xc3\xa9\""},
      {"-1", "-0.5"},
      {"[]", "[[]]"},
      {"[]", "{}"},  // an object is above every array and scalar
      {"1", "{}"},
      {R"({"a":"x"})", R"({"a":1})"},
      {R"({"a":null})", R"({"a":false})"},
      {R"({"a":[1,2,3]})", R"({"a":{}})"},
      {"[1]", "[[1]]"},
      {"[[]]", "[{}]"},
  };
  for (size_t i = 0; i < less.size(); i++) {
    EXPECT_LT(jsonb::Compare(less[i].first, less[i].second), 0)
        << less[i].first << " < " << less[i].second;
    EXPECT_GT(jsonb::Compare(less[i].second, less[i].first), 0)
        << less[i].second << " > " << less[i].first;
  }
}

TEST(JsonbTest, ParseTree) {
  const jsonb::Json j = jsonb::Parse(R"({"b": [true, "s"], "a": 1e1})");
  ASSERT_EQ(j.kind, jsonb::Json::Kind::kObject);
  ASSERT_EQ(j.object.size(), 2u);
  EXPECT_EQ(j.object[0].first, "a");
  EXPECT_EQ(j.object[0].second.number, "10");
  EXPECT_EQ(j.object[1].second.array[1].string, "s");
  EXPECT_TRUE(j.object[1].second.array[0].boolean);
  EXPECT_THAT(jsonb::Serialize(j), HasSubstr(R"("b": [true, "s"])"));
}

}  // namespace
}  // namespace forktail
