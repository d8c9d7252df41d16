// tpcc_driver: TPC-C (and the CH-benCHmark's analytical streams) over the
// PostgreSQL protocol, one driver for PostgreSQL 15 and Forktail alike.
//
//   tpcc_driver load  --conn CONNINFO -w W              schema + initial rows
//   tpcc_driver run   --conn CONNINFO -w W -t N -d SECS [--ch-streams K --ch-queries FILE]
//                     [--json FILE --label NAME] [--procedures]
//                                                      the mix, no think time
//   tpcc_driver check --conn CONNINFO -w W              consistency conditions 1-4
//
// run: N terminals (one connection each, home warehouse t % W + 1) run the
// standard mix (45/43/4/4/4) for SECS seconds. A transaction that fails with
// SQLSTATE 40001 or 40P01 is rolled back and run again with the same inputs;
// such retries are counted and its latency spans every attempt. K analytical
// streams (one connection each) run the 22 CH queries in turn meanwhile;
// queries still running at the end are cancelled. With --procedures each
// transaction is one `CALL name(arguments)` of the server's stored procedure
// (PostgreSQL: bench/tpcc/tpcc_procedures.sql; Forktail: the C++ ones of
// tpcc_procedures.cc, served by `tpcc_inproc --serve`) instead of a block of
// statements.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <thread>

#include "tpcc.h"

