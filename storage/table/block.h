// Block: one 2 MiB, 2 MiB-aligned piece of a table (layout in block_layout.h).
//
// Memory: mmap'ed (4 MiB reserved, trimmed to an aligned 2 MiB) and advised
// MADV_HUGEPAGE, so a block is one huge page: fork() copies one page-table
// entry for it, and the snapshot child shares it copy-on-write. Freed with
// munmap.
//
// Slots are appended (AppendSlot) and never reused: a deleted slot keeps its
// bit in the delete bitmap and its values (Undelete restores it). Only
// TruncateLastSlot, the exact undo of the newest append, gives a slot back.
//
// Change tracking for checkpoints: every mutation goes through Touch(), which
// clears the sealed flag and, on the first change after MarkCheckpointed(),
// bumps the version and sets the changed flag. A checkpointer writes only
// blocks with IsChangedSinceCheckpoint(), as image version version().
//
// The block is single-writer (the transaction thread); readers in a forked
// snapshot see a copy-on-write image. Nothing here locks.
//
// Frozen blocks (frozen_block.cc). A block that has stopped changing can be
// rewritten by Freeze() into a compressed, read-only form of its own size
// (malloc'ed, not a 2 MiB page): the same header (magic "FTFZ", the same
// version, row count, capacity and layout), the same delete bitmap at the
// same offset, then per column the smallest of
//   - bit-packed: frame of reference + bit packing of the stripe's integers
//     (BOOLEAN, SMALLINT, INTEGER, BIGINT, DATE, TIMESTAMP[TZ], DECIMAL p <= 18);
//     width 0 when every value is equal (a constant column);
//   - run-length: runs of equal values, each run's value bit-packed as above
//     and its end bit-packed, when the runs are 16 rows long on average and
//     that is smaller (a column the table is sorted or clustered by);
//   - dictionary: the distinct strings in byte order (ordered codes, so a
//     range of strings is a range of codes), codes bit-packed;
//   - FSST (fsst.h): strings compressed one by one with a symbol table learnt
//     from the block's own strings, with bit-packed offsets; when it is a
//     tenth smaller than the others (text: comments, names, addresses);
//   - strings: the bytes one after another, with offsets;
//   - plain: the stripe's cells as they are (DOUBLE, wide DECIMAL, or when
//     nothing is smaller);
// and the NULL bitmap when a row is NULL. Every row keeps its slot (tuple ids
// never change); deleted rows keep their values. A frozen block answers every
// read (GetCell, CellEquals, HashCellAt, IsNull, DecodeColumn for scans) and
// takes deletes (SetDeleted only flips a bit); it never takes a new value:
// the table moves an updated row to its tail instead (table.h), and Thaw()
// gives back the plain block when replay must write in place.
#pragma once

#include <cassert>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/status.h"
#include "storage/table/block_layout.h"
#include "storage/table/cell.h"
#include "storage/table/frozen_arena.h"
#include "storage/value/value.h"

namespace forktail {

inline bool TestBit(const uint64_t* bitmap, uint32_t i) { return (bitmap[i >> 6] >> (i & 63)) & 1; }

// What a vectorized operator needs to scan a block: stripe pointers, bitmaps
// and the row count. Valid while the BlockRef it came from is held.
//
//   for (uint32_t r = 0; r < v.row_count(); r++)
//     if (!TestBit(v.delete_bitmap(), r) && !TestBit(v.null_bitmap(c), r)) sum +=
//     v.stripe<int64_t>(c)[r];
class BlockReadView {
 public:
  BlockReadView(const uint8_t* base, const BlockLayout* layout, uint32_t row_count)
      : base_(base), layout_(layout), row_count_(row_count) {}

