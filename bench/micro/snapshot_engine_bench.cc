// Snapshots of the real engine (Database + DatabaseForkPoint + SnapshotManager),
// each figure printed beside its baseline in the same run:
//
//  1. size: snapshot creation (Refresh: fork on the transaction thread + child
//     Ready) and the fork() inside it vs a bare fork() of the same process, as
//     the table grows to each --gib size (8 BIGINT columns, 2 MiB THP blocks);
//  2. tput: transaction throughput (2 submitters, asynchronous commit, each
//     transaction moves an amount between two random rows of the big table)
//     with no snapshots vs a new snapshot every 100 ms and every 10 ms while a
//     client scans the table in the newest snapshot in a loop (the scan checks
//     the sum: every snapshot must see it unchanged);
//  3. ckpt: checkpoints (written by a snapshot process) while those
//     transactions run: the transaction thread's part vs the whole, and the
//     throughput during a checkpoint beside the throughput without;
//  4. cycles: --cycles snapshot cycles (refresh 10 ms) with those writes, with
//     and without HugePageKeeper: fork time first/last, huge-mapped share of
//     the blocks, scan speed in the child at the end.
//
//   snapshot_engine_bench [--gib=1,4,8] [--seconds=5] [--cycles=300]
//   [--parts=size,tput,ckpt,cycles]
//
// Data goes to $FORKTAIL_BENCH_DIR (default /tmp); it is deleted at the end.
#include <fmt/format.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <future>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "snapshot/snapshot.h"

