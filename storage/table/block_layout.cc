#include "storage/table/block_layout.h"

#include <fmt/format.h>

#include "storage/crc32c.h"
#include "storage/error.h"

namespace forktail {
namespace {

uint64_t AlignUp(uint64_t x) {
  return (x + kRegionAlignment - 1) / kRegionAlignment * kRegionAlignment;
}

uint32_t HeapReserve(const Type& type) {
  if (!type.StoredAsString()) return 0;
  if (type.length == 0) return kUnboundedStringReserve;
  return std::min(type.length, kMaxStringReserve);
}

}  // namespace

bool BlockLayout::Place(uint32_t capacity) {
  uint64_t bitmap = (uint64_t{capacity} + 63) / 64 * 8;
  uint64_t at = sizeof(BlockHeader);
  delete_offset_ = static_cast<uint32_t>(at);
  at = AlignUp(at + bitmap);
  for (ColumnLayout& c : columns_) {
    c.null_offset = static_cast<uint32_t>(at);
    at = AlignUp(at + bitmap);
    c.stripe_offset = static_cast<uint32_t>(at);
    at = AlignUp(at + uint64_t{capacity} * c.width);
  }
  if (at > kBlockSize) return false;
  if (kBlockSize - at < uint64_t{capacity} * heap_reserve_per_row_) return false;
  heap_offset_ = static_cast<uint32_t>(at);
  capacity_ = capacity;
  return true;
}

std::shared_ptr<BlockLayout> BlockLayout::FromSchema(const TableSchema& schema) {
  auto layout = std::make_shared<BlockLayout>();
  for (const ColumnDef& def : schema.columns) {
    ColumnLayout c{def.type, def.type.StripeWidth(), 0, 0, HeapReserve(def.type)};
    layout->heap_reserve_per_row_ += c.heap_reserve;
    layout->has_strings_ |= def.type.StoredAsString();
    layout->columns_.push_back(c);
  }
  return layout;
}

std::shared_ptr<const BlockLayout> BlockLayout::Compute(const TableSchema& schema,
                                                        uint32_t max_rows) {
  uint32_t reserve = FromSchema(schema)->heap_reserve_per_row_;
  return ComputeWithReserve(schema, max_rows, reserve);
}

std::shared_ptr<const BlockLayout> BlockLayout::ComputeWithReserve(const TableSchema& schema,
                                                                   uint32_t max_rows,
                                                                   uint32_t reserve_per_row) {
  std::shared_ptr<BlockLayout> layout = FromSchema(schema);
  layout->heap_reserve_per_row_ = reserve_per_row;
  uint64_t row_bytes = reserve_per_row;
  for (const ColumnLayout& c : layout->columns_) row_bytes += c.width;
  // Estimate from bits per row, then step down until the regions fit (the
  // alignment padding makes the estimate a little optimistic).
  uint64_t ncols = schema.columns.size();
  uint64_t per_row_bits = row_bytes * 8 + ncols + 1;
  uint64_t overhead = sizeof(BlockHeader) + (2 * ncols + 1) * (kRegionAlignment + 8);
  uint64_t estimate = overhead < kBlockSize ? (kBlockSize - overhead) * 8 / per_row_bits : 0;
  estimate = std::min<uint64_t>(estimate, uint64_t{1} << 30) / 64 * 64;
  if (max_rows > 0 && max_rows < estimate) estimate = max_rows;
  uint32_t capacity = static_cast<uint32_t>(estimate);
  while (capacity > 0 && !layout->Place(capacity)) capacity -= capacity > 64 ? 64 : capacity;
  if (capacity == 0) {
    throw DbError(
        sqlstate::kProgramLimitExceeded,
        fmt::format("row of table \"{}\" is too wide: {} bytes per row", schema.name, row_bytes));
  }
  layout->ComputeFingerprint();
  return layout;
}

std::shared_ptr<const BlockLayout> BlockLayout::ForCapacity(const TableSchema& schema,
                                                            uint32_t capacity) {
  std::shared_ptr<BlockLayout> layout = FromSchema(schema);
  layout->heap_reserve_per_row_ = 0;
  if (capacity == 0 || !layout->Place(capacity)) return nullptr;
  layout->ComputeFingerprint();
  return layout;
}

// The types and the capacity: an image only fits a block of the same layout.
void BlockLayout::ComputeFingerprint() {
  uint32_t crc = crc32c::Value(&capacity_, sizeof(capacity_));
  for (const ColumnLayout& c : columns_) {
    uint8_t t[7] = {static_cast<uint8_t>(c.type.id),
                    c.type.precision,
                    c.type.scale,
                    static_cast<uint8_t>(c.type.length),
                    static_cast<uint8_t>(c.type.length >> 8),
                    static_cast<uint8_t>(c.type.length >> 16),
                    static_cast<uint8_t>(c.type.length >> 24)};
    crc = crc32c::Extend(crc, t, sizeof(t));
  }
  fingerprint_ = crc;
}

}  // namespace forktail
