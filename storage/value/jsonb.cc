#include "storage/value/jsonb.h"

#include <algorithm>
#include <climits>
#include <cstdio>

#include "storage/error.h"
#include "storage/value/utf8.h"

namespace forktail::jsonb {
namespace {

using Kind = Json::Kind;

// PostgreSQL has no fixed nesting limit, only its stack (about 15000 levels of
// arrays with the default max_stack_depth). The parser is iterative, but the
// printer, comparisons and Json's destructor recurse; a fixed limit keeps
// them within any thread's stack (a few hundred bytes a level, even under
// sanitizers).
constexpr int kMaxDepth = 10000;

// numeric's limits: a weight of at most 32767 base-10000 digits before the
// point, and a display scale of at most 16383.
constexpr int64_t kMaxIntegerDigits = 131072;
constexpr int64_t kMaxScale = 16383;

[[noreturn]] void SyntaxError(const std::string& detail) {
  throw DbError(sqlstate::kInvalidTextRepresentation,
                "invalid input syntax for type json\nDETAIL:  " + detail);
}

[[noreturn]] void NumericOverflow() {
  throw DbError(sqlstate::kNumericValueOutOfRange, "value overflows numeric format");
}

[[noreturn]] void InvalidParameter(const char* message) {
  throw DbError(sqlstate::kInvalidParameterValue, message);
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// PostgreSQL's lexer scans a run of these to report a whole bad word
// ("Token "truex" is invalid."), not just its first byte.
bool IsWordChar(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || IsDigit(static_cast<char>(c)) ||
         c == '_' || c >= 0x80;
}

size_t Utf8SequenceLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;
}

// A JSON number split into sign, all its mantissa digits (integer and
// fraction, leading zeros stripped) and the power of ten of the last digit:
// value = sign * digits * 10^last_exponent.
struct Decimal {
  bool negative = false;
  std::string digits;  // empty for zero
  int64_t last_exponent = 0;
  int64_t exponent = 0;  // as written after 'e'
  int64_t scale = 0;     // numeric's display scale: max(0, fractional digits - exponent)
};

// `text` must be JSON number syntax (the lexer checked it). Exponents are
// saturated far beyond numeric's range so nothing here overflows; callers
// decide what is out of range.
Decimal Decompose(std::string_view text) {
  Decimal d;
  size_t i = 0;
  if (i < text.size() && text[i] == '-') {
    d.negative = true;
    i++;
  }
  int64_t fraction_digits = 0;
  bool in_fraction = false;
  for (; i < text.size() && text[i] != 'e' && text[i] != 'E'; i++) {
    if (text[i] == '.') {
      in_fraction = true;
      continue;
    }
    if (in_fraction) fraction_digits++;
    if (d.digits.empty() && text[i] == '0') continue;
    d.digits += text[i];
  }
  int64_t exponent = 0;
  if (i < text.size()) {
    i++;  // 'e'
    bool exponent_negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) exponent_negative = text[i++] == '-';
    for (; i < text.size(); i++) {
      if (exponent < 1'000'000'000'000LL) exponent = exponent * 10 + (text[i] - '0');
    }
    if (exponent_negative) exponent = -exponent;
  }
  d.exponent = exponent;
  d.last_exponent = exponent - fraction_digits;
  d.scale = std::max<int64_t>(0, fraction_digits - exponent);
  if (d.digits.empty()) d.negative = false;  // numeric has no negative zero
  return d;
}

// Scalar equality as jsonb's containment and existence use it.
bool ScalarEquals(const Json& a, const Json& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Kind::kNull:
      return true;
    case Kind::kBool:
      return a.boolean == b.boolean;
    case Kind::kNumber:
      return CompareNumbers(a.number, b.number) == 0;
    case Kind::kString:
      return a.string == b.string;
    default:
      return false;
  }
}

bool IsScalar(const Json& j) { return j.kind != Kind::kArray && j.kind != Kind::kObject; }

bool KeyLess(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

// Puts pairs in jsonb order and keeps the last of each duplicate key, as
// jsonb_in does: a stable sort keeps duplicates in input order, so the last
// of each run is the one that came last.
void NormalizeObject(std::vector<JsonMember>& pairs) {
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const auto& x, const auto& y) { return KeyLess(x.first, y.first); });
  size_t out = 0;
  for (size_t i = 0; i < pairs.size(); i++) {
    if (i + 1 < pairs.size() && pairs[i].first == pairs[i + 1].first) continue;
    if (out != i) pairs[out] = std::move(pairs[i]);
    out++;
  }
  pairs.resize(out);
}

