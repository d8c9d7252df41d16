// The frozen form of a block (block.h, "Frozen blocks"): its column
// directory, bit packing, and the readers of dictionaries and runs that
// frozen_block.cc (freezing, thawing, decoding, image checks) and
// frozen_select.cc (filters on encoded values) share. Internal to
// storage/table: nothing outside includes it.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

#include "storage/table/block_layout.h"
#include "storage/table/fsst.h"

namespace forktail {

// The values are stored in images: new encodings go at the end.
enum class FrozenEncoding : uint8_t {
  kPlain,
  kBitPacked,
  kDictionary,
  kStrings,
  kFsst,
  kRunLength
};

struct FrozenColumn {
  uint8_t encoding;  // FrozenEncoding
  // kBitPacked, kDictionary, kRunLength: bits per value or code; kFsst:
  // bits per offset
  uint8_t bits;
  uint8_t end_bits;  // kRunLength: bits per run end
  uint8_t reserved;
  uint32_t count;  // kDictionary: distinct strings; kFsst: symbols; kRunLength: runs
  uint32_t nulls;  // offset of the NULL bitmap; 0: no row is NULL
  // kPlain: the cells; kBitPacked: values - reference; kDictionary: codes;
  // kStrings: the strings' bytes, one after another; kFsst: the strings'
  // codes (fsst.h), one after another; kRunLength: each run's value -
  // reference.
  uint32_t data;
  // kDictionary: count + 1 uint32 offsets, then the strings' bytes (offsets
  // count from there); kStrings: rows + 1 uint32 offsets into data; kFsst:
  // the symbol table, count uint64 symbols then count lengths; kRunLength:
  // each run's end (the row after its last), end_bits each, ascending, the
  // last one the row count. A NULL row belongs to the run it falls in.
  uint32_t aux;
  uint32_t offsets;   // kFsst: rows + 1 bit-packed offsets into data
  int64_t reference;  // kBitPacked, kRunLength: value = reference + packed
};
static_assert(sizeof(FrozenColumn) == 32);

namespace frozen {

inline uint64_t PackedBytes(uint32_t rows, uint32_t bits) {
  return (uint64_t{rows} * bits + 7) / 8;
}

// Value i of a bit-packed array (bits <= 64): one unaligned 8-byte load, a
// ninth byte when the value straddles it.
inline uint64_t Unpack(const uint8_t* data, uint32_t bits, uint64_t i) {
  if (bits == 0) return 0;
  const uint64_t bit = i * bits;
  const uint8_t* p = data + (bit >> 3);
  const uint32_t shift = bit & 7;
  uint64_t word;
  std::memcpy(&word, p, 8);
  uint64_t v = word >> shift;
  if (shift + bits > 64) v |= uint64_t{p[8]} << (64 - shift);
  return bits == 64 ? v : v & ((uint64_t{1} << bits) - 1);
}

// Writes value i into a zeroed bit-packed array with 8 bytes of slack.
inline void Pack(uint8_t* data, uint32_t bits, uint64_t i, uint64_t v) {
  if (bits == 0) return;
  const uint64_t bit = i * bits;
  uint8_t* p = data + (bit >> 3);
  const uint32_t shift = bit & 7;
  uint64_t word;
  std::memcpy(&word, p, 8);
  word |= v << shift;
  std::memcpy(p, &word, 8);
  if (shift + bits > 64) p[8] |= static_cast<uint8_t>(v >> (64 - shift));
}

// 64 values of kBits bits from `in` (the first one at bit 0 of in[0]), each
// plus `add` (wrapping) and cast to T, into out. With the width known at compile time every value's
// byte and shift are constants: 64 independent load-shift-mask-add steps the
// compiler unrolls, where the generic loop carries the bit position from
// value to value.
template <uint32_t kBits, typename T>
void Unpack64(const uint8_t* in, uint64_t add, T* out) {
  constexpr uint64_t kMask = kBits == 64 ? ~uint64_t{0} : (uint64_t{1} << kBits) - 1;
#pragma GCC unroll 64
  for (uint32_t i = 0; i < 64; i++) {
    const uint32_t bit = i * kBits;
    uint64_t word;
    std::memcpy(&word, in + bit / 8, 8);
    uint64_t v = word >> (bit % 8);
    if constexpr (kBits > 56) {
      if (bit % 8 + kBits > 64) v |= uint64_t{in[bit / 8 + 8]} << (64 - bit % 8);
    }
    out[i] = static_cast<T>((v & kMask) + add);
  }
}

template <typename T>
using Unpack64Fn = void (*)(const uint8_t*, uint64_t, T*);

template <typename T, size_t... kBits>
constexpr std::array<Unpack64Fn<T>, sizeof...(kBits)> Unpack64Table(std::index_sequence<kBits...>) {
  return {&Unpack64<static_cast<uint32_t>(kBits), T>...};
}

// Unpack64<bits, T> by bits (1..64; 0 is handled apart).
template <typename T>
inline constexpr std::array<Unpack64Fn<T>, 65> kUnpack64 =
    Unpack64Table<T>(std::make_index_sequence<65>());

// Packed values [first, first + count) into out through `map` (value -> T),
// 64 at a time where a group starts on a byte (see below).
template <typename T, typename Map>
void UnpackRange(const uint8_t* data, uint32_t bits, uint32_t first, uint32_t count, T* out,
                 const Map& map) {
  assert(bits > 0);
  uint64_t group[64];
  uint32_t i = 0;
  for (; first % 64 == 0 && i + 64 <= count; i += 64) {
    kUnpack64<uint64_t>[bits](data + (uint64_t{first} + i) * bits / 8, 0, group);
    for (uint32_t j = 0; j < 64; j++) out[i + j] = map(group[j]);
  }
  for (; i < count; i++) out[i] = map(Unpack(data, bits, uint64_t{first} + i));
}

// reference + packed values [first, first + count) into out: the scan's
// loop. 64 at a time when first is a multiple of 64 (a group of 64 then
// starts on a byte), the rest value by value.
template <typename T>
void UnpackRange(const uint8_t* data, uint32_t bits, int64_t reference, uint32_t first,
                 uint32_t count, T* out) {
  if (bits == 0) {
    std::fill(out, out + count, static_cast<T>(reference));
    return;
  }
  const auto base = static_cast<uint64_t>(reference);
  uint32_t i = 0;
  for (; first % 64 == 0 && i + 64 <= count; i += 64) {
    kUnpack64<T>[bits](data + (uint64_t{first} + i) * bits / 8, base, out + i);
  }
  for (; i < count; i++) out[i] = static_cast<T>(base + Unpack(data, bits, uint64_t{first} + i));
}

inline uint32_t BitsFor(uint64_t max_value) {
  return max_value == 0 ? 0 : 64 - static_cast<uint32_t>(std::countl_zero(max_value));
}

inline bool BitPackable(const ColumnLayout& col) {
  return !col.type.StoredAsString() && col.type.id != TypeId::kDouble && col.width <= 8;
}

inline const uint32_t* Offsets(const uint8_t* block, uint32_t at) {
  return reinterpret_cast<const uint32_t*>(block + at);
}

inline std::string_view DictionaryString(const uint8_t* block, const FrozenColumn& fc,
                                         uint64_t code) {
  if (code >= fc.count) return {};
  const uint32_t* offsets = Offsets(block, fc.aux);
  const char* bytes = reinterpret_cast<const char*>(block + fc.aux + 4 * (fc.count + 1));
  return {bytes + offsets[code], offsets[code + 1] - offsets[code]};
}

// A kRunLength column's runs in a frozen block.
struct RunColumn {
  const uint8_t* values;
  const uint8_t* ends;
  uint32_t bits;
  uint32_t end_bits;
  uint32_t runs;
  uint64_t reference;

