// UTF-8 validation of what clients send (SQL text, escapes, COPY data,
// parameters): the database encoding is UTF8, and PostgreSQL refuses a byte
// sequence that is not valid UTF-8 (or a NUL byte) with 22021 instead of
// storing it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace forktail {

// The byte offset of the first invalid sequence (overlong forms, surrogates,
// code points above U+10FFFF and NUL included), or std::string_view::npos.
size_t FindInvalidUtf8(std::string_view s);

// PostgreSQL's message for the invalid sequence at byte `at`:
// invalid byte sequence for encoding "UTF8": 0xe2 0x28 0xa1
std::string InvalidUtf8Message(std::string_view s, size_t at);

// Throws DbError 22021 (character_not_in_repertoire) with that message when
// `s` is not valid UTF-8; `position` as DbError's (-1: none).
void CheckUtf8(std::string_view s, int position = -1);

// Characters (code points) of valid UTF-8 `s`: the bytes that do not
// continue a sequence.
size_t Utf8Length(std::string_view s);
// Byte offset of the `chars`-th character of `s` (s.size() if it has fewer):
// s.substr(0, Utf8Offset(s, n)) is its first n characters.
size_t Utf8Offset(std::string_view s, size_t chars);

// Appends code point `cp` (at most U+10FFFF) encoded as UTF-8.
void AppendUtf8(std::string& out, uint32_t cp);

// The value of a hexadecimal digit, or -1 (\uXXXX escapes of SQL and JSON).
int HexValue(char c);

}  // namespace forktail