const Json* FindKey(const Json& object, std::string_view key) {
  auto it =
      std::lower_bound(object.object.begin(), object.object.end(), key,
                       [](const auto& pair, std::string_view k) { return KeyLess(pair.first, k); });
  if (it == object.object.end() || it->first != key) return nullptr;
  return &it->second;
}

// A JSON parser with PostgreSQL's lexer rules and error details.
// Like PostgreSQL's, it lexes one token ahead: a scalar's next token is read
// (and any lexical error in it raised) before the scalar is converted.
class Parser {
 public:
  explicit Parser(std::string_view in) : in_(in) {}

  Json ParseDocument();

 private:
  enum class Tok {
    kEnd,
    kLBrace,
    kRBrace,
    kLBracket,
    kRBracket,
    kComma,
    kColon,
    kString,
    kNumber,
    kTrue,
    kFalse,
    kNull
  };

  std::string_view TokenText() const { return in_.substr(start_, end_ - start_); }

  [[noreturn]] void InvalidToken(size_t end) {
    end_ = end;
    SyntaxError("Token \"" + std::string(TokenText()) + "\" is invalid.");
  }

  [[noreturn]] void Expected(const char* what) {
    if (tok_ == Tok::kEnd) SyntaxError("The input string ended unexpectedly.");
    SyntaxError(std::string("Expected ") + what + ", but found \"" + std::string(TokenText()) +
                "\".");
  }

  void Lex() {
    while (pos_ < in_.size() &&
           (in_[pos_] == ' ' || in_[pos_] == '\t' || in_[pos_] == '\n' || in_[pos_] == '\r')) {
      pos_++;
    }
    start_ = pos_;
    if (pos_ == in_.size()) {
      end_ = pos_;
      tok_ = Tok::kEnd;
      return;
    }
    const char c = in_[pos_];
    switch (c) {
      case '{':
        return Punctuation(Tok::kLBrace);
      case '}':
        return Punctuation(Tok::kRBrace);
      case '[':
        return Punctuation(Tok::kLBracket);
      case ']':
        return Punctuation(Tok::kRBracket);
      case ',':
        return Punctuation(Tok::kComma);
      case ':':
        return Punctuation(Tok::kColon);
      case '"':
        return LexString();
      default:
        break;
    }
    if (c == '-' || IsDigit(c)) return LexNumber();
    size_t p = pos_;
    while (p < in_.size() && IsWordChar(static_cast<unsigned char>(in_[p]))) p++;
    if (p == pos_) InvalidToken(pos_ + 1);
    const std::string_view word = in_.substr(pos_, p - pos_);
    if (word == "true") {
      tok_ = Tok::kTrue;
    } else if (word == "false") {
      tok_ = Tok::kFalse;
    } else if (word == "null") {
      tok_ = Tok::kNull;
    } else {
      InvalidToken(p);
    }
    pos_ = end_ = p;
  }

  void Punctuation(Tok t) {
    tok_ = t;
    end_ = ++pos_;
  }

  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, and no word characters
  // directly after it ("01" and "1.x" are single invalid tokens).
  void LexNumber() {
    size_t p = pos_;
    bool bad = false;
    const size_t n = in_.size();
    if (in_[p] == '-') p++;
    if (p < n && in_[p] == '0') {
      p++;
    } else if (p < n && IsDigit(in_[p])) {
      while (p < n && IsDigit(in_[p])) p++;
    } else {
      bad = true;
    }
    if (p < n && in_[p] == '.') {
      p++;
      if (p == n || !IsDigit(in_[p])) bad = true;
      while (p < n && IsDigit(in_[p])) p++;
    }
    if (p < n && (in_[p] == 'e' || in_[p] == 'E')) {
      p++;
      if (p < n && (in_[p] == '+' || in_[p] == '-')) p++;
      if (p == n || !IsDigit(in_[p])) bad = true;
      while (p < n && IsDigit(in_[p])) p++;
    }
    for (; p < n && IsWordChar(static_cast<unsigned char>(in_[p])); p++) bad = true;
    if (bad) InvalidToken(p);
    tok_ = Tok::kNumber;
    pos_ = end_ = p;
  }

  [[noreturn]] void LowSurrogateMissing() {
    SyntaxError("Unicode low surrogate must follow a high surrogate.");
  }

