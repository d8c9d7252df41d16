// ByteStringSet: the same answers as std::set<std::string> under random
// inserts, erases, lower_bounds and full iterations (forward and backward) (keys of every length,
// with zero and 0xFF bytes, arriving in order, in reverse and at random), the
// same over packed (front-coded) leaves that later writes unpack, and the
// footprint of index entries arriving in key order.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "storage/table/byte_string_set.h"

namespace forktail {
namespace {

using namespace std::string_literals;

// Checks every entry in order and a lower_bound at each model key.
void ExpectSame(const ByteStringSet& set, const std::set<std::string>& model) {
  ASSERT_EQ(set.size(), model.size());
  auto it = set.begin();
  for (const std::string& k : model) {
    ASSERT_FALSE(it == set.end());
    ASSERT_EQ(*it, k);
    ++it;
  }
  EXPECT_TRUE(it == set.end());
  // And backward, from the end.
  auto back = set.end();
  for (auto m = model.rbegin(); m != model.rend(); ++m) {
    --back;
    ASSERT_EQ(*back, *m);
  }
  EXPECT_TRUE(back == set.begin());
}

void ExpectLowerBound(const ByteStringSet& set, const std::set<std::string>& model,
                      const std::string& key) {
  auto want = model.lower_bound(key);
  auto got = set.lower_bound(key);
  if (want == model.end()) {
    EXPECT_TRUE(got == set.end()) << "key size " << key.size();
  } else {
    ASSERT_FALSE(got == set.end());
    EXPECT_EQ(*got, *want);
  }
}

std::string RandomKey(std::mt19937_64& rng) {
  // Mostly short keys sharing prefixes; some past 254 bytes (the long length
  // form) and past a leaf's size.
  size_t n = rng() % 12;
  const int kind = static_cast<int>(rng() % 100);
  if (kind == 0) n = 255 + rng() % 600;
  if (kind == 1) n = ByteStringSet::kLeafBytes + rng() % 3000;
  std::string s(n, '\0');
  for (char& c : s) {
    const uint64_t r = rng() % 8;
    c = r == 0 ? '\0' : r == 1 ? '\xff' : static_cast<char>('a' + r);
  }
  return s;
}

// One random step against the model: an insert (op < inserts), an erase
// (op < erases; of an existing key most of the time) or a lower_bound.
void RandomStep(ByteStringSet& set, std::set<std::string>& model, std::mt19937_64& rng,
                const std::string& key, uint64_t op, uint64_t inserts, uint64_t erases, int step) {
  if (op < inserts) {
    ASSERT_EQ(set.insert(key), model.insert(key).second) << "step " << step;
  } else if (op < erases) {
    std::string victim = key;
    if (!model.empty() && rng() % 4 != 0) {
      auto it = model.lower_bound(key);
      if (it == model.end()) it = model.begin();
      victim = *it;
    }
    ASSERT_EQ(set.erase(victim), model.erase(victim) == 1) << "step " << step;
  } else {
    ExpectLowerBound(set, model, key);
  }
}

TEST(ByteStringSet, EmptySet) {
  ByteStringSet set;
  EXPECT_EQ(set.size(), 0u);
  EXPECT_TRUE(set.begin() == set.end());
  EXPECT_TRUE(set.lower_bound("") == set.end());
  EXPECT_FALSE(set.erase("x"));
  EXPECT_TRUE(set.insert(""));
  EXPECT_FALSE(set.insert(""));
  EXPECT_EQ(*set.begin(), "");
  EXPECT_TRUE(set.erase(""));
  EXPECT_TRUE(set.begin() == set.end());
}

TEST(ByteStringSet, MatchesStdSetUnderRandomOperations) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    std::mt19937_64 rng(seed);
    ByteStringSet set;
    std::set<std::string> model;
    for (int step = 0; step < 60000; step++) {
      const std::string key = RandomKey(rng);
      const uint64_t op = rng() % 10;
      ASSERT_NO_FATAL_FAILURE(RandomStep(set, model, rng, key, op, 6, 9, step));
      if (step % 5000 == 0) ExpectSame(set, model);
    }
    ExpectSame(set, model);
    // Erase everything, in random order: leaves empty, merge and vanish.
    std::vector<std::string> all(model.begin(), model.end());
    std::shuffle(all.begin(), all.end(), rng);
    for (size_t i = 0; i < all.size(); i++) {
      ASSERT_TRUE(set.erase(all[i]));
      model.erase(all[i]);
      if (i % 997 == 0) {
        ExpectSame(set, model);
        ExpectLowerBound(set, model, all[i]);
      }
    }
    ExpectSame(set, model);
  }
}

