// Aggregation methods side by side (Ye, Ross, Vesdapunt DaMoN 2011):
// SELECT k, COUNT(*), SUM(v) GROUP BY k over kRows rows with 10 .. 10^7
// distinct key values, uniform or Zipf(1.0), on 2 threads; baseline: one
// thread with std::unordered_map in the same run. And the global aggregate,
// SELECT COUNT(*), SUM(v) with no GROUP BY, on 2 threads; baseline: a plain
// loop summing the column on one thread.
//   ./build/olap-rel/bench/olap_aggregation_bench
#include <benchmark/benchmark.h>

#include <cmath>
#include <map>
#include <random>
#include <thread>
#include <unordered_map>

#include "olap/olap.h"

namespace forktail {
namespace {

constexpr size_t kRows = 4'000'000;
constexpr int kThreads = 2;

struct Data {
  std::vector<int64_t> keys, vals;
  std::vector<DataChunk> chunks;
};

const Data& GetData(int64_t groups, bool zipf) {
  static std::map<std::pair<int64_t, bool>, std::unique_ptr<Data>> cache;
  auto& slot = cache[{groups, zipf}];
  if (slot) return *slot;
  auto& d = slot;
  d = std::make_unique<Data>();
  std::mt19937_64 rng(groups * 2 + zipf);
  d->keys.resize(kRows);
  d->vals.resize(kRows);
  std::vector<double> cdf;
  if (zipf) {
    cdf.resize(groups);
    double sum = 0;
    for (int64_t i = 0; i < groups; ++i) cdf[i] = (sum += 1.0 / (i + 1));
    for (auto& c : cdf) c /= sum;
  }
  std::uniform_real_distribution<double> u(0, 1);
  for (size_t i = 0; i < kRows; ++i) {
    int64_t k = zipf ? std::lower_bound(cdf.begin(), cdf.end(), u(rng)) - cdf.begin()
                     : static_cast<int64_t>(rng() % groups);
    d->keys[i] = static_cast<int64_t>(KeyEncoder::Mix(k) >> 1);  // scatter key values
    d->vals[i] = static_cast<int64_t>(rng() % 1000);
  }
  for (size_t base = 0; base < kRows; base += kVectorSize) {
    DataChunk c;
    Vector k, v;
    // Wrap slices directly (zero-copy), as a block scan would.
    k.WrapStripe(Type::BigInt(), d->keys.data() + base, nullptr, 0);
    v.WrapStripe(Type::BigInt(), d->vals.data() + base, nullptr, 0);
    c.AddColumn(std::move(k));
    c.AddColumn(std::move(v));
    c.set_size(static_cast<uint32_t>(std::min<size_t>(kVectorSize, kRows - base)));
    d->chunks.push_back(std::move(c));
  }
  return *d;
}

// COUNT(*), SUM(v) grouped by `keys` (none: global) over d's chunks on
// kThreads threads; the number of groups.
size_t Aggregate(const Data& d, AggMethod method, std::vector<uint32_t> keys) {
  std::vector<Type> key_types(keys.size(), Type::BigInt());
  Aggregator agg(method, std::move(keys), std::move(key_types),
                 {{AggKind::kCountStar, 0, {}}, {AggKind::kSum, 1, Type::BigInt()}}, kThreads);
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([&, t] {
      for (size_t i = t; i < d.chunks.size(); i += kThreads) agg.Consume(t, d.chunks[i]);
    });
  }
  for (auto& th : pool) th.join();
  pool.clear();
  for (int t = 0; t < kThreads; ++t) pool.emplace_back([&, t] { agg.Merge(t); });
  for (auto& th : pool) th.join();
  size_t groups = 0;
  for (const DataChunk& c : agg.Result()) groups += c.size();
  return groups;
}

void BM_Aggregate(benchmark::State& state, AggMethod method) {
  const Data& d = GetData(state.range(0), state.range(1) != 0);
  size_t groups = 0;
  for (auto _ : state) groups = Aggregate(d, method, {0});
  state.counters["rows/s"] =
      benchmark::Counter(kRows, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["groups"] = static_cast<double>(groups);
}

void BM_BaselineUnorderedMap(benchmark::State& state) {
  const Data& d = GetData(state.range(0), state.range(1) != 0);
  size_t groups = 0;
  for (auto _ : state) {
    std::unordered_map<int64_t, std::pair<int64_t, int64_t>> m;
    for (size_t i = 0; i < kRows; ++i) {
      auto& s = m[d.keys[i]];
      ++s.first;
      s.second += d.vals[i];
    }
    groups = m.size();
    benchmark::DoNotOptimize(m);
  }
  state.counters["rows/s"] =
      benchmark::Counter(kRows, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["groups"] = static_cast<double>(groups);
}

void BM_GlobalAggregate(benchmark::State& state, AggMethod method) {
  const Data& d = GetData(10, false);
  for (auto _ : state) benchmark::DoNotOptimize(Aggregate(d, method, {}));
  state.counters["rows/s"] =
      benchmark::Counter(kRows, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_BaselinePlainSum(benchmark::State& state) {
  const Data& d = GetData(10, false);
  for (auto _ : state) {
    int64_t count = 0, sum = 0;
    for (int64_t v : d.vals) {
      ++count;
      sum += v;
    }
    benchmark::DoNotOptimize(count);
    benchmark::DoNotOptimize(sum);
  }
  state.counters["rows/s"] =
      benchmark::Counter(kRows, benchmark::Counter::kIsIterationInvariantRate);
}

void Args(benchmark::internal::Benchmark* b) {
  for (int zipf : {0, 1}) {
    for (int64_t g : {10LL, 1000LL, 100000LL, 1000000LL, 10000000LL}) b->Args({g, zipf});
  }
  b->ArgNames({"groups", "zipf"})->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
}

BENCHMARK(BM_BaselineUnorderedMap)->Apply(Args);
BENCHMARK_CAPTURE(BM_Aggregate, shared, AggMethod::kShared)->Apply(Args);
BENCHMARK_CAPTURE(BM_Aggregate, independent, AggMethod::kIndependent)->Apply(Args);
BENCHMARK_CAPTURE(BM_Aggregate, partition, AggMethod::kPartition)->Apply(Args);
BENCHMARK_CAPTURE(BM_Aggregate, plat, AggMethod::kPlat)->Apply(Args);
BENCHMARK_CAPTURE(BM_Aggregate, hybrid, AggMethod::kHybrid)->Apply(Args);
BENCHMARK_CAPTURE(BM_Aggregate, adaptive, AggMethod::kAdaptive)->Apply(Args);
BENCHMARK(BM_BaselinePlainSum)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_GlobalAggregate, shared, AggMethod::kShared)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_GlobalAggregate, adaptive, AggMethod::kAdaptive)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace forktail

BENCHMARK_MAIN();
