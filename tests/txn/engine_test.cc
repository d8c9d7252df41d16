// The transaction thread: commit/abort semantics, constraint errors, undo of
// every operation kind, group commit with many submitters.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "tests/common/txn_test_util.h"

namespace forktail {
namespace {

using testing::Account;
using testing::AccountSchema;
using testing::Dump;
using testing::ExpectOk;
using testing::TempDir;

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = Database::Open(dir_.path());
    ExpectOk(db_->Run([](Transaction& txn) { txn.CreateTable(AccountSchema()); }));
    ExpectOk(db_->Run([](Transaction& txn) {
      for (int i = 1; i <= 5; i++) txn.Insert("account", Account(i, "o" + std::to_string(i), 100));
    }));
  }

  int64_t Balance(int64_t id) {
    int64_t b = -1;
    ExpectOk(db_->Run([&](Transaction& txn) {
      auto row = txn.Get("account", {Value::BigInt(id)});
      if (row) b = (*row)[2].GetInt();
    }));
    return b;
  }

  TempDir dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(EngineTest, CommitIsVisibleToLaterTransactions) {
  TxnResult r = db_->Run([](Transaction& txn) {
    txn.UpdateByKey("account", {Value::BigInt(1)}, {{"balance", Value::BigInt(42)}});
  });
  ExpectOk(r);
  EXPECT_NE(r.commit_lsn, wal::kInvalidLsn);
  EXPECT_EQ(Balance(1), 42);
}

TEST_F(EngineTest, ExplicitAbortRollsBackEveryKindOfChange) {
  std::vector<Row> before = Dump(*db_, "account");
  TxnResult r = db_->Run([](Transaction& txn) {
    txn.Insert("account", Account(6, "new", 1));
    txn.UpdateByKey("account", {Value::BigInt(1)}, {{"balance", Value::BigInt(7)}});
    // Key change and a string that no longer fits in place are both undone.
    txn.UpdateByKey("account", {Value::BigInt(2)}, {{"id", Value::BigInt(20)}});
    txn.UpdateByKey("account", {Value::BigInt(3)}, {{"owner", Value::Text(std::string(40, 'x'))}});
    txn.DeleteByKey("account", {Value::BigInt(4)});
    txn.CreateTable(AccountSchema("scratch"));
    txn.Insert("scratch", Account(1, "s", 1));
    txn.DropTable("scratch");
    txn.Abort("changed my mind");
  });
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.sqlstate, "40000");
  EXPECT_EQ(r.message, "changed my mind");
  EXPECT_EQ(Dump(*db_, "account"), before);
  ExpectOk(db_->Run([](Transaction& txn) {
    EXPECT_TRUE(txn.Find("account", {Value::BigInt(2)}).has_value());
    EXPECT_FALSE(txn.Find("account", {Value::BigInt(20)}).has_value());
    EXPECT_FALSE(txn.Find("account", {Value::BigInt(6)}).has_value());
    EXPECT_TRUE(txn.Find("account", {Value::BigInt(4)}).has_value());
    EXPECT_THROW(txn.GetTable("scratch"), DbError);
  }));
  // The key freed by the rolled-back key change is usable, the old one taken.
  TxnResult dup = db_->Run([](Transaction& txn) { txn.Insert("account", Account(2, "d", 0)); });
  EXPECT_EQ(dup.sqlstate, "23505");
  ExpectOk(db_->Run([](Transaction& txn) { txn.Insert("account", Account(20, "d", 0)); }));
}

TEST_F(EngineTest, UndoOfRelocatedRowRestoresTidAndIndex) {
  // Fill the block's heap so that growing a string relocates the row.
  TableOptions small;
  small.max_rows_per_block = 64;
  ExpectOk(db_->Run([&](Transaction& txn) {
    txn.CreateTable({"t", {{"k", Type::Integer(), true}, {"s", Type::Text()}}, {ColumnId(0)}},
                    small);
    for (int i = 0; i < 10; i++) txn.Insert("t", {Value::Integer(i), Value::Text("a")});
  }));
  std::vector<Row> before = Dump(*db_, "t");
  bool moved = false;
  TxnResult r = db_->Run([&](Transaction& txn) {
    for (int k = 0; k < 6; k++) {
      TupleId tid = *txn.Find("t", {Value::Integer(k)});
      TupleId now = txn.Update(
          "t", tid, Transaction::NamedUpdates{{"s", Value::Text(std::string(700 << 10, 'z'))}});
      moved = moved || now != tid;
    }
    // A key change of a moved row.
    txn.UpdateByKey("t", {Value::Integer(5)}, {{"k", Value::Integer(50)}});
    txn.Abort("undo it");
  });
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(moved);
  EXPECT_EQ(Dump(*db_, "t"), before);
  ExpectOk(db_->Run([](Transaction& txn) {
    EXPECT_EQ((*txn.Get("t", {Value::Integer(3)}))[1], Value::Text("a"));
  }));
}

