// COPY FROM speed on TPC-H lineitem-shaped input ('|'-delimited CSV, 16
// columns, ~120 bytes a row), stage by stage, beside a baseline that only
// finds the line ends with memchr:
//   BM_SplitLines      baseline: memchr for '\n' over the bytes
//   BM_Parse           CopyParser: rows of text fields
//   BM_ParseConvert    + CopyRowBuilder: Value::Parse per field into a Row
//   BM_Load            + CopyLoader into a Database table (batches on the
//                      transaction thread, WAL with synchronous commit)
// Input: FORKTAIL_COPY_BENCH_FILE (e.g. build/tpch/sf1/lineitem.tbl, first
// 64 MiB) or, by default, 200,000 generated rows.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "forktail/database.h"
#include "olap/session/format/copy_reader.h"

namespace forktail {
namespace {

TableSchema LineitemSchema(const std::string& name) {
  auto dec = Type::Decimal(15, 2);
  return {name,
          {{"l_orderkey", Type::Integer()},
           {"l_partkey", Type::Integer()},
           {"l_suppkey", Type::Integer()},
           {"l_linenumber", Type::Integer()},
           {"l_quantity", dec},
           {"l_extendedprice", dec},
           {"l_discount", dec},
           {"l_tax", dec},
           {"l_returnflag", Type::Char(1)},
           {"l_linestatus", Type::Char(1)},
           {"l_shipdate", Type::Date()},
           {"l_commitdate", Type::Date()},
           {"l_receiptdate", Type::Date()},
           {"l_shipinstruct", Type::Char(25)},
           {"l_shipmode", Type::Char(10)},
           {"l_comment", Type::Varchar(44)}},
          {ColumnId(0), ColumnId(3)}};
}

std::string GenerateLineitem(int rows) {
  std::mt19937_64 rng(42);
  const char* instruct[] = {"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"};
  const char* mode[] = {"TRUCK", "MAIL", "REG AIR", "AIR", "FOB", "RAIL", "SHIP"};
  const char* words = "carefully final deposits detect slyly regular packages haggle";
  std::string out;
  char line[512];
  for (int i = 0; i < rows; i++) {
    int order = i / 4 + 1, num = i % 4 + 1;
    int day = 1 + static_cast<int>(rng() % 28), month = 1 + static_cast<int>(rng() % 12);
    int start = static_cast<int>(rng() % 20), len = 10 + static_cast<int>(rng() % 30);
    int n = std::snprintf(
        line, sizeof line,
        "%d|%d|%d|%d|%d.00|%d.%02d|0.0%d|0.0%d|%c|%c|199%d-%02d-%02d|199%d-%02d-%02d|"
        "199%d-%02d-%02d|%s|%s|%.*s\n",
        order, static_cast<int>(rng() % 200000), static_cast<int>(rng() % 10000), num,
        static_cast<int>(1 + rng() % 50), static_cast<int>(rng() % 100000),
        static_cast<int>(rng() % 100), static_cast<int>(rng() % 10), static_cast<int>(rng() % 9),
        "ANR"[rng() % 3], "OF"[rng() % 2], static_cast<int>(2 + rng() % 6), month, day,
        static_cast<int>(2 + rng() % 6), month, day, static_cast<int>(2 + rng() % 6), month, day,
        instruct[rng() % 4], mode[rng() % 7], len, words + start);
    out.append(line, n);
  }
  return out;
}

const std::string& Input() {
  static const std::string input = [] {
    if (const char* path = std::getenv("FORKTAIL_COPY_BENCH_FILE")) {
      std::string s(size_t{64} << 20, '\0');
      FILE* f = std::fopen(path, "rb");
      if (f == nullptr) std::abort();
      s.resize(std::fread(s.data(), 1, s.size(), f));
      std::fclose(f);
      s.resize(s.rfind('\n') + 1);
      return s;
    }
    return GenerateLineitem(200000);
  }();
  return input;
}

CopyOptions PipeCsv() {
  CopyOptions o;
  o.format = CopyFormat::kCsv;
  o.delimiter = '|';
  return o;
}

constexpr size_t kChunk = 64 << 10;  // a CopyData-sized feed

void Report(benchmark::State& state, uint64_t rows) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * Input().size()));
  state.counters["rows/s"] =
      benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsRate);
}

void BM_SplitLines(benchmark::State& state) {
  const std::string& in = Input();
  uint64_t rows = 0;
  for (auto _ : state) {
    const char* p = in.data();
    const char* end = p + in.size();
    while (p < end) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
      if (nl == nullptr) break;
      benchmark::DoNotOptimize(nl);
      rows++;
      p = nl + 1;
    }
  }
  Report(state, rows);
}
BENCHMARK(BM_SplitLines)->Unit(benchmark::kMillisecond);

void BM_Parse(benchmark::State& state) {
  const std::string& in = Input();
  uint64_t rows = 0, fields = 0;
  for (auto _ : state) {
    CopyParser parser(PipeCsv(), "lineitem", [&](const CopyRow& row) {
      rows++;
      fields += row.fields.size();
    });
    for (size_t i = 0; i < in.size(); i += kChunk)
      parser.Feed(std::string_view(in).substr(i, kChunk));
    parser.Finish();
  }
  benchmark::DoNotOptimize(fields);
  Report(state, rows);
}
BENCHMARK(BM_Parse)->Unit(benchmark::kMillisecond);

void BM_ParseConvert(benchmark::State& state) {
  const std::string& in = Input();
  CopyRowBuilder builder(LineitemSchema("lineitem"), {});
  uint64_t rows = 0;
  for (auto _ : state) {
    CopyParser parser(PipeCsv(), "lineitem", [&](const CopyRow& row) {
      Row r = builder.Build(row);
      benchmark::DoNotOptimize(r.data());
      rows++;
    });
    for (size_t i = 0; i < in.size(); i += kChunk)
      parser.Feed(std::string_view(in).substr(i, kChunk));
    parser.Finish();
  }
  Report(state, rows);
}
BENCHMARK(BM_ParseConvert)->Unit(benchmark::kMillisecond);

void BM_Load(benchmark::State& state) {
  const std::string& in = Input();
  auto dir = std::filesystem::temp_directory_path() /
             ("forktail_copy_bench_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto db = Database::Open(dir.string());
  uint64_t rows = 0;
  int n = 0;
  for (auto _ : state) {
    std::string table = "lineitem" + std::to_string(n++);
    state.PauseTiming();
    db->Run([&](Transaction& txn) { txn.CreateTable(LineitemSchema(table)); }).ThrowIfError();
    state.ResumeTiming();
    CopyLoader loader(*db, table, {}, PipeCsv(),
                      CopyLoadOptions{.batch_rows = static_cast<size_t>(state.range(0))});
    for (size_t i = 0; i < in.size(); i += kChunk)
      loader.Feed(std::string_view(in).substr(i, kChunk));
    rows += loader.Finish();
    state.PauseTiming();
    db->Run([&](Transaction& txn) { txn.DropTable(table); }).ThrowIfError();
    state.ResumeTiming();
  }
  Report(state, rows);
  db.reset();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_Load)
    ->Arg(16384)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

}  // namespace
}  // namespace forktail

BENCHMARK_MAIN();
