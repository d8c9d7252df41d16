#include "scheduler/scheduler.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "scheduler/worker_affinity.h"
#include "storage/error.h"

namespace forktail {

namespace {

std::exception_ptr CanceledError() {
  return std::make_exception_ptr(
      DbError(sqlstate::kQueryCanceled, "canceling statement due to user request"));
}

std::exception_ptr ShutdownError() {
  return std::make_exception_ptr(DbError(
      sqlstate::kAdminShutdown, "terminating statement because the scheduler is shutting down"));
}

}  // namespace

Scheduler::Scheduler(SchedulerOptions options)
    : options_(options),
      cpus_(AllowedCpus()),
      load_(options.memory_budget),
      policy_(options.policy, options.seed) {
  if (!options_.immediate) SetWorkerCount(options_.num_workers);
}

Scheduler::~Scheduler() {
  std::vector<Ended> ended;
  std::list<Worker> workers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shutdown_ = true;
    for (auto& [id, query] : running_) query->Fail(ShutdownError());
    for (auto& [id, queued] : queued_) {
      load_.RemoveQueued(id);
      ended_.push_back(Ended{queued.handle, ShutdownError(), QueryProgress{.query = id},
                             std::move(queued.plan)});
    }
    queued_.clear();
    CollectEndedLocked();
    ended.swap(ended_);
  }
  work_cv_.notify_all();
  Finish(std::move(ended));
  // Workers finish their current work order (ending its query if it was the
  // last one) and leave; no new worker can be spawned once shutdown_ is set.
  {
    std::lock_guard<std::mutex> lock(mutex_);
    workers.swap(workers_);
  }
  for (Worker& worker : workers) worker.thread.join();
}

QueryHandle Scheduler::Submit(std::unique_ptr<QueryPlan> plan, int priority, size_t memory_estimate,
                              std::function<void(const QueryHandle&)> on_done) {
  if (priority < 1) {
    throw DbError(sqlstate::kInvalidParameterValue, "query priority must be at least 1");
  }
  load_.CheckFits(memory_estimate);  // the budget is constant: no lock needed
  plan->memory()->SetLimit(std::max(memory_estimate, plan->memory_limit()));
  auto state = std::make_shared<QueryHandle::State>();
  state->on_done = std::move(on_done);
  QueryHandle handle(state);
  std::vector<Ended> ended;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (shutdown_) throw DbError(sqlstate::kAdminShutdown, "the scheduler is shutting down");
    const QueryId id = next_query_++;
    state->id = id;
    queued_.emplace(id, Queued{std::move(plan), priority, memory_estimate, handle});
    if (load_.Offer(id, memory_estimate)) AdmitLocked(id);
    CollectEndedLocked();
    ended.swap(ended_);
  }
  work_cv_.notify_all();
  Finish(std::move(ended));
  if (options_.immediate) {
    while (!handle.Done()) {
      if (!RunOne()) std::this_thread::yield();
    }
  }
  return handle;
}

void Scheduler::Cancel(QueryId query) {
  std::vector<Ended> ended;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = queued_.find(query); it != queued_.end() && load_.RemoveQueued(query)) {
      ended_.push_back(Ended{it->second.handle, CanceledError(), QueryProgress{.query = query},
                             std::move(it->second.plan)});
      queued_.erase(it);
      for (QueryId admitted : load_.AdmitWaiting()) AdmitLocked(admitted);
    } else if (auto run = running_.find(query); run != running_.end()) {
      run->second->Fail(CanceledError());
    }
    CollectEndedLocked();
    ended.swap(ended_);
  }
  work_cv_.notify_all();
  Finish(std::move(ended));
}

void Scheduler::SetWorkerCount(size_t count) {
  if (options_.immediate) return;
  std::list<Worker> exited;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (shutdown_) return;
    target_workers_ = count;
    SpawnWorkersLocked();
    for (auto it = workers_.begin(); it != workers_.end();) {
      auto next = std::next(it);
      if (it->exited) exited.splice(exited.end(), workers_, it);
      it = next;
    }
  }
  work_cv_.notify_all();  // surplus workers wake up and leave
  for (Worker& worker : exited) worker.thread.join();
}

void Scheduler::SpawnWorkersLocked() {
  while (live_workers_ < target_workers_) {
    workers_.emplace_back();
    Worker* worker = &workers_.back();
    const int cpu = cpus_[next_cpu_++ % cpus_.size()];
    ++live_workers_;
    worker->thread = std::thread(&Scheduler::WorkerMain, this, worker, cpu);
  }
}

size_t Scheduler::worker_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return target_workers_;
}

size_t Scheduler::live_workers() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return live_workers_;
}

