#include <gtest/gtest.h>

#include <cstring>

#include "storage/storage.h"

namespace forktail {
namespace {

TableSchema MixedSchema() {
  return {"t",
          {{"id", Type::BigInt(), true},
           {"flag", Type::Boolean()},
           {"small", Type::SmallInt()},
           {"d", Type::Date()},
           {"price", Type::Decimal(10, 2)},
           {"x", Type::Double()},
           {"name", Type::Varchar(20)},
           {"note", Type::Text()}},
          {ColumnId(0)}};
}

Row MixedRow(int64_t i) {
  return {Value::BigInt(i),
          Value::Boolean(i % 2 == 0),
          Value::SmallInt(static_cast<int16_t>(i % 1000)),
          Value::Date(static_cast<int32_t>(19000 + i % 365)),
          Value::Decimal(i * 7, 10, 2),
          Value::Double(i * 0.5),
          Value::String(Type::Varchar(20), "name" + std::to_string(i)),
          i % 3 == 0 ? Value::Null(Type::Text()) : Value::Text("note " + std::to_string(i))};
}

TEST(BlockLayout, RegionsAreAlignedAndFit) {
  auto layout = BlockLayout::Compute(MixedSchema());
  EXPECT_EQ(layout->capacity() % 64, 0u);
  EXPECT_GT(layout->capacity(), 10000u);
  EXPECT_EQ(layout->delete_offset(), sizeof(BlockHeader));
  uint32_t end = layout->delete_offset() + layout->bitmap_bytes();
  for (const ColumnLayout& c : layout->columns()) {
    EXPECT_EQ(c.null_offset % kRegionAlignment, 0u);
    EXPECT_EQ(c.stripe_offset % kRegionAlignment, 0u);
    EXPECT_GE(c.null_offset, end);
    EXPECT_GE(c.stripe_offset, c.null_offset + layout->bitmap_bytes());
    end = c.stripe_offset + layout->capacity() * c.width;
  }
  EXPECT_GE(layout->heap_offset(), end);
  // Heap holds the reservation: 20 (varchar(20)) + 32 (text) bytes per row.
  EXPECT_GE(layout->heap_size(), layout->capacity() * 52u);
  // One BIGINT column: 8 bytes + 2 bits per row.
  auto narrow = BlockLayout::Compute({"n", {{"a", Type::BigInt()}}, {}});
  EXPECT_EQ(narrow->capacity(), ((kBlockSize - 256) * 8 / 66) / 64 * 64);
  EXPECT_EQ(BlockLayout::Compute(MixedSchema(), 100)->capacity(), 100u);
}

TEST(BlockLayout, TooWideRowIsRejected) {
  TableSchema wide{"w", {}, {}};
  for (int i = 0; i < 1500; i++) wide.columns.push_back({"c" + std::to_string(i), Type::Char(256)});
  try {
    BlockLayout::Compute(wide);
    FAIL();
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kProgramLimitExceeded);
  }
}

TEST(Block, IsAlignedAndStartsEmpty) {
  auto block = Block::Create(BlockLayout::Compute(MixedSchema()), TableId(3), BlockNo(5));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(&block->header()) % kBlockSize, 0u);
  EXPECT_EQ(block->header().magic, kBlockMagic);
  EXPECT_EQ(block->header().table_id, 3u);
  EXPECT_EQ(block->block_no(), BlockNo(5));
  EXPECT_EQ(block->row_count(), 0u);
  EXPECT_EQ(block->version(), 1u);
  EXPECT_TRUE(block->IsChangedSinceCheckpoint());
}

TEST(Block, CellsRoundTripEveryType) {
  auto block = Block::Create(BlockLayout::Compute(MixedSchema()), TableId(1), BlockNo(0));
  for (int64_t i = 0; i < 10; i++) {
    Row row = MixedRow(i);
    SlotNo s = block->AppendSlot();
    for (size_t c = 0; c < row.size(); c++) block->SetCell(ColumnId(c), s, row[c]);
  }
  for (int64_t i = 0; i < 10; i++) {
    Row row = MixedRow(i);
    for (size_t c = 0; c < row.size(); c++) {
      Value v = block->GetCell(ColumnId(c), SlotNo(i));
      EXPECT_EQ(v.is_null(), row[c].is_null());
      if (!v.is_null()) {
        EXPECT_EQ(CompareCell(v, row[c]), 0) << "row " << i << " col " << c;
      }
      EXPECT_EQ(v.type(), row[c].type());
      EXPECT_TRUE(block->CellEquals(ColumnId(c), SlotNo(i), row[c]));
      EXPECT_EQ(block->HashCellAt(ColumnId(c), SlotNo(i)), HashCell(row[c]));
      if (!row[c].is_null()) {
        EXPECT_FALSE(block->CellEquals(ColumnId(c), SlotNo(i), Value::Null(row[c].type())));
      }
    }
  }
  // The read view sees the same stripes.
  BlockReadView view = block->View();
  EXPECT_EQ(view.row_count(), 10u);
  EXPECT_EQ(view.stripe<int64_t>(ColumnId(0))[4], 4);
  EXPECT_EQ(view.stripe<int16_t>(ColumnId(2))[4], 4);
  EXPECT_EQ(view.string(ColumnId(6), 4), "name4");
  EXPECT_TRUE(view.is_null(ColumnId(7), 3));
  EXPECT_FALSE(view.is_null(ColumnId(7), 4));
}

