// Fork-safety rules under stress: forks while other parent threads allocate,
// log through a mutex-protected logger and hold std::mutexes; every child
// must run its work (malloc, a thread of its own) and exit normally.
// Plus ForkExclusions: excluded memory is not mapped in a child, excluded
// descriptors are closed there.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "fake_txn_engine.h"
#include "snapshot/snapshot.h"
#include "test_handler.h"
#include "tests/common/sanitizer_fork.h"

namespace forktail::testing {
namespace {

using namespace std::chrono_literals;

// A parent-side logger: a mutex and a FILE, like any logging library.
class Logger {
 public:
  Logger() : file_(std::fopen("/dev/null", "w")) {}
  ~Logger() { std::fclose(file_); }
  void Log(int i) {
    std::lock_guard lock(mu_);
    std::fprintf(file_, "log line %d with some text to format %f\n", i, i * 0.5);
  }

 private:
  std::mutex mu_;
  std::FILE* file_;
};

TEST(ForkSafety, TwoHundredForksWhileOtherThreadsAllocateLogAndLock) {
  FORKTAIL_SKIP_FORK_STRESS_UNDER_SANITIZER();
  constexpr uint32_t kSeed = 4242;
  FakeTxnEngine engine(1);
  engine.SetWorkload([](FakeTable& t) {
    std::vector<int64_t> undo(16, t.at(0));  // transactions allocate too
    ++t.at(0);
  });
  SnapshotOptions o;
  o.handler = MakeTestHandler(&engine.table());
  o.max_lifetime_ms = 30'000;  // a stuck child would fail its request, not hang the test
  o.ready_timeout_ms = 250;    // sanitizer builds: replace a child stuck at start quickly
  o.fork_attempts = 20;
  SnapshotManager manager(&engine, o);

  std::atomic<bool> stop{false};
  Logger logger;
  std::mutex held;
  std::vector<std::thread> busy;
  for (int t = 0; t < 2; ++t) {
    busy.emplace_back([&, t] {  // malloc/free of every size, across threads
      std::mt19937 rng(kSeed + t);
      std::vector<void*> live(64, nullptr);
      while (!stop.load(std::memory_order_relaxed)) {
        void*& slot = live[rng() % live.size()];
        free(slot);
        slot = malloc(1 + rng() % (1u << (rng() % 18)));
      }
      for (void* p : live) free(p);
    });
  }
  busy.emplace_back([&] {
    for (int i = 0; !stop.load(std::memory_order_relaxed); ++i) logger.Log(i);
  });
  busy.emplace_back([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      std::lock_guard lock(held);  // held at many fork instants
      std::this_thread::sleep_for(50us);
    }
  });
  busy.emplace_back([&] {  // threads come and go in the parent
    while (!stop.load(std::memory_order_relaxed)) std::thread([] {}).join();
  });

  int ok = 0;
  try {
    for (int i = 0; i < 200; ++i) {
      manager.Refresh();
      SnapshotLease lease = manager.Acquire();
      auto batches = lease.Run("work");
      if (batches == std::vector<std::string>{"ok"}) ++ok;
    }
  } catch (const DbError& e) {
    ADD_FAILURE() << e.sqlstate() << " " << e.what();
  }
  stop = true;
  for (auto& t : busy) t.join();
  engine.SetWorkload(nullptr);
  EXPECT_EQ(ok, 200) << "seed " << kSeed;
  // All but the newest have been retired; each must exit with status 0.
  ASSERT_TRUE([&] {
    for (int i = 0; i < 2000 && manager.stats().exited_normally < 199; ++i) {
      std::this_thread::sleep_for(5ms);
    }
    return manager.stats().exited_normally >= 199;
  }()) << "exited normally: "
       << manager.stats().exited_normally;
  const SnapshotStats stats = manager.stats();
  EXPECT_EQ(stats.died, 0u);
  EXPECT_EQ(stats.killed, 0u);
  std::printf("start failures (killed and reforked): %llu\n",
              static_cast<unsigned long long>(stats.start_failures));
}

TEST(ForkSafety, ExcludedMemoryIsNotMappedInTheChild) {
  FakeTxnEngine engine(1);
  SnapshotOptions o;
  o.handler = MakeTestHandler(&engine.table());
  SnapshotManager manager(&engine, o);
  constexpr size_t kBytes = 1u << 20;
  auto* ring = static_cast<int64_t*>(AllocateDontForkBuffer(kBytes, "test ring"));
  ring[0] = 99;
  EXPECT_GE(ForkExclusions::Global().ExcludedBytes(), kBytes);
  char request[64];
  std::snprintf(request, sizeof(request), "read %llx",
                static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(ring)));
  {
    SnapshotLease lease = manager.Acquire();
    try {
      lease.Run(request);
      ADD_FAILURE() << "the child could read MADV_DONTFORK memory";
    } catch (const DbError& e) {
      // SIGSEGV, or under ASan its report and exit code.
      EXPECT_NE(std::string(e.what()).find(") died: "), std::string::npos) << e.what();
    }
  }
  FreeDontForkBuffer(ring, kBytes);
  // Memory that is not excluded is readable in the child.
  auto* plain = static_cast<int64_t*>(
      mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  plain[0] = 77;
  std::snprintf(request, sizeof(request), "read %llx",
                static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(plain)));
  EXPECT_EQ(manager.Acquire().Run(request), std::vector<std::string>{"77"});
  munmap(plain, kBytes);
}

TEST(ForkSafety, ExcludedDescriptorsAreClosedInTheChild) {
  FakeTxnEngine engine(1);
  SnapshotOptions o;
  o.handler = MakeTestHandler(&engine.table());
  SnapshotManager manager(&engine, o);
  // High descriptor numbers: the child's own accept() reuses low free ones.
  int pipe_a[2], pipe_b[2];
  ASSERT_EQ(pipe(pipe_a), 0);
  ASSERT_EQ(pipe(pipe_b), 0);
  int excluded[2] = {fcntl(pipe_a[0], F_DUPFD, 700), pipe_a[1]};
  int kept[2] = {fcntl(pipe_b[0], F_DUPFD, 800), pipe_b[1]};
  close(pipe_a[0]);
  close(pipe_b[0]);
  ForkExclusions::Global().ExcludeFd(excluded[0]);
  SnapshotLease lease = manager.Acquire();
  EXPECT_EQ(lease.Run("fd " + std::to_string(excluded[0])), std::vector<std::string>{"closed"});
  EXPECT_EQ(lease.Run("fd " + std::to_string(kept[0])), std::vector<std::string>{"open"});
  ForkExclusions::Global().IncludeFd(excluded[0]);
  for (int fd : {excluded[0], excluded[1], kept[0], kept[1]}) close(fd);
}

}  // namespace
}  // namespace forktail::testing
