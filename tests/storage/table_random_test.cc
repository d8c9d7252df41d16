// A load of 10k rows in key order, then 100k random inserts, updates
// (including key changes and relocations), deletes, lookups and undos,
// checked against a std::map after every 1k, with
// the key hash index built from the start, half way or never; then
// the committed changes are replayed (InsertAt, RedoUpdate, Delete) into a new
// table, which must come out with identical tuple ids. The second run freezes
// every block but the tail every 1k operations (updates of frozen rows move
// them), and freezes the replica's blocks during replay too (in-place redo
// then thaws a block).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>

#include "storage/storage.h"

namespace forktail {
namespace {

struct ModelRow {
  int64_t val;
  std::string s;
  bool operator==(const ModelRow&) const = default;
};

std::string RandomString(std::mt19937_64& rng) {
  uint64_t r = rng() % 1000;
  size_t len = r < 5 ? 300000 + rng() % 1000 : rng() % 48;
  return std::string(len, static_cast<char>('a' + rng() % 26));
}

// When the table's key hash index is built (table.h, "Indexes"): never (every
// lookup and unique check through the ordered index), from the start, or
// half way (the writes after it keep it exact).
enum class KeyIndex { kNever, kFromStart, kHalfWay };

void RunModel(bool freeze, KeyIndex key_index) {
  const uint64_t seed = 20260521;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::printf("TableRandom seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  Table t(
      TableId(1),
      {"r", {{"k", Type::Integer()}, {"v", Type::BigInt()}, {"s", Type::Text()}}, {ColumnId(0)}},
      {.max_rows_per_block = 512});
  std::map<int32_t, ModelRow> model;
  std::map<int32_t, TupleId> tid_of;
  auto any_key = [&] { return static_cast<int32_t>(rng() % 100000); };
  auto existing_key = [&] {
    auto it = model.lower_bound(any_key());
    return it == model.end() ? model.begin()->first : it->first;
  };
  int relocations = 0, duplicates = 0;
  size_t frozen = 0;
  // What a WAL would hold: the committed changes only (undone inserts and
  // deletes are left out), replayed below into an empty table.
  struct RedoOp {
    enum Kind { kInsert, kUpdate, kDelete } kind;
    TupleId tid;
    Row row;
    Table::ColumnUpdates updates;
    TupleId result;
  };
  std::vector<RedoOp> redo_log;

  if (key_index == KeyIndex::kFromStart) t.BuildKeyIndex();
  // A load in key order first (every tenth key), as COPY of a sorted file
  // makes: the primary key's ordered index packs its leaves
  // (byte_string_set.h), which the random operations then write into.
  for (int32_t k = 0; k < 100000; k += 10) {
    ModelRow row{static_cast<int64_t>(rng()), RandomString(rng)};
    Row r{Value::Integer(k), Value::BigInt(row.val), Value::Text(row.s)};
    tid_of[k] = t.Insert(r);
    model[k] = row;
    redo_log.push_back({RedoOp::kInsert, tid_of[k], r, {}, {}});
  }
  for (int op = 1; op <= 100000; op++) {
    if (key_index == KeyIndex::kHalfWay && op == 50000) {
      ASSERT_TRUE(t.BuildKeyIndexIfWanted());  // the lookups asked for it
    }
    uint64_t kind = rng() % 100;
    if (kind < 30 || model.empty()) {  // insert
      int32_t k = any_key();
      ModelRow row{static_cast<int64_t>(rng()), RandomString(rng)};
      Row r{Value::Integer(k), Value::BigInt(row.val), Value::Text(row.s)};
      if (model.count(k)) {
        EXPECT_THROW(t.Insert(r), DbError);
        duplicates++;
      } else if (kind % 10 == 0) {  // insert, then undo it
        TupleId tid = t.Insert(r);
        t.RemoveInserted(tid);
      } else {
        tid_of[k] = t.Insert(r);
        redo_log.push_back({RedoOp::kInsert, tid_of[k], r, {}, {}});
        model[k] = row;
      }
    } else if (kind < 55) {  // update value/string, sometimes the key
      int32_t k = existing_key();
      ModelRow row = model[k];
      Table::ColumnUpdates updates;
      if (rng() % 2) {
        row.val = static_cast<int64_t>(rng());
        updates.push_back({ColumnId(1), Value::BigInt(row.val)});
      }
      if (rng() % 2) {
        row.s = RandomString(rng);
        updates.push_back({ColumnId(2), Value::Text(row.s)});
      }
      int32_t new_k = k;
      if (rng() % 5 == 0) {
        new_k = any_key();
        updates.push_back({ColumnId(0), Value::Integer(new_k)});
      }
      if (new_k != k && model.count(new_k)) {
        EXPECT_THROW(t.Update(tid_of[k], updates), DbError);
        duplicates++;
        continue;
      }
      TupleId tid = t.Update(tid_of[k], updates);
      redo_log.push_back({RedoOp::kUpdate, tid_of[k], {}, updates, tid});
      relocations += tid != tid_of[k];
      model.erase(k);
      tid_of.erase(k);
      model[new_k] = row;
      tid_of[new_k] = tid;
    } else if (kind < 80) {  // delete, sometimes undone
      int32_t k = existing_key();
      t.Delete(tid_of[k]);
      if (rng() % 8 == 0) {
        t.Undelete(tid_of[k]);
      } else {  // committed: logged (a delete that was undone is not)
        redo_log.push_back({RedoOp::kDelete, tid_of[k], {}, {}, {}});
        model.erase(k);
        tid_of.erase(k);
      }
    } else {  // lookup
      int32_t k = any_key();
      auto tid = t.LookupKey({Value::Integer(k)});
      ASSERT_EQ(tid.has_value(), model.count(k) == 1) << "op " << op << " key " << k;
      if (tid) {
        ASSERT_EQ(*tid, tid_of[k]);
      }
    }

    if (freeze && op % 1000 == 500) {
      uint32_t cursor = 0;
      frozen += t.FreezeBlocks(false, SIZE_MAX, &cursor);
    }
    if (op % 1000 == 0) {
      ASSERT_EQ(t.live_row_count(), model.size()) << "op " << op;
      ASSERT_EQ(t.key_index_built(), key_index == KeyIndex::kFromStart ||
                                         (key_index == KeyIndex::kHalfWay && op >= 50000));
      ASSERT_EQ(t.index().size(), t.key_index_built() ? model.size() : 0u);
      struct Seen {
        int32_t k;
        ModelRow row;
        TupleId tid;
      };
      std::vector<Seen> seen;
      seen.reserve(model.size());
      t.ForEachBlock([&](const BlockRef& block, const BlockReadView& v) {
        const int32_t* keys = v.stripe<int32_t>(ColumnId(0));
        const int64_t* vals = v.stripe<int64_t>(ColumnId(1));
        for (uint32_t r = 0; r < v.row_count(); r++) {
          if (v.is_deleted(r)) continue;
          seen.push_back({keys[r],
                          {vals[r], std::string(v.string(ColumnId(2), r))},
                          TupleId{block->block_no(), SlotNo(r)}});
        }
      });
      std::sort(seen.begin(), seen.end(), [](const Seen& a, const Seen& b) { return a.k < b.k; });
      ASSERT_EQ(seen.size(), model.size()) << "op " << op;
      auto m = model.begin();
      auto tid = tid_of.begin();
      for (const Seen& row : seen) {
        ASSERT_EQ(row.k, m->first) << "op " << op;
        ASSERT_TRUE(row.row == m->second) << "op " << op << " key " << row.k;
        ASSERT_EQ(row.tid, tid->second) << "op " << op << " key " << row.k;
        ++m;
        ++tid;
      }
      if (op % 10000 == 0) {  // every key through the index (the scan above checks tids)
        for (const auto& [k, tid] : tid_of) ASSERT_EQ(t.LookupKey({Value::Integer(k)}), tid);
      }
    }
  }
  std::printf(
      "TableRandom: %zu rows in %zu blocks, %d relocations, %d duplicate errors, %zu blocks "
      "frozen\n",
      model.size(), t.block_count(), relocations, duplicates, frozen);
  EXPECT_GT(relocations, 0);
  if (freeze) {
    EXPECT_GT(frozen, 50u);
  }

  // Redo: replay reproduces identical tuple ids and contents.
  Table replica(TableId(1), t.schema(), t.options());
  size_t replayed = 0;
  for (const RedoOp& op : redo_log) {
    if (freeze && ++replayed % 5000 == 0) {
      uint32_t cursor = 0;
      replica.FreezeBlocks(false, SIZE_MAX, &cursor);
    }
    switch (op.kind) {
      case RedoOp::kInsert:
        replica.InsertAt(op.tid, op.row);
        break;
      case RedoOp::kUpdate:
        replica.RedoUpdate(op.tid, op.updates, op.result);
        break;
      case RedoOp::kDelete:
        replica.Delete(op.tid);
        break;
    }
  }
  ASSERT_EQ(replica.block_count(), t.block_count());
  for (size_t b = 0; b < t.block_count(); b++) {
    BlockRef x = t.PinBlock(BlockNo(b)), y = replica.PinBlock(BlockNo(b));
    ASSERT_EQ(x->row_count(), y->row_count()) << "block " << b;
    for (uint32_t r = 0; r < x->row_count(); r++) {
      TupleId tid{BlockNo(b), SlotNo(r)};
      ASSERT_EQ(x->IsDeleted(SlotNo(r)), y->IsDeleted(SlotNo(r))) << tid.ToString();
      if (x->IsDeleted(SlotNo(r))) continue;
      ASSERT_EQ(t.Read(tid)->at(2).GetString(), replica.Read(tid)->at(2).GetString());
      ASSERT_EQ(t.Read(tid)->at(1).GetInt(), replica.Read(tid)->at(1).GetInt());
    }
  }
  for (const auto& [k, tid] : tid_of)
    ASSERT_EQ(replica.LookupKey({Value::Integer(k)}),
              tid);  // the seed exercises relocating updates
  EXPECT_GT(duplicates, 0);
}

TEST(TableRandom, MatchesMapModel) { RunModel(false, KeyIndex::kHalfWay); }

TEST(TableRandom, MatchesMapModelWithTheKeyIndexFromTheStart) {
  RunModel(false, KeyIndex::kFromStart);
}

TEST(TableRandom, MatchesMapModelWithoutTheKeyIndex) { RunModel(false, KeyIndex::kNever); }

TEST(TableRandom, MatchesMapModelWithFrozenBlocks) { RunModel(true, KeyIndex::kHalfWay); }

}  // namespace
}  // namespace forktail
