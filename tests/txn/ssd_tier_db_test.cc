// A Database with an SSD tier (DatabaseOptions::ssd_tier_slots): checkpoints
// copy their images into the tier, a restart reads them from it (warm) or,
// without its slot table, from the cold store (cold); a crash leaves a tier
// that `forktail tier verify` passes; a tier that cannot work is bypassed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/common/txn_test_util.h"
#include "tiering/tiering.h"

namespace forktail {
namespace {

using testing::Account;
using testing::AccountSchema;
using testing::Dump;
using testing::ExpectOk;
using testing::TempDir;

constexpr int kTables = 3;

class SsdTierDbTest : public ::testing::Test {
 protected:
  DatabaseOptions Options() {
    DatabaseOptions o;
    o.ssd_tier_slots = 8;
    o.checkpoint_mode = DatabaseOptions::CheckpointMode::kInProcess;
    return o;
  }
  std::string Table(int i) { return "account" + std::to_string(i); }

  // kTables tables of a few rows each: one block per table.
  void Fill(Database& db) {
    for (int t = 0; t < kTables; t++) {
      ExpectOk(db.Run([&](Transaction& txn) {
        txn.CreateTable(AccountSchema(Table(t)));
        for (int i = 0; i < 50; i++) txn.Insert(Table(t), Account(i, "o" + std::to_string(i), t));
      }));
    }
  }
  std::vector<std::vector<Row>> DumpAll(Database& db) {
    std::vector<std::vector<Row>> out;
    for (int t = 0; t < kTables; t++) out.push_back(Dump(db, Table(t)));
    return out;
  }
  int Verify() {
    std::ostringstream out, err;
    int code = tier::TierVerify(dir_.path(), "", out, err);
    verify_output_ = out.str() + err.str();
    return code;
  }

  TempDir dir_;
  std::string verify_output_;
};

TEST_F(SsdTierDbTest, RestartReadsTheCheckpointFromTheTier) {
  std::vector<std::vector<Row>> before;
  {
    auto db = Database::Open(dir_.path(), Options());
    EXPECT_TRUE(db->tier_report().enabled);
    EXPECT_TRUE(db->tier_report().error.empty()) << db->tier_report().error;
    Fill(*db);
    CheckpointResult c = db->Checkpoint();
    EXPECT_EQ(c.tier_admitted, static_cast<uint64_t>(kTables));
    EXPECT_TRUE(c.tier_error.empty()) << c.tier_error;
    before = DumpAll(*db);
  }
  EXPECT_EQ(Verify(), tier::kTierClean) << verify_output_;
  {
    auto db = Database::Open(dir_.path(), Options());
    EXPECT_EQ(db->tier_report().blocks_from_tier, static_cast<uint64_t>(kTables));
    EXPECT_EQ(db->tier_report().blocks_from_cold, 0u);
    EXPECT_EQ(DumpAll(*db), before);
    // One table changes: its new block version replaces the old slot.
    ExpectOk(db->Run([&](Transaction& txn) { txn.Insert(Table(1), Account(999, "new", 1)); }));
    before = DumpAll(*db);
    CheckpointResult c = db->Checkpoint();
    EXPECT_EQ(c.blocks_written, 1u);
    EXPECT_EQ(c.tier_admitted, 1u);
  }
  EXPECT_EQ(Verify(), tier::kTierClean) << verify_output_;
  {
    auto db = Database::Open(dir_.path(), Options());
    EXPECT_EQ(db->tier_report().blocks_from_tier, static_cast<uint64_t>(kTables));
    EXPECT_EQ(db->tier_report().dropped_stale, 0u);
    EXPECT_EQ(DumpAll(*db), before);
  }
  // Cold: without the slot table the images come from the cold store and
  // are copied in on the way, so the restart after is warm again.
  std::filesystem::remove(tier::SlotTableFile::PathIn(tier::TierDir(dir_.path())));
  {
    auto db = Database::Open(dir_.path(), Options());
    EXPECT_EQ(db->tier_report().blocks_from_tier, 0u);
    EXPECT_EQ(db->tier_report().blocks_from_cold, static_cast<uint64_t>(kTables));
    EXPECT_EQ(DumpAll(*db), before);
  }
  auto db = Database::Open(dir_.path(), Options());
  EXPECT_EQ(db->tier_report().blocks_from_tier, static_cast<uint64_t>(kTables));
}

TEST_F(SsdTierDbTest, KillAfterACheckpointLeavesAVerifiableTier) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto db = Database::Open(dir_.path(), Options());
    Fill(*db);
    db->Checkpoint();
    // Commits after the checkpoint: in the log only.
    ExpectOk(db->Run([&](Transaction& txn) { txn.Insert(Table(0), Account(1000, "late", 7)); }));
    raise(SIGKILL);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(Verify(), tier::kTierClean) << verify_output_;
  auto db = Database::Open(dir_.path(), Options());
  EXPECT_EQ(db->tier_report().blocks_from_tier, static_cast<uint64_t>(kTables));
  std::vector<Row> rows = Dump(*db, Table(0));
  ASSERT_EQ(rows.size(), 51u);
  EXPECT_EQ(rows.back()[0], Value::BigInt(1000));
}

TEST_F(SsdTierDbTest, ATierThatCannotOpenIsBypassed) {
  DatabaseOptions o = Options();
  o.ssd_tier_dir = dir_.path() + "/a_file";
  { std::ofstream(o.ssd_tier_dir) << "not a directory"; }
  {
    auto db = Database::Open(dir_.path(), o);
    EXPECT_FALSE(db->tier_report().error.empty());
    Fill(*db);
    CheckpointResult c = db->Checkpoint();
    EXPECT_EQ(c.tier_admitted, 0u);
  }
  auto db = Database::Open(dir_.path(), o);
  EXPECT_FALSE(db->tier_report().error.empty());
  EXPECT_EQ(Dump(*db, Table(2)).size(), 50u);
}

TEST_F(SsdTierDbTest, TheColdStoreMayLiveApartAndIsFoundAgain) {
  TempDir cold;
  DatabaseOptions o = Options();
  o.cold_dir = cold.path() + "/store";
  std::vector<Row> rows;
  {
    auto db = Database::Open(dir_.path(), o);
    Fill(*db);
    db->Checkpoint();
    rows = Dump(*db, Table(1));
  }
  EXPECT_TRUE(std::filesystem::is_symlink(dir_.path() + "/cold"));
  EXPECT_TRUE(std::filesystem::exists(o.cold_dir + "/CURRENT"));  // RocksDB's files are there
  {
    // Without the option the link is followed; with it, the same place is fine.
    auto db = Database::Open(dir_.path(), Options());
    EXPECT_EQ(Dump(*db, Table(1)), rows);
    EXPECT_EQ(db->tier_report().blocks_from_tier, static_cast<uint64_t>(kTables));
  }
  auto db = Database::Open(dir_.path(), o);
  EXPECT_EQ(Dump(*db, Table(1)), rows);
  db.reset();
  // Another place than the link's: refused, nothing made there.
  DatabaseOptions elsewhere = Options();
  elsewhere.cold_dir = cold.path() + "/other";
  try {
    Database::Open(dir_.path(), elsewhere);
    ADD_FAILURE() << "opened with a second cold store";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kIoError);
    EXPECT_NE(std::string(e.what()).find("already at"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(elsewhere.cold_dir));
}

}  // namespace
}  // namespace forktail