  // Decodes a string token into str_.
  void LexString() {
    const size_t n = in_.size();
    size_t p = pos_ + 1;
    int32_t high_surrogate = -1;
    str_.clear();
    for (;;) {
      if (p >= n) InvalidToken(n);
      const auto c = static_cast<unsigned char>(in_[p]);
      if (c == '"') break;
      if (c < 0x20) {
        char detail[64];
        std::snprintf(detail, sizeof detail, "Character with value 0x%02x must be escaped.", c);
        SyntaxError(detail);
      }
      if (c != '\\') {
        if (high_surrogate != -1) LowSurrogateMissing();
        str_ += static_cast<char>(c);
        p++;
        continue;
      }
      if (++p >= n) InvalidToken(n);
      const char e = in_[p];
      if (e != 'u') {
        if (high_surrogate != -1) LowSurrogateMissing();
        switch (e) {
          case '"':
          case '\\':
          case '/':
            str_ += e;
            break;
          case 'b':
            str_ += '\b';
            break;
          case 'f':
            str_ += '\f';
            break;
          case 'n':
            str_ += '\n';
            break;
          case 'r':
            str_ += '\r';
            break;
          case 't':
            str_ += '\t';
            break;
          default: {
            const size_t len = std::min(Utf8SequenceLength(static_cast<unsigned char>(e)), n - p);
            SyntaxError("Escape sequence \"\\" + std::string(in_.substr(p, len)) +
                        "\" is invalid.");
          }
        }
        p++;
        continue;
      }
      uint32_t cp = 0;
      for (int k = 0; k < 4; k++) {
        if (++p >= n) InvalidToken(n);
        const int h = HexValue(in_[p]);
        if (h < 0) SyntaxError("\"\\u\" must be followed by four hexadecimal digits.");
        cp = cp * 16 + static_cast<uint32_t>(h);
      }
      p++;
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (high_surrogate != -1) {
          SyntaxError("Unicode high surrogate must not follow a high surrogate.");
        }
        high_surrogate = static_cast<int32_t>(cp);
        continue;
      }
      if (cp >= 0xDC00 && cp <= 0xDFFF) {
        if (high_surrogate == -1) LowSurrogateMissing();
        cp = 0x10000 + ((static_cast<uint32_t>(high_surrogate) - 0xD800) << 10) + (cp - 0xDC00);
        high_surrogate = -1;
      }
      if (high_surrogate != -1) LowSurrogateMissing();
      if (cp == 0) {
        // text cannot hold NUL, so jsonb refuses it (json, which keeps the
        // escape as written, would not).
        throw DbError("22P05",
                      "unsupported Unicode escape sequence\nDETAIL:  \\u0000 cannot be converted "
                      "to text.");
      }
      AppendUtf8(str_, cp);
    }
    if (high_surrogate != -1) LowSurrogateMissing();
    tok_ = Tok::kString;
    pos_ = end_ = p + 1;
  }

  // Fills `out` with the scalar the current token starts, or returns false
  // for '{' and '['.
  bool ParseScalar(Json& out) {
    switch (tok_) {
      case Tok::kLBrace:
      case Tok::kLBracket:
        return false;
      case Tok::kString:
        out.kind = Kind::kString;
        out.string = std::move(str_);
        Lex();
        return true;
      case Tok::kNumber: {
        const std::string_view text = TokenText();
        Lex();
        out.kind = Kind::kNumber;
        out.number = CanonicalNumber(text);
        return true;
      }
      case Tok::kTrue:
      case Tok::kFalse:
        out.kind = Kind::kBool;
        out.boolean = tok_ == Tok::kTrue;
        Lex();
        return true;
      case Tok::kNull:
        out.kind = Kind::kNull;
        Lex();
        return true;
      default:
        Expected("JSON value");
    }
  }

  // At a key: adds the pair, consumes the key and ':', and returns the slot of
  // its value.
  Json* BeginPair(Json& object) {
    object.object.emplace_back(std::move(str_), Json());
    Lex();
    if (tok_ != Tok::kColon) Expected("\":\"");
    Lex();
    return &object.object.back().second;
  }

  std::string_view in_;
  size_t pos_ = 0;
  Tok tok_ = Tok::kEnd;
  size_t start_ = 0;  // the current token's bytes, for error details
  size_t end_ = 0;
  std::string str_;  // the current string token, decoded
};

