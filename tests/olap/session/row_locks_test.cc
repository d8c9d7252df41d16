// Row locks of SELECT ... FOR UPDATE / FOR SHARE (block/row_locks.h,
// session_locking.cc): the table on its own (modes, deadlocks, NOWAIT,
// lock_timeout, cancel, the re-run rule), then sessions whose blocks wait
// for each other as PostgreSQL's do, and the clauses that are refused.
#include <future>
#include <thread>

#include "olap/session/block/optimistic_block.h"
#include "olap/session/block/row_locks.h"
#include "tests/olap/session/session_test_util.h"

namespace forktail::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Mode = RowLockTable::Mode;
using namespace std::chrono_literals;

// Long enough that a waiter which should block has blocked.
constexpr auto kBlocked = 150ms;

template <typename T>
bool StillWaiting(std::future<T>& f) {
  return f.wait_for(kBlocked) == std::future_status::timeout;
}

TEST(RowLockTableTest, ExclusiveWaitsForTheHolderAndRunsAgain) {
  RowLockTable table;
  const uint64_t a = table.NewOwner(), b = table.NewOwner();
  EXPECT_FALSE(table.Acquire(a,
                             {"t\x1f"
                              "1"},
                             Mode::kExclusive, table.Epoch(), {}, "t"));
  EXPECT_FALSE(table.Acquire(a,
                             {"t\x1f"
                              "1"},
                             Mode::kExclusive, table.Epoch(), {}, "t"));
  EXPECT_EQ(table.held(a), 1u);
  const uint64_t epoch = table.Epoch();
  auto waiter = std::async(std::launch::async, [&] {
    return table.Acquire(b,
                         {"t\x1f"
                          "2",
                          "t\x1f"
                          "1"},
                         Mode::kExclusive, epoch, {}, "t");
  });
  EXPECT_TRUE(StillWaiting(waiter));
  EXPECT_EQ(table.held(b), 0u);  // all or nothing
  table.ReleaseAll(a);
  EXPECT_TRUE(waiter.get());  // it waited: the statement runs again
  EXPECT_EQ(table.held(b), 2u);
  EXPECT_EQ(table.held(a), 0u);
}

TEST(RowLockTableTest, AReleaseAfterTheReadMeansRunAgainWithoutAWait) {
  RowLockTable table;
  const uint64_t a = table.NewOwner(), b = table.NewOwner();
  table.Acquire(a, {"k"}, Mode::kExclusive, table.Epoch(), {}, "t");
  const uint64_t read_at = table.Epoch();  // b reads the row here
  table.ReleaseAll(a);                     // a commits and releases
  EXPECT_TRUE(table.Acquire(b, {"k"}, Mode::kExclusive, read_at, {}, "t"));
  EXPECT_FALSE(table.Acquire(b, {"k"}, Mode::kExclusive, table.Epoch(), {}, "t"));
}

TEST(RowLockTableTest, SharesAreCompatibleOnlyWithShares) {
  RowLockTable table;
  const uint64_t a = table.NewOwner(), b = table.NewOwner(), c = table.NewOwner();
  EXPECT_FALSE(table.Acquire(a, {"k"}, Mode::kShare, table.Epoch(), {}, "t"));
  EXPECT_FALSE(table.Acquire(b, {"k"}, Mode::kShare, table.Epoch(), {}, "t"));
  RowLockTable::WaitPolicy nowait;
  nowait.nowait = true;
  ExpectDbError([&] { table.Acquire(c, {"k"}, Mode::kExclusive, table.Epoch(), nowait, "t"); },
                "55P03", "could not obtain lock on row in relation \"t\"");
  // a's upgrade waits for b's share.
  auto upgrade = std::async(std::launch::async, [&] {
    return table.Acquire(a, {"k"}, Mode::kExclusive, table.Epoch(), {}, "t");
  });
  EXPECT_TRUE(StillWaiting(upgrade));
  table.ReleaseAll(b);
  EXPECT_TRUE(upgrade.get());
  ExpectDbError([&] { table.Acquire(c, {"k"}, Mode::kShare, table.Epoch(), nowait, "t"); }, "55P03",
                "could not obtain lock on row in relation \"t\"");
}

