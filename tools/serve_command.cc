// `forktail serve`: opens the database and its SQL engine and serves the
// PostgreSQL wire protocol until SIGTERM or SIGINT.
//
// Settings come from an optional config file of `key = value` lines (`#`
// comments; keys: data, port, listen, user, password, password_file,
// max_connections, max_startup_connections, authentication_timeout,
// routing = snapshot|inprocess, idle_in_transaction_hold_ms,
// ssl_cert_file and ssl_key_file (PEM: TLS on SSLRequest), copy_from_dir,
// copy_to_dir, query_memory, memory_budget, freeze_interval,
// checkpoint_timeout, max_wal_size, ssd_tier_size, ssd_tier_dir, cold_dir,
// snapshot_nice, procedures: a comma-separated list of files),
// then from the
// flags, which win. Shutdown: stop accepting, cancel running statements and
// end every connection (WireServer::Stop), write a checkpoint, close the
// database (which flushes the log).
//
// Every freeze_interval seconds (default 10; 0: never) the blocks no write
// changed since the last pass are frozen into their compressed form
// (Database::FreezeBlocks), so a block freezes after 10-20 s without a change.
//
// Checkpoints, as PostgreSQL takes them: checkpoint_timeout seconds (default
// 300; 0: never by time) after the previous one when something committed
// since, or as soon as the log written since the previous one reaches
// max_wal_size (default 1GB). A crash then replays a bounded log, and each
// checkpoint removes the log segments it covers. SQL's CHECKPOINT takes one
// at once.
//
// --procedures FILE (repeatable) loads a shared library of C++ procedures
// (FORKTAIL_PROCEDURE_LIBRARY, forktail/database.h) before the server
// listens, so that clients can CALL them; one that cannot be loaded stops
// the start (exit 1) with the reason.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "olap/common/freed_memory.h"
#include "olap/session/sql_frontend.h"
#include "scheduler/memory_governor.h"
#include "server/server.h"
#include "snapshot/snapshot.h"
#include "tools/commands.h"
#include "tools/procedure_libraries.h"

namespace forktail::tools {
namespace {

struct ServeArgs {
  std::string data = "./data";
  int port = 5433;
  std::string listen = "127.0.0.1";
  std::string config;
  std::string user;
  std::string password;
  std::string ssl_cert_file;
  std::string ssl_key_file;
  int max_connections = 100;
  int max_startup_connections = 100;
  std::string authentication_timeout = "60s";
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  std::string routing = "inprocess";  // sanitizer allocators are not fork-safe
#else
  std::string routing = "snapshot";
#endif
  int snapshot_nice = SnapshotOptions{}.nice;
  int hold_ms = -1;           // -1: the engine's default
  std::string copy_from_dir;  // empty: COPY FROM 'file' refused
  std::string copy_to_dir;    // empty: COPY TO 'file' refused
  std::string password_file;
  std::string query_memory;      // empty: half of RAM or of the cgroup's limit
  std::string memory_budget;     // empty: half of RAM or of the cgroup's limit; 0: none
  int freeze_interval = 10;      // seconds; 0: blocks are never frozen
  int checkpoint_timeout = 300;  // seconds; 0: no checkpoint by time
  std::string max_wal_size = "1GB";
  std::string ssd_tier_size;            // empty or 0: no SSD tier
  std::string ssd_tier_dir;             // empty: DATA/tier
  std::string cold_dir;                 // empty: DATA/cold
  std::vector<std::string> procedures;  // shared libraries of procedures to load
};

// Runs `step` every `period` on its own thread until destroyed; never when
// the period is zero.
class PeriodicTask {
 public:
  PeriodicTask(std::chrono::milliseconds period, std::function<void()> step)
      : period_(period), step_(std::move(step)) {
    if (period_.count() > 0) thread_ = std::thread([this] { Loop(); });
  }
  ~PeriodicTask() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> l(mu_);
    while (!cv_.wait_for(l, period_, [this] { return stop_; })) {
      l.unlock();
      step_();
      l.lock();
    }
  }