// Iterative, with the open containers on a heap stack, so that nesting is
// bounded by kMaxDepth and not by the thread's stack. The pointers stay valid:
// a container's vector only grows once its last child is complete.
Json Parser::ParseDocument() {
  Json root;
  Lex();
  std::vector<Json*> open;
  Json* slot = &root;  // where the next value goes
  for (;;) {
    if (!ParseScalar(*slot)) {
      if (open.size() >= static_cast<size_t>(kMaxDepth)) {
        throw DbError("54001", "stack depth limit exceeded");
      }
      const bool is_object = tok_ == Tok::kLBrace;
      slot->kind = is_object ? Kind::kObject : Kind::kArray;
      Lex();
      if (tok_ != (is_object ? Tok::kRBrace : Tok::kRBracket)) {
        open.push_back(slot);
        if (!is_object) {
          slot = &slot->array.emplace_back();
          continue;
        }
        if (tok_ != Tok::kString) Expected("string or \"}\"");
        slot = BeginPair(*slot);
        continue;
      }
      Lex();  // an empty container is complete
    }
    // A value is complete: close containers until one takes another value.
    for (;;) {
      if (open.empty()) {
        if (tok_ != Tok::kEnd) Expected("end of input");
        return root;
      }
      Json& container = *open.back();
      if (container.kind == Kind::kObject) {
        if (tok_ == Tok::kComma) {
          Lex();
          if (tok_ != Tok::kString) Expected("string");
          slot = BeginPair(container);
          break;
        }
        if (tok_ != Tok::kRBrace) Expected("\",\" or \"}\"");
        NormalizeObject(container.object);
      } else {
        if (tok_ == Tok::kComma) {
          Lex();
          slot = &container.array.emplace_back();
          break;
        }
        if (tok_ != Tok::kRBracket) Expected("\",\" or \"]\"");
      }
      Lex();
      open.pop_back();
    }
  }
}

