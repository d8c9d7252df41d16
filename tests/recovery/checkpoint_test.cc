// Checkpoints in the cold store (recovery/checkpoint.h, cold_store.h).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <set>

#include "recovery/checkpoint.h"

namespace forktail::ckpt {
namespace {

class CheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "forktail_ckpt_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    ASSERT_TRUE(ColdStore::Open(dir_ + "/cold", false, &store_).ok());
    TableOptions o;
    o.max_rows_per_block = 64;
    Table& t = catalog_.CreateTable(
        {"t", {{"k", Type::BigInt(), true}, {"s", Type::Text()}}, {ColumnId(0)}}, o);
    for (int i = 0; i < 200; i++) t.Insert({Value::BigInt(i), Value::Text(std::to_string(i))});
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  std::vector<Row> Rows(const Catalog& c) {
    std::vector<Row> rows;
    const Table& t = *c.FindTable("t");
    for (size_t b = 0; b < t.block_count(); b++) {
      for (uint32_t s = 0; s < 64; s++) {
        auto row = t.Read({BlockNo(static_cast<uint32_t>(b)), SlotNo(s)});
        if (row) rows.push_back(*row);
      }
    }
    return rows;
  }

  std::string dir_;
  std::unique_ptr<ColdStore> store_;
  Catalog catalog_;
};

TEST_F(CheckpointTest, ManifestRoundTripAndEveryFlippedByteIsDetected) {
  Manifest m;
  m.lsn = 1234;
  m.next_txn = 77;
  m.sequence = 3;
  m.catalog = catalog_.Serialize();
  m.tables[1] = {1, 2, 5};
  std::string bytes = m.Encode();
  Manifest back;
  ASSERT_TRUE(Manifest::Decode(bytes, &back).ok());
  EXPECT_EQ(back.lsn, 1234u);
  EXPECT_EQ(back.tables, m.tables);
  EXPECT_EQ(back.Keys().size(), 3u);
  for (size_t i = 0; i < bytes.size(); i++) {
    std::string bad = bytes;
    bad[i] ^= 0x04;
    EXPECT_EQ(Manifest::Decode(bad, &back).code(), Status::Code::kCorruption) << i;
  }
}

TEST_F(CheckpointTest, WritesChangedBlocksOnlyAndLoadsBack) {
  CheckpointPlan p1 = CollectCheckpoint(catalog_, 100, 5, nullptr);
  EXPECT_EQ(p1.keys.size(), 4u);  // 200 rows in blocks of 64
  CheckpointStats st;
  ASSERT_TRUE(WriteCheckpoint(p1, store_.get(), &st).ok());
  MarkWritten(p1);
  Manifest m1 = p1.manifest;
  p1 = CheckpointPlan{};

  Table& t = *catalog_.FindTable("t");
  t.Update(*t.LookupKey({Value::BigInt(70)}), {{ColumnId(1), Value::Text("changed")}});
  CheckpointPlan p2 = CollectCheckpoint(catalog_, 200, 6, &m1);
  ASSERT_EQ(p2.keys.size(), 1u);
  EXPECT_EQ(p2.keys[0].block, 1u);
  ASSERT_TRUE(WriteCheckpoint(p2, store_.get(), &st).ok());
  EXPECT_EQ(st.images_deleted, 1u);  // block 1's old version
  MarkWritten(p2);
  uint64_t count;
  ASSERT_TRUE(store_->CountBlocks(&count).ok());
  EXPECT_EQ(count, 4u);

  Catalog loaded;
  Manifest m;
  uint64_t blocks;
  ASSERT_TRUE(LoadCheckpoint(store_.get(), &loaded, &m, &blocks).ok());
  EXPECT_EQ(m.lsn, 200u);
  EXPECT_EQ(blocks, 4u);
  EXPECT_EQ(Rows(loaded), Rows(catalog_));
  // Indexes and statistics were rebuilt.
  EXPECT_TRUE(loaded.FindTable("t")->LookupKey({Value::BigInt(199)}).has_value());
  EXPECT_EQ(loaded.FindTable("t")->live_row_count(), 200u);
}

TEST_F(CheckpointTest, InterruptedCheckpointLeavesThePreviousOne) {
  CheckpointPlan p1 = CollectCheckpoint(catalog_, 100, 5, nullptr);
  CheckpointStats st;
  ASSERT_TRUE(WriteCheckpoint(p1, store_.get(), &st).ok());
  MarkWritten(p1);
  std::vector<Row> at_first = Rows(catalog_);
  Table& t = *catalog_.FindTable("t");
  for (int i = 0; i < 200; i += 10) t.Delete(*t.LookupKey({Value::BigInt(i)}));
  // A crash after some images but before the manifest.
  CheckpointPlan p2 = CollectCheckpoint(catalog_, 300, 6, &p1.manifest);
  ASSERT_TRUE(store_->PutBlockImage(p2.keys[0], p2.refs[0]->ExportImage()).ok());
  store_.reset();
  ASSERT_TRUE(ColdStore::Open(dir_ + "/cold", false, &store_).ok());
  Catalog loaded;
  Manifest m;
  uint64_t blocks;
  ASSERT_TRUE(LoadCheckpoint(store_.get(), &loaded, &m, &blocks).ok());
  EXPECT_EQ(m.lsn, 100u);
  EXPECT_EQ(Rows(loaded), at_first);
}

// Images are read and decoded ahead of the loading thread (block_decoder.h):
// tables whose blocks span several read batches load whole and in order, and
// a bad image or a missing one fails the load, at that block, whether the
// decoder or the loading thread finds it, with blocks decoded beyond it.
TEST_F(CheckpointTest, LoadsManyBlocksAndStopsAtTheFirstBadOne) {
  TableOptions o;
  o.max_rows_per_block = 4;
  std::vector<std::string> names = {"a", "b", "c"};
  for (const std::string& name : names) {
    Table& t = catalog_.CreateTable(
        {name, {{"k", Type::BigInt(), true}, {"v", Type::Text()}}, {ColumnId(0)}}, o);
    for (int i = 0; i < 4 * 70; i++)
      t.Insert({Value::BigInt(i), Value::Text(name + "-" + std::to_string(i))});
  }
  CheckpointPlan plan = CollectCheckpoint(catalog_, 100, 5, nullptr);
  CheckpointStats st;
  ASSERT_TRUE(WriteCheckpoint(plan, store_.get(), &st).ok());
  const Manifest manifest = plan.manifest;
  ASSERT_EQ(manifest.block_count(), 4u + 3 * 70);
  auto rows_of = [](const Catalog& c, const std::string& name) {
    std::vector<Row> rows;
    const Table& t = *c.FindTable(name);
    for (size_t b = 0; b < t.block_count(); b++) {
      for (uint32_t s = 0; s < 4; s++) {
        auto row = t.Read({BlockNo(static_cast<uint32_t>(b)), SlotNo(s)});
        if (row) rows.push_back(*row);
      }
    }
    return rows;
  };
  {
    Catalog loaded;
    Manifest m;
    uint64_t blocks = 0;
    ASSERT_TRUE(LoadCheckpoint(store_.get(), &loaded, &m, &blocks).ok());
    EXPECT_EQ(blocks, manifest.block_count());
    for (const std::string& name : names) {
      EXPECT_EQ(rows_of(loaded, name), rows_of(catalog_, name)) << name;
      EXPECT_TRUE(loaded.FindTable(name)->LookupKey({Value::BigInt(279)}).has_value());
      EXPECT_EQ(loaded.FindTable(name)->live_row_count(), 280u);
    }
    EXPECT_EQ(Rows(loaded), Rows(catalog_));
  }
  const uint32_t b_id = catalog_.FindTable("b")->id().value();
  const std::vector<uint64_t>& b_versions = manifest.tables.at(b_id);
  const BlockKey fifth{b_id, 5, b_versions[5]};
  const BlockKey sixth{b_id, 6, b_versions[6]};
  // Block 5 of b holds block 6's image: the loading thread refuses it while
  // the decoder is ahead.
  std::string image6;
  ASSERT_TRUE(store_->GetBlockImage(sixth, &image6).ok());
  std::string image5;
  ASSERT_TRUE(store_->GetBlockImage(fifth, &image5).ok());
  ASSERT_TRUE(store_->PutBlockImage(fifth, image6).ok());
  {
    Catalog loaded;
    Manifest m;
    uint64_t blocks = 0;
    Status s = LoadCheckpoint(store_.get(), &loaded, &m, &blocks);
    EXPECT_EQ(s.code(), Status::Code::kCorruption) << s.ToString();
    EXPECT_EQ(blocks, 4u + 70 + 5);  // tables t and a, then b's blocks 0-4
  }
  // Block 5's image is gone: the decoder's read fails, and the blocks it
  // decoded before come first.
  ASSERT_TRUE(store_->PutBlockImage(fifth, image5).ok());
  std::set<BlockKey> keep = manifest.Keys();
  keep.erase(fifth);
  uint64_t deleted = 0;
  ASSERT_TRUE(store_->DeleteBlocksExcept(keep, &deleted).ok());
  ASSERT_EQ(deleted, 1u);
  {
    Catalog loaded;
    Manifest m;
    uint64_t blocks = 0;
    Status s = LoadCheckpoint(store_.get(), &loaded, &m, &blocks);
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(blocks, 4u + 70 + 5);
  }
}

// The snapshot-process path: images in an SST written without the store's
// handle, ingested, manifest last. A crash after the ingestion (images in the
// store, no manifest) leaves the previous checkpoint; the next commit deletes
// the orphaned images.
TEST_F(CheckpointTest, ImageFileIngestedWithoutManifestLeavesThePreviousOne) {
  CheckpointPlan p1 = CollectCheckpoint(catalog_, 100, 5, nullptr);
  MarkWritten(p1);
  CheckpointStats st;
  bool wrote = false;
  const std::string f1 = dir_ + "/images-1.sst";
  ASSERT_TRUE(WriteCheckpointImages(p1, f1, &st, &wrote).ok());
  EXPECT_TRUE(wrote);
  EXPECT_EQ(st.blocks_written, p1.keys.size());
  ASSERT_TRUE(CommitCheckpoint(p1.manifest, f1, store_.get(), &st, nullptr).ok());
  std::vector<Row> at_first = Rows(catalog_);

  Table& t = *catalog_.FindTable("t");
  t.Delete(*t.LookupKey({Value::BigInt(3)}));
  CheckpointPlan p2 = CollectCheckpoint(catalog_, 300, 6, &p1.manifest);
  ASSERT_EQ(p2.keys.size(), 1u);  // only the changed block
  MarkWritten(p2);
  const std::string f2 = dir_ + "/images-2.sst";
  ASSERT_TRUE(WriteCheckpointImages(p2, f2, &st, &wrote).ok());
  ASSERT_TRUE(store_->IngestImageFile(f2).ok());  // then the crash: no manifest
  store_.reset();
  ASSERT_TRUE(ColdStore::Open(dir_ + "/cold", false, &store_).ok());
  uint64_t count = 0;
  ASSERT_TRUE(store_->CountBlocks(&count).ok());
  EXPECT_EQ(count, p1.manifest.block_count() + 1);  // one orphan
  {
    Catalog loaded;
    Manifest m;
    uint64_t blocks;
    ASSERT_TRUE(LoadCheckpoint(store_.get(), &loaded, &m, &blocks).ok());
    EXPECT_EQ(m.lsn, 100u);
    EXPECT_EQ(Rows(loaded), at_first);
  }
  // The retry: the failed plan's block is not in the last manifest, so it is
  // collected again although its changed flag was cleared.
  CheckpointPlan p3 = CollectCheckpoint(catalog_, 400, 7, &p1.manifest);
  ASSERT_EQ(p3.keys.size(), 1u);
  EXPECT_EQ(p3.keys[0], p2.keys[0]);
  // Its image (same key) is the orphan ingested above, so p3's manifest can be
  // committed without a file. Then: nothing to write at all, no file.
  CheckpointPlan empty = CollectCheckpoint(catalog_, 400, 7, &p3.manifest);
  EXPECT_TRUE(empty.keys.empty());
  ASSERT_TRUE(WriteCheckpointImages(empty, dir_ + "/none.sst", &st, &wrote).ok());
  EXPECT_FALSE(wrote);
  ASSERT_TRUE(CommitCheckpoint(p3.manifest, "", store_.get(), &st, nullptr).ok());
  EXPECT_EQ(st.images_deleted, 1u);  // the block's version from p1
  Catalog loaded;
  Manifest m;
  uint64_t blocks;
  ASSERT_TRUE(LoadCheckpoint(store_.get(), &loaded, &m, &blocks).ok());
  EXPECT_EQ(m.lsn, 400u);
  EXPECT_EQ(Rows(loaded), Rows(catalog_));
}

// Every open of a RocksDB 7.8 store starts a new WAL; one that nobody wrote to
// used to stay behind for ever, so each server restart added a file.
TEST_F(CheckpointTest, RestartsLeaveABoundedNumberOfFiles) {
  const std::string cold = dir_ + "/cold";
  auto count = [&](const std::string& suffix) {
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(cold)) {
      const std::string name = e.path().filename().string();
      if (suffix.empty() ||
          (name.size() > suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)) {
        n++;
      }
    }
    return n;
  };
  ASSERT_TRUE(store_->PutManifest("m1").ok());
  int files_after_first_restart = 0;
  for (int restart = 1; restart <= 30; restart++) {
    store_.reset();
    ASSERT_TRUE(ColdStore::Open(cold, false, &store_).ok());
    // Some runs write (a checkpoint's manifest), most only start and stop.
    if (restart % 10 == 0) {
      ASSERT_TRUE(store_->PutManifest("m" + std::to_string(restart)).ok());
    }
    if (restart == 1) files_after_first_restart = count("");
    EXPECT_LE(count(".log"), 2) << "after restart " << restart;
  }
  EXPECT_LE(count(""), files_after_first_restart + 4);
  std::string manifest;
  ASSERT_TRUE(store_->GetManifest(&manifest).ok());
  EXPECT_EQ(manifest, "m30");
}

TEST_F(CheckpointTest, NoCheckpointIsNotFound) {
  Catalog c;
  Manifest m;
  uint64_t blocks;
  EXPECT_EQ(LoadCheckpoint(store_.get(), &c, &m, &blocks).code(), Status::Code::kNotFound);
  std::unique_ptr<ColdStore> ro;
  EXPECT_EQ(ColdStore::Open(dir_ + "/nothing", true, &ro).code(), Status::Code::kNotFound);
}

}  // namespace
}  // namespace forktail::ckpt
