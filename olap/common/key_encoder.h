// KeyEncoder: multi-column keys (join keys, group keys) as fixed-width rows
// of 8-byte words, so hash tables compare and copy keys without per-type
// dispatch per value.
//
//   row: [null mask][col 0 ...][col 1 ...] ...
//   null mask: bit c set = column c is NULL (its words are then 0)
//   integers, DATE, TIMESTAMP, DECIMAL p <= 18, BOOLEAN: 1 word, the value as int64
//   DECIMAL p 19..38: 2 words, the __int128's low and high halves
//   DOUBLE: 1 word, the bits (-0.0 folded to 0.0, every NaN to one NaN)
//   strings: 2 words, [bytes or pointer][length] (CHAR: trailing blanks
//            trimmed); up to 8 bytes inline in the first word, zero-padded,
//            so that short keys compare as words; longer ones live in the
//            input or, once stored, in a table arena (jsonb: always a pointer)
//
// Two keys of the same layout are equal iff the non-string words are equal
// and the strings' bytes are. Hash() is consistent with that equality.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "olap/common/data_chunk.h"

namespace forktail {

class KeyEncoder {
 public:
  explicit KeyEncoder(std::vector<Type> types);

  uint32_t words() const { return words_; }
  const std::vector<Type>& types() const { return types_; }

  // Encodes columns `cols` of chunk for `rows` into keys[k * words()] and
  // hashes[k] (k = position within rows).
  void Encode(const DataChunk& chunk, const std::vector<uint32_t>& cols, Rows rows, uint64_t* keys,
              uint64_t* hashes) const;

  // Inline: hash tables call it per probe, mostly for keys that are equal,
  // and equal words are equal keys (long strings: the same bytes at the
  // same address).
  bool Equal(const uint64_t* a, const uint64_t* b) const {
    for (uint32_t i = 0; i < words_; ++i) {
      if (a[i] != b[i]) return any_string_ && a[0] == b[0] && EqualByColumn(a, b);
    }
    return true;
  }
  // Repoints the key's strings into `arena` (for keys a table keeps).
  void Own(uint64_t* key, StringArena* arena) const;
  // Writes column c of `key` into out at row i (an inline string's view
  // points into `key`, which must outlive it).
  void Decode(const uint64_t* key, uint32_t c, Vector* out, uint32_t i) const;
  static bool HasNull(const uint64_t* key) { return key[0] != 0; }

  static uint64_t Mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
  }

 private:
  bool EqualByColumn(const uint64_t* a, const uint64_t* b) const;

  std::vector<Type> types_;
  std::vector<uint32_t> offsets_;  // word offset of each column
  std::vector<uint8_t> is_string_;
  enum class Kind : uint8_t { kWord, kWide, kString, kJsonb };  // how Equal compares a column
  std::vector<Kind> kinds_;
  uint32_t words_ = 1;
  bool any_string_ = false;
};

}  // namespace forktail