// Mostly rising keys take the last leaf without a search (insert's fast
// path); mixed with repeats of the largest key, keys just below it, and
// erases of the largest, the set still equals the model.
TEST(ByteStringSet, RisingKeysMixedWithRepeatsAndErasesOfTheLargest) {
  std::mt19937_64 rng(11);
  ByteStringSet set;
  std::set<std::string> model;
  uint64_t next = 1000;
  auto key = [](uint64_t i) {
    std::string k = "k";
    for (int b = 7; b >= 0; b--) k.push_back(static_cast<char>((i >> (8 * b)) & 0xFF));
    return k;
  };
  for (int step = 0; step < 40000; step++) {
    const uint64_t op = rng() % 20;
    std::string k;
    if (op < 14) {
      next += 1 + rng() % 3;
      k = key(next);
    } else if (op < 16) {
      k = model.empty() ? key(next) : *model.rbegin();  // the largest again
    } else if (op < 18) {
      k = key(next - rng() % 5);  // just below (or at) the largest
    } else {
      if (model.empty()) continue;
      const std::string largest = *model.rbegin();
      ASSERT_TRUE(set.erase(largest)) << step;
      model.erase(largest);
      continue;
    }
    ASSERT_EQ(set.insert(k), model.insert(k).second) << "step " << step;
    if (step % 4000 == 0) ExpectSame(set, model);
  }
  ExpectSame(set, model);
  EXPECT_GT(set.packed_leaves(), 0u);
}

TEST(ByteStringSet, KeysInOrderInReverseAndDeletedFromTheFront) {
  ByteStringSet set;
  std::set<std::string> model;
  auto key = [](uint32_t i) {
    std::string k = "prefix";
    for (int b = 3; b >= 0; b--) k.push_back(static_cast<char>((i >> (8 * b)) & 0xFF));
    return k;
  };
  for (uint32_t i = 0; i < 50000; i++) {
    ASSERT_TRUE(set.insert(key(i)));
    model.insert(key(i));
  }
  for (uint32_t i = 100000; i > 50000; i--) {
    ASSERT_TRUE(set.insert(key(i)));
    model.insert(key(i));
  }
  ExpectSame(set, model);
  // A queue: the oldest keys go, new ones arrive (TPC-C's new_order).
  for (uint32_t i = 0; i < 40000; i++) {
    ASSERT_TRUE(set.erase(key(i)));
    model.erase(key(i));
    ASSERT_TRUE(set.insert(key(200000 + i)));
    model.insert(key(200000 + i));
  }
  ExpectSame(set, model);
  for (uint32_t probe : {0u, 39999u, 40000u, 49999u, 50000u, 50001u, 150000u, 239999u, 240000u}) {
    ExpectLowerBound(set, model, key(probe));
  }
}

TEST(ByteStringSet, CopiesAreIndependent) {
  ByteStringSet a;
  for (int i = 0; i < 5000; i++) a.insert("k" + std::to_string(i));
  ByteStringSet b = a;
  b.erase("k42");
  b.insert("zz");
  EXPECT_EQ(a.size(), 5000u);
  EXPECT_EQ(b.size(), 5000u);
  EXPECT_FALSE(a.lower_bound("k42") == a.end());
  EXPECT_EQ(*a.lower_bound("k42"), "k42");
  EXPECT_EQ(*b.lower_bound("k42"), "k420");
  a = b;
  EXPECT_EQ(*a.lower_bound("k42"), "k420");
}

TEST(ByteStringSet, MoveAssignmentAndClearKeepBothSetsUsable) {
  // Each set's leaves live in its own pool: a move hands the pool over with
  // them, and the leaves a set held before go back to its old pool first.
  ByteStringSet a, b;
  for (int i = 0; i < 20000; i++) {
    a.insert("a" + std::to_string(i));
    b.insert("b" + std::to_string(i));
  }
  a = std::move(b);
  EXPECT_EQ(a.size(), 20000u);
  EXPECT_EQ(*a.begin(), "b0");
  for (int i = 0; i < 20000; i += 3) EXPECT_TRUE(a.erase("b" + std::to_string(i)));
  ByteStringSet c(a);
  a.clear();
  EXPECT_TRUE(a.empty());
  EXPECT_TRUE(a.insert("x"));
  EXPECT_EQ(*a.begin(), "x");
  EXPECT_EQ(c.size(), 20000u - 6667u);
  size_t n = 0;
  for (std::string_view e : c) n += e[0] == 'b';
  EXPECT_EQ(n, c.size());
}

TEST(ByteStringSet, EntriesArrivingInOrderCostLittleMoreThanTheirBytes) {
  // A two-column integer key and an 8-byte tid, as an ordered primary key's
  // entries: 2 x 9 + 8 = 26 bytes.
  ByteStringSet set;
  constexpr int kEntries = 200000;
  for (int i = 0; i < kEntries; i++) {
    std::string e(26, '\x01');
    for (int b = 0; b < 4; b++) e[5 + b] = static_cast<char>((i >> (8 * (3 - b))) & 0xFF);
    set.insert(e);
  }
  const double per_entry = static_cast<double>(set.memory_bytes()) / kEntries;
  // 26 bytes, a length byte and a 4-byte offset, plus leaf slack.
  EXPECT_LT(per_entry, 40.0) << per_entry;
}