std::vector<QueryProgress> Scheduler::Progress() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<QueryProgress> snapshot = progress_.Snapshot();
  for (QueryProgress& query : snapshot) {
    if (auto it = running_.find(query.query); it != running_.end()) {
      query.memory_used = it->second->plan().memory()->used();
      query.memory_limit = it->second->estimate();
    }
  }
  return snapshot;
}

size_t Scheduler::admitted_memory() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return load_.admitted_bytes();
}

size_t Scheduler::queued_queries() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return load_.queued();
}

void Scheduler::WorkerMain(Worker* self, int cpu) {
  if (options_.pin_workers) (void)PinCurrentThreadToCpu(cpu);  // best effort
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    if (shutdown_ || live_workers_ > target_workers_) {
      --live_workers_;
      self->exited = true;
      return;
    }
    Picked picked;
    if (!PickLocked(&picked)) {
      work_cv_.wait(lock);
      continue;
    }
    lock.unlock();
    Executed executed = Execute(picked);
    lock.lock();
    CompleteLocked(picked, std::move(executed));
    if (!ended_.empty()) {
      std::vector<Ended> ended;
      ended.swap(ended_);
      lock.unlock();
      Finish(std::move(ended));
      lock.lock();
    }
  }
}

bool Scheduler::RunOne() {
  std::vector<Ended> ended;
  Picked picked;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!PickLocked(&picked)) return false;
  }
  Executed executed = Execute(picked);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    CompleteLocked(picked, std::move(executed));
    ended.swap(ended_);
  }
  Finish(std::move(ended));
  return true;
}

bool Scheduler::PickLocked(Picked* picked) {
  std::vector<PolicyCandidate> candidates;
  std::vector<QueryExecution*> queries;
  for (auto& [id, query] : running_) {
    if (!query->HasReady()) continue;
    candidates.push_back(
        PolicyCandidate{id, query->priority(), agent_.Predict(id, query->NextOperator())});
    queries.push_back(query.get());
  }
  if (candidates.empty()) return false;
  QueryExecution* query = queries[policy_.Choose(candidates)];
  picked->query = query;
  picked->task = query->Pop();
  picked->cancelled = query->cancel_flag();
  picked->memory = query->plan().memory();
  if (query->HasReady()) work_cv_.notify_one();  // more work: wake another idle worker
  return true;
}

Scheduler::Executed Scheduler::Execute(Picked& picked) {
  Executed executed;
  WorkOrderContext context(picked.cancelled, &picked.memory);
  const auto start = std::chrono::steady_clock::now();
  try {
    picked.task.order->Execute(context);
    executed.blocks = context.TakeEmitted();
  } catch (...) {
    executed.error = std::current_exception();
  }
  executed.nanos = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count());
  picked.task.order.reset();  // outside the lock
  return executed;
}

void Scheduler::CompleteLocked(Picked& picked, Executed executed) {
  QueryExecution* query = picked.query;
  agent_.Record(query->id(), picked.task.op, static_cast<double>(executed.nanos));
  query->OnWorkOrderDone(picked.task.op, executed.nanos, std::move(executed.blocks),
                         executed.error);
  if (query->HasReady()) work_cv_.notify_all();
  CollectEndedLocked();
}

void Scheduler::AdmitLocked(QueryId id) {
  auto it = queued_.find(id);
  Queued queued = std::move(it->second);
  queued_.erase(it);
  auto query = std::make_unique<QueryExecution>(id, std::move(queued.plan), queued.priority,
                                                queued.estimate, queued.handle, &progress_);
  QueryExecution* raw = query.get();
  running_.emplace(id, std::move(query));
  raw->Start();
}

void Scheduler::CollectEndedLocked() {
  bool again = true;
  while (again) {
    again = false;
    for (auto it = running_.begin(); it != running_.end();) {
      if (!it->second->Ended()) {
        ++it;
        continue;
      }
      std::unique_ptr<QueryExecution> query = std::move(it->second);
      it = running_.erase(it);
      agent_.Forget(query->id());
      ended_.push_back(
          Ended{query->handle(), query->error(), progress_.Remove(query->id()), query->TakePlan()});
      for (QueryId admitted : load_.Release(query->estimate())) {
        AdmitLocked(admitted);
        again = true;  // an admitted query may end at once (e.g. an empty plan)
      }
    }
  }
  if (!ended_.empty()) work_cv_.notify_all();
}

void Scheduler::Finish(std::vector<Ended> ended) {
  for (Ended& query : ended) {
    if (query.plan != nullptr) {
      std::shared_ptr<QueryMemory> memory = query.plan->memory();
      query.plan->DestroyOperators();
      query.plan.reset();
      memory->ReleaseAll();
    }
    query.handle.Complete(std::move(query.error), std::move(query.progress));
  }
}

}  // namespace forktail
