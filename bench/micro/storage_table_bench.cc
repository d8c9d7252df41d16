// Table micro-benchmarks: insert, point lookup by primary key, in-place
// update, and a full scan of one BIGINT column through the block read views,
// beside a plain summing loop over a std::vector<int64_t> of the same size
// (the memory-bandwidth limit), and the same column frozen (frame of
// reference + bit packing) decoded a vector at a time, as a table scan does.
// The ratios to the vector loop are printed at the end.
//
//   build/storage-rel/bench/storage_table_bench
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "storage/storage.h"

namespace forktail {
namespace {

constexpr int64_t kScanRows = int64_t{16} << 20;  // 16 Mi rows: a 128 MiB column
constexpr int64_t kLookupRows = 1 << 20;

TableSchema OrdersSchema() {
  return {"orders",
          {{"id", Type::BigInt()}, {"qty", Type::Integer()}, {"status", Type::Varchar(10)}},
          {ColumnId(0)}};
}

Row OrderRow(int64_t i) {
  static const char* kStatus[] = {"new", "paid", "shipped", "closed"};
  return {Value::BigInt(i), Value::Integer(static_cast<int32_t>(i % 100)),
          Value::String(Type::Varchar(10), kStatus[i % 4])};
}

Table& LookupTable() {
  static Table* table = [] {
    auto* t = new Table(TableId(1), OrdersSchema());
    for (int64_t i = 0; i < kLookupRows; i++) t->Insert(OrderRow(i));
    return t;
  }();
  return *table;
}

void BM_Insert(benchmark::State& state) {
  const int64_t rows = 200000;
  for (auto _ : state) {
    Table t(TableId(1), OrdersSchema());
    for (int64_t i = 0; i < rows; i++) t.Insert(OrderRow(i));
    benchmark::DoNotOptimize(t.live_row_count());
  }
  state.SetItemsProcessed(state.iterations() * rows);
}
BENCHMARK(BM_Insert)->Unit(benchmark::kMillisecond);

void BM_PointLookup(benchmark::State& state) {
  Table& t = LookupTable();
  std::mt19937_64 rng(42);
  for (auto _ : state) {
    auto tid = t.LookupKey({Value::BigInt(static_cast<int64_t>(rng() % kLookupRows))});
    benchmark::DoNotOptimize(tid);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PointLookup);

void BM_Update(benchmark::State& state) {
  Table& t = LookupTable();
  std::mt19937_64 rng(7);
  for (auto _ : state) {
    auto tid = t.LookupKey({Value::BigInt(static_cast<int64_t>(rng() % kLookupRows))});
    t.Update(*tid, {{ColumnId(1), Value::Integer(static_cast<int32_t>(rng() % 100))}});
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Update);

double scan_gbps = 0;
double vector_gbps = 0;
double frozen_gbps = 0;
size_t frozen_bytes = 0;

Table* FactsTable() {
  auto* t = new Table(TableId(2), {"facts", {{"v", Type::BigInt()}}, {}});
  for (int64_t i = 0; i < kScanRows; i++) t->Insert({Value::BigInt(i)});
  return t;
}

// The sum of values[0, count) whose bits are clear in `deleted` and `nulls`
// (bit r for value r; nulls may be null), a 64-row word at a time.
int64_t SumLive(const int64_t* values, uint32_t count, const uint64_t* deleted,
                const uint64_t* nulls) {
  int64_t sum = 0;
  for (uint32_t w = 0; w * 64 < count; w++) {
    const uint64_t skip = deleted[w] | (nulls != nullptr ? nulls[w] : 0);
    const uint32_t end = std::min(count, (w + 1) * 64);
    int64_t s = 0;
    if (skip == 0) {
      for (uint32_t r = w * 64; r < end; r++) s += values[r];
    } else {
      for (uint32_t r = w * 64; r < end; r++) s += ((skip >> (r & 63)) & 1) ? 0 : values[r];
    }
    sum += s;
  }
  return sum;
}

void BM_ScanBigintColumn(benchmark::State& state) {
  static Table* table = FactsTable();
  double seconds = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    int64_t sum = 0;
    table->ForEachBlock([&](const BlockRef&, const BlockReadView& v) {
      const int64_t* col = v.stripe<int64_t>(ColumnId(0));
      const uint64_t* deleted = v.delete_bitmap();
      const uint64_t* nulls = v.null_bitmap(ColumnId(0));
      sum += SumLive(col, v.row_count(), deleted, nulls);
    });
    benchmark::DoNotOptimize(sum);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  state.SetBytesProcessed(state.iterations() * kScanRows * 8);
  scan_gbps = static_cast<double>(state.iterations() * kScanRows * 8) / seconds / 1e9;
}
BENCHMARK(BM_ScanBigintColumn)->Unit(benchmark::kMillisecond);

// The column frozen: each block's values decoded kVector rows at a time into
// a buffer that stays in L1, NULL and delete bits applied, then summed.
void BM_ScanBigintFrozen(benchmark::State& state) {
  static Table* table = [] {
    Table* t = FactsTable();
    uint32_t cursor = 0;
    t->FreezeBlocks(/*idle_only=*/false, SIZE_MAX, &cursor);
    for (uint32_t b = 0; b < t->block_count(); b++)
      frozen_bytes += t->PinBlock(BlockNo(b))->memory_bytes();
    return t;
  }();
  constexpr uint32_t kVector = 2048;
  std::vector<int64_t> values(kVector);
  double seconds = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    int64_t sum = 0;
    for (uint32_t b = 0; b < table->block_count(); b++) {
      BlockRef ref = table->PinBlock(BlockNo(b));
      const Block& block = *ref;
      const auto* base = reinterpret_cast<const char*>(&block.header());
      const auto* deleted =
          reinterpret_cast<const uint64_t*>(base + block.layout().delete_offset());
      const uint64_t* nulls = block.FrozenNullBitmap(ColumnId(0));
      const uint32_t n = block.row_count();
      for (uint32_t first = 0; first < n; first += kVector) {
        const uint32_t count = std::min(kVector, n - first);
        block.DecodeColumn(ColumnId(0), first, count, values.data());
        sum += SumLive(values.data(), count, deleted + first / 64,
                       nulls != nullptr ? nulls + first / 64 : nullptr);
      }
    }
    benchmark::DoNotOptimize(sum);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  // Logical bytes (8 per value), so that the figure compares with the others.
  state.SetBytesProcessed(state.iterations() * kScanRows * 8);
  frozen_gbps = static_cast<double>(state.iterations() * kScanRows * 8) / seconds / 1e9;
}
BENCHMARK(BM_ScanBigintFrozen)->Unit(benchmark::kMillisecond);

void BM_SumVectorBaseline(benchmark::State& state) {
  static std::vector<int64_t>* data = [] {
    auto* v = new std::vector<int64_t>(kScanRows);
    std::iota(v->begin(), v->end(), 0);
    return v;
  }();
  double seconds = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    int64_t sum = 0;
    for (int64_t x : *data) sum += x;
    benchmark::DoNotOptimize(sum);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  state.SetBytesProcessed(state.iterations() * kScanRows * 8);
  vector_gbps = static_cast<double>(state.iterations() * kScanRows * 8) / seconds / 1e9;
}
BENCHMARK(BM_SumVectorBaseline)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace forktail

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (forktail::scan_gbps > 0 && forktail::vector_gbps > 0) {
    std::printf("BIGINT column scan %.2f GB/s, std::vector<int64_t> sum %.2f GB/s: ratio %.2f\n",
                forktail::scan_gbps, forktail::vector_gbps,
                forktail::scan_gbps / forktail::vector_gbps);
  }
  if (forktail::frozen_gbps > 0 && forktail::vector_gbps > 0) {
    std::printf(
        "BIGINT frozen column scan %.2f GB/s of values (%.1f MiB for %.0f MiB of values), "
        "std::vector<int64_t> sum %.2f GB/s: ratio %.2f\n",
        forktail::frozen_gbps, forktail::frozen_bytes / 1048576.0,
        forktail::kScanRows * 8 / 1048576.0, forktail::vector_gbps,
        forktail::frozen_gbps / forktail::vector_gbps);
  }
  return 0;
}
