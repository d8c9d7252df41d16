// Differential tests of hash join build/probe (inner, left outer, semi, anti,
// NOT IN; multi-column keys; compaction off / fixed / learned), join then
// aggregate, and sort / top-k / limit, under the real Scheduler (immediate,
// 1 worker, 2 workers), against naive references over Table::Read rows.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/olap/execution/physical_testing.h"

namespace forktail {
namespace {

// Probe t(a, b, c, d, e) with build u on (a, c); build side filtered to
// u.b > 0 (NULL drops). Output: t.a, t.c, t.b, then u.b, u.d (inner, left).
bool BuildFilter(const Row& r) { return !r[1].is_null() && r[1].GetInt() > 0; }
bool NullKey(const Row& r) { return r[0].is_null() || r[2].is_null(); }
std::string Key(const Row& r) { return ptest::Show(r[0]) + "|" + ptest::Show(r[2]); }

std::vector<Row> ReferenceJoin(JoinType type, const std::vector<Row>& build_all,
                               const std::vector<Row>& probe) {
  std::vector<Row> build;
  for (const Row& r : build_all) {
    if (BuildFilter(r)) build.push_back(r);
  }
  std::multimap<std::string, const Row*> by_key;
  bool build_null = false;
  for (const Row& b : build) {
    build_null |= NullKey(b);
    if (!NullKey(b)) by_key.emplace(Key(b), &b);
  }
  std::vector<Row> out;
  for (const Row& p : probe) {
    Row head = {p[0], p[2], p[1]};
    size_t matches = 0;
    if (!NullKey(p)) {
      auto [lo, hi] = by_key.equal_range(Key(p));
      for (auto it = lo; it != hi; ++it, ++matches) {
        if (type == JoinType::kInner || type == JoinType::kLeftOuter) {
          Row r = head;
          r.push_back((*it->second)[1]);
          r.push_back((*it->second)[3]);
          out.push_back(std::move(r));
        }
      }
    }
    if (type == JoinType::kLeftOuter && matches == 0) {
      Row r = head;
      r.push_back(Value::Null(Type::BigInt()));
      r.push_back(Value::Null(Type::Double()));
      out.push_back(std::move(r));
    }
    if ((type == JoinType::kSemi && matches > 0) || (type == JoinType::kAnti && matches == 0) ||
        (type == JoinType::kNullAwareAnti &&
         (build.empty() || (!NullKey(p) && !build_null && matches == 0)))) {
      out.push_back(head);
    }
  }
  return out;
}

OperatorId JoinPlan(PlanBuilder& b, const Table& t, const Table& u, JoinType type,
                    CompactionPolicy policy) {
  ScanSpec build_spec;
  build_spec.filter = Compare(CompareOp::kGt, ptest::B(), Constant(Value::BigInt(0)));
  OperatorId build = b.HashBuild(b.Scan(u, std::move(build_spec)), {0, 2}, {1, 3});
  return b.HashProbe(b.Scan(t), build, type, {0, 2}, {0, 2, 1}, std::move(policy));
}

constexpr JoinType kJoinTypes[] = {JoinType::kInner, JoinType::kLeftOuter, JoinType::kSemi,
                                   JoinType::kAnti, JoinType::kNullAwareAnti};

void CheckJoins(const ptest::TestTable& t, const ptest::TestTable& u, uint64_t seed) {
  for (JoinType type : kJoinTypes) {
    auto want = ptest::Bag(ReferenceJoin(type, u.live, t.live));
    for (ptest::Mode mode : ptest::kModes) {
      for (int p = 0; p < 3; ++p) {
        CompactionPolicy policy = p == 0   ? CompactionPolicy::Off()
                                  : p == 1 ? CompactionPolicy::Fixed(1024)
                                           : CompactionPolicy::Learned(seed);
        auto got = ptest::Run(mode, [&](PlanBuilder& b) {
          return b.Sink(JoinPlan(b, *t.table, *u.table, type, policy));
        });
        ASSERT_EQ(ptest::Bag(got), want)
            << "seed " << seed << " join type " << static_cast<int>(type) << " "
            << ptest::ModeName(mode) << " policy " << p;
      }
    }
  }
}

TEST(PhysicalJoin, EveryKindUniform) {
  auto t = ptest::MakeTable("t", 2500, 201, 40, 0, 512);
  auto u = ptest::MakeTable("u", 800, 202, 60, 0, 256);
  CheckJoins(t, u, 201);
}

TEST(PhysicalJoin, EveryKindSkewedDuplicates) {
  auto t = ptest::MakeTable("t", 1200, 203, 30, 1.5, 320);
  auto u = ptest::MakeTable("u", 500, 204, 30, 1.5, 4096);
  CheckJoins(t, u, 203);
}

TEST(PhysicalJoin, EmptySides) {
  auto empty = ptest::MakeTable("e", 0, 205, 10, 0, 64);
  auto t = ptest::MakeTable("t", 700, 206, 10, 0, 128);
  CheckJoins(t, empty, 205);  // empty build: NOT IN returns every probe row
  CheckJoins(empty, t, 206);  // empty probe
}

TEST(PhysicalJoin, NoNullBuildKeysNotIn) {
  auto t = ptest::MakeTable("t", 1500, 207, 30, 0, 256);
  auto u = ptest::MakeTable("u", 400, 208, 30, 0, 128, true, /*null_keys=*/false);
  physical::DeleteRows(*u.table, [](const Row& r) { return r[2].is_null(); });
  u.live = physical::ReadLiveRows(*u.table);
  CheckJoins(t, u, 207);
}

// SELECT t.c, COUNT(*), SUM(t.b), SUM(u.b), MIN(u.d) FROM t JOIN u ... GROUP BY t.c
// (probe-side columns only for semi / anti).
TEST(PhysicalJoin, JoinThenAggregateEveryKind) {
  auto t = ptest::MakeTable("t", 3000, 209, 50, 1.0, 512);
  auto u = ptest::MakeTable("u", 1000, 210, 50, 1.0, 256);
  for (JoinType type : kJoinTypes) {
    bool payload = type == JoinType::kInner || type == JoinType::kLeftOuter;
    std::map<std::string, std::tuple<Value, int64_t, int64_t, bool, int64_t, bool, Value>> groups;
    for (const Row& r : ReferenceJoin(type, u.live, t.live)) {
      auto& [key, count, sum_tb, any_tb, sum_ub, any_ub, min_ud] = groups[ptest::Show(r[1])];
      if (count == 0) min_ud = Value::Null(Type::Double());
      key = r[1];
      ++count;
      if (!r[2].is_null()) sum_tb += r[2].GetInt(), any_tb = true;
      if (payload && !r[3].is_null()) sum_ub += r[3].GetInt(), any_ub = true;
      if (payload && !r[4].is_null() && (min_ud.is_null() || r[4].Compare(min_ud) < 0)) {
        min_ud = r[4];
      }
    }
    std::vector<Row> want;
    for (auto& [k, g] : groups) {
      auto& [key, count, sum_tb, any_tb, sum_ub, any_ub, min_ud] = g;
      Row r = {key, Value::BigInt(count),
               any_tb ? Value::BigInt(sum_tb) : Value::Null(Type::BigInt())};
      if (payload) {
        r.push_back(any_ub ? Value::BigInt(sum_ub) : Value::Null(Type::BigInt()));
        r.push_back(min_ud);
      }
      want.push_back(std::move(r));
    }
    for (ptest::Mode mode : ptest::kModes) {
      auto got = ptest::Run(mode, [&](PlanBuilder& b) {
        OperatorId join = JoinPlan(b, *t.table, *u.table, type, CompactionPolicy::Fixed(512));
        std::vector<AggregateSpec> aggs = {{AggKind::kCountStar, 0, {}}, {AggKind::kSum, 2, {}}};
        if (payload) {
          aggs.push_back({AggKind::kSum, 3, {}});
          aggs.push_back({AggKind::kMin, 4, {}});
        }
        return b.Sink(b.Aggregate(join, {1}, aggs));
      });
      EXPECT_EQ(ptest::Bag(got), ptest::Bag(want))
          << "seed 209 join type " << static_cast<int>(type) << " " << ptest::ModeName(mode);
    }
  }
}

// ORDER BY c ASC, b DESC, a ASC NULLS FIRST.
const std::vector<PhysicalSortKey> kSortKeys = {{2, false, -1}, {1, true, -1}, {0, false, 1}};

int CompareKeys(const Row& x, const Row& y) {
  for (const PhysicalSortKey& k : kSortKeys) {
    const Value& a = x[k.column];
    const Value& b = y[k.column];
    if (a.is_null() || b.is_null()) {
      if (a.is_null() && b.is_null()) continue;
      bool nulls_first = k.nulls_first < 0 ? k.descending : k.nulls_first == 1;
      return (a.is_null() ? 1 : -1) * (nulls_first ? -1 : 1);
    }
    int c = a.Compare(b);
    if (c != 0) return k.descending ? -c : c;
  }
  return 0;
}

std::vector<std::string> SortKeysOf(const std::vector<Row>& rows) {
  std::vector<std::string> out;
  for (const Row& r : rows) out.push_back(ptest::ShowRow({r[2], r[1], r[0]}));
  return out;
}

void CheckSort(const ptest::TestTable& t, uint64_t limit, bool separate_limit, uint64_t seed) {
  std::vector<Row> want = t.live;
  std::stable_sort(want.begin(), want.end(),
                   [](const Row& x, const Row& y) { return CompareKeys(x, y) < 0; });
  if (limit < want.size()) want.resize(limit);
  auto input = ptest::Bag(t.live);
  for (ptest::Mode mode : ptest::kModes) {
    auto got = ptest::Run(mode, [&](PlanBuilder& b) {
      OperatorId sort = b.Sort(b.Scan(*t.table), kSortKeys, separate_limit ? kNoLimit : limit);
      return b.Sink(separate_limit ? b.Limit(sort, limit) : sort);
    });
    std::string where = std::string(ptest::ModeName(mode)) + " limit " + std::to_string(limit) +
                        " seed " + std::to_string(seed);
    // Keys in exactly the reference order; ties may come in any order, so
    // rows are checked as a multiset (full sort) or as a subset (top-k).
    ASSERT_EQ(SortKeysOf(got), SortKeysOf(want)) << where;
    if (limit >= t.live.size()) {
      EXPECT_EQ(ptest::Bag(got), input) << where;
    } else {
      for (const Row& r : got) EXPECT_TRUE(input.count(ptest::ShowRow(r)) > 0) << where;
    }
  }
}

TEST(PhysicalSort, FullSortManyRuns) {
  auto t = ptest::MakeTable("t", 3000, 301, 40, 1.0, 256);
  CheckSort(t, kNoLimit, false, 301);
}

TEST(PhysicalSort, TopK) {
  auto t = ptest::MakeTable("t", 3000, 302, 40, 0, 320);
  for (uint64_t k : {1u, 50u, 2100u, 5000u}) CheckSort(t, k, false, 302);
}

TEST(PhysicalSort, LimitAfterSortAndEmpty) {
  auto t = ptest::MakeTable("t", 2000, 303, 40, 0, 4096);
  CheckSort(t, 77, true, 303);
  auto empty = ptest::MakeTable("e", 0, 304, 10, 0, 64);
  CheckSort(empty, 10, false, 304);
  CheckSort(empty, kNoLimit, false, 304);
}

TEST(PhysicalLimit, CountWithoutOrder) {
  auto t = ptest::MakeTable("t", 3000, 305, 40, 0, 256);
  auto input = ptest::Bag(t.live);
  for (ptest::Mode mode : ptest::kModes) {
    for (uint64_t n : {0u, 5u, 600u, 100000u}) {
      auto got =
          ptest::Run(mode, [&](PlanBuilder& b) { return b.Sink(b.Limit(b.Scan(*t.table), n)); });
      EXPECT_EQ(got.size(), std::min<uint64_t>(n, t.live.size())) << ptest::ModeName(mode);
      for (const Row& r : got) EXPECT_TRUE(input.count(ptest::ShowRow(r)) > 0);
    }
  }
}

}  // namespace
}  // namespace forktail
