#include <gtest/gtest.h>

#include "storage/storage.h"

namespace forktail {
namespace {

TableSchema AccountSchema() {
  return {"accounts",
          {{"id", Type::BigInt()},
           {"owner", Type::Varchar(40), true},
           {"balance", Type::Decimal(12, 2)},
           {"note", Type::Text()}},
          {ColumnId(0)}};
}

Row Account(int64_t id, std::string owner, int64_t cents, std::string note = "") {
  return {Value::BigInt(id), Value::Text(std::move(owner)), Value::Decimal(cents, 12, 2),
          note.empty() ? Value::Null(Type::Text()) : Value::Text(std::move(note))};
}

// Everything observable about a table, to prove that a failed call changed nothing.
struct Fingerprint {
  std::vector<std::string> rows;
  uint64_t live;
  size_t blocks;
  size_t index_size;
  size_t order_size;  // the primary key's ordered index
  std::vector<uint64_t> versions;
  bool operator==(const Fingerprint&) const = default;
};

Fingerprint Print(const Table& t) {
  Fingerprint f{{},
                t.live_row_count(),
                t.block_count(),
                t.index().size(),
                t.key_order_index() ? t.key_order_index()->size() : 0,
                {}};
  t.ForEachBlock([&](const BlockRef& block, const BlockReadView& view) {
    f.versions.push_back(block->version());
    f.versions.push_back(block->header().heap_used);
    for (uint32_t r = 0; r < view.row_count(); r++) {
      std::string s = view.is_deleted(r) ? "D" : "L";
      for (size_t c = 0; c < t.schema().column_count(); c++) {
        Value v = block->GetCell(ColumnId(c), SlotNo(r));
        s += "|" + (v.is_null() ? std::string("NULL") : v.ToString());
      }
      f.rows.push_back(s);
    }
  });
  return f;
}

void ExpectError(const std::function<void()>& fn, const char* state, const std::string& msg) {
  try {
    fn();
    ADD_FAILURE() << "no error, expected " << state << " " << msg;
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), state);
    EXPECT_EQ(std::string(e.what()), msg);
  }
}

TEST(Table, InsertReadLookup) {
  Table t(TableId(1), AccountSchema());
  TupleId a = t.Insert(Account(1, "ann", 1050, "first"));
  TupleId b = t.Insert({Value::Integer(2), Value::Text("bob"), Value::Text("7.5"),
                        Value::Null(Type::Text())});  // casts: INTEGER->BIGINT, text->decimal
  EXPECT_EQ(a, (TupleId{BlockNo(0), SlotNo(0)}));
  EXPECT_EQ(b, (TupleId{BlockNo(0), SlotNo(1)}));
  Row row = *t.Read(b);
  EXPECT_EQ(row[0].type(), Type::BigInt());
  EXPECT_EQ(row[2].GetInt(), 750);
  EXPECT_EQ(row[2].ToString(), "7.50");
  EXPECT_TRUE(row[3].is_null());
  EXPECT_EQ(t.ReadColumn(a, ColumnId(3))->GetString(), "first");
  EXPECT_EQ(t.LookupKey({Value::BigInt(2)}), b);
  EXPECT_EQ(t.LookupKey({Value::Integer(1)}), a);
  EXPECT_FALSE(t.LookupKey({Value::BigInt(3)}));
  EXPECT_FALSE(t.Read({BlockNo(0), SlotNo(2)}));
  EXPECT_FALSE(t.Read({BlockNo(9), SlotNo(0)}));
  EXPECT_EQ(t.live_row_count(), 2u);
}

