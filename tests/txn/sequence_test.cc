// Sequences below SQL: Transaction::CreateSequence / NextVal / SetVal /
// AlterSequence / DropSequence with their undo (a value handed out is never
// taken back, except by a dry run), what reaches the log (a failed
// transaction's sequence states too), recovery through the log and through
// a checkpoint.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace forktail
