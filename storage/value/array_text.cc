#include "storage/value/array_text.h"

#include <algorithm>

#include "storage/error.h"
#include "storage/value/value.h"

namespace forktail {

namespace {

bool NeedsQuotes(std::string_view s) {
  if (s.empty()) return true;
  std::string lower;
  for (char c : s) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  if (lower == "null") return true;
  for (char c : s) {
    if (c == '"' || c == '\\' || c == '{' || c == '}' || c == ',' || c == ' ' || c == '\t' ||
        c == '\n') {
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<std::optional<std::string>> ParseArrayText(std::string_view s) {
  std::vector<std::optional<std::string>> out;
  if (s.empty() || s.front() != '{') {  // int2vector / oidvector: "1 2"
    size_t i = 0;
    while (i < s.size()) {
      while (i < s.size() && s[i] == ' ') i++;
      size_t j = i;
      while (j < s.size() && s[j] != ' ') j++;
      if (j > i) out.emplace_back(std::string(s.substr(i, j - i)));
      i = j;
    }
    return out;
  }
  size_t i = 1;
  size_t end = s.size() - (s.back() == '}' ? 1 : 0);
  while (i < end) {
    while (i < end && s[i] == ' ') i++;
    std::string item;
    bool quoted = false;
    if (i < end && s[i] == '"') {
      quoted = true;
      for (i++; i < end && s[i] != '"'; i++) {
        if (s[i] == '\\' && i + 1 < end) i++;
        item += s[i];
      }
      i++;  // the closing quote
    }
    while (i < end && s[i] != ',') {
      if (!quoted) item += s[i];
      i++;
    }
    while (!quoted && !item.empty() && item.back() == ' ') item.pop_back();
    if (!quoted && (item == "NULL" || item == "null")) {
      out.emplace_back(std::nullopt);
    } else if (quoted || !item.empty()) {
      out.emplace_back(std::move(item));
    }
    i++;  // the comma
  }
  return out;
}

std::string FormatArrayText(const std::vector<std::optional<std::string>>& elements) {
  std::string s = "{";
  for (size_t i = 0; i < elements.size(); i++) {
    if (i > 0) s += ',';
    if (!elements[i]) {
      s += "NULL";
    } else if (NeedsQuotes(*elements[i])) {
      s += '"';
      for (char c : *elements[i]) {
        if (c == '"' || c == '\\') s += '\\';
        s += c;
      }
      s += '"';
    } else {
      s += *elements[i];
    }
  }
  return s + "}";
}

namespace {

[[noreturn]] void Malformed(std::string_view text) {
  throw DbError(sqlstate::kInvalidTextRepresentation,
                "malformed array literal: \"" + std::string(text) + "\"");
}

bool IsArraySpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// The element type to read an element as: a numeric element keeps the
// scale it was written with ('{1.50}' prints 1.50, as in PostgreSQL), so
// DECIMAL elements are read at the scale of their own digits.
Type ElementTypeFor(const Type& element, std::string_view item) {
  if (element.id != TypeId::kDecimal) return element;
  size_t dot = item.find('.');
  int scale = 0;
  if (dot != std::string_view::npos) {
    for (size_t i = dot + 1; i < item.size() && item[i] >= '0' && item[i] <= '9'; i++) scale++;
  }
  if (item.find_first_of("eE") != std::string_view::npos) scale = 4;
  scale = std::min(scale, kMaxDecimalPrecision - 1);
  return Type::Decimal(kMaxDecimalPrecision, scale);
}

Value ParseElement(const Type& element, std::string_view item) {
  return Value::Parse(ElementTypeFor(element, item), item);
}

}  // namespace

std::string CanonicalArrayText(std::string_view text, const Type& element) {
  size_t i = 0;
  const size_t n = text.size();
  while (i < n && IsArraySpace(text[i])) i++;
  if (i < n && text[i] == '[') {
    throw DbError(sqlstate::kFeatureNotSupported,
                  "array bounds (\"" + std::string(text) + "\") are not supported");
  }
  if (i >= n || text[i] != '{') Malformed(text);
  i++;
  std::vector<std::optional<std::string>> elements;
  bool expect_element = true;  // after '{' or ','
  bool closed = false;
  while (i < n) {
    while (i < n && IsArraySpace(text[i])) i++;
    if (i >= n) break;
    char c = text[i];
    if (c == '}') {
      if (!elements.empty() && expect_element) Malformed(text);
      closed = true;
      i++;
      break;
    }
    if (c == '{') {
      throw DbError(sqlstate::kFeatureNotSupported,
                    "multidimensional arrays are not supported: \"" + std::string(text) + "\"");
    }
    if (c == ',') {
      if (expect_element) Malformed(text);
      expect_element = true;
      i++;
      continue;
    }
    if (!expect_element) Malformed(text);
    // One element: quoted, or unquoted characters; backslash escapes.
    std::string item;
    bool any_quoted = false;
    size_t unquoted_end = 0;  // item's length after its last unquoted non-space
    while (i < n) {
      c = text[i];
      if (c == '"') {
        if (any_quoted || !item.empty()) Malformed(text);  // quotes only around a whole element
        any_quoted = true;
        for (i++; i < n && text[i] != '"'; i++) {
          if (text[i] == '\\') {
            if (++i >= n) break;
          }
          item += text[i];
        }
        if (i >= n) Malformed(text);
        i++;
        while (i < n && IsArraySpace(text[i])) i++;
        if (i < n && text[i] != ',' && text[i] != '}') Malformed(text);
        unquoted_end = item.size();
        continue;
      }
      if (c == ',' || c == '}') break;
      if (c == '{') Malformed(text);
      if (c == '\\') {
        if (++i >= n) Malformed(text);
        item += text[i++];
        unquoted_end = item.size();
        continue;
      }
      item += c;
      if (!IsArraySpace(c)) unquoted_end = item.size();
      i++;
    }
    item.resize(unquoted_end);  // trailing blanks outside quotes are not part of it
    if (!any_quoted && item.size() == 4 && (item[0] | 0x20) == 'n' && (item[1] | 0x20) == 'u' &&
        (item[2] | 0x20) == 'l' && (item[3] | 0x20) == 'l') {
      elements.emplace_back(std::nullopt);
    } else {
      elements.emplace_back(ParseElement(element, item).ToString());
    }
    expect_element = false;
  }
  if (!closed) Malformed(text);
  while (i < n && IsArraySpace(text[i])) i++;
  if (i < n) Malformed(text);
  return FormatArrayText(elements);
}

namespace {

// Whether some element of `b` equals `x` (not NULL).
bool AnyEquals(const std::string& x, const std::vector<std::optional<std::string>>& b,
               const Type& element) {
  for (const std::optional<std::string>& y : b) {
    if (y && CompareArrayElements(x, *y, element) == 0) return true;
  }
  return false;
}

}  // namespace

int CompareArrayElements(std::string_view x, std::string_view y, const Type& element) {
  if (element.IsString()) {
    return Value::String(element, std::string(x)).Compare(Value::String(element, std::string(y)));
  }
  return ParseElement(element, x).Compare(ParseElement(element, y));
}

int CompareArrayText(std::string_view a, std::string_view b, const Type& element) {
  if (a == b) return 0;
  std::vector<std::optional<std::string>> x = ParseArrayText(a), y = ParseArrayText(b);
  for (size_t i = 0; i < x.size() && i < y.size(); i++) {
    if (!x[i] || !y[i]) {
      if (!x[i] && !y[i]) continue;
      return x[i] ? -1 : 1;  // NULL elements sort above all others
    }
    if (int c = CompareArrayElements(*x[i], *y[i], element); c != 0) return c;
  }
  return (x.size() > y.size()) - (x.size() < y.size());
}

bool ArrayContains(std::string_view a, std::string_view b, const Type& element) {
  std::vector<std::optional<std::string>> x = ParseArrayText(a), y = ParseArrayText(b);
  for (const std::optional<std::string>& e : y) {
    if (!e || !AnyEquals(*e, x, element)) return false;
  }
  return true;
}

bool ArrayOverlaps(std::string_view a, std::string_view b, const Type& element) {
  std::vector<std::optional<std::string>> x = ParseArrayText(a), y = ParseArrayText(b);
  for (const std::optional<std::string>& e : x) {
    if (e && AnyEquals(*e, y, element)) return true;
  }
  return false;
}

}  // namespace forktail
