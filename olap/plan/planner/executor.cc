#include "olap/plan/planner/executor.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "storage/error.h"

namespace forktail {
namespace {

DbError Canceled() {
  return DbError(sqlstate::kQueryCanceled, "canceling statement due to user request");
}

bool IsSet(const std::atomic<bool>* flag) {
  return flag != nullptr && flag->load(std::memory_order_relaxed);
}

}  // namespace

PlanOptions PlanOptionsFor(const Scheduler& scheduler, const ExecuteOptions& options) {
  PlanOptions p;
  p.parallelism =
      options.parallelism > 0 ? options.parallelism : static_cast<int>(scheduler.worker_count());
  if (p.parallelism < 1) p.parallelism = 1;
  p.max_memory = std::max(p.min_memory, options.max_memory);
  p.index_only_row_limit = options.index_only_row_limit;
  return p;
}

ExecutionProfile RunPhysicalPlan(Scheduler& scheduler, PhysicalPlan& plan,
                                 const ExecuteOptions& options) {
  if (IsSet(options.cancel)) throw Canceled();
  struct Done {
    std::mutex mutex;
    std::condition_variable cv;
    bool done = false;
  };
  auto done = std::make_shared<Done>();
  const auto start = std::chrono::steady_clock::now();
  size_t estimate = options.memory_estimate != 0 ? options.memory_estimate : plan.memory_estimate;
  plan.plan->set_memory_limit(options.memory_limit);
  QueryHandle handle = scheduler.Submit(std::move(plan.plan), options.priority, estimate,
                                        [done](const QueryHandle&) {
                                          std::lock_guard<std::mutex> lock(done->mutex);
                                          done->done = true;
                                          done->cv.notify_all();
                                        });
  bool cancel_sent = false;
  {
    std::unique_lock<std::mutex> lock(done->mutex);
    while (!done->done) {
      done->cv.wait_for(lock, std::chrono::milliseconds(5));
      if (!done->done && !cancel_sent && IsSet(options.cancel)) {
        cancel_sent = true;
        lock.unlock();
        scheduler.Cancel(handle.id());
        lock.lock();
      }
    }
  }
  handle.Wait();  // rethrows the query's error (57014 after a cancel)
  ExecutionProfile profile;
  profile.progress = handle.FinalProgress();
  profile.elapsed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return profile;
}

QueryResult ExecuteQuery(Scheduler& scheduler, const LogicalOp& root, const Catalog& catalog,
                         const ExecuteOptions& options) {
  PhysicalPlan plan = Plan(root, catalog, PlanOptionsFor(scheduler, options));
  RunPhysicalPlan(scheduler, plan, options);
  QueryResult result;
  for (size_t i = 0; i < plan.column_names.size(); ++i) {
    result.columns.push_back({plan.column_names[i], plan.column_types[i]});
  }
  result.rows = std::move(plan.result->rows);
  return result;
}

}  // namespace forktail