// An ordered primary key's entry as OrderedIndex makes it for TPC-H's
// lineitem: (marker, l_orderkey), (marker, l_linenumber), a 6-byte tid.
std::string LineitemEntry(uint32_t order, uint32_t line, uint64_t tid) {
  std::string e;
  for (uint32_t v : {order, line}) {
    e.push_back('\x01');
    for (int b = 3; b >= 0; b--) e.push_back(static_cast<char>((v >> (8 * b)) & 0xFF));
  }
  for (int b = 5; b >= 0; b--) e.push_back(static_cast<char>((tid >> (8 * b)) & 0xFF));
  return e;
}

TEST(ByteStringSet, KeysArrivingInOrderArePackedAndTakeAboutHalf) {
  // Orders of 1-7 lines, loaded in key order as COPY loads lineitem.
  ByteStringSet packed;
  std::vector<std::string> all;
  std::mt19937_64 rng(7);
  for (uint32_t order = 1; all.size() < 300000; order += 1 + rng() % 3) {
    const uint32_t lines = 1 + static_cast<uint32_t>(rng() % 7);
    for (uint32_t line = 1; line <= lines; line++) {
      all.push_back(LineitemEntry(order, line, all.size()));
      ASSERT_TRUE(packed.insert(all.back()));
    }
  }
  EXPECT_EQ(packed.packed_leaves(), packed.leaves() - 1);  // all but the one still filling
  // The same entries arriving at random stay plain.
  ByteStringSet plain;
  std::vector<std::string> shuffled = all;
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  for (const std::string& e : shuffled) ASSERT_TRUE(plain.insert(e));
  EXPECT_EQ(plain.packed_leaves(), 0u);
  const double packed_bytes = static_cast<double>(packed.memory_bytes()) / all.size();
  const double plain_bytes = static_cast<double>(plain.memory_bytes()) / all.size();
  // 16-byte entries: ~10 bytes packed (an order's later lines share 9 bytes
  // with the line before and store 1 + 1 + 7), plus the leaves' and the
  // map's share; plain: 16 + 5, in leaves that random splits leave half full.
  EXPECT_LT(packed_bytes, 13.0) << packed_bytes;
  EXPECT_GT(plain_bytes, 20.0) << plain_bytes;
  const std::set<std::string> model(all.begin(), all.end());
  ExpectSame(packed, model);
  for (size_t i = 0; i < all.size(); i += 97) {
    ExpectLowerBound(packed, model, all[i]);
    ExpectLowerBound(packed, model, all[i].substr(0, 5));            // an order's lines
    ExpectLowerBound(packed, model, all[i].substr(0, 10) + "\xff");  // past a line
    EXPECT_FALSE(packed.insert(all[i]));                             // a duplicate
  }
  EXPECT_EQ(packed.packed_leaves(), packed.leaves() - 1);  // duplicates unpack nothing
}

TEST(ByteStringSet, KeysNearlyInOrderArePackedToo) {
  // partsupp: parts in order, each part's four suppliers in no order.
  ByteStringSet set;
  std::set<std::string> model;
  std::mt19937_64 rng(11);
  for (uint32_t part = 1; part <= 40000; part++) {
    std::vector<uint32_t> suppliers;
    for (uint32_t s = 0; s < 4; s++) suppliers.push_back(static_cast<uint32_t>(rng() % 10000));
    for (uint32_t s : suppliers) {
      const std::string e = LineitemEntry(part, s, model.size());
      ASSERT_EQ(set.insert(e), model.insert(e).second);
    }
  }
  ExpectSame(set, model);
  EXPECT_GE(set.packed_leaves() * 10, set.leaves() * 9)
      << set.packed_leaves() << " of " << set.leaves();
  EXPECT_LT(static_cast<double>(set.memory_bytes()) / model.size(), 13.0);
}

TEST(ByteStringSet, PackedLeavesMatchStdSetUnderRandomOperations) {
  // Keys of every length (long ones included) loaded in order, so that the
  // leaves are packed, then random inserts and erases unpack some of them.
  for (uint64_t seed : {4u, 5u}) {
    std::mt19937_64 rng(seed);
    std::set<std::string> model;
    for (int i = 0; i < 40000; i++) model.insert(RandomKey(rng) + RandomKey(rng));
    ByteStringSet set;
    for (const std::string& k : model) ASSERT_TRUE(set.insert(k));
    ASSERT_GT(set.packed_leaves(), 0u);
    ExpectSame(set, model);
    ByteStringSet copy(set);  // packed leaves copy as they are
    const std::set<std::string> loaded = model;
    for (int step = 0; step < 40000; step++) {
      const std::string key = RandomKey(rng) + RandomKey(rng);
      const uint64_t op = rng() % 10;
      ASSERT_NO_FATAL_FAILURE(RandomStep(set, model, rng, key, op, 4, 7, step));
      if (step % 8000 == 0) ExpectSame(set, model);
    }
    ExpectSame(set, model);
    ExpectSame(copy, loaded);  // the changes went to the original only
  }
}

}  // namespace
}  // namespace forktail
