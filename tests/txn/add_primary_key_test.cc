// ALTER TABLE ADD PRIMARY KEY below SQL: Catalog/Table::AddPrimaryKey on a
// table with rows (NULLs, duplicates, the index it builds), its undo in a
// rolled-back transaction, its redo record through log replay (the crash
// path: nothing but the log) and through a checkpoint, and the schema copies
// the transaction engine publishes for binding.
#include <gtest/gtest.h>

#include "tests/common/txn_test_util.h"

namespace forktail {
namespace {

using testing::ExpectOk;
using testing::TempDir;

// pgbench_accounts' shape without its key: aid, bid, abalance.
TableSchema Unkeyed(std::string name = "acc") {
  return TableSchema{std::move(name),
                     {{"aid", Type::Integer(), false},
                      {"bid", Type::Integer(), false},
                      {"abalance", Type::Integer(), false}},
                     {}};
}

Row Acc(int32_t aid, int32_t bid) {
  return {Value::Integer(aid), Value::Integer(bid), Value::Integer(0)};
}

void Fill(Database& db, int n) {
  ExpectOk(db.Run([&](Transaction& txn) {
    txn.CreateTable(Unkeyed());
    for (int i = 1; i <= n; i++) txn.Insert("acc", Acc(i, (i - 1) / 10 + 1));
  }));
}

std::optional<TupleId> Lookup(Database& db, int32_t aid) {
  std::optional<TupleId> tid;
  ExpectOk(db.Run([&](Transaction& txn) { tid = txn.Find("acc", {Value::Integer(aid)}); }));
  return tid;
}

TxnResult AddKey(Database& db, std::vector<ColumnId> key) {
  return db.Run([&](Transaction& txn) { txn.AddPrimaryKey("acc", key); });
}

TEST(AddPrimaryKey, BuildsTheIndexOverExistingRowsAndEnforcesIt) {
  TempDir dir;
  auto db = Database::Open(dir.path());
  Fill(*db, 1000);
  const uint64_t version = db->schemas()->schema_version();
  ExpectOk(AddKey(*db, {ColumnId(0)}));
  ASSERT_TRUE(Lookup(*db, 517).has_value());
  EXPECT_FALSE(Lookup(*db, 1001).has_value());
  TxnResult dup = db->Run([](Transaction& txn) { txn.Insert("acc", Acc(5, 1)); });
  EXPECT_EQ(dup.sqlstate, "23505");
  EXPECT_EQ(dup.message,
            "duplicate key value violates unique constraint \"acc_pkey\"\nDETAIL:  Key (aid)=(5) "
            "already exists.");
  TxnResult null = db->Run([](Transaction& txn) {
    txn.Insert("acc", {Value::Null(Type::Integer()), Value::Integer(1), Value::Integer(0)});
  });
  EXPECT_EQ(null.sqlstate, "23502");
  // The key column became NOT NULL, and the published schema copy has the key.
  std::shared_ptr<const Catalog> schemas = db->schemas();
  EXPECT_GT(schemas->schema_version(), version);
  const Table* copy = schemas->FindTable("acc");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->schema().primary_key, std::vector<ColumnId>{ColumnId(0)});
  EXPECT_TRUE(copy->schema().columns[0].not_null);
  EXPECT_EQ(copy->live_row_count(), 0u);  // schemas only
  // A second key: 42P16.
  TxnResult again = AddKey(*db, {ColumnId(1)});
  EXPECT_EQ(again.sqlstate, "42P16");
  EXPECT_EQ(again.message, "multiple primary keys for table \"acc\" are not allowed");
}

TEST(AddPrimaryKey, DuplicatesAndNullsChangeNothing) {
  TempDir dir;
  auto db = Database::Open(dir.path());
  Fill(*db, 100);
  ExpectOk(db->Run([](Transaction& txn) { txn.Insert("acc", Acc(5, 1)); }));
  TxnResult dup = AddKey(*db, {ColumnId(0)});
  EXPECT_EQ(dup.sqlstate, "23505");
  EXPECT_EQ(dup.message,
            "could not create unique index \"acc_pkey\"\nDETAIL:  Key (aid)=(5) is duplicated.");
  TxnResult composite = AddKey(*db, {ColumnId(1), ColumnId(2)});
  EXPECT_EQ(composite.sqlstate, "23505");
  EXPECT_EQ(composite.message,
            "could not create unique index \"acc_pkey\"\nDETAIL:  Key (bid, abalance)=(1, 0) is "
            "duplicated.");
  ExpectOk(db->Run([](Transaction& txn) {
    txn.Insert("acc", {Value::Integer(101), Value::Null(Type::Integer()), Value::Integer(0)});
  }));
  TxnResult null = AddKey(*db, {ColumnId(1)});
  EXPECT_EQ(null.sqlstate, "23502");
  EXPECT_EQ(null.message, "column \"bid\" of relation \"acc\" contains null values");
  EXPECT_EQ(AddKey(*db, {ColumnId(7)}).sqlstate, "42P16");
  // Nothing changed: no key, duplicates still insertable.
  ExpectOk(db->Run([](Transaction& txn) {
    EXPECT_TRUE(txn.GetTable("acc").schema().primary_key.empty());
    EXPECT_FALSE(txn.GetTable("acc").schema().columns[0].not_null);
    txn.Insert("acc", Acc(5, 2));
  }));
}

TEST(AddPrimaryKey, RollbackRemovesTheKey) {
  TempDir dir;
  auto db = Database::Open(dir.path());
  Fill(*db, 50);
  TxnResult r = db->Run([](Transaction& txn) {
    txn.AddPrimaryKey("acc", {ColumnId(0)});
    EXPECT_TRUE(txn.Find("acc", {Value::Integer(7)}).has_value());
    txn.Abort("undo it");
  });
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(Lookup(*db, 7).has_value());  // no key, no index
  EXPECT_TRUE(db->schemas()->FindTable("acc")->schema().primary_key.empty());
  ExpectOk(db->Run([](Transaction& txn) { txn.Insert("acc", Acc(7, 1)); }));  // a duplicate is fine
}

TEST(AddPrimaryKey, SurvivesReplayOfTheLogAlone) {
  TempDir dir;
  {
    auto db = Database::Open(dir.path());
    Fill(*db, 300);
    EXPECT_FALSE(AddKey(*db, {ColumnId(1)}).ok);  // a failed attempt logs nothing
    ExpectOk(AddKey(*db, {ColumnId(0)}));
    // Rows after the key: replay must check them against the rebuilt index.
    ExpectOk(db->Run([](Transaction& txn) { txn.Insert("acc", Acc(301, 31)); }));
  }
  auto db = Database::Open(dir.path());
  EXPECT_FALSE(db->recovery_report().has_checkpoint);
  ASSERT_TRUE(Lookup(*db, 301).has_value());
  ASSERT_TRUE(Lookup(*db, 1).has_value());
  EXPECT_EQ(db->Run([](Transaction& txn) { txn.Insert("acc", Acc(9, 1)); }).sqlstate, "23505");
  EXPECT_EQ(db->schemas()->FindTable("acc")->schema().primary_key,
            std::vector<ColumnId>{ColumnId(0)});
}

TEST(AddPrimaryKey, SurvivesACheckpoint) {
  TempDir dir;
  {
    auto db = Database::Open(dir.path());
    Fill(*db, 300);
    ExpectOk(AddKey(*db, {ColumnId(0)}));
    db->Checkpoint();
    ExpectOk(db->Run([](Transaction& txn) { txn.Insert("acc", Acc(400, 40)); }));
  }
  auto db = Database::Open(dir.path());
  EXPECT_TRUE(db->recovery_report().has_checkpoint);
  ASSERT_TRUE(Lookup(*db, 400).has_value());
  ASSERT_TRUE(Lookup(*db, 150).has_value());
  EXPECT_EQ(db->Run([](Transaction& txn) { txn.Insert("acc", Acc(150, 1)); }).sqlstate, "23505");
  EXPECT_EQ(db->Run([](Transaction& txn) { txn.AddPrimaryKey("acc", {ColumnId(1)}); }).sqlstate,
            "42P16");
}

}  // namespace
}  // namespace forktail