  const std::chrono::milliseconds period_;
  const std::function<void()> step_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

// Calls Database::FreezeBlocks(kIdle) every `interval` seconds (each call
// runs in short steps on the transaction thread) and gives the plain
// blocks' memory back.
std::unique_ptr<PeriodicTask> StartFreezer(Database* db, int interval) {
  return std::make_unique<PeriodicTask>(std::chrono::seconds(interval), [db] {
    try {
      if (db->FreezeBlocks(Database::FreezeScope::kIdle) > 0) TrimFreedMemory();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "forktail serve: freezing blocks failed: %s\n", e.what());
    }
  });
}

// Checks once a second whether a checkpoint is due (see the top of this
// file) and takes it on this thread: the transaction thread only collects
// the plan and forks the writer.
class Checkpointer {
 public:
  Checkpointer(Database* db, int timeout_seconds, uint64_t max_wal_bytes)
      : db_(db),
        timeout_(timeout_seconds),
        max_wal_bytes_(max_wal_bytes),
        last_lsn_(db->checkpoint_lsn()),
        last_count_(db->committed_count()),
        task_(std::chrono::seconds(1), [this] { Step(); }) {}

 private:
  using Clock = std::chrono::steady_clock;

  void Step() {
    const wal::Lsn base = db_->checkpoint_lsn();
    if (base != last_lsn_) {  // a CHECKPOINT statement took one
      last_lsn_ = base;
      last_time_ = Clock::now();
    }
    const wal::Lsn end = db_->last_commit_lsn();
    const uint64_t count = db_->committed_count();
    const bool logged_since = end != wal::kInvalidLsn && end > base;
    if (!logged_since && count == last_count_) return;
    const bool by_size = logged_since && max_wal_bytes_ > 0 && end - base >= max_wal_bytes_;
    const bool by_time = timeout_.count() > 0 && Clock::now() - last_time_ >= timeout_;
    if (!by_size && !by_time) return;
    last_time_ = Clock::now();  // also after a failure: retried at the next trigger
    last_count_ = count;
    try {
      const CheckpointResult r = db_->Checkpoint();
      last_lsn_ = r.lsn;
      std::printf(
          "forktail serve: checkpoint %llu (%s): wrote %llu of %llu blocks (%.1f MiB) in %.2f s, "
          "removed %d log segments\n",
          static_cast<unsigned long long>(r.sequence), by_size ? "max_wal_size" : "time",
          static_cast<unsigned long long>(r.blocks_written),
          static_cast<unsigned long long>(r.blocks_total),
          static_cast<double>(r.bytes_written) / (1 << 20), r.seconds, r.segments_removed);
      std::fflush(stdout);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "forktail serve: checkpoint failed: %s\n", e.what());
    }
  }

  Database* const db_;
  const std::chrono::seconds timeout_;
  const uint64_t max_wal_bytes_;
  wal::Lsn last_lsn_;
  uint64_t last_count_;
  Clock::time_point last_time_ = Clock::now();
  PeriodicTask task_;  // last: its thread starts once the rest is set
};

int stop_pipe[2] = {-1, -1};

extern "C" void OnStopSignal(int) {
  char c = 1;
  (void)!::write(stop_pipe[1], &c, 1);
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// PostgreSQL's memory units: "512MB", "2GB", "64kB", "1TB"; a bare number is
// bytes. Returns 0 for anything else.
size_t ParseMemorySize(const std::string& text) {
  if (text.empty() || text[0] < '0' || text[0] > '9') return 0;
  size_t end = 0;
  unsigned long long value = 0;
  try {
    value = std::stoull(text, &end);
  } catch (const std::exception&) {
    return 0;
  }
  const std::string unit = Trim(text.substr(end));
  int shift = -1;
  if (unit.empty() || unit == "B") shift = 0;
  if (unit == "kB") shift = 10;
  if (unit == "MB") shift = 20;
  if (unit == "GB") shift = 30;
  if (unit == "TB") shift = 40;
  if (shift < 0 || value > (~0ULL >> shift)) return 0;
  return static_cast<size_t>(value << shift);
}

// A duration as PostgreSQL writes authentication_timeout: seconds, or a
// number with ms, s, min or h. Must lie in 1 s .. 600 s (PostgreSQL's range).
bool ParseAuthenticationTimeout(const std::string& text, std::chrono::milliseconds* out) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) digits++;
  std::string unit = Trim(text.substr(digits));
  if (digits == 0 || digits > 9) return false;
  const long long n = std::stoll(text.substr(0, digits));
  long long ms = 0;
  if (unit.empty() || unit == "s") {
    ms = n * 1000;
  } else if (unit == "ms") {
    ms = n;
  } else if (unit == "min") {
    ms = n * 60'000;
  } else if (unit == "h") {
    ms = n * 3'600'000;
  } else {
    return false;
  }
  if (ms < 1000 || ms > 600'000) return false;
  *out = std::chrono::milliseconds(ms);
  return true;
}

