// Sequences below SQL: Transaction::CreateSequence / NextVal / SetVal /
// AlterSequence / DropSequence with their undo (a value handed out is never
// taken back, except by a dry run), what reaches the log (a failed
// transaction's sequence states too), recovery through the log and through
// a checkpoint, and the migration of identity columns made before sequences.
#include <gtest/gtest.h>

#include "recovery/redo_codec.h"
#include "recovery/wal/log_writer.h"
#include "tests/common/txn_test_util.h"

namespace forktail {
namespace {

using testing::ExpectOk;
using testing::TempDir;

TableId MakeSequence(Database& db, const std::string& name) {
  TableId id;
  ExpectOk(db.Run([&](Transaction& txn) {
    SequenceDef def;
    SequenceState state;
    ApplySequenceOptions({}, true, false, &def, &state);
    def.name = name;
    id = txn.CreateSequence(def, state);
  }));
  return id;
}

int64_t Next(Database& db, TableId id) {
  int64_t v = 0;
  ExpectOk(db.Run([&](Transaction& txn) { v = txn.NextVal(id); }));
  return v;
}

SequenceState StateOf(Database& db, TableId id) {
  SequenceState state;
  ExpectOk(db.Run([&](Transaction& txn) { state = txn.GetSequence(id).state; }));
  return state;
}

TEST(Sequences, ValuesHandedOutSurviveRollbackAndRestart) {
  TempDir dir;
  TableId s;
  {
    auto db = Database::Open(dir.path());
    s = MakeSequence(*db, "s");
    EXPECT_EQ(Next(*db, s), 1);
    // A failed transaction keeps the values it drew.
    TxnResult failed = db->Run([&](Transaction& txn) {
      EXPECT_EQ(txn.NextVal(s), 2);
      EXPECT_EQ(txn.NextVal(s), 3);
      txn.Abort("no");
    });
    EXPECT_FALSE(failed.ok);
    EXPECT_EQ(StateOf(*db, s), (SequenceState{3, true}));
    // A dry run gives its values back: the run again draws the same ones.
    ExpectOk(db->Run([&](Transaction& txn) {
      txn.DiscardOnReturn();
      EXPECT_EQ(txn.NextVal(s), 4);
      txn.SetVal(s, 100, true);
    }));
    EXPECT_EQ(StateOf(*db, s), (SequenceState{3, true}));
    // setval is not taken back either.
    EXPECT_FALSE(db->Run([&](Transaction& txn) {
                     txn.SetVal(s, 10, false);
                     txn.Abort("no");
                   }).ok);
  }
  // Nothing committed after the failures: their own log records carry them.
  auto db = Database::Open(dir.path());
  EXPECT_EQ(StateOf(*db, s), (SequenceState{10, false}));
  EXPECT_EQ(Next(*db, s), 10);
}

// A failed statement is undone (its redo dropped) while its transaction
// goes on: the values it drew stay used, through a commit and a restart,
// and a later full rollback still logs them.
TEST(Sequences, AFailedStatementKeepsItsValuesInACommittedTransaction) {
  TempDir dir;
  TableId s;
  {
    auto db = Database::Open(dir.path());
    s = MakeSequence(*db, "s");
    ExpectOk(db->Run([&](Transaction& txn) {
      try {
        Transaction::StatementScope statement(txn, nullptr);
        EXPECT_EQ(txn.NextVal(s), 1);
        EXPECT_EQ(txn.NextVal(s), 2);
        throw DbError("23505", "the statement fails");
      } catch (const DbError&) {
      }
      EXPECT_EQ(txn.GetSequence(s).state, (SequenceState{2, true}));
    }));
    EXPECT_FALSE(db->Run([&](Transaction& txn) {
                     try {
                       Transaction::StatementScope statement(txn, nullptr);
                       EXPECT_EQ(txn.NextVal(s), 3);
                       throw DbError("23505", "the statement fails");
                     } catch (const DbError&) {
                     }
                     txn.Abort("no");
                   }).ok);
  }
  auto db = Database::Open(dir.path());
  EXPECT_EQ(StateOf(*db, s), (SequenceState{3, true}));
  EXPECT_EQ(Next(*db, s), 4);
}

TEST(Sequences, DdlIsUndoneAndReplayed) {
  TempDir dir;
  TableId s;
  {
    auto db = Database::Open(dir.path());
    s = MakeSequence(*db, "s");
    Next(*db, s);
    SequenceDef renamed;
    // ALTER and DROP roll back with their transaction, values drawn after
    // an ALTER that rolls back go with it (as in PostgreSQL, whose ALTER
    // SEQUENCE makes a new relation file).
    EXPECT_FALSE(db->Run([&](Transaction& txn) {
                     SequenceDef def = txn.GetSequence(s).def;
                     def.name = "s2";
                     def.increment = 10;
                     txn.AlterSequence(s, def, {50, false});
                     EXPECT_EQ(txn.NextVal(s), 50);
                     EXPECT_EQ(txn.NextVal(s), 60);
                     txn.DropSequence(s);
                     txn.Abort("no");
                   }).ok);
    EXPECT_EQ(StateOf(*db, s), (SequenceState{1, true}));
    ExpectOk(db->Run([&](Transaction& txn) {
      SequenceDef def = txn.GetSequence(s).def;
      def.name = "s2";
      txn.AlterSequence(s, def, {7, true});
    }));
    const TableId gone = MakeSequence(*db, "gone");
    ExpectOk(db->Run([&](Transaction& txn) { txn.DropSequence(gone); }));
    EXPECT_EQ(db->Run([&](Transaction& txn) { txn.NextVal(gone); }).sqlstate, "42P01");
  }
  auto db = Database::Open(dir.path());
  ExpectOk(db->Run([&](Transaction&) {
    const Catalog& catalog = db->frozen_catalog();
    EXPECT_EQ(catalog.sequences().size(), 1u);
    ASSERT_NE(catalog.FindSequence("s2"), nullptr);
    EXPECT_EQ(catalog.FindSequence("s2")->state, (SequenceState{7, true}));
  }));
  // Through a checkpoint too.
  EXPECT_EQ(Next(*db, s), 8);
  db->Checkpoint();
  EXPECT_EQ(Next(*db, s), 9);
  db.reset();
  db = Database::Open(dir.path());
  EXPECT_EQ(Next(*db, s), 10);
}

// A database written before sequences: a SERIAL and an identity column,
// whose last values are per-table counters (kSetIdentity records).
void WriteLegacyLog(const std::string& dir) {
  TableSchema schema{
      "t",
      {{"id", Type::Integer(), true}, {"n", Type::BigInt(), true}, {"v", Type::Text()}},
      {ColumnId(0)}};
  schema.columns[0].identity = ColumnIdentity::kSerial;
  schema.columns[1].identity = ColumnIdentity::kAlways;
  std::unique_ptr<wal::LogWriter> w;
  ASSERT_TRUE(wal::LogWriter::Open(dir, wal::LogWriterOptions{}, &w).ok());
  // The payloads outlive the records that point at them.
  const std::vector<std::pair<wal::RecordType, std::string>> payloads = {
      {wal::RecordType::kCreateTable, redo::EncodeCreateTable(TableId(1), {}, schema)},
      {wal::RecordType::kSetIdentity, redo::EncodeSetIdentity(TableId(1), ColumnId(0), 1)},
      {wal::RecordType::kSetIdentity, redo::EncodeSetIdentity(TableId(1), ColumnId(1), 1)},
      {wal::RecordType::kInsert,
       redo::EncodeInsert(TableId(1), {BlockNo(0), SlotNo(0)},
                          {Value::Integer(1), Value::BigInt(1), Value::Text("a")})},
      {wal::RecordType::kSetIdentity, redo::EncodeSetIdentity(TableId(1), ColumnId(0), 5)},
      {wal::RecordType::kCommit, ""}};
  std::vector<wal::RecordInput> records;
  for (const auto& [type, payload] : payloads) records.push_back({type, 1, payload});
  std::vector<wal::Lsn> lsns;
  ASSERT_TRUE(w->Append(records, &lsns).ok());
  ASSERT_TRUE(w->WaitDurable(lsns.back()).ok());
  ASSERT_TRUE(w->Close().ok());
}

TEST(Sequences, IdentityColumnsMadeBeforeSequencesGetTheirsAtOpen) {
  TempDir dir;
  WriteLegacyLog(dir.path());
  auto check = [](Database& db) {
    ExpectOk(db.Run([&](Transaction& txn) {
      const Catalog& catalog = db.frozen_catalog();
      const Table& t = txn.GetTable("t");
      EXPECT_EQ(catalog.sequences().size(), 2u);
      const Sequence* serial = catalog.FindSequence("t_id_seq");
      ASSERT_NE(serial, nullptr);
      EXPECT_EQ(serial->def.type, TypeId::kInteger);
      EXPECT_EQ(serial->def.max, INT32_MAX);
      EXPECT_EQ(serial->def.owner_table, t.id());
      EXPECT_EQ(serial->def.owner_column, "id");
      EXPECT_FALSE(serial->def.identity);
      EXPECT_EQ(t.schema().columns[0].identity, ColumnIdentity::kNone);
      EXPECT_EQ(t.schema().columns[0].default_sql, "nextval('t_id_seq'::regclass)");
      const Sequence* identity = catalog.IdentitySequence(t.id(), "n");
      ASSERT_NE(identity, nullptr);
      EXPECT_EQ(identity->def.name, "t_n_seq");
      EXPECT_EQ(t.schema().columns[1].identity, ColumnIdentity::kAlways);
    }));
  };
  TableId serial;
  {
    auto db = Database::Open(dir.path());
    check(*db);
    serial = db->frozen_catalog().FindSequence("t_id_seq")->id;
    EXPECT_EQ(StateOf(*db, serial), (SequenceState{5, true}));
    EXPECT_EQ(Next(*db, serial), 6);
  }
  // The migration was logged: replayed once, not made again.
  auto db = Database::Open(dir.path());
  check(*db);
  EXPECT_EQ(Next(*db, serial), 7);
  const TableId n = db->frozen_catalog().FindSequence("t_n_seq")->id;
  EXPECT_EQ(Next(*db, n), 2);
}

}  // namespace
}  // namespace forktail
