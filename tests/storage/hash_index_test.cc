#include <gtest/gtest.h>

#include <map>
#include <random>

#include "storage/storage.h"

namespace forktail {
namespace {

TupleId Tid(uint32_t i) { return {BlockNo(i / 1000), SlotNo(i % 1000)}; }

// The index alone: keys are tids' numbers, equality and hashes by side maps
// (the index asks for an entry's hash where it needs its home slot).
TEST(HashIndex, InsertFindEraseWithCollisions) {
  HashIndex index;
  std::map<uint64_t, uint32_t> key_of;   // packed tid -> key
  std::map<uint64_t, uint64_t> hash_of;  // packed tid -> hash
  HashIndex::HashOf rehash = [&](TupleId t) { return hash_of.at(t.Pack()); };
  auto find = [&](uint32_t key, uint64_t hash) {
    return index.Find(hash, [&](TupleId t) { return key_of[t.Pack()] == key; });
  };
  auto hash_for = [](uint32_t k) { return k < 50 ? uint64_t{7} : k * 0x9e3779b97f4a7c15ull; };
  // 50 keys share hash 7 (one long cluster), the rest are spread.
  for (uint32_t k = 0; k < 2000; k++) {
    key_of[Tid(k).Pack()] = k;
    hash_of[Tid(k).Pack()] = hash_for(k);
    index.Insert(hash_for(k), Tid(k), rehash);
  }
  EXPECT_EQ(index.size(), 2000u);
  EXPECT_TRUE(index.CheckInvariants(rehash));
  EXPECT_LE(index.size(), index.capacity() * HashIndex::kMaxLoadFactor);
  EXPECT_EQ(index.memory_bytes(), index.capacity() * sizeof(uint64_t));
  for (uint32_t k = 0; k < 2000; k++) ASSERT_EQ(find(k, hash_for(k)), Tid(k)) << k;
  EXPECT_FALSE(find(5000, 7));
  // Erase the middle of the colliding cluster: later entries shift back.
  int before = index.ProbeDistance(7, Tid(49));
  for (uint32_t k = 10; k < 20; k++) EXPECT_TRUE(index.Erase(7, Tid(k), rehash));
  EXPECT_FALSE(index.Erase(7, Tid(10), rehash));
  EXPECT_TRUE(index.CheckInvariants(rehash));
  EXPECT_LT(index.ProbeDistance(7, Tid(49)), before);
  for (uint32_t k = 0; k < 50; k++) EXPECT_EQ(find(k, 7).has_value(), k < 10 || k >= 20) << k;
}

TEST(HashIndex, GrowsAndStaysConsistentUnderChurn) {
  uint32_t seed = 12345;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  HashIndex index;
  std::map<uint32_t, uint64_t> live;  // key -> hash (few distinct hashes: many collisions)
  HashIndex::HashOf rehash = [&](TupleId t) {
    return live.at(t.block.value() * 1000 + t.slot.value());
  };
  for (int op = 0; op < 20000; op++) {
    uint32_t key = rng() % 3000;
    // Hashes that differ only in the bits the entry keeps (the top 16), in
    // the bits of the home slot, or in neither.
    uint64_t hash = rng() % 3 == 0   ? key % 97
                    : rng() % 2 == 0 ? (uint64_t{key} << 48) | 5
                                     : key * 0x9e3779b97f4a7c15ull;
    if (live.count(key)) {
      ASSERT_TRUE(index.Erase(live[key], Tid(key), rehash));
      live.erase(key);
    } else {
      live[key] = hash;
      index.Insert(hash, Tid(key), rehash);
    }
    if (op % 1000 == 0) {
      ASSERT_TRUE(index.CheckInvariants(rehash));
    }
  }
  ASSERT_TRUE(index.CheckInvariants(rehash));
  EXPECT_EQ(index.size(), live.size());
  for (auto [key, hash] : live) {
    uint32_t k = key;
    EXPECT_EQ(index.Find(hash, [&](TupleId t) { return t == Tid(k); }), Tid(k));
  }
  size_t cap = index.capacity();
  index.Clear();
  EXPECT_EQ(index.size(), 0u);
  EXPECT_LT(index.capacity(), cap);
  index.Reserve(10000, rehash);
  EXPECT_GE(index.capacity() * HashIndex::kMaxLoadFactor, 10000u);
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
  std::map<uint64_t, uint64_t> hash_of = {{far.Pack(), ones}, {near.Pack(), ones}};
  HashIndex::HashOf rehash = [&](TupleId t) { return hash_of.at(t.Pack()); };
  HashIndex index;
  index.Insert(ones, far, rehash);
  index.Insert(ones, near, rehash);
  EXPECT_EQ(index.Find(ones, [&](TupleId t) { return t == far; }), far);
  EXPECT_EQ(index.Find(ones, [&](TupleId t) { return t == near; }), near);
  EXPECT_TRUE(index.Erase(ones, far, rehash));
  EXPECT_FALSE(index.Find(ones, [&](TupleId t) { return t == far; }));
  EXPECT_EQ(index.Find(ones, [&](TupleId t) { return t == near; }), near);
  EXPECT_TRUE(index.CheckInvariants(rehash));
}

TEST(HashIndex, ThroughTableCompositeAndStringKeys) {
  TableSchema s{"orders",
                {{"w", Type::Integer()}, {"name", Type::Varchar(16)}, {"qty", Type::Integer()}},
                {ColumnId(1), ColumnId(0)}};
  Table t(TableId(1), s);
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
  t.RebuildIndex();
  EXPECT_EQ(t.index().size(), 1000u);
  EXPECT_TRUE(t.index().CheckInvariants(t.KeyHashOf()));
  EXPECT_EQ(t.LookupKey({Value::Text("n7"), Value::Integer(3)}), tid);
}

}  // namespace
}  // namespace forktail
