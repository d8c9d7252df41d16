// The SQL lexer: PostgreSQL 15's lexical rules (src/backend/parser/scan.l),
// rewritten by hand.
//
// Tokenize() turns the whole input into a vector of tokens in one linear pass
// (parsing a 1 MB INSERT must not be quadratic). A lexical error does not
// throw at once: it becomes a final kError token carrying PostgreSQL's
// message, and the parser throws it only when it reaches that token. That
// reproduces PostgreSQL, whose parser pulls tokens on demand, so an earlier
// syntax error wins over a later lexical one.
//
// What the lexer does, as PostgreSQL does:
//   - unquoted identifiers and keywords are folded to lower case (ASCII only);
//     "quoted" identifiers keep their case, "" is an escaped quote, and both
//     are truncated to 63 bytes (NAMEDATALEN - 1);
//   - 'strings' ('' escapes; 'a'<newline>'b' continues the same string),
//     E'..' backslash escapes, U&'..' Unicode escapes, N'..', $tag$..$tag$,
//     B'..' and X'..' bit strings;
//   - numbers: 1 (kInteger), 1.5 / .5 / 1. / 1e10 (kNumeric); a number
//     immediately followed by identifier characters is "trailing junk";
//   - $n parameters; operators by PostgreSQL's rule (longest run of operator
//     characters, trailing + / - dropped unless the operator has one of
//     ~ ! @ # ^ & | ` ? %), `!=` reported as `<>`;
//   - -- and nested /* */ comments are skipped.
// Positions are 1-based CHARACTER offsets (UTF-8 code points), as in
// PostgreSQL's ErrorResponse.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "olap/parser/keywords.h"

namespace forktail::sql {

enum class TokenKind : uint8_t {
  kEnd,          // end of input (always the last token unless kError)
  kError,        // lexical error: text = the full message, sqlstate set
  kIdent,        // unquoted identifier or keyword: text folded to lower case
  kQuotedIdent,  // "identifier": text verbatim (unescaped)
  kInteger,      // digits: text as written
  kNumeric,      // 1.5, .5, 1e10: text as written
  kString,       // text decoded (escapes applied)
  kBitString,    // B'101' -> text "b101"; X'1F' -> text "x1F"
  kParam,        // $n: param
  kOp,           // operator: text is its spelling ("!=" reads "<>"); also
                 // "::", "..", ":=", "=>"
  kPunct,        // one of , ( ) [ ] . ; :  (and any stray character)
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  KeywordCategory keyword = KeywordCategory::kNone;  // kIdent only
  bool bare_label = true;                            // kIdent only
  std::string text;
  uint32_t begin = 0;              // byte offset of the first character
  uint32_t end = 0;                // byte offset past the last character
  int position = 0;                // 1-based character offset of the first character
  int param = 0;                   // kParam: n
  const char* sqlstate = nullptr;  // kError
};

// Maximum identifier length in bytes (PostgreSQL's NAMEDATALEN - 1).
inline constexpr size_t kMaxIdentifierBytes = 63;

// Tokenizes all of `text`. The result ends with kEnd (position = number of
// characters + 1, PostgreSQL's position for "at end of input") or kError.
std::vector<Token> Tokenize(std::string_view text);

}  // namespace forktail::sql
