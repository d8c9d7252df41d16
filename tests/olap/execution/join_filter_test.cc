// Bloom filter: no false negatives, a bounded false-positive rate; exact
// filter: exactly the inserted keys, NULLs and out-of-range keys rejected.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "olap/execution/join/join_filter.h"
#include "tests/olap/execution/test_data.h"

namespace forktail {
namespace {

TEST(JoinFilter, BloomNoFalseNegativesFewFalsePositives) {
  const uint64_t seed = 31;
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> in(20000), out(20000);
  for (auto& h : in) h = KeyEncoder::Mix(rng());
  for (auto& h : out) h = KeyEncoder::Mix(rng());
  BloomFilter bf(in.size());
  std::thread t1([&] {
    for (size_t i = 0; i < in.size(); i += 2) bf.Insert(in[i]);
  });
  std::thread t2([&] {
    for (size_t i = 1; i < in.size(); i += 2) bf.Insert(in[i]);
  });
  t1.join();
  t2.join();
  for (uint64_t h : in) ASSERT_TRUE(bf.MayContain(h)) << "seed " << seed;
  size_t fp = 0;
  for (uint64_t h : out) fp += bf.MayContain(h);
  EXPECT_LT(fp, out.size() / 10) << "seed " << seed;
}

TEST(JoinFilter, BloomFilterChunkMatchesHashJoinKeys) {
  std::vector<Type> types = {Type::Integer(), Type::Text()};
  std::vector<test::ColumnGen> gens = {{Type::Integer(), 0.1, 1000}, {Type::Text(), 0.1, 3}};
  auto build = test::RandomRows(gens, 300, 32);
  auto probe = test::RandomRows(gens, 4000, 33);
  KeyEncoder enc(types);
  BloomFilter bf(build.size());
  for (auto& c : test::ToChunks(types, build)) {
    std::vector<uint64_t> keys(c.size() * enc.words()), hashes(c.size());
    enc.Encode(c, {0, 1}, c.rows(), keys.data(), hashes.data());
    for (uint32_t k = 0; k < c.size(); ++k) bf.Insert(hashes[k]);
  }
  std::set<std::string> build_keys;
  for (auto& r : build) {
    if (!r[0].is_null() && !r[1].is_null()) build_keys.insert(test::ShowRow(r));
  }
  size_t kept = 0, must = 0;
  for (auto& c : test::ToChunks(types, probe)) {
    DataChunk& chunk = c;
    bf.FilterChunk(enc, {0, 1}, &chunk);
    std::set<std::string> survivors;
    for (auto& line : test::ChunkRows(chunk)) survivors.insert(line);
    kept += chunk.count();
    for (auto& line : survivors) EXPECT_EQ(line.find("NULL"), std::string::npos);
    for (auto& k : build_keys) must += survivors.count(k);
  }
  size_t matching = 0;
  for (auto& r : probe) matching += build_keys.count(test::ShowRow(r));
  EXPECT_GE(kept, matching);
  EXPECT_LT(kept, probe.size() / 2);
}

TEST(JoinFilter, ExactFilterIsExact) {
  ExactFilter f(100, 10000);
  std::set<int64_t> keys;
  std::mt19937_64 rng(34);
  for (int i = 0; i < 500; ++i) {
    int64_t k = std::uniform_int_distribution<int64_t>(100, 10000)(rng);
    keys.insert(k);
    f.Insert(k);
  }
  std::vector<Type> types = {Type::BigInt()};
  auto rows = test::RandomRows({{Type::BigInt(), 0.1, 24000}}, 5000, 35);
  for (auto& c : test::ToChunks(types, rows)) {
    f.FilterChunk(0, &c);
    Rows live = c.rows();
    std::set<uint32_t> kept(live.sel, live.sel + live.count);
    for (uint32_t i = 0; i < c.size(); ++i) {
      Value v = test::ValueAt(c.column(0), i);
      bool want = !v.is_null() && keys.count(v.GetInt() + 0) > 0;
      ASSERT_EQ(kept.count(i) > 0, want) << "seed 35 row " << i;
    }
  }
}

}  // namespace
}  // namespace forktail
