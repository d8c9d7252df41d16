#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "storage/storage.h"

namespace forktail {
namespace {

TupleId Tid(uint32_t i) { return {BlockNo(i / 1000), SlotNo(i % 1000)}; }

// The index alone: keys are tids' numbers, equality and hashes by side maps.
// The index never asks for a hash: growth is a Rebuild from the caller's
// entries (here the side map), erases leave tombstones.
struct Harness {
  HashIndex index;
  std::map<uint64_t, uint64_t> hash_of;  // packed tid -> hash, the live entries
  HashIndex::HashOf rehash = [this](TupleId t) { return hash_of.at(t.Pack()); };

  void Insert(uint64_t hash, TupleId tid) {
    hash_of[tid.Pack()] = hash;
    index.Insert(hash, tid);
    if (index.NeedsRebuild()) Rebuild();
  }
  bool Erase(uint64_t hash, TupleId tid) {
    hash_of.erase(tid.Pack());
    return index.Erase(hash, tid);
  }
  void Rebuild() {
    index.Rebuild(hash_of.size(), [this](const std::function<void(uint64_t, TupleId)>& add) {
      for (const auto& [packed, hash] : hash_of) add(hash, TupleId::Unpack(packed));
    });
  }
};

TEST(HashIndex, InsertFindEraseWithCollisions) {
  Harness h;
  std::map<uint64_t, uint32_t> key_of;  // packed tid -> key
  auto find = [&](uint32_t key, uint64_t hash) {
    return h.index.Find(hash, [&](TupleId t) { return key_of[t.Pack()] == key; });
  };
  auto hash_for = [](uint32_t k) { return k < 50 ? uint64_t{7} : k * 0x9e3779b97f4a7c15ull; };
  // 50 keys share hash 7 (one long cluster), the rest are spread.
  for (uint32_t k = 0; k < 2000; k++) {
    key_of[Tid(k).Pack()] = k;
    h.Insert(hash_for(k), Tid(k));
  }
  EXPECT_EQ(h.index.size(), 2000u);
  EXPECT_TRUE(h.index.CheckInvariants(h.rehash));
  EXPECT_LE(h.index.size(), h.index.capacity() * HashIndex::kMaxLoadFactor);
  EXPECT_EQ(h.index.memory_bytes(), h.index.capacity() * sizeof(uint64_t));
  for (uint32_t k = 0; k < 2000; k++) ASSERT_EQ(find(k, hash_for(k)), Tid(k)) << k;
  EXPECT_FALSE(find(5000, 7));
  // Erase the middle of the colliding cluster: tombstones, which probes pass.
  for (uint32_t k = 10; k < 20; k++) EXPECT_TRUE(h.Erase(7, Tid(k)));
  EXPECT_FALSE(h.index.Erase(7, Tid(10)));
  EXPECT_EQ(h.index.tombstones(), 10u);
  EXPECT_TRUE(h.index.CheckInvariants(h.rehash));
  for (uint32_t k = 0; k < 50; k++) EXPECT_EQ(find(k, 7).has_value(), k < 10 || k >= 20) << k;
  // An insert takes a tombstone's slot.
  key_of[Tid(12).Pack()] = 12;
  h.Insert(7, Tid(12));
  EXPECT_EQ(h.index.tombstones(), 9u);
  EXPECT_EQ(find(12, 7), Tid(12));
  // A rebuild drops the tombstones and keeps every entry.
  h.Rebuild();
  EXPECT_EQ(h.index.tombstones(), 0u);
  EXPECT_TRUE(h.index.CheckInvariants(h.rehash));
  for (uint32_t k = 0; k < 2000; k++) {
    EXPECT_EQ(find(k, hash_for(k)).has_value(), k < 10 || k >= 20 || k == 12) << k;
  }
}

// The last entry of a cluster leaves an empty slot, not a tombstone, and so
// do the tombstones right before it.
TEST(HashIndex, EraseAtTheEndOfAClusterLeavesNoTombstones) {
  Harness h;
  for (uint32_t k = 0; k < 5; k++) h.Insert(3, Tid(k));  // slots 3..7
  EXPECT_TRUE(h.Erase(3, Tid(2)));
  EXPECT_TRUE(h.Erase(3, Tid(3)));
  EXPECT_EQ(h.index.tombstones(), 2u);
  EXPECT_TRUE(h.Erase(3, Tid(4)));  // the cluster's end: slots 5..7 empty again
  EXPECT_EQ(h.index.tombstones(), 0u);
  EXPECT_TRUE(h.index.CheckInvariants(h.rehash));
  EXPECT_EQ(h.index.Find(3, [](TupleId t) { return t == Tid(1); }), Tid(1));
}

TEST(HashIndex, GrowsAndStaysConsistentUnderChurn) {
  uint32_t seed = 12345;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  Harness h;
  std::map<uint32_t, uint64_t> live;  // key -> hash (few distinct hashes: many collisions)
  size_t rebuilt_at_capacity = 0;
  for (int op = 0; op < 20000; op++) {
    uint32_t key = rng() % 3000;
    // Hashes that differ only in low bits (one home slot at every capacity
    // this reaches), only in the bits the entry keeps (the top 16), or
    // throughout.
    uint64_t hash = rng() % 3 == 0   ? key % 97
                    : rng() % 2 == 0 ? (uint64_t{key} << 48) | 5
                                     : key * 0x9e3779b97f4a7c15ull;
    if (live.count(key)) {
      ASSERT_TRUE(h.Erase(live[key], Tid(key)));
      live.erase(key);
    } else {
      live[key] = hash;
      const size_t capacity = h.index.capacity();
      h.Insert(hash, Tid(key));
      if (h.index.capacity() == capacity && h.index.tombstones() == 0) rebuilt_at_capacity++;
    }
    ASSERT_LE(h.index.size() + h.index.tombstones(),
              h.index.capacity() * HashIndex::kMaxLoadFactor + 1);
    if (op % 1000 == 0) {
      ASSERT_TRUE(h.index.CheckInvariants(h.rehash));
    }
  }
  ASSERT_TRUE(h.index.CheckInvariants(h.rehash));
  EXPECT_EQ(h.index.size(), live.size());
  // Churn at a steady size clears tombstones without growing for ever.
  EXPECT_LE(h.index.capacity(), 8192u);
  for (auto [key, hash] : live) {
    uint32_t k = key;
    EXPECT_EQ(h.index.Find(hash, [&](TupleId t) { return t == Tid(k); }), Tid(k));
  }
  size_t cap = h.index.capacity();
  h.index.Clear();
  EXPECT_EQ(h.index.size(), 0u);
  EXPECT_LT(h.index.capacity(), cap);
}

// Inserts keep the load between kGrownLoadFactor and kMaxLoadFactor once
// the index has grown: a capacity is whatever the entries need, not a power
// of two (doubling one left TPC-H's lineitem index at a load of 0.36).
TEST(HashIndex, GrowingKeepsTheLoadBetweenHalfAndTheLoadFactor) {
  Harness h;
  double lowest = 1;
  for (uint32_t k = 0; k < 200000; k++) {
    h.Insert((k + 1) * 0x9e3779b97f4a7c15ull, Tid(k));
    if (k >= 1000) {
      const double load =
          static_cast<double>(h.index.size()) / static_cast<double>(h.index.capacity());
      lowest = std::min(lowest, load);
      ASSERT_LE(load, HashIndex::kMaxLoadFactor) << k;
    }
  }
  EXPECT_GE(lowest, HashIndex::kGrownLoadFactor - 0.01);
  EXPECT_TRUE(h.index.CheckInvariants(h.rehash));
  for (uint32_t k = 0; k < 200000; k += 997) {
    EXPECT_EQ(h.index.Find((k + 1) * 0x9e3779b97f4a7c15ull, [&](TupleId t) { return t == Tid(k); }),
              Tid(k));
  }
}

// An entry holds the tid in 48 bits: the largest block and slot numbers it
// allows come back intact, beside a tag of all ones.
TEST(HashIndex, EntriesKeepTheLargestTids) {
  const TupleId far{BlockNo(HashIndex::kMaxBlock), SlotNo((1u << HashIndex::kSlotBits) - 1)};
  const TupleId near{BlockNo(0), SlotNo(0)};
  EXPECT_TRUE(HashIndex::Fits(far));
  EXPECT_FALSE(HashIndex::Fits({BlockNo(HashIndex::kMaxBlock + 1), SlotNo(0)}));
  EXPECT_FALSE(HashIndex::Fits({BlockNo(0), SlotNo(1u << HashIndex::kSlotBits)}));
  const uint64_t ones = ~uint64_t{0};
  Harness h;
  h.Insert(ones, far);
  h.Insert(ones, near);
  EXPECT_EQ(h.index.Find(ones, [&](TupleId t) { return t == far; }), far);
  EXPECT_EQ(h.index.Find(ones, [&](TupleId t) { return t == near; }), near);
  EXPECT_TRUE(h.Erase(ones, far));
  EXPECT_FALSE(h.index.Find(ones, [&](TupleId t) { return t == far; }));
  EXPECT_EQ(h.index.Find(ones, [&](TupleId t) { return t == near; }), near);
  EXPECT_TRUE(h.index.CheckInvariants(h.rehash));
}

TEST(HashIndex, ThroughTableCompositeAndStringKeys) {
  TableSchema s{"orders",
                {{"w", Type::Integer()}, {"name", Type::Varchar(16)}, {"qty", Type::Integer()}},
                {ColumnId(1), ColumnId(0)}};
  Table t(TableId(1), s);
  t.BuildKeyIndex();
  for (int w = 0; w < 20; w++) {
    for (int n = 0; n < 50; n++) {
      t.Insert({Value::Integer(w), Value::Text("n" + std::to_string(n)), Value::Integer(w * n)});
    }
  }
  EXPECT_EQ(t.index().size(), 1000u);
  auto tid = t.LookupKey({Value::Text("n7"), Value::BigInt(3)});  // cast BIGINT -> INTEGER
  ASSERT_TRUE(tid);
  EXPECT_EQ(t.ReadColumn(*tid, ColumnId(2))->GetInt(), 21);
  EXPECT_FALSE(t.LookupKey({Value::Text("n7"), Value::Integer(30)}));
  EXPECT_FALSE(t.LookupKey({Value::Null(Type::Text()), Value::Integer(3)}));
  auto hash_of = [&t](TupleId tid) { return t.KeyHashOfRow(tid); };
  EXPECT_TRUE(t.index().CheckInvariants(hash_of));
  t.RebuildIndex();
  EXPECT_EQ(t.index().size(), 1000u);
  EXPECT_TRUE(t.index().CheckInvariants(hash_of));
  EXPECT_EQ(t.LookupKey({Value::Text("n7"), Value::Integer(3)}), tid);
}

// Deletes, key updates and re-inserts through the table: the key index
// keeps every live key findable and rebuilds itself (from the ordered
// primary-key index) when tombstones pile up, at a bounded capacity.
TEST(HashIndex, ThroughTableUnderKeyChurn) {
  Table t(TableId(1), {"kv", {{"k", Type::Integer()}, {"v", Type::Integer()}}, {ColumnId(0)}});
  t.BuildKeyIndex();
  std::map<int, TupleId> live;
  std::mt19937 rng(7);
  for (int op = 0; op < 30000; op++) {
    const int k = static_cast<int>(rng() % 2000);
    auto it = live.find(k);
    if (it == live.end()) {
      live[k] = t.Insert({Value::Integer(k), Value::Integer(op)});
    } else if (rng() % 2 == 0) {
      t.Delete(it->second);
      live.erase(it);
    } else {
      const int to = k + 2000 + static_cast<int>(rng() % 2000);  // a key outside [0, 2000)
      if (!t.LookupKey({Value::Integer(to)})) {
        t.Update(it->second, {{ColumnId(0), Value::Integer(to)}});
        t.Delete(*t.LookupKey({Value::Integer(to)}));
        live.erase(it);
      }
    }
  }
  EXPECT_EQ(t.index().size(), live.size());
  EXPECT_TRUE(t.index().CheckInvariants([&t](TupleId tid) { return t.KeyHashOfRow(tid); }));
  for (const auto& [k, tid] : live) ASSERT_EQ(t.LookupKey({Value::Integer(k)}), tid) << k;
  EXPECT_LE(t.index().capacity(), 8192u);
}

// A table holds no key hash index until a lookup asks for it: inserts check
// uniqueness through the ordered index, lookups find their rows through it,
// and the index is built between transactions only for a table that was
// looked up, within the size limit (table.h, "Indexes").
TEST(HashIndex, BuiltOnlyForTablesWhoseKeysAreLookedUp) {
  Table scanned(TableId(1), {"s", {{"k", Type::Integer()}, {"v", Type::Integer()}}, {ColumnId(0)}});
  Table looked(TableId(2), {"l", {{"k", Type::Integer()}, {"v", Type::Integer()}}, {ColumnId(0)}});
  for (int k = 0; k < 5000; k++) {
    const int key = (k * 7919) % 5000;  // not in key order: no shortcut past the last key
    scanned.Insert({Value::Integer(key), Value::Integer(k)});
    looked.Insert({Value::Integer(key), Value::Integer(k)});
  }
  EXPECT_THROW(scanned.Insert({Value::Integer(1234), Value::Integer(0)}), DbError);  // 23505
  EXPECT_FALSE(scanned.key_index_built());
  EXPECT_EQ(scanned.index().memory_bytes(), looked.index().memory_bytes());  // both empty
  const uint64_t requests = Table::KeyIndexRequests();
  const std::optional<TupleId> tid = looked.LookupKey({Value::Integer(42)});
  ASSERT_TRUE(tid);
  EXPECT_EQ(looked.ReadColumn(*tid, ColumnId(0))->GetInt(), 42);
  EXPECT_FALSE(looked.LookupKey({Value::Integer(5000)}));
  EXPECT_EQ(Table::KeyIndexRequests(), requests + 1);  // once per table
  EXPECT_FALSE(scanned.BuildKeyIndexIfWanted());       // nobody asked
  EXPECT_FALSE(looked.BuildKeyIndexIfWanted(4999));    // past the limit
  EXPECT_TRUE(looked.BuildKeyIndexIfWanted(5000));
  EXPECT_TRUE(looked.key_index_built());
  EXPECT_EQ(looked.index().size(), 5000u);
  EXPECT_TRUE(looked.index().CheckInvariants([&](TupleId t) { return looked.KeyHashOfRow(t); }));
  EXPECT_EQ(looked.LookupKey({Value::Integer(42)}), tid);
  // Writes keep it exact from then on; dropping it sends lookups back to
  // the ordered index.
  looked.Delete(*tid);
  const TupleId again = looked.Insert({Value::Integer(42), Value::Integer(1)});
  EXPECT_EQ(looked.index().size(), 5000u);
  EXPECT_EQ(looked.LookupKey({Value::Integer(42)}), again);
  looked.DropKeyIndex();
  EXPECT_EQ(looked.index().size(), 0u);
  EXPECT_EQ(looked.LookupKey({Value::Integer(42)}), again);
  EXPECT_TRUE(scanned.LookupKey({Value::Integer(42)}));
}

}  // namespace
}  // namespace forktail