TEST_F(EngineTest, ConstraintViolationsAbortWithClearErrors) {
  std::vector<Row> before = Dump(*db_, "account");
  TxnResult dup = db_->Run([](Transaction& txn) {
    txn.UpdateByKey("account", {Value::BigInt(1)}, {{"balance", Value::BigInt(0)}});
    txn.Insert("account", Account(1, "again", 0));
  });
  EXPECT_EQ(dup.sqlstate, "23505");
  EXPECT_NE(dup.message.find("duplicate key"), std::string::npos) << dup.message;
  TxnResult null = db_->Run([](Transaction& txn) {
    txn.Insert("account", Account(9, "x", 1));
    txn.Insert("account", {Value::BigInt(10), Value::Null(Type::Varchar(40)), Value::BigInt(1)});
  });
  EXPECT_EQ(null.sqlstate, "23502");
  TxnResult no_table = db_->Run([](Transaction& txn) { txn.Insert("nope", {}); });
  EXPECT_EQ(no_table.sqlstate, "42P01");
  EXPECT_EQ(no_table.message, "relation \"nope\" does not exist");
  TxnResult no_column = db_->Run([](Transaction& txn) {
    txn.UpdateByKey("account", {Value::BigInt(1)}, {{"nope", Value::BigInt(0)}});
  });
  EXPECT_EQ(no_column.sqlstate, "42703");
  EXPECT_EQ(Dump(*db_, "account"), before);
}

TEST_F(EngineTest, OtherExceptionsAbortToo) {
  TxnResult r = db_->Run([](Transaction& txn) {
    txn.DeleteByKey("account", {Value::BigInt(1)});
    throw std::runtime_error("boom");
  });
  EXPECT_EQ(r.sqlstate, "XX000");
  EXPECT_EQ(Balance(1), 100);
}

TEST_F(EngineTest, DdlCommitsAndDropIsDeferredToCommit) {
  ExpectOk(db_->Run([](Transaction& txn) {
    txn.CreateTable(AccountSchema("a2"));
    txn.Insert("a2", Account(1, "x", 1));
  }));
  ExpectOk(db_->Run([](Transaction& txn) {
    txn.DropTable("a2");
    EXPECT_THROW(txn.Insert("a2", Account(2, "y", 1)), DbError);
  }));
  TxnResult r = db_->Run([](Transaction& txn) { txn.GetTable("a2"); });
  EXPECT_EQ(r.sqlstate, "42P01");
}

TEST_F(EngineTest, EmittedRowsReturnOnlyOnCommit) {
  TxnResult r = db_->Run([](Transaction& txn) { txn.Emit({Value::Integer(1)}); });
  ExpectOk(r);
  ASSERT_EQ(r.rows.size(), 1u);
  TxnResult a = db_->Run([](Transaction& txn) {
    txn.Emit({Value::Integer(1)});
    txn.Abort("no");
  });
  EXPECT_TRUE(a.rows.empty());
}

TEST_F(EngineTest, ManyConcurrentSubmittersGroupCommit) {
  constexpr int kThreads = 16, kPerThread = 40;
  std::atomic<int> failures{0};
  uint64_t syncs_before = db_->log_stats().syncs;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; i++) {
        TxnResult r = db_->Run([&](Transaction& txn) {
          int64_t id = 1 + (t + i) % 5;
          auto row = txn.Get("account", {Value::BigInt(id)});
          txn.UpdateByKey("account", {Value::BigInt(id)},
                          {{"balance", Value::BigInt((*row)[2].GetInt() + 1)}});
        });
        if (!r.ok) failures++;
        // Acknowledged means durable.
        if (r.commit_lsn >= db_->log_stats().durable_lsn) failures++;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  int64_t sum = 0;
  for (int id = 1; id <= 5; id++) sum += Balance(id);
  EXPECT_EQ(sum, 500 + kThreads * kPerThread);
  uint64_t syncs = db_->log_stats().syncs - syncs_before;
  EXPECT_LE(syncs, uint64_t{kThreads * kPerThread});
  std::printf("%d commits took %llu fdatasyncs\n", kThreads * kPerThread,
              static_cast<unsigned long long>(syncs));
}

TEST_F(EngineTest, ClosedDatabaseRefusesWithShutdownError) {
  db_->Close();
  TxnResult r = db_->Run([](Transaction&) {});
  EXPECT_EQ(r.sqlstate, "57P01");
}

}  // namespace
}  // namespace forktail
