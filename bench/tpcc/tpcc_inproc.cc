// tpcc_inproc: TPC-C in process, as C++ stored procedures on the one
// transaction thread, alone and with analytical streams running the
// CH-benCHmark's queries on snapshots (issue 20; HyPer's experiment).
//
//   tpcc_inproc [-w W] [-d SECS] [--streams 0,1,2] [--window N] [--async-commit]
//               [--ch-queries FILE] [--json FILE] [--dir DIR]
//   tpcc_inproc --serve --port P [-w W]   load, then serve until SIGTERM
//
// The process embeds the whole engine: a Database, the SQL front end and a
// wire server on a loopback port of its own. The load (tpcc_load.cc, the same
// rows as tpcc_driver loads) and the consistency check (tpcc_check.cc) go
// through that server with libpq; the transactions do not: one submitter
// thread draws the standard mix (45/43/4/4/4, the spec's 1% of New-Orders
// rolled back) from W * 10 terminals' input streams and hands each to
// Database::ExecuteAsync, keeping --window transactions in flight, so the
// transaction thread never waits for a client. Commits are synchronous
// (group commit through the write-ahead log) unless --async-commit.
//
// Each phase runs SECS seconds with K analytical streams (--streams): K
// connections to the embedded server running the 22 CH queries in turn, each
// SELECT in a snapshot process forked between two transactions, as every
// client's. The streams' client threads run at nice 19: they stand in for
// clients on other machines, whose libpq work would not share these cores.
// After each phase the consistency conditions 1-4 are checked.
//
// With --serve it runs no phase: it loads, registers the procedures and
// serves until SIGTERM, so that clients over the wire can CALL them
// (`tpcc_driver run --procedures`, one CALL per transaction).
//
// Prints, per phase: transactions/s, New-Orders/s and tpmC, the drop against
// the phase without streams, the transaction thread's utilization, analytical
// queries completed, snapshots forked per second, and the queries' mean
// freshness (SHOW forktail.last_read: the age of the snapshot each read and
// the commits made since its fork).
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <semaphore>
#include <sstream>
#include <thread>

#include "olap/sql.h"
#include "server/server.h"
#include "tpcc.h"
#include "tpcc_procedures.h"

namespace tpcc {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  int warehouses = 1;
  int seconds = 10;
  std::vector<int> streams = {0, 1, 2};
  int window = 128;
  bool async_commit = false;
  int max_snapshot_age_ms = 0;  // 0: every query on a snapshot fresh at its arrival
  std::string ch_file;
  std::string json_file;
  std::string dir;
  uint64_t seed = 1;
  int port = 0;        // the embedded server's (0: any free one)
  bool serve = false;  // load, then serve until SIGTERM / SIGINT instead of running phases
};

struct PhaseResult {
  int streams = 0;
  double elapsed_s = 0;
  std::array<int64_t, kTxnTypes> count{};
  std::array<int64_t, kTxnTypes> errors{};
  int64_t rolled_back = 0;
  std::array<double, kTxnTypes> avg_latency_ms{};
  std::vector<int64_t> per_second;  // transactions completed in each second
  double txn_thread_busy = 0;       // fraction of the phase
  uint64_t snapshots = 0;           // created during the phase
  std::vector<std::vector<ChRun>> ch_runs;
  bool consistent = false;

  // Means over the completed analytical queries (-1: none).
  double mean_snapshot_age_ms() const { return MeanOf(&ChRun::snapshot_age_ms); }
  double mean_commits_behind() const { return MeanOf(&ChRun::commits_behind); }
  template <typename T>
  double MeanOf(T ChRun::*field) const {
    double sum = 0;
    int64_t n = 0;
    for (const auto& stream : ch_runs) {
      for (const ChRun& r : stream) {
        if (r.status == "ok" && r.snapshot_age_ms >= 0) {
          sum += static_cast<double>(r.*field);
          n++;
        }
      }
    }
    return n == 0 ? -1 : sum / static_cast<double>(n);
  }

  int64_t total() const {
    int64_t t = 0;
    for (int64_t c : count) t += c;
    return t;
  }
  double tps() const { return static_cast<double>(total()) / elapsed_s; }
  double new_orders_per_s() const { return static_cast<double>(count[kNewOrder]) / elapsed_s; }
};

// What the completions of one phase add up to (callbacks run on the log
// writer's or the transaction thread; the submitter reads at the end).
class Tally {
 public:
  explicit Tally(int seconds) : per_second_(static_cast<size_t>(seconds) + 2, 0) {}

