// Redo payload codec and replay (recovery/redo_codec.h, replay.h).
#include <gtest/gtest.h>

#include "recovery/redo_codec.h"
#include "recovery/replay.h"
#include "recovery/replay_driver.h"
#include "tests/recovery/wal_test_util.h"

namespace forktail::redo {
namespace {

TEST(ReplayCodecTest, ValuesRoundTripEveryType) {
  Row row = {Value::Boolean(true),
             Value::SmallInt(-7),
             Value::Integer(123456),
             Value::BigInt(INT64_MIN),
             Value::BigInt(INT64_MAX),
             Value::Double(-0.1),
             Value::Decimal(-12345, 10, 2),
             Value::String(Type::Char(5), "ab   "),
             Value::String(Type::Varchar(9), "hello"),
             Value::Text(std::string(300, 'x')),
             Value::Date(-3),
             Value::Timestamp(1700000000000000),
             Value::Null(Type::Decimal(5, 1)),
             Value::Null(Type::Varchar(3)),
             Value::String(Type::ArrayText(Type::Integer()), "{1,NULL}"),
             Value::Parse(Type::Time(), "14:07:09.5"),
             Value::Parse(Type::Json(), "{\"k\":  1,  \"k\": [2]}"),
             Value::Null(Type::ArrayText(Type::Date()))};
  std::string bytes = EncodeInsert(TableId(3), {BlockNo(1), SlotNo(2)}, row);
  InsertRecord r;
  ASSERT_TRUE(DecodeInsert(bytes, &r).ok());
  EXPECT_EQ(r.table, TableId(3));
  EXPECT_EQ(r.tid, (TupleId{BlockNo(1), SlotNo(2)}));
  ASSERT_EQ(r.row.size(), row.size());
  for (size_t i = 0; i < row.size(); i++) {
    EXPECT_EQ(r.row[i].type(), row[i].type()) << i;
    EXPECT_EQ(r.row[i].is_null(), row[i].is_null()) << i;
    if (!row[i].is_null()) {
      EXPECT_EQ(r.row[i], row[i]) << i;
    }
  }
}

// A value its type cannot hold is a malformed payload: such a date used to
// overflow when cast to a timestamp in replay (found by fuzz/redo_record).
TEST(ReplayCodecTest, ValuesOutsideTheirTypeAreMalformed) {
  auto decodes = [](const Value& v) {
    std::string bytes;
    EncodeValue(v, &bytes);
    Value out;
    return Decoder(bytes).ReadValue(&out);
  };
  EXPECT_TRUE(decodes(Value::Date(datetime::kMaxDate)));
  EXPECT_FALSE(decodes(Value::Date(datetime::kMaxDate + 1)));
  EXPECT_FALSE(decodes(Value::Date(datetime::kMinDate - 1)));
  EXPECT_TRUE(decodes(Value::Timestamp(datetime::kMinTimestamp)));
  EXPECT_FALSE(decodes(Value::Timestamp(datetime::kMaxTimestamp + 1)));
  EXPECT_FALSE(decodes(Value::TimestampTz(INT64_MIN)));
  EXPECT_TRUE(decodes(Value::Decimal(99999, 5, 2)));
  EXPECT_FALSE(decodes(Value::Decimal(100000, 5, 2)));
  std::string bytes;
  EncodeValue(Value::BigInt(int64_t{1} << 40), &bytes);
  bytes[0] = static_cast<char>(TypeId::kInteger);
  Value out;
  EXPECT_FALSE(Decoder(bytes).ReadValue(&out));
  // An array's element tag must name a type; the array bit only on TEXT.
  std::string array;
  EncodeValue(Value::String(Type::ArrayText(Type::Integer()), "{1}"), &array);
  EXPECT_TRUE(Decoder(array).ReadValue(&out));
  std::string bad_element = array;
  bad_element[1] = static_cast<char>(0x7f);
  EXPECT_FALSE(Decoder(bad_element).ReadValue(&out));
  std::string bad_base = array;
  bad_base[0] = static_cast<char>(bad_base[0] ^ static_cast<char>(TypeId::kText) ^
                                  static_cast<char>(TypeId::kBigInt));
  EXPECT_FALSE(Decoder(bad_base).ReadValue(&out));
}

TEST(ReplayCodecTest, EveryTruncationAndSchemaRoundTrip) {
  TableSchema schema{"t",
                     {{"a", Type::Decimal(12, 3), true},
                      {"b", Type::Char(4)},
                      {"c", Type::Text()},
                      {"d", Type::ArrayText(Type::Interval())}},
                     {ColumnId(0), ColumnId(1)}};
  TableOptions o;
  o.max_rows_per_block = 64;
  std::string bytes = EncodeCreateTable(TableId(9), o, schema);
  CreateTableRecord r;
  ASSERT_TRUE(DecodeCreateTable(bytes, &r).ok());
  EXPECT_EQ(r.schema, schema);
  EXPECT_EQ(r.options.max_rows_per_block, 64u);
  for (size_t n = 0; n < bytes.size(); n++) {
    EXPECT_FALSE(DecodeCreateTable(bytes.substr(0, n), &r).ok()) << n;
  }
  // The optional sections: UNIQUE constraints and column DEFAULTs.
  TableSchema rich = schema;
  rich.columns[2].default_sql = "'x' || 'y'";
  rich.columns[0].identity = ColumnIdentity::kAlways;
  rich.indexes.push_back({"t_c_key", {ColumnId(2)}, true, true});
  ForeignKeyDef fk;
  fk.name = "t_c_fkey";
  fk.columns = {ColumnId(2), ColumnId(0)};
  fk.referenced_table = "u";
  fk.referenced_columns = {ColumnId(1), ColumnId(0)};
  fk.on_delete = ForeignKeyAction::kSetDefault;
  fk.on_update = ForeignKeyAction::kRestrict;
  fk.match_full = true;
  fk.delete_set_columns = {ColumnId(2)};
  rich.foreign_keys.push_back(fk);
  std::string rich_bytes = EncodeCreateTable(TableId(9), o, rich);
  ASSERT_TRUE(DecodeCreateTable(rich_bytes, &r).ok());
  EXPECT_EQ(r.schema, rich);
  EXPECT_FALSE(DecodeCreateTable(rich_bytes.substr(0, rich_bytes.size() - 3), &r).ok());
  EXPECT_FALSE(DecodeCreateTable(rich_bytes + "\x07", &r).ok());  // an unknown section
  ViewDef view{"v",
               "SELECT a, d FROM t",
               {"a", "d"},
               {Type::Decimal(12, 3), Type::ArrayText(Type::BigInt())},
               {"t"}};
  ViewDef back;
  ASSERT_TRUE(DecodeCreateView(EncodeCreateView(view), &back).ok());
  EXPECT_EQ(back, view);
  std::string dropped;
  ASSERT_TRUE(DecodeDropView(EncodeDropView("v"), &dropped).ok());
  EXPECT_EQ(dropped, "v");
  std::string upd = EncodeUpdate(TableId(1), {BlockNo(0), SlotNo(1)}, {BlockNo(2), SlotNo(0)},
                                 {{ColumnId(1), Value::Text("z")}});
  UpdateRecord u;
  ASSERT_TRUE(DecodeUpdate(upd, &u).ok());
  EXPECT_EQ(u.new_tid, (TupleId{BlockNo(2), SlotNo(0)}));
  for (size_t n = 0; n < upd.size(); n++) EXPECT_FALSE(DecodeUpdate(upd.substr(0, n), &u).ok());
  EXPECT_FALSE(DecodeUpdate(upd + "x", &u).ok());
}

TEST(ReplayCodecTest, ForeignKeyRecordsRoundTripAndTruncations) {
  ForeignKeyDef fk;
  fk.name = "c_pid_fkey";
  fk.columns = {ColumnId(1)};
  fk.referenced_table = "p";
  fk.referenced_columns = {ColumnId(0)};
  fk.on_delete = ForeignKeyAction::kCascade;
  std::string bytes = EncodeAddForeignKey(TableId(3), fk);
  AddForeignKeyRecord r;
  ASSERT_TRUE(DecodeAddForeignKey(bytes, &r).ok());
  EXPECT_EQ(r.table, TableId(3));
  EXPECT_EQ(r.foreign_key, fk);
  for (size_t n = 0; n < bytes.size(); n++) {
    EXPECT_FALSE(DecodeAddForeignKey(bytes.substr(0, n), &r).ok()) << n;
  }
  EXPECT_FALSE(DecodeAddForeignKey(bytes + "x", &r).ok());
  std::string unknown_action = bytes;
  unknown_action[unknown_action.size() - 4] = 'z';  // on delete
  EXPECT_FALSE(DecodeAddForeignKey(unknown_action, &r).ok());
  DropConstraintRecord d;
  ASSERT_TRUE(DecodeDropConstraint(EncodeDropConstraint(TableId(3), "c_pid_fkey"), &d).ok());
  EXPECT_EQ(d.table, TableId(3));
  EXPECT_EQ(d.name, "c_pid_fkey");
}

TEST(ReplayCodecTest, AddPrimaryKeyRoundTripAndTruncations) {
  std::vector<ColumnId> key = {ColumnId(2), ColumnId(0)};
  std::string bytes = EncodeAddPrimaryKey(TableId(7), key);
  AddPrimaryKeyRecord r;
  ASSERT_TRUE(DecodeAddPrimaryKey(bytes, &r).ok());
  EXPECT_EQ(r.table, TableId(7));
  EXPECT_EQ(r.key, key);
  for (size_t n = 0; n < bytes.size(); n++) {
    EXPECT_FALSE(DecodeAddPrimaryKey(bytes.substr(0, n), &r).ok()) << n;
  }
  EXPECT_FALSE(DecodeAddPrimaryKey(bytes + "x", &r).ok());
  EXPECT_FALSE(DecodeAddPrimaryKey(EncodeAddPrimaryKey(TableId(7), {}), &r).ok());  // no columns
}

wal::LogRecord Rec(wal::Lsn lsn, wal::TxnId txn, wal::RecordType type, const std::string& p) {
  wal::LogRecord r;
  r.lsn = lsn;
  r.txn = txn;
  r.type = type;
  r.payload = p;
  return r;
}

TEST(ReplayerTest, AppliesOnlyCommittedTransactionsAndChecksTids) {
  TableSchema schema{"t", {{"k", Type::Integer(), true}, {"v", Type::Text()}}, {ColumnId(0)}};
  std::string create = EncodeCreateTable(TableId(1), {}, schema);
  std::string ins0 =
      EncodeInsert(TableId(1), {BlockNo(0), SlotNo(0)}, {Value::Integer(1), Value::Text("a")});
  std::string ins1 =
      EncodeInsert(TableId(1), {BlockNo(0), SlotNo(1)}, {Value::Integer(2), Value::Text("b")});
  std::string upd = EncodeUpdate(TableId(1), {BlockNo(0), SlotNo(0)}, {BlockNo(0), SlotNo(0)},
                                 {{ColumnId(1), Value::Text("c")}});
  Catalog catalog;
  Replayer r(&catalog);
  ASSERT_TRUE(r.Add(Rec(0, 1, wal::RecordType::kCreateTable, create)).ok());
  ASSERT_TRUE(r.Add(Rec(1, 1, wal::RecordType::kInsert, ins0)).ok());
  ASSERT_TRUE(r.Add(Rec(2, 1, wal::RecordType::kCommit, "")).ok());
  ASSERT_TRUE(r.Add(Rec(3, 2, wal::RecordType::kInsert, ins1)).ok());  // never commits
  ASSERT_TRUE(r.Add(Rec(4, 3, wal::RecordType::kUpdate, upd)).ok());
  ASSERT_TRUE(r.Add(Rec(5, 3, wal::RecordType::kCommit, "")).ok());
  r.Finish();
  EXPECT_EQ(r.stats().committed_txns, 2u);
  EXPECT_EQ(r.stats().dropped_txns, 1u);
  Table& t = *catalog.FindTable("t");
  EXPECT_EQ(t.live_row_count(), 1u);
  EXPECT_EQ((*t.Read({BlockNo(0), SlotNo(0)}))[1], Value::Text("c"));
  // A record that does not land where the log says is corruption with its LSN.
  std::string bad = EncodeUpdate(TableId(1), {BlockNo(0), SlotNo(0)}, {BlockNo(5), SlotNo(0)},
                                 {{ColumnId(1), Value::Text("d")}});
  ASSERT_TRUE(r.Add(Rec(100, 4, wal::RecordType::kUpdate, bad)).ok());
  Status s = r.Add(Rec(101, 4, wal::RecordType::kCommit, ""));
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_NE(s.message().find("LSN 100"), std::string::npos) << s.message();
  // So is an update of a column the table does not have (it read past the
  // schema's columns; found by fuzz/wal_log).
  Replayer r2(&catalog);
  std::string past = EncodeUpdate(TableId(1), {BlockNo(0), SlotNo(0)}, {BlockNo(0), SlotNo(0)},
                                  {{ColumnId(7), Value::Text("e")}});
  ASSERT_TRUE(r2.Add(Rec(102, 5, wal::RecordType::kUpdate, past)).ok());
  s = r2.Add(Rec(103, 5, wal::RecordType::kCommit, ""));
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_NE(s.message().find("update of column 7 of table \"t\", which has 2 columns"),
            std::string::npos)
      << s.message();
  EXPECT_EQ((*t.Read({BlockNo(0), SlotNo(0)}))[1], Value::Text("c"));
  // And an insert at a tid no run could have produced: a taken slot, a slot
  // past the block's capacity, a block far past the last (this aborted, wrote
  // past the block, or added blocks without end; found by fuzz/).
  for (TupleId tid : {TupleId{BlockNo(0), SlotNo(0)}, TupleId{BlockNo(0), SlotNo(UINT32_MAX)},
                      TupleId{BlockNo(4'000'000'000u), SlotNo(0)}}) {
    Replayer r3(&catalog);
    std::string ins = EncodeInsert(TableId(1), tid, {Value::Integer(9), Value::Text("x")});
    ASSERT_TRUE(r3.Add(Rec(104, 6, wal::RecordType::kInsert, ins)).ok());
    s = r3.Add(Rec(105, 6, wal::RecordType::kCommit, ""));
    EXPECT_EQ(s.code(), Status::Code::kCorruption) << tid.ToString();
    EXPECT_NE(s.message().find("redo of a row at"), std::string::npos) << s.message();
  }
  EXPECT_EQ(t.live_row_count(), 1u);
  EXPECT_EQ(t.block_count(), 1u);
}

TEST(ReplayerTest, CreateTableBurnsIdsOfRolledBackCreates) {
  Catalog catalog;
  Replayer r(&catalog);
  TableSchema schema{"t", {{"k", Type::Integer()}}, {}};
  ASSERT_TRUE(
      r.Add(Rec(0, 1, wal::RecordType::kCreateTable, EncodeCreateTable(TableId(4), {}, schema)))
          .ok());
  ASSERT_TRUE(r.Add(Rec(1, 1, wal::RecordType::kCommit, "")).ok());
  EXPECT_EQ(catalog.FindTable("t")->id(), TableId(4));
  EXPECT_EQ(catalog.size(), 1u);
}

TEST(ReplayerTest, AddPrimaryKeyAppliesAtCommitAndAKeyThatCannotHoldIsCorruption) {
  Catalog catalog;
  Replayer r(&catalog);
  TableSchema schema{"t", {{"k", Type::Integer()}}, {}};
  const TupleId t0{BlockNo(0), SlotNo(0)}, t1{BlockNo(0), SlotNo(1)};
  ASSERT_TRUE(
      r.Add(Rec(0, 1, wal::RecordType::kCreateTable, EncodeCreateTable(TableId(1), {}, schema)))
          .ok());
  ASSERT_TRUE(
      r.Add(Rec(1, 1, wal::RecordType::kInsert, EncodeInsert(TableId(1), t0, {Value::Integer(5)})))
          .ok());
  ASSERT_TRUE(r.Add(Rec(2, 1, wal::RecordType::kCommit, "")).ok());
  // Without its commit record the key is never added.
  ASSERT_TRUE(r.Add(Rec(3, 2, wal::RecordType::kCreateIndex,
                        EncodeAddPrimaryKey(TableId(1), {ColumnId(0)})))
                  .ok());
  ASSERT_TRUE(
      r.Add(Rec(4, 3, wal::RecordType::kInsert, EncodeInsert(TableId(1), t1, {Value::Integer(5)})))
          .ok());
  ASSERT_TRUE(r.Add(Rec(5, 3, wal::RecordType::kCommit, "")).ok());
  EXPECT_TRUE(catalog.FindTable("t")->schema().primary_key.empty());
  // A logged key over duplicate rows cannot be replayed: corruption at its LSN.
  ASSERT_TRUE(r.Add(Rec(6, 4, wal::RecordType::kCreateIndex,
                        EncodeAddPrimaryKey(TableId(1), {ColumnId(0)})))
                  .ok());
  Status s = r.Add(Rec(7, 4, wal::RecordType::kCommit, ""));
  EXPECT_EQ(s.code(), Status::Code::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find("LSN 6"), std::string::npos) << s.message();
}

TEST(ReplayCodecTest, AlterTableRoundTripAndTruncations) {
  TableSchema schema{"t", {{"id", Type::Integer(), true}, {"c", Type::Text()}}, {ColumnId(0)}};
  schema.columns[1].default_sql = "'x'";
  schema.checks.push_back({"t_c_check", "length(c) < 5"});
  schema.comment = "the table";  // COMMENT ON TABLE / COLUMN
  schema.columns[1].comment = "a column";
  const std::vector<ColumnSource> sources = {ColumnSource::Column(ColumnId(1)),
                                             ColumnSource::Constant(Value::Text("x"))};
  std::string bytes = EncodeRewriteTable(TableId(3), TableId(8), 16, schema, sources);
  AlterTableRecord r;
  ASSERT_TRUE(DecodeAlterTable(bytes, &r).ok());
  EXPECT_TRUE(r.rewrite);
  EXPECT_EQ(r.table, TableId(3));
  EXPECT_EQ(r.new_table, TableId(8));
  EXPECT_EQ(r.options.max_rows_per_block, 16u);
  EXPECT_EQ(r.schema, schema);
  ASSERT_EQ(r.sources.size(), 2u);
  EXPECT_EQ(r.sources[0].kind, ColumnSource::Kind::kColumn);
  EXPECT_EQ(r.sources[0].column, ColumnId(1));
  EXPECT_EQ(r.sources[1].constant, Value::Text("x"));
  // Every cut is corruption, as long as the schema has no optional sections
  // (a record cut at a section boundary reads as one written before it).
  TableSchema plain{"t", {{"id", Type::Integer(), true}}, {ColumnId(0)}};
  std::string plain_bytes = EncodeRewriteTable(TableId(3), TableId(8), 0, plain, {sources[1]});
  ASSERT_TRUE(DecodeAlterTable(plain_bytes, &r).ok());
  for (size_t n = 0; n < plain_bytes.size(); n++) {
    EXPECT_FALSE(DecodeAlterTable(plain_bytes.substr(0, n), &r).ok()) << n;
  }
  EXPECT_FALSE(DecodeAlterTable(plain_bytes + "\x09", &r).ok());
  std::string in_place = EncodeReplaceSchema(TableId(3), schema);
  ASSERT_TRUE(DecodeAlterTable(in_place, &r).ok());
  EXPECT_FALSE(r.rewrite);
  EXPECT_EQ(r.schema, schema);
  EXPECT_TRUE(r.sources.empty());
  // A source list that does not match the schema's columns is corruption.
  EXPECT_FALSE(
      DecodeAlterTable(EncodeRewriteTable(TableId(3), TableId(8), 0, schema, {sources[0]}), &r)
          .ok());
}

// Ids skipped by rolled-back CREATE TABLEs cost nothing: the table is created
// at the logged id, however far (a corrupt id of 600,000 used to take
// minutes of creating and dropping tables; found by fuzz/redo_record), and a
// logged id already taken is corruption.
TEST(ReplayerTest, CreateTableTakesTheLoggedIdAtOnce) {
  Catalog catalog;
  Replayer r(&catalog);
  TableSchema schema{"t", {{"k", Type::Integer()}}, {}};
  ASSERT_TRUE(r.Add(Rec(0, 1, wal::RecordType::kCreateTable,
                        EncodeCreateTable(TableId(4'000'000'000u), {}, schema)))
                  .ok());
  ASSERT_TRUE(r.Add(Rec(1, 1, wal::RecordType::kCommit, "")).ok());
  EXPECT_EQ(catalog.FindTable("t")->id(), TableId(4'000'000'000u));
  EXPECT_EQ(catalog.CreateTable({"u", {{"a", Type::Integer()}}, {}}).id(), TableId(4'000'000'001u));
  schema.name = "v";
  ASSERT_TRUE(
      r.Add(Rec(2, 2, wal::RecordType::kCreateTable, EncodeCreateTable(TableId(7), {}, schema)))
          .ok());
  Status s = r.Add(Rec(3, 2, wal::RecordType::kCommit, ""));
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_NE(s.message().find("ids up to 4000000001 are taken"), std::string::npos) << s.message();
  EXPECT_EQ(catalog.FindTable("v"), nullptr);
  // The last id cannot be taken: the counter would wrap to 0.
  schema.name = "w";
  Replayer r2(&catalog);
  ASSERT_TRUE(r2.Add(Rec(4, 3, wal::RecordType::kCreateTable,
                         EncodeCreateTable(TableId(UINT32_MAX), {}, schema)))
                  .ok());
  EXPECT_EQ(r2.Add(Rec(5, 3, wal::RecordType::kCommit, "")).code(), Status::Code::kCorruption);
}

TEST(ReplayerTest, AlterTableRewritesAtCommitWithTheLoggedTableId) {
  Catalog catalog;
  Replayer r(&catalog);
  TableSchema schema{"t", {{"k", Type::Integer()}}, {}};
  ASSERT_TRUE(
      r.Add(Rec(0, 1, wal::RecordType::kCreateTable, EncodeCreateTable(TableId(1), {}, schema)))
          .ok());
  for (int i = 0; i < 3; i++) {
    ASSERT_TRUE(r.Add(Rec(1 + i, 1, wal::RecordType::kInsert,
                          EncodeInsert(TableId(1), {BlockNo(0), SlotNo(static_cast<uint32_t>(i))},
                                       {Value::Integer(i)})))
                    .ok());
  }
  ASSERT_TRUE(r.Add(Rec(4, 1, wal::RecordType::kCommit, "")).ok());
  TableSchema wider = schema;
  wider.columns.push_back({"v", Type::Text()});
  // Ids 2 and 3 went to transactions that rolled back: the log says 4.
  ASSERT_TRUE(r.Add(Rec(5, 2, wal::RecordType::kAlterTable,
                        EncodeRewriteTable(TableId(1), TableId(4), 0, wider,
                                           {ColumnSource::Column(ColumnId(0)),
                                            ColumnSource::Constant(Value::Text("d"))})))
                  .ok());
  ASSERT_TRUE(r.Add(Rec(6, 2, wal::RecordType::kCommit, "")).ok());
  const Table& t = *catalog.FindTable("t");
  EXPECT_EQ(t.id(), TableId(4));
  EXPECT_EQ(*t.Read({BlockNo(0), SlotNo(2)}), (Row{Value::Integer(2), Value::Text("d")}));
  wider.name = "t2";
  ASSERT_TRUE(
      r.Add(Rec(7, 3, wal::RecordType::kAlterTable, EncodeReplaceSchema(TableId(4), wider))).ok());
  ASSERT_TRUE(r.Add(Rec(8, 3, wal::RecordType::kCommit, "")).ok());
  EXPECT_EQ(catalog.FindTable("t2"), &t);
  // The next table gets the next id after the rewrite's.
  EXPECT_EQ(catalog.CreateTable({"u", {{"a", Type::Integer()}}, {}}).id(), TableId(5));
}

TEST(RecoverDatabaseTest, CorruptionBeforeTheTailStopsRecovery) {
  wal::FaultInjectionLogFileSystem fs;
  TableSchema schema{"t", {{"k", Type::Integer()}}, {}};
  {
    std::unique_ptr<wal::LogWriter> w;
    ASSERT_TRUE(wal::LogWriter::Open("/db", wal::testing::FaultOptions(&fs, 1 << 20), &w).ok());
    ASSERT_TRUE(w->Append(wal::RecordType::kCreateTable, 1,
                          EncodeCreateTable(TableId(1), {}, schema), nullptr)
                    .ok());
    ASSERT_TRUE(w->Append(wal::RecordType::kCommit, 1, "", nullptr).ok());
    for (int i = 0; i < 3; i++) {
      ASSERT_TRUE(w->Append(wal::RecordType::kInsert, 2 + i,
                            EncodeInsert(TableId(1), {BlockNo(0), SlotNo(static_cast<uint32_t>(i))},
                                         {Value::Integer(i)}),
                            nullptr)
                      .ok());
      ASSERT_TRUE(w->Append(wal::RecordType::kCommit, 2 + i, "", nullptr).ok());
    }
    ASSERT_TRUE(w->Close().ok());
  }
  std::vector<wal::SegmentInfo> segs;
  ASSERT_TRUE(wal::ListSegments(&fs, "/db", &segs).ok());
  std::string data = fs.Contents(segs[0].path);
  Catalog ok_catalog;
  RecoveryReport report;
  ASSERT_TRUE(RecoverDatabase("/db", &fs, nullptr, nullptr, &ok_catalog, true, &report).ok());
  EXPECT_EQ(report.replay.committed_txns, 4u);
  data[wal::kSegmentHeaderSize + 50] ^= 1;
  fs.SetContents(segs[0].path, data);
  Catalog catalog;
  Status s = RecoverDatabase("/db", &fs, nullptr, nullptr, &catalog, false, &report);
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_NE(s.message().find("0000000000000000.wal"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace forktail::redo
