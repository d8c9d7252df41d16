// Foreign keys below SQL, through the embedded API: a stored procedure's
// writes are checked like SQL statements' (each write its own statement, or
// a Transaction::StatementScope around several), a failing write takes back
// only itself, actions cascade, a referenced table cannot be dropped while a
// table that stays references it, and ADD FOREIGN KEY / DROP CONSTRAINT are
// undone with their transaction and replayed from the log.
#include <gtest/gtest.h>

#include "tests/common/txn_test_util.h"

namespace forktail {
namespace {

using testing::Dump;
using testing::ExpectOk;
using testing::TempDir;

TableSchema Parent() {
  return {"p", {{"id", Type::BigInt(), true}, {"name", Type::Text()}}, {ColumnId(0)}};
}

ForeignKeyDef ToParent(std::string name, ForeignKeyAction on_delete = ForeignKeyAction::kNoAction) {
  ForeignKeyDef fk;
  fk.name = std::move(name);
  fk.columns = {ColumnId(1)};
  fk.referenced_table = "p";
  fk.referenced_columns = {ColumnId(0)};
  fk.on_delete = on_delete;
  return fk;
}

TableSchema Child(ForeignKeyAction on_delete = ForeignKeyAction::kNoAction) {
  TableSchema c{"c", {{"id", Type::BigInt(), true}, {"pid", Type::BigInt()}}, {ColumnId(0)}};
  c.foreign_keys.push_back(ToParent("c_pid_fkey", on_delete));
  return c;
}

Row R(int64_t a, std::optional<int64_t> b) {
  return {Value::BigInt(a), b ? Value::BigInt(*b) : Value::Null(Type::BigInt())};
}

void MakeTables(Database& db, ForeignKeyAction on_delete = ForeignKeyAction::kNoAction) {
  ExpectOk(db.Run([&](Transaction& txn) {
    txn.CreateTable(Parent());
    txn.CreateTable(Child(on_delete));
    txn.Insert("p", {Value::BigInt(1), Value::Text("one")});
    txn.Insert("p", {Value::BigInt(2), Value::Text("two")});
    txn.Insert("c", R(10, 1));
  }));
}

TEST(ForeignKeys, AProcedureWriteIsCheckedAndAFailingOneTakesBackOnlyItself) {
  TempDir dir;
  auto db = Database::Open(dir.path());
  MakeTables(*db);
  ExpectOk(db->Run([](Transaction& txn) {
    try {
      txn.Insert("c", R(11, 7));
      ADD_FAILURE() << "an orphan was inserted";
    } catch (const DbError& e) {
      EXPECT_STREQ(e.sqlstate(), "23503");
      EXPECT_STREQ(e.what(),
                   "insert or update on table \"c\" violates foreign key constraint \"c_pid_fkey\""
                   "\nDETAIL:  Key (pid)=(7) is not present in table \"p\".");
    }
    EXPECT_FALSE(txn.Find("c", {Value::BigInt(11)}));
    txn.Insert("c", R(12, 2));
    txn.Insert("c", R(13, std::nullopt));  // NULL references nothing
  }));
  EXPECT_EQ(Dump(*db, "c").size(), 3u);
  TxnResult r = db->Run([](Transaction& txn) { txn.DeleteByKey("p", {Value::BigInt(1)}); });
  EXPECT_EQ(r.sqlstate, "23503");
  EXPECT_EQ(r.message,
            "update or delete on table \"p\" violates foreign key constraint \"c_pid_fkey\" on "
            "table \"c\"\nDETAIL:  Key (id)=(1) is still referenced from table \"c\".");
  r = db->Run([](Transaction& txn) {
    txn.UpdateByKey("c", {Value::BigInt(10)}, {{"pid", Value::BigInt(3)}});
  });
  EXPECT_EQ(r.sqlstate, "23503");
  EXPECT_EQ(Dump(*db, "p").size(), 2u);
}

TEST(ForeignKeys, AStatementScopeChecksWhenItEndsAndUndoesItselfOnError) {
  TempDir dir;
  auto db = Database::Open(dir.path());
  MakeTables(*db);
  ExpectOk(db->Run([](Transaction& txn) {
    Transaction::StatementScope statement(txn, nullptr);
    txn.Insert("c", R(20, 3));  // its parent comes next
    txn.Insert("p", {Value::BigInt(3), Value::Text("three")});
    statement.End();
  }));
  ExpectOk(db->Run([](Transaction& txn) {
    txn.Insert("p", {Value::BigInt(4), Value::Text("four")});
    Transaction::StatementScope statement(txn, nullptr);
    txn.Insert("c", R(21, 4));
    txn.Insert("c", R(22, 5));
    EXPECT_THROW(statement.End(), DbError);
    // The statement's rows are gone, the write before it stays.
    EXPECT_FALSE(txn.Find("c", {Value::BigInt(21)}));
    EXPECT_TRUE(txn.Find("p", {Value::BigInt(4)}));
  }));
  EXPECT_EQ(Dump(*db, "p").size(), 4u);
  EXPECT_EQ(Dump(*db, "c").size(), 2u);
}

TEST(ForeignKeys, ActionsCascadeThroughTheTransaction) {
  TempDir dir;
  auto db = Database::Open(dir.path());
  MakeTables(*db, ForeignKeyAction::kCascade);
  ExpectOk(db->Run([](Transaction& txn) {
    TableSchema gc{"gc", {{"id", Type::BigInt(), true}, {"cid", Type::BigInt()}}, {ColumnId(0)}};
    ForeignKeyDef fk;
    fk.name = "gc_cid_fkey";
    fk.columns = {ColumnId(1)};
    fk.referenced_table = "c";
    fk.referenced_columns = {ColumnId(0)};
    fk.on_delete = ForeignKeyAction::kSetNull;
    gc.foreign_keys.push_back(fk);
    txn.CreateTable(gc);
    txn.Insert("gc", R(100, 10));
  }));
  ExpectOk(db->Run([](Transaction& txn) { txn.DeleteByKey("p", {Value::BigInt(1)}); }));
  EXPECT_TRUE(Dump(*db, "c").empty());
  EXPECT_EQ(Dump(*db, "gc"), (std::vector<Row>{R(100, std::nullopt)}));
}

TEST(ForeignKeys, ADefaultExpressionOutsideSqlIsRefused) {
  TempDir dir;
  auto db = Database::Open(dir.path());
  ExpectOk(db->Run([](Transaction& txn) {
    txn.CreateTable(Parent());
    TableSchema c = Child(ForeignKeyAction::kSetDefault);
    c.columns[1].default_sql = "1 + 1";
    txn.CreateTable(c);
    txn.Insert("p", {Value::BigInt(1), Value::Text("one")});
    txn.Insert("c", R(10, 1));
  }));
  TxnResult r = db->Run([](Transaction& txn) { txn.DeleteByKey("p", {Value::BigInt(1)}); });
  EXPECT_EQ(r.sqlstate, "0A000");
  EXPECT_EQ(Dump(*db, "p").size(), 1u);
}

TEST(ForeignKeys, AReferencedTableIsDroppedOnlyAfterWhatReferencesIt) {
  TempDir dir;
  auto db = Database::Open(dir.path());
  MakeTables(*db);
  TxnResult r = db->Run([](Transaction& txn) { txn.DropTable("p"); });
  EXPECT_EQ(r.sqlstate, "2BP01");
  EXPECT_EQ(r.message,
            "cannot drop table p because other objects depend on it\nDETAIL:  constraint "
            "c_pid_fkey on table c depends on table p");
  ExpectOk(db->Run([](Transaction& txn) {
    txn.DropTable("c");
    txn.DropTable("p");
  }));
}

TEST(ForeignKeys, AlterTableIsUndoneWithItsTransactionAndReplayedFromTheLog) {
  TempDir dir;
  {
    auto db = Database::Open(dir.path());
    MakeTables(*db);
    TxnResult bad = db->Run([](Transaction& txn) {
      txn.Insert("c", R(11, std::nullopt));
      txn.DropConstraint("c", "c_pid_fkey");
      txn.Insert("c", R(12, 99));
      txn.AddForeignKey("c", ToParent("again"));  // row 12 has no parent
    });
    EXPECT_EQ(bad.sqlstate, "23503");
    EXPECT_EQ(bad.message,
              "insert or update on table \"c\" violates foreign key constraint \"again\"\nDETAIL:  "
              "Key (pid)=(99) is not present in table \"p\".");
    TxnResult rolled_back = db->Run([](Transaction& txn) {
      txn.DropConstraint("c", "c_pid_fkey");
      txn.Abort("changed my mind");
    });
    EXPECT_FALSE(rolled_back.ok);
    ExpectOk(db->Run([](Transaction& txn) {
      EXPECT_EQ(txn.GetTable("c").schema().foreign_keys.size(), 1u);
      txn.AddForeignKey("c", ToParent("second", ForeignKeyAction::kCascade));
      txn.DropConstraint("c", "c_pid_fkey");
    }));
    TxnResult missing = db->Run([](Transaction& txn) { txn.DropConstraint("c", "c_pid_fkey"); });
    EXPECT_EQ(missing.sqlstate, "42704");
    EXPECT_EQ(missing.message, "constraint \"c_pid_fkey\" of relation \"c\" does not exist");
  }
  auto db = Database::Open(dir.path());  // from the log alone
  EXPECT_FALSE(db->recovery_report().has_checkpoint);
  ExpectOk(db->Run([](Transaction& txn) {
    const std::vector<ForeignKeyDef>& fks = txn.GetTable("c").schema().foreign_keys;
    ASSERT_EQ(fks.size(), 1u);
    EXPECT_EQ(fks[0], ToParent("second", ForeignKeyAction::kCascade));
    txn.DeleteByKey("p", {Value::BigInt(1)});  // cascades
  }));
  EXPECT_TRUE(Dump(*db, "c").empty());
}

}  // namespace
}  // namespace forktail
