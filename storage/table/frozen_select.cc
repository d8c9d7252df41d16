// Filters on a frozen block's encoded values (block.h: SelectWhere,
// SelectBetween, FrozenDictionary, SelectCodes, FsstContains,
// SelectContaining): scans narrow a frozen block's rows with these before
// they decode any column.
#include <algorithm>
#include <bit>
#include <cassert>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/table/block.h"
#include "storage/table/frozen_format.h"

namespace forktail {

using namespace frozen;  // NOLINT: the format's helpers (frozen_format.h)

namespace {

// The largest packed value of `bits` bits.
__int128 MaxPacked(uint32_t bits) {
  return bits == 64 ? static_cast<__int128>(UINT64_MAX) : (static_cast<__int128>(1) << bits) - 1;
}

// Of the rows first + sel[i] (i < n), those not NULL, into out.
uint32_t NonNullRows(const uint64_t* nulls, uint32_t first, const uint32_t* sel, uint32_t n,
                     uint32_t* out) {
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++) {
    out[m] = sel[i];
    m += !(nulls != nullptr && TestBit(nulls, first + sel[i]));
  }
  return m;
}

// Of the rows first + sel[i] (i < n, ascending; n == count: all of
// [first, first + count)) of a bit-packed array, those whose packed value
// passes `test`, and the NULL ones when `keep_null`: their sel entries into
// out (which may be sel). The scans' filter loop on packed values.
template <typename Test>
uint32_t SelectPacked(const uint8_t* data, uint32_t bits, const uint64_t* nulls, bool keep_null,
                      uint32_t first, uint32_t count, const uint32_t* sel, uint32_t n,
                      uint32_t* out, const Test& test) {
  uint32_t m = 0;
  uint32_t i = 0;
  if (first % 64 == 0 && bits > 0) {
    // Unpack 64 values at a time (the groups holding a selected row) and
    // test the selected ones without a branch; a dense selection (every
    // row: sel is the identity) is not read, and out may alias it.
    uint64_t group[64];
    const bool dense = n == count;
    while (i < n) {
      const uint32_t g = dense ? i : sel[i] / 64 * 64;  // the group's first row
      if (g + 64 > count) break;                        // the tail: value by value below
      kUnpack64<uint64_t>[bits](data + (uint64_t{first} + g) * bits / 8, 0, group);
      const uint64_t null_word = nulls != nullptr ? nulls[(first + g) / 64] : 0;
      if (dense) {
        // The group's tests as a bit mask (no store per row), then the
        // rows of its set bits.
        uint64_t mask = 0;
        for (uint32_t j = 0; j < 64; j++) mask |= uint64_t{test(group[j])} << j;
        mask = (mask & ~null_word) | (keep_null ? null_word : 0);
        for (; mask != 0; mask &= mask - 1) out[m++] = g + std::countr_zero(mask);
        i += 64;
        continue;
      }
      for (; i < n && sel[i] < g + 64; i++) {
        const uint32_t j = sel[i] - g;
        const bool null = (null_word >> j) & 1;
        out[m] = sel[i];
        m += (test(group[j]) & !null) | (null & keep_null);
      }
    }
  }
  for (; i < n; i++) {
    const uint32_t r = first + sel[i];
    out[m] = sel[i];
    m += nulls != nullptr && TestBit(nulls, r) ? keep_null : test(Unpack(data, bits, r));
  }
  return m;
}

// SelectPacked for a kRunLength column: `test` takes a run's value.
template <typename Test>
uint32_t SelectRuns(const RunColumn& runs, const uint64_t* nulls, uint32_t first,
                    const uint32_t* sel, uint32_t n, uint32_t* out, const Test& test) {
  uint32_t m = 0;
  runs.ForSelected(first, sel, n, [&](uint32_t i, int64_t v) {
    const uint32_t row = first + sel[i];
    out[m] = sel[i];
    m += !(nulls != nullptr && TestBit(nulls, row)) && test(v);
  });
  return m;
}

// SelectWhere and SelectBetween where the values are not bit-packed:
// kRunLength tests each run's value, kPlain each row's cell.
template <typename Test>
uint32_t SelectUnpacked(const uint8_t* block, const FrozenColumn& fc, const ColumnLayout& col,
                        const uint64_t* nulls, uint32_t first, const uint32_t* sel, uint32_t n,
                        uint32_t* out, const Test& test) {
  if (static_cast<FrozenEncoding>(fc.encoding) == FrozenEncoding::kRunLength) {
    return SelectRuns(RunColumn(block, fc), nulls, first, sel, n, out, test);
  }
  const uint8_t* data = block + fc.data;
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++) {
    const uint32_t r = first + sel[i];
    out[m] = sel[i];
    m += !(nulls != nullptr && TestBit(nulls, r)) &&
         test(LoadIntCell(data + uint64_t{r} * col.width, col.width));
  }
  return m;
}

