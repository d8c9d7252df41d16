// Checkpoints written by a snapshot process (Database::Checkpoint with
// CheckpointMode::kSnapshotProcess): the transaction thread keeps committing
// while the child writes, blocks dirtied after the fork are written next
// time, and a crash at any step leaves the previous checkpoint the newest
// complete one. These tests fork a quiet parent a few times (no busy
// submitter threads at fork time), so they run under ASan too; the
// many-forks-while-busy test is tests/snapshot/checkpoint_snapshot_test.cc.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <future>
#include <string>

#include "tests/common/txn_test_util.h"

namespace forktail {
namespace {

using testing::Account;
using testing::AccountSchema;
using testing::Dump;
using testing::ExpectOk;
using testing::TempDir;

class CheckpointProcessTest : public ::testing::Test {
 protected:
  DatabaseOptions Options(
      DatabaseOptions::CheckpointMode mode = DatabaseOptions::CheckpointMode::kSnapshotProcess) {
    DatabaseOptions o;
    o.wal_segment_size = 16 << 10;
    o.checkpoint_mode = mode;
    o.checkpoint_test_hook = [this](std::string_view step) { Hook(step); };
    return o;
  }
  std::unique_ptr<Database> Open(
      DatabaseOptions::CheckpointMode mode = DatabaseOptions::CheckpointMode::kSnapshotProcess) {
    return Database::Open(dir_.path(), Options(mode));
  }

  // Runs in the checkpoint child ("child") or on the checkpointing thread.
  void Hook(std::string_view step) {
    if (step == crash_at_) raise(SIGKILL);
    if (step == "child" && block_child_) {
      char c = 'r';
      (void)!write(started_[1], &c, 1);  // "I am writing"
      (void)!read(release_[0], &c, 1);   // wait for the test
    }
  }

  void Load(Database& db, int first, int n) {
    for (int i = first; i < first + n; i++) {
      ExpectOk(db.Run([&](Transaction& txn) {
        txn.Insert("account", Account(i, "owner" + std::to_string(i), 100));
      }));
    }
  }

