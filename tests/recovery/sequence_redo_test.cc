// Sequences' redo records (kCreateSequence, kAlterSequence, kDropSequence,
// kSetSequence): the codec, and replay with the logged ids.
#include <gtest/gtest.h>

#include "recovery/redo_codec.h"
#include "recovery/replay.h"

namespace forktail::redo {
namespace {

wal::LogRecord Rec(wal::Lsn lsn, wal::TxnId txn, wal::RecordType type, const std::string& p) {
  wal::LogRecord r;
  r.lsn = lsn;
  r.txn = txn;
  r.type = type;
  r.payload = p;
  return r;
}

Sequence Sample() {
  Sequence q;
  q.id = TableId(9);
  q.def.name = "t_id_seq";
  q.def.type = TypeId::kInteger;
  q.def.increment = -5;
  q.def.min = INT32_MIN;
  q.def.max = -1;
  q.def.start = -1;
  q.def.cache = 20;
  q.def.cycle = true;
  q.def.owner_table = TableId(8);
  q.def.owner_column = "id";
  q.def.identity = true;
  q.state = {INT32_MIN, true};
  return q;
}

TEST(SequenceRedoTest, RoundTripAndEveryTruncation) {
  const Sequence q = Sample();
  const std::string bytes = EncodeSequence(q);
  Sequence back;
  ASSERT_TRUE(DecodeSequence(bytes, &back).ok());
  EXPECT_EQ(back.id, q.id);
  EXPECT_EQ(back.def, q.def);
  EXPECT_EQ(back.state, q.state);
  for (size_t n = 0; n < bytes.size(); n++) {
    EXPECT_FALSE(DecodeSequence(bytes.substr(0, n), &back).ok()) << n;
  }
  EXPECT_FALSE(DecodeSequence(bytes + "x", &back).ok());
  const std::string set = EncodeSetSequence(TableId(9), {INT64_MIN, false});
  TableId id;
  SequenceState state;
  ASSERT_TRUE(DecodeSetSequence(set, &id, &state).ok());
  EXPECT_EQ(id, TableId(9));
  EXPECT_EQ(state, (SequenceState{INT64_MIN, false}));
  for (size_t n = 0; n < set.size(); n++) {
    EXPECT_FALSE(DecodeSetSequence(set.substr(0, n), &id, &state).ok()) << n;
  }
  EXPECT_EQ(wal::RecordTypeName(wal::RecordType::kSetSequence), "set_sequence");
}

TEST(SequenceRedoTest, ReplayCreatesWithTheLoggedIdAndAppliesChangesAtCommit) {
  Catalog catalog;
  Replayer r(&catalog);
  TableSchema schema{"t", {{"id", Type::Integer()}}, {}};
  ASSERT_TRUE(
      r.Add(Rec(0, 1, wal::RecordType::kCreateTable, EncodeCreateTable(TableId(8), {}, schema)))
          .ok());
  Sequence q = Sample();
  ASSERT_TRUE(r.Add(Rec(1, 1, wal::RecordType::kCreateSequence, EncodeSequence(q))).ok());
  ASSERT_TRUE(r.Add(Rec(2, 1, wal::RecordType::kCommit, "")).ok());
  ASSERT_NE(catalog.FindSequence("t_id_seq"), nullptr);
  EXPECT_EQ(catalog.FindSequence("t_id_seq")->id, TableId(9));
  // A state change without its commit is never applied.
  ASSERT_TRUE(
      r.Add(Rec(3, 2, wal::RecordType::kSetSequence, EncodeSetSequence(TableId(9), {-6, true})))
          .ok());
  ASSERT_TRUE(
      r.Add(Rec(4, 3, wal::RecordType::kSetSequence, EncodeSetSequence(TableId(9), {-11, true})))
          .ok());
  ASSERT_TRUE(r.Add(Rec(5, 3, wal::RecordType::kCommit, "")).ok());
  EXPECT_EQ(catalog.GetSequence(TableId(9))->state, (SequenceState{-11, true}));
  q.def.name = "renamed";
  q.state = {-1, false};
  ASSERT_TRUE(r.Add(Rec(6, 4, wal::RecordType::kAlterSequence, EncodeSequence(q))).ok());
  ASSERT_TRUE(r.Add(Rec(7, 4, wal::RecordType::kCommit, "")).ok());
  EXPECT_EQ(catalog.FindSequence("renamed")->state, (SequenceState{-1, false}));
  ASSERT_TRUE(r.Add(Rec(8, 5, wal::RecordType::kDropSequence, EncodeDropTable(TableId(9)))).ok());
  ASSERT_TRUE(r.Add(Rec(9, 5, wal::RecordType::kCommit, "")).ok());
  EXPECT_TRUE(catalog.sequences().empty());
  // A record for a sequence that does not exist is corruption with its LSN.
  ASSERT_TRUE(
      r.Add(Rec(10, 6, wal::RecordType::kSetSequence, EncodeSetSequence(TableId(9), {1, true})))
          .ok());
  Status s = r.Add(Rec(11, 6, wal::RecordType::kCommit, ""));
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_NE(s.message().find("LSN 10"), std::string::npos) << s.message();
  // The next table gets the id after the sequence's.
  EXPECT_EQ(catalog.CreateTable({"u", {{"a", Type::Integer()}}, {}}).id(), TableId(10));
}

}  // namespace
}  // namespace forktail::redo
