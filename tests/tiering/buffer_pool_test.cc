// The buffer pool (tiering/buffer_pool.h) over a real cold store: only clean
// blocks (their version durable in a committed manifest) leave memory, never
// a tail or a pinned block; victims by LRU-2; reads come back through the
// SSD tier when it holds the version and fill it otherwise.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "recovery/recovery.h"
#include "tiering/tiering.h"

namespace forktail::tier {
namespace {

constexpr int64_t kBlock = static_cast<int64_t>(kBlockSize);

class BufferPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "forktail_pool_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    ASSERT_TRUE(ckpt::ColdStore::Open(dir_ + "/cold", false, &cold_).ok());
    TableOptions o;
    o.max_rows_per_block = 100;
    table_ = &catalog_.CreateTable(
        {"t", {{"k", Type::BigInt(), true}, {"s", Type::Text()}}, {ColumnId(0)}}, o);
    for (int i = 0; i < 1000; i++) Insert(i);  // 10 blocks, the last one the tail
  }
  void TearDown() override {
    catalog_.SetBlockImageReader(nullptr);
    pool_.reset();
    ssd_.reset();
    cold_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Insert(int i) {
    table_->Insert({Value::BigInt(i), Value::Text("value " + std::to_string(i))});
  }
  void MakePool(uint64_t budget, SsdTier* ssd = nullptr) {
    pool_ = std::make_unique<BufferPool>(&catalog_, cold_.get(), ssd, budget);
    catalog_.SetBlockImageReader(pool_.get());
  }
  // A checkpoint, committed: its versions become durable in the pool.
  void Checkpoint() {
    ckpt::CheckpointPlan plan =
        ckpt::CollectCheckpoint(catalog_, ++lsn_, 1, manifest_ ? &*manifest_ : nullptr);
    ckpt::CheckpointStats stats;
    ASSERT_TRUE(ckpt::WriteCheckpoint(plan, cold_.get(), &stats).ok());
    ckpt::MarkWritten(plan);
    manifest_ = plan.manifest;
    if (pool_) pool_->SetDurable(*manifest_);
  }
  size_t Resident() {
    size_t n = 0;
    for (uint32_t b = 0; b < table_->block_count(); b++)
      n += table_->directory().resident(BlockNo(b));
    return n;
  }
  std::string Value(int k) {
    auto tid = table_->LookupKey({Value::BigInt(k)});
    return tid ? std::string(table_->Read(*tid)->at(1).GetString()) : "missing";
  }

  std::string dir_;
  std::unique_ptr<ckpt::ColdStore> cold_;
  std::unique_ptr<SsdTier> ssd_;
  std::unique_ptr<BufferPool> pool_;
  Catalog catalog_;
  Table* table_ = nullptr;
  std::optional<ckpt::Manifest> manifest_;
  wal::Lsn lsn_ = 0;
};

TEST_F(BufferPoolTest, EvictsOnlyDurableCleanBlocksAndReadsThemBack) {
  MakePool(4 * kBlock);
  EXPECT_EQ(pool_->resident_bytes(), 10 * kBlock);
  // Nothing is durable yet: nothing may leave.
  EvictRoundResult r = pool_->EvictRound();
  EXPECT_EQ(r.evicted, 0u);
  EXPECT_TRUE(r.needs_checkpoint);
  Checkpoint();
  // A block changed since the checkpoint stays, as do the tail and a pinned one.
  table_->Update(*table_->LookupKey({Value::BigInt(150)}), {{ColumnId(1), Value::Text("new")}});
  BlockRef pinned = table_->PinBlock(BlockNo(2));
  r = pool_->EvictRound(0.0);  // evict all it can
  EXPECT_EQ(r.evicted, 7u);
  EXPECT_FALSE(r.needs_checkpoint);  // 3 blocks are left, within the budget of 4
  EXPECT_TRUE(table_->directory().resident(BlockNo(1)));
  EXPECT_TRUE(table_->directory().resident(BlockNo(2)));
  EXPECT_TRUE(table_->directory().resident(BlockNo(9)));
  EXPECT_EQ(pool_->resident_bytes(), 3 * kBlock);
  pinned = BlockRef();
  // Every row reads back, through the cold store.
  for (int k = 0; k < 1000; k += 37)
    EXPECT_EQ(Value(k), k == 150 ? "new" : "value " + std::to_string(k));
  EXPECT_EQ(Value(150), "new");
  EXPECT_GE(pool_->stats().reads, 7u);
  EXPECT_EQ(pool_->resident_bytes(), 10 * kBlock);
  // After the next checkpoint block 1 is clean as well.
  Checkpoint();
  r = pool_->EvictRound(0.5);
  EXPECT_FALSE(r.needs_checkpoint);
  EXPECT_LE(pool_->resident_bytes(), 2 * kBlock);
}

// LRU-2: blocks read in two rounds' epochs stay; those read in one go first,
// even if they were read more recently (a scan does not flush the hot set).
TEST_F(BufferPoolTest, BlocksUsedInOneEpochGoFirst) {
  MakePool(6 * kBlock);
  Checkpoint();
  pool_->EvictRound(0.0);  // all clean blocks out, a new epoch
  EXPECT_EQ(Resident(), 1u);
  for (int round = 0; round < 2; round++) {  // the hot set: blocks 0-2, in two epochs
    for (int k : {5, 105, 205}) EXPECT_EQ(Value(k), "value " + std::to_string(k));
    pool_->EvictRound();  // under budget: only starts an epoch
  }
  for (int k = 300; k < 900; k += 100) Value(k);  // a scan of blocks 3-8, after the hot set
  EXPECT_EQ(Resident(), 10u);
  pool_->EvictRound(0.7);  // down to 4 blocks: the scan's go, the hot set stays
  for (uint32_t b = 0; b < 3; b++) EXPECT_TRUE(table_->directory().resident(BlockNo(b))) << b;
  EXPECT_EQ(Resident(), 4u);  // and the tail
}

// With an SSD tier a read of the cold store copies the image in; the next
// read of that version comes from the tier.
TEST_F(BufferPoolTest, ReadsFillTheSsdTierAndHitItNext) {
  SsdTierOptions o;
  o.slots = 16;
  ASSERT_TRUE(SsdTier::Open(dir_ + "/tier", o, &ssd_).ok());
  MakePool(kBlock, ssd_.get());
  Checkpoint();
  pool_->EvictRound(0.0);
  EXPECT_EQ(Value(5), "value 5");
  EXPECT_EQ(pool_->stats().reads_from_tier, 0u);
  EXPECT_EQ(ssd_->valid_count(), 1u);
  pool_->EvictRound(0.0);
  EXPECT_EQ(Value(6), "value 6");
  EXPECT_EQ(pool_->stats().reads_from_tier, 1u);
}

}  // namespace
}  // namespace forktail::tier