// Every row of sel into out (a column the filters cannot compare encoded).
uint32_t KeepAll(const uint32_t* sel, uint32_t n, uint32_t* out) {
  if (out != sel) std::copy(sel, sel + n, out);
  return n;
}

// Whether SelectWhere and SelectBetween compare column `col`'s values as
// encoded in `fc` (others keep every row).
bool ComparesPacked(const ColumnLayout& col, const FrozenColumn& fc) {
  const auto encoding = static_cast<FrozenEncoding>(fc.encoding);
  return BitPackable(col) &&
         (encoding == FrozenEncoding::kBitPacked || encoding == FrozenEncoding::kPlain ||
          encoding == FrozenEncoding::kRunLength);
}

}  // namespace

uint32_t Block::SelectWhere(ColumnId c, CellCompare op, int64_t k, uint32_t first, uint32_t count,
                            const uint32_t* sel, uint32_t n, uint32_t* out) const {
  int64_t lo = 0, hi = 0;
  if (CompareRange(op, k, &lo, &hi)) return SelectBetween(c, lo, hi, first, count, sel, n, out);
  assert(frozen() && n <= count && first + count <= row_count());
  const FrozenColumn& fc = frozen_column(c);
  const ColumnLayout& col = layout_->column(c);
  if (!ComparesPacked(col, fc)) return KeepAll(sel, n, out);
  const uint64_t* nulls = FrozenNullBitmap(c);
  if (static_cast<FrozenEncoding>(fc.encoding) != FrozenEncoding::kBitPacked) {
    return SelectUnpacked(data_, fc, col, nulls, first, sel, n, out,
                          [k](int64_t v) { return v != k; });
  }
  // Packed: value = reference + p (block.h), so value <> k is p <> k - reference.
  const __int128 d = static_cast<__int128>(k) - fc.reference;
  if (d < 0 || d > MaxPacked(fc.bits)) return NonNullRows(nulls, first, sel, n, out);
  const auto kp = static_cast<uint64_t>(d);
  return SelectPacked(data_ + fc.data, fc.bits, nulls, false, first, count, sel, n, out,
                      [kp](uint64_t p) { return p != kp; });
}

uint32_t Block::SelectBetween(ColumnId c, int64_t lo, int64_t hi, uint32_t first, uint32_t count,
                              const uint32_t* sel, uint32_t n, uint32_t* out) const {
  assert(frozen() && n <= count && first + count <= row_count());
  const FrozenColumn& fc = frozen_column(c);
  const ColumnLayout& col = layout_->column(c);
  if (!ComparesPacked(col, fc)) return KeepAll(sel, n, out);
  if (lo > hi) return 0;
  const uint64_t* nulls = FrozenNullBitmap(c);
  if (static_cast<FrozenEncoding>(fc.encoding) != FrozenEncoding::kBitPacked) {
    return SelectUnpacked(data_, fc, col, nulls, first, sel, n, out,
                          [lo, hi](int64_t v) { return lo <= v && v <= hi; });
  }
  // Packed: value = reference + p with p in [0, MaxPacked(bits)], so the
  // range is [lo - reference, hi - reference] of p, cut to p's range: every
  // row in it, none, or a test of p without decoding, one unsigned compare
  // (p - p_lo <= p_hi - p_lo wraps below p_lo).
  const __int128 max_p = MaxPacked(fc.bits);
  const __int128 p_lo = std::max<__int128>(static_cast<__int128>(lo) - fc.reference, 0);
  const __int128 p_hi = std::min<__int128>(static_cast<__int128>(hi) - fc.reference, max_p);
  if (p_lo > p_hi) return 0;
  if (p_lo == 0 && p_hi == max_p) return NonNullRows(nulls, first, sel, n, out);
  const auto base = static_cast<uint64_t>(p_lo);
  const auto width = static_cast<uint64_t>(p_hi - p_lo);
  return SelectPacked(data_ + fc.data, fc.bits, nulls, false, first, count, sel, n, out,
                      [base, width](uint64_t p) { return p - base <= width; });
}

