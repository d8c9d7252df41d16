// Differential tests of Aggregator (every method, 1 and 2 threads) against a
// plain std::map reference over Values: uniform and Zipf keys, NULL keys and
// values, duplicates, empty input, global aggregates, private-table overflow.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>

#include "olap/execution/aggregate/aggregator.h"
#include "tests/olap/execution/test_data.h"

namespace forktail {
namespace {

using test::Show;

// Columns: 0 k1 INTEGER, 1 k2 TEXT, 2 b BIGINT, 3 m DECIMAL(10,2), 4 d DOUBLE, 5 s TEXT, 6 a
// INTEGER.
std::vector<test::ColumnGen> Gens(int64_t key_domain, double zipf) {
  return {{Type::Integer(), 0.05, key_domain, zipf},
          {Type::Text(), 0.05, 3},
          {Type::BigInt(), 0.1, 1000000},
          {Type::Decimal(10, 2), 0.1, 100000},
          {Type::Double(), 0.1, 1000},
          {Type::Text(), 0.1, 50},
          {Type::Integer(), 0.1, 20}};
}

std::vector<AggregateSpec> Specs(const std::vector<Type>& t) {
  return {{AggKind::kCountStar, 0, {}},       {AggKind::kCount, 2, t[2]},
          {AggKind::kSum, 2, t[2]},           {AggKind::kSum, 3, t[3]},
          {AggKind::kAvg, 3, t[3]},           {AggKind::kAvg, 6, t[6]},
          {AggKind::kSum, 4, t[4]},           {AggKind::kAvg, 4, t[4]},
          {AggKind::kMin, 5, t[5]},           {AggKind::kMax, 5, t[5]},
          {AggKind::kMax, 3, t[3]},           {AggKind::kMin, 4, t[4]},
          {AggKind::kCountDistinct, 5, t[5]}, {AggKind::kCountDistinct, 6, t[6]},
          {AggKind::kSumDistinct, 6, t[6]},   {AggKind::kAvgDistinct, 6, t[6]},
          {AggKind::kSumDistinct, 3, t[3]},   {AggKind::kAvgDistinct, 3, t[3]},
          {AggKind::kSumDistinct, 4, t[4]}};
}

// The reference: group rows by the rendered key, aggregate plainly.
std::multiset<std::string> Reference(const std::vector<Row>& rows,
                                     const std::vector<uint32_t>& keys,
                                     const std::vector<AggregateSpec>& specs) {
  std::map<std::string, std::vector<const Row*>> groups;
  for (const Row& r : rows) {
    Row k;
    for (uint32_t c : keys) k.push_back(r[c]);
    groups[test::ShowRow(k)].push_back(&r);
  }
  if (keys.empty() && groups.empty()) groups[""] = {};
  std::multiset<std::string> out;
  for (auto& [key, members] : groups) {
    std::string line = key;
    for (const AggregateSpec& a : specs) {
      Type rt = AggregateResultType(a);
      if (a.kind == AggKind::kCountStar) {
        line += std::to_string(members.size()) + "|";
        continue;
      }
      std::vector<Value> vals;
      for (const Row* r : members) {
        if (!(*r)[a.input].is_null()) vals.push_back((*r)[a.input]);
      }
      Value res = Value::Null(rt);
      switch (a.kind) {
        case AggKind::kCount:
          res = Value::BigInt(static_cast<int64_t>(vals.size()));
          break;
        case AggKind::kCountDistinct: {
          std::set<std::string> d;
          for (auto& v : vals) d.insert(Show(v));
          res = Value::BigInt(static_cast<int64_t>(d.size()));
          break;
        }
        case AggKind::kSum:
        case AggKind::kAvg:
        case AggKind::kSumDistinct:
        case AggKind::kAvgDistinct: {
          if (a.kind == AggKind::kSumDistinct || a.kind == AggKind::kAvgDistinct) {
            std::map<std::string, Value> d;  // each value once
            for (auto& v : vals) d.emplace(Show(v), v);
            vals.clear();
            for (auto& [text, v] : d) vals.push_back(v);
          }
          const bool is_sum = a.kind == AggKind::kSum || a.kind == AggKind::kSumDistinct;
          if (vals.empty()) break;
          if (a.input_type.id == TypeId::kDouble) {
            double s = 0;
            for (auto& v : vals) s += v.GetDouble();
            res = Value::Double(is_sum ? s : s / vals.size());
            break;
          }
          __int128 s = 0;
          for (auto& v : vals) s += v.GetInt();
          if (is_sum) {
            res = rt.id == TypeId::kDecimal ? Value::Decimal(static_cast<int64_t>(s), 18, rt.scale)
                                            : Value::BigInt(static_cast<int64_t>(s));
          } else if (rt.id == TypeId::kDecimal) {
            __int128 n = s;
            for (int i = a.input_type.scale; i < rt.scale; ++i) n *= 10;
            __int128 c = vals.size();
            bool neg = n < 0;
            __int128 q = ((neg ? -n : n) * 2 + c) / (2 * c);
            res = Value::Decimal(static_cast<int64_t>(neg ? -q : q), 18, rt.scale);
          } else {
            res = Value::Double(static_cast<double>(static_cast<long double>(s) / vals.size()));
          }
          break;
        }
        case AggKind::kMin:
        case AggKind::kMax: {
          for (auto& v : vals) {
            bool better;
            if (res.is_null()) {
              better = true;
            } else if (v.type().IsString()) {
              better = a.kind == AggKind::kMin ? v.GetString() < res.GetString()
                                               : v.GetString() > res.GetString();
            } else if (v.type().id == TypeId::kDouble) {
              better = a.kind == AggKind::kMin ? v.GetDouble() < res.GetDouble()
                                               : v.GetDouble() > res.GetDouble();
            } else {
              better =
                  a.kind == AggKind::kMin ? v.GetInt() < res.GetInt() : v.GetInt() > res.GetInt();
            }
            if (better) res = v;
          }
          break;
        }
        case AggKind::kAnyValue:  // only over a column with one value per group
          if (!vals.empty()) res = vals[0];
          break;
        case AggKind::kCountStar:
        case AggKind::kStringAgg:
        case AggKind::kArrayAgg:
          break;
      }
      line += Show(res) + "|";
    }
    out.insert(line);
  }
  return out;
}

std::multiset<std::string> RunAggregator(AggMethod method, int threads,
                                         const std::vector<DataChunk>& chunks,
                                         const std::vector<uint32_t>& keys,
                                         const std::vector<Type>& types,
                                         const std::vector<AggregateSpec>& specs,
                                         uint32_t private_groups) {
  std::vector<Type> key_types;
  for (uint32_t k : keys) key_types.push_back(types[k]);
  Aggregator agg(method, keys, key_types, specs, threads, private_groups);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (size_t i = t; i < chunks.size(); i += threads) agg.Consume(t, chunks[i]);
    });
  }
  for (auto& th : pool) th.join();
  pool.clear();
  for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { agg.Merge(t); });
  for (auto& th : pool) th.join();
  // Read in slices as the operator's work orders do (1 thread: all at once);
  // together they hold every group once, in full chunks but the last.
  std::multiset<std::string> out;
  const uint32_t slices = threads == 1 ? 1 : 3;
  for (uint32_t slice = 0; slice < slices; ++slice) {
    std::vector<DataChunk> result = agg.Result(slice, slices);
    for (size_t i = 0; i < result.size(); ++i) {
      if (i + 1 < result.size()) {
        EXPECT_EQ(result[i].size(), kVectorSize);
      }
      for (auto& line : test::ChunkRows(result[i])) out.insert(line);
    }
  }
  return out;
}

