// Snapshot process lifecycle: death of a child mid-request, retirement,
// lifetime kill, caps, refresh policies, memory accounting, the listing.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include <chrono>
#include <thread>

#include "fake_txn_engine.h"
#include "snapshot/snapshot.h"
#include "test_handler.h"

namespace forktail::testing {
namespace {

using namespace std::chrono_literals;

SnapshotOptions Options(FakeTable* table) {
  SnapshotOptions o;
  o.handler = MakeTestHandler(table);
  return o;
}

// Polls `pred` for up to 10 s (the policy thread acts within a few ticks).
template <typename Pred>
bool WaitFor(Pred pred) {
  for (int i = 0; i < 2000; ++i) {
    if (pred()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return pred();
}

std::string Expect(SnapshotQuery& q, const char* sqlstate) {
  std::string batch;
  try {
    while (q.Next(&batch)) {
    }
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected an error " << sqlstate;
  return "";
}

TEST(SnapshotLifecycle, SnapshotProcessesRunAtTheConfiguredNiceValue) {
  FakeTxnEngine engine(1);
  const int parent = getpriority(PRIO_PROCESS, 0);
  for (int nice : {7, 0}) {
    SnapshotOptions o = Options(&engine.table());
    o.nice = nice;
    SnapshotManager manager(&engine, o);
    SnapshotLease lease = manager.Acquire();
    errno = 0;
    const int child = getpriority(PRIO_PROCESS, lease.pid());
    ASSERT_EQ(errno, 0);
    EXPECT_EQ(child, nice == 0 ? parent : nice) << "nice option " << nice;
  }
}

TEST(SnapshotLifecycle, KilledChildFailsItsRequestAndTheNextSnapshotWorks) {
  FakeTxnEngine engine(1);
  engine.Execute([](FakeTable& t) { t.at(0) = 7; });
  SnapshotManager manager(&engine, Options(&engine.table()));
  SnapshotLease lease = manager.Acquire();
  auto query = lease.Start("hang");
  std::string batch;
  ASSERT_TRUE(query->Next(&batch));
  EXPECT_EQ(batch, "started");
  ASSERT_EQ(kill(lease.pid(), SIGKILL), 0);
  const std::string message = Expect(*query, snapshot_sqlstate::kCrashShutdown);
  EXPECT_EQ(message, "snapshot process " + std::to_string(lease.pid()) + " (LSN " +
                         std::to_string(lease.lsn()) + ") died: killed by signal 9");
  // Even a new request on the dead snapshot gets the same clear error.
  try {
    lease.Run("sum 1 1");
    ADD_FAILURE() << "request on a dead snapshot succeeded";
  } catch (const DbError& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
  const pid_t dead_pid = lease.pid();
  lease.Release();
  SnapshotLease next = manager.Acquire();
  EXPECT_NE(next.pid(), dead_pid);
  EXPECT_EQ(next.Run("sum 1 1"), std::vector<std::string>{"7"});
  EXPECT_EQ(manager.stats().died, 1u);
}

TEST(SnapshotLifecycle, HandlerErrorsCarryTheirSqlstate) {
  FakeTxnEngine engine(1);
  SnapshotManager manager(&engine, Options(&engine.table()));
  SnapshotLease lease = manager.Acquire();
  auto q1 = lease.Start("fail");
  EXPECT_EQ(Expect(*q1, sqlstate::kDivisionByZero), "division by zero");
  auto q2 = lease.Start("throw");
  EXPECT_EQ(Expect(*q2, sqlstate::kInternalError), "something broke");
  auto q3 = lease.Start("bogus");
  Expect(*q3, sqlstate::kSyntaxError);
  EXPECT_EQ(lease.Run("batches 3"), (std::vector<std::string>{"0", "1", "2"}));
}

TEST(SnapshotLifecycle, CancelStopsARunningRequest) {
  FakeTxnEngine engine(1);
  SnapshotManager manager(&engine, Options(&engine.table()));
  SnapshotLease lease = manager.Acquire();
  auto query = lease.Start("hang");
  std::string batch;
  ASSERT_TRUE(query->Next(&batch));
  std::thread canceler([&] { query->Cancel(); });
  EXPECT_EQ(Expect(*query, sqlstate::kQueryCanceled), "canceling statement due to user request");
  canceler.join();
  EXPECT_EQ(lease.Run("batches 1"), std::vector<std::string>{"0"});
}

TEST(SnapshotLifecycle, OldSnapshotRetiresWhenIdleAndNewOneDoesNotWait) {
  FakeTxnEngine engine(1);
  SnapshotManager manager(&engine, Options(&engine.table()));
  SnapshotLease old_lease = manager.Acquire();
  auto busy = old_lease.Start("hang");
  std::string batch;
  ASSERT_TRUE(busy->Next(&batch));
  engine.Execute([](FakeTable& t) { t.at(0) = 1; });
  manager.Refresh();  // does not wait for the old snapshot's request
  SnapshotLease new_lease = manager.Acquire();
  EXPECT_GT(new_lease.lsn(), old_lease.lsn());
  EXPECT_EQ(new_lease.Run("sum 1 1"), std::vector<std::string>{"1"});
  auto list = manager.List();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_TRUE(list[0].retired);
  EXPECT_EQ(list[0].running, 1u);
  EXPECT_FALSE(list[1].retired);
  // The old snapshot still serves its running request.
  busy->Cancel();
  Expect(*busy, sqlstate::kQueryCanceled);
  busy.reset();
  const pid_t old_pid = old_lease.pid();
  old_lease.Release();
  ASSERT_TRUE(WaitFor([&] { return manager.stats().exited_normally == 1; }));
  list = manager.List();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_NE(list[0].pid, old_pid);
  EXPECT_EQ(manager.stats().died, 0u);
}

TEST(SnapshotLifecycle, KilledPastItsLifetime) {
  FakeTxnEngine engine(1);
  SnapshotOptions o = Options(&engine.table());
  o.max_lifetime_ms = 300;
  SnapshotManager manager(&engine, o);
  SnapshotLease lease = manager.Acquire();
  auto query = lease.Start("hang");
  const std::string message = Expect(*query, sqlstate::kAdminShutdown);
  EXPECT_EQ(message, "snapshot process " + std::to_string(lease.pid()) + " (LSN " +
                         std::to_string(lease.lsn()) +
                         ") was terminated: it exceeded its lifetime of 300 ms");
  lease.Release();
  EXPECT_EQ(manager.stats().killed, 1u);
  EXPECT_EQ(manager.Acquire().Run("batches 1"), std::vector<std::string>{"0"});
}

TEST(SnapshotLifecycle, RefusesBeyondMaxLiveSnapshots) {
  FakeTxnEngine engine(1);
  SnapshotOptions o = Options(&engine.table());
  o.max_live_snapshots = 2;
  o.cap_wait_ms = 1000;
  SnapshotManager manager(&engine, o);
  SnapshotLease a = manager.Acquire();
  auto qa = a.Start("hang");
  manager.Refresh();
  SnapshotLease b = manager.Acquire();
  auto qb = b.Start("hang");
  try {
    manager.Refresh();
    ADD_FAILURE() << "third snapshot was allowed";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), snapshot_sqlstate::kInsufficientResources);
    EXPECT_EQ(std::string(e.what()),
              "too many snapshot processes: 2 live (max_live_snapshots = 2)");
  }
  EXPECT_EQ(manager.stats().refused, 1u);
  qa.reset();
  a.Release();  // the old one retires and exits: room again
  manager.Refresh();
  EXPECT_EQ(manager.stats().created, 3u);
}

TEST(SnapshotLifecycle, FreshnessBound) {
  FakeTxnEngine engine(1);
  SnapshotManager manager(&engine, Options(&engine.table()));
  const Lsn first = manager.Acquire().lsn();
  EXPECT_EQ(manager.Acquire(first).lsn(), first);  // fresh enough: reused
  engine.Execute([](FakeTable& t) { t.at(0) = 5; });
  const Lsn committed = engine.Committed().lsn;
  SnapshotLease lease = manager.Acquire(committed);  // read-your-writes
  EXPECT_GE(lease.lsn(), committed);
  EXPECT_EQ(lease.Run("sum 1 1"), std::vector<std::string>{"5"});
  try {
    manager.Acquire(committed + 100);
    ADD_FAILURE() << "snapshot from the future";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kInvalidParameterValue);
  }
}

TEST(SnapshotLifecycle, RefreshByCommitsAndByAge) {
  FakeTxnEngine engine(1);
  SnapshotOptions o = Options(&engine.table());
  o.refresh_after_commits = 1000;
  SnapshotManager by_commits(&engine, o);
  ASSERT_TRUE(WaitFor([&] { return by_commits.stats().created == 1; }));  // the first one
  engine.SetWorkload([](FakeTable& t) { ++t.at(0); });
  EXPECT_TRUE(WaitFor([&] { return by_commits.stats().created >= 3; }));
  engine.SetWorkload(nullptr);

  o.refresh_after_commits = 0;
  o.refresh_interval_ms = 20;
  SnapshotManager by_age(&engine, o);
  ASSERT_TRUE(WaitFor([&] { return by_age.stats().created == 1; }));
  std::this_thread::sleep_for(100ms);  // nothing committed: no refresh
  EXPECT_EQ(by_age.stats().created, 1u);
  engine.Execute([](FakeTable& t) { ++t.at(0); });
  EXPECT_TRUE(WaitFor([&] { return by_age.stats().created == 2; }));
}

TEST(SnapshotLifecycle, CopiedMemoryIsAccountedAndCapped) {
  FakeTxnEngine engine(8);
  SnapshotOptions o = Options(&engine.table());
  o.memory_poll_ms = 10;
  o.max_copied_bytes = 8u << 20;
  SnapshotManager manager(&engine, o);
  SnapshotLease old_lease = manager.Acquire();
  auto busy = old_lease.Start("hang");
  std::string batch;
  ASSERT_TRUE(busy->Next(&batch));
  // The parent writes every 4 KiB page of 6 blocks: the old snapshot now
  // holds 12 MiB that nobody else maps.
  engine.Execute([](FakeTable& t) {
    for (size_t b = 0; b < 6; ++b) {
      for (size_t i = 0; i < kSlotsPerBlock; i += 512) t.block(b)[i] = 1;
    }
  });
  ASSERT_TRUE(WaitFor([&] {
    auto list = manager.List();
    return !list.empty() && list[0].memory.copied_bytes() >= (12u << 20);
  }));
  // Still the newest: the cap makes a fresh snapshot, then kills the old one.
  const std::string message = Expect(*busy, sqlstate::kOutOfMemory);
  EXPECT_NE(message.find("was terminated: the snapshots' copied memory"), std::string::npos)
      << message;
  const pid_t old_pid = old_lease.pid();
  busy.reset();
  old_lease.Release();
  SnapshotLease lease = manager.Acquire();
  EXPECT_NE(lease.pid(), old_pid);
  EXPECT_EQ(lease.Run("sum 1 1"), std::vector<std::string>{"1"});
  EXPECT_EQ(manager.stats().killed, 1u);
}

TEST(SnapshotLifecycle, ListingAndReadProcessMemory) {
  FakeTxnEngine engine(1);
  SnapshotOptions o = Options(&engine.table());
  o.memory_poll_ms = 10;
  SnapshotManager manager(&engine, o);
  SnapshotLease lease = manager.Acquire();
  ASSERT_TRUE(WaitFor([&] { return manager.List().at(0).memory.rss_bytes > 0; }));
  auto list = manager.List();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].pid, lease.pid());
  EXPECT_EQ(list[0].lsn, lease.lsn());
  EXPECT_EQ(list[0].running, 1u);
  EXPECT_GT(list[0].memory.shared_bytes(), 0u);
  const std::string table = FormatSnapshotTable(list);
  EXPECT_NE(table.find("copied_kib"), std::string::npos);
  EXPECT_NE(table.find(std::to_string(lease.pid())), std::string::npos);
  ProcessMemory mine;
  ASSERT_TRUE(ReadProcessMemory(getpid(), &mine).ok());
  EXPECT_GT(mine.rss_bytes, 0u);
  EXPECT_EQ(ReadProcessMemory(0x7ffffff0, &mine).code(), Status::Code::kNotFound);
}

}  // namespace
}  // namespace forktail::testing