  uint32_t row_count() const { return row_count_; }
  const uint64_t* delete_bitmap() const {
    return reinterpret_cast<const uint64_t*>(base_ + layout_->delete_offset());
  }
  const uint64_t* null_bitmap(ColumnId c) const {
    return reinterpret_cast<const uint64_t*>(base_ + layout_->column(c).null_offset);
  }
  // T must match the column's physical type (types.h), e.g. int64_t for BIGINT.
  template <typename T>
  const T* stripe(ColumnId c) const {
    return reinterpret_cast<const T*>(base_ + layout_->column(c).stripe_offset);
  }
  std::string_view string(ColumnId c, uint32_t row) const {
    StringRef ref = stripe<StringRef>(c)[row];
    return {reinterpret_cast<const char*>(base_ + ref.offset), ref.length};
  }
  bool is_deleted(uint32_t row) const { return TestBit(delete_bitmap(), row); }
  bool is_null(ColumnId c, uint32_t row) const { return TestBit(null_bitmap(c), row); }

 private:
  const uint8_t* base_;
  const BlockLayout* layout_;
  uint32_t row_count_;
};

inline constexpr uint32_t kFrozenBlockMagic = 0x5a465446;  // "FTFZ" little-endian
struct FrozenColumn;
namespace fsst {
class ContainsMatcher;
}

// How Freeze encodes.
struct FreezeOptions {
  // FSST for string columns that no dictionary shrinks (false keeps them
  // uncompressed: the baseline a benchmark compares against).
  bool compress_strings = true;
};

// Where DecodeColumn puts the strings it decompresses (FSST columns): it
// returns `bytes` writable bytes that stay valid for as long as the views
// into them are used (a scan passes its vector's arena).
using StringSpace = std::function<char*(size_t bytes)>;

class Block {
 public:
  static std::unique_ptr<Block> Create(std::shared_ptr<const BlockLayout> layout, TableId table,
                                       BlockNo block_no);
  // Re-creates a block from ExportImage() bytes. Corruption if the size, the
  // magic, the layout fingerprint or (for a sealed image) the checksum is wrong.
  static Status FromImage(std::shared_ptr<const BlockLayout> layout, std::string_view image,
                          std::unique_ptr<Block>* out);

  ~Block();
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;

  const BlockHeader& header() const { return *reinterpret_cast<const BlockHeader*>(data_); }
  const BlockLayout& layout() const { return *layout_; }
  BlockNo block_no() const { return BlockNo(header().block_no); }
  uint32_t row_count() const { return header().row_count; }
  uint32_t capacity() const { return header().capacity; }
  uint32_t live_count() const { return header().row_count - header().deleted_count; }
  uint32_t heap_free() const { return frozen() ? 0 : layout_->heap_size() - header().heap_used; }

  // True if one more row whose strings take `string_bytes` fits.
  bool HasRoomFor(uint32_t string_bytes) const {
    return !frozen() && row_count() < capacity() && string_bytes <= heap_free();
  }

  // Takes the next slot (all columns NULL, not deleted). Requires room.
  SlotNo AppendSlot();
  // Gives back the newest slot (undo of an append): clears its bits.
  void TruncateLastSlot();

  // Writes a value of the column's type (or NULL). A string takes heap space:
  // the caller has checked heap_free().
  void SetCell(ColumnId c, SlotNo s, const Value& v);
  Value GetCell(ColumnId c, SlotNo s) const;
  // CompareCell(GetCell(c, s), v) == 0 and HashCell(GetCell(c, s)), without
  // building a Value (the index probes with these). v is of the column's type.
  bool CellEquals(ColumnId c, SlotNo s, const Value& v) const;
  uint64_t HashCellAt(ColumnId c, SlotNo s) const;
  bool IsNull(ColumnId c, SlotNo s) const {
    if (frozen()) return FrozenIsNull(c, s);
    return TestBit(Bitmap(layout_->column(c).null_offset), s.value());
  }
  bool IsDeleted(SlotNo s) const { return TestBit(Bitmap(layout_->delete_offset()), s.value()); }
  void SetDeleted(SlotNo s, bool deleted);