// With `select`, each chunk carries a selection that leaves out every third
// row, as a filter below the aggregate does.
void Check(uint64_t seed, size_t n, int64_t domain, double zipf, const std::vector<uint32_t>& keys,
           uint32_t private_groups = 0, bool select = false) {
  auto gens = Gens(domain, zipf);
  std::vector<Type> types;
  for (auto& g : gens) types.push_back(g.type);
  auto rows = test::RandomRows(gens, n, seed);
  constexpr size_t kChunkRows = 1000;
  auto chunks = test::ToChunks(types, rows, kChunkRows);  // views into rows' strings
  std::vector<Row> kept;
  if (select) {
    for (size_t c = 0; c < chunks.size(); c++) {
      uint32_t sel[kVectorSize], m = 0;
      for (uint32_t i = 0; i < chunks[c].size(); i++) {
        if (i % 3 == 0) continue;
        sel[m++] = i;
        kept.push_back(rows[c * kChunkRows + i]);
      }
      chunks[c].SetSelection(sel, m);
    }
  }
  auto specs = Specs(types);
  // ANY_VALUE of a key column: one value per group, as the optimizer uses it.
  for (uint32_t k : keys) specs.push_back({AggKind::kAnyValue, k, types[k]});
  auto want = Reference(select ? kept : rows, keys, specs);
  for (AggMethod m : {AggMethod::kShared, AggMethod::kIndependent, AggMethod::kPartition,
                      AggMethod::kPlat, AggMethod::kHybrid, AggMethod::kAdaptive}) {
    for (int threads : {1, 2}) {
      auto got = RunAggregator(m, threads, chunks, keys, types, specs, private_groups);
      ASSERT_EQ(got, want) << "seed " << seed << " method " << AggMethodName(m) << " threads "
                           << threads;
    }
  }
}

TEST(Aggregation, GroupByUniform) {
  Check(11, 6000, 200, 0, {0});
  Check(20, 6000, 200, 0, {0}, 0, /*select=*/true);
}
TEST(Aggregation, GroupByZipfTwoKeys) { Check(12, 6000, 500, 1.2, {0, 1}); }
TEST(Aggregation, GlobalAggregate) {
  Check(13, 3000, 10, 0, {});
  Check(19, 3000, 10, 0, {}, 0, /*select=*/true);  // GroupTable::UpdateGlobal over a selection
}
// At most GroupTable::kFewGroups groups: chunks are sorted by group and summed
// per group (group_table.h).
TEST(Aggregation, GroupByFewGroups) {
  Check(17, 6000, 20, 0, {0});
  Check(18, 6000, 6, 0.8, {0, 1});
}
TEST(Aggregation, EmptyInput) {
  Check(14, 0, 10, 0, {});
  Check(15, 0, 10, 0, {0});
}
TEST(Aggregation, PrivateTableOverflow) {
  // A private bound of 64 groups forces PLAT overflow, hybrid eviction and
  // the adaptive switch on a few thousand groups.
  Check(16, 3000, 1500, 0, {0, 1}, 64);
}

TEST(Aggregation, SumOverflowIsAnError) {
  std::vector<Type> types = {Type::BigInt()};
  std::vector<Row> rows = {{Value::BigInt(INT64_MAX)}, {Value::BigInt(1)}};
  auto chunks = test::ToChunks(types, rows);
  Aggregator agg(AggMethod::kAdaptive, {}, {}, {{AggKind::kSum, 0, types[0]}}, 1);
  agg.Consume(0, chunks[0]);
  agg.Merge(0);
  try {
    agg.Result();
    FAIL();
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), "22003");
  }
}

}  // namespace
}  // namespace forktail
