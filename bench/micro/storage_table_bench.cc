// Table micro-benchmarks: insert, point lookup by primary key (through the
// key hash index and through the ordered index), building the key hash
// index, in-place
// update, and a full scan of one BIGINT column through the block read views,
// beside a plain summing loop over a std::vector<int64_t> of the same size
// (the memory-bandwidth limit), and the same column frozen (frame of
// reference + bit packing) decoded a vector at a time, as a table scan does.
// The ratios to the vector loop are printed at the end. And an ordered
// index's entries loaded, probed and scanned with packed leaves (loaded in
// key order) and plain ones (loaded at random), in the same run.
//
//   build/storage-rel/bench/storage_table_bench
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "storage/storage.h"
#include "storage/table/byte_string_set.h"

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

// With the key hash index (`hashed`), or with lookups through the primary
// key's ordered index (a table whose keys nobody looked up yet: table.h,
// "Indexes").
Table& LookupTable(bool hashed = true) {
  static Table* tables[2] = {};
  if (tables[hashed] == nullptr) {
    auto* t = new Table(TableId(1), OrdersSchema());
    for (int64_t i = 0; i < kLookupRows; i++) t->Insert(OrderRow(i));
    if (hashed) t->BuildKeyIndex();
    tables[hashed] = t;
  }
  return *tables[hashed];
}

// Inserts in key order, into a table with the key hash index (kept at each
// insert) and without it (the unique check is the ordered index's: past
// its last key, no search).
void BM_Insert(benchmark::State& state) {
  const bool hashed = state.range(0) == 1;
  const int64_t rows = 200000;
  for (auto _ : state) {
    Table t(TableId(1), OrdersSchema());
    if (hashed) t.BuildKeyIndex();
    for (int64_t i = 0; i < rows; i++) t.Insert(OrderRow(i));
    benchmark::DoNotOptimize(t.live_row_count());
  }
  state.SetItemsProcessed(state.iterations() * rows);
  state.SetLabel(hashed ? "key hash index" : "ordered index");
}
BENCHMARK(BM_Insert)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

void BM_PointLookup(benchmark::State& state) {
  const bool hashed = state.range(0) == 1;
  Table& t = LookupTable(hashed);
  std::mt19937_64 rng(42);
  for (auto _ : state) {
    auto tid = t.LookupKey({Value::BigInt(static_cast<int64_t>(rng() % kLookupRows))});
    benchmark::DoNotOptimize(tid);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(hashed ? "key hash index" : "ordered index");
}
BENCHMARK(BM_PointLookup)->Arg(1)->Arg(0);

// Building the key hash index of 1 Mi keys, as the transaction thread does
// between two transactions after the table's first lookup.
void BM_KeyIndexBuild(benchmark::State& state) {
  Table& t = LookupTable(false);
  for (auto _ : state) {
    t.BuildKeyIndex();
    benchmark::DoNotOptimize(t.index().size());
    state.PauseTiming();
    t.DropKeyIndex();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * kLookupRows);
}
BENCHMARK(BM_KeyIndexBuild)->Unit(benchmark::kMillisecond);

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

// An ordered primary key's entries, as OrderedIndex makes them for TPC-H's
// lineitem ((marker, l_orderkey), (marker, l_linenumber), a 6-byte tid),
// 1-7 lines per order: loaded in key order (COPY of a sorted file: the
// leaves are packed) and in random order (the leaves stay plain), the
// baseline in the same run.
constexpr size_t kIndexEntries = 1 << 20;

std::vector<std::string> LineitemEntries(bool shuffled) {
  std::vector<std::string> all;
  std::mt19937_64 rng(42);
  for (uint32_t order = 1; all.size() < kIndexEntries; order++) {
    const uint32_t lines = 1 + static_cast<uint32_t>(rng() % 7);
    for (uint32_t line = 1; line <= lines && all.size() < kIndexEntries; line++) {
      std::string e;
      for (uint32_t v : {order, line}) {
        e.push_back('\x01');
        for (int b = 3; b >= 0; b--) e.push_back(static_cast<char>((v >> (8 * b)) & 0xFF));
      }
      for (int b = 5; b >= 0; b--) e.push_back(static_cast<char>((all.size() >> (8 * b)) & 0xFF));
      all.push_back(std::move(e));
    }
  }
  if (shuffled) std::shuffle(all.begin(), all.end(), rng);
  return all;
}

const ByteStringSet& IndexSet(bool packed) {
  static const ByteStringSet* sets[2] = {};
  if (sets[packed] == nullptr) {
    auto* set = new ByteStringSet;
    for (const std::string& e : LineitemEntries(!packed)) set->insert(e);
    sets[packed] = set;
  }
  return *sets[packed];
}

void BM_IndexLoad(benchmark::State& state) {
  const bool in_order = state.range(0) == 1;
  const std::vector<std::string> entries = LineitemEntries(!in_order);
  size_t bytes = 0, packed = 0, leaves = 0;
  for (auto _ : state) {
    ByteStringSet set;
    for (const std::string& e : entries) set.insert(e);
    bytes = set.memory_bytes();
    packed = set.packed_leaves();
    leaves = set.leaves();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * entries.size()));
  state.counters["bytes_per_entry"] = static_cast<double>(bytes) / entries.size();
  state.counters["packed_leaves"] = static_cast<double>(packed) / static_cast<double>(leaves);
  state.SetLabel(in_order ? "in key order (packed)" : "random order (plain)");
}
BENCHMARK(BM_IndexLoad)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

void BM_IndexLowerBound(benchmark::State& state) {
  const bool packed = state.range(0) == 1;
  const ByteStringSet& set = IndexSet(packed);
  std::vector<std::string> probes = LineitemEntries(true);
  probes.resize(1 << 16);
  size_t i = 0, found = 0;
  for (auto _ : state) {
    auto it = set.lower_bound(probes[i++ & 0xFFFF]);
    found += (*it).size();
  }
  benchmark::DoNotOptimize(found);
  state.SetLabel(packed ? "packed leaves" : "plain leaves");
}
BENCHMARK(BM_IndexLowerBound)->Arg(1)->Arg(0);

void BM_IndexScan(benchmark::State& state) {
  const bool packed = state.range(0) == 1;
  const ByteStringSet& set = IndexSet(packed);
  size_t bytes = 0;
  for (auto _ : state) {
    for (std::string_view e : set) bytes += e.size();
  }
  benchmark::DoNotOptimize(bytes);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * set.size()));
  state.SetLabel(packed ? "packed leaves" : "plain leaves");
}
BENCHMARK(BM_IndexScan)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

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
