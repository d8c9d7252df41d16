// tpch_bench: TPC-H on Forktail beside DuckDB, same data, same thread count.
//
//   tpch_bench [--sf 1] [--data build/tpch/sf1] [--threads 2] [--runs 3]
//              [--snapshot] [--queries 1,3,6] [--no-duckdb] [--explain]
//              [--db DIR] [--freeze [--plain-strings]]
//
// 1. scripts/tpch/make-data.sh SF DATA (idempotent) makes the data and
//    DuckDB's database of it;
// 2. a fresh Forktail Database (temporary directory, asynchronous commit)
//    gets the schema and every table through `COPY ... FROM 'file'` on a
//    SqlSession: the load time per table is printed;
// 3. each query runs `runs` times on Forktail (in-process on a scheduler of
//    `threads` workers, or with --snapshot in a forked snapshot process) and
//    the best time is kept; a query that fails is reported as such;
// 4. make-data.sh --bench DATA THREADS RUNS times DuckDB (SET threads) on the
//    same queries; the table shows both and the ratio Forktail / DuckDB, with
//    totals over the queries both ran (--no-duckdb: Forktail only).
// --explain prints each query's EXPLAIN ANALYZE after its runs. --db DIR
// keeps the loaded database in DIR and reuses it when DIR/loaded exists
// (profiling without a load per run); peak RSS is printed at the end.
// --freeze freezes the blocks after the load (storage/table/block.h, "Frozen
// blocks") and prints the memory again: the queries then scan frozen blocks
// (--plain-strings: with their text columns uncompressed, no FSST). The
// table's columns after the ratio: Forktail's best CPU time (user + system,
// all threads); "peak+": the peak RSS during the query's runs over the RSS
// before them (VmHWM after resetting it through /proc/self/clear_refs); and
// "after": the RSS once the query's runs finished (RSS must not ratchet up).
#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "forktail/database.h"
#include "olap/common/freed_memory.h"
#include "olap/session/sql_frontend.h"
#include "olap/session/sql_session.h"