void AppendQuoted(std::string& out, std::string_view s) {
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

void AppendScalar(std::string& out, const Json& j) {
  switch (j.kind) {
    case Kind::kNull:
      out += "null";
      break;
    case Kind::kBool:
      out += j.boolean ? "true" : "false";
      break;
    case Kind::kNumber:
      out += j.number;
      break;
    case Kind::kString:
      AppendQuoted(out, j.string);
      break;
    default:
      break;
  }
}

void AppendJson(std::string& out, const Json& j) {
  if (j.kind == Kind::kArray) {
    out += '[';
    for (size_t i = 0; i < j.array.size(); i++) {
      if (i) out += ", ";
      AppendJson(out, j.array[i]);
    }
    out += ']';
  } else if (j.kind == Kind::kObject) {
    out += '{';
    for (size_t i = 0; i < j.object.size(); i++) {
      if (i) out += ", ";
      AppendQuoted(out, j.object[i].first);
      out += ": ";
      AppendJson(out, j.object[i].second);
    }
    out += '}';
  } else {
    AppendScalar(out, j);
  }
}

void AppendIndent(std::string& out, int level) { out.append(static_cast<size_t>(level) * 4, ' '); }

// jsonb_pretty's layout: every element and pair on its own line, the closing
// bracket on a line of its own even when the container is empty.
void AppendPretty(std::string& out, const Json& j, int level) {
  if (IsScalar(j)) return AppendScalar(out, j);
  const bool is_array = j.kind == Kind::kArray;
  out += is_array ? '[' : '{';
  const size_t n = is_array ? j.array.size() : j.object.size();
  for (size_t i = 0; i < n; i++) {
    out += i ? ",\n" : "\n";
    AppendIndent(out, level + 1);
    if (is_array) {
      AppendPretty(out, j.array[i], level + 1);
    } else {
      AppendQuoted(out, j.object[i].first);
      out += ": ";
      AppendPretty(out, j.object[i].second, level + 1);
    }
  }
  out += '\n';
  AppendIndent(out, level);
  out += is_array ? ']' : '}';
}

// The kinds' rank in PostgreSQL's btree order (its JsonbValue type numbers).
int Rank(Kind k) {
  switch (k) {
    case Kind::kNull:
      return 0;
    case Kind::kString:
      return 1;
    case Kind::kNumber:
      return 2;
    case Kind::kBool:
      return 3;
    case Kind::kArray:
      return 4;
    case Kind::kObject:
      return 5;
  }
  return 0;
}

int Sign(int64_t v) { return v < 0 ? -1 : v > 0 ? 1 : 0; }

// Compares two values below the top level (or two top-level objects).
int CompareNested(const Json& a, const Json& b) {
  if (a.kind != b.kind) return Rank(a.kind) < Rank(b.kind) ? -1 : 1;
  switch (a.kind) {
    case Kind::kNull:
      return 0;
    case Kind::kBool:
      return Sign(static_cast<int>(a.boolean) - static_cast<int>(b.boolean));
    case Kind::kNumber:
      return CompareNumbers(a.number, b.number);
    case Kind::kString:
      return Sign(a.string.compare(b.string));
    case Kind::kArray:
      if (a.array.size() != b.array.size()) return a.array.size() < b.array.size() ? -1 : 1;
      for (size_t i = 0; i < a.array.size(); i++) {
        if (int c = CompareNested(a.array[i], b.array[i])) return c;
      }
      return 0;
    case Kind::kObject:
      if (a.object.size() != b.object.size()) return a.object.size() < b.object.size() ? -1 : 1;
      // Pairs in jsonb order: key, value, next key... so a shorter key sorts
      // first only through its position, and keys then compare by bytes.
      for (size_t i = 0; i < a.object.size(); i++) {
        if (int c = Sign(a.object[i].first.compare(b.object[i].first))) return c;
        if (int c = CompareNested(a.object[i].second, b.object[i].second)) return c;
      }
      return 0;
  }
  return 0;
}

int CompareTop(const Json& a, const Json& b) {
  const bool a_object = a.kind == Kind::kObject;
  const bool b_object = b.kind == Kind::kObject;
  // A top-level scalar is a one-element "raw scalar" array in PostgreSQL, so
  // an object is above every array and scalar.
  if (a_object != b_object) return a_object ? 1 : -1;
  if (a_object) return CompareNested(a, b);
  const bool a_raw = IsScalar(a);
  const bool b_raw = IsScalar(b);
  const size_t a_size = a_raw ? 1 : a.array.size();
  const size_t b_size = b_raw ? 1 : b.array.size();
  // PostgreSQL compares the raw-scalar flag first, then lets the element
  // count override it: a scalar sorts before any non-empty array, after '[]'.
  int res = 0;
  if (a_raw != b_raw) res = a_raw ? -1 : 1;
  if (a_size != b_size) res = a_size < b_size ? -1 : 1;
  if (res != 0) return res;
  for (size_t i = 0; i < a_size; i++) {
    const Json& x = a_raw ? a : a.array[i];
    const Json& y = b_raw ? b : b.array[i];
    if (int c = CompareNested(x, y)) return c;
  }
  return 0;
}

// PostgreSQL's deepContains for two containers of the same nesting level;
// `val` or `contained` may be a top-level scalar standing for its raw-scalar
// array.
bool DeepContains(const Json& val, const Json& contained) {
  if (val.kind == Kind::kObject || contained.kind == Kind::kObject) {
    if (val.kind != contained.kind) return false;
    if (contained.object.size() > val.object.size()) return false;
    for (const auto& [key, cv] : contained.object) {
      const Json* vv = FindKey(val, key);
      if (vv == nullptr) return false;
      if (IsScalar(cv)) {
        if (!ScalarEquals(*vv, cv)) return false;
      } else if (IsScalar(*vv) || !DeepContains(*vv, cv)) {
        return false;
      }
    }
    return true;
  }
  const bool val_raw = IsScalar(val);
  const bool contained_raw = IsScalar(contained);
  if (val_raw && !contained_raw) return false;
  const size_t val_size = val_raw ? 1 : val.array.size();
  const size_t contained_size = contained_raw ? 1 : contained.array.size();
  for (size_t i = 0; i < contained_size; i++) {
    const Json& ce = contained_raw ? contained : contained.array[i];
    bool found = false;
    for (size_t k = 0; k < val_size && !found; k++) {
      const Json& ve = val_raw ? val : val.array[k];
      if (IsScalar(ce)) {
        found = ScalarEquals(ve, ce);
      } else {
        found = !IsScalar(ve) && DeepContains(ve, ce);
      }
    }
    if (!found) return false;
  }
  return true;
}

// strtoint(text, &end, 10) accepting only the whole string, as PostgreSQL
// reads array subscripts in paths: leading whitespace and a sign are allowed,
// trailing characters and values outside int4 are not.
std::optional<int64_t> ParsePathIndex(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))) i++;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  if (i == s.size()) return std::nullopt;
  int64_t v = 0;
  for (; i < s.size(); i++) {
    if (!IsDigit(s[i])) return std::nullopt;
    v = v * 10 + (s[i] - '0');
    if (v > static_cast<int64_t>(INT_MAX) + 1) return std::nullopt;
  }
  if (negative) v = -v;
  if (v > INT_MAX || v < INT_MIN) return std::nullopt;
  return v;
}

enum class PathOp { kDelete, kReplace, kCreate };

[[noreturn]] void PathStepNotInteger(size_t level, const std::string& step) {
  std::string message = "path element at position " + std::to_string(level + 1);
  message += " is not an integer: \"" + step + "\"";
  throw DbError(sqlstate::kInvalidTextRepresentation, std::move(message));
}

void SetPathIn(Json& node, const std::vector<std::string>& path, size_t level, const Json* value,
               PathOp op);

void SetPathObject(Json& object, const std::vector<std::string>& path, size_t level,
                   const Json* value, PathOp op) {
  const std::string& key = path[level];
  const bool last = level + 1 == path.size();
  auto it = std::lower_bound(
      object.object.begin(), object.object.end(), key,
      [](const auto& pair, const std::string& k) { return KeyLess(pair.first, k); });
  if (it != object.object.end() && it->first == key) {
    if (!last) return SetPathIn(it->second, path, level + 1, value, op);
    if (op == PathOp::kDelete) {
      object.object.erase(it);
    } else {
      it->second = *value;
    }
    return;
  }
  // Only the last step is ever created: jsonb_set does not build the missing
  // objects in between.
  if (last && op == PathOp::kCreate) object.object.emplace(it, key, *value);
}