namespace tpcc {
namespace {

using Clock = std::chrono::steady_clock;

struct TerminalStats {
  std::array<int64_t, kTxnTypes> count{}, retries{}, errors{};
  int64_t duplicate_key_retries = 0;
  int64_t rolled_back = 0;
  std::array<std::vector<uint32_t>, kTxnTypes> latency_us;
  std::vector<std::array<uint32_t, kTxnTypes>> per_second;
};

double percentile(const std::vector<uint32_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t i =
      std::min(sorted.size() - 1, static_cast<size_t>(p * static_cast<double>(sorted.size())));
  return sorted[i] / 1000.0;
}

void terminal_loop(Terminal& term, TerminalStats& stats, Clock::time_point start,
                   Clock::time_point deadline, int seconds) {
  stats.per_second.assign(static_cast<size_t>(seconds) + 1, {});
  while (Clock::now() < deadline) {
    TxnType type = term.pick();
    term.draw(type);
    auto t0 = Clock::now();
    bool done = false, committed = true;
    for (int attempt = 0; !done; attempt++) {
      try {
        committed = term.run(type);
        done = true;
      } catch (const SqlError& e) {
        term.rollback();
        if (e.sqlstate() == "08006") throw;
        // A New-Order that read d_next_o_id before a concurrent one committed
        // inserts an order number that now exists: a serialization conflict
        // that Forktail reports as 23505 rather than 40001 (README.md). It is
        // retried like one and counted apart.
        bool duplicate = type == kNewOrder && e.sqlstate() == "23505";
        if ((e.retryable() || duplicate) && attempt < 100 && Clock::now() < deadline) {
          stats.retries[type]++;
          if (duplicate) stats.duplicate_key_retries++;
          continue;
        }
        if (!e.retryable()) {
          stats.errors[type]++;
          report_error(std::string(kTxnNames[type]) + ": " + e.what());
        }
        break;
      }
    }
    if (!done) continue;
    auto t1 = Clock::now();
    stats.count[type]++;
    if (!committed) stats.rolled_back++;
    stats.latency_us[type].push_back(static_cast<uint32_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(t1 - t0).count()));
    size_t second = static_cast<size_t>(std::chrono::duration<double>(t1 - start).count());
    if (second < stats.per_second.size()) stats.per_second[second][type]++;
  }
}

int run(const std::string& conninfo, int warehouses, int terminals, int seconds, int ch_streams,
        const std::string& ch_file, const std::string& json_file, const std::string& label,
        uint64_t seed, TxnForm form) {
  std::vector<std::unique_ptr<Terminal>> terms;
  for (int t = 0; t < terminals; t++) {
    terms.push_back(std::make_unique<Terminal>(conninfo, warehouses, t % warehouses + 1,
                                               seed * 1000003 + static_cast<uint64_t>(t), form));
  }
  std::vector<ChQuery> queries;
  if (ch_streams > 0) queries = read_ch_queries(ch_file);
  std::vector<std::unique_ptr<Conn>> ch_conns;
  std::vector<PGcancel*> cancels;
  for (int s = 0; s < ch_streams; s++) {
    ch_conns.push_back(std::make_unique<Conn>(conninfo));
    cancels.push_back(PQgetCancel(ch_conns.back()->raw()));
  }

  std::vector<TerminalStats> stats(static_cast<size_t>(terminals));
  std::vector<std::vector<ChRun>> ch_runs(static_cast<size_t>(ch_streams));
  std::atomic<bool> failed{false};
  auto start = Clock::now();
  auto deadline = start + std::chrono::seconds(seconds);
  std::vector<std::thread> threads;
  for (int t = 0; t < terminals; t++) {
    threads.emplace_back([&, t] {
      try {
        terminal_loop(*terms[t], stats[t], start, deadline, seconds);
      } catch (const std::exception& e) {
        report_error(std::string("terminal stopped: ") + e.what());
        failed = true;
      }
    });
  }
  for (int s = 0; s < ch_streams; s++) {
    threads.emplace_back(
        [&, s] { run_ch_stream(*ch_conns[s], queries, s, start, deadline, &ch_runs[s]); });
  }
  std::this_thread::sleep_until(deadline);
  char errbuf[256];
  for (PGcancel* c : cancels) PQcancel(c, errbuf, sizeof(errbuf));
  for (std::thread& t : threads) t.join();
  for (PGcancel* c : cancels) PQfreeCancel(c);
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();

  // Merge.
  TerminalStats all;
  all.per_second.assign(static_cast<size_t>(seconds) + 1, {});
  for (TerminalStats& s : stats) {
    for (int i = 0; i < kTxnTypes; i++) {
      all.count[i] += s.count[i];
      all.retries[i] += s.retries[i];
      all.errors[i] += s.errors[i];
      all.latency_us[i].insert(all.latency_us[i].end(), s.latency_us[i].begin(),
                               s.latency_us[i].end());
      for (size_t sec = 0; sec < s.per_second.size(); sec++)
        all.per_second[sec][i] += s.per_second[sec][i];
    }
    all.rolled_back += s.rolled_back;
    all.duplicate_key_retries += s.duplicate_key_retries;
  }
  int64_t total = 0;
  for (int i = 0; i < kTxnTypes; i++) total += all.count[i];
  double tpmc = static_cast<double>(all.count[kNewOrder]) * 60.0 / seconds;

  std::printf("%s: %d warehouse(s), %d terminal(s), %d s, %d analytical stream(s), %s\n",
              label.c_str(), warehouses, terminals, seconds, ch_streams,
              form == TxnForm::kProcedures ? "one CALL per transaction" : "statements in blocks");
  std::printf(
      "%s: tpmC %.0f  New-Order/s %.1f  transactions/s %.1f  (New-Orders rolled back by "
      "design: %lld)\n",
      label.c_str(), tpmc, tpmc / 60, static_cast<double>(total) / seconds,
      static_cast<long long>(all.rolled_back));
  if (all.duplicate_key_retries > 0) {
    std::printf("%s: New-Orders retried after 23505 (duplicate order number): %lld\n",
                label.c_str(), static_cast<long long>(all.duplicate_key_retries));
  }
  std::printf("%-13s %9s %8s %7s %9s %9s %9s %9s %9s\n", "transaction", "count", "retries",
              "errors", "avg ms", "p50 ms", "p90 ms", "p99 ms", "max ms");
  std::string json =
      "{\n  \"label\": " + json_string(label) +
      ",\n  \"warehouses\": " + std::to_string(warehouses) +
      ",\n  \"terminals\": " + std::to_string(terminals) +
      ",\n  \"duration_s\": " + std::to_string(seconds) +
      ",\n  \"elapsed_s\": " + std::to_string(elapsed) +
      ",\n  \"ch_streams\": " + std::to_string(ch_streams) + ",\n  \"form\": \"" +
      (form == TxnForm::kProcedures ? "procedures" : "statements") + "\"" +
      ",\n  \"tpmC\": " + std::to_string(tpmc) +
      ",\n  \"new_order_per_s\": " + std::to_string(tpmc / 60) +
      ",\n  \"txn_per_s\": " + std::to_string(static_cast<double>(total) / seconds) +
      ",\n  \"new_order_rolled_back\": " + std::to_string(all.rolled_back) +
      ",\n  \"new_order_duplicate_key_retries\": " + std::to_string(all.duplicate_key_retries) +
      ",\n  \"transactions\": {";
  for (int i = 0; i < kTxnTypes; i++) {
    std::vector<uint32_t>& lat = all.latency_us[i];
    std::sort(lat.begin(), lat.end());
    double sum = 0;
    for (uint32_t v : lat) sum += v;
    double avg = lat.empty() ? 0 : sum / 1000.0 / static_cast<double>(lat.size());
    double max = lat.empty() ? 0 : lat.back() / 1000.0;
    std::printf("%-13s %9lld %8lld %7lld %9.2f %9.2f %9.2f %9.2f %9.2f\n", kTxnNames[i],
                static_cast<long long>(all.count[i]), static_cast<long long>(all.retries[i]),
                static_cast<long long>(all.errors[i]), avg, percentile(lat, 0.5),
                percentile(lat, 0.9), percentile(lat, 0.99), max);
    char buf[512];
    std::snprintf(buf, sizeof(buf),
                  "%s\n    \"%s\": {\"count\": %lld, \"retries\": %lld, \"errors\": %lld, "
                  "\"avg_ms\": %.3f, \"p50_ms\": %.3f, \"p90_ms\": %.3f, \"p99_ms\": %.3f, "
                  "\"max_ms\": %.3f}",
                  i == 0 ? "" : ",", kTxnNames[i], static_cast<long long>(all.count[i]),
                  static_cast<long long>(all.retries[i]), static_cast<long long>(all.errors[i]),
                  avg, percentile(lat, 0.5), percentile(lat, 0.9), percentile(lat, 0.99), max);
    json += buf;
  }
  json += "\n  },\n  \"per_second\": {";
  for (int i = 0; i < kTxnTypes; i++) {
    json += std::string(i == 0 ? "" : ",") + "\n    \"" + kTxnNames[i] + "\": [";
    for (size_t sec = 0; sec < static_cast<size_t>(seconds); sec++) {
      json += (sec == 0 ? "" : ", ") + std::to_string(all.per_second[sec][i]);
    }
    json += "]";
  }
  json += "\n  },\n  \"ch_queries\": [";
  int64_t ch_done = 0;
  json += ch_runs_json(ch_runs, &ch_done);
  json += "\n  ]\n}\n";
  if (ch_streams > 0) {
    std::printf("%s: analytical queries completed: %lld (%.0f per hour)\n", label.c_str(),
                static_cast<long long>(ch_done), static_cast<double>(ch_done) * 3600.0 / seconds);
  }
  if (!json_file.empty()) std::ofstream(json_file) << json;
  int64_t errors = 0;
  for (int i = 0; i < kTxnTypes; i++) errors += all.errors[i];
  return failed || errors > 0 ? 1 : 0;
}

}  // namespace
}  // namespace tpcc

