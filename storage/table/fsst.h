// Strings compressed with a static symbol table, after FSST (Boncz, Neumann
// and Leis, "FSST: Fast Random Access String Compression", VLDB 2020).
//
// A table holds up to 255 symbols of 1 to 8 bytes. A string compresses to a
// sequence of one-byte codes: code i < 255 stands for symbol i, code 255
// (the escape) is followed by one literal byte. Each string compresses on
// its own, so any one of them decodes without the others (a frozen block's
// key lookups read one row); decoding is a table lookup and an 8-byte store
// per code.
//
// The table is learnt from a sample of the strings (Train): starting from no
// symbols, each of five rounds compresses the sample with the current table,
// counts how often each symbol and each pair of adjacent symbols occurs, and
// keeps the 255 candidates (symbols, and pairs joined into one symbol of at
// most 8 bytes) that cover the most bytes. Text with repeated words and
// fragments (comments, names, addresses) shrinks to 30-50%; random bytes do
// not shrink, and the caller keeps them plain.
//
// In memory (a frozen block's region) a table is `symbols`: count uint64
// words, each a symbol's bytes little-endian, zero past its length, then
// `lengths`: count bytes. Nothing here allocates per string.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace forktail::fsst {

inline constexpr uint32_t kMaxSymbols = 255;
inline constexpr uint8_t kEscape = 255;
inline constexpr uint32_t kMaxSymbolLength = 8;
// Decode writes whole 8-byte words: its output needs this much room past
// the decoded bytes.
inline constexpr size_t kDecodeSlack = 8;

struct SymbolTable {
  uint32_t count = 0;
  uint64_t symbols[kMaxSymbols] = {};
  uint8_t lengths[kMaxSymbols] = {};
};

// A table for strings like those of `sample` (a few tens of KiB of them are
// plenty). Deterministic: the same sample gives the same table.
SymbolTable Train(const std::vector<std::string_view>& sample);

// Greedy longest-match compression with one table.
class Encoder {
 public:
  explicit Encoder(const SymbolTable& table);
  // Appends the codes of `s` to `out`: at most 2 * s.size() bytes.
  void Encode(std::string_view s, std::vector<uint8_t>* out) const;
  // The code of the longest symbol that `s` (with `left` > 0 bytes) starts
  // with, its length in *length; -1 when none does (an escape).
  int Match(const uint8_t* s, size_t left, uint32_t* length) const;

 private:
  const SymbolTable& table_;
  // Symbols of two bytes or more by their first two bytes, longest first:
  // by_prefix_[start_[p] .. start_[p + 1]) for the prefix p = s[0] | s[1] << 8
  // (a lookup, then a few compares; FSST's encoder has the same shape).
  std::vector<uint16_t> start_;
  uint8_t by_prefix_[kMaxSymbols] = {};
  // The one-byte symbol of each byte, or -1.
  int16_t single_[256];
};
// The number of bytes codes[0, n) decode to.
size_t DecodedSize(const uint8_t* lengths, const uint8_t* codes, size_t n);
// Decodes codes[0, n) into `out`, which has DecodedSize(..) + kDecodeSlack
// bytes; returns the decoded size. The codes must be Valid.
size_t Decode(const uint64_t* symbols, const uint8_t* lengths, const uint8_t* codes, size_t n,
              char* out);
// Whether codes[0, n) decode with a table of `count` symbols: every code is
// below count, or an escape with its literal byte inside the n bytes.
bool Valid(uint32_t count, const uint8_t* codes, size_t n);

// Whether strings hold given literals in order, without overlap (LIKE
// '%a%b%'), decided on their codes: nothing is decoded. The leftmost
// occurrence of each literal after the previous one's is the one to take,
// so a DFA over the bytes decides it: a KMP automaton per literal, each
// chained to the next, the last accepting for good. Its transition for
// every (state, symbol) pair is computed up front (a few thousand steps),
// so that each code is one table lookup.
class ContainsMatcher {
 public:
  // The literals' bytes in all are at most this (a state is one byte).
  static constexpr size_t kMaxLiteralBytes = 254;
  static bool Supports(const std::vector<std::string>& literals);

  // For a table of `count` symbols (the layout SymbolTable describes);
  // literals as Supports allows.
  ContainsMatcher(const uint64_t* symbols, const uint8_t* lengths, uint32_t count,
                  const std::vector<std::string>& literals);
  // codes[0, n) must be Valid for the table.
  bool Matches(const uint8_t* codes, size_t n) const {
    uint32_t state = 0;
    for (size_t i = 0; i < n; i++) {
      const uint8_t code = codes[i];
      if (code != kEscape) {
        state = by_code_[state * 256 + code];
      } else {
        state = by_byte_[state * 256 + codes[++i]];
      }
    }
    return state == accept_;
  }

 private:
  uint32_t accept_ = 0;
  std::vector<uint8_t> by_code_;  // the next state: [state * 256 + code]
  std::vector<uint8_t> by_byte_;  // after one byte (an escaped literal): [state * 256 + byte]
};

}  // namespace forktail::fsst