  TempDir dir_;
  std::string crash_at_;  // a step name, or empty
  bool block_child_ = false;
  int started_[2] = {-1, -1};
  int release_[2] = {-1, -1};
};

TEST_F(CheckpointProcessTest, CheckpointIsWrittenByAChildAndRecovered) {
  std::vector<Row> rows;
  {
    auto db = Open();
    ExpectOk(db->Run([](Transaction& txn) { txn.CreateTable(AccountSchema()); }));
    Load(*db, 0, 300);
    CheckpointResult c = db->Checkpoint();
    EXPECT_GT(c.child_pid, 0);
    EXPECT_NE(c.child_pid, getpid());
    EXPECT_EQ(c.sequence, 1u);
    EXPECT_EQ(c.blocks_written, c.blocks_total);
    EXPECT_GT(c.bytes_written, 0u);
    EXPECT_GT(c.segments_removed, 0);
    // Nothing changed: nothing to write, still a new manifest.
    CheckpointResult c2 = db->Checkpoint();
    EXPECT_EQ(c2.blocks_written, 0u);
    EXPECT_EQ(c2.sequence, 2u);
    rows = Dump(*db, "account");
  }
  auto db = Open();
  EXPECT_TRUE(db->recovery_report().has_checkpoint);
  EXPECT_EQ(db->recovery_report().checkpoint.sequence, 2u);
  EXPECT_EQ(db->recovery_report().replay.committed_txns, 0u);
  EXPECT_EQ(Dump(*db, "account"), rows);
}

TEST_F(CheckpointProcessTest, InProcessModeWritesTheSameCheckpoint) {
  std::vector<Row> rows;
  {
    auto db = Open(DatabaseOptions::CheckpointMode::kInProcess);
    ExpectOk(db->Run([](Transaction& txn) { txn.CreateTable(AccountSchema()); }));
    Load(*db, 0, 50);
    CheckpointResult c = db->Checkpoint();
    EXPECT_EQ(c.child_pid, 0);
    EXPECT_EQ(c.blocks_written, c.blocks_total);
    rows = Dump(*db, "account");
  }
  auto db = Open(DatabaseOptions::CheckpointMode::kInProcess);
  EXPECT_EQ(db->recovery_report().checkpoint.sequence, 1u);
  EXPECT_EQ(Dump(*db, "account"), rows);
}

// The transaction thread never waits for the checkpoint's write: with the
// child held inside its write, transactions commit (synchronously) and the
// checkpoint has not returned. Blocks they dirty after the fork are written
// by the next checkpoint, which then lets the log go.
TEST_F(CheckpointProcessTest, TransactionsCommitWhileTheChildWrites) {
  ASSERT_EQ(pipe(started_), 0);
  ASSERT_EQ(pipe(release_), 0);
  std::vector<Row> rows;
  {
    auto db = Open();
    ExpectOk(db->Run([](Transaction& txn) { txn.CreateTable(AccountSchema()); }));
    Load(*db, 0, 100);
    block_child_ = true;
    std::future<CheckpointResult> ckpt =
        std::async(std::launch::async, [&] { return db->Checkpoint(); });
    char c;
    ASSERT_EQ(read(started_[0], &c, 1), 1);  // the child is inside its write
    wal::Lsn before = db->last_commit_lsn();
    TxnResult first_after =
        db->Run([](Transaction& txn) { txn.Insert("account", Account(100, "after", 1)); });
    ExpectOk(first_after);
    Load(*db, 101, 49);                 // new rows
    for (int i = 0; i < 100; i += 7) {  // and rows the checkpoint is writing
      ExpectOk(db->Run([&](Transaction& txn) {
        txn.UpdateByKey("account", {Value::BigInt(i)}, {{"balance", Value::BigInt(i * 3)}});
      }));
    }
    EXPECT_GT(db->last_commit_lsn(), before);
    // Still held: 65 synchronous commits went through while it could not finish.
    EXPECT_NE(ckpt.wait_for(std::chrono::seconds(0)), std::future_status::ready);
    ASSERT_EQ(write(release_[1], &c, 1), 1);
    CheckpointResult first = ckpt.get();
    block_child_ = false;
    // As of the fork: after the last commit before it, before the first after.
    EXPECT_GT(first.lsn, before);
    EXPECT_LE(first.lsn, first_after.commit_lsn);
    EXPECT_EQ(first.blocks_written, first.blocks_total);
    // Every block changed after the fork is rewritten.
    CheckpointResult second = db->Checkpoint();
    EXPECT_GE(second.blocks_written, 1u);
    rows = Dump(*db, "account");
  }
  for (int fd : {started_[0], started_[1], release_[0], release_[1]}) close(fd);
  auto db = Open();
  EXPECT_EQ(db->recovery_report().checkpoint.sequence, 2u);
  EXPECT_EQ(db->recovery_report().replay.committed_txns, 0u);  // all in the images
  EXPECT_EQ(Dump(*db, "account"), rows);
}

TEST_F(CheckpointProcessTest, KilledChildFailsTheCheckpointAndTheNextOneWritesItsBlocks) {
  std::vector<Row> rows;
  {
    auto db = Open();
    ExpectOk(db->Run([](Transaction& txn) { txn.CreateTable(AccountSchema()); }));
    Load(*db, 0, 100);
    EXPECT_EQ(db->Checkpoint().sequence, 1u);
    ExpectOk(db->Run([](Transaction& txn) {
      txn.UpdateByKey("account", {Value::BigInt(5)}, {{"balance", Value::BigInt(7)}});
    }));
    crash_at_ = "child";
    try {
      db->Checkpoint();
      ADD_FAILURE() << "the checkpoint should have failed";
    } catch (const DbError& e) {
      EXPECT_EQ(e.sqlstate(), std::string(sqlstate::kIoError));
      EXPECT_NE(std::string(e.what()).find("killed by signal 9"), std::string::npos) << e.what();
    }
    crash_at_.clear();
    // Transactions go on; the failed checkpoint's block (flag already
    // cleared at the fork) is written again because no manifest has it.
    Load(*db, 100, 1);
    CheckpointResult c = db->Checkpoint();
    EXPECT_EQ(c.sequence, 2u);
    EXPECT_GE(c.blocks_written, 1u);
    rows = Dump(*db, "account");
  }
  auto db = Open();
  EXPECT_EQ(db->recovery_report().checkpoint.sequence, 2u);
  EXPECT_EQ(db->recovery_report().replay.committed_txns, 0u);
  EXPECT_EQ(Dump(*db, "account"), rows);
}

// The whole database process is killed at each step of its second
// checkpoint: before the ingestion, after it (images in the store, manifest
// not written), after the manifest. Everything committed survives; the
// newest complete checkpoint is the first one unless the manifest was written.
TEST_F(CheckpointProcessTest, ProcessKilledAtEachCheckpointStepRecovers) {
  for (std::string step : {"before_ingest", "after_ingest", "after_manifest"}) {
    SCOPED_TRACE(step);
    TempDir dir;
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      bool armed = false;
      DatabaseOptions o = Options();
      o.checkpoint_test_hook = [&](std::string_view s) {
        if (armed && s == step) raise(SIGKILL);
      };
      auto db = Database::Open(dir.path(), o);
      ExpectOk(db->Run([](Transaction& txn) { txn.CreateTable(AccountSchema()); }));
      Load(*db, 0, 100);
      db->Checkpoint();
      Load(*db, 100, 50);
      ExpectOk(db->Run([](Transaction& txn) {
        txn.UpdateByKey("account", {Value::BigInt(3)}, {{"balance", Value::BigInt(1)}});
      }));
      armed = true;
      db->Checkpoint();
      _exit(3);  // not reached
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "status " << status;
    EXPECT_EQ(WTERMSIG(status), SIGKILL);
    auto db = Database::Open(dir.path(), Options());
    EXPECT_EQ(db->recovery_report().checkpoint.sequence, step == "after_manifest" ? 2u : 1u);
    std::vector<Row> rows = Dump(*db, "account");
    ASSERT_EQ(rows.size(), 150u);
    int64_t sum = 0;
    for (const Row& r : rows) sum += r[2].GetInt();
    EXPECT_EQ(sum, 149 * 100 + 1);
    // And the next checkpoint works from there.
    EXPECT_GT(db->Checkpoint().sequence, 1u);
  }
}

TEST_F(CheckpointProcessTest, LastCommitLsnIsSeededFromRecovery) {
  wal::Lsn last = wal::kInvalidLsn;
  {
    auto db = Open();
    EXPECT_EQ(db->last_commit_lsn(), wal::kInvalidLsn);  // empty database
    ExpectOk(db->Run([](Transaction& txn) { txn.CreateTable(AccountSchema()); }));
    Load(*db, 0, 3);
    last = db->last_commit_lsn();
  }
  auto db = Open();
  EXPECT_NE(db->last_commit_lsn(), wal::kInvalidLsn);
  EXPECT_GE(db->last_commit_lsn(), last);
  std::promise<wal::Lsn> at_fork_point;
  db->RunBetweenTransactions([&](wal::Lsn lsn) { at_fork_point.set_value(lsn); });
  EXPECT_EQ(at_fork_point.get_future().get(), db->last_commit_lsn());
  TxnResult r = db->Run([](Transaction& txn) { txn.Insert("account", Account(9, "n", 1)); });
  ExpectOk(r);
  EXPECT_GT(r.commit_lsn, last);
  EXPECT_EQ(db->last_commit_lsn(), r.commit_lsn);
}

}  // namespace
}  // namespace forktail
