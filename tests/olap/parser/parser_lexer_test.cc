// Lexer edge cases: identifiers and case folding, quoting and escapes,
// numbers, operators, comments, and character (not byte) positions.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "olap/parser/lexer.h"
#include "olap/parser/parser.h"
#include "storage/error.h"

namespace forktail::sql {
namespace {

// "kind:text" for each token up to (excluding) kEnd.
std::vector<std::string> Lex(std::string_view text) {
  static constexpr const char* kNames[] = {"end", "error", "id",  "qid", "int", "num",
                                           "str", "bits",  "par", "op",  "p"};
  std::vector<std::string> out;
  for (const Token& t : Tokenize(text)) {
    if (t.kind == TokenKind::kEnd) break;
    out.push_back(std::string(kNames[static_cast<int>(t.kind)]) + ":" + t.text);
  }
  return out;
}

using V = std::vector<std::string>;

TEST(ParserLexer, IdentifiersFoldUnquotedKeepQuoted) {
  EXPECT_EQ(Lex("SeLeCt Foo, \"Foo\", \"a\"\"b\", _x$1"),
            (V{"id:select", "id:foo", "p:,", "qid:Foo", "p:,", "qid:a\"b", "p:,", "id:_x$1"}));
  std::vector<Token> t = Tokenize("SELECT lineitem");
  EXPECT_EQ(t[0].keyword, KeywordCategory::kReserved);
  EXPECT_EQ(t[1].keyword, KeywordCategory::kNone);
  EXPECT_EQ(Tokenize("year")[0].keyword, KeywordCategory::kUnreserved);
  EXPECT_FALSE(Tokenize("year")[0].bare_label);
}

TEST(ParserLexer, LongIdentifiersTruncateTo63Bytes) {
  std::string name(70, 'a');
  EXPECT_EQ(Tokenize(name)[0].text, std::string(63, 'a'));
  // Truncation never splits a multibyte character: 31 x "é" (62 bytes) + "é".
  std::string accented;
  for (int i = 0; i < 40; ++i) accented += "\xc3\xa9";
  EXPECT_EQ(Tokenize(accented)[0].text.size(), 62u);
}

TEST(ParserLexer, Strings) {
  EXPECT_EQ(Lex("'it''s'"), V{"str:it's"});
  EXPECT_EQ(Lex("E'a\\nb\\t\\\\\\'c\\x41\\101\\u00e9'"), V{"str:a\nb\t\\'cAA\xc3\xa9"});
  EXPECT_EQ(Lex("e'\\q'"), V{"str:q"});
  EXPECT_EQ(Lex("N'x'"), V{"str:x"});
  EXPECT_EQ(Lex("$$a'b$$ $tag$x$$y$tag$"), (V{"str:a'b", "str:x$$y"}));
  EXPECT_EQ(Lex("U&'d\\0061t\\+000061'"), V{"str:data"});
  EXPECT_EQ(Lex("B'101' X'1F'"), (V{"bits:b101", "bits:x1F"}));
  // Continuation only across a newline.
  EXPECT_EQ(Lex("'a'\n  'b'"), V{"str:ab"});
  EXPECT_EQ(Lex("'a' 'b'"), (V{"str:a", "str:b"}));
  // Backslashes are ordinary characters in standard strings.
  EXPECT_EQ(Lex("'a\\n'"), V{"str:a\\n"});
}

// The database encoding is UTF8: invalid bytes, in the text or spelled by an
// E'' escape, are an error (22021), as in PostgreSQL, never a stored string.
TEST(ParserLexer, InvalidUtf8IsRefused) {
  auto error = [](std::string_view text) {
    std::vector<Token> tokens = Tokenize(text);
    const Token& last = tokens.back();
    return last.kind == TokenKind::kError ? std::string(last.sqlstate) + " " + last.text
                                          : std::string("no error");
  };
  EXPECT_EQ(error("select length(E'a\\xff\\xfeb')"),
            "22021 invalid byte sequence for encoding \"UTF8\": 0xff");
  EXPECT_EQ(error("select E'\\000'"), "22021 invalid byte sequence for encoding \"UTF8\": 0x00");
  EXPECT_EQ(error("select 'a\xff\xfe"
                  "b'"),
            "22021 invalid byte sequence for encoding \"UTF8\": 0xff");
  EXPECT_EQ(error("select 1 -- \xe2\x28\xa1"),
            "22021 invalid byte sequence for encoding \"UTF8\": 0xe2 0x28 0xa1");
  EXPECT_EQ(error("select E'\\xc3\\xa9', '\xc3\xa9'"), "no error");  // é both ways
}

TEST(ParserLexer, Numbers) {
  EXPECT_EQ(Lex("1 1.5 .5 1. 1e10 2.5E-3 007"),
            (V{"int:1", "num:1.5", "num:.5", "num:1.", "num:1e10", "num:2.5E-3", "int:007"}));
  EXPECT_EQ(Lex("1..2"), (V{"int:1", "op:..", "int:2"}));
  EXPECT_EQ(Lex("1.5.6"), (V{"num:1.5", "num:.6"}));
  EXPECT_EQ(Lex("99999999999999999999"), V{"int:99999999999999999999"});
}

TEST(ParserLexer, ParametersAndOperators) {
  EXPECT_EQ(Lex("$1 $12"), (V{"par:$1", "par:$12"}));
  EXPECT_EQ(Tokenize("$12")[0].param, 12);
  EXPECT_EQ(Lex("a<>b!=c<=d>=e||f::g"),
            (V{"id:a", "op:<>", "id:b", "op:<>", "id:c", "op:<=", "id:d", "op:>=", "id:e", "op:||",
               "id:f", "op:::", "id:g"}));
  EXPECT_EQ(Lex("a~b !~ c ~* d !~* e"),
            (V{"id:a", "op:~", "id:b", "op:!~", "id:c", "op:~*", "id:d", "op:!~*", "id:e"}));
  // Trailing + / - leave an operator unless it has one of ~!@#^&|`?%.
  EXPECT_EQ(Lex("a=-1"), (V{"id:a", "op:=", "op:-", "int:1"}));
  EXPECT_EQ(Lex("a@-1"), (V{"id:a", "op:@-", "int:1"}));
  EXPECT_EQ(Lex("a*-b"), (V{"id:a", "op:*", "op:-", "id:b"}));
  // A comment start ends an operator run.
  EXPECT_EQ(Lex("a+--c\nb"), (V{"id:a", "op:+", "id:b"}));
  EXPECT_EQ(Lex("(a,b);[1:2]."), (V{"p:(", "id:a", "p:,", "id:b", "p:)", "p:;", "p:[", "int:1",
                                    "p::", "int:2", "p:]", "p:."}));
}

TEST(ParserLexer, Comments) {
  EXPECT_EQ(Lex("a -- comment\nb /* x /* nested */ still */ c"), (V{"id:a", "id:b", "id:c"}));
  EXPECT_EQ(Lex("/**/a/*+hint*/"), V{"id:a"});
}

TEST(ParserLexer, PositionsCountCharactersNotBytes) {
  std::vector<Token> t = Tokenize("SELECT 'héllo', x");
  EXPECT_EQ(t[0].position, 1);
  EXPECT_EQ(t[1].position, 8);
  EXPECT_EQ(t[2].position, 15);  // ',' after 7 characters of 'héllo' (8 bytes)
  EXPECT_EQ(t[3].position, 17);
  EXPECT_EQ(t[3].begin, 17u);  // byte offset
  EXPECT_EQ(t.back().kind, TokenKind::kEnd);
  EXPECT_EQ(t.back().position, 18);  // number of characters + 1
}

TEST(ParserLexer, ErrorsBecomeAFinalErrorToken) {
  std::vector<Token> t = Tokenize("SELECT 1, 'abc");
  ASSERT_EQ(t.back().kind, TokenKind::kError);
  EXPECT_EQ(t.back().text, "unterminated quoted string at or near \"'abc\"");
  EXPECT_EQ(t.back().position, 11);
  EXPECT_EQ(t[1].text, "1");  // tokens before the error are kept
}

// Lexical errors through sql::Parse, with PostgreSQL 15's message and
// position (each checked against PostgreSQL 15).
struct LexErrorCase {
  const char* sql;
  const char* message;
  int position;
};

TEST(ParserLexer, LexicalErrorsMatchPostgres) {
  const LexErrorCase cases[] = {
      {"SELECT 'abc", "unterminated quoted string at or near \"'abc\"", 8},
      {"SELECT E'abc", "unterminated quoted string at or near \"E'abc\"", 8},
      {"SELECT /* x /* y */ 1", "unterminated /* comment at or near \"/* x /* y */ 1\"", 8},
      {"SELECT 1 /* x", "unterminated /* comment at or near \"/* x\"", 10},
      {"SELECT \"abc", "unterminated quoted identifier at or near \"\"abc\"", 8},
      {"SELECT \"\"", "zero-length delimited identifier at or near \"\"\"\"", 8},
      {"SELECT 0x1F", "trailing junk after numeric literal at or near \"0x1F\"", 8},
      {"SELECT 123abc", "trailing junk after numeric literal at or near \"123abc\"", 8},
      {"SELECT 1.5e", "trailing junk after numeric literal at or near \"1.5e\"", 8},
      {"SELECT 1e+", "trailing junk after numeric literal at or near \"1e+\"", 8},
      {"SELECT 10e3xyz", "trailing junk after numeric literal at or near \"10e3xyz\"", 8},
      {"SELECT $1abc", "trailing junk after parameter at or near \"$1abc\"", 8},
      {"SELECT $$abc", "unterminated dollar-quoted string at or near \"$$abc\"", 8},
      // Multibyte characters before the error: positions count characters.
      {"SELECT é, 'x", "unterminated quoted string at or near \"'x\"", 11},
      {"SELECT 'ü' || '日本語' || 'x", "unterminated quoted string at or near \"'x\"", 24},
  };
  for (const LexErrorCase& c : cases) {
    SCOPED_TRACE(c.sql);
    try {
      Parse(c.sql);
      ADD_FAILURE() << "no error";
    } catch (const DbError& e) {
      EXPECT_STREQ(e.sqlstate(), sqlstate::kSyntaxError);
      EXPECT_EQ(std::string(e.what()), c.message);
      EXPECT_EQ(e.position(), c.position);
    }
  }
}

TEST(ParserLexer, EarlierSyntaxErrorWinsOverLaterLexicalError) {
  // PostgreSQL pulls tokens on demand: the syntax error comes first.
  try {
    Parse("SELECT 1 2 'unterminated");
    ADD_FAILURE() << "no error";
  } catch (const DbError& e) {
    EXPECT_EQ(std::string(e.what()), "syntax error at or near \"2\"");
    EXPECT_EQ(e.position(), 10);
  }
}

}  // namespace
}  // namespace forktail::sql