namespace forktail {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

double Ms(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

// User + system CPU time of this process (all threads), ms: on a shared,
// loaded machine a steadier measure than the wall clock.
double CpuMs() {
  struct rusage u {};
  ::getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
         (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

// Current resident set size of this process, MiB (/proc/self/statm).
double RssMiB() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * ::sysconf(_SC_PAGESIZE) / (1 << 20);
}

// Resets the process's peak-RSS mark to the current RSS (clear_refs 5), so
// VmHWM afterwards is the peak since this call.
void ResetPeakRss() { std::ofstream("/proc/self/clear_refs") << "5\n"; }

// VmHWM of /proc/self/status, MiB: the peak RSS since the last ResetPeakRss.
double PeakRssMiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::strtod(line.c_str() + 6, nullptr) / 1024.0;
  }
  return 0;
}

// Where the loaded tables' memory is: per table the input's bytes, the
// blocks (how many, how many of them frozen, and the bytes they hold: 2 MiB
// plain, the encoded size frozen), what the schema's guess of the string
// sizes would have taken (rows / its capacity), the bytes the plain stripes
// and bitmaps hold for the rows, the plain heap bytes used, the primary key's
// hash index and the ordered indexes (the primary key's and any secondary one).
void PrintMemory(Database& db, const std::vector<std::string>& tables,
                 const std::map<std::string, uint64_t>& csv_bytes) {
  std::printf("%-10s %10s %8s %7s %7s %9s %9s %9s %9s %9s %9s %6s\n", "memory", "rows", "csv MiB",
              "blocks", "frozen", "block MiB", "guess MiB", "fixed MiB", "heap MiB", "index MiB",
              "order MiB", "B/row");
  double total_block = 0, total_index = 0, total_order = 0, total_guess = 0, total_csv = 0;
  const double mib = 1 << 20;
  db.Run([&](Transaction& txn) {
      for (const std::string& name : tables) {
        const Table& t = txn.GetTable(name);
        uint64_t rows = 0, heap = 0, fixed = 0, bytes = 0, frozen = 0;
        double blocks = static_cast<double>(t.block_count());
        for (size_t i = 0; i < t.block_count(); i++) {
          BlockRef b = t.PinBlock(BlockNo(static_cast<uint32_t>(i)));
          rows += b->row_count();
          bytes += b->memory_bytes();
          frozen += b->frozen();
          if (b->frozen()) continue;
          heap += b->header().heap_used;
          uint64_t per_row = 0;
          for (const ColumnLayout& c : b->layout().columns()) per_row += c.width;
          fixed += uint64_t{b->row_count()} * per_row;
        }
        double block_mib = static_cast<double>(bytes) / mib;
        double guess_mib =
            static_cast<double>((rows + t.layout().capacity() - 1) / t.layout().capacity()) *
            kBlockSize / mib;
        double index_mib = static_cast<double>(t.index().memory_bytes()) / mib;
        double order_mib = 0;
        for (size_t i = 0; i < t.schema().indexes.size(); i++) {
          order_mib += static_cast<double>(t.secondary_index(i).memory_bytes()) / mib;
        }
        if (const OrderedIndex* key_order = t.key_order_index()) {
          order_mib += static_cast<double>(key_order->memory_bytes()) / mib;
        }
        double csv_mib = csv_bytes.count(name) ? csv_bytes.at(name) / mib : 0;
        std::printf("%-10s %10llu %8.0f %7.0f %7llu %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f %6.0f\n",
                    name.c_str(), static_cast<unsigned long long>(rows), csv_mib, blocks,
                    static_cast<unsigned long long>(frozen), block_mib, guess_mib, fixed / mib,
                    heap / mib, index_mib, order_mib,
                    rows ? static_cast<double>(bytes) / static_cast<double>(rows) : 0.0);
        total_block += block_mib;
        total_guess += guess_mib;
        total_index += index_mib;
        total_order += order_mib;
        total_csv += csv_mib;
      }
    }).ThrowIfError();
  std::printf("%-10s %10s %8.0f %7s %7s %9.0f %9.0f %9s %9s %9.0f %9.0f   RSS now %.0f MiB\n\n",
              "total", "", total_csv, "", "", total_block, total_guess, "", "", total_index,
              total_order, RssMiB());
}

std::string RunCommand(const std::string& command) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  if (::pclose(p) != 0) out.clear();
  return out;
}

// {"q01": {"ms": 12.3, "rows": 4}, ...} -> ms per query number.
std::map<int, double> ParseDuckTimes(const std::string& json) {
  std::map<int, double> out;
  for (int q = 1; q <= 22; q++) {
    char key[16];
    std::snprintf(key, sizeof key, "\"q%02d\"", q);
    size_t at = json.find(key);
    if (at == std::string::npos) continue;
    size_t ms = json.find("\"ms\":", at);
    if (ms == std::string::npos) continue;
    out[q] = std::strtod(json.c_str() + ms + 5, nullptr);
  }
  return out;
}

