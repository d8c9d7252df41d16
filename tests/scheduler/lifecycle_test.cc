// Queries' lives: elastic workers, cancellation, errors, admission by memory,
// the per-query memory budget, progress, shutdown and fork.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>
#include <unordered_set>

#include "storage/error.h"
#include "tests/scheduler/test_operators.h"

namespace forktail {
namespace {

using namespace std::chrono_literals;
using testing::Gate;
using testing::OperatorLog;
using testing::SourcePlan;

SchedulerOptions Workers(size_t n, size_t budget = size_t{1} << 30) {
  SchedulerOptions options;
  options.num_workers = n;
  options.memory_budget = budget;
  return options;
}

void ExpectError(const QueryHandle& handle, const char* sqlstate, const std::string& message) {
  try {
    handle.Wait();
    ADD_FAILURE() << "query succeeded";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate);
    EXPECT_EQ(e.what(), message);
  }
}

template <typename Fn>
void WaitUntil(Fn done) {
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!done()) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "condition never became true";
    std::this_thread::sleep_for(1ms);
  }
}

TEST(Lifecycle, ElasticResizeWhileAQueryRuns) {
  Scheduler scheduler(Workers(1));
  auto log = std::make_shared<OperatorLog>();
  auto threads = std::make_shared<std::pair<std::mutex, std::unordered_set<std::thread::id>>>();
  QueryHandle handle = scheduler.Submit(SourcePlan(
                                            600, 600,
                                            [threads](WorkOrderContext&, int64_t) {
                                              {
                                                std::lock_guard<std::mutex> lock(threads->first);
                                                threads->second.insert(std::this_thread::get_id());
                                              }
                                              testing::SpinFor(200us);
                                            },
                                            log),
                                        1, 1 << 20);
  WaitUntil([&] { return log->executed.load() >= 50; });
  scheduler.SetWorkerCount(3);
  EXPECT_EQ(scheduler.worker_count(), 3u);
  EXPECT_EQ(scheduler.live_workers(), 3u);
  WaitUntil([&] { return log->executed.load() >= 300; });
  scheduler.SetWorkerCount(1);
  WaitUntil([&] { return scheduler.live_workers() == 1; });  // leavers finished their order
  handle.Wait();
  EXPECT_EQ(log->executed.load(), 600);
  std::lock_guard<std::mutex> lock(threads->first);
  EXPECT_GE(threads->second.size(), 2u);
}

TEST(Lifecycle, ZeroWorkersPausesAndGrowingResumes) {
  Scheduler scheduler(Workers(0));
  auto log = std::make_shared<OperatorLog>();
  QueryHandle handle = scheduler.Submit(SourcePlan(100, 10, testing::Nothing(), log), 1, 1 << 20);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(log->executed.load(), 0);
  scheduler.SetWorkerCount(2);
  handle.Wait();
  EXPECT_EQ(log->executed.load(), 100);
}

TEST(Lifecycle, CancelStopsPromptlyAndFreesMemory) {
  Scheduler scheduler(Workers(2));
  auto log = std::make_shared<OperatorLog>();
  auto ran_to_end = std::make_shared<std::atomic<int>>(0);
  auto plan = SourcePlan(
      -1, 4,
      [ran_to_end](WorkOrderContext& c, int64_t) {
        c.memory().Allocate(1000);  // kept, like a hash table's buckets
        testing::SpinFor(std::chrono::seconds(20), &c);
        if (!c.IsCancelled()) ran_to_end->fetch_add(1);
      },
      log);
  std::shared_ptr<QueryMemory> memory = plan->memory();
  QueryHandle handle = scheduler.Submit(std::move(plan), 1, 1 << 20);
  WaitUntil([&] { return memory->used() >= 2000; });  // both workers inside a work order
  EXPECT_EQ(scheduler.admitted_memory(), size_t{1} << 20);
  scheduler.Cancel(handle.id());
  ExpectError(handle, sqlstate::kQueryCanceled, "canceling statement due to user request");
  EXPECT_EQ(ran_to_end->load(), 0);  // running work orders saw the flag
  EXPECT_EQ(memory->used(), 0u);
  EXPECT_EQ(scheduler.admitted_memory(), 0u);
  EXPECT_TRUE(scheduler.Progress().empty());
  scheduler.Cancel(handle.id());  // after the end: no-op
}

