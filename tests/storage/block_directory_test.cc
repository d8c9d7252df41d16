// Residency in the block directory (storage/table/block_directory.h): blocks
// evicted and read back through a table's image reader, the summary answered
// without loading, the kThrow policy of the transaction path, Install's
// checks, and pins racing evictions on several threads.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include "storage/storage.h"

namespace forktail {
namespace {

// Images by (table, block, version), as the cold store keeps them.
class MapReader : public BlockImageReader {
 public:
  void Put(const Block& block) {
    std::lock_guard<std::mutex> lock(mu_);
    images_[{block.header().table_id, block.block_no().value(), block.version()}] =
        block.ExportImage();
  }
  Status ReadImage(TableId table, BlockNo block, uint64_t version, std::string* image) override {
    std::lock_guard<std::mutex> lock(mu_);
    reads_++;
    auto it = images_.find({table.value(), block.value(), version});
    if (it == images_.end()) return Status::IoError("no such image");
    *image = it->second;
    return Status::Ok();
  }
  std::string* Find(uint32_t table, uint32_t block, uint64_t version) {
    auto it = images_.find({table, block, version});
    return it == images_.end() ? nullptr : &it->second;
  }
  int reads() const { return reads_; }

 private:
  std::mutex mu_;
  std::map<std::tuple<uint32_t, uint32_t, uint64_t>, std::string> images_;
  int reads_ = 0;
};

struct Fixture {
  MapReader reader;
  std::shared_ptr<BlockPoolShared> pool = std::make_shared<BlockPoolShared>();
  Table t{TableId(3),
          {"t", {{"id", Type::Integer()}, {"s", Type::Text()}}, {ColumnId(0)}},
          {.max_rows_per_block = 64}};

