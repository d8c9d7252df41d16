// Transactions over data larger than memory (tiering/buffer_pool.h; issue 18):
// a table of 64 blocks, transactions by key from 4 submitting threads, 90%
// of them on a hot tenth of the keys, asynchronous commit (the engine's own
// rate, not fdatasync's). Hot transactions read and update their row; cold
// ones too (cold_writes:1) or only read it (cold_writes:0).
//
//   BM_Skewed/budget:0/...    every block in memory: the baseline
//   BM_Skewed/budget:16/...   a budget of 16 blocks, a quarter of the data:
//                             cold blocks leave memory and come back through
//                             the cold store; transactions that miss one run
//                             again after it is read with no lock held
//
// A cold update dirties a whole 2 MiB block, which only a checkpoint makes
// clean again: with cold writes the pool's write-back (a checkpoint every few
// tens of milliseconds) and its back-pressure set the rate.
//
// Counters: txn/s; restarts/s and reads/s (anti-caching: a miss rolls the
// transaction back, the block is read with no lock held); inline_loads, the
// transactions that read a block while holding the execution lock (the
// stall the design avoids: 0 when every miss was read off the lock);
// checkpoints the pool forced (its write-back); busy, the execution lock's
// utilization. The run ends with the ratio of the budgeted rate to the
// in-memory one, same run.
//
//   build/release/bench/txn_pool_bench [--benchmark_min_time=5]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <thread>

#include "bench/micro/bench_dir.h"
#include "txn/txn.h"

namespace forktail {
namespace {

constexpr uint32_t kRowsPerBlock = 1000;
constexpr int kBlocks = 64;
constexpr int64_t kKeys = int64_t{kRowsPerBlock} * kBlocks;
constexpr int kThreads = 4;

std::map<std::pair<int64_t, bool>, double> g_rates;  // (budget blocks, cold writes) -> txn/s

void Setup(Database& db) {
  db.Run([](Transaction& txn) {
      TableOptions o;
      o.max_rows_per_block = kRowsPerBlock;
      txn.CreateTable(
          {"account",
           {{"id", Type::BigInt(), true}, {"balance", Type::BigInt()}, {"note", Type::Text()}},
           {ColumnId(0)}},
          o);
      for (int64_t i = 0; i < kKeys; i++) {
        txn.Insert("account",
                   {Value::BigInt(i), Value::BigInt(0), Value::Text(std::string(100, 'n'))});
      }
    }).ThrowIfError();
  db.RegisterProcedure("bump", [](Transaction& txn, int64_t id) {
    auto row = txn.Get("account", {Value::BigInt(id)});
    txn.UpdateByKey("account", {Value::BigInt(id)},
                    {{"balance", Value::BigInt((*row)[1].GetInt() + 1)}});
  });
  db.RegisterProcedure("look", [](Transaction& txn, int64_t id) {
    if (!txn.Get("account", {Value::BigInt(id)})) txn.Abort("no such account");
  });
  db.Checkpoint();  // every block clean: with a budget, the cold ones leave
  db.TrimToBudget();
}

void BM_Skewed(benchmark::State& state) {
  const int64_t budget_blocks = state.range(0);
  const bool cold_writes = state.range(1) != 0;
  const std::string dir = MakeBenchDir("forktail_pool_bench");
  DatabaseOptions o;
  o.synchronous_commit = false;
  o.checkpoint_mode = DatabaseOptions::CheckpointMode::kInProcess;
  o.memory_budget = static_cast<uint64_t>(budget_blocks) * kBlockSize;
  auto db = Database::Open(dir, o);
  Setup(*db);
  const PoolReport before = db->pool_report();
  const TxnThreadTime t0 = db->txn_thread_time();
  uint64_t txns = 0;
  double seconds = 0;
  // The resident block bytes, sampled every 10 ms: how far past the budget
  // changed blocks carry memory until a checkpoint makes them clean.
  std::atomic<bool> sampling{true};
  std::atomic<int64_t> peak{0};
  int64_t sum = 0, samples = 0;
  std::thread sampler([&] {
    while (sampling) {
      const int64_t r = db->pool_report().resident_bytes;
      peak = std::max(peak.load(), r);
      sum += r;
      samples++;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  for (auto _ : state) {
    std::atomic<uint64_t> done{0};
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++) {
      threads.emplace_back([&, t] {
        std::mt19937_64 rng(static_cast<uint64_t>(t) * 7919 + txns);
        for (int i = 0; i < 20000; i++) {
          const bool hot = rng() % 10 < 9;
          const int64_t id = hot ? static_cast<int64_t>(rng() % (kKeys / 10))
                                 : static_cast<int64_t>(rng() % kKeys);
          db->Execute(hot || cold_writes ? "bump" : "look", {Value::BigInt(id)}).ThrowIfError();
        }
        done += 20000;
      });
    }
    for (std::thread& th : threads) th.join();
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    txns += done;
  }
  sampling = false;
  sampler.join();
  const PoolReport after = db->pool_report();
  const TxnThreadTime t1 = db->txn_thread_time();
  if (budget_blocks > 0 && samples > 0) {
    state.counters["resident_avg_mb"] =
        benchmark::Counter(static_cast<double>(sum / samples) / (1 << 20));
    state.counters["resident_peak_mb"] =
        benchmark::Counter(static_cast<double>(peak.load()) / (1 << 20));
  }
  state.counters["txn/s"] = benchmark::Counter(static_cast<double>(txns) / seconds);
  state.counters["restarts/s"] =
      benchmark::Counter(static_cast<double>(after.restarts - before.restarts) / seconds);
  state.counters["reads/s"] =
      benchmark::Counter(static_cast<double>(after.reads - before.reads) / seconds);
  state.counters["inline_loads"] =
      benchmark::Counter(static_cast<double>(after.inline_loads - before.inline_loads));
  state.counters["room_waits"] =
      benchmark::Counter(static_cast<double>(after.room_waits - before.room_waits));
  state.counters["checkpoints"] =
      benchmark::Counter(static_cast<double>(after.forced_checkpoints - before.forced_checkpoints));
  state.counters["busy"] = benchmark::Counter(static_cast<double>(t1.busy_ns - t0.busy_ns) /
                                              static_cast<double>(t1.alive_ns - t0.alive_ns));
  g_rates[{budget_blocks, cold_writes}] = static_cast<double>(txns) / seconds;
  db.reset();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_Skewed)
    ->ArgNames({"budget", "cold_writes"})
    ->ArgsProduct({{0, kBlocks / 4}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace forktail

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  using forktail::g_rates;
  for (bool cold_writes : {false, true}) {
    const std::pair<int64_t, bool> base{0, cold_writes}, budget{forktail::kBlocks / 4, cold_writes};
    if (!g_rates.count(base) || !g_rates.count(budget)) continue;
    std::printf("cold %s, budget of a quarter of the data: %.0f txn/s vs %.0f in memory: %.2fx\n",
                cold_writes ? "updates" : "reads", g_rates[budget], g_rates[base],
                g_rates[budget] / g_rates[base]);
  }
  return 0;
}