// Reads `key = value` lines; returns false (with a message) on a bad line.
bool ReadConfig(const std::string& path, std::map<std::string, std::string>* out) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "forktail serve: cannot read config file %s\n", path.c_str());
    return false;
  }
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    line = Trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    size_t eq = line.find('=');
    if (eq == std::string::npos) {
      std::fprintf(stderr, "forktail serve: %s:%d: expected key = value\n", path.c_str(), n);
      return false;
    }
    std::string value = Trim(line.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'') {
      value = value.substr(1, value.size() - 2);
    }
    (*out)[Trim(line.substr(0, eq))] = value;
  }
  return true;
}

// One line on how the SSD tier served the restart (nothing without a tier).
void PrintTierReport(const TierReport& t) {
  if (!t.enabled) return;
  if (!t.error.empty()) {
    std::printf("forktail serve: SSD tier %s bypassed: %s\n", t.dir.c_str(), t.error.c_str());
  } else {
    std::printf(
        "forktail serve: SSD tier %s: %u slots (%u valid at open, %s, %s); blocks read from it "
        "%llu, from the cold store %llu; stale slots dropped %llu\n",
        t.dir.c_str(), t.slots, t.valid_at_open, t.direct_io ? "O_DIRECT" : "buffered",
        t.io_uring ? "io_uring" : "pread/pwrite",
        static_cast<unsigned long long>(t.blocks_from_tier),
        static_cast<unsigned long long>(t.blocks_from_cold),
        static_cast<unsigned long long>(t.dropped_stale));
  }
  std::fflush(stdout);
}