bool Block::ComparesEncoded(ColumnId c) const {
  assert(frozen());
  return ComparesPacked(layout_->column(c), frozen_column(c));
}

bool Block::FrozenDictionary(ColumnId c, std::vector<std::string_view>* strings) const {
  assert(frozen());
  const FrozenColumn& fc = frozen_column(c);
  if (static_cast<FrozenEncoding>(fc.encoding) != FrozenEncoding::kDictionary) return false;
  strings->clear();
  strings->reserve(fc.count);
  for (uint32_t code = 0; code < fc.count; code++) {
    strings->push_back(DictionaryString(data_, fc, code));
  }
  return true;
}

uint32_t Block::SelectCodes(ColumnId c, const uint64_t* codes, bool keep_null, uint32_t first,
                            uint32_t count, const uint32_t* sel, uint32_t n, uint32_t* out) const {
  assert(frozen() && n <= count && first + count <= row_count());
  const FrozenColumn& fc = frozen_column(c);
  assert(static_cast<FrozenEncoding>(fc.encoding) == FrozenEncoding::kDictionary);
  // A row's code is below fc.count (FrozenFromImage checked) unless the row
  // is NULL: the test runs on NULL rows too (it is branch-free), so it
  // bounds the code.
  const uint32_t dictionary_size = fc.count;
  return SelectPacked(data_ + fc.data, fc.bits, FrozenNullBitmap(c), keep_null, first, count, sel,
                      n, out, [codes, dictionary_size](uint64_t code) {
                        return code < dictionary_size &&
                               TestBit(codes, static_cast<uint32_t>(code));
                      });
}

std::unique_ptr<fsst::ContainsMatcher> Block::FsstContains(
    ColumnId c, const std::vector<std::string>& literals) const {
  assert(frozen() && fsst::ContainsMatcher::Supports(literals));
  const FrozenColumn& fc = frozen_column(c);
  if (static_cast<FrozenEncoding>(fc.encoding) != FrozenEncoding::kFsst) return nullptr;
  const FsstColumn f(data_, fc);
  return std::make_unique<fsst::ContainsMatcher>(f.symbols, f.lengths, fc.count, literals);
}

uint32_t Block::SelectContaining(ColumnId c, const fsst::ContainsMatcher& m, bool negated,
                                 uint32_t first, const uint32_t* sel, uint32_t n,
                                 uint32_t* out) const {
  assert(frozen() && (n == 0 || first + sel[n - 1] < row_count()));
  const FrozenColumn& fc = frozen_column(c);
  assert(static_cast<FrozenEncoding>(fc.encoding) == FrozenEncoding::kFsst);
  const FsstColumn f(data_, fc);
  const uint64_t* nulls = FrozenNullBitmap(c);
  uint32_t kept = 0;
  for (uint32_t i = 0; i < n; i++) {
    const uint32_t row = first + sel[i];
    const uint64_t at = f.offset(row);
    const bool match = m.Matches(f.codes + at, f.offset(row + 1) - at);
    out[kept] = sel[i];
    kept += match != negated && !(nulls != nullptr && TestBit(nulls, row));
  }
  return kept;
}

}  // namespace forktail