  // Rewrites the heap densely, dropping the bytes of overwritten strings. The
  // strings of (skip_slot, skip_column) are dropped as well and become empty:
  // the caller is about to overwrite them. Strings of deleted slots are kept.
  void CompactHeap(SlotNo skip_slot, const std::vector<bool>& skip_columns);
  // Heap bytes that CompactHeap(skip_slot, skip_columns) would leave free.
  uint32_t HeapFreeAfterCompaction(SlotNo skip_slot, const std::vector<bool>& skip_columns) const;

  // Plain blocks only (a frozen block's columns are not stripes: scans use
  // DecodeColumn, Table::ForEachBlock hands out a thawed copy's view).
  BlockReadView View() const {
    assert(!frozen());
    return BlockReadView(data_, layout_.get(), row_count());
  }

  // Freezing (see the header comment). Freeze() encodes a plain block; the
  // result has the same header fields and delete bits. Thaw() decodes a
  // frozen block into a plain one (strings packed densely in its heap).
  static std::unique_ptr<Block> Freeze(const Block& plain, const FreezeOptions& options = {});
  std::unique_ptr<Block> Thaw() const;
  // A plain block's byte-for-byte copy (freezing encodes a copy off the
  // transaction thread, Table::TakeFreezeCandidates).
  std::unique_ptr<Block> Copy() const;
  bool frozen() const { return frozen_ != nullptr; }
  // Memory the block holds: 2 MiB plain, its encoded size frozen.
  size_t memory_bytes() const;
  // Frozen blocks: rows [first, first + count) of column c (first + count <=
  // row_count()) as an array of the column's physical type (uint8_t,
  // int16_t, int32_t, int64_t, __int128, double, or std::string_view into
  // this block for strings) at `out`; values under NULL are unspecified.
  // With `sel`, the rows first + sel[i] (i < sel_count) are decoded, into
  // out[sel[i]] (a scan that filtered on other columns first); others may
  // be too. Compressed strings are decoded into `space`, which a string
  // column needs (strings of other encodings are views into the block).
  void DecodeColumn(ColumnId c, uint32_t first, uint32_t count, void* out,
                    const uint32_t* sel = nullptr, uint32_t sel_count = 0,
                    const StringSpace* space = nullptr) const;
  // Frozen blocks: column c's NULL bitmap (bit r = row r), nullptr when no
  // row is NULL.
  const uint64_t* FrozenNullBitmap(ColumnId c) const;
  // Frozen blocks, scans on the packed values: of the rows first + sel[i]
  // (i < n, ascending; n == count means all of [first, first + count)), the
  // number of those whose value in integer column c (BOOLEAN to BIGINT,
  // DATE, TIMESTAMP[TZ], DECIMAL p <= 18: the int64 a stripe cell holds) is
  // not NULL and compares `op` with `k`; their sel entries go to out (which
  // may be sel). Columns it cannot compare packed keep every row.
  uint32_t SelectWhere(ColumnId c, CellCompare op, int64_t k, uint32_t first, uint32_t count,
                       const uint32_t* sel, uint32_t n, uint32_t* out) const;
  // The same for the values in [lo, hi] (none when lo > hi): a range of one
  // column in one pass (a scan merges its conjuncts on a column into one).
  uint32_t SelectBetween(ColumnId c, int64_t lo, int64_t hi, uint32_t first, uint32_t count,
                         const uint32_t* sel, uint32_t n, uint32_t* out) const;
  // Frozen blocks: whether SelectWhere and SelectBetween compare column c's
  // encoded values (when not, they keep every row).
  bool ComparesEncoded(ColumnId c) const;
  // Frozen blocks: when string column c is dictionary-encoded, its distinct
  // strings in code order (byte order; views into this block) into
  // *strings, and true; false for other encodings.
  bool FrozenDictionary(ColumnId c, std::vector<std::string_view>* strings) const;
  // Frozen blocks, a dictionary column c (FrozenDictionary): of the rows
  // first + sel[i] (as SelectWhere), those whose code's bit is set in
  // `codes` (one bit per dictionary string), and the NULL ones when
  // `keep_null`; their sel entries go to out (which may be sel). A scan
  // evaluates a predicate once per distinct string this way.
  uint32_t SelectCodes(ColumnId c, const uint64_t* codes, bool keep_null, uint32_t first,
                       uint32_t count, const uint32_t* sel, uint32_t n, uint32_t* out) const;
  // Frozen blocks: when string column c is FSST-compressed, a matcher of
  // the strings that hold `literals` in order (LIKE '%a%b%'; see
  // fsst::ContainsMatcher::Supports) on its codes; null for other encodings.
  std::unique_ptr<fsst::ContainsMatcher> FsstContains(
      ColumnId c, const std::vector<std::string>& literals) const;
  // Of the rows first + sel[i] (as SelectWhere), those not NULL whose
  // string in column c (FsstContains made `m`) matches, or with `negated`
  // does not; their sel entries go to out (which may be sel). Nothing is
  // decoded.
  uint32_t SelectContaining(ColumnId c, const fsst::ContainsMatcher& m, bool negated,
                            uint32_t first, const uint32_t* sel, uint32_t n, uint32_t* out) const;