TEST(Table, InsertErrorsChangeNothing) {
  Table t(TableId(1), AccountSchema());
  t.Insert(Account(1, "ann", 100));
  Fingerprint before = Print(t);
  ExpectError([&] { t.Insert(Account(1, "again", 5)); }, sqlstate::kUniqueViolation,
              "duplicate key value violates unique constraint \"accounts_pkey\"\nDETAIL:  Key "
              "(id)=(1) already exists.");
  ExpectError(
      [&] {
        t.Insert({Value::BigInt(2), Value::Null(Type::Text()), Value::Null(Type::Text()),
                  Value::Null(Type::Text())});
      },
      sqlstate::kNotNullViolation,
      "null value in column \"owner\" of relation \"accounts\" violates not-null constraint");
  ExpectError(
      [&] {
        t.Insert({Value::Null(Type::BigInt()), Value::Text("x"), Value::Null(Type::Text()),
                  Value::Null(Type::Text())});
      },
      sqlstate::kNotNullViolation,
      "null value in column \"id\" of relation \"accounts\" violates not-null constraint");
  ExpectError(
      [&] {
        t.Insert({Value::BigInt(3), Value::Text("x")});
      },
      sqlstate::kSyntaxError, "INSERT has more target columns than expressions");
  ExpectError(
      [&] {
        t.Insert({Value::BigInt(3), Value::Text("x"), Value::Null(Type::Text()),
                  Value::Null(Type::Text()), Value::BigInt(1)});
      },
      sqlstate::kSyntaxError, "INSERT has more expressions than target columns");
  ExpectError([&] { t.Insert(Account(4, std::string(41, 'x'), 1)); },
              sqlstate::kStringDataRightTruncation,
              "value too long for type character varying(40)");
  try {
    t.Insert({Value::BigInt(5), Value::Text("x"), Value::Text("abc"), Value::Null(Type::Text())});
    ADD_FAILURE();
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kInvalidTextRepresentation);
  }
  try {
    t.Insert(Account(6, "x", 1, std::string(3 << 20, 'z')));
    ADD_FAILURE();
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kProgramLimitExceeded);
  }
  EXPECT_EQ(Print(t), before);
}

TEST(Table, VariableLengthOverflowStartsANewBlock) {
  TableSchema s{"docs", {{"id", Type::Integer()}, {"body", Type::Text()}}, {ColumnId(0)}};
  Table t(TableId(1), s);
  uint32_t heap = t.layout().heap_size();
  std::string big(100000, 'x');  // far above the 32-byte reservation
  int n = 0;
  while (t.block_count() < 2) t.Insert({Value::Integer(n++), Value::Text(big)});
  // Block 0 took as many 100 kB rows as its heap holds, well below capacity.
  BlockRef b0 = t.PinBlock(BlockNo(0));
  EXPECT_EQ(b0->row_count(), heap / 100000);
  EXPECT_LT(b0->row_count(), b0->capacity());
  EXPECT_EQ(t.LookupKey({Value::Integer(n - 1)}), (TupleId{BlockNo(1), SlotNo(0)}));
  EXPECT_EQ(t.ReadColumn({BlockNo(0), SlotNo(3)}, ColumnId(1))->GetString(), big);
}

TEST(Table, FillsBlocksToCapacity) {
  Table t(TableId(1), {"n", {{"a", Type::Integer()}}, {ColumnId(0)}}, {.max_rows_per_block = 100});
  for (int i = 0; i < 250; i++) t.Insert({Value::Integer(i)});
  EXPECT_EQ(t.block_count(), 3u);
  EXPECT_EQ(t.PinBlock(BlockNo(0))->row_count(), 100u);
  EXPECT_EQ(t.PinBlock(BlockNo(2))->row_count(), 50u);
  EXPECT_EQ(t.LookupKey({Value::Integer(199)}), (TupleId{BlockNo(1), SlotNo(99)}));
}

TEST(Table, UpdateInPlaceAndKeyChange) {
  Table t(TableId(1), AccountSchema());
  TupleId a = t.Insert(Account(1, "ann", 100));
  TupleId b = t.Insert(Account(2, "bob", 200));
  EXPECT_EQ(t.Update(a, {{ColumnId(2), Value::Integer(5)}, {ColumnId(3), Value::Text("rich")}}), a);
  EXPECT_EQ(t.Read(a)->at(2).ToString(), "5.00");
  EXPECT_EQ(t.Read(a)->at(3).GetString(), "rich");
  // Key change: old key gone, new key found, same tid.
  EXPECT_EQ(t.Update(a, {{ColumnId(0), Value::BigInt(10)}}), a);
  EXPECT_FALSE(t.LookupKey({Value::BigInt(1)}));
  EXPECT_EQ(t.LookupKey({Value::BigInt(10)}), a);
  // Setting the key to itself is not a duplicate.
  EXPECT_EQ(t.Update(b, {{ColumnId(0), Value::BigInt(2)}}), b);
  Fingerprint before = Print(t);
  ExpectError(
      [&] {
        t.Update(b, {{ColumnId(2), Value::Integer(1)}, {ColumnId(0), Value::BigInt(10)}});
      },
      sqlstate::kUniqueViolation,
      "duplicate key value violates unique constraint \"accounts_pkey\"\nDETAIL:  Key (id)=(10) "
      "already exists.");
  ExpectError(
      [&] {
        t.Update(b, {{ColumnId(2), Value::Integer(1)}, {ColumnId(1), Value::Null(Type::Text())}});
      },
      sqlstate::kNotNullViolation,
      "null value in column \"owner\" of relation \"accounts\" violates not-null constraint");
  try {
    t.Update(b, {{ColumnId(2), Value::Integer(1)},
                 {ColumnId(3), Value::Text("x")},
                 {ColumnId(2), Value::Double(1e30)}});
    ADD_FAILURE();
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kNumericValueOutOfRange);
  }
  EXPECT_EQ(Print(t), before);
}