  void Done(TxnType type, Clock::time_point submitted, Clock::time_point start,
            const forktail::TxnResult& r) {
    auto now = Clock::now();
    std::lock_guard<std::mutex> lock(mutex_);
    if (!r.ok) {
      // Clause 2.4.1.4: the unused item's rollback is a New-Order too.
      if (type == kNewOrder && r.sqlstate == forktail::sqlstate::kTransactionRollback) {
        rolled_back_++;
      } else {
        errors_[type]++;
        report_error(std::string(kTxnNames[type]) + ": " + r.sqlstate + " " + r.message);
        return;
      }
    }
    count_[type]++;
    latency_us_[type] +=
        std::chrono::duration_cast<std::chrono::microseconds>(now - submitted).count();
    size_t second = static_cast<size_t>(std::chrono::duration<double>(now - start).count());
    if (second < per_second_.size()) per_second_[second]++;
  }

  void Into(PhaseResult* p) {
    std::lock_guard<std::mutex> lock(mutex_);
    p->count = count_;
    p->errors = errors_;
    p->rolled_back = rolled_back_;
    for (int i = 0; i < kTxnTypes; i++) {
      p->avg_latency_ms[i] =
          count_[i] == 0 ? 0 : latency_us_[i] / 1000.0 / static_cast<double>(count_[i]);
    }
    p->per_second = per_second_;
  }

 private:
  std::mutex mutex_;
  std::array<int64_t, kTxnTypes> count_{}, errors_{};
  std::array<double, kTxnTypes> latency_us_{};
  int64_t rolled_back_ = 0;
  std::vector<int64_t> per_second_;
};

class Bench {
 public:
  explicit Bench(const Options& o) : options_(o) {
    forktail::DatabaseOptions db_options;
    db_options.synchronous_commit = !o.async_commit;
    db_ = forktail::Database::Open(o.dir, db_options);
    forktail::SqlFrontendOptions fe;
    fe.child_workers = 1;  // one analytical worker thread per stream
    fe.parallelism = 1;
    frontend_ = std::make_unique<forktail::SqlFrontend>(db_.get(), fe);
    backend_ = std::make_unique<forktail::SqlBackend>(*frontend_);
    forktail::ServerOptions server_options;
    server_options.listen_address = "127.0.0.1";
    server_options.port = o.port;
    server_ = std::make_unique<forktail::WireServer>(*backend_, server_options);
    server_->Start();
    conninfo_ =
        "host=127.0.0.1 port=" + std::to_string(server_->port()) + " user=forktail dbname=forktail";
  }
  ~Bench() {
    server_->Stop();
    server_.reset();
    backend_.reset();
    frontend_.reset();
    db_->Close();
  }

  void Load() {
    load({conninfo_, options_.warehouses, true, options_.seed});
    register_procedures(*db_);
  }
  int port() const { return server_->port(); }

  PhaseResult Run(int streams) {
    PhaseResult result;
    result.streams = streams;
    std::vector<ChQuery> queries;
    if (streams > 0) queries = read_ch_queries(options_.ch_file);
    std::vector<std::unique_ptr<Conn>> conns;
    std::vector<PGcancel*> cancels;
    for (int s = 0; s < streams; s++) {
      conns.push_back(std::make_unique<Conn>(conninfo_));
      if (options_.max_snapshot_age_ms > 0) {
        conns.back()->query("SET forktail.max_snapshot_age_ms = " +
                            std::to_string(options_.max_snapshot_age_ms));
      }
      cancels.push_back(PQgetCancel(conns.back()->raw()));
    }
    std::vector<InputSource> terminals;
    for (int t = 0; t < options_.warehouses * kDistricts; t++) {
      terminals.emplace_back(options_.warehouses, t % options_.warehouses + 1,
                             options_.seed * 1000003 + static_cast<uint64_t>(t) +
                                 static_cast<uint64_t>(streams) * 7919);
    }
    Tally tally(options_.seconds);
    result.ch_runs.resize(static_cast<size_t>(streams));
    uint64_t snapshots0 = frontend_->snapshots() ? frontend_->snapshots()->stats().created : 0;
    forktail::TxnThreadTime busy0 = db_->txn_thread_time();

    auto start = Clock::now();
    auto deadline = start + std::chrono::seconds(options_.seconds);
    std::vector<std::thread> threads;
    for (int s = 0; s < streams; s++) {
      threads.emplace_back([&, s] {
        // The stream's client stands in for one on another machine: its own
        // libpq work (parsing result rows) yields to the engine here.
        setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 19);
        run_ch_stream(*conns[s], queries, s, start, deadline, &result.ch_runs[s]);
      });
    }
    std::counting_semaphore<1 << 20> window(options_.window);
    TxnInputs in;
    for (size_t k = 0; Clock::now() < deadline; k++) {
      InputSource& terminal = terminals[k % terminals.size()];
      TxnType type = terminal.pick();
      terminal.draw(type, &in);
      window.acquire();
      auto submitted = Clock::now();
      db_->ExecuteAsync(procedure_name(type), procedure_args(type, in),
                        [&tally, &window, type, submitted, start](forktail::TxnResult r) {
                          tally.Done(type, submitted, start, r);
                          window.release();
                        });
    }
    for (int i = 0; i < options_.window; i++) window.acquire();  // drain
    result.elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
    forktail::TxnThreadTime busy1 = db_->txn_thread_time();
    char errbuf[256];
    for (PGcancel* c : cancels) PQcancel(c, errbuf, sizeof(errbuf));
    for (std::thread& t : threads) t.join();
    for (PGcancel* c : cancels) PQfreeCancel(c);

