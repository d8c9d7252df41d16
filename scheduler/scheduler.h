// The scheduler: runs the work orders of several analytical queries at once on
// a pool of worker threads. This is the module's public door; other modules
// include only this header.
//
// Model (Quickstep's, VLDB 2018, with morsel-driven elasticity from Leis et
// al., SIGMOD 2014). A query is a QueryPlan: a DAG of RelationalOperators whose
// edges pipeline or block. Operators yield WorkOrders — one per input block or
// partition — and the scheduler hands them to workers one at a time:
//
//   Submit --> LoadController --(admitted by memory)--> QueryExecution per query
//                  | FIFO queue                            | ready work orders
//                  v                                        v
//              (waits)            free worker --> PolicyEnforcer picks a query
//                                                  (probabilities from the
//                                                   LearningAgent's predicted
//                                                   work-order times)
//   worker: Execute() outside any lock --> completion: LearningAgent learns the
//   time, ProgressMonitor counts it, emitted blocks go to consumers, operators
//   are asked for more work; a query whose operators are all done ends.
//
// Quickstep runs these decisions on a dedicated Foreman thread fed by message
// queues. Here the "foreman" is the code a worker runs under the scheduler
// mutex between two work orders: the same decisions with two fewer thread
// hand-offs per work order, and no thread that idles while workers are busy.
//
// Threads. Worker threads are started by the Scheduler's constructor and by
// SetWorkerCount — never by static initialization — so a fork()ed snapshot
// process builds its own Scheduler after the fork. Workers are stateless and
// pinned to CPUs (worker_affinity.h). Operator callbacks run under the
// scheduler mutex on a worker (or the submitting thread); work orders run
// without it. Query completion (destroying operators, releasing memory,
// completing the handle, the on_done callback) runs outside the mutex, on the
// thread that finished the query's last work order or called Cancel/Submit.
//
// Invariants:
//  - A consumer on a blocking edge gets no GetNextWorkOrders call before its
//    producer's AllWorkOrdersFinished returned.
//  - Sum of admitted queries' memory estimates <= memory budget; each query's
//    QueryMemory is limited to its estimate (53200 beyond it).
//  - A query ends exactly once; when its handle is Done its operators are
//    destroyed and its memory is released. An error in one query never ends
//    another.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "scheduler/learning_agent.h"
#include "scheduler/load_controller.h"
#include "scheduler/policy_enforcer.h"
#include "scheduler/progress_monitor.h"
#include "scheduler/query_execution.h"
#include "scheduler/query_handle.h"
#include "scheduler/query_memory.h"
#include "scheduler/query_plan.h"
#include "scheduler/relational_operator.h"
#include "scheduler/work_order.h"

namespace forktail {

struct SchedulerOptions {
  // Worker threads started by the constructor (SetWorkerCount changes it later).
  size_t num_workers = 2;
  SchedulingPolicy policy = SchedulingPolicy::kFair;
  // Upper bound on the sum of admitted queries' memory estimates.
  size_t memory_budget = size_t{1} << 30;
  // Hyrise's ImmediateExecutionScheduler: no threads at all; Submit runs the
  // query to completion on the calling thread, one work order at a time, in a
  // reproducible order. For debugging and deterministic tests; one submitter.
  bool immediate = false;
  // Pin worker k to the k-th allowed CPU; failure to pin is ignored.
  bool pin_workers = true;
  // Seeds the policy enforcer's random draws.
  uint64_t seed = 0x5eed;
};

class Scheduler {
 public:
  explicit Scheduler(SchedulerOptions options = {});
  // Ends queries still running or queued with 57P01 and joins the workers.
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Queues the plan for admission. priority >= 1 (22023 otherwise); an
  // estimate above the whole budget throws DbError 53200 at once. The estimate
  // is also the hard cap of the plan's QueryMemory: allocating beyond it fails
  // the query with 53200. on_done runs
  // once the query ended (see the threads note above). In immediate mode,
  // returns only after the query ended.
  QueryHandle Submit(std::unique_ptr<QueryPlan> plan, int priority, size_t memory_estimate,
                     std::function<void(const QueryHandle&)> on_done = {});

  // Stops handing out the query's work orders, raises its cancel flag, and ends
  // it with 57014 "canceling statement due to user request" once its running
  // work orders returned. A queued query ends at once. No-op after the end.
  void Cancel(QueryId query);

  // Grows or shrinks the pool while queries run; a leaving worker finishes its
  // current work order first. Ignored in immediate mode.
  void SetWorkerCount(size_t count);
  size_t worker_count() const;  // the target
  size_t live_workers() const;  // threads currently in the pool

  // Every admitted, unfinished query with its operators and memory use.
  std::vector<QueryProgress> Progress() const;
  std::string FormatProgress() const { return ProgressMonitor::Format(Progress()); }
  size_t admitted_memory() const;
  size_t queued_queries() const;

 private:
  struct Worker {
    std::thread thread;
    bool exited = false;
  };
  struct Queued {
    std::unique_ptr<QueryPlan> plan;
    int priority;
    size_t estimate;
    QueryHandle handle;
  };
  struct Picked {
    QueryExecution* query = nullptr;
    QueryExecution::Task task;
    const std::atomic<bool>* cancelled = nullptr;
    std::shared_ptr<QueryMemory> memory;
  };
  struct Executed {
    uint64_t nanos = 0;
    std::vector<StreamBlockPtr> blocks;
    std::exception_ptr error;
  };
  struct Ended {
    QueryHandle handle;
    std::exception_ptr error;
    QueryProgress progress;
    std::unique_ptr<QueryPlan> plan;
  };

  void WorkerMain(Worker* self, int cpu);
  bool RunOne();  // immediate mode: one work order of any query
  bool PickLocked(Picked* picked);
  static Executed Execute(Picked& picked);
  void CompleteLocked(Picked& picked, Executed executed);
  void AdmitLocked(QueryId query);
  void CollectEndedLocked();
  static void Finish(std::vector<Ended> ended);
  void SpawnWorkersLocked();

  const SchedulerOptions options_;
  const std::vector<int> cpus_;
  mutable std::mutex mutex_;
  std::condition_variable work_cv_;
  LoadController load_;
  PolicyEnforcer policy_;
  LearningAgent agent_;
  ProgressMonitor progress_;
  std::map<QueryId, std::unique_ptr<QueryExecution>> running_;
  std::map<QueryId, Queued> queued_;
  std::vector<Ended> ended_;  // collected under the mutex, finished outside it
  QueryId next_query_ = 1;
  std::list<Worker> workers_;
  size_t target_workers_ = 0;
  size_t live_workers_ = 0;
  size_t next_cpu_ = 0;
  bool shutdown_ = false;
};

}  // namespace forktail