  // Checksums: Seal() stores the checksum and sets the sealed flag; any later
  // mutation clears the flag. VerifyChecksum() is Ok for a sealed block whose
  // bytes match, Corruption otherwise, InvalidArgument if not sealed.
  void Seal();
  bool sealed() const { return header().flags & kBlockSealed; }
  Status VerifyChecksum() const;

  uint64_t version() const { return header().version; }
  bool IsChangedSinceCheckpoint() const { return header().flags & kBlockChanged; }
  void MarkCheckpointed();
  // Whether the block changed since the last call (freezing: a block that
  // did not is idle). Writes the header only when the flag was set, so that
  // asking about idle blocks copies no page a snapshot shares.
  bool TakeTouched();
  bool touched() const { return header().flags & kBlockTouched; }

  // The block's bytes: 2 MiB plain, its encoded size frozen.
  std::string ExportImage() const;
  // Tests: direct access to the bytes (e.g. to corrupt one).
  uint8_t* mutable_data_for_testing() { return data_; }

 private:
  Block(std::shared_ptr<const BlockLayout> layout, uint8_t* data);

  BlockHeader& mutable_header() { return *reinterpret_cast<BlockHeader*>(data_); }
  const uint64_t* Bitmap(uint32_t offset) const {
    return reinterpret_cast<const uint64_t*>(data_ + offset);
  }
  uint64_t* MutableBitmap(uint32_t offset) { return reinterpret_cast<uint64_t*>(data_ + offset); }
  StringRef* Refs(ColumnId c) {
    return reinterpret_cast<StringRef*>(data_ + layout_->column(c).stripe_offset);
  }
  uint32_t ComputeChecksum() const;
  void Touch();
  size_t image_size() const;

  // frozen_block.cc
  static Status FrozenFromImage(std::shared_ptr<const BlockLayout> layout, std::string_view image,
                                std::unique_ptr<Block>* out);
  const FrozenColumn& frozen_column(ColumnId c) const;
  bool FrozenIsNull(ColumnId c, SlotNo s) const;
  // The cell as a plain stripe holds it (`width` bytes; 0 under NULL), or the
  // string: a view into the block, or into `decoded` for a compressed one.
  void FrozenCell(ColumnId c, SlotNo s, uint8_t* cell, std::string_view* str,
                  std::string* decoded) const;
  // Plain or frozen: the cell's bytes (a frozen cell decoded into `scratch`,
  // 16 bytes) and, for strings, the string (perhaps in `decoded`).
  const uint8_t* ReadCell(ColumnId c, SlotNo s, uint8_t* scratch, std::string_view* str,
                          std::string* decoded) const;

  std::shared_ptr<const BlockLayout> layout_;
  uint8_t* data_;       // plain: the 2 MiB mapping; frozen: frozen_'s bytes
  FrozenBytes frozen_;  // frozen_arena.h
  uint32_t frozen_bytes_ = 0;
};

}  // namespace forktail
