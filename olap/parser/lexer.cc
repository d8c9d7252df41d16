#include "olap/parser/lexer.h"

#include <fmt/format.h>

#include <cstring>

#include "storage/error.h"
#include "storage/value/utf8.h"

namespace forktail::sql {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool IsIdentCont(char c) { return IsIdentStart(c) || IsDigit(c) || c == '$'; }
bool IsDollarTagCont(char c) { return IsIdentStart(c) || IsDigit(c); }
bool IsOpChar(char c) { return c != '\0' && std::strchr("~!@#^&|`?+-*/%<>=", c) != nullptr; }

// Truncates an identifier to kMaxIdentifierBytes at a character boundary.
void TruncateIdentifier(std::string& s) {
  if (s.size() <= kMaxIdentifierBytes) return;
  size_t n = kMaxIdentifierBytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  s.resize(n);
}

// A lexical error, thrown inside the lexer and turned into a kError token.
struct LexError {
  const char* sqlstate;
  std::string message;
  uint32_t offset;
};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : s_(text) {}

  std::vector<Token> Run() {
    std::vector<Token> tokens;
    tokens.reserve(s_.size() / 4 + 4);
    try {
      // The database encoding is UTF8: other bytes are refused, not stored.
      if (size_t bad = FindInvalidUtf8(s_); bad != std::string_view::npos) {
        throw LexError{sqlstate::kCharacterNotInRepertoire, InvalidUtf8Message(s_, bad),
                       static_cast<uint32_t>(bad)};
      }
      while (true) {
        SkipSpaceAndComments();
        if (p_ >= s_.size()) break;
        tokens.push_back(Next());
      }
      Token end;
      end.kind = TokenKind::kEnd;
      end.begin = end.end = static_cast<uint32_t>(s_.size());
      end.position = PositionOf(s_.size());
      tokens.push_back(std::move(end));
    } catch (LexError& e) {
      Token err;
      err.kind = TokenKind::kError;
      err.text = std::move(e.message);
      err.sqlstate = e.sqlstate;
      err.begin = e.offset;
      err.end = static_cast<uint32_t>(s_.size());
      err.position = PositionOf(e.offset);
      tokens.push_back(std::move(err));
    }
    return tokens;
  }

 private:
  char At(size_t i) const { return i < s_.size() ? s_[i] : '\0'; }

  // 1-based character position of byte `offset`; offsets must not decrease
  // between calls (linear over the whole input).
  int PositionOf(size_t offset) {
    for (; counted_ < offset && counted_ < s_.size(); ++counted_) {
      if ((static_cast<unsigned char>(s_[counted_]) & 0xC0) != 0x80) ++chars_;
    }
    return chars_ + 1;
  }

  [[noreturn]] void Fail(std::string_view what, size_t start, size_t end,
                         const char* sqlstate = sqlstate::kSyntaxError) {
    throw LexError{sqlstate,
                   fmt::format("{} at or near \"{}\"", what, s_.substr(start, end - start)),
                   static_cast<uint32_t>(start)};
  }

  void SkipSpaceAndComments() {
    while (p_ < s_.size()) {
      char c = s_[p_];
      if (IsSpace(c)) {
        ++p_;
      } else if (c == '-' && At(p_ + 1) == '-') {
        while (p_ < s_.size() && s_[p_] != '\n' && s_[p_] != '\r') ++p_;
      } else if (c == '/' && At(p_ + 1) == '*') {
        size_t start = p_;
        int depth = 0;
        while (true) {
          if (p_ >= s_.size()) Fail("unterminated /* comment", start, s_.size());
          if (s_[p_] == '/' && At(p_ + 1) == '*') {
            ++depth;
            p_ += 2;
          } else if (s_[p_] == '*' && At(p_ + 1) == '/') {
            p_ += 2;
            if (--depth == 0) break;
          } else {
            ++p_;
          }
        }
      } else {
        return;
      }
    }
  }

  Token Make(TokenKind kind, size_t start, std::string text) {
    Token t;
    t.kind = kind;
    t.text = std::move(text);
    t.begin = static_cast<uint32_t>(start);
    t.end = static_cast<uint32_t>(p_);
    t.position = PositionOf(start);
    return t;
  }