    tally.Into(&result);
    result.txn_thread_busy = static_cast<double>(busy1.busy_ns - busy0.busy_ns) /
                             static_cast<double>(busy1.alive_ns - busy0.alive_ns);
    if (frontend_->snapshots()) {
      result.snapshots = frontend_->snapshots()->stats().created - snapshots0;
    }
    Conn check(conninfo_);
    result.consistent = check_consistency(check, options_.warehouses);
    return result;
  }

 private:
  Options options_;
  std::unique_ptr<forktail::Database> db_;
  std::unique_ptr<forktail::SqlFrontend> frontend_;
  std::unique_ptr<forktail::SqlBackend> backend_;
  std::unique_ptr<forktail::WireServer> server_;
  std::string conninfo_;
};

void Print(const std::vector<PhaseResult>& phases) {
  std::printf("%-8s %11s %12s %10s %7s %9s %8s %9s %8s %8s %7s %7s\n", "streams", "txn/s",
              "New-Order/s", "tpmC", "drop", "txn busy", "CH done", "CH failed", "forks/s",
              "age ms", "behind", "checks");
  for (const PhaseResult& p : phases) {
    int64_t ch_done = 0, ch_failed = 0;
    ch_runs_json(p.ch_runs, &ch_done);
    for (const auto& stream : p.ch_runs) {
      for (const ChRun& r : stream) ch_failed += r.status != "ok" && r.status != "cancelled";
    }
    double drop = phases[0].streams == 0 ? 100.0 * (1.0 - p.tps() / phases[0].tps()) : 0;
    auto or_dash = [](double v, const char* format) {
      char buf[32];
      std::snprintf(buf, sizeof(buf), format, v);
      return v < 0 ? std::string("-") : std::string(buf);
    };
    std::printf("%-8d %11.0f %12.0f %10.0f %6.1f%% %8.0f%% %8lld %9lld %8.1f %8s %7s %7s\n",
                p.streams, p.tps(), p.new_orders_per_s(), p.new_orders_per_s() * 60, drop,
                100 * p.txn_thread_busy, static_cast<long long>(ch_done),
                static_cast<long long>(ch_failed), static_cast<double>(p.snapshots) / p.elapsed_s,
                or_dash(p.mean_snapshot_age_ms(), "%.1f").c_str(),
                or_dash(p.mean_commits_behind(), "%.0f").c_str(), p.consistent ? "hold" : "FAIL");
  }
  std::printf("%-13s", "avg ms");
  for (int i = 0; i < kTxnTypes; i++)
    std::printf(" %s %.3f", kTxnNames[i], phases[0].avg_latency_ms[i]);
  std::printf("\n");
}

std::string Json(const Options& o, const std::vector<PhaseResult>& phases) {
  std::ostringstream j;
  j << "{\n  \"warehouses\": " << o.warehouses << ",\n  \"duration_s\": " << o.seconds
    << ",\n  \"window\": " << o.window << ",\n  \"max_snapshot_age_ms\": " << o.max_snapshot_age_ms
    << ",\n  \"synchronous_commit\": " << (o.async_commit ? "false" : "true")
    << ",\n  \"phases\": [";
  for (size_t k = 0; k < phases.size(); k++) {
    const PhaseResult& p = phases[k];
    int64_t ch_done = 0;
    std::string runs = ch_runs_json(p.ch_runs, &ch_done);
    j << (k ? "," : "") << "\n    {\"streams\": " << p.streams << ", \"elapsed_s\": " << p.elapsed_s
      << ", \"txn_per_s\": " << p.tps() << ", \"new_order_per_s\": " << p.new_orders_per_s()
      << ", \"tpmC\": " << p.new_orders_per_s() * 60
      << ", \"new_order_rolled_back\": " << p.rolled_back
      << ", \"txn_thread_busy\": " << p.txn_thread_busy << ", \"snapshots\": " << p.snapshots
      << ", \"consistent\": " << (p.consistent ? "true" : "false")
      << ", \"ch_completed\": " << ch_done
      << ", \"mean_snapshot_age_ms\": " << p.mean_snapshot_age_ms()
      << ", \"mean_commits_behind\": " << p.mean_commits_behind() << ",\n     \"transactions\": {";
    for (int i = 0; i < kTxnTypes; i++) {
      j << (i ? ", " : "") << "\"" << kTxnNames[i] << "\": {\"count\": " << p.count[i]
        << ", \"errors\": " << p.errors[i] << ", \"avg_ms\": " << p.avg_latency_ms[i] << "}";
    }
    j << "},\n     \"per_second\": [";
    for (size_t s = 0; s < static_cast<size_t>(o.seconds) && s < p.per_second.size(); s++) {
      j << (s ? ", " : "") << p.per_second[s];
    }
    j << "],\n     \"ch_queries\": [" << runs << "]}";
  }
  j << "\n  ]\n}\n";
  return j.str();
}

}  // namespace
}  // namespace tpcc

