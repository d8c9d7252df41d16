// Snapshot processes of a database with a memory budget (tiering/
// buffer_pool.h, tiering/block_server.h): a SELECT in a fork()ed snapshot
// reads the blocks that were not in memory at its fork through the parent's
// block server, at the version its fork saw, also after the parent changed
// those blocks and a checkpoint replaced their images. Forks a multi-threaded
// parent: Release only (`make release-test`).
#include "tests/common/sanitizer_fork.h"
#include "tests/olap/session/session_test_util.h"

namespace forktail::testing {
namespace {

using ::testing::ElementsAre;

constexpr uint64_t kBudget = 4 * kBlockSize;

class PoolSnapshotTest : public ::testing::Test {
 protected:
  void SetUp() override { FORKTAIL_SKIP_FORK_STRESS_UNDER_SANITIZER(); }
  // With `ssd_tier_slots`, snapshot processes read the tier's slots
  // themselves (block_server.h, "Slots").
  void Open(uint32_t ssd_tier_slots) {
    DatabaseOptions db;
    db.memory_budget = kBudget;
    db.ssd_tier_slots = ssd_tier_slots;
    SqlFrontendOptions options;
    options.routing = ReadRouting::kSnapshot;
    engine_ = SqlFrontend::Open(dir_.path(), options, db);
    session_ = std::make_unique<SqlSession>(*engine_);
  }
  void TearDown() override {
    session_.reset();
    engine_.reset();
  }
  std::vector<std::string> Query(SqlSession& s, const std::string& sql) {
    return Lines(s.Execute(sql).back());
  }
  int64_t Resident() { return engine_->database().pool_report().resident_bytes; }
  void ReadsAtTheForksVersion();

  TempDir dir_;
  std::unique_ptr<SqlFrontend> engine_;
  std::unique_ptr<SqlSession> session_;
};

// The scenario of both tests: a snapshot forked while most blocks are not in
// memory reads them at its version, before and after the parent rewrote
// every block and checkpointed.
void PoolSnapshotTest::ReadsAtTheForksVersion() {
  // ~100 bytes a row: some 20,000 rows a block, 10 blocks.
  session_->Execute("CREATE TABLE t (id int PRIMARY KEY, v int, pad text)");
  session_->Execute("INSERT INTO t SELECT g, 1, repeat('x', 80) FROM generate_series(1, 200000) g");
  session_->Execute("CHECKPOINT");
  engine_->database().TrimToBudget();
  ASSERT_LE(Resident(), static_cast<int64_t>(kBudget));
  const uint64_t read_before = engine_->database().pool_report().reads;

  // A session that may read a snapshot up to a minute old: its first SELECT
  // forks one while most blocks are not in memory.
  SqlSession old_reader(*engine_);
  old_reader.Execute("SET forktail.max_snapshot_age_ms = 60000");
  EXPECT_THAT(Query(old_reader, "SELECT count(*), sum(v), sum(id) FROM t"),
              ElementsAre("200000|200000|20000100000"));
  // The child read them through the parent (the parent's pool counts the
  // reads it served).
  EXPECT_GT(engine_->database().pool_report().reads, read_before);

  // The parent changes every block and checkpoints: new versions replace the
  // images the snapshot read, which must stay while it lives.
  session_->Execute("UPDATE t SET v = 2");
  session_->Execute("CHECKPOINT");
  engine_->database().TrimToBudget();
  // The old snapshot (still the newest query snapshot, and young enough)
  // dropped the blocks its first scan loaded (over the budget), so this scan
  // reads them again: the images of its version, which the checkpoint above
  // kept for it.
  EXPECT_THAT(Query(old_reader, "SELECT count(*), sum(v) FROM t"), ElementsAre("200000|200000"));
  EXPECT_THAT(Query(*session_, "SELECT count(*), sum(v) FROM t"), ElementsAre("200000|400000"));
  // Fresh reads go on seeing every commit.
  session_->Execute("UPDATE t SET v = 3 WHERE id <= 100000");
  session_->Execute("CHECKPOINT");
  EXPECT_THAT(Query(*session_, "SELECT sum(v) FROM t"), ElementsAre("500000"));
  SqlSession fresh(*engine_);
  EXPECT_THAT(Query(fresh, "SELECT sum(v) FROM t WHERE id > 150000"), ElementsAre("100000"));
  const std::vector<std::string> stats = Query(fresh, "SHOW forktail.buffer_pool_stats");
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_THAT(stats[0], ::testing::StartsWith("budget_mb=8 resident_mb="));
}

TEST_F(PoolSnapshotTest, SnapshotsReadEvictedBlocksAtTheirForksVersion) {
  Open(0);
  ReadsAtTheForksVersion();
}

TEST_F(PoolSnapshotTest, WithAnSsdTierSnapshotsReadTheSlotsThemselves) {
  // The checkpoint after the UPDATE drops the slots of the versions the old
  // snapshot reads and admits the new ones, possibly into the same slots: a
  // slot read that no longer holds the image it was told of fails its CRC
  // and the image comes from the server (the cold store keeps it).
  Open(64);
  ReadsAtTheForksVersion();
  EXPECT_GT(engine_->database().pool_report().reads_from_tier, 0u);
}

}  // namespace
}  // namespace forktail::testing