TEST(Table, UpdateCompactsHeapOrRelocates) {
  TableSchema s{"docs", {{"id", Type::Integer()}, {"body", Type::Text()}}, {ColumnId(0)}};
  Table t(TableId(1), s);
  const size_t kBig = t.layout().heap_size() / 15;
  std::string big(kBig, 'x');
  std::vector<TupleId> tids;
  for (int i = 0; i < 10; i++) tids.push_back(t.Insert({Value::Integer(i), Value::Text(big)}));
  ASSERT_EQ(t.block_count(), 1u);
  // Each rewrite leaves kBig bytes of garbage; compaction makes room again, so rows stay put.
  for (int round = 0; round < 5; round++) {
    for (int i = 0; i < 10; i++) {
      std::string body(kBig, static_cast<char>('a' + round));
      ASSERT_EQ(t.Update(tids[i], {{ColumnId(1), Value::Text(body)}}), tids[i]);
    }
  }
  EXPECT_EQ(t.block_count(), 1u);
  EXPECT_EQ(t.ReadColumn(tids[3], ColumnId(1))->GetString(), std::string(kBig, 'e'));
  // A value that cannot fit even after compaction moves the row to a new tail block.
  std::string huge(t.layout().heap_size() * 3 / 4, 'h');
  TupleId moved = t.Update(tids[4], {{ColumnId(1), Value::Text(huge)}});
  EXPECT_EQ(moved, (TupleId{BlockNo(1), SlotNo(0)}));
  EXPECT_FALSE(t.Read(tids[4]));
  EXPECT_EQ(t.LookupKey({Value::Integer(4)}), moved);
  EXPECT_EQ(t.ReadColumn(moved, ColumnId(1))->GetString(), huge);
  EXPECT_EQ(t.live_row_count(), 10u);
  // Undo of a relocating update.
  t.RemoveInserted(moved);
  t.Undelete(tids[4]);
  EXPECT_EQ(t.block_count(), 1u);
  EXPECT_EQ(t.LookupKey({Value::Integer(4)}), tids[4]);
  EXPECT_EQ(t.ReadColumn(tids[4], ColumnId(1))->GetString(), std::string(kBig, 'e'));
  // Too big for any block: 54000 and nothing changes.
  Fingerprint before = Print(t);
  try {
    t.Update(tids[0], {{ColumnId(1), Value::Text(std::string(kBlockSize, 'q'))}});
    ADD_FAILURE();
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kProgramLimitExceeded);
  }
  EXPECT_EQ(Print(t), before);
}

TEST(Table, DeleteUndeleteAndNoSlotReuse) {
  Table t(TableId(1), AccountSchema());
  TupleId a = t.Insert(Account(1, "ann", 100));
  TupleId b = t.Insert(Account(2, "bob", 200));
  t.Delete(a);
  EXPECT_FALSE(t.Read(a));
  EXPECT_FALSE(t.LookupKey({Value::BigInt(1)}));
  EXPECT_EQ(t.live_row_count(), 1u);
  // The key is free again, but the slot is not reused.
  TupleId c = t.Insert(Account(1, "ann2", 1));
  EXPECT_EQ(c, (TupleId{BlockNo(0), SlotNo(2)}));
  t.RemoveInserted(c);  // undo that insert: the slot is given back
  t.Undelete(a);        // undo the delete
  EXPECT_EQ(t.LookupKey({Value::BigInt(1)}), a);
  EXPECT_EQ(t.Read(a)->at(1).GetString(), "ann");
  EXPECT_EQ(t.Insert(Account(3, "cid", 1)), (TupleId{BlockNo(0), SlotNo(2)}));
  // RemoveInserted of a row that is not the newest leaves a deleted slot.
  t.RemoveInserted(b);
  EXPECT_FALSE(t.Read(b));
  EXPECT_FALSE(t.LookupKey({Value::BigInt(2)}));
  EXPECT_EQ(t.PinBlock(BlockNo(0))->row_count(), 3u);
}

