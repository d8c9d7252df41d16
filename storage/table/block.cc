#include "storage/table/block.h"

#include <sys/mman.h>

#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "storage/crc32c.h"
#include "storage/table/cell.h"

namespace forktail {
namespace {

// Reserves 2 * kBlockSize and unmaps the unaligned head and tail, leaving one
// kBlockSize-aligned block that the kernel can back with one huge page.
uint8_t* AllocateAligned() {
  void* p =
      mmap(nullptr, 2 * kBlockSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    std::fprintf(stderr, "forktail: mmap of a 2 MiB block failed\n");
    std::abort();
  }
  auto raw = reinterpret_cast<uintptr_t>(p);
  uintptr_t aligned = (raw + kBlockSize - 1) & ~(uintptr_t{kBlockSize} - 1);
  if (aligned > raw) munmap(p, aligned - raw);
  uintptr_t end = raw + 2 * kBlockSize;
  if (end > aligned + kBlockSize)
    munmap(reinterpret_cast<void*>(aligned + kBlockSize), end - aligned - kBlockSize);
  auto* block = reinterpret_cast<uint8_t*>(aligned);
  madvise(block, kBlockSize, MADV_HUGEPAGE);  // best effort: THP may be off
  return block;
}

void SetBit(uint64_t* bitmap, uint32_t i, bool on) {
  uint64_t mask = uint64_t{1} << (i & 63);
  if (on) {
    bitmap[i >> 6] |= mask;
  } else {
    bitmap[i >> 6] &= ~mask;
  }
}

}  // namespace

Block::Block(std::shared_ptr<const BlockLayout> layout, uint8_t* data)
    : layout_(std::move(layout)), data_(data) {}

Block::~Block() {
  if (!frozen()) munmap(data_, kBlockSize);
}

size_t Block::image_size() const { return frozen() ? frozen_bytes_ : kBlockSize; }
size_t Block::memory_bytes() const { return image_size(); }

std::unique_ptr<Block> Block::Create(std::shared_ptr<const BlockLayout> layout, TableId table,
                                     BlockNo block_no) {
  uint8_t* data = AllocateAligned();  // zero-filled by mmap
  auto* h = reinterpret_cast<BlockHeader*>(data);
  h->magic = kBlockMagic;
  h->format_version = kBlockFormatVersion;
  h->flags = kBlockChanged;
  h->table_id = table.value();
  h->block_no = block_no.value();
  h->version = 1;
  h->capacity = layout->capacity();
  h->layout_fingerprint = layout->fingerprint();
  return std::unique_ptr<Block>(new Block(std::move(layout), data));
}

std::unique_ptr<Block> Block::Copy() const {
  assert(!frozen());
  uint8_t* data = AllocateAligned();
  std::memcpy(data, data_, kBlockSize);
  return std::unique_ptr<Block>(new Block(layout_, data));
}

Status Block::FromImage(std::shared_ptr<const BlockLayout> layout, std::string_view image,
                        std::unique_ptr<Block>* out) {
  uint32_t magic = 0;
  if (image.size() >= sizeof(magic)) std::memcpy(&magic, image.data(), sizeof(magic));
  if (magic == kFrozenBlockMagic) return FrozenFromImage(std::move(layout), image, out);
  if (image.size() != kBlockSize) {
    return Status::Corruption(
        fmt::format("block image has {} bytes, expected {}", image.size(), kBlockSize));
  }
  BlockHeader h;
  std::memcpy(&h, image.data(), sizeof(h));
  if (h.magic != kBlockMagic || h.format_version != kBlockFormatVersion) {
    return Status::Corruption("block image: bad magic or format version");
  }
  if (h.layout_fingerprint != layout->fingerprint() || h.capacity != layout->capacity() ||
      h.row_count > h.capacity || h.deleted_count > h.row_count ||
      h.heap_used > layout->heap_size()) {
    return Status::Corruption(
        fmt::format("block image {}: header does not match the table layout", h.block_no));
  }
  std::unique_ptr<Block> block(new Block(std::move(layout), AllocateAligned()));
  std::memcpy(block->data_, image.data(), kBlockSize);
  if (block->sealed()) {
    Status s = block->VerifyChecksum();
    if (!s.ok()) return s;
  }
  *out = std::move(block);
  return Status::Ok();
}

void Block::Touch() {
  BlockHeader& h = mutable_header();
  if (!(h.flags & kBlockChanged)) {
    h.version++;
    h.flags |= kBlockChanged;
  }
  h.flags = static_cast<uint16_t>((h.flags & ~kBlockSealed) | kBlockTouched);
}

void Block::MarkCheckpointed() { mutable_header().flags &= ~kBlockChanged; }

bool Block::TakeTouched() {
  if (!(header().flags & kBlockTouched)) return false;
  mutable_header().flags &= ~kBlockTouched;
  return true;
}

SlotNo Block::AppendSlot() {
  assert(!frozen());
  assert(row_count() < capacity());
  Touch();
  return SlotNo(mutable_header().row_count++);
}

void Block::TruncateLastSlot() {
  assert(!frozen());
  assert(row_count() > 0);
  Touch();
  BlockHeader& h = mutable_header();
  uint32_t s = --h.row_count;
  if (TestBit(Bitmap(layout_->delete_offset()), s)) h.deleted_count--;
  SetBit(MutableBitmap(layout_->delete_offset()), s, false);
  // Give back the slot's strings if they are the newest heap bytes (they are
  // when the append being undone was the last heap allocation).
  for (size_t i = layout_->column_count(); i-- > 0;) {
    const ColumnLayout& c = layout_->columns()[i];
    if (!c.type.StoredAsString()) continue;
    StringRef& ref = Refs(ColumnId(static_cast<uint16_t>(i)))[s];
    if (ref.length > 0 && ref.offset + ref.length == layout_->heap_offset() + h.heap_used) {
      h.heap_used -= ref.length;
      std::memset(data_ + ref.offset, 0, ref.length);
    }
  }
  for (const ColumnLayout& c : layout_->columns()) {
    SetBit(MutableBitmap(c.null_offset), s, false);
    std::memset(data_ + c.stripe_offset + uint64_t{s} * c.width, 0, c.width);
  }
}

void Block::SetDeleted(SlotNo s, bool deleted) {
  assert(s.value() < row_count());
  if (IsDeleted(s) == deleted) return;
  Touch();
  SetBit(MutableBitmap(layout_->delete_offset()), s.value(), deleted);
  mutable_header().deleted_count += deleted ? 1 : -1;
}

void Block::SetCell(ColumnId c, SlotNo s, const Value& v) {
  assert(!frozen());
  assert(s.value() < row_count());
  Touch();
  const ColumnLayout& col = layout_->column(c);
  SetBit(MutableBitmap(col.null_offset), s.value(), v.is_null());
  uint8_t* cell = data_ + col.stripe_offset + uint64_t{s.value()} * col.width;
  if (col.type.StoredAsString()) {
    StringRef ref{0, 0};
    if (!v.is_null() && !v.GetString().empty()) {
      std::string_view str = v.GetString();
      assert(str.size() <= heap_free());
      BlockHeader& h = mutable_header();
      ref = {layout_->heap_offset() + h.heap_used, static_cast<uint32_t>(str.size())};
      std::memcpy(data_ + ref.offset, str.data(), str.size());
      h.heap_used += ref.length;
    }
    std::memcpy(cell, &ref, sizeof(ref));
    return;
  }
  if (v.is_null()) {
    std::memset(cell, 0, col.width);
    return;
  }
  switch (col.type.id) {
    case TypeId::kBoolean:
      *cell = v.GetBool() ? 1 : 0;
      break;
    case TypeId::kSmallInt: {
      auto x = static_cast<int16_t>(v.GetInt());
      std::memcpy(cell, &x, 2);
      break;
    }
    case TypeId::kInteger:
    case TypeId::kDate: {
      auto x = static_cast<int32_t>(v.GetInt());
      std::memcpy(cell, &x, 4);
      break;
    }
    case TypeId::kDouble: {
      double d = v.GetDouble();
      std::memcpy(cell, &d, 8);
      break;
    }
    default: {
      int64_t x = v.GetInt();
      std::memcpy(cell, &x, 8);
    }
  }
}

namespace {

// A stripe cell of a fixed-width type as a Value (not NULL).
Value ValueOfCell(const Type& type, const uint8_t* cell) {
  switch (type.id) {
    case TypeId::kBoolean:
      return Value::Boolean(*cell != 0);
    case TypeId::kSmallInt: {
      int16_t x;
      std::memcpy(&x, cell, 2);
      return Value::SmallInt(x);
    }
    case TypeId::kInteger:
    case TypeId::kDate: {
      int32_t x;
      std::memcpy(&x, cell, 4);
      return type.id == TypeId::kDate ? Value::Date(x) : Value::Integer(x);
    }
    case TypeId::kDouble: {
      double d;
      std::memcpy(&d, cell, 8);
      return Value::Double(d);
    }
    default: {
      int64_t x;
      std::memcpy(&x, cell, 8);
      if (type.id == TypeId::kBigInt) return Value::BigInt(x);
      if (type.id == TypeId::kTimestamp) return Value::Timestamp(x);
      if (type.id == TypeId::kTimestampTz) return Value::TimestampTz(x);
      return Value::Decimal(x, type.precision, type.scale);
    }
  }
}

}  // namespace

Value Block::GetCell(ColumnId c, SlotNo s) const {
  const ColumnLayout& col = layout_->column(c);
  if (IsNull(c, s)) return Value::Null(col.type);
  alignas(16) uint8_t scratch[16];
  std::string_view str;
  std::string decoded;
  const uint8_t* cell = ReadCell(c, s, scratch, &str, &decoded);
  if (col.type.StoredAsString()) {
    if (!decoded.empty() && str.data() == decoded.data()) {
      return Value::String(col.type, std::move(decoded));
    }
    return Value::String(col.type, std::string(str));
  }
  return ValueOfCell(col.type, cell);
}

const uint8_t* Block::ReadCell(ColumnId c, SlotNo s, uint8_t* scratch, std::string_view* str,
                               std::string* decoded) const {
  if (frozen()) {
    FrozenCell(c, s, scratch, str, decoded);
    return scratch;
  }
  const ColumnLayout& col = layout_->column(c);
  const uint8_t* cell = data_ + col.stripe_offset + uint64_t{s.value()} * col.width;
  if (col.type.StoredAsString()) {
    StringRef ref;
    std::memcpy(&ref, cell, sizeof(ref));
    *str = std::string_view(reinterpret_cast<const char*>(data_ + ref.offset), ref.length);
  }
  return cell;
}

bool Block::CellEquals(ColumnId c, SlotNo s, const Value& v) const {
  if (IsNull(c, s) || v.is_null()) return IsNull(c, s) == v.is_null();
  const ColumnLayout& col = layout_->column(c);
  alignas(16) uint8_t scratch[16];
  std::string_view str;
  std::string decoded;
  const uint8_t* cell = ReadCell(c, s, scratch, &str, &decoded);
  if (col.type.StoredAsString()) return str == v.GetString();
  if (col.type.id == TypeId::kDouble) return CompareCell(GetCell(c, s), v) == 0;
  return LoadIntCell(cell, col.width) == v.GetInt();
}

uint64_t Block::HashCellAt(ColumnId c, SlotNo s) const {
  const ColumnLayout& col = layout_->column(c);
  if (IsNull(c, s)) return HashCell(Value::Null(col.type));
  alignas(16) uint8_t scratch[16];
  std::string_view str;
  std::string decoded;
  const uint8_t* cell = ReadCell(c, s, scratch, &str, &decoded);
  if (col.type.StoredAsString()) return HashBytes(str);
  if (col.type.id == TypeId::kDouble) {
    double d;
    std::memcpy(&d, cell, 8);
    return HashDouble(d);
  }
  return HashInt(LoadIntCell(cell, col.width));
}

uint32_t Block::HeapFreeAfterCompaction(SlotNo skip_slot,
                                        const std::vector<bool>& skip_columns) const {
  if (frozen()) return 0;
  uint64_t live = 0;
  for (size_t ci = 0; ci < layout_->column_count(); ci++) {
    ColumnId c(static_cast<uint16_t>(ci));
    if (!layout_->column(c).type.StoredAsString()) continue;
    auto* refs = reinterpret_cast<const StringRef*>(data_ + layout_->column(c).stripe_offset);
    for (uint32_t r = 0; r < row_count(); r++) {
      if (r == skip_slot.value() && skip_columns[ci]) continue;
      live += refs[r].length;
    }
  }
  return layout_->heap_size() - static_cast<uint32_t>(live);
}

void Block::CompactHeap(SlotNo skip_slot, const std::vector<bool>& skip_columns) {
  assert(!frozen());
  Touch();
  std::vector<uint8_t> packed;
  packed.reserve(header().heap_used);
  for (size_t ci = 0; ci < layout_->column_count(); ci++) {
    ColumnId c(static_cast<uint16_t>(ci));
    if (!layout_->column(c).type.StoredAsString()) continue;
    StringRef* refs = Refs(c);
    for (uint32_t r = 0; r < row_count(); r++) {
      if (r == skip_slot.value() && skip_columns[ci]) refs[r] = {0, 0};
      if (refs[r].length == 0) continue;
      uint32_t at = layout_->heap_offset() + static_cast<uint32_t>(packed.size());
      packed.insert(packed.end(), data_ + refs[r].offset, data_ + refs[r].offset + refs[r].length);
      refs[r].offset = at;
    }
  }
  std::memcpy(data_ + layout_->heap_offset(), packed.data(), packed.size());
  std::memset(data_ + layout_->heap_offset() + packed.size(), 0,
              header().heap_used - packed.size());
  mutable_header().heap_used = static_cast<uint32_t>(packed.size());
}

// Covers every byte except the flags (the checkpointer flips "changed" on a
// sealed block) and the checksum itself.
uint32_t Block::ComputeChecksum() const {
  BlockHeader h = header();
  h.flags = 0;
  h.checksum = 0;
  uint32_t crc = crc32c::Value(&h, sizeof(h));
  crc = crc32c::Extend(crc, data_ + sizeof(h), image_size() - sizeof(h));
  return crc32c::Mask(crc);
}

void Block::Seal() {
  mutable_header().flags |= kBlockSealed;
  mutable_header().checksum = ComputeChecksum();
}

Status Block::VerifyChecksum() const {
  if (!sealed())
    return Status::InvalidArgument(fmt::format("block {} is not sealed", header().block_no));
  uint32_t actual = ComputeChecksum();
  if (actual != header().checksum) {
    return Status::Corruption(
        fmt::format("block {} of table {}: checksum mismatch (stored {:08x}, computed {:08x})",
                    header().block_no, header().table_id, header().checksum, actual));
  }
  return Status::Ok();
}

std::string Block::ExportImage() const {
  return std::string(reinterpret_cast<const char*>(data_), image_size());
}

}  // namespace forktail