  explicit Fixture(int rows) {
    pool->reader = &reader;
    t.AttachPool(pool);
    for (int i = 0; i < rows; i++)
      t.Insert({Value::Integer(i), Value::Text("row " + std::to_string(i))});
  }
  // What a checkpoint does for the buffer pool: the image is stored, the
  // block is clean.
  void Checkpoint(uint32_t b) {
    BlockRef ref = t.PinBlock(BlockNo(b));
    reader.Put(*ref);
    ref->MarkCheckpointed();
  }
  // What the directory should count: its resident blocks' bytes.
  int64_t ResidentBytes() {
    int64_t bytes = 0;
    for (uint32_t b = 0; b < t.block_count(); b++) {
      if (BlockRef ref = t.directory().TryPin(BlockNo(b))) bytes += ref->memory_bytes();
    }
    return bytes;
  }
  std::string RowText(int id) {
    auto tid = t.LookupKey({Value::Integer(id)});
    return tid ? std::string(t.Read(*tid)->at(1).GetString()) : std::string("missing");
  }
};

TEST(BlockDirectory, EvictedBlocksAnswerFromTheSummaryAndLoadOnPin) {
  Fixture f(64 * 4);
  BlockDirectory& d = f.t.directory();
  ASSERT_EQ(d.size(), 4u);
  for (uint32_t b = 0; b < 3; b++) f.Checkpoint(b);
  const uint64_t version = d.version(BlockNo(1));
  const size_t bytes = d.memory_bytes(BlockNo(1));
  EXPECT_TRUE(d.Evict(BlockNo(1)));
  EXPECT_FALSE(d.resident(BlockNo(1)));
  EXPECT_FALSE(d.Evict(BlockNo(1)));  // already gone
  EXPECT_EQ(d.row_count(BlockNo(1)), 64u);
  EXPECT_EQ(d.version(BlockNo(1)), version);
  EXPECT_EQ(d.memory_bytes(BlockNo(1)), bytes);
  EXPECT_FALSE(d.changed_since_checkpoint(BlockNo(1)));
  EXPECT_FALSE(d.TryPin(BlockNo(1)));
  EXPECT_EQ(f.reader.reads(), 0);
  // A lookup reads the block back (inline, the default policy), once.
  EXPECT_EQ(f.RowText(70), "row 70");
  EXPECT_EQ(f.RowText(71), "row 71");
  EXPECT_EQ(f.reader.reads(), 1);
  EXPECT_TRUE(d.resident(BlockNo(1)));
  EXPECT_FALSE(d.changed_since_checkpoint(BlockNo(1)));
  // Frozen blocks go and come back the same way.
  uint32_t cursor = 0;
  EXPECT_EQ(f.t.FreezeBlocks(false, 8, &cursor), 3u);
  f.Checkpoint(2);
  EXPECT_TRUE(d.Evict(BlockNo(2)));
  EXPECT_EQ(f.RowText(130), "row 130");
  EXPECT_TRUE(f.t.PinBlock(BlockNo(2))->frozen());
  // Writes after a reload go to the loaded block.
  f.t.Update(*f.t.LookupKey({Value::Integer(70)}), {{ColumnId(1), Value::Text("changed")}});
  EXPECT_TRUE(d.changed_since_checkpoint(BlockNo(1)));
  EXPECT_EQ(f.RowText(70), "changed");
  // The shared count followed every add, freeze, eviction and load.
  EXPECT_EQ(f.pool->resident_bytes.load(), f.ResidentBytes());
  EXPECT_TRUE(d.Evict(BlockNo(2)));
  EXPECT_EQ(f.pool->resident_bytes.load(), f.ResidentBytes());
}

TEST(BlockDirectory, ResidentBytesGoWithTheTable) {
  auto pool = std::make_shared<BlockPoolShared>();
  {
    Table t(TableId(1), {"t", {{"a", Type::Integer()}}, {}}, {.max_rows_per_block = 10});
    t.AttachPool(pool);
    for (int i = 0; i < 31; i++) t.Insert({Value::Integer(i)});
    EXPECT_EQ(pool->resident_bytes.load(), 4 * static_cast<int64_t>(kBlockSize));
    t.RemoveInserted({BlockNo(3), SlotNo(0)});  // the tail's only row: the block goes
    EXPECT_EQ(pool->resident_bytes.load(), 3 * static_cast<int64_t>(kBlockSize));
  }
  EXPECT_EQ(pool->resident_bytes.load(), 0);
}

TEST(BlockDirectory, PinnedBlocksStay) {
  Fixture f(64 * 2);
  f.Checkpoint(0);
  BlockRef pinned = f.t.PinBlock(BlockNo(0));
  EXPECT_FALSE(f.t.directory().Evict(BlockNo(0)));
  pinned = BlockRef();
  EXPECT_TRUE(f.t.directory().Evict(BlockNo(0)));
}

// The transaction path (LoadPolicy::kThrow): a pin of an evicted block
// throws what to load; the block read off the thread and installed, the
// same call succeeds.
TEST(BlockDirectory, ThrowPolicyNamesTheBlockAndInstallBringsItBack) {
  Fixture f(64 * 3);
  BlockDirectory& d = f.t.directory();
  f.Checkpoint(0);
  const uint64_t version = d.version(BlockNo(0));
  ASSERT_TRUE(d.Evict(BlockNo(0)));
  std::optional<BlockNotResident> missing;
  {
    LoadPolicyScope policy(LoadPolicy::kThrow);
    try {
      f.RowText(5);
    } catch (const BlockNotResident& m) {
      missing = m;
    }
  }
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->table, TableId(3));
  EXPECT_EQ(missing->block, BlockNo(0));
  EXPECT_EQ(missing->version, version);
  EXPECT_EQ(LoadPolicyScope::current(), LoadPolicy::kInline);  // restored
  BlockSummary summary;
  summary.table = missing->table;
  summary.version = missing->version;
  std::unique_ptr<Block> loaded = d.Load(missing->block, summary);
  ASSERT_TRUE(d.Install(BlockNo(0), std::move(loaded)));
  LoadPolicyScope policy(LoadPolicy::kThrow);
  EXPECT_EQ(f.RowText(5), "row 5");
  EXPECT_EQ(f.reader.reads(), 1);
}

// Install takes only what is still wanted: not over a resident block, not
// a version the handle no longer names.
TEST(BlockDirectory, InstallRefusesResidentBlocksAndOtherVersions) {
  Fixture f(64 * 3);
  BlockDirectory& d = f.t.directory();
  f.Checkpoint(0);
  BlockSummary summary;
  summary.table = TableId(3);
  summary.version = d.version(BlockNo(0));
  std::unique_ptr<Block> copy = d.Load(BlockNo(0), summary);
  EXPECT_FALSE(d.Install(BlockNo(0), std::move(copy)));  // resident
  ASSERT_TRUE(d.Evict(BlockNo(0)));
  // Another version of the block (as if it had changed and been written).
  std::string image = *f.reader.Find(3, 0, summary.version);
  BlockHeader h;
  std::memcpy(&h, image.data(), sizeof(h));
  h.version++;
  std::memcpy(image.data(), &h, sizeof(h));
  std::unique_ptr<Block> other;
  ASSERT_TRUE(Block::FromImage(BlockLayout::Compute(f.t.schema(), 64), image, &other).ok());
  EXPECT_FALSE(d.Install(BlockNo(0), std::move(other)));
  EXPECT_FALSE(d.resident(BlockNo(0)));
  EXPECT_FALSE(d.Install(BlockNo(9), d.Load(BlockNo(0), summary)));  // no such block
}

// A reader that fails, or an image of another block, is an error that
// names the block; the handle stays as it was.
TEST(BlockDirectory, UnreadableImagesAreErrors) {
  Fixture f(64 * 3);
  BlockDirectory& d = f.t.directory();
  f.Checkpoint(0);
  f.Checkpoint(1);
  const uint64_t v0 = d.version(BlockNo(0));
  ASSERT_TRUE(d.Evict(BlockNo(0)));
  // Block 1's image filed as block 0's.
  *f.reader.Find(3, 0, v0) = *f.reader.Find(3, 1, d.version(BlockNo(1)));
  try {
    f.RowText(1);
    ADD_FAILURE() << "no error";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kDataCorrupted);
    EXPECT_NE(std::string(e.what()).find("block 0"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(d.resident(BlockNo(0)));
  f.pool->reader = nullptr;
  try {
    f.RowText(1);
    ADD_FAILURE() << "no error";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kInternalError);
  }
}

// Pins on four threads (as a snapshot's scan workers) while the main thread
// evicts whatever is unpinned, over and over: every read sees its rows, and
// a block is never freed under a pin.
TEST(BlockDirectory, PinsRaceEvictions) {
  Fixture f(64 * 8);
  BlockDirectory& d = f.t.directory();
  for (uint32_t b = 0; b < 8; b++) f.Checkpoint(b);
  std::atomic<bool> stop{false};
  std::atomic<int> checked{0};
  std::vector<std::thread> readers;
  for (int w = 0; w < 4; w++) {
    readers.emplace_back([&, w] {
      for (uint32_t i = 0; !stop; i++) {
        const uint32_t b = (i * 7 + static_cast<uint32_t>(w)) % 8;
        BlockRef ref = d.Pin(BlockNo(b));
        for (uint32_t s = 0; s < 64; s += 9) {
          const Value v = ref->GetCell(ColumnId(0), SlotNo(s));
          if (v.GetInt() != static_cast<int64_t>(b * 64 + s)) {
            ADD_FAILURE() << "block " << b << " slot " << s << ": " << v.ToString();
            stop = true;
          }
        }
        checked++;
      }
    });
  }
  // Until both sides have done enough (a bound in time only against a hang).
  int evicted = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (uint32_t round = 0;
       (evicted < 300 || checked < 300) && !stop && std::chrono::steady_clock::now() < deadline;
       round++) {
    evicted += d.Evict(BlockNo(round % 8));
    std::this_thread::yield();
  }
  stop = true;
  for (std::thread& t : readers) t.join();
  EXPECT_GE(evicted, 300);
  EXPECT_GE(checked.load(), 300);
}

}  // namespace
}  // namespace forktail
