// QueryHandle: the future of a submitted query. Copyable; all copies share one
// state. The query ends exactly once: successfully, with the first error a work
// order or operator callback threw, cancelled (57014), or because the scheduler
// shut down (57P01). When Done() turns true the query's operators are destroyed
// and its memory is released.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>

#include "scheduler/progress_monitor.h"
#include "scheduler/work_order.h"

namespace forktail {

class QueryHandle {
 public:
  QueryHandle() = default;

  QueryId id() const { return state_->id; }
  bool Done() const;
  // Blocks until the query ended; rethrows its error (a DbError).
  void Wait() const;
  // Blocks until the query ended; returns its error or nullptr.
  std::exception_ptr WaitError() const;
  // Per-operator work orders and run times as the query ended (EXPLAIN ANALYZE).
  QueryProgress FinalProgress() const;

 private:
  friend class Scheduler;
  struct State {
    QueryId id = 0;
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
    std::exception_ptr error;
    QueryProgress final_progress;
    std::function<void(const QueryHandle&)> on_done;
  };
  explicit QueryHandle(std::shared_ptr<State> state) : state_(std::move(state)) {}
  // Completes the handle and then runs on_done (on the completing thread).
  void Complete(std::exception_ptr error, QueryProgress final_progress) const;

  std::shared_ptr<State> state_;
};

}  // namespace forktail
