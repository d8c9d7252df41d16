// The physical layout of a 2 MiB block, computed once per table schema.
//
// A block is columnar. Fixed-width values live in one stripe per column (a
// plain array of the column's physical type, so a scan is a tight loop);
// NULLs and deletions are bitmaps; strings are a StringRef in the stripe that
// points into the block's heap, which fills from heap_offset upwards.
//
//   offset 0  +------------------------------+
//             | BlockHeader (64 bytes)       |
//        64   +------------------------------+
//             | delete bitmap                |  ceil(capacity / 64) words
//             +------------------------------+  (every region starts 64-byte aligned)
//             | column 0: null bitmap        |  ceil(capacity / 64) words, bit set = NULL
//             | column 0: stripe             |  capacity * StripeWidth()
//             | column 1: null bitmap        |
//             | column 1: stripe             |
//             | ...                          |
//  heap_offset+------------------------------+
//             | heap: string bytes  -->      |  header.heap_used bytes in use
//             |                              |
//   2 MiB     +------------------------------+
//
// Capacity: the largest multiple of 64 rows such that every stripe and bitmap
// fits and the heap still holds capacity * (heap reservation per row). The
// schema's reservation (Compute) is a guess from the declared types: per
// string column min(n, 256) bytes for CHAR(n)/VARCHAR(n), 32 bytes for
// unbounded strings. A table that has seen rows passes the bytes its rows
// really take (ComputeWithReserve; table.h says how it is derived), so a block
// fills its stripes and its heap at about the same time. Rows whose strings
// are longer than reserved fill the heap before the stripes; the table then
// starts a new block ("variable-length overflow"). A test knob (max_rows)
// caps the capacity to make multi-block paths cheap to test.
//
// The placement of every region depends on the column types and the capacity
// only, so blocks of one table may differ in capacity: each block carries its
// capacity in its header and ForCapacity() rebuilds its layout from it (the
// fingerprint covers the types and the capacity).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "storage/table/schema.h"

namespace forktail {

inline constexpr size_t kBlockSize = size_t{2} << 20;  // 2 MiB, the x86-64 huge-page size
inline constexpr uint32_t kBlockMagic = 0x4b425446;    // "FTBK" little-endian
inline constexpr uint16_t kBlockFormatVersion = 1;
inline constexpr uint32_t kRegionAlignment = 64;  // a cache line
inline constexpr uint32_t kUnboundedStringReserve = 32;
inline constexpr uint32_t kMaxStringReserve = 256;

// A string value in a stripe: `length` bytes at block offset `offset`. An
// empty (or NULL) string is {0, 0}.
struct StringRef {
  uint32_t offset;
  uint32_t length;
};
static_assert(sizeof(StringRef) == 8);

// Block flags.
inline constexpr uint16_t kBlockSealed = 1u << 0;   // checksum is valid
inline constexpr uint16_t kBlockChanged = 1u << 1;  // changed since the last checkpoint
inline constexpr uint16_t kBlockTouched = 1u << 2;  // changed since Block::TakeTouched()

//  offset size  field
//   0      4    magic "FTBK"
//   4      2    format version
//   6      2    flags (sealed, changed since checkpoint)
//   8      4    table id
//  12      4    block number
//  16      8    version: bumped by the first change after a checkpoint
//  24      4    row count: slots used, deleted ones included
//  28      4    capacity (rows)
//  32      4    heap bytes used
//  36      4    deleted count
//  40      4    layout fingerprint (schema types + capacity)
//  44      4    checksum: masked CRC32C of the block, flags and this field as zero
//  48     16    reserved, zero
struct BlockHeader {
  uint32_t magic;
  uint16_t format_version;
  uint16_t flags;
  uint32_t table_id;
  uint32_t block_no;
  uint64_t version;
  uint32_t row_count;
  uint32_t capacity;
  uint32_t heap_used;
  uint32_t deleted_count;
  uint32_t layout_fingerprint;
  uint32_t checksum;
  uint8_t reserved[16];
};
static_assert(sizeof(BlockHeader) == 64);
static_assert(offsetof(BlockHeader, version) == 16);
static_assert(offsetof(BlockHeader, row_count) == 24);
static_assert(offsetof(BlockHeader, checksum) == 44);

struct ColumnLayout {
  Type type;
  uint32_t width;          // bytes per value in the stripe
  uint32_t null_offset;    // block offset of the null bitmap
  uint32_t stripe_offset;  // block offset of the stripe
  uint32_t heap_reserve;   // heap bytes reserved per row (strings only)
};

class BlockLayout {
 public:
  // Throws DbError 54000 when not even 64 rows of the schema fit a block.
  // max_rows > 0 caps the capacity (tests: tiny blocks).
  static std::shared_ptr<const BlockLayout> Compute(const TableSchema& schema,
                                                    uint32_t max_rows = 0);
  // The same with `reserve_per_row` heap bytes reserved per row instead of the
  // types' guess.
  static std::shared_ptr<const BlockLayout> ComputeWithReserve(const TableSchema& schema,
                                                               uint32_t max_rows,
                                                               uint32_t reserve_per_row);
  // The layout of a block of `capacity` rows (e.g. read from an image's
  // header); nullptr if its regions do not fit a block.
  static std::shared_ptr<const BlockLayout> ForCapacity(const TableSchema& schema,
                                                        uint32_t capacity);

  uint32_t capacity() const { return capacity_; }
  uint32_t delete_offset() const { return delete_offset_; }
  uint32_t heap_offset() const { return heap_offset_; }
  uint32_t heap_size() const { return static_cast<uint32_t>(kBlockSize) - heap_offset_; }
  uint32_t bitmap_bytes() const { return (capacity_ + 63) / 64 * 8; }
  size_t column_count() const { return columns_.size(); }
  const ColumnLayout& column(ColumnId id) const { return columns_[id.value()]; }
  const std::vector<ColumnLayout>& columns() const { return columns_; }
  bool has_strings() const { return has_strings_; }
  uint32_t heap_reserve_per_row() const { return heap_reserve_per_row_; }
  uint32_t fingerprint() const { return fingerprint_; }

 private:
  // Places the regions for `capacity` rows; false if they do not fit with the
  // heap reservation.
  bool Place(uint32_t capacity);
  // Columns from the schema (heap_reserve_per_row_ = the types' guess).
  static std::shared_ptr<BlockLayout> FromSchema(const TableSchema& schema);
  void ComputeFingerprint();

  uint32_t capacity_ = 0;
  uint32_t delete_offset_ = 0;
  uint32_t heap_offset_ = 0;
  uint32_t heap_reserve_per_row_ = 0;
  bool has_strings_ = false;
  uint32_t fingerprint_ = 0;
  std::vector<ColumnLayout> columns_;
};

}  // namespace forktail
