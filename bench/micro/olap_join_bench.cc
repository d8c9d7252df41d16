// Hash join micro-benchmarks, each beside a baseline in the same run:
//  * build + probe rows/s (2 threads) vs std::unordered_multimap (1 thread);
//  * LIP on a small star join (one fact, three dimensions with selective
//    predicates): no filters vs Bloom filters vs exact filters;
//  * chunk compaction on a join with a high reduction factor (~1% of probe
//    rows match) feeding a downstream operator with a per-chunk cost:
//    off vs fixed vs learned thresholds.
//   ./build/olap-rel/bench/olap_join_bench
#include <benchmark/benchmark.h>

#include <random>
#include <thread>
#include <unordered_map>

#include "olap/olap.h"

namespace forktail {
namespace {

constexpr int kThreads = 2;

struct Table {
  std::vector<std::vector<int64_t>> cols;
  std::vector<DataChunk> chunks;
  size_t rows = 0;
};

Table MakeTable(size_t rows, const std::vector<int64_t>& domains, uint64_t seed,
                bool dense_first = false) {
  Table t;
  t.rows = rows;
  std::mt19937_64 rng(seed);
  for (size_t c = 0; c < domains.size(); ++c) {
    std::vector<int64_t> col(rows);
    for (size_t i = 0; i < rows; ++i) {
      col[i] = (c == 0 && dense_first) ? static_cast<int64_t>(i)
                                       : static_cast<int64_t>(rng() % domains[c]);
    }
    t.cols.push_back(std::move(col));
  }
  for (size_t base = 0; base < rows; base += kVectorSize) {
    DataChunk ch;
    for (auto& col : t.cols) {
      Vector v;
      v.WrapStripe(Type::BigInt(), col.data() + base, nullptr, 0);
      ch.AddColumn(std::move(v));
    }
    ch.set_size(static_cast<uint32_t>(std::min<size_t>(kVectorSize, rows - base)));
    t.chunks.push_back(std::move(ch));
  }
  return t;
}

template <typename F>
void Parallel(F f) {
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t) pool.emplace_back(f, t);
  for (auto& th : pool) th.join();
}

std::unique_ptr<JoinHashTable> Build(const Table& t,
                                     const std::vector<DataChunk>* chunks = nullptr) {
  auto ht = std::make_unique<JoinHashTable>(
      std::vector<Type>{Type::BigInt()}, std::vector<uint32_t>{0},
      std::vector<Type>{Type::BigInt()}, std::vector<uint32_t>{1}, kThreads);
  const auto& cs = chunks ? *chunks : t.chunks;
  Parallel([&](int th) {
    for (size_t i = th; i < cs.size(); i += kThreads) ht->Add(th, cs[i]);
  });
  Parallel([&](int th) { ht->Finalize(th); });
  return ht;
}

// ---- build + probe ----
const Table& BuildSide() {
  static Table t = MakeTable(1 << 20, {1 << 22, 1000}, 1, true);
  return t;
}
const Table& ProbeSide() {
  static Table t = MakeTable(8 << 20, {1 << 21, 1000}, 2);
  return t;
}

void BM_HashJoinBuild(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(Build(BuildSide()));
  state.counters["rows/s"] =
      benchmark::Counter(BuildSide().rows, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_HashJoinProbe(benchmark::State& state) {
  auto ht = Build(BuildSide());
  for (auto _ : state) {
    std::atomic<uint64_t> out{0};
    Parallel([&](int th) {
      JoinProbe p(ht.get(), JoinType::kInner, {0}, {1}, {Type::BigInt()},
                  CompactionPolicy::Fixed(kVectorSize));
      uint64_t n = 0;
      auto emit = [&](const DataChunk& c) { n += c.size(); };
      for (size_t i = th; i < ProbeSide().chunks.size(); i += kThreads)
        p.Probe(ProbeSide().chunks[i], emit);
      p.Finish(emit);
      out += n;
    });
    state.counters["matches"] = static_cast<double>(out.load());
  }
  state.counters["rows/s"] =
      benchmark::Counter(ProbeSide().rows, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_BaselineUnorderedMultimapBuildProbe(benchmark::State& state) {
  for (auto _ : state) {
    std::unordered_multimap<int64_t, int64_t> m;
    m.reserve(BuildSide().rows);
    for (size_t i = 0; i < BuildSide().rows; ++i)
      m.emplace(BuildSide().cols[0][i], BuildSide().cols[1][i]);
    uint64_t n = 0;
    for (size_t i = 0; i < ProbeSide().rows; ++i) {
      auto [lo, hi] = m.equal_range(ProbeSide().cols[0][i]);
      for (auto it = lo; it != hi; ++it) n += it->second != -1;
    }
    state.counters["matches"] = static_cast<double>(n);
  }
  state.counters["rows/s"] = benchmark::Counter(BuildSide().rows + ProbeSide().rows,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

// ---- LIP on a star join ----
// fact(d1, d2, d3) with 8M rows; dimension i has n_i keys 0..n_i-1 and an
// attribute; the predicate keeps ~1/10, 1/5, 1/2 of the dimension rows.
struct Star {
  Table fact = MakeTable(8 << 20, {100000, 20000, 5000}, 3);
  std::vector<Table> dims;
  std::vector<std::unique_ptr<JoinHashTable>> hts;
  std::vector<std::unique_ptr<BloomFilter>> blooms;
  std::vector<std::unique_ptr<ExactFilter>> exacts;
  Star() {
    dims.push_back(MakeTable(100000, {100000, 10}, 4, true));
    dims.push_back(MakeTable(20000, {20000, 5}, 5, true));
    dims.push_back(MakeTable(5000, {5000, 2}, 6, true));
    KeyEncoder enc({Type::BigInt()});
    for (auto& d : dims) {
      // Dimension predicate attr == 0, applied as a filter on its chunks.
      std::vector<DataChunk> kept;
      auto bf = std::make_unique<BloomFilter>(d.rows);
      auto ex = std::make_unique<ExactFilter>(0, static_cast<int64_t>(d.rows) - 1);
      for (auto& c : d.chunks) {
        DataChunk ch;
        Vector k, a;
        k.WrapStripe(Type::BigInt(), c.column(0).data<int64_t>(), nullptr, 0);
        a.WrapStripe(Type::BigInt(), c.column(1).data<int64_t>(), nullptr, 0);
        ch.AddColumn(std::move(k));
        ch.AddColumn(std::move(a));
        ch.set_size(c.size());
        ExprPtr pred =
            Compare(CompareOp::kEq, ColumnRef(1, Type::BigInt()), Constant(Value::BigInt(0)));
        ExpressionExecutor(*pred).Filter(&ch);
        std::vector<uint64_t> keys(ch.count() * enc.words()), hashes(ch.count());
        enc.Encode(ch, {0}, ch.rows(), keys.data(), hashes.data());
        for (uint32_t i = 0; i < ch.count(); ++i) {
          bf->Insert(hashes[i]);
          ex->Insert(ch.column(0).data<int64_t>()[ch.rows()[i]]);
        }
        kept.push_back(std::move(ch));
      }
      hts.push_back(Build(d, &kept));
      blooms.push_back(std::move(bf));
      exacts.push_back(std::move(ex));
    }
  }
};
Star& GetStar() {
  static Star s;
  return s;
}

void BM_StarJoin(benchmark::State& state) {
  int mode = static_cast<int>(state.range(0));  // 0 none, 1 Bloom, 2 exact
  Star& s = GetStar();
  KeyEncoder enc({Type::BigInt()});
  for (auto _ : state) {
    std::atomic<uint64_t> result{0};
    Parallel([&](int th) {
      // Pipeline: [filters] -> probe d1 -> probe d2 -> probe d3 (semi joins
      // carrying the remaining foreign keys).
      std::vector<std::unique_ptr<JoinProbe>> probes;
      probes.push_back(std::make_unique<JoinProbe>(
          s.hts[0].get(), JoinType::kSemi, std::vector<uint32_t>{0}, std::vector<uint32_t>{1, 2},
          std::vector<Type>{Type::BigInt(), Type::BigInt()}, CompactionPolicy::Off()));
      probes.push_back(std::make_unique<JoinProbe>(
          s.hts[1].get(), JoinType::kSemi, std::vector<uint32_t>{0}, std::vector<uint32_t>{1},
          std::vector<Type>{Type::BigInt()}, CompactionPolicy::Off()));
      probes.push_back(std::make_unique<JoinProbe>(
          s.hts[2].get(), JoinType::kSemi, std::vector<uint32_t>{0}, std::vector<uint32_t>{0},
          std::vector<Type>{Type::BigInt()}, CompactionPolicy::Off()));
      uint64_t n = 0;
      JoinProbe::Emit e3 = [&](const DataChunk& c) { n += c.count(); };
      JoinProbe::Emit e2 = [&](const DataChunk& c) { probes[2]->Probe(c, e3); };
      JoinProbe::Emit e1 = [&](const DataChunk& c) { probes[1]->Probe(c, e2); };
      for (size_t i = th; i < s.fact.chunks.size(); i += kThreads) {
        const DataChunk& f = s.fact.chunks[i];
        DataChunk ch;
        for (uint32_t c = 0; c < 3; ++c) {
          Vector v;
          v.WrapStripe(Type::BigInt(), f.column(c).data<int64_t>(), nullptr, 0);
          ch.AddColumn(std::move(v));
        }
        ch.set_size(f.size());
        for (uint32_t d = 0; d < 3 && mode != 0; ++d) {
          if (mode == 1) {
            s.blooms[d]->FilterChunk(enc, {d}, &ch);
          } else {
            s.exacts[d]->FilterChunk(d, &ch);
          }
        }
        if (ch.count() > 0) probes[0]->Probe(ch, e1);
      }
      probes[0]->Finish(e1);
      probes[1]->Finish(e2);
      probes[2]->Finish(e3);
      result += n;
    });
    state.counters["result"] = static_cast<double>(result.load());
  }
  state.counters["fact rows/s"] =
      benchmark::Counter(s.fact.rows, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(mode == 0 ? "no filter (baseline)" : mode == 1 ? "LIP Bloom" : "exact filter");
}

// ---- compaction ----
void BM_Compaction(benchmark::State& state) {
  int mode = static_cast<int>(state.range(0));  // 0 off, 1 fixed 2048, 2 learned
  static Table build = MakeTable(20000, {1 << 30, 1000}, 7);
  static Table probe = MakeTable(8 << 20, {2000000, 1000}, 8);
  auto ht = Build(build);
  // Downstream: an expression and an aggregate per emitted chunk (a fixed
  // per-chunk overhead plus per-row work), as a real plan above a join has.
  ExprPtr expr = Arith(ArithOp::kMul, ColumnRef(1, Type::BigInt()), Constant(Value::BigInt(3)));
  uint32_t learned = 0;
  for (auto _ : state) {
    std::atomic<uint64_t> chunks{0};
    Parallel([&](int th) {
      CompactionPolicy policy = mode == 0   ? CompactionPolicy::Off()
                                : mode == 1 ? CompactionPolicy::Fixed(kVectorSize)
                                            : CompactionPolicy::Learned(th + 1);
      JoinProbe p(ht.get(), JoinType::kInner, {0}, {0}, {Type::BigInt()}, policy);
      ExpressionExecutor exec(*expr);
      Aggregator agg(AggMethod::kIndependent, {}, {}, {{AggKind::kSum, 0, Type::BigInt()}}, 1);
      auto emit = [&](const DataChunk& c) {
        const Vector& v = exec.Execute(c);
        DataChunk tmp;
        Vector w;
        w.WrapStripe(Type::BigInt(), v.data<int64_t>(), nullptr, 0);
        tmp.AddColumn(std::move(w));
        tmp.set_size(c.size());
        agg.Consume(0, tmp);
      };
      for (size_t i = th; i < probe.chunks.size(); i += kThreads) p.Probe(probe.chunks[i], emit);
      p.Finish(emit);
      chunks += p.chunks_emitted();
      if (th == 0) learned = p.policy().best_threshold();
    });
    state.counters["out chunks"] = static_cast<double>(chunks.load());
  }
  state.counters["probe rows/s"] =
      benchmark::Counter(probe.rows, benchmark::Counter::kIsIterationInvariantRate);
  if (mode == 2) state.counters["learned threshold"] = learned;
  state.SetLabel(mode == 0 ? "off (baseline)" : mode == 1 ? "fixed 2048" : "learned");
}

BENCHMARK(BM_BaselineUnorderedMultimapBuildProbe)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(2);
BENCHMARK(BM_HashJoinBuild)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_HashJoinProbe)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_StarJoin)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);
BENCHMARK(BM_Compaction)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

}  // namespace
}  // namespace forktail

BENCHMARK_MAIN();
