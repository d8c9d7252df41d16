// String functions and operators against PostgreSQL 15's results (psql).
#include "tests/olap/expression/functions_testing.h"

namespace forktail {
namespace {

using Strings = FunctionsSql;

TEST_F(Strings, CaseAndLength) {
  EXPECT_EQ(Eval("upper('abc'), lower('AbC'), initcap('hello wORLD')"), "ABC|abc|Hello World");
  EXPECT_EQ(Eval("length('w\xc3\xb6rld'), octet_length('w\xc3\xb6rld'), char_length('ab'), "
                 "character_length('')"),
            "5|6|2|0");
  EXPECT_EQ(TypeOf("length('x')"), "integer");
  EXPECT_EQ(Query("SELECT upper(s), length(s), length(c), octet_length(s) FROM t ORDER BY id"),
            "HELLO|5|2|5;NULL|NULL|NULL|NULL;W\xc3\xb6RLD  |7|1|8;");
}

TEST_F(Strings, TrimPadSlice) {
  EXPECT_EQ(Eval("btrim('  x  '), ltrim('xxyx', 'x'), rtrim('abcc', 'c'), "
                 "trim(both 'x' from 'xxaxx'), trim(leading from '  a '), trim('  b  ')"),
            "x|yx|ab|a|a |b");
  EXPECT_EQ(Eval("left('abcde', 2), left('abcde', -2), right('abcde', 2), right('abcde', -2)"),
            "ab|abc|de|cde");
  EXPECT_EQ(Eval("lpad('hi', 5, 'xy'), rpad('hi', 5) || '.', lpad('hello', 2), lpad('a', -1)"),
            "xyxhi|hi   .|he|");
  EXPECT_EQ(Eval("replace('abcabc', 'b', 'XY'), repeat('ab', 3), repeat('x', -1), "
                 "reverse('w\xc3\xb6rld')"),
            "aXYcaXYc|ababab||dlr\xc3\xb6w");
  EXPECT_EQ(Eval("split_part('a,b,c', ',', 2), split_part('a,b,c', ',', -1), "
                 "split_part('a,b,c', ',', 5)"),
            "b|c|");
  EXPECT_EQ(Eval("position('c' in 'abc'), strpos('w\xc3\xb6rld', 'r'), strpos('abc', 'z'), "
                 "starts_with('hello', 'he')"),
            "3|3|0|t");
  EXPECT_EQ(Query("SELECT rtrim(s), left(s, 2), strpos(s, 'l') FROM t ORDER BY id"),
            "Hello|He|3;NULL|NULL|NULL;w\xc3\xb6rld|w\xc3\xb6|4;");
  EXPECT_EQ(Eval("ascii('A'), chr(65), chr(246)"), "65|A|\xc3\xb6");
}

TEST_F(Strings, ConcatOperators) {
  EXPECT_EQ(Eval("concat('a', 1, NULL, 2.5), concat_ws(',', 'a', NULL, 'b'), "
                 "concat_ws(NULL, 'a')"),
            "a12.5|a,b|NULL");
  EXPECT_EQ(Eval("'a' || 1, 1 || 'a', 'a' || NULL, 'x' || 'y' || 'z'"), "a1|1a|NULL|xyz");
  EXPECT_EQ(Query("SELECT s || '!', concat(s, i) FROM t ORDER BY id"),
            "Hello!|Hello5;NULL|;w\xc3\xb6rld  !|w\xc3\xb6rld  -7;");
  EXPECT_EQ(Error("SELECT 1 || 2"), "42883 operator does not exist: integer || integer");
}

TEST_F(Strings, RegexAndILike) {
  EXPECT_EQ(Eval("'abc' ~ 'b', 'abc' ~ '^B', 'abc' ~* '^B', 'abc' !~ 'b', 'abc' !~* 'B'"),
            "t|f|f|f|f");
  EXPECT_EQ(Eval("'t1' OPERATOR(pg_catalog.~) '^(t1)$', 'abc' ~ NULL"), "t|NULL");
  EXPECT_EQ(Query("SELECT id FROM t WHERE s ~ '^[A-Z]' ORDER BY id"), "1;");
  EXPECT_EQ(Query("SELECT id FROM t WHERE s ~* '^h.*O$' ORDER BY id"), "1;");
  EXPECT_EQ(Eval("'ABC' ILIKE 'a%', 'ABC' NOT ILIKE 'a%', 'abc' ~~* 'A_C'"), "t|f|t");
  EXPECT_EQ(Query("SELECT id FROM t WHERE s ILIKE 'HEL%' ORDER BY id"), "1;");
  // The C library's wording (PostgreSQL: "parentheses () not balanced").
  EXPECT_EQ(Error("SELECT 'a' ~ '('"), "2201B invalid regular expression: Unmatched ( or \\(");
  EXPECT_EQ(Error("SELECT 1 ~ 'a'"), "42883 operator does not exist: integer ~ unknown");
  EXPECT_EQ(Error("SELECT 'a' OPERATOR(foo.~) 'a'"), "3F000 schema \"foo\" does not exist");
}

TEST_F(Strings, Errors) {
  EXPECT_EQ(Error("SELECT upper(5)"), "42883 function upper(integer) does not exist");
  EXPECT_EQ(Error("SELECT length(1.5)"), "42883 function length(numeric) does not exist");
  EXPECT_EQ(Error("SELECT split_part('a', ',', 0)"), "22023 field position must not be zero");
  EXPECT_EQ(Error("SELECT chr(0)"), "54000 null character not permitted");
}

}  // namespace
}  // namespace forktail
