// TxnBlock: a transaction block holding the transaction thread, over a real
// Database: commit, rollback, a failing statement, the idle hold timeout, and
// that other transactions wait for (and then see) the block.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "olap/session/block/txn_block.h"
#include "tests/common/txn_test_util.h"

namespace forktail::testing {
namespace {

class EngineTxnBlockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = Database::Open(dir_.path());
    db_->Run([](Transaction& txn) { txn.CreateTable(AccountSchema()); }).ThrowIfError();
  }
  uint64_t Count() {
    uint64_t n = 0;
    db_->Run([&](Transaction& txn) { n = txn.GetTable("account").live_row_count(); })
        .ThrowIfError();
    return n;
  }
  TxnBlock::Work InsertWork(int64_t id) {
    return [id](Transaction& txn) {
      txn.Insert("account", {Value::BigInt(id), Value::Text("o"), Value::BigInt(1)});
    };
  }

  TempDir dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(EngineTxnBlockTest, CommitKeepsEveryStatement) {
  TxnBlock block(*db_, std::chrono::milliseconds(5000));
  block.Start();
  block.Run(InsertWork(1));
  block.Run(InsertWork(2));
  uint64_t seen = 0;
  block.Run([&](Transaction& txn) { seen = txn.GetTable("account").live_row_count(); });
  EXPECT_EQ(seen, 2u);
  TxnResult r = block.Finish(true);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_NE(r.commit_lsn, wal::kInvalidLsn);
  EXPECT_EQ(Count(), 2u);
}

TEST_F(EngineTxnBlockTest, RollbackUndoesEverything) {
  TxnBlock block(*db_, std::chrono::milliseconds(5000));
  block.Start();
  block.Run(InsertWork(1));
  block.Finish(false);
  EXPECT_EQ(Count(), 0u);
}

TEST_F(EngineTxnBlockTest, FailingStatementRollsTheBlockBackAndFreesTheThread) {
  TxnBlock block(*db_, std::chrono::milliseconds(5000));
  block.Start();
  block.Run(InsertWork(1));
  try {
    block.Run(InsertWork(1));
    FAIL() << "duplicate key accepted";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kUniqueViolation);
  }
  EXPECT_FALSE(block.alive());
  EXPECT_EQ(Count(), 0u);  // runs at once: the thread is free
  try {
    block.Run(InsertWork(2));
    FAIL() << "ran in a dead block";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kInvalidTransactionState);
  }
  EXPECT_FALSE(block.Finish(true).ok);
}

TEST_F(EngineTxnBlockTest, IdleBlockIsRolledBackAfterTheHoldTime) {
  TxnBlock block(*db_, std::chrono::milliseconds(30));
  block.Start();
  block.Run(InsertWork(1));
  // Another writer queued behind the block runs once the hold time expired.
  TxnResult other = db_->Run([](Transaction& txn) {
    txn.Insert("account", {Value::BigInt(2), Value::Text("o"), Value::BigInt(1)});
  });
  ASSERT_TRUE(other.ok);
  EXPECT_TRUE(block.timed_out());
  try {
    block.Run(InsertWork(3));
    FAIL() << "ran after the timeout";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), "25P03");
    EXPECT_EQ(std::string(e.what()),
              "terminating transaction: idle in transaction timeout exceeded");
  }
  EXPECT_FALSE(block.Finish(true).ok);
  EXPECT_EQ(Count(), 1u);  // only the other writer's row
}

TEST_F(EngineTxnBlockTest, DestructorRollsBack) {
  {
    TxnBlock block(*db_, std::chrono::milliseconds(5000));
    block.Start();
    block.Run(InsertWork(1));
  }
  EXPECT_EQ(Count(), 0u);
}

}  // namespace
}  // namespace forktail::testing