TEST(Block, FillToCapacity) {
  auto layout = BlockLayout::Compute({"n", {{"a", Type::BigInt()}}, {}});
  auto block = Block::Create(layout, TableId(1), BlockNo(0));
  for (uint32_t i = 0; i < layout->capacity(); i++) {
    ASSERT_TRUE(block->HasRoomFor(0));
    block->SetCell(ColumnId(0), block->AppendSlot(), Value::BigInt(i));
  }
  EXPECT_FALSE(block->HasRoomFor(0));
  int64_t sum = 0;
  BlockReadView v = block->View();
  for (uint32_t r = 0; r < v.row_count(); r++) sum += v.stripe<int64_t>(ColumnId(0))[r];
  int64_t n = layout->capacity();
  EXPECT_EQ(sum, n * (n - 1) / 2);
}

TEST(Block, DeleteBitmap) {
  auto block = Block::Create(BlockLayout::Compute(MixedSchema()), TableId(1), BlockNo(0));
  for (int i = 0; i < 130; i++) block->AppendSlot();
  block->SetDeleted(SlotNo(0), true);
  block->SetDeleted(SlotNo(64), true);
  block->SetDeleted(SlotNo(129), true);
  block->SetDeleted(SlotNo(129), true);  // idempotent
  EXPECT_EQ(block->live_count(), 127u);
  BlockReadView v = block->View();
  for (uint32_t r = 0; r < 130; r++) EXPECT_EQ(v.is_deleted(r), r == 0 || r == 64 || r == 129);
  block->SetDeleted(SlotNo(64), false);
  EXPECT_FALSE(block->IsDeleted(SlotNo(64)));
  EXPECT_EQ(block->live_count(), 128u);
}

TEST(Block, SealChecksumAndCorruption) {
  auto block = Block::Create(BlockLayout::Compute(MixedSchema()), TableId(1), BlockNo(0));
  EXPECT_EQ(block->VerifyChecksum().code(), Status::Code::kInvalidArgument);
  for (int64_t i = 0; i < 50; i++) {
    SlotNo s = block->AppendSlot();
    Row row = MixedRow(i);
    for (size_t c = 0; c < row.size(); c++) block->SetCell(ColumnId(c), s, row[c]);
  }
  block->Seal();
  EXPECT_TRUE(block->sealed());
  EXPECT_TRUE(block->VerifyChecksum().ok());
  block->MarkCheckpointed();  // flags are outside the checksum
  EXPECT_TRUE(block->VerifyChecksum().ok());
  // Flip one byte of a stripe, of the heap, of the header: each is detected.
  for (size_t at : {size_t{block->layout().column(ColumnId(0)).stripe_offset + 3},
                    size_t{block->layout().heap_offset() + 2}, size_t{24}, kBlockSize - 1}) {
    block->mutable_data_for_testing()[at] ^= 0x40;
    Status s = block->VerifyChecksum();
    EXPECT_EQ(s.code(), Status::Code::kCorruption) << at;
    EXPECT_NE(s.message().find("checksum mismatch"), std::string::npos);
    block->mutable_data_for_testing()[at] ^= 0x40;
    EXPECT_TRUE(block->VerifyChecksum().ok());
  }
  // A mutation unseals.
  block->SetDeleted(SlotNo(1), true);
  EXPECT_FALSE(block->sealed());
}

TEST(Block, VersionBumpsOncePerCheckpointInterval) {
  auto block = Block::Create(BlockLayout::Compute(MixedSchema()), TableId(1), BlockNo(0));
  block->AppendSlot();
  block->AppendSlot();
  EXPECT_EQ(block->version(), 1u);
  block->MarkCheckpointed();
  EXPECT_FALSE(block->IsChangedSinceCheckpoint());
  EXPECT_EQ(block->version(), 1u);
  block->SetCell(ColumnId(0), SlotNo(0), Value::BigInt(1));
  block->SetCell(ColumnId(0), SlotNo(1), Value::BigInt(2));
  EXPECT_TRUE(block->IsChangedSinceCheckpoint());
  EXPECT_EQ(block->version(), 2u);
  block->MarkCheckpointed();
  block->SetDeleted(SlotNo(0), true);
  EXPECT_EQ(block->version(), 3u);
}

