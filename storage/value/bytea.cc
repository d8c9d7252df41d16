#include "storage/value/bytea.h"

#include <cstdint>

#include "storage/error.h"

namespace forktail::bytea {
namespace {

constexpr char kHex[] = "0123456789abcdef";
constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

// The character at s, whole when it is a UTF-8 sequence (for the message).
std::string CharAt(std::string_view s, size_t i) {
  size_t n = 1;
  const auto lead = static_cast<unsigned char>(s[i]);
  if (lead >= 0xf0) {
    n = 4;
  } else if (lead >= 0xe0) {
    n = 3;
  } else if (lead >= 0xc0) {
    n = 2;
  }
  return std::string(s.substr(i, n));
}

// hex_decode: pairs of digits, whitespace allowed before a pair.
std::string DecodeHex(std::string_view s) {
  std::string out;
  out.reserve(s.size() / 2);
  for (size_t i = 0; i < s.size();) {
    if (IsSpace(s[i])) {
      ++i;
      continue;
    }
    const int hi = HexValue(s[i]);
    if (hi < 0) {
      throw DbError(sqlstate::kInvalidParameterValue,
                    "invalid hexadecimal digit: \"" + CharAt(s, i) + "\"");
    }
    if (++i >= s.size()) {
      throw DbError(sqlstate::kInvalidParameterValue,
                    "invalid hexadecimal data: odd number of digits");
    }
    const int lo = HexValue(s[i]);
    if (lo < 0) {
      throw DbError(sqlstate::kInvalidParameterValue,
                    "invalid hexadecimal digit: \"" + CharAt(s, i) + "\"");
    }
    ++i;
    out.push_back(static_cast<char>(hi << 4 | lo));
  }
  return out;
}

bool IsOctalEscape(std::string_view s, size_t i) {
  return i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' &&
         s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7';
}

// The escape format: \\ is a backslash, \ooo an octal byte, anything else
// after a backslash an error; other characters stand for themselves.
std::string DecodeEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    if (s[i] != '\\') {
      out.push_back(s[i++]);
    } else if (IsOctalEscape(s, i)) {
      out.push_back(
          static_cast<char>((s[i + 1] - '0') << 6 | (s[i + 2] - '0') << 3 | (s[i + 3] - '0')));
      i += 4;
    } else if (i + 1 < s.size() && s[i + 1] == '\\') {
      out.push_back('\\');
      i += 2;
    } else {
      throw DbError(sqlstate::kInvalidTextRepresentation, "invalid input syntax for type bytea");
    }
  }
  return out;
}

std::string EncodeHex(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

std::string EncodeEscape(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    if (b == 0 || b >= 0x80) {
      out.push_back('\\');
      out.push_back(static_cast<char>('0' + (b >> 6)));
      out.push_back(static_cast<char>('0' + ((b >> 3) & 7)));
      out.push_back(static_cast<char>('0' + (b & 7)));
    } else if (c == '\\') {
      out += "\\\\";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// pg_base64_encode: a newline after every 76 characters written.
std::string EncodeBase64(std::string_view bytes) {
  std::string out;
  size_t line = 0;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t group = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) group |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) group |= static_cast<unsigned char>(bytes[i + 2]);
    out.push_back(kBase64[group >> 18]);
    out.push_back(kBase64[(group >> 12) & 63]);
    out.push_back(i + 1 < bytes.size() ? kBase64[(group >> 6) & 63] : '=');
    out.push_back(i + 2 < bytes.size() ? kBase64[group & 63] : '=');
    line += 4;
    if (line >= 76 && i + 2 < bytes.size()) {  // after a full group, as PostgreSQL
      out.push_back('\n');
      line = 0;
    }
  }
  return out;
}

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// pg_base64_decode: whitespace skipped; '=' ends the data.
std::string DecodeBase64(std::string_view s) {
  std::string out;
  uint32_t buffer = 0;
  int pos = 0, end = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (IsSpace(c)) continue;
    int b = 0;
    if (c == '=') {
      if (end == 0) {
        if (pos == 2) {
          end = 1;
        } else if (pos == 3) {
          end = 2;
        } else {
          throw DbError(sqlstate::kInvalidParameterValue,
                        "unexpected \"=\" while decoding base64 sequence");
        }
      }
    } else {
      b = Base64Value(c);
      if (b < 0) {
        throw DbError(
            sqlstate::kInvalidParameterValue,
            "invalid symbol \"" + CharAt(s, i) + "\" found while decoding base64 sequence");
      }
    }
    buffer = (buffer << 6) + static_cast<uint32_t>(b);
    if (++pos == 4) {
      out.push_back(static_cast<char>((buffer >> 16) & 255));
      if (end == 0 || end > 1) out.push_back(static_cast<char>((buffer >> 8) & 255));
      if (end == 0 || end > 2) out.push_back(static_cast<char>(buffer & 255));
      buffer = 0;
      pos = 0;
    }
  }
  if (pos != 0) {
    throw DbError(sqlstate::kInvalidParameterValue, "invalid base64 end sequence")
        .WithHint("Input data is missing padding, is truncated, or is otherwise corrupted.");
  }
  return out;
}

[[noreturn]] void UnknownFormat(std::string_view format) {
  throw DbError(sqlstate::kInvalidParameterValue,
                "unrecognized encoding: \"" + std::string(format) + "\"");
}

}  // namespace

std::string Parse(std::string_view text) {
  if (text.size() >= 2 && text[0] == '\\' && text[1] == 'x') return DecodeHex(text.substr(2));
  return DecodeEscape(text);
}

std::string FormatHex(std::string_view bytes) { return "\\x" + EncodeHex(bytes); }

std::string Encode(std::string_view bytes, std::string_view format) {
  if (format == "hex") return EncodeHex(bytes);
  if (format == "base64") return EncodeBase64(bytes);
  if (format == "escape") return EncodeEscape(bytes);
  UnknownFormat(format);
}

std::string Decode(std::string_view text, std::string_view format) {
  if (format == "hex") return DecodeHex(text);
  if (format == "base64") return DecodeBase64(text);
  if (format == "escape") return DecodeEscape(text);
  UnknownFormat(format);
}

}  // namespace forktail::bytea