TEST(RowLockTableTest, TheWaitThatClosesACycleIsADeadlock) {
  RowLockTable table;
  const uint64_t a = table.NewOwner(), b = table.NewOwner(), c = table.NewOwner();
  table.Acquire(a, {"1"}, Mode::kExclusive, table.Epoch(), {}, "t");
  table.Acquire(b, {"2"}, Mode::kExclusive, table.Epoch(), {}, "t");
  table.Acquire(c, {"3"}, Mode::kExclusive, table.Epoch(), {}, "t");
  auto b_waits = std::async(std::launch::async, [&] {
    return table.Acquire(b, {"1"}, Mode::kExclusive, table.Epoch(), {}, "t");
  });
  auto c_waits = std::async(std::launch::async, [&] {
    return table.Acquire(c, {"2"}, Mode::kExclusive, table.Epoch(), {}, "t");
  });
  EXPECT_TRUE(StillWaiting(b_waits));
  EXPECT_TRUE(StillWaiting(c_waits));
  // a -> 3 (c) -> 2 (b) -> 1 (a): a cycle of three.
  try {
    table.Acquire(a, {"3"}, Mode::kExclusive, table.Epoch(), {}, "t");
    ADD_FAILURE() << "expected 40P01";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), "40P01");
    EXPECT_THAT(e.what(), HasSubstr("deadlock detected"));
  }
  table.ReleaseAll(a);  // a's block fails and lets go: the others proceed
  EXPECT_TRUE(b_waits.get());
  table.ReleaseAll(b);
  EXPECT_TRUE(c_waits.get());
}

TEST(RowLockTableTest, LockTimeoutAndCancelEndTheWait) {
  RowLockTable table;
  const uint64_t a = table.NewOwner(), b = table.NewOwner();
  table.Acquire(a, {"k"}, Mode::kExclusive, table.Epoch(), {}, "t");
  RowLockTable::WaitPolicy timeout;
  timeout.timeout = 30ms;
  ExpectDbError([&] { table.Acquire(b, {"k"}, Mode::kExclusive, table.Epoch(), timeout, "t"); },
                "55P03", "canceling statement due to lock timeout");
  std::atomic<bool> cancel{false};
  RowLockTable::WaitPolicy cancelable;
  cancelable.cancel = &cancel;
  auto waiter = std::async(std::launch::async, [&] {
    table.Acquire(b, {"k"}, Mode::kExclusive, table.Epoch(), cancelable, "t");
  });
  EXPECT_TRUE(StillWaiting(waiter));
  cancel = true;
  ExpectDbError([&] { waiter.get(); }, "57014", "canceling statement due to user request");
  EXPECT_EQ(table.held(b), 0u);
}

class RowLocksTest : public EngineFixture {
 protected:
  void SetUp() override {
    Open(InProcess());
    other_ = std::make_unique<SqlSession>(*engine_);
    Run("CREATE TABLE district (w int, d int, next_o_id int, ytd int, PRIMARY KEY (w, d))");
    Run("INSERT INTO district VALUES (1, 1, 3001, 0), (1, 2, 3001, 0)");
    Run("CREATE TABLE new_order (o int PRIMARY KEY)");
    Run("INSERT INTO new_order VALUES (10), (11), (12)");
  }
  void TearDown() override {
    other_.reset();
    EngineFixture::TearDown();
  }
  // Runs `sql` in the other session on a thread of its own.
  std::future<std::vector<std::string>> OtherAsync(std::string sql) {
    return std::async(std::launch::async,
                      [this, sql] { return Lines(other_->Execute(sql).back()); });
  }
  std::vector<std::string> OtherQuery(const std::string& sql) {
    return Lines(other_->Execute(sql).back());
  }

  std::unique_ptr<SqlSession> other_;
};

// Two New-Orders of one district: the second waits for the first and then
// reads the order id the first left, so both commit (no 40001).
TEST_F(RowLocksTest, ASecondForUpdateWaitsAndReadsWhatTheFirstCommitted) {
  Run("BEGIN");
  EXPECT_THAT(Query("SELECT next_o_id FROM district WHERE w = 1 AND d = 1 FOR UPDATE"),
              ElementsAre("3001"));
  other_->Execute("BEGIN");
  auto second = OtherAsync("SELECT next_o_id FROM district WHERE w = 1 AND d = 1 FOR UPDATE");
  EXPECT_TRUE(StillWaiting(second));
  // Another district's row and a read without a lock do not wait.
  SqlSession third(*engine_);
  EXPECT_THAT(Lines(third.Execute("SELECT next_o_id FROM district WHERE d = 2 FOR UPDATE").back()),
              ElementsAre("3001"));
  EXPECT_THAT(Lines(third.Execute("SELECT next_o_id FROM district WHERE d = 1").back()),
              ElementsAre("3001"));
  Run("UPDATE district SET next_o_id = next_o_id + 1 WHERE w = 1 AND d = 1");
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  EXPECT_THAT(second.get(), ElementsAre("3002"));
  other_->Execute("UPDATE district SET next_o_id = next_o_id + 1 WHERE w = 1 AND d = 1");
  EXPECT_EQ(other_->Execute("COMMIT").back().command_tag, "COMMIT");
  EXPECT_THAT(Query("SELECT next_o_id FROM district WHERE d = 1"), ElementsAre("3003"));
  EXPECT_GE(OptimisticBlock::GlobalStats().lock_waits, 1u);
}

