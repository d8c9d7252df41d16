#include "storage/value/utf8.h"

#include <cstdio>

#include "storage/error.h"

namespace forktail {
namespace {

// The length a sequence starting with `lead` claims (1 for a byte that
// cannot start one), as PostgreSQL's pg_utf_mblen.
size_t ClaimedLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;
}

}  // namespace

size_t FindInvalidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    if (c >= 0x01 && c < 0x80) {  // ASCII, the common case
      ++i;
      continue;
    }
    if (c == 0) return i;
    const size_t len = ClaimedLength(c);
    if (len == 1 || i + len > n) return i;
    uint32_t cp = c & (0x7F >> len);
    for (size_t k = 1; k < len; k++) {
      if ((p[i + k] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    const uint32_t min = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += len;
  }
  return std::string_view::npos;
}

std::string InvalidUtf8Message(std::string_view s, size_t at) {
  std::string bytes;
  const size_t len = std::min(ClaimedLength(static_cast<unsigned char>(s[at])), s.size() - at);
  for (size_t k = 0; k < len; k++) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "%s0x%02x", k ? " " : "", static_cast<unsigned char>(s[at + k]));
    bytes += hex;
  }
  return "invalid byte sequence for encoding \"UTF8\": " + bytes;
}

void CheckUtf8(std::string_view s, int position) {
  const size_t at = FindInvalidUtf8(s);
  if (at == std::string_view::npos) return;
  throw DbError(sqlstate::kCharacterNotInRepertoire, InvalidUtf8Message(s, at), position);
}

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

size_t Utf8Length(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

size_t Utf8Offset(std::string_view s, size_t chars) {
  size_t seen = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (seen == chars) return i;
      ++seen;
    }
  }
  return s.size();
}

}  // namespace forktail