TEST(Block, ImageRoundTrip) {
  auto layout = BlockLayout::Compute(MixedSchema());
  auto block = Block::Create(layout, TableId(1), BlockNo(2));
  for (int64_t i = 0; i < 100; i++) {
    SlotNo s = block->AppendSlot();
    Row row = MixedRow(i);
    for (size_t c = 0; c < row.size(); c++) block->SetCell(ColumnId(c), s, row[c]);
  }
  block->SetDeleted(SlotNo(7), true);
  block->Seal();
  std::string image = block->ExportImage();
  ASSERT_EQ(image.size(), kBlockSize);
  std::unique_ptr<Block> copy;
  ASSERT_TRUE(Block::FromImage(layout, image, &copy).ok());
  EXPECT_EQ(std::memcmp(&copy->header(), &block->header(), kBlockSize), 0);
  EXPECT_EQ(copy->GetCell(ColumnId(6), SlotNo(42)).GetString(), "name42");
  EXPECT_TRUE(copy->IsDeleted(SlotNo(7)));
  // Corrupt image, wrong size, wrong layout.
  image[layout->heap_offset() + 5] ^= 1;
  EXPECT_EQ(Block::FromImage(layout, image, &copy).code(), Status::Code::kCorruption);
  EXPECT_EQ(Block::FromImage(layout, image.substr(1), &copy).code(), Status::Code::kCorruption);
  auto other = BlockLayout::Compute({"n", {{"a", Type::BigInt()}}, {}});
  EXPECT_EQ(Block::FromImage(other, block->ExportImage(), &copy).code(), Status::Code::kCorruption);
}

TEST(Block, CompactHeapDropsOverwrittenStrings) {
  TableSchema s{"s", {{"a", Type::Text()}, {"b", Type::Text()}}, {}};
  auto block = Block::Create(BlockLayout::Compute(s), TableId(1), BlockNo(0));
  for (int i = 0; i < 3; i++) {
    SlotNo slot = block->AppendSlot();
    block->SetCell(ColumnId(0), slot, Value::Text(std::string(100, 'a' + i)));
    block->SetCell(ColumnId(1), slot, Value::Text("b" + std::to_string(i)));
  }
  block->SetCell(ColumnId(0), SlotNo(1), Value::Text("short"));  // 100 bytes garbage
  uint32_t used = block->header().heap_used;
  std::vector<bool> skip = {false, true};
  EXPECT_EQ(block->HeapFreeAfterCompaction(SlotNo(2), skip),
            block->layout().heap_size() - (used - 100 - 2));
  block->CompactHeap(SlotNo(2), skip);
  EXPECT_EQ(block->header().heap_used, used - 100 - 2);
  EXPECT_EQ(block->GetCell(ColumnId(0), SlotNo(0)).GetString(), std::string(100, 'a'));
  EXPECT_EQ(block->GetCell(ColumnId(0), SlotNo(1)).GetString(), "short");
  EXPECT_EQ(block->GetCell(ColumnId(1), SlotNo(1)).GetString(), "b1");
  EXPECT_EQ(block->GetCell(ColumnId(1), SlotNo(2)).GetString(), "");
}

TEST(BlockDirectory, PinCountsAndRaii) {
  auto layout = BlockLayout::Compute(MixedSchema());
  BlockDirectory dir;
  dir.Add(Block::Create(layout, TableId(1), BlockNo(0)));
  dir.Add(Block::Create(layout, TableId(1), BlockNo(1)));
  EXPECT_EQ(dir.size(), 2u);
  {
    BlockRef a = dir.Pin(BlockNo(1));
    EXPECT_EQ(a->block_no(), BlockNo(1));
    EXPECT_EQ(dir.PinCount(BlockNo(1)), 1u);
    BlockRef b = std::move(a);
    EXPECT_FALSE(a);
    EXPECT_EQ(dir.PinCount(BlockNo(1)), 1u);
    BlockRef c = dir.Pin(BlockNo(1));
    EXPECT_EQ(dir.PinCount(BlockNo(1)), 2u);
  }
  EXPECT_EQ(dir.PinCount(BlockNo(1)), 0u);
  dir.RemoveLast();
  EXPECT_EQ(dir.size(), 1u);
  EXPECT_FALSE(dir.Contains(BlockNo(1)));
}

}  // namespace
}  // namespace forktail