// Delivery takes the oldest new order: the second waits, and after the
// first deleted it, gets the next one.
TEST_F(RowLocksTest, OrderByLimitForUpdateMovesOnToTheNextRow) {
  Run("BEGIN");
  EXPECT_THAT(Query("SELECT o FROM new_order ORDER BY o LIMIT 1 FOR UPDATE"), ElementsAre("10"));
  other_->Execute("BEGIN");
  auto second = OtherAsync("SELECT o FROM new_order ORDER BY o LIMIT 1 FOR UPDATE");
  EXPECT_TRUE(StillWaiting(second));
  Run("DELETE FROM new_order WHERE o = 10");
  Run("COMMIT");
  EXPECT_THAT(second.get(), ElementsAre("11"));
  other_->Execute("DELETE FROM new_order WHERE o = 11");
  EXPECT_EQ(other_->Execute("COMMIT").back().command_tag, "COMMIT");
  EXPECT_THAT(Query("SELECT o FROM new_order"), ElementsAre("12"));
}

TEST_F(RowLocksTest, SkipLockedLeavesOutTheRowsAnotherBlockHoldsBeforeLimit) {
  const std::string next = "SELECT o FROM new_order ORDER BY o LIMIT 1 FOR UPDATE SKIP LOCKED";
  Run("BEGIN");
  EXPECT_THAT(Query(next), ElementsAre("10"));
  other_->Execute("BEGIN");
  EXPECT_THAT(OtherQuery(next), ElementsAre("11"));
  SqlSession third(*engine_);
  EXPECT_THAT(Lines(third.Execute("SELECT o FROM new_order FOR SHARE SKIP LOCKED").back()),
              ElementsAre("12"));
  EXPECT_THAT(
      Lines(third.Execute("SELECT o FROM new_order ORDER BY o OFFSET 1 FOR UPDATE SKIP LOCKED")
                .back()),
      ElementsAre());
  StatementResult none =
      third.Execute("SELECT o FROM new_order LIMIT 0 FOR UPDATE SKIP LOCKED").back();
  EXPECT_EQ(none.command_tag, "SELECT 0");
  ExpectDbError([&] { third.Execute("SELECT o FROM new_order LIMIT -1 FOR UPDATE SKIP LOCKED"); },
                "2201W", "LIMIT must not be negative");
  // The row the other block skipped is free again, yet its COMMIT finds
  // the result it was given: the block leaves out the same rows at every run.
  Run("ROLLBACK");
  other_->Execute("DELETE FROM new_order WHERE o = 11");
  EXPECT_EQ(other_->Execute("COMMIT").back().command_tag, "COMMIT");
  EXPECT_THAT(Query("SELECT o FROM new_order ORDER BY o"), ElementsAre("10", "12"));
}
TEST_F(RowLocksTest, LocksEndWithRollbackFailureAndDisconnect) {
  const std::string lock = "SELECT o FROM new_order WHERE o = 12 FOR UPDATE";
  auto expect_free = [&] {
    other_->Execute("BEGIN");
    EXPECT_THAT(OtherQuery(lock + " NOWAIT"), ElementsAre("12"));
    other_->Execute("ROLLBACK");
  };
  Run("BEGIN");
  Query(lock);
  Run("ROLLBACK");
  expect_free();
  Run("BEGIN");
  Query(lock);
  EXPECT_THROW(Run("SELECT 1 / 0"), DbError);  // the block fails: nothing can commit
  expect_free();
  Run("ROLLBACK");
  auto gone = std::make_unique<SqlSession>(*engine_);
  gone->Execute("BEGIN");
  gone->Execute(lock);
  gone.reset();  // the connection closes
  expect_free();
}

