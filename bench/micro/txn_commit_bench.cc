// Commit throughput of the transaction engine and recovery replay rate.
//
//   BM_Commit/sync:1/threads:N   small update transactions (read a row by key,
//                                update its balance) from N submitting threads,
//                                synchronous group commit (sync:1) or
//                                asynchronous commit (sync:0). Counters:
//                                txn/s, fdatasync/s, txn per fdatasync.
//   BM_Replay                    restart of a log of 20,000 such transactions:
//                                records/s and MB/s of replay (no checkpoint).
//
// The data directory is made under the working directory (or
// FORKTAIL_BENCH_DIR): run it on the real disk, not tmpfs, e.g.
//   cd /work/main/build/txn-rel && ./bench/txn_commit_bench
#include <benchmark/benchmark.h>
#include <cstdlib>

#include <atomic>
#include <filesystem>
#include <random>
#include <thread>

#include "bench/micro/bench_dir.h"
#include "txn/txn.h"

namespace forktail {
namespace {

constexpr int kAccounts = 1000;

void Setup(Database& db) {
  db.Run([](Transaction& txn) {
      txn.CreateTable(
          {"account", {{"id", Type::BigInt(), true}, {"balance", Type::BigInt()}}, {ColumnId(0)}});
      for (int i = 0; i < kAccounts; i++) {
        txn.Insert("account", {Value::BigInt(i), Value::BigInt(0)});
      }
    }).ThrowIfError();
  db.RegisterProcedure("bump", [](Transaction& txn, int64_t id) {
    auto row = txn.Get("account", {Value::BigInt(id)});
    txn.UpdateByKey("account", {Value::BigInt(id)},
                    {{"balance", Value::BigInt((*row)[1].GetInt() + 1)}});
  });
}

void BM_Commit(benchmark::State& state) {
  const bool sync = state.range(0) != 0;
  const int threads = static_cast<int>(state.range(1));
  const int per_thread = sync ? std::max(50, 2000 / threads) : 20000 / threads;
  std::string dir = MakeBenchDir("forktail_txn_bench");
  DatabaseOptions o;
  o.synchronous_commit = sync;
  auto db = Database::Open(dir, o);
  Setup(*db);
  uint64_t txns = 0, syncs0 = db->log_stats().syncs;
  for (auto _ : state) {
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; t++) {
      ts.emplace_back([&, t] {
        std::mt19937_64 rng(t);
        for (int i = 0; i < per_thread; i++) {
          TxnResult r =
              db->Execute("bump", {Value::BigInt(static_cast<int64_t>(rng() % kAccounts))});
          if (!r.ok) std::abort();
        }
      });
    }
    for (auto& th : ts) th.join();
    txns += uint64_t(threads) * per_thread;
  }
  uint64_t syncs = db->log_stats().syncs - syncs0;
  state.counters["txn/s"] = benchmark::Counter(double(txns), benchmark::Counter::kIsRate);
  state.counters["fdatasync/s"] = benchmark::Counter(double(syncs), benchmark::Counter::kIsRate);
  state.counters["txn/fdatasync"] = double(txns) / double(std::max<uint64_t>(syncs, 1));
  db.reset();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_Commit)
    ->ArgNames({"sync", "threads"})
    ->ArgsProduct({{1, 0}, {1, 4, 16}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

void BM_Replay(benchmark::State& state) {
  std::string dir = MakeBenchDir("forktail_txn_bench");
  {
    DatabaseOptions o;
    o.synchronous_commit = false;
    auto db = Database::Open(dir, o);
    Setup(*db);
    std::vector<std::future<TxnResult>> fs;
    for (int i = 0; i < 20000; i++)
      fs.push_back(db->ExecuteAsync("bump", {Value::BigInt(i % kAccounts)}));
    for (auto& f : fs) f.get();
  }
  uint64_t records = 0, bytes = 0;
  for (auto _ : state) {
    Catalog catalog;
    redo::RecoveryReport report;
    Status s = redo::RecoverDatabase(dir, nullptr, nullptr, nullptr, &catalog, true, &report);
    if (!s.ok()) std::abort();
    records += report.replay.records;
    bytes += report.replay.bytes;
  }
  state.counters["records/s"] = benchmark::Counter(double(records), benchmark::Counter::kIsRate);
  state.counters["MB/s"] = benchmark::Counter(double(bytes) / 1e6, benchmark::Counter::kIsRate);
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_Replay)->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace
}  // namespace forktail

BENCHMARK_MAIN();