void SetPathArray(Json& array, const std::vector<std::string>& path, size_t level,
                  const Json* value, PathOp op) {
  const std::optional<int64_t> parsed = ParsePathIndex(path[level]);
  if (!parsed) PathStepNotInteger(level, path[level]);
  const bool last = level + 1 == path.size();
  const auto n = static_cast<int64_t>(array.array.size());
  int64_t index = *parsed;
  bool before_start = false;
  if (index < 0) {
    if (-index > n) {
      before_start = true;
    } else {
      index += n;
    }
  }
  if ((before_start || n == 0) && last && op == PathOp::kCreate) {
    array.array.insert(array.array.begin(), *value);
    return;
  }
  if (before_start) return;
  if (index < n) {
    if (!last) return SetPathIn(array.array[index], path, level + 1, value, op);
    if (op == PathOp::kDelete) {
      array.array.erase(array.array.begin() + index);
    } else {
      array.array[index] = *value;
    }
    return;
  }
  // Past the end: jsonb_set appends (it does not pad with nulls).
  if (last && op == PathOp::kCreate) array.array.push_back(*value);
}

// PostgreSQL's setPath: a step into a scalar leaves it unchanged.
void SetPathIn(Json& node, const std::vector<std::string>& path, size_t level, const Json* value,
               PathOp op) {
  if (node.kind == Kind::kObject) {
    SetPathObject(node, path, level, value, op);
  } else if (node.kind == Kind::kArray) {
    SetPathArray(node, path, level, value, op);
  }
}

size_t ContainerSize(const Json& j) {
  return j.kind == Kind::kArray ? j.array.size() : j.object.size();
}

void StripNullsIn(Json& j) {
  if (j.kind == Kind::kArray) {
    for (Json& e : j.array) StripNullsIn(e);
  } else if (j.kind == Kind::kObject) {
    size_t kept = 0;
    for (size_t i = 0; i < j.object.size(); i++) {
      if (j.object[i].second.kind == Kind::kNull) continue;
      if (kept != i) j.object[kept] = std::move(j.object[i]);
      StripNullsIn(j.object[kept++].second);
    }
    j.object.resize(kept);
  }
}

}  // namespace

std::string CanonicalNumber(std::string_view json_number) {
  const Decimal d = Decompose(json_number);
  // numeric_in refuses exponents past INT_MAX / 2 outright, even for zero.
  if (d.exponent > INT_MAX / 2 || d.exponent < -(INT_MAX / 2)) NumericOverflow();
  if (d.scale > kMaxScale) NumericOverflow();
  const auto ndigits = static_cast<int64_t>(d.digits.size());
  if (ndigits == 0) return d.scale > 0 ? "0." + std::string(d.scale, '0') : "0";
  if (ndigits + d.last_exponent > kMaxIntegerDigits) NumericOverflow();
  std::string out = d.negative ? "-" : "";
  if (d.last_exponent >= 0) {
    out += d.digits;
    out.append(d.last_exponent, '0');
  } else if (ndigits > d.scale) {
    out.append(d.digits, 0, ndigits - d.scale);
    out += '.';
    out.append(d.digits, ndigits - d.scale);
  } else {
    out += "0.";
    out.append(d.scale - ndigits, '0');
    out += d.digits;
  }
  return out;
}

int CompareNumbers(std::string_view a, std::string_view b) {
  Decimal x = Decompose(a);
  Decimal y = Decompose(b);
  // Trailing zeros only change the scale, not the value.
  for (Decimal* d : {&x, &y}) {
    while (!d->digits.empty() && d->digits.back() == '0') {
      d->digits.pop_back();
      d->last_exponent++;
    }
  }
  const int x_sign = x.digits.empty() ? 0 : x.negative ? -1 : 1;
  const int y_sign = y.digits.empty() ? 0 : y.negative ? -1 : 1;
  if (x_sign != y_sign) return x_sign < y_sign ? -1 : 1;
  if (x_sign == 0) return 0;
  // Magnitudes: the power of ten of the leading digit first, then the digits.
  const int64_t x_lead = x.last_exponent + static_cast<int64_t>(x.digits.size());
  const int64_t y_lead = y.last_exponent + static_cast<int64_t>(y.digits.size());
  int magnitude = x_lead != y_lead ? (x_lead < y_lead ? -1 : 1) : Sign(x.digits.compare(y.digits));
  return x_sign * magnitude;
}