int RunServe(ServeArgs args, const CLI::App& cmd) {
  if (!args.config.empty()) {
    std::map<std::string, std::string> config;
    if (!ReadConfig(args.config, &config)) return 2;
    auto set = [&](const char* key, const char* flag, auto apply) {
      auto it = config.find(key);
      if (it != config.end() && cmd.count(flag) == 0) apply(it->second);
    };
    try {
      set("data", "--data", [&](const std::string& v) { args.data = v; });
      set("port", "--port", [&](const std::string& v) { args.port = std::stoi(v); });
      set("listen", "--listen", [&](const std::string& v) { args.listen = v; });
      set("user", "--user", [&](const std::string& v) { args.user = v; });
      set("password", "--password", [&](const std::string& v) { args.password = v; });
      set("password_file", "--password-file",
          [&](const std::string& v) { args.password_file = v; });
      set("max_connections", "--max-connections",
          [&](const std::string& v) { args.max_connections = std::stoi(v); });
      set("max_startup_connections", "--max-startup-connections",
          [&](const std::string& v) { args.max_startup_connections = std::stoi(v); });
      set("authentication_timeout", "--authentication-timeout",
          [&](const std::string& v) { args.authentication_timeout = v; });
      set("routing", "--routing", [&](const std::string& v) { args.routing = v; });
      set("idle_in_transaction_hold_ms", "--hold-ms",
          [&](const std::string& v) { args.hold_ms = std::stoi(v); });
      set("ssl_cert_file", "--ssl-cert-file",
          [&](const std::string& v) { args.ssl_cert_file = v; });
      set("ssl_key_file", "--ssl-key-file", [&](const std::string& v) { args.ssl_key_file = v; });
      set("copy_from_dir", "--copy-from-dir",
          [&](const std::string& v) { args.copy_from_dir = v; });
      set("copy_to_dir", "--copy-to-dir", [&](const std::string& v) { args.copy_to_dir = v; });
      set("query_memory", "--query-memory", [&](const std::string& v) { args.query_memory = v; });
      set("memory_budget", "--memory-budget",
          [&](const std::string& v) { args.memory_budget = v; });
      set("freeze_interval", "--freeze-interval",
          [&](const std::string& v) { args.freeze_interval = std::stoi(v); });
      set("checkpoint_timeout", "--checkpoint-timeout",
          [&](const std::string& v) { args.checkpoint_timeout = std::stoi(v); });
      set("max_wal_size", "--max-wal-size", [&](const std::string& v) { args.max_wal_size = v; });
      set("ssd_tier_size", "--ssd-tier-size",
          [&](const std::string& v) { args.ssd_tier_size = v; });
      set("ssd_tier_dir", "--ssd-tier-dir", [&](const std::string& v) { args.ssd_tier_dir = v; });
      set("cold_dir", "--cold-dir", [&](const std::string& v) { args.cold_dir = v; });
      set("snapshot_nice", "--snapshot-nice",
          [&](const std::string& v) { args.snapshot_nice = std::stoi(v); });
      set("procedures", "--procedures", [&](const std::string& v) {
        for (size_t start = 0; start <= v.size();) {
          size_t comma = std::min(v.find(',', start), v.size());
          std::string file = Trim(v.substr(start, comma - start));
          if (!file.empty()) args.procedures.push_back(file);
          start = comma + 1;
        }
      });
    } catch (const std::exception& e) {
      std::fprintf(stderr, "forktail serve: bad value in %s: %s\n", args.config.c_str(), e.what());
      return 2;
    }
    for (const auto& [key, value] : config) {
      static const char* kKnown[] = {"data",
                                     "port",
                                     "listen",
                                     "user",
                                     "password",
                                     "max_connections",
                                     "routing",
                                     "idle_in_transaction_hold_ms",
                                     "ssl_cert_file",
                                     "ssl_key_file",
                                     "copy_from_dir",
                                     "copy_to_dir",
                                     "password_file",
                                     "max_startup_connections",
                                     "authentication_timeout",
                                     "query_memory",
                                     "memory_budget",
                                     "freeze_interval",
                                     "checkpoint_timeout",
                                     "max_wal_size",
                                     "ssd_tier_size",
                                     "ssd_tier_dir",
                                     "cold_dir",
                                     "snapshot_nice",
                                     "procedures"};
      bool known = false;
      for (const char* k : kKnown) known |= key == k;
      // As PostgreSQL refuses to start on an unrecognized parameter: a
      // misspelt key must not leave a setting silently at its default.
      if (!known) {
        std::fprintf(stderr, "forktail serve: unrecognized config key \"%s\" in %s\n", key.c_str(),
                     args.config.c_str());
        return 2;
      }
    }
  }
  std::chrono::milliseconds authentication_timeout{};
  if (!ParseAuthenticationTimeout(args.authentication_timeout, &authentication_timeout)) {
    std::fprintf(stderr,
                 "forktail serve: invalid authentication_timeout \"%s\": seconds from 1 to 600 "
                 "(or with a unit: ms, s, min, h)\n",
                 args.authentication_timeout.c_str());
    return 2;
  }
  if (args.max_connections < 1 || args.max_startup_connections < 1) {
    std::fprintf(stderr,
                 "forktail serve: max_connections and max_startup_connections must be "
                 "at least 1\n");
    return 2;
  }
  if (args.freeze_interval < 0 || args.freeze_interval > 86400) {
    std::fprintf(stderr, "forktail serve: freeze_interval must be 0 (never) to 86400 seconds\n");
    return 2;
  }
  if (args.checkpoint_timeout < 0 || args.checkpoint_timeout > 86400) {
    std::fprintf(stderr,
                 "forktail serve: checkpoint_timeout must be 0 (never by time) to 86400 seconds\n");
    return 2;
  }
  const uint64_t max_wal_bytes = ParseMemorySize(args.max_wal_size);
  if (max_wal_bytes < (uint64_t{32} << 20)) {
    std::fprintf(stderr,
                 "forktail serve: max_wal_size must be a size of at least 32MB, like 1GB (got "
                 "'%s')\n",
                 args.max_wal_size.c_str());
    return 2;
  }
  // The SSD tier: whole 2 MiB slots, at least one.
  uint32_t ssd_tier_slots = 0;
  if (!args.ssd_tier_size.empty() && args.ssd_tier_size != "0") {
    const uint64_t bytes = ParseMemorySize(args.ssd_tier_size);
    if (bytes < (uint64_t{2} << 20) || bytes / (uint64_t{2} << 20) > (uint64_t{1} << 31)) {
      std::fprintf(stderr,
                   "forktail serve: ssd_tier_size must be 0 (no tier) or a size of at least 2MB, "
                   "like 64GB (got '%s')\n",
                   args.ssd_tier_size.c_str());
      return 2;
    }
    ssd_tier_slots = static_cast<uint32_t>(bytes / (uint64_t{2} << 20));
  } else if (!args.ssd_tier_dir.empty()) {
    std::fprintf(stderr, "forktail serve: ssd_tier_dir needs ssd_tier_size\n");
    return 2;
  }
  // The buffer pool's budget for table blocks (tiering/buffer_pool.h).
  uint64_t memory_budget = EffectiveMemoryLimit() / 2;
  if (!args.memory_budget.empty()) {
    memory_budget = args.memory_budget == "0" ? 0 : ParseMemorySize(args.memory_budget);
    if (args.memory_budget != "0" && memory_budget < (uint64_t{16} << 20)) {
      std::fprintf(stderr,
                   "forktail serve: memory_budget must be 0 (no budget) or a size of at least "
                   "16MB, like 8GB (got '%s')\n",
                   args.memory_budget.c_str());
      return 2;
    }
  }
  if (args.snapshot_nice < 0 || args.snapshot_nice > 19) {
    std::fprintf(stderr, "forktail serve: snapshot_nice must be 0..19, got %d\n",
                 args.snapshot_nice);
    return 2;
  }
  if (args.routing != "snapshot" && args.routing != "inprocess") {
    std::fprintf(stderr, "forktail serve: routing must be snapshot or inprocess\n");
    return 2;
  }
  // The password: --password-file F (its first line), or the environment's
  // FORKTAIL_PASSWORD, keep it out of `ps`; --password still works but shows
  // there.
  if (!args.password_file.empty()) {
    std::ifstream in(args.password_file);
    if (!in || !std::getline(in, args.password) || args.password.empty()) {
      std::fprintf(stderr, "forktail serve: cannot read a password from %s\n",
                   args.password_file.c_str());
      return 2;
    }
  } else if (args.password.empty() && !args.user.empty()) {
    if (const char* env = std::getenv("FORKTAIL_PASSWORD")) args.password = env;
  } else if (cmd.count("--password") > 0) {
    std::fprintf(stderr,
                 "forktail serve: warning: --password is visible to every user in `ps`; use "
                 "--password-file or FORKTAIL_PASSWORD\n");
  }
  if (args.password.empty() != args.user.empty()) {
    std::fprintf(stderr, "forktail serve: --user and --password go together\n");
    return 2;
  }

  // One budget for the queries of the server and its snapshot processes, set
  // before anything forks.
  if (!args.query_memory.empty()) {
    const size_t bytes = ParseMemorySize(args.query_memory);
    if (bytes < (size_t{16} << 20)) {
      std::fprintf(stderr,
                   "forktail serve: query_memory must be a size of at least 16MB, like 512MB or "
                   "4GB (got '%s')\n",
                   args.query_memory.c_str());
      return 2;
    }
    MemoryGovernor::Global().SetBudget(bytes);
  }

  if (::pipe2(stop_pipe, O_CLOEXEC) != 0) return 1;
  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);

  try {
    SqlFrontendOptions engine_options;
    engine_options.routing =
        args.routing == "snapshot" ? ReadRouting::kSnapshot : ReadRouting::kInProcess;
    engine_options.snapshot.nice = args.snapshot_nice;
    if (args.hold_ms >= 0)
      engine_options.idle_in_transaction_hold_ms = static_cast<uint32_t>(args.hold_ms);
    // Clients read server files only under --copy-from-dir (none: never).
    engine_options.copy_from_files = args.copy_from_dir.empty()
                                         ? SqlFrontendOptions::ServerFiles::kNever
                                         : SqlFrontendOptions::ServerFiles::kUnderDir;
    engine_options.copy_from_dir = args.copy_from_dir;
    // ... and write them only under --copy-to-dir.
    engine_options.copy_to_files = args.copy_to_dir.empty()
                                       ? SqlFrontendOptions::ServerFiles::kNever
                                       : SqlFrontendOptions::ServerFiles::kUnderDir;
    engine_options.copy_to_dir = args.copy_to_dir;
    DatabaseOptions db_options;
    db_options.ssd_tier_slots = ssd_tier_slots;
    db_options.ssd_tier_dir = args.ssd_tier_dir;
    db_options.cold_dir = args.cold_dir;
    db_options.memory_budget = memory_budget;
    std::unique_ptr<SqlFrontend> engine = SqlFrontend::Open(args.data, engine_options, db_options);
    PrintTierReport(engine->database().tier_report());
    for (const std::string& line : LoadProcedureLibraries(engine->database(), args.procedures)) {
      std::printf("forktail serve: %s\n", line.c_str());
    }
    SqlBackend backend(*engine);
    ServerOptions options;
    options.listen_address = args.listen;
    options.port = args.port;
    options.user = args.user;
    options.password = args.password;
    options.max_connections = args.max_connections;
    options.max_startup_connections = args.max_startup_connections;
    options.authentication_timeout = authentication_timeout;
    options.ssl_cert_file = args.ssl_cert_file;
    options.ssl_key_file = args.ssl_key_file;
    WireServer server(backend, options);
    server.Start();
    // `forktail snapshots --data DIR` asks this endpoint for the live
    // snapshot processes (only when reads are routed to snapshots).
    std::unique_ptr<SnapshotControlServer> control;
    if (engine->snapshots() != nullptr) {
      control = std::make_unique<SnapshotControlServer>(engine->snapshots(), args.data);
    }
    std::printf(
        "forktail serve: listening on %s:%d (data %s, %s auth, reads: %s, query memory %zu MiB, "
        "blocks %s)\n",
        args.listen.c_str(), server.port(), args.data.c_str(),
        args.password.empty() ? "trust (loopback)" : "scram-sha-256", args.routing.c_str(),
        MemoryGovernor::Global().budget() >> 20,
        memory_budget == 0 ? "without a budget"
                           : (std::to_string(memory_budget >> 20) + " MiB budget").c_str());
    std::fflush(stdout);

    auto freezer = StartFreezer(&engine->database(), args.freeze_interval);
    auto checkpointer =
        std::make_unique<Checkpointer>(&engine->database(), args.checkpoint_timeout, max_wal_bytes);

    char c;
    while (::read(stop_pipe[0], &c, 1) < 0 && errno == EINTR) {
    }
    std::printf("forktail serve: shutting down\n");
    std::fflush(stdout);
    server.Stop();
    control.reset();
    checkpointer.reset();
    freezer.reset();
    CheckpointResult checkpoint = engine->database().Checkpoint();
    engine.reset();  // closes the database: the log is flushed
    std::printf("forktail serve: checkpoint %llu written, stopped\n",
                static_cast<unsigned long long>(checkpoint.sequence));
  } catch (const DbError& e) {
    std::fprintf(stderr, "forktail serve: %s (SQLSTATE %s)\n", e.what(), e.sqlstate());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "forktail serve: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace

void RegisterServeCommand(CLI::App& app) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* cmd =
      app.add_subcommand("serve", "Serve the PostgreSQL wire protocol (psql, pgbench, drivers)");
  cmd->add_option("--data", args->data, "Data directory")->capture_default_str();
  cmd->add_option("--port", args->port, "TCP port")->capture_default_str();
  cmd->add_option("--listen", args->listen, "Address to bind ('*': all)")->capture_default_str();
  cmd->add_option("--config", args->config, "Config file of key = value lines (flags override it)");
  cmd->add_option("--user", args->user, "User name for SCRAM-SHA-256 authentication");
  cmd->add_option("--password", args->password,
                  "Password (turns on SCRAM-SHA-256; visible in ps: prefer --password-file or "
                  "FORKTAIL_PASSWORD)");
  cmd->add_option("--password-file", args->password_file,
                  "File whose first line is the password (with --user)");
  cmd->add_option("--max-connections", args->max_connections, "Connection limit")
      ->capture_default_str();
  cmd->add_option("--max-startup-connections", args->max_startup_connections,
                  "Connections still in startup or authentication (apart from "
                  "--max-connections; when full, the longest waiting one is closed)")
      ->capture_default_str();
  cmd->add_option("--authentication-timeout", args->authentication_timeout,
                  "Time a client has to finish startup and authentication: seconds (1..600) "
                  "or with ms, s, min, h")
      ->capture_default_str();
  cmd->add_option("--routing", args->routing, "Where SELECTs run: snapshot | inprocess")
      ->capture_default_str();
  cmd->add_option("--snapshot-nice", args->snapshot_nice,
                  "CPU priority of snapshot processes as a nice value (0: the server's own): "
                  "a query yields the CPU to the transactions when both want it")
      ->check(CLI::Range(0, 19))
      ->capture_default_str();
  cmd->add_option("--ssl-cert-file", args->ssl_cert_file, "PEM certificate: TLS on SSLRequest");
  cmd->add_option("--copy-from-dir", args->copy_from_dir,
                  "COPY ... FROM 'file' may read the files under this directory (default: no "
                  "server file at all; COPY FROM STDIN always works)");
  cmd->add_option("--copy-to-dir", args->copy_to_dir,
                  "COPY ... TO 'file' may create and overwrite files under this directory only "
                  "(default: no server file at all; COPY TO STDOUT always works)");
  cmd->add_option("--query-memory", args->query_memory,
                  "Memory all running queries may use together, over the server and its "
                  "snapshot processes (512MB, 4GB; default: half of RAM or of the cgroup's "
                  "limit); a query past it fails with 53200");
  cmd->add_option("--memory-budget", args->memory_budget,
                  "Memory for table blocks (8GB; 0: none; default: half of RAM or of the "
                  "cgroup's limit). Past it, blocks a checkpoint made durable leave memory, the "
                  "least recently used first, and are read back when used");
  cmd->add_option("--ssl-key-file", args->ssl_key_file, "PEM private key of --ssl-cert-file");
  cmd->add_option("--hold-ms", args->hold_ms,
                  "How long the implicit block of a multi-statement query string may hold the "
                  "transaction thread between its statements (BEGIN blocks never hold it)");
  cmd->add_option("--freeze-interval", args->freeze_interval,
                  "Seconds between passes that freeze the blocks no write changed since the "
                  "last pass into their compressed form (0: never)")
      ->capture_default_str();
  cmd->add_option("--checkpoint-timeout", args->checkpoint_timeout,
                  "Seconds after a checkpoint when the next is taken if anything committed "
                  "since (0: only by --max-wal-size, CHECKPOINT and shutdown)")
      ->capture_default_str();
  cmd->add_option("--max-wal-size", args->max_wal_size,
                  "Log written since the last checkpoint that triggers the next one (32MB at "
                  "least; 512MB, 4GB)")
      ->capture_default_str();
  cmd->add_option("--ssd-tier-size", args->ssd_tier_size,
                  "Size of the SSD tier, in 2 MiB slots (64GB; 0 or unset: none). A restart "
                  "reads block images from it before the cold store");
  cmd->add_option("--ssd-tier-dir", args->ssd_tier_dir,
                  "Directory of the SSD tier's slot file and slot table (default DATA/tier)");
  cmd->add_option("--cold-dir", args->cold_dir,
                  "Directory of the cold store (checkpoint images, manifest), e.g. on cheaper "
                  "storage; linked from DATA/cold on first use (default DATA/cold)");
  cmd->add_option("--procedures", args->procedures,
                  "A shared library of C++ procedures to load at start, which clients then "
                  "CALL (FORKTAIL_PROCEDURE_LIBRARY in forktail/database.h); repeatable");
  cmd->callback([args, cmd] { ExitCode() = RunServe(*args, *cmd); });
}

}  // namespace forktail::tools
