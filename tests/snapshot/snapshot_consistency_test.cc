// Invariant 1: a query on a snapshot sees exactly the transactions committed
// before the snapshot's LSN. Checked with numbered inserts (count and max) and
// with the bank invariant (transfers never change the total).
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "fake_txn_engine.h"
#include "snapshot/snapshot.h"
#include "test_handler.h"
#include "tests/common/sanitizer_fork.h"

namespace forktail::testing {
namespace {

SnapshotOptions Options(FakeTable* table) {
  SnapshotOptions o;
  o.handler = MakeTestHandler(table);
  return o;
}

// Each transaction inserts row number N+1 into slot N, so the snapshot at LSN
// L must hold exactly L rows, the largest being L.
void InsertOne(FakeTable& t) {
  if (t.rows >= t.capacity()) return;
  t.at(t.rows) = static_cast<int64_t>(t.rows) + 1;
  ++t.rows;
}

TEST(SnapshotConsistency, NumberedInsertsVisibleExactlyUpToLsn) {
  FORKTAIL_SKIP_FORK_STRESS_UNDER_SANITIZER();
  FakeTxnEngine engine(4);
  engine.SetWorkload([](FakeTable& t) {
    InsertOne(t);
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  });
  SnapshotManager manager(&engine, Options(&engine.table()));
  Lsn previous = 0;
  for (int i = 0; i < 300; ++i) {
    // Alternate forced refreshes with freshness-bounded acquires.
    const Lsn want = engine.Committed().lsn;
    if (i % 2 == 0) manager.Refresh();
    SnapshotLease lease = manager.Acquire(want);
    ASSERT_GE(lease.lsn(), want);
    ASSERT_GE(lease.lsn(), previous);
    previous = lease.lsn();
    auto batches = lease.Run("count_max");
    ASSERT_EQ(batches.size(), 1u);
    std::istringstream in(batches[0]);
    uint64_t count, max, rows;
    in >> count >> max >> rows;
    ASSERT_EQ(rows, lease.lsn()) << "iteration " << i;
    ASSERT_EQ(count, lease.lsn()) << "iteration " << i;
    ASSERT_EQ(max, lease.lsn()) << "iteration " << i;
  }
  engine.SetWorkload(nullptr);
  EXPECT_GT(previous, 0u);
  EXPECT_EQ(manager.stats().died, 0u);
}

TEST(SnapshotConsistency, BankSumNeverChangesOverThousandSnapshots) {
  FORKTAIL_SKIP_FORK_STRESS_UNDER_SANITIZER();
  constexpr size_t kAccounts = 2048;
  constexpr size_t kStride = 256;  // 2 KiB apart: spread over 2 blocks and many pages
  constexpr int64_t kInitial = 1000;
  constexpr uint32_t kSeed = 20261121;
  FakeTxnEngine engine(2);
  engine.Execute([&](FakeTable& t) {
    for (size_t i = 0; i < kAccounts; ++i) t.at(i * kStride) = kInitial;
  });
  std::mt19937 rng(kSeed);  // used only on the transaction thread
  engine.SetWorkload([&](FakeTable& t) {
    const size_t from = rng() % kAccounts, to = rng() % kAccounts;
    const int64_t amount = static_cast<int64_t>(rng() % 500);
    t.at(from * kStride) -= amount;
    t.at(to * kStride) += amount;
  });
  SnapshotOptions options = Options(&engine.table());
  options.ready_timeout_ms = 500;  // sanitizer builds: replace a child stuck at start quickly
  options.fork_attempts = 10;
  SnapshotManager manager(&engine, options);
  const std::string request = "sum " + std::to_string(kAccounts) + " " + std::to_string(kStride);
  // Forks are serial on the transaction thread; two long-lived query threads
  // sum the previous snapshots while the next one is forked.
  std::atomic<int> wrong{0};
  std::mutex mu;
  std::condition_variable cv;
  std::deque<SnapshotLease> queue;
  bool done = false;
  auto query_loop = [&] {
    for (;;) {
      SnapshotLease lease;
      {
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return done || !queue.empty(); });
        if (queue.empty()) return;
        lease = std::move(queue.front());
        queue.pop_front();
        cv.notify_all();
      }
      auto batches = lease.Run(request);
      if (batches.size() != 1 || batches[0] != std::to_string(kAccounts * kInitial)) {
        ++wrong;
        ADD_FAILURE() << "wrong sum " << (batches.empty() ? "" : batches[0]) << " at LSN "
                      << lease.lsn() << " (seed " << kSeed << ")";
      }
    }
  };
  std::thread q1(query_loop), q2(query_loop);
  Lsn first = 0, last = 0;
  for (int i = 0; i < 1000; ++i) {
    manager.Refresh();
    SnapshotLease lease = manager.Acquire();
    if (i == 0) first = lease.lsn();
    last = lease.lsn();
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return queue.size() < 4; });
    queue.push_back(std::move(lease));
    cv.notify_all();
  }
  {
    std::lock_guard lock(mu);
    done = true;
    cv.notify_all();
  }
  q1.join();
  q2.join();
  engine.SetWorkload(nullptr);
  EXPECT_EQ(wrong, 0);
  EXPECT_GT(last, first) << "transfers must run between the snapshots";
  EXPECT_GE(manager.stats().created, 1000u);
  std::printf("start failures (killed and reforked): %llu\n",
              static_cast<unsigned long long>(manager.stats().start_failures));
}

}  // namespace
}  // namespace forktail::testing