TEST_F(RowLocksTest, NowaitLockTimeoutAndDeadlockAnswerAsPostgresDoes) {
  Run("BEGIN");
  Query("SELECT o FROM new_order WHERE o = 10 FOR UPDATE");
  other_->Execute("BEGIN");
  ExpectDbError([&] { other_->Execute("SELECT * FROM new_order WHERE o = 10 FOR UPDATE NOWAIT"); },
                "55P03", "could not obtain lock on row in relation \"new_order\"");
  other_->Execute("ROLLBACK");
  other_->Execute("SET lock_timeout = 40");
  other_->Execute("BEGIN");
  ExpectDbError([&] { other_->Execute("SELECT * FROM new_order WHERE o = 10 FOR SHARE"); }, "55P03",
                "canceling statement due to lock timeout");
  other_->Execute("ROLLBACK");
  other_->Execute("SET lock_timeout = 0");
  // A deadlock: other holds 11 and waits for 10; we ask for 11.
  other_->Execute("BEGIN");
  OtherQuery("SELECT o FROM new_order WHERE o = 11 FOR UPDATE");
  auto other_waits = OtherAsync("SELECT o FROM new_order WHERE o = 10 FOR UPDATE");
  EXPECT_TRUE(StillWaiting(other_waits));
  try {
    Run("SELECT o FROM new_order WHERE o = 11 FOR UPDATE");
    ADD_FAILURE() << "expected 40P01";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), "40P01");
  }
  EXPECT_EQ(session_->status(), TxnStatus::kFailed);
  EXPECT_THAT(other_waits.get(), ElementsAre("10"));  // our failed block let go
  Run("ROLLBACK");
  EXPECT_EQ(other_->Execute("COMMIT").back().command_tag, "COMMIT");
}

// Outside a block the statement still waits for a block's lock (and NOWAIT
// still fails), then holds nothing.
TEST_F(RowLocksTest, AStatementOnItsOwnWaitsForABlocksLock) {
  Run("BEGIN");
  Query("SELECT * FROM district WHERE d = 1 FOR UPDATE");
  ExpectDbError([&] { other_->Execute("SELECT * FROM district WHERE d = 1 FOR UPDATE NOWAIT"); },
                "55P03", "could not obtain lock on row in relation \"district\"");
  auto waits = OtherAsync("SELECT next_o_id FROM district WHERE d = 1 FOR SHARE");
  EXPECT_TRUE(StillWaiting(waits));
  Run("UPDATE district SET next_o_id = 5000 WHERE d = 1");
  Run("COMMIT");
  EXPECT_THAT(waits.get(), ElementsAre("5000"));
  Run("BEGIN");
  EXPECT_THAT(Query("SELECT next_o_id FROM district WHERE d = 1 FOR UPDATE NOWAIT"),
              ElementsAre("5000"));
  Run("COMMIT");
}

TEST_F(RowLocksTest, ClausesThatLockNoTableRowsAreRefused) {
  ExpectDbError([&] { Run("SELECT DISTINCT w FROM district FOR SHARE"); }, "0A000",
                "FOR SHARE is not allowed with DISTINCT clause", 1);
  ExpectDbError([&] { Run("SELECT w, count(*) FROM district GROUP BY w FOR UPDATE"); }, "0A000",
                "FOR UPDATE is not allowed with GROUP BY clause", 1);
  ExpectDbError([&] { Run("SELECT count(*) FROM district FOR UPDATE"); }, "0A000",
                "FOR UPDATE is not allowed with aggregate functions", 1);
  ExpectDbError([&] { Run("SELECT 1 FROM district d FOR UPDATE OF district"); }, "42P01",
                "relation \"district\" in FOR UPDATE clause not found in FROM clause", 1);
  Run("BEGIN READ ONLY");
  ExpectDbError([&] { Run("SELECT o FROM new_order FOR KEY SHARE"); }, "25006",
                "cannot execute SELECT FOR KEY SHARE in a read-only transaction");
  Run("ROLLBACK");
  // An alias, OF it, and the result's columns are the query's own.
  StatementResult r = Run("SELECT x.next_o_id FROM district x WHERE x.d = 2 FOR UPDATE OF x");
  ASSERT_EQ(r.columns.size(), 1u);
  EXPECT_EQ(r.columns[0].name, "next_o_id");
  EXPECT_THAT(Lines(r), ElementsAre("3001"));
}

}  // namespace
}  // namespace forktail::testing