Json Parse(std::string_view text) {
  CheckUtf8(text);
  return Parser(text).ParseDocument();
}

std::string Serialize(const Json& j) {
  std::string out;
  AppendJson(out, j);
  return out;
}

std::string Canonicalize(std::string_view text) { return Serialize(Parse(text)); }

std::string Quote(std::string_view utf8) {
  std::string out;
  AppendQuoted(out, utf8);
  return out;
}

std::optional<std::string> Field(std::string_view j, std::string_view key) {
  const Json root = Parse(j);
  if (root.kind != Kind::kObject) return std::nullopt;
  const Json* v = FindKey(root, key);
  if (v == nullptr) return std::nullopt;
  return Serialize(*v);
}

std::optional<std::string> Element(std::string_view j, int64_t index) {
  const Json root = Parse(j);
  if (root.kind == Kind::kObject) return std::nullopt;
  const bool raw = IsScalar(root);
  const auto n = static_cast<int64_t>(raw ? 1 : root.array.size());
  if (index < 0) index += n;
  if (index < 0 || index >= n) return std::nullopt;
  return Serialize(raw ? root : root.array[index]);
}

std::optional<std::string> Path(std::string_view j, const std::vector<std::string>& path) {
  const Json root = Parse(j);
  const Json* node = &root;
  for (const std::string& step : path) {
    if (node->kind == Kind::kObject) {
      node = FindKey(*node, step);
      if (node == nullptr) return std::nullopt;
    } else if (node->kind == Kind::kArray) {
      std::optional<int64_t> index = ParsePathIndex(step);
      if (!index) return std::nullopt;
      const auto n = static_cast<int64_t>(node->array.size());
      if (*index < 0) *index += n;
      if (*index < 0 || *index >= n) return std::nullopt;
      node = &node->array[*index];
    } else {
      return std::nullopt;
    }
  }
  return Serialize(*node);
}

std::optional<std::string> Text(std::string_view j) {
  Json root = Parse(j);
  if (root.kind == Kind::kNull) return std::nullopt;
  if (root.kind == Kind::kString) return std::move(root.string);
  return Serialize(root);
}

bool Contains(std::string_view a, std::string_view b) {
  const Json val = Parse(a);
  const Json contained = Parse(b);
  if ((val.kind == Kind::kObject) != (contained.kind == Kind::kObject)) return false;
  return DeepContains(val, contained);
}

bool Exists(std::string_view j, std::string_view key) {
  const Json root = Parse(j);
  switch (root.kind) {
    case Kind::kObject:
      return FindKey(root, key) != nullptr;
    case Kind::kArray:
      return std::any_of(root.array.begin(), root.array.end(),
                         [&](const Json& e) { return e.kind == Kind::kString && e.string == key; });
    case Kind::kString:
      return root.string == key;
    default:
      return false;
  }
}

std::string Concat(std::string_view a, std::string_view b) {
  Json x = Parse(a);
  Json y = Parse(b);
  if (x.kind == Kind::kObject && y.kind == Kind::kObject) {
    for (auto& pair : y.object) x.object.push_back(std::move(pair));
    NormalizeObject(x.object);
    return Serialize(x);
  }
  Json out;
  out.kind = Kind::kArray;
  for (Json* side : {&x, &y}) {
    if (side->kind == Kind::kArray) {
      for (Json& e : side->array) out.array.push_back(std::move(e));
    } else {
      out.array.push_back(std::move(*side));
    }
  }
  return Serialize(out);
}

std::string DeleteKey(std::string_view j, std::string_view key) {
  Json root = Parse(j);
  if (IsScalar(root)) InvalidParameter("cannot delete from scalar");
  if (root.kind == Kind::kObject) {
    std::erase_if(root.object, [&](const auto& pair) { return pair.first == key; });
  } else {
    std::erase_if(root.array,
                  [&](const Json& e) { return e.kind == Kind::kString && e.string == key; });
  }
  return Serialize(root);
}

std::string DeleteIndex(std::string_view j, int64_t index) {
  Json root = Parse(j);
  if (IsScalar(root)) InvalidParameter("cannot delete from scalar");
  if (root.kind == Kind::kObject) InvalidParameter("cannot delete from object using integer index");
  const auto n = static_cast<int64_t>(root.array.size());
  if (index < 0) index += n;
  if (index >= 0 && index < n) root.array.erase(root.array.begin() + index);
  return Serialize(root);
}

std::string DeletePath(std::string_view j, const std::vector<std::string>& path) {
  Json root = Parse(j);
  if (IsScalar(root)) InvalidParameter("cannot delete path in scalar");
  if (ContainerSize(root) == 0 || path.empty()) return Serialize(root);
  SetPathIn(root, path, 0, nullptr, PathOp::kDelete);
  return Serialize(root);
}

