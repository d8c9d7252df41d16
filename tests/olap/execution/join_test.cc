// Differential tests of the hash join (build with 1 and 2 threads, every join
// type, compaction off / fixed / learned) against a nested-loop reference.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>

#include "olap/execution/join/join_probe.h"
#include "tests/olap/execution/test_data.h"

namespace forktail {
namespace {

// Both sides: 0 k1 INTEGER, 1 k2 TEXT, 2 payload BIGINT, 3 payload TEXT.
std::vector<test::ColumnGen> Gens(int64_t domain, double zipf) {
  return {{Type::Integer(), 0.1, domain, zipf},
          {Type::Text(), 0.05, 2},
          {Type::BigInt(), 0.1, 1000},
          {Type::Text(), 0.1, 20}};
}
std::vector<Type> Types() { return {Type::Integer(), Type::Text(), Type::BigInt(), Type::Text()}; }

bool HasNullKey(const Row& r) { return r[0].is_null() || r[1].is_null(); }
std::string KeyOf(const Row& r) { return test::Show(r[0]) + "|" + test::Show(r[1]); }

std::multiset<std::string> Reference(JoinType type, const std::vector<Row>& build,
                                     const std::vector<Row>& probe) {
  // Build rows by rendered key; NULL keys never match, so they are left out.
  std::multimap<std::string, const Row*> by_key;
  std::multiset<std::string> out;
  bool build_null = false;
  for (const Row& b : build) {
    build_null |= HasNullKey(b);
    if (!HasNullKey(b)) by_key.emplace(KeyOf(b), &b);
  }
  for (const Row& p : probe) {
    Row pout = {p[0], p[1], p[3]};
    int matches = 0;
    auto [lo, hi] =
        HasNullKey(p) ? std::make_pair(by_key.end(), by_key.end()) : by_key.equal_range(KeyOf(p));
    for (auto it = lo; it != hi; ++it) {
      const Row& b = *it->second;
      ++matches;
      if (type == JoinType::kInner || type == JoinType::kLeftOuter) {
        out.insert(test::ShowRow({p[0], p[1], p[3], b[2], b[3]}));
      }
    }
    switch (type) {
      case JoinType::kLeftOuter:
        if (matches == 0) {
          out.insert(test::ShowRow(
              {p[0], p[1], p[3], Value::Null(Type::BigInt()), Value::Null(Type::Text())}));
        }
        break;
      case JoinType::kSemi:
        if (matches > 0) out.insert(test::ShowRow(pout));
        break;
      case JoinType::kAnti:
        if (matches == 0) out.insert(test::ShowRow(pout));
        break;
      case JoinType::kNullAwareAnti:
        // NOT IN: x NOT IN (S) is TRUE iff S is empty, or x is not NULL, S has
        // no NULL and no element equals x.
        if (build.empty() || (!HasNullKey(p) && !build_null && matches == 0))
          out.insert(test::ShowRow(pout));
        break;
      case JoinType::kInner:
      case JoinType::kFullOuter:  // physical_join_residual_test.cc (needs the match marks)
      case JoinType::kRightSemi:
      case JoinType::kRightAnti:
      case JoinType::kRightOuter:
        break;
    }
  }
  return out;
}

std::multiset<std::string> RunJoin(JoinType type, int threads, CompactionPolicy policy,
                                   const std::vector<DataChunk>& build,
                                   const std::vector<DataChunk>& probe) {
  std::vector<Type> t = Types();
  JoinHashTable table({t[0], t[1]}, {0, 1}, {t[2], t[3]}, {2, 3}, threads);
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) {
    pool.emplace_back([&, i] {
      for (size_t c = i; c < build.size(); c += threads) table.Add(i, build[c]);
    });
  }
  for (auto& th : pool) th.join();
  pool.clear();
  for (int i = 0; i < threads; ++i) pool.emplace_back([&, i] { table.Finalize(i); });
  for (auto& th : pool) th.join();
  pool.clear();
  std::vector<std::multiset<std::string>> outs(threads);
  for (int i = 0; i < threads; ++i) {
    pool.emplace_back([&, i] {
      JoinProbe probe_op(&table, type, {0, 1}, {0, 1, 3}, {t[0], t[1], t[3]}, policy);
      auto emit = [&](const DataChunk& c) {
        EXPECT_GT(c.size(), 0u);
        for (auto& line : test::ChunkRows(c)) outs[i].insert(line);
      };
      for (size_t c = i; c < probe.size(); c += threads) probe_op.Probe(probe[c], emit);
      probe_op.Finish(emit);
    });
  }
  for (auto& th : pool) th.join();
  std::multiset<std::string> all;
  for (auto& o : outs) all.insert(o.begin(), o.end());
  return all;
}

void Check(uint64_t seed, size_t n_build, size_t n_probe, int64_t domain, double zipf) {
  auto build_rows = test::RandomRows(Gens(domain, zipf), n_build, seed);
  auto probe_rows = test::RandomRows(Gens(domain * 2, zipf), n_probe, seed + 1000);
  auto build = test::ToChunks(Types(), build_rows, 500);
  auto probe = test::ToChunks(Types(), probe_rows, 700);
  for (JoinType type : {JoinType::kInner, JoinType::kLeftOuter, JoinType::kSemi, JoinType::kAnti,
                        JoinType::kNullAwareAnti}) {
    auto want = Reference(type, build_rows, probe_rows);
    for (int threads : {1, 2}) {
      for (auto policy : {CompactionPolicy::Off(), CompactionPolicy::Fixed(1024),
                          CompactionPolicy::Learned(seed)}) {
        ASSERT_EQ(RunJoin(type, threads, policy, build, probe), want)
            << "seed " << seed << " type " << static_cast<int>(type) << " threads " << threads
            << " policy " << static_cast<int>(policy.mode());
      }
    }
  }
}

TEST(HashJoin, Uniform) { Check(21, 1000, 2500, 300, 0); }
TEST(HashJoin, ZipfDuplicates) { Check(22, 1000, 2000, 100, 1.1); }
TEST(HashJoin, EmptyBuild) { Check(23, 0, 1000, 50, 0); }
TEST(HashJoin, EmptyProbe) { Check(24, 500, 0, 50, 0); }

TEST(HashJoin, BuildWithoutNullKeysNotIn) {
  // No NULL keys on the build side: NOT IN equals NOT EXISTS minus NULL probes.
  auto gens = Gens(100, 0);
  gens[0].null_frac = gens[1].null_frac = 0;
  auto build_rows = test::RandomRows(gens, 300, 25);
  auto probe_rows = test::RandomRows(Gens(200, 0), 2000, 26);
  auto build = test::ToChunks(Types(), build_rows);
  auto probe = test::ToChunks(Types(), probe_rows);
  auto got = RunJoin(JoinType::kNullAwareAnti, 2, CompactionPolicy::Off(), build, probe);
  EXPECT_EQ(got, Reference(JoinType::kNullAwareAnti, build_rows, probe_rows));
  EXPECT_FALSE(got.empty());
}

TEST(HashJoin, CompactionEmitsFullerChunks) {
  auto build_rows = test::RandomRows(Gens(100000, 0), 200, 27);
  auto probe_rows = test::RandomRows(Gens(100000, 0), 40000, 28);
  auto build = test::ToChunks(Types(), build_rows);
  auto probe = test::ToChunks(Types(), probe_rows);
  std::vector<Type> t = Types();
  JoinHashTable table({t[0], t[1]}, {0, 1}, {t[2], t[3]}, {2, 3}, 1);
  for (auto& c : build) table.Add(0, c);
  table.Finalize(0);
  auto count_chunks = [&](CompactionPolicy p) {
    JoinProbe op(&table, JoinType::kInner, {0, 1}, {0}, {t[0]}, p);
    for (auto& c : probe) op.Probe(c, [](const DataChunk&) {});
    op.Finish([](const DataChunk&) {});
    return op.chunks_emitted();
  };
  EXPECT_LT(count_chunks(CompactionPolicy::Fixed(kVectorSize)),
            count_chunks(CompactionPolicy::Off()));
}

}  // namespace
}  // namespace forktail
