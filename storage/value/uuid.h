// uuid values as PostgreSQL's uuid type reads and writes them. A uuid is held
// as its canonical text, 36 lower-case characters
// (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx): that text orders byte for byte as
// the 16 bytes do, so uuids compare, hash and sort as strings.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace forktail::uuid {

inline constexpr size_t kBytes = 16;
inline constexpr size_t kTextLength = 36;

// The canonical text of a uuid written as PostgreSQL's uuid_in accepts it:
// 32 hex digits in either case, a hyphen allowed after any group of four,
// the whole optionally in braces. Anything else throws DbError 22P02
// (invalid input syntax for type uuid: "...").
std::string Canonicalize(std::string_view text);

// Between the canonical text and the 16 bytes (the binary wire format).
std::string FromBytes(const uint8_t* bytes);
void ToBytes(std::string_view canonical, uint8_t* out);

// A version 4 uuid (gen_random_uuid()), from random_source.h.
std::string Random();

}  // namespace forktail::uuid
