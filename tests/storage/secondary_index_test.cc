// Secondary indexes: the key encoding orders as the values do, probes find
// exactly the rows a brute-force filter finds under random inserts, updates
// (with relocations), deletes and their undos, unique indexes refuse
// duplicates before anything changes, and the catalog image keeps the
// definitions.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>

#include "storage/storage.h"
#include "storage/table/catalog.h"
#include "storage/table/ordered_index.h"

namespace forktail {
namespace {

using namespace std::string_literals;

std::string Encoded(const OrderedIndex& index, const std::vector<Value>& key) {
  return index.EncodeKey(key).bytes;
}

TEST(OrderedIndexEncoding, OrdersAsTheValuesDo) {
  std::mt19937_64 rng(7);
  OrderedIndex ints({Type::BigInt()});
  OrderedIndex texts({Type::Text()});
  OrderedIndex pairs({Type::Integer(), Type::Text()});
  std::vector<int64_t> int_values = {INT64_MIN, -1000, -1, 0, 1, 255, 256, 65536, INT64_MAX};
  for (int i = 0; i < 200; i++) int_values.push_back(static_cast<int64_t>(rng()));
  std::vector<std::string> strings = {"", "a", "a\0"s, "a\0b"s, "ab", "b", "\xff", "\xff\xff"};
  for (int i = 0; i < 200; i++) {
    std::string s(rng() % 5, 'a');
    for (char& c : s) c = static_cast<char>(rng() % 4);  // many zero bytes
    strings.push_back(s);
  }
  for (int64_t a : int_values) {
    for (int64_t b : {int64_t{0}, int64_t{-5}, int64_t{77}, INT64_MIN}) {
      EXPECT_EQ(a < b, Encoded(ints, {Value::BigInt(a)}) < Encoded(ints, {Value::BigInt(b)}));
    }
  }
  for (const std::string& a : strings) {
    for (const std::string& b : strings) {
      EXPECT_EQ(a < b, Encoded(texts, {Value::Text(a)}) < Encoded(texts, {Value::Text(b)}))
          << testing::PrintToString(a) << " vs " << testing::PrintToString(b);
      // Composite keys: the first column decides first.
      std::string ka = Encoded(pairs, {Value::Integer(1), Value::Text(a)});
      std::string kb = Encoded(pairs, {Value::Integer(1), Value::Text(b)});
      EXPECT_EQ(a < b, ka < kb);
      EXPECT_LT(ka, Encoded(pairs, {Value::Integer(2), Value::Text(b)}));
    }
  }
  // NULL sorts after every value, and marks the key.
  EXPECT_TRUE(ints.EncodeKey({Value::Null(Type::BigInt())}).has_null);
  EXPECT_LT(Encoded(ints, {Value::BigInt(INT64_MAX)}),
            Encoded(ints, {Value::Null(Type::BigInt())}));
}

TEST(OrderedIndexProbe, BoundsAndEmptyRanges) {
  OrderedIndex index({Type::Integer(), Type::Integer()});
  for (int a = 0; a < 10; a++) {
    for (int b = 0; b < 10; b++) {
      index.Insert(index.EncodeKey({Value::Integer(a), Value::Integer(b)}),
                   TupleId{BlockNo(0), SlotNo(static_cast<uint32_t>(a * 10 + b))});
    }
  }
  auto count = [&](IndexRange r) { return index.Probe(r, 1000)->size(); };
  IndexRange r;
  r.index = 0;
  EXPECT_EQ(count(r), 100u);
  r.equal = {Value::Integer(3)};
  EXPECT_EQ(count(r), 10u);
  r.lower = IndexBound{Value::Integer(4), true};
  EXPECT_EQ(count(r), 6u);
  r.lower->inclusive = false;
  EXPECT_EQ(count(r), 5u);
  r.upper = IndexBound{Value::Integer(7), false};
  EXPECT_EQ(count(r), 2u);  // 5, 6
  r.upper = IndexBound{Value::Integer(2), true};
  EXPECT_EQ(count(r), 0u);  // lower above upper
  IndexRange first;
  first.index = 0;
  first.upper = IndexBound{Value::Integer(2), true};
  EXPECT_EQ(count(first), 30u);
  first.lower = IndexBound{Value::Integer(8), false};
  EXPECT_EQ(count(first), 0u);
  EXPECT_FALSE(index.Probe(IndexRange{0, {}, {}, {}}, 99).has_value());  // over the limit
  std::vector<TupleId> found = *index.Probe(IndexRange{0, {Value::Integer(9)}, {}, {}}, 10);
  ASSERT_EQ(found.size(), 10u);
  EXPECT_EQ(found.front(), (TupleId{BlockNo(0), SlotNo(90)}));  // key order
}

// Integer columns are encoded at their type's width, and a probe with a value
// of a wider type outside the column's range (a join key, a bigint literal)
// finds what comparing the values would: nothing for an equality, all rows or
// none for a bound.
TEST(OrderedIndexProbe, NarrowColumnsAndValuesOutsideTheirRange) {
  OrderedIndex small({Type::SmallInt()});
  OrderedIndex ints({Type::Integer(), Type::Integer()});
  EXPECT_EQ(Encoded(small, {Value::SmallInt(7)}).size(), 3u);  // marker + 2 bytes
  EXPECT_EQ(Encoded(ints, {Value::Integer(7), Value::Integer(8)}).size(), 10u);
  std::vector<int64_t> values = {INT32_MIN, -70000, -1, 0, 1, 65536, INT32_MAX};
  for (size_t i = 0; i < values.size(); i++) {
    for (int64_t b : values) {
      EXPECT_EQ(
          values[i] < b,
          Encoded(ints, {Value::Integer(static_cast<int32_t>(values[i])), Value::Integer(0)}) <
              Encoded(ints, {Value::Integer(static_cast<int32_t>(b)), Value::Integer(0)}));
    }
    ints.Insert(ints.EncodeKey({Value::Integer(static_cast<int32_t>(values[i])),
                                Value::Integer(static_cast<int32_t>(values[i]))}),
                TupleId{BlockNo(0), SlotNo(static_cast<uint32_t>(i))});
  }
  auto count = [&](IndexRange r) { return ints.Probe(r, 1000)->size(); };
  const Value above = Value::BigInt(int64_t{3} << 31);  // 6442450944
  const Value below = Value::BigInt(-(int64_t{3} << 31));
  EXPECT_EQ(count(IndexRange{0, {above}, {}, {}}), 0u);
  EXPECT_EQ(count(IndexRange{0, {below}, {}, {}}), 0u);
  EXPECT_EQ(count(IndexRange{0, {}, IndexBound{below, true}, {}}), 7u);
  EXPECT_EQ(count(IndexRange{0, {}, IndexBound{above, false}, {}}), 0u);
  EXPECT_EQ(count(IndexRange{0, {}, {}, IndexBound{above, true}}), 7u);
  EXPECT_EQ(count(IndexRange{0, {}, {}, IndexBound{below, true}}), 0u);
  EXPECT_EQ(count(IndexRange{0, {}, IndexBound{below, false}, IndexBound{Value::BigInt(0), true}}),
            4u);
  // On the second column, after an equal prefix.
  EXPECT_EQ(count(IndexRange{0, {Value::Integer(-1)}, IndexBound{below, true}, {}}), 1u);
  EXPECT_EQ(count(IndexRange{0, {Value::Integer(-1)}, {}, IndexBound{below, true}}), 0u);
  EXPECT_EQ(count(IndexRange{0, {Value::Integer(-1), above}, {}, {}}), 0u);
}

TableSchema IndexedSchema() {
  TableSchema s{
      "r", {{"k", Type::Integer()}, {"v", Type::Integer()}, {"s", Type::Text()}}, {ColumnId(0)}};
  s.indexes.push_back({"r_v_s", {ColumnId(1), ColumnId(2)}, false, false});
  s.indexes.push_back({"r_s_key", {ColumnId(2)}, true, true});
  return s;
}

// The live rows with v in [lo, hi], by brute force and through the index.
std::vector<TupleId> Filtered(const Table& t, int lo, int hi) {
  std::vector<TupleId> out;
  t.ForEachBlock([&](const BlockRef& block, const BlockReadView& view) {
    for (uint32_t r = 0; r < view.row_count(); r++) {
      if (view.is_deleted(r)) continue;
      Value v = block->GetCell(ColumnId(1), SlotNo(r));
      if (!v.is_null() && v.GetInt() >= lo && v.GetInt() <= hi) {
        out.push_back({block->block_no(), SlotNo(r)});
      }
    }
  });
  return out;
}

std::vector<TupleId> Probed(const Table& t, int lo, int hi) {
  IndexRange r;
  r.index = 0;
  r.lower = IndexBound{Value::Integer(lo), true};
  r.upper = IndexBound{Value::Integer(hi), true};
  std::vector<TupleId> tids = *t.ProbeIndex(r, SIZE_MAX);
  std::sort(tids.begin(), tids.end());
  return tids;
}

TEST(SecondaryIndex, MatchesBruteForceUnderRandomWritesAndUndo) {
  std::mt19937_64 rng(20261125);
  Table t(TableId(1), IndexedSchema(), {.max_rows_per_block = 64});
  std::vector<TupleId> live;
  int next_key = 0, duplicates = 0;
  auto text = [&](int n) {
    // Long strings now and then force updates to relocate rows.
    return Value::Text(std::to_string(n) + std::string(rng() % 50 == 0 ? 3000 : 0, 'x'));
  };
  for (int op = 0; op < 20000; op++) {
    uint64_t kind = rng() % 100;
    if (kind < 40 || live.empty()) {
      Value s = rng() % 10 == 0 ? Value::Null(Type::Text()) : text(static_cast<int>(rng() % 5000));
      Value v = rng() % 20 == 0 ? Value::Null(Type::Integer())
                                : Value::Integer(static_cast<int32_t>(rng() % 200));
      try {
        TupleId tid = t.Insert({Value::Integer(next_key++), v, s});
        if (rng() % 10 == 0) {
          t.RemoveInserted(tid);  // undo of the insert
        } else {
          live.push_back(tid);
        }
      } catch (const DbError& e) {
        EXPECT_STREQ(e.sqlstate(), sqlstate::kUniqueViolation);
        duplicates++;
      }
    } else if (kind < 75) {
      size_t i = rng() % live.size();
      TupleId tid = live[i];
      Row old = *t.Read(tid);
      Table::ColumnUpdates updates = {
          {ColumnId(1), Value::Integer(static_cast<int32_t>(rng() % 200))}};
      if (rng() % 2) updates.push_back({ColumnId(2), text(static_cast<int>(rng() % 5000))});
      try {
        TupleId moved = t.Update(tid, updates);
        if (rng() % 10 == 0) {  // undo, as the transaction engine does
          if (moved == tid) {
            Table::ColumnUpdates back;
            for (const auto& [c, v] : updates) back.push_back({c, old[c.value()]});
            ASSERT_EQ(t.Update(tid, back), tid);
          } else {
            t.RemoveInserted(moved);
            t.Undelete(tid);
          }
        } else {
          live[i] = moved;
        }
      } catch (const DbError& e) {
        EXPECT_STREQ(e.sqlstate(), sqlstate::kUniqueViolation);
        EXPECT_EQ(*t.Read(tid), old);  // nothing changed
        duplicates++;
      }
    } else {
      size_t i = rng() % live.size();
      t.Delete(live[i]);
      if (rng() % 10 == 0) {
        t.Undelete(live[i]);
      } else {
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    if (op % 500 == 0) {
      int lo = static_cast<int>(rng() % 200), hi = lo + static_cast<int>(rng() % 30);
      ASSERT_EQ(Probed(t, lo, hi), Filtered(t, lo, hi)) << "op " << op;
      ASSERT_EQ(t.secondary_index(0).size(), t.live_row_count());
    }
  }
  EXPECT_GT(duplicates, 0);
  // A rebuild (what a load does) gives the same answers.
  std::vector<TupleId> before = Probed(t, 0, 199);
  t.RebuildIndex();
  EXPECT_EQ(Probed(t, 0, 199), before);
}

TEST(SecondaryIndex, UniqueAllowsNullsAndCreateChecksExistingRows) {
  Table t(TableId(1), {"u", {{"k", Type::Integer()}, {"e", Type::Text()}}, {ColumnId(0)}});
  t.Insert({Value::Integer(1), Value::Text("a")});
  t.Insert({Value::Integer(2), Value::Text("a")});
  t.Insert({Value::Integer(3), Value::Null(Type::Text())});
  t.Insert({Value::Integer(4), Value::Null(Type::Text())});
  try {
    t.AddIndex({"u_e_key", {ColumnId(1)}, true, false});
    FAIL() << "duplicates accepted";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kUniqueViolation);
    EXPECT_EQ(std::string(e.what()),
              "could not create unique index \"u_e_key\"\nDETAIL:  Key (e)=(a) is duplicated.");
  }
  EXPECT_TRUE(t.schema().indexes.empty());
  t.Delete(*t.LookupKey({Value::Integer(2)}));
  t.AddIndex({"u_e_key", {ColumnId(1)}, true, false});
  EXPECT_EQ(t.secondary_index(0).size(), 3u);  // NULL keys are indexed, never conflict
  t.Insert({Value::Integer(5), Value::Null(Type::Text())});
  EXPECT_THROW(t.Insert({Value::Integer(6), Value::Text("a")}), DbError);
  EXPECT_FALSE(t.LookupKey({Value::Integer(6)}).has_value());  // nothing left behind
  // DROP INDEX and its undo.
  IndexDef dropped = t.DropIndex(0);
  EXPECT_TRUE(t.schema().indexes.empty());
  t.RestoreIndex(0, dropped);
  EXPECT_EQ(t.secondary_index(0).size(), 4u);  // a and the three NULLs
  EXPECT_THROW(t.Insert({Value::Integer(6), Value::Text("a")}), DbError);
}

TEST(SecondaryIndex, CatalogImageKeepsDefinitions) {
  Catalog catalog;
  TableSchema schema = IndexedSchema();
  schema.columns[2].default_sql = "'none'";
  schema.columns[0].identity = ColumnIdentity::kByDefault;
  Table& t = catalog.CreateTable(schema);
  t.SetIdentityValue(ColumnId(0), 41);
  t.Insert({Value::Integer(1), Value::Integer(5), Value::Text("x")});
  catalog.AddIndex(t.id(), {"r_k", {ColumnId(0)}, false, false});
  EXPECT_THROW(catalog.AddIndex(t.id(), {"r", {ColumnId(0)}, false, false}), DbError);  // a table
  EXPECT_THROW(catalog.AddIndex(t.id(), {"r_k", {ColumnId(1)}, false, false}), DbError);
  EXPECT_EQ(catalog.ChooseIndexName("r", {"v", "s"}, "idx"), "r_v_s_idx");
  EXPECT_EQ(catalog.ChooseIndexName("r", {"s"}, "key"), "r_s_key1");  // r_s_key is taken
  ViewDef view{"rv", "SELECT k FROM r", {"k"}, {Type::Integer()}, {"r"}};
  catalog.CreateView(view);
  EXPECT_THROW(catalog.CreateView(view), DbError);                                       // taken
  EXPECT_THROW(catalog.AddIndex(t.id(), {"rv", {ColumnId(0)}, false, false}), DbError);  // a view
  EXPECT_EQ(catalog.DependentViews("r"), std::vector<std::string>{"rv"});
  EXPECT_EQ(*catalog.CopySchemas()->FindView("rv"), view);
  Catalog loaded;
  ASSERT_TRUE(loaded.Deserialize(catalog.Serialize()).ok());
  ASSERT_NE(loaded.FindView("rv"), nullptr);
  EXPECT_EQ(*loaded.FindView("rv"), view);
  EXPECT_EQ(loaded.GetTable(t.id()).schema(), t.schema());
  ASSERT_TRUE(loaded.FindIndex("r_s_key").has_value());
  EXPECT_EQ(loaded.FindIndex("r_s_key")->second, 1u);
  EXPECT_TRUE(loaded.GetTable(t.id()).schema().indexes[1].constraint);
  EXPECT_EQ(loaded.GetTable(t.id()).identity_value(ColumnId(0)), 41);
}

// The primary key's ordered index (table.h): a prefix of a composite key
// and a range on the next key column find what brute force finds, in key
// order, under inserts, key-changing updates (some relocating), deletes and
// their undos, ADD/undo of the primary key, and a rebuild.
TEST(PrimaryKeyOrder, PrefixAndRangeProbesMatchBruteForce) {
  TableSchema schema;
  schema.name = "ol";
  schema.columns = {{"w", Type::Integer(), true},
                    {"d", Type::Integer(), true},
                    {"o", Type::Integer(), true},
                    {"note", Type::Text(), false}};
  schema.primary_key = {ColumnId(0), ColumnId(1), ColumnId(2)};
  Table t(TableId(1), schema, {.max_rows_per_block = 64});
  std::mt19937_64 rng(20261127);
  std::vector<TupleId> live;
  auto key_of = [&](TupleId tid) {
    Row r = *t.Read(tid);
    return std::tuple(r[0].GetInt(), r[1].GetInt(), r[2].GetInt());
  };
  // Brute force: the live rows with w = W (and d = D when d >= 0) and o in
  // [lo, hi], in key order.
  auto expected = [&](int w, int d, int lo, int hi) {
    std::vector<std::pair<std::tuple<int64_t, int64_t, int64_t>, TupleId>> rows;
    for (TupleId tid : live) {
      auto k = key_of(tid);
      if (std::get<0>(k) != w || (d >= 0 && std::get<1>(k) != d)) continue;
      if (d >= 0 && (std::get<2>(k) < lo || std::get<2>(k) > hi)) continue;
      rows.push_back({k, tid});
    }
    std::sort(rows.begin(), rows.end());
    std::vector<TupleId> out;
    for (auto& r : rows) out.push_back(r.second);
    return out;
  };
  auto probed = [&](int w, int d, int lo, int hi) {
    IndexRange r;
    r.index = IndexRange::kPrimaryKeyOrder;
    r.equal = {Value::Integer(w)};
    if (d >= 0) {
      r.equal.push_back(Value::Integer(d));
      r.lower = IndexBound{Value::Integer(lo), true};
      r.upper = IndexBound{Value::Integer(hi), true};
    }
    return *t.ProbeIndex(r, SIZE_MAX);
  };
  auto random_key = [&] {
    return std::tuple(static_cast<int32_t>(rng() % 3), static_cast<int32_t>(rng() % 10),
                      static_cast<int32_t>(rng() % 300));
  };
  for (int op = 0; op < 20000; op++) {
    const uint64_t kind = rng() % 100;
    if (kind < 50 || live.empty()) {
      auto [w, d, o] = random_key();
      try {
        TupleId tid = t.Insert({Value::Integer(w), Value::Integer(d), Value::Integer(o),
                                Value::Text(std::string(rng() % 40 == 0 ? 3000 : 3, 'x'))});
        if (rng() % 10 == 0) {
          t.RemoveInserted(tid);
        } else {
          live.push_back(tid);
        }
      } catch (const DbError& e) {
        ASSERT_STREQ(e.sqlstate(), sqlstate::kUniqueViolation);
      }
    } else if (kind < 80) {
      const size_t i = rng() % live.size();
      const TupleId tid = live[i];
      const Row old = *t.Read(tid);
      auto [w, d, o] = random_key();
      Table::ColumnUpdates updates = {{ColumnId(2), Value::Integer(o)}};
      if (rng() % 3 == 0) updates.push_back({ColumnId(1), Value::Integer(d)});
      if (rng() % 5 == 0) updates.push_back({ColumnId(3), Value::Text(std::string(3000, 'y'))});
      (void)w;
      try {
        TupleId moved = t.Update(tid, updates);
        if (rng() % 10 == 0) {
          if (moved == tid) {
            Table::ColumnUpdates back;
            for (const auto& [c, v] : updates) back.push_back({c, old[c.value()]});
            ASSERT_EQ(t.Update(tid, back), tid);
          } else {
            t.RemoveInserted(moved);
            t.Undelete(tid);
          }
        } else {
          live[i] = moved;
        }
      } catch (const DbError& e) {
        ASSERT_STREQ(e.sqlstate(), sqlstate::kUniqueViolation);
        ASSERT_EQ(*t.Read(tid), old);
      }
    } else {
      const size_t i = rng() % live.size();
      t.Delete(live[i]);
      if (rng() % 10 == 0) {
        t.Undelete(live[i]);
      } else {
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    if (op % 400 == 0) {
      const int w = static_cast<int>(rng() % 3), d = static_cast<int>(rng() % 10);
      const int lo = static_cast<int>(rng() % 300), hi = lo + static_cast<int>(rng() % 60);
      ASSERT_EQ(probed(w, -1, 0, 0), expected(w, -1, 0, 0)) << "op " << op;
      ASSERT_EQ(probed(w, d, lo, hi), expected(w, d, lo, hi)) << "op " << op;
      ASSERT_EQ(t.key_order_index()->size(), t.live_row_count());
    }
  }
  // A rebuild (what a load does) gives the same answers.
  const std::vector<TupleId> before = probed(1, -1, 0, 0);
  t.RebuildIndex();
  EXPECT_EQ(probed(1, -1, 0, 0), before);
  EXPECT_EQ(before, expected(1, -1, 0, 0));
}

TEST(PrimaryKeyOrder, FollowsAddAndRemoveOfThePrimaryKeyAndSecondaryIndexes) {
  TableSchema schema;
  schema.name = "k";
  schema.columns = {{"a", Type::Integer(), false}, {"b", Type::Integer(), false}};
  Table t(TableId(1), schema, {});
  EXPECT_EQ(t.key_order_index(), nullptr);
  for (int i = 0; i < 100; i++) t.Insert({Value::Integer(i % 10), Value::Integer(i)});
  t.AddPrimaryKey({ColumnId(1)});
  ASSERT_NE(t.key_order_index(), nullptr);
  EXPECT_EQ(t.key_order_index()->size(), 100u);
  // A secondary index goes before the key's ordered index, which stays last.
  t.AddIndex(IndexDef{"k_a", {ColumnId(0)}, false, false});
  EXPECT_EQ(t.secondary_index(0).size(), 100u);
  IndexRange by_a{0, {Value::Integer(3)}, {}, {}};
  EXPECT_EQ(t.ProbeIndex(by_a, SIZE_MAX)->size(), 10u);
  IndexRange range{IndexRange::kPrimaryKeyOrder,
                   {},
                   IndexBound{Value::Integer(10), true},
                   IndexBound{Value::Integer(19), false}};
  std::vector<TupleId> tids = *t.ProbeIndex(range, SIZE_MAX);
  ASSERT_EQ(tids.size(), 9u);
  for (size_t i = 0; i < tids.size(); i++) {
    EXPECT_EQ((*t.Read(tids[i]))[1], Value::Integer(static_cast<int32_t>(10 + i)));
  }
  EXPECT_EQ(t.ProbeIndex(range, 5), std::nullopt);  // more than the limit
  // The first entries in key order, or from the end (ORDER BY ... LIMIT).
  range.first = 3;
  tids = *t.ProbeIndex(range, 5);
  ASSERT_EQ(tids.size(), 3u);
  EXPECT_EQ((*t.Read(tids[0]))[1], Value::Integer(10));
  EXPECT_EQ((*t.Read(tids[2]))[1], Value::Integer(12));
  range.descending = true;
  tids = *t.ProbeIndex(range, 5);
  ASSERT_EQ(tids.size(), 3u);
  EXPECT_EQ((*t.Read(tids[0]))[1], Value::Integer(18));
  EXPECT_EQ((*t.Read(tids[2]))[1], Value::Integer(16));
  IndexRange all{IndexRange::kPrimaryKeyOrder, {}, {}, {}};
  all.first = 2;
  all.descending = true;
  tids = *t.ProbeIndex(all, 5);
  ASSERT_EQ(tids.size(), 2u);
  EXPECT_EQ((*t.Read(tids[0]))[1], Value::Integer(99));
  EXPECT_EQ((*t.Read(tids[1]))[1], Value::Integer(98));
  IndexRange none{IndexRange::kPrimaryKeyOrder,
                  {},
                  IndexBound{Value::Integer(50), false},
                  IndexBound{Value::Integer(50), false}};
  none.first = 2;
  none.descending = true;
  EXPECT_TRUE(t.ProbeIndex(none, 5)->empty());
  // A union of branches (an OR / IN list), overlapping ones counted once.
  IndexRange either;
  either.any_of = {IndexRange{IndexRange::kPrimaryKeyOrder,
                              {},
                              IndexBound{Value::Integer(10), true},
                              IndexBound{Value::Integer(12), true}},
                   IndexRange{IndexRange::kPrimaryKeyOrder,
                              {},
                              IndexBound{Value::Integer(11), true},
                              IndexBound{Value::Integer(13), true}},
                   IndexRange{IndexRange::kPrimaryKey, {Value::Integer(42)}, {}, {}},
                   IndexRange{0, {Value::Integer(7)}, {}, {}}};
  std::vector<TupleId> union_tids = *t.ProbeIndex(either, SIZE_MAX);
  std::vector<int64_t> b_values;
  for (TupleId tid : union_tids) b_values.push_back((*t.Read(tid))[1].GetInt());
  std::sort(b_values.begin(), b_values.end());
  EXPECT_EQ(b_values,
            (std::vector<int64_t>{7, 10, 11, 12, 13, 17, 27, 37, 42, 47, 57, 67, 77, 87, 97}));
  EXPECT_EQ(t.ProbeIndex(either, 14), std::nullopt);  // 15 rows
  t.RemovePrimaryKey({false, false});
  EXPECT_EQ(t.key_order_index(), nullptr);
  EXPECT_EQ(t.ProbeIndex(by_a, SIZE_MAX)->size(), 10u);
}

}  // namespace
}  // namespace forktail