namespace forktail::testing {
namespace {

// State letter from /proc/PID/stat, or 0 when the process is gone.
char ProcessState(pid_t pid) {
  FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (!f) return 0;
  char state = 0;
  if (std::fscanf(f, "%*d (%*[^)]) %c", &state) != 1) state = 0;
  std::fclose(f);
  return state;
}

TEST(SnapshotLifecycleDeathTest, SnapshotProcessLeavesWhenItsParentDies) {
  GTEST_FLAG_SET(death_test_style, "fast");  // the statement runs in a fork of this process
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  EXPECT_EXIT(
      {
        FakeTxnEngine engine(1);
        SnapshotOptions o;
        o.handler = MakeTestHandler(&engine.table());
        auto* manager = new SnapshotManager(&engine, o);  // never destroyed: the parent "crashes"
        SnapshotLease lease = manager->Acquire();
        const pid_t pid = lease.pid();
        (void)!write(fds[1], &pid, sizeof(pid));
        _exit(0);
      },
      ::testing::ExitedWithCode(0), "");
  pid_t pid = 0;
  ASSERT_EQ(read(fds[0], &pid, sizeof(pid)), static_cast<ssize_t>(sizeof(pid)));
  close(fds[0]);
  close(fds[1]);
  // Control channel EOF = retire: the orphan exits (gone, or a zombie of init).
  EXPECT_TRUE(WaitFor([&] {
    const char s = ProcessState(pid);
    return s == 0 || s == 'Z';
  })) << "snapshot process "
      << pid << " outlived its parent";
}

}  // namespace
}  // namespace forktail::testing