std::string Set(std::string_view j, const std::vector<std::string>& path, std::string_view value,
                bool create_missing) {
  Json root = Parse(j);
  const Json new_value = Parse(value);
  if (IsScalar(root)) InvalidParameter("cannot set path in scalar");
  if ((ContainerSize(root) == 0 && !create_missing) || path.empty()) return Serialize(root);
  SetPathIn(root, path, 0, &new_value, create_missing ? PathOp::kCreate : PathOp::kReplace);
  return Serialize(root);
}

std::string TypeOf(std::string_view j) {
  switch (Parse(j).kind) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return "boolean";
    case Kind::kNumber:
      return "number";
    case Kind::kString:
      return "string";
    case Kind::kArray:
      return "array";
    case Kind::kObject:
      return "object";
  }
  return "null";
}

int64_t ArrayLength(std::string_view j) {
  const Json root = Parse(j);
  if (IsScalar(root)) InvalidParameter("cannot get array length of a scalar");
  if (root.kind == Kind::kObject) InvalidParameter("cannot get array length of a non-array");
  return static_cast<int64_t>(root.array.size());
}

std::vector<std::string> ObjectKeys(std::string_view j) {
  Json root = Parse(j);
  if (IsScalar(root)) InvalidParameter("cannot call jsonb_object_keys on a scalar");
  if (root.kind == Kind::kArray) InvalidParameter("cannot call jsonb_object_keys on an array");
  std::vector<std::string> keys;
  keys.reserve(root.object.size());
  for (auto& pair : root.object) keys.push_back(std::move(pair.first));
  return keys;
}

std::vector<std::string> ArrayElements(std::string_view j) {
  const Json root = Parse(j);
  if (IsScalar(root)) InvalidParameter("cannot extract elements from a scalar");
  if (root.kind == Kind::kObject) InvalidParameter("cannot extract elements from an object");
  std::vector<std::string> elements;
  elements.reserve(root.array.size());
  for (const Json& e : root.array) elements.push_back(Serialize(e));
  return elements;
}

std::vector<std::pair<std::string, std::string>> Each(std::string_view j) {
  Json root = Parse(j);
  if (root.kind != Kind::kObject) InvalidParameter("cannot call jsonb_each on a non-object");
  std::vector<std::pair<std::string, std::string>> pairs;
  pairs.reserve(root.object.size());
  for (auto& pair : root.object) pairs.emplace_back(std::move(pair.first), Serialize(pair.second));
  return pairs;
}

std::string StripNulls(std::string_view j) {
  Json root = Parse(j);
  StripNullsIn(root);
  return Serialize(root);
}

std::string Pretty(std::string_view j) {
  std::string out;
  AppendPretty(out, Parse(j), 0);
  return out;
}

int Compare(std::string_view a, std::string_view b) { return CompareTop(Parse(a), Parse(b)); }

std::string ObjectFromPairs(const std::vector<std::pair<std::string, std::string>>& key_and_json) {
  Json out;
  out.kind = Kind::kObject;
  out.object.reserve(key_and_json.size());
  for (const auto& [key, json] : key_and_json) out.object.emplace_back(key, Parse(json));
  NormalizeObject(out.object);
  return Serialize(out);
}

std::string ArrayFromElements(const std::vector<std::string>& json_elements) {
  Json out;
  out.kind = Kind::kArray;
  out.array.reserve(json_elements.size());
  for (const std::string& e : json_elements) out.array.push_back(Parse(e));
  return Serialize(out);
}

namespace {

// A numeric's text without the trailing zeros of its fraction ("-0" is 0).
void ShortestNumbers(Json* j) {
  switch (j->kind) {
    case Json::Kind::kNumber: {
      std::string& n = j->number;
      if (n.find('.') != std::string::npos) {
        while (n.back() == '0') n.pop_back();
        if (n.back() == '.') n.pop_back();
      }
      if (n == "-0") n = "0";
      break;
    }
    case Json::Kind::kArray:
      for (Json& e : j->array) ShortestNumbers(&e);
      break;
    case Json::Kind::kObject:
      for (auto& [key, value] : j->object) ShortestNumbers(&value);
      break;
    default:
      break;
  }
}

}  // namespace

std::string EqualityText(std::string_view j) {
  // Only numbers can be written two ways in canonical text.
  if (j.find_first_of("0123456789") == std::string_view::npos) return std::string(j);
  Json tree = Parse(j);
  ShortestNumbers(&tree);
  return Serialize(tree);
}

}  // namespace forktail::jsonb