TEST(Lifecycle, CancelAQueuedQueryEndsItAtOnce) {
  Scheduler scheduler(Workers(2, 100));
  Gate gate;
  QueryHandle a = scheduler.Submit(
      SourcePlan(
          1, 1, [&](WorkOrderContext&, int64_t) { gate.Wait(); }, std::make_shared<OperatorLog>()),
      1, 80);
  auto b_log = std::make_shared<OperatorLog>();
  QueryHandle b = scheduler.Submit(SourcePlan(5, 5, testing::Nothing(), b_log), 1, 50);
  EXPECT_EQ(scheduler.queued_queries(), 1u);
  scheduler.Cancel(b.id());
  ExpectError(b, sqlstate::kQueryCanceled, "canceling statement due to user request");
  EXPECT_EQ(b_log->first_fetch_seq.load(), 0u);
  EXPECT_FALSE(a.Done());
  gate.Open();
  a.Wait();
}

TEST(Lifecycle, AnExceptionFailsOnlyItsQuery) {
  Scheduler scheduler(Workers(2));
  auto sum = std::make_shared<std::atomic<int64_t>>(0);
  QueryHandle bad =
      scheduler.Submit(SourcePlan(
                           1000, 10,
                           [](WorkOrderContext&, int64_t i) {
                             if (i == 5)
                               throw DbError(sqlstate::kDivisionByZero, "division by zero");
                           },
                           std::make_shared<OperatorLog>()),
                       1, 1 << 20);
  QueryHandle worse = scheduler.Submit(SourcePlan(
                                           1000, 10,
                                           [](WorkOrderContext&, int64_t i) {
                                             if (i == 7) throw std::runtime_error("bad thing");
                                           },
                                           std::make_shared<OperatorLog>()),
                                       1, 1 << 20);
  QueryHandle good =
      scheduler.Submit(SourcePlan(
                           1000, 10, [sum](WorkOrderContext&, int64_t i) { sum->fetch_add(i); },
                           std::make_shared<OperatorLog>()),
                       1, 1 << 20);
  ExpectError(bad, sqlstate::kDivisionByZero, "division by zero");
  ExpectError(worse, sqlstate::kInternalError, "bad thing");
  good.Wait();
  EXPECT_EQ(sum->load(), 999 * 1000 / 2);
}

class ThrowingFinalize : public RelationalOperator {
 public:
  std::string_view name() const override { return "Finalize"; }
  bool GetNextWorkOrders(WorkOrderSink&) override { return true; }
  void AllWorkOrdersFinished() override {
    throw DbError(sqlstate::kNumericValueOutOfRange, "integer out of range");
  }
};

TEST(Lifecycle, AnOperatorCallbackThatThrowsFailsTheQuery) {
  Scheduler scheduler(Workers(1));
  auto plan = std::make_unique<QueryPlan>();
  plan->AddOperator(std::make_unique<ThrowingFinalize>());
  ExpectError(scheduler.Submit(std::move(plan), 1, 0), sqlstate::kNumericValueOutOfRange,
              "integer out of range");
}

TEST(Lifecycle, AdmissionQueueIsFifo) {
  Scheduler scheduler(Workers(2, 100));
  Gate gate;
  auto a_log = std::make_shared<OperatorLog>();
  auto b_log = std::make_shared<OperatorLog>();
  auto c_log = std::make_shared<OperatorLog>();
  QueryHandle a =
      scheduler.Submit(SourcePlan(
                           1, 1, [&](WorkOrderContext&, int64_t) { gate.Wait(); }, a_log),
                       1, 60);
  QueryHandle b = scheduler.Submit(SourcePlan(3, 3, testing::Nothing(), b_log), 1, 50);
  QueryHandle c = scheduler.Submit(SourcePlan(3, 3, testing::Nothing(), c_log), 1, 10);
  EXPECT_EQ(scheduler.queued_queries(), 2u);  // c fits but must not pass b
  EXPECT_EQ(scheduler.admitted_memory(), 60u);
  EXPECT_EQ(b_log->first_fetch_seq.load(), 0u);
  EXPECT_EQ(c_log->first_fetch_seq.load(), 0u);
  gate.Open();
  a.Wait();
  b.Wait();
  c.Wait();
  EXPECT_LT(a_log->finished_seq.load(), b_log->first_fetch_seq.load());
  EXPECT_LT(b_log->first_fetch_seq.load(), c_log->first_fetch_seq.load());
  EXPECT_EQ(scheduler.admitted_memory(), 0u);
  EXPECT_EQ(scheduler.queued_queries(), 0u);
}

