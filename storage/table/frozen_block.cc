// Frozen blocks: Block::Freeze, Thaw and the reads of the compressed form
// (block.h, "Frozen blocks").
//
// Layout (offsets from the block's first byte; regions start 8-byte aligned):
//
//   0       BlockHeader: magic "FTFZ", heap_used 0, reserved[0..3] = the
//           frozen block's size in bytes; every other field as the plain one
//   64      delete bitmap, the plain layout's size (same offset, same bits)
//   ...     FrozenColumn[column count]
//   ...     per column: the NULL bitmap (only when a row is NULL), then the
//           encoding's regions
//   ...     16 zero bytes: unpacking reads 9 bytes from a value's first byte
//
// Decoding trusts nothing it loads: FrozenFromImage checks every region,
// offset and code before a block is made of an image.
#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "storage/table/block.h"
#include "storage/table/frozen_format.h"
#include "storage/table/fsst.h"

namespace forktail {

using namespace frozen;  // NOLINT: the format's helpers (frozen_format.h)

namespace {

constexpr uint32_t kTailPadding = 16;

uint32_t FrozenSize(const BlockHeader& h) {
  uint32_t size;
  std::memcpy(&size, h.reserved, sizeof(size));
  return size;
}

// The low `width` bytes of v (little-endian: the stripe's cell).
void StoreCell(uint8_t* cell, uint32_t width, int64_t v) { std::memcpy(cell, &v, width); }

// The frozen block's bytes while they are built.
class Builder {
 public:
  explicit Builder(size_t fixed) : bytes_(fixed, 0) {}
  uint8_t* at(uint32_t offset) { return bytes_.data() + offset; }
  // `n` zero bytes at an 8-byte aligned offset, which it returns.
  uint32_t Reserve(size_t n) {
    bytes_.resize((bytes_.size() + 7) / 8 * 8);
    const auto offset = static_cast<uint32_t>(bytes_.size());
    bytes_.resize(bytes_.size() + n, 0);
    return offset;
  }
  uint32_t Append(const void* p, size_t n) {
    uint32_t offset = Reserve(n);
    if (n > 0) std::memcpy(at(offset), p, n);
    return offset;
  }
  std::vector<uint8_t>& bytes() { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

// Runs of equal values of a fixed-width column (NULL rows continue the run
// they fall in; a column of NULLs is one run), one at a time to `f(value,
// end)`.
template <typename F>
void ForEachRun(const uint8_t* stripe, const uint64_t* nulls, const ColumnLayout& col,
                uint32_t rows, const F& f) {
  bool started = false;
  int64_t value = 0;
  for (uint32_t r = 0; r < rows; r++) {
    if (TestBit(nulls, r)) continue;
    const int64_t v = LoadIntCell(stripe + uint64_t{r} * col.width, col.width);
    if (started && v != value) f(value, r);
    started = true;
    value = v;
  }
  if (rows > 0) f(value, rows);
}

void FreezeFixed(const uint8_t* stripe, const uint64_t* nulls, const ColumnLayout& col,
                 uint32_t rows, FrozenColumn* fc, Builder* out) {
  const uint64_t plain_bytes = uint64_t{rows} * col.width;
  if (BitPackable(col)) {
    int64_t lo = 0, hi = 0;
    bool any = false;
    for (uint32_t r = 0; r < rows; r++) {
      if (TestBit(nulls, r)) continue;
      int64_t v = LoadIntCell(stripe + uint64_t{r} * col.width, col.width);
      lo = any ? std::min(lo, v) : v;
      hi = any ? std::max(hi, v) : v;
      any = true;
    }
    const uint32_t bits = BitsFor(static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo));
    uint32_t runs = 0;
    ForEachRun(stripe, nulls, col, rows, [&runs](int64_t, uint32_t) { runs++; });
    const uint32_t end_bits = BitsFor(rows);
    const uint64_t packed_bytes = PackedBytes(rows, bits);
    const uint64_t run_bytes = PackedBytes(runs, bits) + PackedBytes(runs, end_bits) + 8;
    // Runs when they are long (kMinAverageRun rows on average) and take
    // fewer bytes: a scan then fills each run's rows with its value, as fast
    // as unpacking them or faster. Short runs would save bytes but cost the
    // scans a run's search and fill every few rows: l_orderkey's runs of 4
    // (8 bits a row instead of 18) made TPC-H Q04 22 ms instead of 15.
    constexpr uint32_t kMinAverageRun = 16;
    if (uint64_t{runs} * kMinAverageRun <= rows && run_bytes < packed_bytes &&
        run_bytes < plain_bytes) {
      fc->encoding = static_cast<uint8_t>(FrozenEncoding::kRunLength);
      fc->bits = static_cast<uint8_t>(bits);
      fc->end_bits = static_cast<uint8_t>(end_bits);
      fc->count = runs;
      fc->reference = lo;
      fc->data = out->Reserve(PackedBytes(runs, bits) + 8);
      fc->aux = out->Reserve(PackedBytes(runs, end_bits) + 8);
      uint32_t run = 0;
      ForEachRun(stripe, nulls, col, rows, [&](int64_t value, uint32_t end) {
        Pack(out->at(fc->data), bits, run,
             static_cast<uint64_t>(value) - static_cast<uint64_t>(lo));
        Pack(out->at(fc->aux), end_bits, run, end);
        run++;
      });
      return;
    }
    if (packed_bytes < plain_bytes) {
      fc->encoding = static_cast<uint8_t>(FrozenEncoding::kBitPacked);
      fc->bits = static_cast<uint8_t>(bits);
      fc->reference = lo;
      fc->data = out->Reserve(packed_bytes + 8);
      for (uint32_t r = 0; r < rows; r++) {
        if (TestBit(nulls, r)) continue;  // packed as 0: the reference
        int64_t v = LoadIntCell(stripe + uint64_t{r} * col.width, col.width);
        Pack(out->at(fc->data), bits, r, static_cast<uint64_t>(v) - static_cast<uint64_t>(lo));
      }
      return;
    }
  }
  fc->encoding = static_cast<uint8_t>(FrozenEncoding::kPlain);
  fc->data = out->Append(stripe, plain_bytes);
}

// The strings FSST learns its table from: rows spread evenly over the
// block, about kFsstSampleBytes of them.
constexpr uint64_t kFsstSampleBytes = 16 * 1024;
// Columns with fewer bytes than this stay uncompressed: the table (up to
// 2.3 KB) would eat the gain.
constexpr uint64_t kFsstMinimumBytes = 8 * 1024;

std::vector<std::string_view> FsstSample(const std::vector<std::string_view>& values,
                                         uint64_t total) {
  const uint64_t stride = std::max<uint64_t>(1, total / kFsstSampleBytes);
  std::vector<std::string_view> sample;
  for (uint64_t r = 0; r < values.size(); r += stride) {
    if (!values[r].empty()) sample.push_back(values[r]);
  }
  return sample;
}

// FSST codes of every row and their offsets, or false when they would not
// be at least a tenth smaller than `best` bytes (the smallest other form).
struct FsstForm {
  fsst::SymbolTable table;
  std::vector<uint8_t> codes;
  std::vector<uint32_t> offsets;
  uint32_t bits = 0;
};

bool TryFsst(const std::vector<std::string_view>& values, uint64_t total, uint64_t best,
             FsstForm* form) {
  if (total < kFsstMinimumBytes) return false;
  const std::vector<std::string_view> sample = FsstSample(values, total);
  form->table = fsst::Train(sample);
  const fsst::Encoder encoder(form->table);
  // Give up early on text the table does not shrink (random bytes, hashes).
  uint64_t sample_bytes = 0;
  for (std::string_view s : sample) {
    encoder.Encode(s, &form->codes);
    sample_bytes += s.size();
  }
  if (form->codes.size() * 10 >= sample_bytes * 9) return false;
  form->codes.clear();
  form->codes.reserve(total / 2);
  form->offsets.assign(values.size() + 1, 0);
  for (size_t r = 0; r < values.size(); r++) {
    encoder.Encode(values[r], &form->codes);
    if (form->codes.size() > UINT32_MAX) return false;
    form->offsets[r + 1] = static_cast<uint32_t>(form->codes.size());
  }
  form->bits = BitsFor(form->codes.size());
  const uint64_t size = uint64_t{form->table.count} * 9 + form->codes.size() +
                        PackedBytes(static_cast<uint32_t>(values.size() + 1), form->bits);
  return size * 10 < best * 9;
}

void FreezeStrings(const uint8_t* block, const StringRef* refs, const uint64_t* nulls,
                   uint32_t rows, const FreezeOptions& options, FrozenColumn* fc, Builder* out) {
  std::vector<std::string_view> values(rows);
  uint64_t total = 0;
  for (uint32_t r = 0; r < rows; r++) {
    if (TestBit(nulls, r)) continue;
    values[r] = {reinterpret_cast<const char*>(block + refs[r].offset), refs[r].length};
    total += refs[r].length;
  }
  const uint64_t strings_size = 4 * (uint64_t{rows} + 1) + total;
  // A dictionary while it stays at most half the rows (beyond that it cannot
  // win by much, and building it costs a hash per row).
  std::unordered_map<std::string_view, uint32_t> codes;
  bool dictionary = true;
  for (uint32_t r = 0; r < rows && dictionary; r++) {
    if (TestBit(nulls, r)) continue;
    codes.emplace(values[r], 0);
    dictionary = codes.size() <= std::max<uint32_t>(1, rows / 2);
  }
  uint64_t dict_bytes = 0;
  uint64_t dict_size = UINT64_MAX;
  std::vector<std::string_view> sorted;
  if (dictionary) {
    sorted.reserve(codes.size());
    for (const auto& [s, code] : codes) {
      sorted.push_back(s);
      dict_bytes += s.size();
    }
    const uint32_t bits = BitsFor(sorted.empty() ? 0 : sorted.size() - 1);
    dict_size = 4 * (sorted.size() + 1) + dict_bytes + PackedBytes(rows, bits);
    dictionary = dict_size < strings_size;
  }
  // FSST unless a dictionary already halves the strings (its ordered codes
  // also answer range predicates); it must beat the others by a tenth to
  // be worth its decoding.
  FsstForm fsst_form;
  if (options.compress_strings && (!dictionary || dict_size * 2 > strings_size) &&
      TryFsst(values, total, std::min(strings_size, dict_size), &fsst_form)) {
    const fsst::SymbolTable& table = fsst_form.table;
    fc->encoding = static_cast<uint8_t>(FrozenEncoding::kFsst);
    fc->count = table.count;
    fc->bits = static_cast<uint8_t>(fsst_form.bits);
    fc->aux = out->Reserve(uint64_t{table.count} * 9);
    std::memcpy(out->at(fc->aux), table.symbols, uint64_t{table.count} * 8);
    std::memcpy(out->at(fc->aux + table.count * 8), table.lengths, table.count);
    fc->data = out->Append(fsst_form.codes.data(), fsst_form.codes.size());
    fc->offsets = out->Reserve(PackedBytes(rows + 1, fc->bits) + 8);
    for (uint32_t r = 0; r <= rows; r++) {
      Pack(out->at(fc->offsets), fc->bits, r, fsst_form.offsets[r]);
    }
    return;
  }
  if (dictionary) {
    std::sort(sorted.begin(), sorted.end());
    std::vector<uint32_t> offsets(sorted.size() + 1, 0);
    for (size_t i = 0; i < sorted.size(); i++) {
      codes[sorted[i]] = static_cast<uint32_t>(i);
      offsets[i + 1] = offsets[i] + static_cast<uint32_t>(sorted[i].size());
    }
    fc->encoding = static_cast<uint8_t>(FrozenEncoding::kDictionary);
    fc->count = static_cast<uint32_t>(sorted.size());
    fc->bits = static_cast<uint8_t>(BitsFor(sorted.empty() ? 0 : sorted.size() - 1));
    // The offsets, then the strings right after them (one region).
    fc->aux = out->Reserve(offsets.size() * 4 + dict_bytes);
    std::memcpy(out->at(fc->aux), offsets.data(), offsets.size() * 4);
    uint32_t at = fc->aux + static_cast<uint32_t>(offsets.size() * 4);
    for (std::string_view s : sorted) {
      if (!s.empty()) std::memcpy(out->at(at), s.data(), s.size());
      at += static_cast<uint32_t>(s.size());
    }
    fc->data = out->Reserve(PackedBytes(rows, fc->bits) + 8);
    for (uint32_t r = 0; r < rows; r++) {
      if (!TestBit(nulls, r)) Pack(out->at(fc->data), fc->bits, r, codes[values[r]]);
    }
    return;
  }
  std::vector<uint32_t> offsets(uint64_t{rows} + 1, 0);
  fc->encoding = static_cast<uint8_t>(FrozenEncoding::kStrings);
  fc->data = out->Reserve(total);
  uint32_t at = 0;
  for (uint32_t r = 0; r < rows; r++) {
    if (!values[r].empty()) std::memcpy(out->at(fc->data + at), values[r].data(), values[r].size());
    at += static_cast<uint32_t>(values[r].size());
    offsets[r + 1] = at;
  }
  fc->aux = out->Append(offsets.data(), offsets.size() * 4);
}

std::string_view PlainString(const uint8_t* block, const FrozenColumn& fc, uint32_t row) {
  const uint32_t* offsets = Offsets(block, fc.aux);
  return {reinterpret_cast<const char*>(block + fc.data + offsets[row]),
          offsets[row + 1] - offsets[row]};
}

std::string_view FsstString(const uint8_t* block, const FrozenColumn& fc, uint32_t row,
                            std::string* decoded) {
  const FsstColumn f(block, fc);
  decoded->resize(f.DecodedSize(row) + fsst::kDecodeSlack);
  decoded->resize(f.Decode(row, decoded->data()).size());
  return *decoded;
}

char* SpaceFor(const StringSpace* space, size_t bytes) {
  if (space == nullptr) {
    std::fprintf(stderr, "forktail: DecodeColumn of a compressed string column without space\n");
    std::abort();
  }
  return (*space)(bytes);
}

}  // namespace

std::unique_ptr<Block> Block::Freeze(const Block& plain, const FreezeOptions& options) {
  assert(!plain.frozen());
  const BlockLayout& layout = *plain.layout_;
  const uint32_t rows = plain.row_count();
  const uint32_t columns_at = sizeof(BlockHeader) + layout.bitmap_bytes();
  Builder out(columns_at + layout.column_count() * sizeof(FrozenColumn));
  std::memcpy(out.at(0), plain.data_, columns_at);  // header and delete bitmap
  const uint32_t null_words = (rows + 63) / 64;
  for (size_t ci = 0; ci < layout.column_count(); ci++) {
    const ColumnLayout& col = layout.columns()[ci];
    const uint64_t* nulls = plain.Bitmap(col.null_offset);
    FrozenColumn fc{};
    bool any_null = false;
    for (uint32_t w = 0; w < null_words; w++) any_null |= nulls[w] != 0;
    if (any_null) fc.nulls = out.Append(nulls, null_words * 8);
    const uint8_t* stripe = plain.data_ + col.stripe_offset;
    if (col.type.StoredAsString()) {
      FreezeStrings(plain.data_, reinterpret_cast<const StringRef*>(stripe), nulls, rows, options,
                    &fc, &out);
    } else {
      FreezeFixed(stripe, nulls, col, rows, &fc, &out);
    }
    std::memcpy(out.at(columns_at + static_cast<uint32_t>(ci * sizeof(FrozenColumn))), &fc,
                sizeof(fc));
  }
  out.Reserve(kTailPadding);
  std::vector<uint8_t>& bytes = out.bytes();
  bytes.resize((bytes.size() + 7) / 8 * 8, 0);
  auto* h = reinterpret_cast<BlockHeader*>(bytes.data());
  h->magic = kFrozenBlockMagic;
  h->flags &= ~kBlockSealed;
  h->heap_used = 0;
  const auto size = static_cast<uint32_t>(bytes.size());
  std::memcpy(h->reserved, &size, sizeof(size));

  std::unique_ptr<Block> block(new Block(plain.layout_, nullptr));
  block->frozen_ = FrozenBytes(size);
  block->frozen_bytes_ = size;
  block->data_ = reinterpret_cast<uint8_t*>(block->frozen_.get());
  std::memcpy(block->data_, bytes.data(), size);
  return block;
}

std::unique_ptr<Block> Block::Thaw() const {
  assert(frozen());
  const BlockHeader& h = header();
  std::unique_ptr<Block> plain = Create(layout_, TableId(h.table_id), BlockNo(h.block_no));
  const uint32_t rows = h.row_count;
  std::memcpy(plain->data_ + sizeof(BlockHeader), data_ + sizeof(BlockHeader),
              layout_->bitmap_bytes());
  uint32_t heap_used = 0;
  std::string decoded;
  for (size_t ci = 0; ci < layout_->column_count(); ci++) {
    const ColumnId c(static_cast<uint16_t>(ci));
    const ColumnLayout& col = layout_->column(c);
    const FrozenColumn& fc = frozen_column(c);
    if (fc.nulls != 0) {
      std::memcpy(plain->data_ + col.null_offset, data_ + fc.nulls, uint64_t{(rows + 63) / 64} * 8);
    }
    uint8_t* stripe = plain->data_ + col.stripe_offset;
    for (uint32_t r = 0; r < rows; r++) {
      if (FrozenIsNull(c, SlotNo(r))) continue;  // the stripe holds zeros, as SetCell leaves
      alignas(16) uint8_t cell[16];
      std::string_view str;
      FrozenCell(c, SlotNo(r), cell, &str, &decoded);
      if (!col.type.StoredAsString()) {
        std::memcpy(stripe + uint64_t{r} * col.width, cell, col.width);
        continue;
      }
      StringRef ref{0, 0};
      if (!str.empty()) {
        ref = {layout_->heap_offset() + heap_used, static_cast<uint32_t>(str.size())};
        std::memcpy(plain->data_ + ref.offset, str.data(), str.size());
        heap_used += ref.length;
      }
      std::memcpy(stripe + uint64_t{r} * sizeof(StringRef), &ref, sizeof(ref));
    }
  }
  BlockHeader& ph = plain->mutable_header();
  ph = h;
  ph.magic = kBlockMagic;
  ph.flags &= ~kBlockSealed;
  ph.heap_used = heap_used;
  std::memset(ph.reserved, 0, sizeof(ph.reserved));
  return plain;
}

const FrozenColumn& Block::frozen_column(ColumnId c) const {
  const auto* columns =
      reinterpret_cast<const FrozenColumn*>(data_ + sizeof(BlockHeader) + layout_->bitmap_bytes());
  return columns[c.value()];
}

bool Block::FrozenIsNull(ColumnId c, SlotNo s) const {
  const FrozenColumn& fc = frozen_column(c);
  return fc.nulls != 0 && TestBit(Bitmap(fc.nulls), s.value());
}

void Block::FrozenCell(ColumnId c, SlotNo s, uint8_t* cell, std::string_view* str,
                       std::string* decoded) const {
  const FrozenColumn& fc = frozen_column(c);
  const uint32_t width = layout_->column(c).width;
  switch (static_cast<FrozenEncoding>(fc.encoding)) {
    case FrozenEncoding::kPlain:
      std::memcpy(cell, data_ + fc.data + uint64_t{s.value()} * width, width);
      return;
    case FrozenEncoding::kBitPacked:
      StoreCell(cell, width,
                static_cast<int64_t>(static_cast<uint64_t>(fc.reference) +
                                     Unpack(data_ + fc.data, fc.bits, s.value())));
      return;
    case FrozenEncoding::kRunLength: {
      const RunColumn runs(data_, fc);
      StoreCell(cell, width, runs.value(runs.RunOf(s.value())));
      return;
    }
    case FrozenEncoding::kDictionary:
      *str = DictionaryString(data_, fc, Unpack(data_ + fc.data, fc.bits, s.value()));
      return;
    case FrozenEncoding::kStrings:
      *str = PlainString(data_, fc, s.value());
      return;
    case FrozenEncoding::kFsst:
      *str = FsstString(data_, fc, s.value(), decoded);
      return;
  }
}

namespace {

// f(values) with `out` as an array of the integer type `width` bytes wide.
template <typename F>
void AsIntegers(uint32_t width, void* out, const F& f) {
  if (width == 1) {
    f(static_cast<uint8_t*>(out));
  } else if (width == 2) {
    f(static_cast<int16_t*>(out));
  } else if (width == 4) {
    f(static_cast<int32_t*>(out));
  } else {
    f(static_cast<int64_t*>(out));
  }
}

// DecodeColumn's rows [first + sel[i]] into out[sel[i]].
void DecodeSelected(const uint8_t* block, const FrozenColumn& fc, uint32_t width, uint32_t first,
                    const uint32_t* sel, uint32_t n, void* out, const StringSpace* space) {
  const uint8_t* data = block + fc.data;
  switch (static_cast<FrozenEncoding>(fc.encoding)) {
    case FrozenEncoding::kPlain:
      for (uint32_t i = 0; i < n; i++) {
        std::memcpy(static_cast<uint8_t*>(out) + uint64_t{sel[i]} * width,
                    data + uint64_t{first + sel[i]} * width, width);
      }
      return;
    case FrozenEncoding::kBitPacked: {
      auto gather = [&](auto* values) {
        using T = std::remove_pointer_t<decltype(values)>;
        const auto base = static_cast<uint64_t>(fc.reference);
        for (uint32_t i = 0; i < n; i++) {
          values[sel[i]] = static_cast<T>(base + Unpack(data, fc.bits, first + sel[i]));
        }
      };
      AsIntegers(width, out, gather);
      return;
    }
    case FrozenEncoding::kRunLength:
      AsIntegers(width, out, [&](auto* values) {
        using T = std::remove_pointer_t<decltype(values)>;
        RunColumn(block, fc).ForSelected(
            first, sel, n, [&](uint32_t i, int64_t v) { values[sel[i]] = static_cast<T>(v); });
      });
      return;
    case FrozenEncoding::kDictionary: {
      auto* views = static_cast<std::string_view*>(out);
      for (uint32_t i = 0; i < n; i++) {
        views[sel[i]] = DictionaryString(block, fc, Unpack(data, fc.bits, first + sel[i]));
      }
      return;
    }
    case FrozenEncoding::kStrings: {
      auto* views = static_cast<std::string_view*>(out);
      for (uint32_t i = 0; i < n; i++) views[sel[i]] = PlainString(block, fc, first + sel[i]);
      return;
    }
    case FrozenEncoding::kFsst: {
      auto* views = static_cast<std::string_view*>(out);
      const FsstColumn f(block, fc);
      size_t bytes = fsst::kDecodeSlack;
      for (uint32_t i = 0; i < n; i++) bytes += f.DecodedSize(first + sel[i]);
      char* at = SpaceFor(space, bytes);
      for (uint32_t i = 0; i < n; i++) {
        views[sel[i]] = f.Decode(first + sel[i], at);
        at += views[sel[i]].size();
      }
      return;
    }
  }
}

}  // namespace

const uint64_t* Block::FrozenNullBitmap(ColumnId c) const {
  const FrozenColumn& fc = frozen_column(c);
  return fc.nulls == 0 ? nullptr : Bitmap(fc.nulls);
}

void Block::DecodeColumn(ColumnId c, uint32_t first, uint32_t count, void* out, const uint32_t* sel,
                         uint32_t sel_count, const StringSpace* space) const {
  assert(frozen() && first + count <= row_count());
  const FrozenColumn& fc = frozen_column(c);
  const ColumnLayout& col = layout_->column(c);
  // A selection of most rows decodes faster as the whole range (values
  // outside it are unspecified anyway).
  if (sel != nullptr && sel_count < count / 2) {
    DecodeSelected(data_, fc, col.width, first, sel, sel_count, out, space);
  } else {
    switch (static_cast<FrozenEncoding>(fc.encoding)) {
      case FrozenEncoding::kPlain:
        std::memcpy(out, data_ + fc.data + uint64_t{first} * col.width,
                    uint64_t{count} * col.width);
        break;
      case FrozenEncoding::kBitPacked: {
        const uint8_t* packed = data_ + fc.data;
        switch (col.width) {
          case 1:
            UnpackRange(packed, fc.bits, fc.reference, first, count, static_cast<uint8_t*>(out));
            break;
          case 2:
            UnpackRange(packed, fc.bits, fc.reference, first, count, static_cast<int16_t*>(out));
            break;
          case 4:
            UnpackRange(packed, fc.bits, fc.reference, first, count, static_cast<int32_t*>(out));
            break;
          default:
            UnpackRange(packed, fc.bits, fc.reference, first, count, static_cast<int64_t*>(out));
        }
        break;
      }
      case FrozenEncoding::kRunLength:
        AsIntegers(col.width, out,
                   [&](auto* values) { RunColumn(data_, fc).Decode(first, count, values); });
        break;
      case FrozenEncoding::kDictionary: {
        auto* views = static_cast<std::string_view*>(out);
        if (fc.count == 0) {
          std::fill(views, views + count, std::string_view());
          break;
        }
        const uint32_t* offsets = Offsets(data_, fc.aux);
        const char* bytes = reinterpret_cast<const char*>(data_ + fc.aux + 4 * (fc.count + 1));
        auto view_of = [offsets, bytes](uint64_t code) {
          return std::string_view(bytes + offsets[code], offsets[code + 1] - offsets[code]);
        };
        if (fc.bits == 0) {
          std::fill(views, views + count, view_of(0));
        } else if (fc.count <= 256) {
          // A small dictionary: its views once, then a gather per row.
          std::string_view table[256];
          for (uint32_t k = 0; k < fc.count; k++) table[k] = view_of(k);
          UnpackRange(data_ + fc.data, fc.bits, first, count, views,
                      [&table](uint64_t code) { return table[code]; });
        } else {
          for (uint32_t i = 0; i < count; i++)
            views[i] = view_of(Unpack(data_ + fc.data, fc.bits, first + i));
        }
        break;
      }
      case FrozenEncoding::kStrings: {
        auto* views = static_cast<std::string_view*>(out);
        const uint32_t* offsets = Offsets(data_, fc.aux);
        const char* bytes = reinterpret_cast<const char*>(data_ + fc.data);
        for (uint32_t i = 0; i < count; i++) {
          views[i] = {bytes + offsets[first + i], offsets[first + i + 1] - offsets[first + i]};
        }
        break;
      }
      case FrozenEncoding::kFsst: {
        // One allocation for the range: the codes of rows [first, first +
        // count) lie one after another.
        auto* views = static_cast<std::string_view*>(out);
        const FsstColumn f(data_, fc);
        const uint64_t begin = f.offset(first);
        char* at = SpaceFor(
            space, fsst::DecodedSize(f.lengths, f.codes + begin, f.offset(first + count) - begin) +
                       fsst::kDecodeSlack);
        for (uint32_t i = 0; i < count; i++) {
          views[i] = f.Decode(first + i, at);
          at += views[i].size();
        }
        break;
      }
    }
  }
}

Status Block::FrozenFromImage(std::shared_ptr<const BlockLayout> layout, std::string_view image,
                              std::unique_ptr<Block>* out) {
  BlockHeader h;
  if (image.size() < sizeof(h)) return Status::Corruption("frozen block image: too short");
  std::memcpy(&h, image.data(), sizeof(h));
  const uint32_t size = FrozenSize(h);
  const uint64_t columns_at = sizeof(BlockHeader) + layout->bitmap_bytes();
  const uint64_t regions_at = columns_at + layout->column_count() * sizeof(FrozenColumn);
  auto corrupt = [&](std::string_view what) {
    return Status::Corruption(fmt::format("frozen block image {}: {}", h.block_no, what));
  };
  if (h.format_version != kBlockFormatVersion || size != image.size() || size % 8 != 0 ||
      size < regions_at + kTailPadding) {
    return corrupt("bad format version or size");
  }
  if (h.layout_fingerprint != layout->fingerprint() || h.capacity != layout->capacity() ||
      h.row_count > h.capacity || h.deleted_count > h.row_count || h.heap_used != 0) {
    return corrupt("header does not match the table layout");
  }
  std::unique_ptr<Block> block(new Block(std::move(layout), nullptr));
  block->frozen_ = FrozenBytes(size);
  block->frozen_bytes_ = size;
  block->data_ = reinterpret_cast<uint8_t*>(block->frozen_.get());
  std::memcpy(block->data_, image.data(), size);
  if (block->sealed()) {
    Status s = block->VerifyChecksum();
    if (!s.ok()) return s;
  }
  // Every region inside the bytes before the tail padding.
  const uint64_t end = size - kTailPadding;
  const uint32_t rows = h.row_count;
  auto inside = [&](uint64_t at, uint64_t n) {
    return at >= regions_at && at <= end && n <= end - at;
  };
  for (size_t ci = 0; ci < block->layout_->column_count(); ci++) {
    const ColumnId c(static_cast<uint16_t>(ci));
    const ColumnLayout& col = block->layout_->column(c);
    const FrozenColumn& fc = block->frozen_column(c);
    if (fc.nulls != 0 && (fc.nulls % 8 != 0 || !inside(fc.nulls, uint64_t{(rows + 63) / 64} * 8))) {
      return corrupt("NULL bitmap out of bounds");
    }
    bool ok = false;
    switch (static_cast<FrozenEncoding>(fc.encoding)) {
      case FrozenEncoding::kPlain:
        ok = !col.type.StoredAsString() && inside(fc.data, uint64_t{rows} * col.width);
        break;
      case FrozenEncoding::kBitPacked:
        ok = BitPackable(col) && fc.bits <= 64 && inside(fc.data, PackedBytes(rows, fc.bits));
        break;
      case FrozenEncoding::kRunLength: {
        // Runs end in ascending order, the last at the row count.
        ok = BitPackable(col) && fc.bits <= 64 && fc.end_bits <= 32 &&
             (rows == 0 ? fc.count == 0 : fc.count >= 1 && fc.count <= rows) &&
             inside(fc.data, PackedBytes(fc.count, fc.bits)) &&
             inside(fc.aux, PackedBytes(fc.count, fc.end_bits));
        uint64_t previous = 0;
        for (uint32_t run = 0; ok && run < fc.count; run++) {
          const uint64_t run_end = Unpack(block->data_ + fc.aux, fc.end_bits, run);
          ok = run_end > previous && run_end <= rows;
          previous = run_end;
        }
        ok = ok && previous == rows;
        break;
      }
      case FrozenEncoding::kDictionary: {
        ok = col.type.StoredAsString() && fc.bits <= 32 && fc.aux % 4 == 0 &&
             inside(fc.aux, 4 * (uint64_t{fc.count} + 1)) &&
             inside(fc.data, PackedBytes(rows, fc.bits));
        if (!ok) break;
        const uint32_t* offsets = Offsets(block->data_, fc.aux);
        for (uint32_t i = 0; ok && i < fc.count; i++) ok = offsets[i] <= offsets[i + 1];
        ok = ok && offsets[0] == 0 &&
             inside(fc.aux + 4 * (uint64_t{fc.count} + 1), offsets[fc.count]);
        for (uint32_t r = 0; ok && r < rows; r++) {
          ok = block->FrozenIsNull(c, SlotNo(r)) ||
               Unpack(block->data_ + fc.data, fc.bits, r) < fc.count;
        }
        break;
      }
      case FrozenEncoding::kStrings: {
        ok = col.type.StoredAsString() && fc.aux % 4 == 0 &&
             inside(fc.aux, 4 * (uint64_t{rows} + 1));
        if (!ok) break;
        const uint32_t* offsets = Offsets(block->data_, fc.aux);
        for (uint32_t i = 0; ok && i < rows; i++) ok = offsets[i] <= offsets[i + 1];
        ok = ok && offsets[0] == 0 && inside(fc.data, offsets[rows]);
        break;
      }
      case FrozenEncoding::kFsst: {
        // The table, the offsets, and every row's codes (a code beyond the
        // table, or an escape without its byte, would read outside it).
        ok = col.type.StoredAsString() && fc.count <= fsst::kMaxSymbols && fc.bits <= 32 &&
             fc.aux % 8 == 0 && inside(fc.aux, uint64_t{fc.count} * 9) &&
             inside(fc.offsets, PackedBytes(rows + 1, fc.bits));
        if (!ok) break;
        const FsstColumn f(block->data_, fc);
        for (uint32_t i = 0; ok && i < fc.count; i++) {
          ok = f.lengths[i] >= 1 && f.lengths[i] <= fsst::kMaxSymbolLength;
        }
        ok = ok && f.offset(0) == 0;
        for (uint32_t r = 0; ok && r < rows; r++) ok = f.offset(r) <= f.offset(r + 1);
        ok = ok && inside(fc.data, f.offset(rows));
        for (uint32_t r = 0; ok && r < rows; r++) {
          ok = fsst::Valid(fc.count, f.codes + f.offset(r), f.offset(r + 1) - f.offset(r));
        }
        break;
      }
    }
    if (!ok) return corrupt(fmt::format("column {} is not a valid encoding", ci));
  }
  *out = std::move(block);
  return Status::Ok();
}

}  // namespace forktail