namespace {
int stop_pipe[2] = {-1, -1};  // --serve: SIGTERM / SIGINT write here
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"TPC-C as stored procedures in process, with CH-benCHmark streams on snapshots"};
  tpcc::Options o;
  app.add_option("-w,--warehouses", o.warehouses)->check(CLI::PositiveNumber);
  app.add_option("-d,--duration", o.seconds, "seconds per phase")->check(CLI::PositiveNumber);
  app.add_option("--streams", o.streams, "analytical streams of each phase (e.g. 0,1,2)")
      ->delimiter(',');
  app.add_option("--window", o.window, "transactions in flight")->check(CLI::Range(1, 65536));
  app.add_option("--max-snapshot-age-ms", o.max_snapshot_age_ms,
                 "analytical streams accept snapshots this old (forktail.max_snapshot_age_ms; "
                 "default 0: fresh at each query)");
  app.add_flag("--async-commit", o.async_commit, "acknowledge commits before they are durable");
  app.add_option("--ch-queries", o.ch_file, "the CH queries (bench/tpcc/ch_queries.sql)");
  app.add_option("--json", o.json_file, "write the results here");
  app.add_option("--dir", o.dir,
                 "data directory (default: a new one under $FORKTAIL_BENCH_DIR "
                 "or /tmp, removed at the end)");
  app.add_option("--seed", o.seed, "random seed (same seed, same data)");
  app.add_option("--port", o.port, "port of the embedded server on 127.0.0.1 (default: any)");
  app.add_flag("--serve", o.serve,
               "load, then serve the database and its procedures on --port until SIGTERM or "
               "SIGINT (tpcc_driver run --procedures calls them over the wire); no phases");
  CLI11_PARSE(app, argc, argv);
  if (o.serve) {
    // Whichever thread takes SIGTERM / SIGINT, the handler only writes to
    // a pipe that the main thread waits on.
    if (pipe(stop_pipe) != 0) {
      std::perror("tpcc_inproc: pipe");
      return 1;
    }
    struct sigaction action {};
    action.sa_handler = [](int) {
      char byte = 1;
      ssize_t ignored = write(stop_pipe[1], &byte, 1);
      (void)ignored;
    };
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGINT, &action, nullptr);
    o.streams.clear();
  }
  bool has_streams = false;
  for (int s : o.streams) has_streams = has_streams || s > 0;
  if (has_streams && o.ch_file.empty()) {
    std::fprintf(stderr, "tpcc_inproc: --ch-queries is needed for analytical streams\n");
    return 2;
  }
  std::string made_dir;
  if (o.dir.empty()) {
    const char* base = getenv("FORKTAIL_BENCH_DIR");
    std::string pattern = std::string(base ? base : "/tmp") + "/tpcc_inproc.XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      std::perror("tpcc_inproc: mkdtemp");
      return 1;
    }
    o.dir = made_dir = pattern;
  }
  int rc = 0;
  try {
    tpcc::Bench bench(o);
    bench.Load();
    if (o.serve) {
      std::printf("tpcc_inproc: serving %d warehouse(s) on 127.0.0.1:%d\n", o.warehouses,
                  bench.port());
      std::fflush(stdout);
      char byte;
      while (read(stop_pipe[0], &byte, 1) < 0 && errno == EINTR) {
      }
    }
    std::vector<tpcc::PhaseResult> phases;
    for (int s : o.streams) {
      phases.push_back(bench.Run(s));
      std::fprintf(stderr, "tpcc_inproc: %d stream(s): %.0f txn/s\n", s, phases.back().tps());
      if (!phases.back().consistent) rc = 1;
      for (int64_t e : phases.back().errors) rc = e > 0 ? 1 : rc;
    }
    if (!phases.empty()) tpcc::Print(phases);
    if (!o.json_file.empty() && !phases.empty())
      std::ofstream(o.json_file) << tpcc::Json(o, phases);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tpcc_inproc: %s\n", e.what());
    rc = 1;
  }
  if (!made_dir.empty()) std::filesystem::remove_all(made_dir);
  return rc;
}