  RunColumn(const uint8_t* block, const FrozenColumn& fc)
      : values(block + fc.data),
        ends(block + fc.aux),
        bits(fc.bits),
        end_bits(fc.end_bits),
        runs(fc.count),
        reference(static_cast<uint64_t>(fc.reference)) {}

  int64_t value(uint32_t run) const {
    return static_cast<int64_t>(reference + Unpack(values, bits, run));
  }
  uint32_t end(uint32_t run) const { return static_cast<uint32_t>(Unpack(ends, end_bits, run)); }
  // The run holding row `row` (< the row count): the first ending after it.
  uint32_t RunOf(uint32_t row) const {
    uint32_t lo = 0, hi = runs - 1;
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if (end(mid) <= row) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
  // The values of rows [first, first + count) into out, one run at a time.
  template <typename T>
  void Decode(uint32_t first, uint32_t count, T* out) const {
    if (count == 0) return;
    uint32_t run = RunOf(first);
    for (uint32_t row = first; row < first + count; run++) {
      const uint32_t stop = std::min(end(run), first + count);
      std::fill(out + (row - first), out + (stop - first), static_cast<T>(value(run)));
      row = stop;
    }
  }
  // Calls f(i, value) for the rows first + sel[i] (i < n, ascending).
  template <typename F>
  void ForSelected(uint32_t first, const uint32_t* sel, uint32_t n, const F& f) const {
    if (n == 0) return;
    uint32_t run = RunOf(first + sel[0]);
    uint32_t run_end = end(run);
    int64_t v = value(run);
    for (uint32_t i = 0; i < n; i++) {
      const uint32_t row = first + sel[i];
      if (row >= run_end) {
        run = row < end(run + 1) ? run + 1 : RunOf(row);
        run_end = end(run);
        v = value(run);
      }
      f(i, v);
    }
  }
};

// A kFsst column's parts in a frozen block.
struct FsstColumn {
  const uint64_t* symbols;
  const uint8_t* lengths;
  const uint8_t* codes;
  const uint8_t* offsets;  // bit-packed, fc.bits each
  uint32_t bits;

  FsstColumn(const uint8_t* block, const FrozenColumn& fc)
      : symbols(reinterpret_cast<const uint64_t*>(block + fc.aux)),
        lengths(block + fc.aux + uint64_t{fc.count} * 8),
        codes(block + fc.data),
        offsets(block + fc.offsets),
        bits(fc.bits) {}

  uint64_t offset(uint32_t row) const { return Unpack(offsets, bits, row); }
  size_t DecodedSize(uint32_t row) const {
    const uint64_t at = offset(row);
    return fsst::DecodedSize(lengths, codes + at, offset(row + 1) - at);
  }
  // Row `row` decoded at `out` (DecodedSize(row) + fsst::kDecodeSlack bytes).
  std::string_view Decode(uint32_t row, char* out) const {
    const uint64_t at = offset(row);
    return {out, fsst::Decode(symbols, lengths, codes + at, offset(row + 1) - at, out)};
  }
};

}  // namespace frozen
}  // namespace forktail
