#include "storage/value/array_text.h"

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

}  // namespace forktail
