// Snapshots of a real Database: the fork point is the transaction thread
// (DatabaseForkPoint), the snapshot process reads the tables of its frozen
// memory directly (never through the transaction engine or the log).
//   - bank: transfers run while snapshots are taken; every snapshot's sum of
//     balances and row count must equal the initial ones (DESIGN.md invariant 1);
//   - read-your-writes: Acquire(commit LSN of an insert) sees that row.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <future>
#include <random>
#include <string>
#include <thread>

#include "snapshot/snapshot.h"
#include "tests/common/sanitizer_fork.h"
#include "tests/common/txn_test_util.h"

namespace forktail::testing {
namespace {

constexpr int64_t kAccounts = 200;
constexpr int64_t kInitial = 1000;

// Runs in the snapshot process: reads the frozen catalog, no transaction.
//   "sum"     -> "<sum of balances> <live rows>"
//   "get ID"  -> the balance of account ID, or "none"
SnapshotHandler MakeAccountHandler(const Database* db) {
  return [db](const SnapshotContext&, std::string_view request, BatchSink& sink) {
    const Table* t = db->frozen_catalog().FindTable("account");
    if (t == nullptr) {
      sink.Emit("no table");
      return;
    }
    const std::string req(request);
    if (req == "sum") {
      int64_t sum = 0, count = 0;
      for (size_t b = 0; b < t->block_count(); ++b) {
        const BlockNo no(static_cast<uint32_t>(b));
        const uint32_t rows = t->PinBlock(no)->row_count();
        for (uint32_t s = 0; s < rows; ++s) {
          std::optional<Value> v = t->ReadColumn(TupleId{no, SlotNo(s)}, ColumnId(2));
          if (!v) continue;  // deleted slot (a relocated row's old place)
          sum += v->GetInt();
          ++count;
        }
      }
      sink.Emit(std::to_string(sum) + " " + std::to_string(count));
    } else if (req.starts_with("get ")) {
      const int64_t id = std::stoll(req.substr(4));
      std::optional<TupleId> tid = t->LookupKey({Value::BigInt(id)});
      std::optional<Value> v;
      if (tid) v = t->ReadColumn(*tid, ColumnId(2));
      sink.Emit(v ? std::to_string(v->GetInt()) : "none");
    } else {
      sink.Emit("bad request");
    }
  };
}

void CreateAccounts(Database& db) {
  ExpectOk(db.Run([](Transaction& txn) {
    txn.CreateTable(AccountSchema());
    for (int64_t i = 0; i < kAccounts; ++i) {
      txn.Insert("account", Account(i, "owner" + std::to_string(i), kInitial));
    }
  }));
  db.RegisterProcedure("transfer", [](Transaction& txn, int64_t from, int64_t to, int64_t amount) {
    auto a = txn.Get("account", {Value::BigInt(from)});
    auto b = txn.Get("account", {Value::BigInt(to)});
    if (!a || !b) txn.Abort("no such account");
    if (from == to) return;
    // Two updates per transaction: a snapshot between them would break the sum.
    txn.UpdateByKey("account", {Value::BigInt(from)},
                    {{"balance", Value::BigInt((*a)[2].GetInt() - amount)}});
    txn.UpdateByKey("account", {Value::BigInt(to)},
                    {{"balance", Value::BigInt((*b)[2].GetInt() + amount)}});
  });
}

TEST(DatabaseSnapshot, BankSumNeverChangesWhileTransfersRun) {
  FORKTAIL_SKIP_FORK_STRESS_UNDER_SANITIZER();
  constexpr int kSnapshots = 1000;
  constexpr uint32_t kSeed = 20261121;
  TempDir dir;
  DatabaseOptions dbo;
  dbo.synchronous_commit = false;  // many transfers between two forks
  auto db = Database::Open(dir.path(), dbo);
  CreateAccounts(*db);

  std::atomic<bool> stop{false};
  std::atomic<uint64_t> transfers{0}, failed{0};
  std::thread writer([&] {
    std::mt19937 rng(kSeed);
    std::deque<std::future<TxnResult>> in_flight;
    auto reap = [&](std::future<TxnResult>& f) {
      TxnResult r = f.get();
      if (r.ok) {
        ++transfers;
      } else {
        ++failed;
        ADD_FAILURE() << r.sqlstate << ": " << r.message;
      }
    };
    while (!stop.load()) {
      const int64_t from = rng() % kAccounts, to = rng() % kAccounts;
      const int64_t amount = rng() % 300;
      if (rng() % 8 == 0) {
        reap(in_flight.emplace_back(db->ExecuteAsync(
            "transfer", {Value::BigInt(from), Value::BigInt(to), Value::BigInt(amount)})));
        in_flight.pop_back();
        continue;
      }
      in_flight.push_back(db->ExecuteAsync(
          "transfer", {Value::BigInt(from), Value::BigInt(to), Value::BigInt(amount)}));
      if (in_flight.size() >= 32) {
        reap(in_flight.front());
        in_flight.pop_front();
      }
    }
    for (auto& f : in_flight) reap(f);
    // One synchronous-API transfer at the end, through Execute.
    TxnResult r = db->Execute("transfer", {Value::BigInt(0), Value::BigInt(1), Value::BigInt(1)});
    if (r.ok) ++transfers;
  });

  DatabaseForkPoint fork_point(db.get());
  SnapshotOptions options;
  options.handler = MakeAccountHandler(db.get());
  options.ready_timeout_ms = 500;
  options.fork_attempts = 10;
  int wrong = 0;
  Lsn first = 0, last = 0;
  uint64_t transfers_at_first = 0;
  {
    SnapshotManager manager(&fork_point, options);
    const std::string expected =
        std::to_string(kAccounts * kInitial) + " " + std::to_string(kAccounts);
    for (int i = 0; i < kSnapshots; ++i) {
      manager.Refresh();
      SnapshotLease lease = manager.Acquire();
      if (i == 0) {
        first = lease.lsn();
        transfers_at_first = transfers.load();
      }
      last = lease.lsn();
      auto batches = lease.Run("sum");
      if (batches.size() != 1 || batches[0] != expected) {
        ++wrong;
        ADD_FAILURE() << "snapshot " << i << " at LSN " << lease.lsn() << ": got \""
                      << (batches.empty() ? "" : batches[0]) << "\", want \"" << expected
                      << "\" (seed " << kSeed << ")";
      }
    }
    stop = true;
    writer.join();
    EXPECT_GE(manager.stats().created, static_cast<uint64_t>(kSnapshots));
    EXPECT_EQ(manager.stats().died, 0u);
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(failed.load(), 0u);
  EXPECT_GT(last, first) << "transfers must commit between the snapshots";
  EXPECT_GT(transfers.load(), transfers_at_first);
  // The parent's own view agrees after all transfers.
  int64_t sum = 0;
  for (const Row& row : Dump(*db, "account")) sum += row[2].GetInt();
  EXPECT_EQ(sum, kAccounts * kInitial);
  std::printf("%d snapshots over %llu transfers, LSN %llu..%llu\n", kSnapshots,
              static_cast<unsigned long long>(transfers.load()),
              static_cast<unsigned long long>(first), static_cast<unsigned long long>(last));
}

// Forks a few times from an idle parent: runs under the sanitizers too.
TEST(DatabaseSnapshot, AcquireAtCommitLsnSeesTheInsert) {
  TempDir dir;
  auto db = Database::Open(dir.path());
  CreateAccounts(*db);
  DatabaseForkPoint fork_point(db.get());
  EXPECT_GT(fork_point.Committed().lsn, 0u);
  EXPECT_EQ(fork_point.Committed().commits, 1u);
  SnapshotOptions options;
  options.handler = MakeAccountHandler(db.get());
  SnapshotManager manager(&fork_point, options);
  {
    SnapshotLease before = manager.Acquire();
    auto batches = before.Run("get 1000");
    ASSERT_EQ(batches.size(), 1u);
    EXPECT_EQ(batches[0], "none");
  }
  for (int64_t id = 1000; id < 1003; ++id) {
    TxnResult r =
        db->Run([id](Transaction& txn) { txn.Insert("account", Account(id, "new", 7 * id)); });
    ExpectOk(r);
    ASSERT_NE(r.commit_lsn, wal::kInvalidLsn);
    EXPECT_EQ(fork_point.Committed().lsn, r.commit_lsn);
    SnapshotLease lease = manager.Acquire(r.commit_lsn);
    EXPECT_GE(lease.lsn(), r.commit_lsn);
    auto batches = lease.Run("get " + std::to_string(id));
    ASSERT_EQ(batches.size(), 1u);
    EXPECT_EQ(batches[0], std::to_string(7 * id)) << "snapshot at LSN " << lease.lsn();
    auto sums = lease.Run("sum");
    ASSERT_EQ(sums.size(), 1u);
    EXPECT_EQ(sums[0].substr(sums[0].find(' ') + 1), std::to_string(kAccounts + id - 999));
  }
  EXPECT_EQ(manager.stats().died, 0u);
}

}  // namespace
}  // namespace forktail::testing