namespace forktail {
namespace {

using Clock = std::chrono::steady_clock;
double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

constexpr int kColumns = 8;
constexpr int64_t kInitial = 1000;

std::string LoadAverage() {
  double l[3] = {0, 0, 0};
  if (getloadavg(l, 3) != 3) return "?";
  return fmt::format("{:.1f} {:.1f} {:.1f}", l[0], l[1], l[2]);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Engine {
  std::string dir;
  std::unique_ptr<Database> db;
  std::unique_ptr<DatabaseForkPoint> fork_point;
  uint32_t rows_per_block = 0;
  size_t blocks = 0;

  explicit Engine(std::string d) : dir(std::move(d)) {
    DatabaseOptions o;
    o.synchronous_commit = false;
    o.wal_segment_size = uint64_t{256} << 20;
    db = Database::Open(dir, o);
    fork_point = std::make_unique<DatabaseForkPoint>(db.get());
    std::vector<ColumnDef> cols;
    for (int c = 0; c < kColumns; c++)
      cols.push_back({fmt::format("c{}", c), Type::BigInt(), true});
    db->Run([&](Transaction& txn) { txn.CreateTable(TableSchema{"t", cols, {}}); }).ThrowIfError();
    // Moves an amount between two rows: the sum of c1 never changes.
    db->RegisterProcedure("move", [this](Transaction& txn, int64_t a, int64_t b, int64_t amount) {
      TupleId ta{BlockNo(static_cast<uint32_t>(a / rows_per_block)),
                 SlotNo(static_cast<uint32_t>(a % rows_per_block))};
      TupleId tb{BlockNo(static_cast<uint32_t>(b / rows_per_block)),
                 SlotNo(static_cast<uint32_t>(b % rows_per_block))};
      auto ra = txn.Read("t", ta);
      auto rb = txn.Read("t", tb);
      if (!ra || !rb || a == b) return;
      txn.Update("t", ta,
                 Table::ColumnUpdates{{ColumnId(1), Value::BigInt((*ra)[1].GetInt() - amount)}});
      txn.Update("t", tb,
                 Table::ColumnUpdates{{ColumnId(1), Value::BigInt((*rb)[1].GetInt() + amount)}});
    });
  }
  ~Engine() {
    fork_point.reset();
    db.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }

  // Inserts rows until the table has >= bytes of blocks.
  void GrowTo(uint64_t bytes) {
    auto t0 = Clock::now();
    uint64_t rows = 0;
    while (blocks * (uint64_t{2} << 20) < bytes) {
      db->Run([&](Transaction& txn) {
          for (int i = 0; i < 20000; i++) {
            Row row;
            for (int c = 0; c < kColumns; c++) row.push_back(Value::BigInt(c == 1 ? kInitial : i));
            txn.Insert("t", row);
          }
        }).ThrowIfError();
      rows += 20000;
      db->Run([&](Transaction& txn) {
          const Table& t = txn.GetTable("t");
          blocks = t.block_count();
          rows_per_block = t.PinBlock(BlockNo(0))->row_count();
        }).ThrowIfError();
    }
    db->Run([&](Transaction& txn) {  // drop the partial last block from the move range
        blocks = txn.GetTable("t").block_count() - 1;
      })
        .ThrowIfError();
    fmt::print(
        "  loaded {} blocks ({} rows/block), {:.0f} k rows/s\n", blocks, rows_per_block,
        static_cast<double>(rows) / 1e3 / std::chrono::duration<double>(Clock::now() - t0).count());
  }
  // The rows the movers write: the first `hot` fraction of the table.
  int64_t rows() const {
    return std::max<int64_t>(
        2, static_cast<int64_t>(static_cast<double>(blocks) * hot) * rows_per_block);
  }
  double hot = 1.0;
};

// In the child: "scan" -> "<sum of c1> <rows> <ns>"
SnapshotHandler ScanHandler(Database* db) {
  return [db](const SnapshotContext&, std::string_view, BatchSink& sink) {
    auto t0 = Clock::now();
    const Table* t = db->frozen_catalog().FindTable("t");
    int64_t sum = 0, rows = 0;
    for (size_t b = 0; b < t->block_count(); b++) {
      BlockRef ref = t->PinBlock(BlockNo(static_cast<uint32_t>(b)));
      BlockReadView v = ref->View();
      const int64_t* c1 = v.stripe<int64_t>(ColumnId(1));
      for (uint32_t r = 0; r < v.row_count(); r++) sum += c1[r];
      rows += v.row_count();
    }
    sink.Emit(fmt::format(
        "{} {} {}", sum, rows,
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count()));
  };
}

double ThreadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// Wall time of a bare fork() of this process and the CPU time the parent
// spent in it (the latter is what a loaded machine does not inflate).
double BareForkMs(double* cpu_ms) {
  const double c0 = ThreadCpuMs();
  auto t0 = Clock::now();
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  double ms = Ms(Clock::now() - t0);
  *cpu_ms = ThreadCpuMs() - c0;
  waitpid(pid, nullptr, 0);
  return ms;
}

void WaitAlone(SnapshotManager& m) {
  for (int i = 0; i < 2000 && m.List().size() > 1; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

void PartSize(Engine& e, const std::vector<int64_t>& gibs) {
  fmt::print("\n== fork time vs table size (THP blocks), load avg {}\n", LoadAverage());
  fmt::print("{:>6} {:>8} {:>10} {:>14} {:>14} {:>16} {:>14} {:>12}\n", "GiB", "blocks", "rss_MiB",
             "bare_fork_ms", "bare_fork_cpu", "snapshot_create", "of_which_fork", "huge_share");
  for (int64_t gib : gibs) {
    e.GrowTo(static_cast<uint64_t>(gib) << 30);
    SnapshotOptions o;
    o.handler = ScanHandler(e.db.get());
    SnapshotManager m(e.fork_point.get(), o);
    std::vector<double> bare, bare_cpu, create, fork_ms;
    for (int i = 0; i < 10; i++) {
      double cpu = 0;
      bare.push_back(BareForkMs(&cpu));
      bare_cpu.push_back(cpu);
      auto t0 = Clock::now();
      m.Refresh();
      create.push_back(Ms(Clock::now() - t0));
      std::vector<SnapshotInfo> list = m.List();
      fork_ms.push_back(list.back().fork_ms);
      WaitAlone(m);
    }
    ProcessMemory mem;
    ReadProcessMemory(getpid(), &mem).PermitUnchecked();
    fmt::print("{:>6} {:>8} {:>10} {:>14.2f} {:>14.2f} {:>16.2f} {:>14.2f} {:>12.2f}\n", gib,
               e.blocks, mem.rss_bytes >> 20, Median(bare), Median(bare_cpu), Median(create),
               Median(fork_ms),
               static_cast<double>(AnonHugePageBytes()) / static_cast<double>(e.blocks << 21));
  }
}

struct Mode {
  const char* name;
  uint32_t refresh_ms;  // 0: no snapshots
  bool keeper;
};

struct RunResult {
  double tps = 0;
  uint64_t scans = 0, wrong = 0, snapshots = 0;
  double scan_gbps = 0, fork_first = 0, fork_last = 0, huge_share = 0;
  double keeper_ms = 0;
};

// Runs movers for `seconds` (or until `cycles` snapshots were created).
RunResult RunWorkload(Engine& e, Mode mode, double seconds, uint64_t cycles) {
  RunResult res;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> done{0};
  auto mover = [&](uint32_t seed) {
    std::mt19937_64 rng(seed);
    std::deque<std::future<TxnResult>> q;
    while (!stop.load()) {
      q.push_back(e.db->ExecuteAsync("move", {Value::BigInt(static_cast<int64_t>(rng() % e.rows())),
                                              Value::BigInt(static_cast<int64_t>(rng() % e.rows())),
                                              Value::BigInt(static_cast<int64_t>(rng() % 100))}));
      if (q.size() >= 64) {
        q.front().get().ThrowIfError();
        q.pop_front();
        done++;
      }
    }
    for (auto& f : q) f.get().ThrowIfError();
  };
  std::unique_ptr<SnapshotManager> m;
  std::unique_ptr<HugePageKeeper> keeper;
  if (mode.keeper) {
    HugePageKeeperOptions ko;
    ko.interval_ms = 50;
    ko.low_priority = false;  // at nice 19 it never ran on the loaded 2-core machine
    keeper = std::make_unique<HugePageKeeper>([&e] { return ListDatabaseBlocks(e.db.get()); }, ko);
  }
  std::thread scanner;
  std::atomic<double> scan_ns_total{0};
  std::atomic<uint64_t> scan_rows{0};
  if (mode.refresh_ms > 0) {
    SnapshotOptions o;
    o.handler = ScanHandler(e.db.get());
    o.refresh_interval_ms = mode.refresh_ms;
    o.max_live_snapshots = 16;
    m = std::make_unique<SnapshotManager>(e.fork_point.get(), o);
    scanner = std::thread([&] {
      while (!stop.load()) {
        SnapshotLease lease = m->Acquire();
        std::vector<std::string> b = lease.Run("scan");
        long long sum = 0, rows = 0, ns = 0;
        if (b.size() != 1 || std::sscanf(b[0].c_str(), "%lld %lld %lld", &sum, &rows, &ns) != 3) {
          res.wrong++;
          continue;
        }
        // Rows of the partial last block are outside the move range: their c1 stays.
        if ((sum - rows * kInitial) != 0) res.wrong++;
        res.scans++;
        scan_ns_total = scan_ns_total.load() + static_cast<double>(ns);
        scan_rows += static_cast<uint64_t>(rows);
      }
    });
  }
  const uint64_t before = e.db->committed_count();
  auto t0 = Clock::now();
  std::thread w1(mover, 1), w2(mover, 2);
  std::vector<double> forks;
  while (Ms(Clock::now() - t0) < seconds * 1000) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (m) {
      std::vector<SnapshotInfo> list = m->List();
      if (!list.empty() && (forks.empty() || list.back().fork_ms != forks.back())) {
        forks.push_back(list.back().fork_ms);
      }
      if (cycles > 0 && m->stats().created >= cycles) break;
    }
  }
  stop = true;
  w1.join();
  w2.join();
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  res.tps = static_cast<double>(e.db->committed_count() - before) / secs;
  if (scanner.joinable()) scanner.join();
  if (m) res.snapshots = m->stats().created;
  if (!forks.empty()) {
    size_t k = std::min<size_t>(5, forks.size());
    res.fork_first = Median(std::vector<double>(forks.begin(), forks.begin() + k));
    res.fork_last = Median(std::vector<double>(forks.end() - k, forks.end()));
  }
  if (scan_rows.load() > 0) {
    res.scan_gbps = static_cast<double>(scan_rows.load()) * 8 / scan_ns_total.load();
  }
  if (keeper) res.keeper_ms = keeper->stats().collapse_ms;
  m.reset();
  keeper.reset();
  res.huge_share = static_cast<double>(AnonHugePageBytes()) / static_cast<double>(e.blocks << 21);
  return res;
}

void PartThroughput(Engine& e, double seconds) {
  fmt::print("\n== transactions/s, 2 submitters, async commit ({} blocks), load avg {}\n", e.blocks,
             LoadAverage());
  fmt::print("{:>28} {:>10} {:>10} {:>8} {:>10} {:>10} {:>7}\n", "mode", "tps", "snapshots",
             "scans", "scan_GBps", "fork_ms", "wrong");
  for (Mode mode :
       {Mode{"no snapshots (baseline)", 0, false}, Mode{"snapshot every 100 ms", 100, false},
        Mode{"snapshot every 10 ms", 10, false}}) {
    RunResult r = RunWorkload(e, mode, seconds, 0);
    fmt::print("{:>28} {:>10.0f} {:>10} {:>8} {:>10.2f} {:>10.2f} {:>7}\n", mode.name, r.tps,
               r.snapshots, r.scans, r.scan_gbps, r.fork_last, r.wrong);
  }
  fmt::print("  load avg after: {}\n", LoadAverage());
}

void PartCycles(Engine& e, uint64_t cycles) {
  fmt::print(
      "\n== {} snapshot cycles (refresh 10 ms, scans, moves to the first {:.0f}% of the rows) ({} "
      "blocks), load avg {}\n",
      cycles, e.hot * 100, e.blocks, LoadAverage());
  fmt::print("{:>26} {:>10} {:>13} {:>13} {:>11} {:>10} {:>11} {:>6}\n", "mode", "tps",
             "fork_first_ms", "fork_last_ms", "huge_share", "scan_GBps", "collapse_ms", "wrong");
  // Start each mode from huge blocks, so both see the same history.
  for (Mode mode : {Mode{"no collapse (baseline)", 10, false}, Mode{"HugePageKeeper", 10, true}}) {
    HugePageKeeper repair([&e] { return ListDatabaseBlocks(e.db.get()); }, HugePageKeeperOptions{});
    repair.CheckNow();
    RunResult r = RunWorkload(e, mode, 600, cycles);
    fmt::print("{:>26} {:>10.0f} {:>13.2f} {:>13.2f} {:>11.2f} {:>10.2f} {:>11.0f} {:>6}\n",
               mode.name, r.tps, r.fork_first, r.fork_last, r.huge_share, r.scan_gbps, r.keeper_ms,
               r.wrong);
  }
  fmt::print("  load avg after: {}\n", LoadAverage());
}

// Checkpoints through a snapshot process while the movers run: the
// transaction thread's share (collect + fork) vs the whole checkpoint, and
// the throughput during checkpoints beside the throughput without.
void PartCheckpoint(Engine& e, double seconds) {
  fmt::print("\n== checkpoints while transactions run ({} blocks), load avg {}\n", e.blocks,
             LoadAverage());
  std::atomic<bool> stop{false};
  auto mover = [&](uint32_t seed) {
    std::mt19937_64 rng(seed);
    std::deque<std::future<TxnResult>> q;
    while (!stop.load()) {
      q.push_back(e.db->ExecuteAsync("move", {Value::BigInt(static_cast<int64_t>(rng() % e.rows())),
                                              Value::BigInt(static_cast<int64_t>(rng() % e.rows())),
                                              Value::BigInt(static_cast<int64_t>(rng() % 100))}));
      if (q.size() >= 64) {
        q.front().get().ThrowIfError();
        q.pop_front();
      }
    }
    for (auto& f : q) f.get().ThrowIfError();
  };
  e.db->Checkpoint();  // the first one writes every block; measured below are the next ones
  std::thread w1(mover, 3), w2(mover, 4);
  uint64_t c0 = e.db->committed_count();
  auto t0 = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  double base_tps = static_cast<double>(e.db->committed_count() - c0) /
                    std::chrono::duration<double>(Clock::now() - t0).count();
  fmt::print("  no checkpoint (baseline): {:.0f} tps\n", base_tps);
  fmt::print("{:>5} {:>8} {:>10} {:>12} {:>16} {:>10} {:>12}\n", "#", "blocks", "image_MiB",
             "total_ms", "txn_thread_ms", "child_ms", "tps_during");
  for (int i = 0; i < 3; i++) {
    c0 = e.db->committed_count();
    t0 = Clock::now();
    CheckpointResult c = e.db->Checkpoint();
    double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    fmt::print("{:>5} {:>8} {:>10} {:>12.1f} {:>16.2f} {:>10.1f} {:>12.0f}\n", c.sequence,
               c.blocks_written, c.bytes_written >> 20, c.seconds * 1e3, c.txn_thread_seconds * 1e3,
               c.write_seconds * 1e3, static_cast<double>(e.db->committed_count() - c0) / secs);
  }
  stop = true;
  w1.join();
  w2.join();
  fmt::print("  load avg after: {}\n", LoadAverage());
}

std::vector<int64_t> ParseList(const std::string& s) {
  std::vector<int64_t> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find(',', i);
    out.push_back(std::stoll(s.substr(i, j - i)));
    if (j == std::string::npos) break;
    i = j + 1;
  }
  return out;
}

}  // namespace
}  // namespace forktail

int main(int argc, char** argv) {
  using namespace forktail;
  std::vector<int64_t> gibs = {1};
  double seconds = 5;
  uint64_t cycles = 300;
  double hot = 1.0;
  std::string parts = "size,tput,ckpt,cycles";
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a.starts_with("--gib="))
      gibs = ParseList(a.substr(6));
    else if (a.starts_with("--seconds="))
      seconds = std::stod(a.substr(10));
    else if (a.starts_with("--cycles="))
      cycles = std::stoull(a.substr(9));
    else if (a.starts_with("--hot="))
      hot = std::stod(a.substr(6));
    else if (a.starts_with("--parts="))
      parts = a.substr(8);
    else {
      fmt::print(stderr,
                 "usage: {} [--gib=1,4,8] [--seconds=5] [--cycles=300] "
                 "[--parts=size,tput,ckpt,cycles] [--hot=FRACTION]\n",
                 argv[0]);
      return 2;
    }
  }
  const char* base = getenv("FORKTAIL_BENCH_DIR");
  std::string tmpl = std::string(base ? base : "/tmp") + "/ft_snapshot_engine_XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) return 3;
  fmt::print("snapshot_engine_bench: {} cores, load avg {}\n", std::thread::hardware_concurrency(),
             LoadAverage());
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  Engine e(tmpl);
  e.hot = hot;
  if (parts.find("size") != std::string::npos) {
    PartSize(e, gibs);
  } else {
    e.GrowTo(static_cast<uint64_t>(gibs.front()) << 30);
  }
  if (parts.find("tput") != std::string::npos) PartThroughput(e, seconds);
  if (parts.find("ckpt") != std::string::npos) PartCheckpoint(e, seconds);
  if (parts.find("cycles") != std::string::npos) PartCycles(e, cycles);
  return 0;
}
