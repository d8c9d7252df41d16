// bytea values as PostgreSQL reads and writes them: the raw bytes are held
// (as a string: they compare as PostgreSQL's byteacmp does, bytewise
// unsigned, then by length); text input takes the hex format (\x0a1b...) and
// the escape format (\\ and \ooo octal); text output is the hex format
// (bytea_output = 'hex'). encode()/decode() convert to and from hex, base64
// and escape text.
#pragma once

#include <string>
#include <string_view>

namespace forktail::bytea {

// byteain: throws DbError 22023 (bad hex digit, odd digit count) or 22P02
// (a backslash not followed by \ or three octal digits).
std::string Parse(std::string_view text);
// byteaout in hex: "\x" then two lower-case digits per byte.
std::string FormatHex(std::string_view bytes);

// encode(bytes, format) / decode(text, format) for "hex", "base64" and
// "escape"; another format throws 22023 (unrecognized encoding: "x"), bad
// input as PostgreSQL's decoders do.
std::string Encode(std::string_view bytes, std::string_view format);
std::string Decode(std::string_view text, std::string_view format);

}  // namespace forktail::bytea
