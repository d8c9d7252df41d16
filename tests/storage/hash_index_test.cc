#include <gtest/gtest.h>

#include <map>
#include <random>

#include "storage/storage.h"

namespace forktail {
namespace {

TupleId Tid(uint32_t i) { return {BlockNo(i / 1000), SlotNo(i % 1000)}; }

// The index alone: keys are tids' numbers, equality by a side map.
TEST(HashIndex, InsertFindEraseWithCollisions) {
  HashIndex index;
  std::map<uint64_t, uint32_t> key_of;  // packed tid -> key
  auto find = [&](uint32_t key, uint64_t hash) {
    return index.Find(hash, [&](TupleId t) { return key_of[t.Pack()] == key; });
  };
  // 50 keys share hash 7 (one long cluster), the rest are spread.
  for (uint32_t k = 0; k < 2000; k++) {
    uint64_t hash = k < 50 ? 7 : k * 0x9e3779b97f4a7c15ull;
    key_of[Tid(k).Pack()] = k;
    index.Insert(hash, Tid(k));
  }
  EXPECT_EQ(index.size(), 2000u);
  EXPECT_TRUE(index.CheckInvariants());
  EXPECT_LE(index.size(), index.capacity() * HashIndex::kMaxLoadFactor);
  for (uint32_t k = 0; k < 2000; k++) {
    uint64_t hash = k < 50 ? 7 : k * 0x9e3779b97f4a7c15ull;
    ASSERT_EQ(find(k, hash), Tid(k)) << k;
  }
  EXPECT_FALSE(find(5000, 7));
  // Erase the middle of the colliding cluster: later entries shift back.
  int before = index.ProbeDistance(7, Tid(49));
  for (uint32_t k = 10; k < 20; k++) EXPECT_TRUE(index.Erase(7, Tid(k)));
  EXPECT_FALSE(index.Erase(7, Tid(10)));
  EXPECT_TRUE(index.CheckInvariants());
  EXPECT_LT(index.ProbeDistance(7, Tid(49)), before);
  for (uint32_t k = 0; k < 50; k++) EXPECT_EQ(find(k, 7).has_value(), k < 10 || k >= 20) << k;
}

TEST(HashIndex, GrowsAndStaysConsistentUnderChurn) {
  uint32_t seed = 12345;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  HashIndex index;
  std::map<uint32_t, uint64_t> live;  // key -> hash (few distinct hashes: many collisions)
  for (int op = 0; op < 20000; op++) {
    uint32_t key = rng() % 3000;
    uint64_t hash = rng() % 2 ? key % 97 : key * 0x9e3779b97f4a7c15ull;
    if (live.count(key)) {
      ASSERT_TRUE(index.Erase(live[key], Tid(key)));
      live.erase(key);
    } else {
      index.Insert(hash, Tid(key));
      live[key] = hash;
    }
    if (op % 1000 == 0) {
      ASSERT_TRUE(index.CheckInvariants());
    }
  }
  ASSERT_TRUE(index.CheckInvariants());
  EXPECT_EQ(index.size(), live.size());
  for (auto [key, hash] : live) {
    uint32_t k = key;
    EXPECT_EQ(index.Find(hash, [&](TupleId t) { return t == Tid(k); }), Tid(k));
  }
  size_t cap = index.capacity();
  index.Clear();
  EXPECT_EQ(index.size(), 0u);
  EXPECT_LT(index.capacity(), cap);
  index.Reserve(10000);
  EXPECT_GE(index.capacity() * HashIndex::kMaxLoadFactor, 10000u);
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
  EXPECT_TRUE(t.index().CheckInvariants());
  EXPECT_EQ(t.LookupKey({Value::Text("n7"), Value::Integer(3)}), tid);
}

}  // namespace
}  // namespace forktail