TEST(Table, RemoveInsertedRestoresExactState) {
  Table t(TableId(1), {"n", {{"a", Type::Integer()}, {"s", Type::Text()}}, {ColumnId(0)}},
          {.max_rows_per_block = 64});
  for (int i = 0; i < 64; i++) t.Insert({Value::Integer(i), Value::Text("v" + std::to_string(i))});
  Fingerprint before = Print(t);
  TupleId tid = t.Insert({Value::Integer(100), Value::Text("new block")});
  EXPECT_EQ(tid, (TupleId{BlockNo(1), SlotNo(0)}));
  t.RemoveInserted(tid);
  EXPECT_EQ(t.block_count(), 1u);
  TupleId last = {BlockNo(0), SlotNo(63)};
  t.RemoveInserted(last);
  t.InsertAt(last, {Value::Integer(63), Value::Text("v63")});
  EXPECT_EQ(Print(t), before);  // heap bytes included
}

TEST(Table, InsertAtReplaysTidsAndFillsGaps) {
  TableSchema s{"n", {{"a", Type::Integer()}}, {ColumnId(0)}};
  Table t(TableId(1), s, {.max_rows_per_block = 64});
  t.InsertAt({BlockNo(0), SlotNo(0)}, {Value::Integer(1)});
  t.InsertAt({BlockNo(0), SlotNo(5)}, {Value::Integer(2)});  // slots 1-4: an aborted txn's
  t.InsertAt({BlockNo(2), SlotNo(1)}, {Value::Integer(3)});
  EXPECT_EQ(t.block_count(), 3u);
  EXPECT_EQ(t.PinBlock(BlockNo(0))->row_count(), 6u);
  EXPECT_FALSE(t.Read({BlockNo(0), SlotNo(3)}));
  EXPECT_EQ(t.LookupKey({Value::Integer(2)}), (TupleId{BlockNo(0), SlotNo(5)}));
  EXPECT_EQ(t.LookupKey({Value::Integer(3)}), (TupleId{BlockNo(2), SlotNo(1)}));
  EXPECT_EQ(t.live_row_count(), 3u);
  EXPECT_EQ(t.Insert({Value::Integer(4)}), (TupleId{BlockNo(2), SlotNo(2)}));
}

TEST(Table, ScanByBlockWithReadView) {
  Table t(TableId(1), {"n", {{"a", Type::BigInt()}, {"b", Type::Integer()}}, {}},
          {.max_rows_per_block = 128});
  int64_t expect = 0;
  for (int i = 0; i < 1000; i++) {
    t.Insert({Value::BigInt(i), i % 10 == 0 ? Value::Null(Type::Integer()) : Value::Integer(i)});
  }
  for (int i = 0; i < 1000; i += 7) t.Delete({BlockNo(i / 128), SlotNo(i % 128)});
  for (int i = 0; i < 1000; i++) expect += i % 7 ? i : 0;
  int64_t sum = 0;
  size_t blocks = 0;
  t.ForEachBlock([&](const BlockRef&, const BlockReadView& v) {
    blocks++;
    const int64_t* a = v.stripe<int64_t>(ColumnId(0));
    for (uint32_t r = 0; r < v.row_count(); r++) sum += v.is_deleted(r) ? 0 : a[r];
  });
  EXPECT_EQ(blocks, 8u);
  EXPECT_EQ(sum, expect);
  EXPECT_EQ(t.directory().PinCount(BlockNo(0)), 0u);
}

}  // namespace
}  // namespace forktail

namespace forktail {
namespace {

TEST(Table, LoadBlocksFromImages) {
  TableSchema s{"n", {{"a", Type::Integer()}, {"s", Type::Text()}}, {ColumnId(0)}};
  Table t(TableId(4), s, {.max_rows_per_block = 64});
  for (int i = 0; i < 150; i++) t.Insert({Value::Integer(i), Value::Text("s" + std::to_string(i))});
  t.Delete({BlockNo(1), SlotNo(3)});
  std::vector<std::string> images;
  t.ForEachBlock([&](const BlockRef& b, const BlockReadView&) {
    b->Seal();
    images.push_back(b->ExportImage());
  });
  Table copy(TableId(4), s, {.max_rows_per_block = 64});
  EXPECT_EQ(copy.LoadBlock(images[1]).code(), Status::Code::kCorruption);  // not block 0
  Table other(TableId(5), s, {.max_rows_per_block = 64});
  EXPECT_EQ(other.LoadBlock(images[0]).code(), Status::Code::kCorruption);  // another table
  for (const std::string& image : images) ASSERT_TRUE(copy.LoadBlock(image).ok());
  copy.FinishLoading();
  EXPECT_EQ(copy.live_row_count(), 149u);
  EXPECT_EQ(copy.LookupKey({Value::Integer(120)}), (TupleId{BlockNo(1), SlotNo(56)}));
  EXPECT_FALSE(copy.LookupKey({Value::Integer(67)}));
  EXPECT_EQ(copy.Read({BlockNo(2), SlotNo(0)})->at(1).GetString(), "s128");
  EXPECT_EQ(copy.Insert({Value::Integer(1000), Value::Null(Type::Text())}),
            (TupleId{BlockNo(2), SlotNo(22)}));
}

}  // namespace
}  // namespace forktail

