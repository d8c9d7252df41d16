#include "storage/value/uuid.h"

#include "storage/error.h"
#include "storage/value/random_source.h"

namespace forktail::uuid {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

[[noreturn]] void Invalid(std::string_view text) {
  throw DbError(sqlstate::kInvalidTextRepresentation,
                "invalid input syntax for type uuid: \"" + std::string(text) + "\"");
}

}  // namespace

std::string Canonicalize(std::string_view text) {
  std::string_view body = text;
  if (!body.empty() && body.front() == '{') {
    if (body.size() < 2 || body.back() != '}') Invalid(text);
    body = body.substr(1, body.size() - 2);
  }
  uint8_t bytes[kBytes];
  size_t digits = 0;
  for (size_t i = 0; i < body.size(); ++i) {
    // uuid_in: a hyphen may follow any complete group of four digits, but
    // not start or end the value, nor follow another hyphen.
    if (body[i] == '-') {
      if (digits == 0 || digits % 4 != 0 || digits == 2 * kBytes || body[i - 1] == '-') {
        Invalid(text);
      }
      continue;
    }
    const int d = HexDigit(body[i]);
    if (d < 0 || digits == 2 * kBytes) Invalid(text);
    if (digits % 2 == 0) {
      bytes[digits / 2] = static_cast<uint8_t>(d << 4);
    } else {
      bytes[digits / 2] |= static_cast<uint8_t>(d);
    }
    ++digits;
  }
  if (digits != 2 * kBytes || (!body.empty() && body.back() == '-')) Invalid(text);
  return FromBytes(bytes);
}

std::string FromBytes(const uint8_t* bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(kTextLength);
  for (size_t i = 0; i < kBytes; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHex[bytes[i] >> 4]);
    out.push_back(kHex[bytes[i] & 15]);
  }
  return out;
}

void ToBytes(std::string_view canonical, uint8_t* out) {
  size_t n = 0;
  for (size_t i = 0; i < canonical.size() && n < 2 * kBytes; ++i) {
    if (canonical[i] == '-') continue;
    const int d = HexDigit(canonical[i]);
    if (n % 2 == 0) {
      out[n / 2] = static_cast<uint8_t>(d << 4);
    } else {
      out[n / 2] |= static_cast<uint8_t>(d);
    }
    ++n;
  }
}

std::string Random() {
  uint8_t bytes[kBytes];
  random_source::Fill(bytes, kBytes);
  bytes[6] = static_cast<uint8_t>((bytes[6] & 0x0f) | 0x40);  // version 4
  bytes[8] = static_cast<uint8_t>((bytes[8] & 0x3f) | 0x80);  // RFC 4122 variant
  return FromBytes(bytes);
}

}  // namespace forktail::uuid