TEST(Lifecycle, AQueryBiggerThanTheBudgetFailsAtOnce) {
  Scheduler scheduler(Workers(1, 100));
  try {
    scheduler.Submit(std::make_unique<QueryPlan>(), 1, 101);
    FAIL() << "no error";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kOutOfMemory);
    EXPECT_STREQ(e.what(),
                 "query memory estimate of 101 bytes exceeds the scheduler's memory budget of "
                 "100 bytes");
  }
  EXPECT_THROW(scheduler.Submit(std::make_unique<QueryPlan>(), 0, 1), DbError);  // priority
}

TEST(Lifecycle, ExceedingTheQueryMemoryBudgetFailsOnlyThatQuery) {
  Scheduler scheduler(Workers(2));
  auto greedy_plan = SourcePlan(
      10, 10,
      [](WorkOrderContext& c, int64_t) {
        std::vector<char, QueryAllocator<char>> buffer(c.allocator<char>());
        buffer.resize(4000);
      },
      std::make_shared<OperatorLog>());
  std::shared_ptr<QueryMemory> memory = greedy_plan->memory();
  QueryHandle greedy = scheduler.Submit(std::move(greedy_plan), 1, 1000);
  auto log = std::make_shared<OperatorLog>();
  QueryHandle modest = scheduler.Submit(
      SourcePlan(
          10, 10, [](WorkOrderContext& c, int64_t) { c.memory().Allocate(100); }, log),
      1, 1000);
  ExpectError(greedy, sqlstate::kOutOfMemory, "query exceeded its memory budget of 1000 bytes");
  modest.Wait();
  EXPECT_EQ(log->executed.load(), 10);
  EXPECT_EQ(memory->used(), 0u);
}

TEST(Lifecycle, ProgressIsVisibleWhileRunningAndOnDoneRunsOnce) {
  Scheduler scheduler(Workers(1));
  Gate gate;
  auto calls = std::make_shared<std::atomic<int>>(0);
  QueryHandle handle = scheduler.Submit(
      SourcePlan(
          4, 4, [&](WorkOrderContext&, int64_t) { gate.Wait(); }, std::make_shared<OperatorLog>()),
      2, 1 << 20, [calls](const QueryHandle& h) {
        EXPECT_TRUE(h.Done());
        calls->fetch_add(1);
      });
  std::vector<QueryProgress> progress = scheduler.Progress();
  ASSERT_EQ(progress.size(), 1u);
  EXPECT_EQ(progress[0].priority, 2);
  EXPECT_EQ(progress[0].memory_limit, size_t{1} << 20);
  EXPECT_EQ(progress[0].operators[0].work_orders_total, 4u);
  EXPECT_EQ(progress[0].operators[0].work_orders_done, 0u);
  const std::string text = scheduler.FormatProgress();
  EXPECT_NE(text.find("Source"), std::string::npos) << text;
  EXPECT_NE(text.find("0/4"), std::string::npos) << text;
  gate.Open();
  handle.Wait();
  EXPECT_EQ(handle.FinalProgress().operators[0].work_orders_done, 4u);
  WaitUntil([&] { return calls->load() == 1; });
}

TEST(Lifecycle, DestroyingTheSchedulerEndsRunningAndQueuedQueries) {
  QueryHandle running, queued;
  {
    Scheduler scheduler(Workers(1, 100));
    running =
        scheduler.Submit(SourcePlan(
                             -1, 2, [](WorkOrderContext& c, int64_t) { testing::SpinFor(20s, &c); },
                             std::make_shared<OperatorLog>()),
                         1, 100);
    queued = scheduler.Submit(std::make_unique<QueryPlan>(), 1, 50);
  }
  const std::string message = "terminating statement because the scheduler is shutting down";
  ExpectError(running, sqlstate::kAdminShutdown, message);
  ExpectError(queued, sqlstate::kAdminShutdown, message);
}

TEST(Lifecycle, AForkedChildStartsItsOwnScheduler) {
  // Nothing runs before a Scheduler exists, so a snapshot process can fork
  // first and then build its scheduler.
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    Scheduler scheduler(Workers(2));
    auto log = std::make_shared<OperatorLog>();
    scheduler.Submit(SourcePlan(100, 10, testing::Nothing(), log), 1, 1 << 20).Wait();
    _exit(log->executed.load() == 100 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace forktail