namespace forktail {
namespace {

TEST(Table, RedoUpdateFollowsTheLoggedPlacement) {
  TableSchema s{"n", {{"a", Type::Integer()}, {"s", Type::Text()}}, {ColumnId(0)}};
  Table t(TableId(1), s, {.max_rows_per_block = 64});
  TupleId a = t.Insert({Value::Integer(1), Value::Text("one")});
  TupleId b = t.Insert({Value::Integer(2), Value::Text("two")});
  // Logged in place: stays.
  t.RedoUpdate(a, {{ColumnId(1), Value::Text("uno")}}, a);
  EXPECT_EQ(t.ReadColumn(a, ColumnId(1))->GetString(), "uno");
  // Logged as relocated (the original run's block was full): moves there even
  // though it would fit here.
  TupleId target{BlockNo(1), SlotNo(0)};
  t.RedoUpdate(b, {{ColumnId(1), Value::Text("dos")}, {ColumnId(0), Value::Integer(20)}}, target);
  EXPECT_FALSE(t.Read(b));
  EXPECT_EQ(t.ReadColumn(target, ColumnId(1))->GetString(), "dos");
  EXPECT_EQ(t.LookupKey({Value::Integer(20)}), target);
  EXPECT_FALSE(t.LookupKey({Value::Integer(2)}));
  EXPECT_EQ(t.live_row_count(), 2u);
}

// Freezing in steps (Table::TakeFreezeCandidates / InstallFrozen): a block
// written between the copy and the install keeps its plain form and the
// write; the others freeze with every row; a copy taken before a checkpoint
// cleared the changed flag is not written again.
TEST(Table, FrozenCopiesOfBlocksWrittenMeanwhileAreNotInstalled) {
  Table t(TableId(1), {"n", {{"a", Type::Integer()}, {"s", Type::Text()}}, {ColumnId(0)}},
          {.max_rows_per_block = 64});
  for (int i = 0; i < 64 * 4; i++) {
    t.Insert({Value::Integer(i), Value::Text("row " + std::to_string(i))});
  }
  uint32_t cursor = 0;
  std::vector<Table::FreezeCandidate> copies = t.TakeFreezeCandidates(false, 8, &cursor);
  ASSERT_EQ(copies.size(), 3u);  // never the tail
  EXPECT_EQ(cursor, t.block_count());
  // Block 1 is written after its copy; block 2 is checkpointed.
  t.Update(*t.LookupKey({Value::Integer(70)}), {{ColumnId(1), Value::Text("changed")}});
  t.PinBlock(BlockNo(2))->MarkCheckpointed();
  // Rows and their tids (a frozen block's heap bytes differ).
  const std::vector<std::string> before = Print(t).rows;
  std::vector<bool> installed;
  for (Table::FreezeCandidate& c : copies) {
    installed.push_back(t.InstallFrozen(c.no, Block::Freeze(*c.copy)));
  }
  EXPECT_EQ(installed, (std::vector<bool>{true, false, true}));
  EXPECT_TRUE(t.PinBlock(BlockNo(0))->frozen());
  EXPECT_FALSE(t.PinBlock(BlockNo(1))->frozen());
  EXPECT_FALSE(t.PinBlock(BlockNo(2))->IsChangedSinceCheckpoint());
  EXPECT_EQ(Print(t).rows, before);
  EXPECT_EQ(t.Read(*t.LookupKey({Value::Integer(70)}))->at(1).GetString(), "changed");
  // The next walk finds block 1 written (not idle), the one after freezes it.
  cursor = 0;
  EXPECT_EQ(t.FreezeBlocks(true, 8, &cursor), 0u);
  cursor = 0;
  EXPECT_EQ(t.FreezeBlocks(true, 8, &cursor), 1u);
  EXPECT_EQ(Print(t).rows, before);
}

}  // namespace
}  // namespace forktail