  Token Next() {
    size_t start = p_;
    char c = s_[p_];
    char n = At(p_ + 1);
    if (n == '\'') {
      switch (c) {
        case 'e':
        case 'E':
          p_ += 1;
          return QuotedString(start, /*escapes=*/true);
        case 'n':
        case 'N':
          p_ += 1;
          return QuotedString(start, false);
        case 'b':
        case 'B':
          p_ += 1;
          return BitString(start, 'b');
        case 'x':
        case 'X':
          p_ += 1;
          return BitString(start, 'x');
        default:
          break;
      }
    }
    if ((c == 'u' || c == 'U') && n == '&' && (At(p_ + 2) == '\'' || At(p_ + 2) == '"')) {
      return UnicodeQuoted(start);
    }
    if (IsIdentStart(c)) return Identifier(start);
    if (c == '"') return QuotedIdentifier(start, start);
    if (c == '\'') return QuotedString(start, false);
    if (IsDigit(c) || (c == '.' && IsDigit(n))) return Number(start);
    if (c == '$') return Dollar(start);
    if (c == ':' && n == ':') return Fixed(start, 2, "::");
    if (c == ':' && n == '=') return Fixed(start, 2, ":=");
    if (c == '.' && n == '.') return Fixed(start, 2, "..");
    if (IsOpChar(c)) return Operator(start);
    // Punctuation and any stray character (the parser rejects the latter). A
    // stray multibyte character is one token.
    size_t len = 1;
    while (p_ + len < s_.size() && (static_cast<unsigned char>(s_[p_ + len]) & 0xC0) == 0x80) ++len;
    p_ += len;
    return Make(TokenKind::kPunct, start, std::string(s_.substr(start, len)));
  }

  Token Fixed(size_t start, size_t len, const char* text) {
    p_ += len;
    return Make(TokenKind::kOp, start, text);
  }

  Token Identifier(size_t start) {
    while (p_ < s_.size() && IsIdentCont(s_[p_])) ++p_;
    std::string text(s_.substr(start, p_ - start));
    for (char& ch : text) {
      if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
    }
    KeywordInfo kw = LookupKeyword(text);
    TruncateIdentifier(text);
    Token t = Make(TokenKind::kIdent, start, std::move(text));
    t.keyword = kw.category;
    t.bare_label = kw.bare_label;
    return t;
  }

  // "ident" starting at p_ (error positions use `start`, which includes U&).
  Token QuotedIdentifier(size_t start, size_t quote) {
    p_ = quote + 1;
    std::string text;
    while (true) {
      if (p_ >= s_.size()) Fail("unterminated quoted identifier", start, s_.size());
      if (s_[p_] == '"') {
        if (At(p_ + 1) == '"') {
          text += '"';
          p_ += 2;
          continue;
        }
        ++p_;
        break;
      }
      text += s_[p_++];
    }
    if (text.empty()) Fail("zero-length delimited identifier", start, p_);
    TruncateIdentifier(text);
    return Make(TokenKind::kQuotedIdent, start, std::move(text));
  }

  // After a closing quote: whitespace containing a newline (and -- comments)
  // followed by another quote continues the literal (SQL standard).
  bool ContinuesString() {
    size_t q = p_;
    bool newline = false;
    while (q < s_.size()) {
      char c = s_[q];
      if (c == '\n' || c == '\r') {
        newline = true;
        ++q;
      } else if (IsSpace(c)) {
        ++q;
      } else if (c == '-' && At(q + 1) == '-' && newline) {
        while (q < s_.size() && s_[q] != '\n' && s_[q] != '\r') ++q;
      } else {
        break;
      }
    }
    if (newline && At(q) == '\'') {
      p_ = q + 1;
      return true;
    }
    return false;
  }

  // The body of a '...' literal; p_ is at the opening quote. `escapes`: E''.
  std::string QuotedBody(size_t start, bool escapes, const char* unterminated) {
    ++p_;
    std::string out;
    while (true) {
      if (p_ >= s_.size()) Fail(unterminated, start, s_.size());
      char c = s_[p_];
      if (c == '\'') {
        if (At(p_ + 1) == '\'') {
          out += '\'';
          p_ += 2;
          continue;
        }
        ++p_;
        if (ContinuesString()) continue;
        return out;
      }
      if (c == '\\' && escapes) {
        EscapeSequence(out);
        continue;
      }
      out += c;
      ++p_;
    }
  }

