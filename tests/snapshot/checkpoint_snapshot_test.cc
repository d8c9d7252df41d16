// Checkpoints through snapshot processes on a real Database, beside snapshot
// processes of a SnapshotManager (both fork on the transaction thread):
//   - bank transfers from two threads while checkpoints are taken one after
//     another and snapshots refresh every 20 ms; after a reopen the sum and the
//     count are intact and the log after the last checkpoint replays;
//   - a snapshot process holds none of the WAL's or RocksDB's descriptors;
//   - after a reopen, snapshots carry the recovered LSN (read-your-writes with
//     a commit LSN from before the restart works).
#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <future>
#include <random>
#include <string>
#include <thread>

#include "snapshot/snapshot.h"
#include "tests/common/sanitizer_fork.h"
#include "tests/common/txn_test_util.h"

namespace forktail::testing {
namespace {

constexpr int64_t kAccounts = 100;
constexpr int64_t kInitial = 1000;

void CreateAccounts(Database& db) {
  ExpectOk(db.Run([](Transaction& txn) {
    txn.CreateTable(AccountSchema());
    for (int64_t i = 0; i < kAccounts; ++i) {
      txn.Insert("account", Account(i, "owner" + std::to_string(i), kInitial));
    }
  }));
}

void RegisterTransfer(Database& db) {
  db.RegisterProcedure("transfer", [](Transaction& txn, int64_t from, int64_t to, int64_t amount) {
    auto a = txn.Get("account", {Value::BigInt(from)});
    auto b = txn.Get("account", {Value::BigInt(to)});
    if (!a || !b) txn.Abort("no such account");
    if (from == to) return;
    txn.UpdateByKey("account", {Value::BigInt(from)},
                    {{"balance", Value::BigInt((*a)[2].GetInt() - amount)}});
    txn.UpdateByKey("account", {Value::BigInt(to)},
                    {{"balance", Value::BigInt((*b)[2].GetInt() + amount)}});
  });
}

std::pair<int64_t, size_t> SumAndCount(Database& db) {
  int64_t sum = 0;
  std::vector<Row> rows = Dump(db, "account");
  for (const Row& row : rows) sum += row[2].GetInt();
  return {sum, rows.size()};
}

// Descriptors of this process whose file lies under `dir`.
int CountFdsUnder(const std::string& dir) {
  const std::string prefix = std::filesystem::weakly_canonical(dir).string() + "/";
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    std::string target = std::filesystem::read_symlink(entry.path(), ec).string();
    if (!ec && target.starts_with(prefix)) n++;
  }
  return n;
}

TEST(CheckpointSnapshot, CheckpointsWhileTransfersRunAndSnapshotsRefresh) {
  FORKTAIL_SKIP_FORK_STRESS_UNDER_SANITIZER();
  constexpr int kTransfersPerWriter = 30000;
  constexpr int kMinCheckpoints = 10;
  constexpr uint32_t kSeed = 20261122;
  TempDir dir;
  uint64_t transfers_done = 0;
  int checkpoints_taken = 0;
  {
    DatabaseOptions dbo;
    dbo.synchronous_commit = false;
    dbo.wal_segment_size = 1 << 20;
    dbo.checkpoint_mode = DatabaseOptions::CheckpointMode::kSnapshotProcess;
    auto db = Database::Open(dir.path(), dbo);
    CreateAccounts(*db);
    RegisterTransfer(*db);
    DatabaseForkPoint fork_point(db.get());
    SnapshotOptions options;
    options.handler = [](const SnapshotContext&, std::string_view, BatchSink& sink) {
      sink.Emit("ok");
    };
    options.refresh_interval_ms = 20;
    SnapshotManager snapshots(&fork_point, options);

    std::atomic<bool> stop{false};
    std::atomic<uint64_t> transfers{0}, failed{0};
    auto writer = [&](uint32_t seed) {
      std::mt19937 rng(seed);
      std::deque<std::future<TxnResult>> in_flight;
      auto reap = [&] {
        TxnResult r = in_flight.front().get();
        in_flight.pop_front();
        if (r.ok) {
          ++transfers;
        } else {
          ++failed;
          ADD_FAILURE() << r.sqlstate << ": " << r.message << " (seed " << kSeed << ")";
        }
      };
      for (int i = 0; i < kTransfersPerWriter && !stop.load(); ++i) {
        in_flight.push_back(db->ExecuteAsync(
            "transfer", {Value::BigInt(rng() % kAccounts), Value::BigInt(rng() % kAccounts),
                         Value::BigInt(rng() % 100)}));
        if (in_flight.size() >= 16) reap();
      }
      while (!in_flight.empty()) reap();
    };
    std::atomic<int> writers_left{2};
    auto run = [&](uint32_t seed) {
      writer(seed);
      --writers_left;
    };
    std::thread w1(run, kSeed), w2(run, kSeed + 1);
    uint64_t written = 0;
    wal::Lsn previous = 0;
    // Checkpoints one after another while the writers run, and a few more.
    int checkpoints = 0;
    for (; writers_left.load() > 0 || checkpoints < kMinCheckpoints; ++checkpoints) {
      CheckpointResult c = db->Checkpoint();
      EXPECT_GT(c.child_pid, 0);
      EXPECT_GE(c.lsn, previous);
      previous = c.lsn;
      written += c.blocks_written;
    }
    stop = true;
    w1.join();
    w2.join();
    transfers_done = transfers.load();
    checkpoints_taken = checkpoints;
    EXPECT_EQ(failed.load(), 0u);
    EXPECT_GT(written, 0u);
    EXPECT_EQ(snapshots.stats().died, 0u);
    EXPECT_EQ(SumAndCount(*db), std::make_pair(kAccounts * kInitial, size_t{kAccounts}));
    std::printf("%d checkpoints (%llu blocks written) over %llu transfers, %llu snapshots\n",
                checkpoints, static_cast<unsigned long long>(written),
                static_cast<unsigned long long>(transfers_done),
                static_cast<unsigned long long>(snapshots.stats().created));
  }
  auto db = Database::Open(dir.path());
  EXPECT_EQ(db->recovery_report().checkpoint.sequence, static_cast<uint64_t>(checkpoints_taken));
  EXPECT_EQ(SumAndCount(*db), std::make_pair(kAccounts * kInitial, size_t{kAccounts}));
}

// Forks twice from an idle parent: runs under the sanitizers too.
TEST(CheckpointSnapshot, SnapshotProcessHoldsNoLogOrColdStoreDescriptors) {
  TempDir dir;
  auto db = Database::Open(dir.path());
  CreateAccounts(*db);
  db->Checkpoint();
  ExpectOk(db->Run([](Transaction& txn) { txn.Insert("account", Account(500, "x", 1)); }));
  const std::string wal_dir = dir.path() + "/wal", cold_dir = dir.path() + "/cold";
  ASSERT_GT(CountFdsUnder(wal_dir), 0) << "the parent writes the log";
  ASSERT_GT(CountFdsUnder(cold_dir), 0) << "the parent has RocksDB open";
  DatabaseForkPoint fork_point(db.get());
  SnapshotOptions options;
  options.handler = [&](const SnapshotContext&, std::string_view, BatchSink& sink) {
    sink.Emit(std::to_string(CountFdsUnder(wal_dir)) + " " +
              std::to_string(CountFdsUnder(cold_dir)));
  };
  SnapshotManager snapshots(&fork_point, options);
  SnapshotLease lease = snapshots.Acquire();
  std::vector<std::string> batches = lease.Run("fds");
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0], "0 0");
  // Checkpoints still work with the fork function installed by the fork point.
  EXPECT_EQ(db->Checkpoint().sequence, 2u);
}

TEST(CheckpointSnapshot, SnapshotsAfterAReopenCarryTheRecoveredLsn) {
  TempDir dir;
  wal::Lsn commit_lsn = 0;
  {
    auto db = Database::Open(dir.path());
    CreateAccounts(*db);
    TxnResult r = db->Run([](Transaction& txn) { txn.Insert("account", Account(700, "y", 7)); });
    ExpectOk(r);
    commit_lsn = r.commit_lsn;
  }
  auto db = Database::Open(dir.path());
  DatabaseForkPoint fork_point(db.get());
  EXPECT_GE(fork_point.Committed().lsn, commit_lsn);
  SnapshotOptions options;
  options.handler = [&](const SnapshotContext& ctx, std::string_view, BatchSink& sink) {
    sink.Emit(std::to_string(ctx.lsn));
  };
  SnapshotManager snapshots(&fork_point, options);
  // A session's commit LSN from before the restart is not "ahead" (22023).
  SnapshotLease lease = snapshots.Acquire(commit_lsn);
  EXPECT_GE(lease.lsn(), commit_lsn);
  std::vector<std::string> batches = lease.Run("lsn");
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0], std::to_string(lease.lsn()));
}

}  // namespace
}  // namespace forktail::testing