int main(int argc, char** argv) {
  CLI::App app{"TPC-C / CH-benCHmark driver over the PostgreSQL protocol"};
  app.require_subcommand(1);
  std::string conninfo = "host=127.0.0.1 port=5433 user=forktail dbname=forktail";
  int warehouses = 1, terminals = 4, seconds = 60, ch_streams = 0;
  uint64_t seed = 1;
  std::string ch_file, json_file, label = "run";
  bool no_ch = false, procedures = false;
  for (CLI::App* sub : {app.add_subcommand("load", "create the schema and load W warehouses"),
                        app.add_subcommand("run", "run the transaction mix"),
                        app.add_subcommand("check", "check consistency conditions 1-4")}) {
    sub->add_option("--conn", conninfo, "libpq connection string");
    sub->add_option("-w,--warehouses", warehouses)->check(CLI::PositiveNumber);
    sub->add_option("--seed", seed, "random seed (same seed, same data)");
  }
  CLI::App* load = app.get_subcommand("load");
  load->add_flag("--no-ch", no_ch, "leave out SUPPLIER, NATION, REGION");
  CLI::App* run = app.get_subcommand("run");
  run->add_option("-t,--terminals", terminals)->check(CLI::PositiveNumber);
  run->add_option("-d,--duration", seconds, "seconds")->check(CLI::PositiveNumber);
  run->add_option("--ch-streams", ch_streams, "analytical streams running the CH queries");
  run->add_option("--ch-queries", ch_file, "the CH queries (bench/tpcc/ch_queries.sql)");
  run->add_option("--json", json_file, "write the results here");
  run->add_option("--label", label, "name of the system in the output");
  run->add_flag("--procedures", procedures,
                "one CALL of the server's stored procedure per transaction (PostgreSQL: load "
                "tpcc_procedures.sql first) instead of a block of statements");
  CLI11_PARSE(app, argc, argv);
  try {
    if (load->parsed()) {
      tpcc::load({conninfo, warehouses, !no_ch, seed});
      return 0;
    }
    if (run->parsed()) {
      return tpcc::run(conninfo, warehouses, terminals, seconds, ch_streams, ch_file, json_file,
                       label, seed,
                       procedures ? tpcc::TxnForm::kProcedures : tpcc::TxnForm::kStatements);
    }
    tpcc::Conn conn(conninfo);
    return tpcc::check_consistency(conn, warehouses) ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tpcc_driver: %s\n", e.what());
    return 1;
  }
}