  // One backslash escape of an E'' string; p_ is at the backslash.
  void EscapeSequence(std::string& out) {
    size_t esc = p_;
    char c = At(p_ + 1);
    p_ += 2;
    switch (c) {
      case 'b':
        out += '\b';
        return;
      case 'f':
        out += '\f';
        return;
      case 'n':
        out += '\n';
        return;
      case 'r':
        out += '\r';
        return;
      case 't':
        out += '\t';
        return;
      case '\0':
        if (esc + 1 >= s_.size()) return;  // the unterminated check follows
        break;
      default:
        break;
    }
    if (c >= '0' && c <= '7') {
      int v = c - '0';
      for (int i = 0; i < 2 && At(p_) >= '0' && At(p_) <= '7'; ++i) v = v * 8 + (s_[p_++] - '0');
      out += static_cast<char>(v);
    } else if (c == 'x' && HexValue(At(p_)) >= 0) {
      int v = HexValue(s_[p_++]);
      if (HexValue(At(p_)) >= 0) v = v * 16 + HexValue(s_[p_++]);
      out += static_cast<char>(v);
    } else if (c == 'u' || c == 'U') {
      int digits = c == 'u' ? 4 : 8;
      uint32_t cp = 0;
      for (int i = 0; i < digits; ++i) {
        int h = HexValue(At(p_ + i));
        if (h < 0) Fail("invalid Unicode escape", esc, p_ + i, sqlstate::kInvalidEscapeSequence);
        cp = cp * 16 + static_cast<uint32_t>(h);
      }
      p_ += digits;
      if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        Fail("invalid Unicode escape value", esc, p_, sqlstate::kSyntaxError);
      }
      AppendUtf8(out, cp);
    } else {
      // Any other character stands for itself (\\ \' and unknown escapes).
      size_t len = 1;
      while (p_ < s_.size() && (static_cast<unsigned char>(s_[p_]) & 0xC0) == 0x80) ++p_, ++len;
      out.append(s_.substr(esc + 1, len));
    }
  }

  Token QuotedString(size_t start, bool escapes) {
    std::string body = QuotedBody(start, escapes, "unterminated quoted string");
    // E'\xff', E'\000': escapes can spell bytes that are not UTF-8 (the
    // text itself was checked whole).
    if (size_t bad = escapes ? FindInvalidUtf8(body) : std::string_view::npos;
        bad != std::string_view::npos) {
      throw LexError{sqlstate::kCharacterNotInRepertoire, InvalidUtf8Message(body, bad),
                     static_cast<uint32_t>(start)};
    }
    return Make(TokenKind::kString, start, std::move(body));
  }

  Token BitString(size_t start, char prefix) {
    const char* unterminated = prefix == 'b' ? "unterminated bit string literal"
                                             : "unterminated hexadecimal string literal";
    std::string body = QuotedBody(start, false, unterminated);
    return Make(TokenKind::kBitString, start, prefix + body);
  }

  // U&'...' strings and U&"..." identifiers with \XXXX and \+XXXXXX escapes.
  Token UnicodeQuoted(size_t start) {
    p_ = start + 2;
    bool ident = s_[p_] == '"';
    std::string raw;
    if (ident) {
      raw = QuotedIdentifier(start, p_).text;
    } else {
      raw = QuotedBody(start, false, "unterminated quoted string");
    }
    std::string out;
    for (size_t i = 0; i < raw.size();) {
      if (raw[i] != '\\') {
        out += raw[i++];
        continue;
      }
      if (i + 1 < raw.size() && raw[i + 1] == '\\') {
        out += '\\';
        i += 2;
        continue;
      }
      int digits = (i + 1 < raw.size() && raw[i + 1] == '+') ? 6 : 4;
      size_t first = i + 1 + (digits == 6 ? 1 : 0);
      uint32_t cp = 0;
      for (int k = 0; k < digits; ++k) {
        int h = first + k < raw.size() ? HexValue(raw[first + k]) : -1;
        if (h < 0) Fail("invalid Unicode escape", start, p_, sqlstate::kInvalidEscapeSequence);
        cp = cp * 16 + static_cast<uint32_t>(h);
      }
      if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        Fail("invalid Unicode escape value", start, p_);
      }
      AppendUtf8(out, cp);
      i = first + digits;
    }
    if (ident) {
      TruncateIdentifier(out);
      return Make(TokenKind::kQuotedIdent, start, std::move(out));
    }
    return Make(TokenKind::kString, start, std::move(out));
  }

  Token Number(size_t start) {
    bool numeric = false;
    while (IsDigit(At(p_))) ++p_;
    if (At(p_) == '.' && At(p_ + 1) != '.') {
      numeric = true;
      ++p_;
      while (IsDigit(At(p_))) ++p_;
    }
    if (At(p_) == 'e' || At(p_) == 'E') {
      size_t q = p_ + 1;
      if (At(q) == '+' || At(q) == '-') ++q;
      if (IsDigit(At(q))) {
        numeric = true;
        p_ = q;
        while (IsDigit(At(p_))) ++p_;
      } else if (q != p_ + 1) {
        Fail("trailing junk after numeric literal", start, q);
      }
    }
    if (IsIdentStart(At(p_))) {
      size_t q = p_;
      while (IsIdentCont(At(q))) ++q;
      Fail("trailing junk after numeric literal", start, q);
    }
    return Make(numeric ? TokenKind::kNumeric : TokenKind::kInteger, start,
                std::string(s_.substr(start, p_ - start)));
  }

  // $n parameter, $tag$ dollar-quoted string, or a lone '$'.
  Token Dollar(size_t start) {
    if (IsDigit(At(p_ + 1))) {
      ++p_;
      int64_t n = 0;
      while (IsDigit(At(p_))) {
        n = std::min<int64_t>(n * 10 + (s_[p_] - '0'), INT32_MAX);
        ++p_;
      }
      if (IsIdentStart(At(p_))) {
        size_t q = p_;
        while (IsIdentCont(At(q))) ++q;
        Fail("trailing junk after parameter", start, q);
      }
      Token t = Make(TokenKind::kParam, start, std::string(s_.substr(start, p_ - start)));
      t.param = static_cast<int>(n);
      return t;
    }
    size_t q = p_ + 1;
    if (IsIdentStart(At(q)) && !IsDigit(At(q))) {
      while (IsDollarTagCont(At(q))) ++q;
    }
    if (At(q) == '$') {
      std::string_view delim = s_.substr(p_, q + 1 - p_);
      size_t body = q + 1;
      size_t close = s_.find(delim, body);
      if (close == std::string_view::npos) {
        Fail("unterminated dollar-quoted string", start, s_.size());
      }
      p_ = close + delim.size();
      return Make(TokenKind::kString, start, std::string(s_.substr(body, close - body)));
    }
    ++p_;
    return Make(TokenKind::kPunct, start, "$");
  }

  Token Operator(size_t start) {
    size_t q = p_;
    while (IsOpChar(At(q))) ++q;
    std::string_view op = s_.substr(p_, q - p_);
    // A comment start inside the run ends the operator.
    for (size_t i = 0; i + 1 < op.size(); ++i) {
      if ((op[i] == '/' && op[i + 1] == '*') || (op[i] == '-' && op[i + 1] == '-')) {
        op = op.substr(0, i);
        break;
      }
    }
    if (op.size() > 1 && (op.back() == '+' || op.back() == '-')) {
      if (op.find_first_of("~!@#^&|`?%") == std::string_view::npos) {
        while (op.size() > 1 && (op.back() == '+' || op.back() == '-')) op.remove_suffix(1);
      }
    }
    p_ += op.size();
    if (op == "!=") return Make(TokenKind::kOp, start, "<>");
    return Make(TokenKind::kOp, start, std::string(op));
  }

  std::string_view s_;
  size_t p_ = 0;
  size_t counted_ = 0;
  int chars_ = 0;
};

}  // namespace

std::vector<Token> Tokenize(std::string_view text) { return Lexer(text).Run(); }

}  // namespace forktail::sql