int Main(int argc, char** argv) {
  CLI::App app{"TPC-H on Forktail and DuckDB"};
  std::string sf = "1";
  std::string data;
  int threads = 2;
  int runs = 3;
  bool snapshot = false;
  std::vector<int> queries;
  app.add_option("--sf", sf, "scale factor");
  app.add_option("--data", data, "data directory (default build/tpch/sf<SF>)");
  app.add_option("--threads", threads, "worker threads of both engines");
  app.add_option("--runs", runs, "runs per query; the best counts");
  app.add_flag("--snapshot", snapshot, "run Forktail's queries in a snapshot process");
  app.add_option("--queries", queries, "query numbers (default all 22)")->delimiter(',');
  bool no_duckdb = false;
  bool explain = false;
  bool freeze = false;
  bool plain_strings = false;
  std::string keep_db;
  app.add_flag("--no-duckdb", no_duckdb, "time Forktail only");
  app.add_flag("--explain", explain, "print EXPLAIN ANALYZE of each query");
  app.add_flag("--freeze", freeze,
               "freeze every block but each table's tail after the load (compressed blocks)");
  app.add_flag("--plain-strings", plain_strings,
               "with --freeze: leave text columns uncompressed (no FSST), the baseline");
  app.add_option("--db", keep_db, "keep the loaded database here; reuse it when loaded");
  CLI11_PARSE(app, argc, argv);
  if (data.empty()) data = std::string(FORKTAIL_SOURCE_DIR) + "/build/tpch/sf" + sf;
  if (queries.empty()) {
    for (int q = 1; q <= 22; q++) queries.push_back(q);
  }
  const std::string script = std::string(FORKTAIL_SOURCE_DIR) + "/scripts/tpch/make-data.sh";
  if (std::system(("'" + script + "' " + sf + " '" + data + "'").c_str()) != 0) {
    std::fprintf(stderr, "tpch_bench: data generation failed\n");
    return 1;
  }

  fs::path dir = fs::temp_directory_path() / ("forktail_tpch_bench_" + std::to_string(::getpid()));
  const bool reuse = !keep_db.empty() && fs::exists(fs::path(keep_db) / "loaded");
  if (!keep_db.empty()) dir = keep_db;
  if (!reuse) fs::remove_all(dir);
  DatabaseOptions db_options;
  db_options.synchronous_commit = false;
  db_options.compress_frozen_strings = !plain_strings;
  auto db = Database::Open(dir.string(), db_options);
  SqlFrontendOptions options;
  options.routing = snapshot ? ReadRouting::kSnapshot : ReadRouting::kInProcess;
  options.workers = static_cast<size_t>(threads);
  options.child_workers = static_cast<size_t>(threads);
  options.parallelism = threads;
  options.copy_batch_rows = 65536;
  auto engine = std::make_unique<SqlFrontend>(db.get(), options);
  auto session = std::make_unique<SqlSession>(*engine);

  std::printf("TPC-H SF %s, %d threads, best of %d, data %s\n\n", sf.c_str(), threads, runs,
              data.c_str());
  if (!reuse) session->Execute(ReadFile(fs::path(data) / "schema.sql"));
  std::istringstream load(ReadFile(fs::path(data) / "load.sql"));
  std::string statement;
  std::vector<std::string> loaded_tables;
  std::map<std::string, uint64_t> csv_bytes;
  double load_ms = 0;
  uint64_t load_bytes = 0;
  if (!reuse)
    std::printf("%-10s %10s %10s %10s %10s %9s\n", "load", "rows", "ms", "Mrows/s", "MB/s",
                "RSS MiB");
  while (std::getline(load, statement)) {
    if (statement.empty()) continue;
    std::string table = statement.substr(5, statement.find(' ', 5) - 5);
    loaded_tables.push_back(table);
    uint64_t bytes = fs::file_size(fs::path(data) / (table + ".tbl"));
    csv_bytes[table] = bytes;
    if (reuse) continue;  // loaded before: the tables only, for PrintMemory
    auto start = Clock::now();
    auto results = session->Execute(statement);
    double ms = Ms(start);
    uint64_t rows = std::strtoull(results.at(0).command_tag.c_str() + 5, nullptr, 10);
    std::printf("%-10s %10llu %10.0f %10.2f %10.1f %9.0f\n", table.c_str(),
                static_cast<unsigned long long>(rows), ms, rows / ms / 1000, bytes / ms / 1000,
                RssMiB());
    std::fflush(stdout);
    load_ms += ms;
    load_bytes += bytes;
  }
  if (!reuse) {
    std::printf("%-10s %10s %10.0f %10s %10.1f\n\n", "total", "", load_ms, "",
                load_bytes / load_ms / 1000);
  }
  PrintMemory(*db, loaded_tables, csv_bytes);
  if (freeze) {
    auto start = Clock::now();
    size_t n = db->FreezeBlocks(Database::FreezeScope::kAll);
    TrimFreedMemory();
    std::printf("froze %zu blocks in %.0f ms\n\n", n, Ms(start));
    PrintMemory(*db, loaded_tables, csv_bytes);
  }
  if (!keep_db.empty() && !reuse) {
    db->Checkpoint();  // reopening reads the checkpoint instead of replaying the load
    std::ofstream(fs::path(keep_db) / "loaded") << "1\n";
  }

  std::map<int, double> forktail, forktail_cpu, peak_over_rest, rss_after;
  std::map<int, std::string> errors;
  for (int q : queries) {
    char name[16];
    std::snprintf(name, sizeof name, "q%02d.sql", q);
    std::string sql = ReadFile(fs::path(data) / "queries" / name);
    double best = -1, best_cpu = -1;
    const double rss_before = RssMiB();
    ResetPeakRss();
    for (int r = 0; r < runs; r++) {
      auto start = Clock::now();
      double cpu_start = CpuMs();
      try {
        session->Execute(sql);
      } catch (const std::exception& e) {
        errors[q] = e.what();
        break;
      }
      double ms = Ms(start);
      double cpu = CpuMs() - cpu_start;
      if (best < 0 || ms < best) best = ms;
      if (best_cpu < 0 || cpu < best_cpu) best_cpu = cpu;
    }
    peak_over_rest[q] = PeakRssMiB() - rss_before;
    rss_after[q] = RssMiB();
    if (!errors.count(q)) {
      forktail[q] = best;
      forktail_cpu[q] = best_cpu;
    }
    if (explain && !errors.count(q)) {
      std::vector<StatementResult> plan = session->Execute("EXPLAIN ANALYZE " + sql);
      for (const Row& row : plan.at(0).rows) {
        std::printf("%s\n", row.at(0).ToString().c_str());
      }
    }
    std::fprintf(stderr, "Q%02d %s\n", q,
                 errors.count(q) ? ("failed: " + errors[q].substr(0, 120)).c_str()
                                 : std::to_string(best).c_str());
  }
  session.reset();
  engine.reset();
  db.reset();
  if (keep_db.empty()) fs::remove_all(dir);
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  std::printf("peak RSS %.0f MiB\n", usage.ru_maxrss / 1024.0);

  std::map<int, double> duck;
  if (!no_duckdb) {
    duck = ParseDuckTimes(RunCommand("'" + script + "' --bench '" + data + "' " +
                                     std::to_string(threads) + " " + std::to_string(runs)));
  }
  std::printf("%-6s %12s %12s %8s %12s %10s %10s\n", "query", "forktail ms", "duckdb ms", "ratio",
              "forktail cpu", "peak+ MiB", "after MiB");
  double total_f = 0, total_d = 0, total_cpu = 0;
  for (int q : queries) {
    std::string f = forktail.count(q) ? std::to_string(forktail[q]) : "failed";
    std::string d = duck.count(q) ? std::to_string(duck[q]) : "-";
    std::printf("Q%02d    %12.12s %12.12s", q, f.c_str(), d.c_str());
    if (forktail.count(q) && duck.count(q)) {
      std::printf(" %8.2f", forktail[q] / duck[q]);
      total_f += forktail[q];
      total_d += duck[q];
    } else {
      std::printf(" %8s", "-");
    }
    if (forktail_cpu.count(q)) {
      std::printf(" %12.1f", forktail_cpu[q]);
      total_cpu += forktail_cpu[q];
    } else {
      std::printf(" %12s", "-");
    }
    std::printf(" %10.0f %10.0f", peak_over_rest[q], rss_after[q]);
    if (errors.count(q)) std::printf("   %s", errors[q].substr(0, 100).c_str());
    std::printf("\n");
  }
  std::printf("total  %12.1f %12.1f %8.2f %12.1f   (%zu of %zu queries ran on Forktail)\n", total_f,
              total_d, total_d > 0 ? total_f / total_d : 0.0, total_cpu, forktail.size(),
              queries.size());
  return 0;
}

}  // namespace
}  // namespace forktail

int main(int argc, char** argv) { return forktail::Main(argc, argv); }
