// Operators and work orders used by the scheduler tests: a source with a fixed
// or endless number of work orders, and a consumer that turns every input block
// into one work order. Work is a std::function so each test says what it does.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "scheduler/scheduler.h"

namespace forktail::testing {

struct IntBlock : StreamBlock {
  explicit IntBlock(int64_t v) : value(v) {}
  int64_t value;
};

// A global order of events, so tests can say "this happened before that".
inline std::atomic<uint64_t> g_sequence{0};
inline uint64_t NextSeq() { return g_sequence.fetch_add(1) + 1; }

inline void SpinFor(std::chrono::microseconds duration, const WorkOrderContext* context = nullptr) {
  const auto end = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < end) {
    if (context != nullptr && context->IsCancelled()) return;
  }
}

class Gate {
 public:
  void Open() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      open_ = true;
    }
    cv_.notify_all();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return open_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool open_ = false;
};

using WorkFn = std::function<void(WorkOrderContext&, int64_t index)>;

class FnWorkOrder : public WorkOrder {
 public:
  FnWorkOrder(WorkFn fn, int64_t index) : fn_(std::move(fn)), index_(index) {}
  void Execute(WorkOrderContext& context) override { fn_(context, index_); }

 private:
  WorkFn fn_;
  int64_t index_;
};

// Events an operator saw, stamped with g_sequence (read after the query ended).
struct OperatorLog {
  std::atomic<uint64_t> first_fetch_seq{0};
  std::atomic<uint64_t> finished_seq{0};
  std::atomic<uint64_t> first_exec_seq{0};
  std::atomic<uint64_t> last_exec_seq{0};
  std::atomic<int64_t> executed{0};
  std::atomic<int64_t> blocks_fed{0};
  void Executed() {
    const uint64_t seq = NextSeq();
    uint64_t zero = 0;
    first_exec_seq.compare_exchange_strong(zero, seq);
    last_exec_seq.store(seq);
    executed.fetch_add(1);
  }
};

// Yields `total` work orders, `per_call` per GetNextWorkOrders call; with
// total < 0 it is endless (until *stop) and keeps `per_call` waiting to start.
class SourceOperator : public RelationalOperator {
 public:
  SourceOperator(std::string name, int64_t total, int64_t per_call, WorkFn fn,
                 std::shared_ptr<OperatorLog> log,
                 std::shared_ptr<std::atomic<bool>> stop = nullptr)
      : name_(std::move(name)),
        total_(total),
        per_call_(per_call),
        fn_(std::move(fn)),
        log_(std::move(log)),
        stop_(std::move(stop)) {}

  std::string_view name() const override { return name_; }
  bool GetNextWorkOrders(WorkOrderSink& sink) override {
    uint64_t zero = 0;
    log_->first_fetch_seq.compare_exchange_strong(zero, NextSeq());
    if (stop_ != nullptr && stop_->load()) return true;
    // Endless: keep per_call_ work orders produced but not yet started.
    const int64_t want = total_ >= 0 ? per_call_ : per_call_ - (produced_ - log_->executed.load());
    for (int64_t i = 0; i < want && (total_ < 0 || produced_ < total_); ++i) {
      sink.Add(std::make_unique<FnWorkOrder>(
          [fn = fn_, log = log_](WorkOrderContext& c, int64_t index) {
            log->Executed();
            fn(c, index);
          },
          produced_++));
    }
    return total_ >= 0 && produced_ == total_;
  }
  void AllWorkOrdersFinished() override { log_->finished_seq.store(NextSeq()); }

 private:
  std::string name_;
  int64_t total_;
  int64_t per_call_;
  WorkFn fn_;
  std::shared_ptr<OperatorLog> log_;
  std::shared_ptr<std::atomic<bool>> stop_;
  int64_t produced_ = 0;
};

// One work order per input block; fn gets the block's IntBlock value as index.
class PerBlockOperator : public RelationalOperator {
 public:
  PerBlockOperator(std::string name, size_t inputs, WorkFn fn, std::shared_ptr<OperatorLog> log)
      : name_(std::move(name)), inputs_left_(inputs), fn_(std::move(fn)), log_(std::move(log)) {}

  std::string_view name() const override { return name_; }
  void FeedInputBlock(size_t, StreamBlockPtr block) override {
    log_->blocks_fed.fetch_add(1);
    pending_.push_back(static_cast<const IntBlock&>(*block).value);
  }
  void DoneFeedingInput(size_t) override { --inputs_left_; }
  bool GetNextWorkOrders(WorkOrderSink& sink) override {
    uint64_t zero = 0;
    log_->first_fetch_seq.compare_exchange_strong(zero, NextSeq());
    for (int64_t value : pending_) {
      sink.Add(std::make_unique<FnWorkOrder>(
          [fn = fn_, log = log_](WorkOrderContext& c, int64_t index) {
            log->Executed();
            fn(c, index);
          },
          value));
    }
    pending_.clear();
    return inputs_left_ == 0;
  }
  void AllWorkOrdersFinished() override { log_->finished_seq.store(NextSeq()); }

 private:
  std::string name_;
  size_t inputs_left_;
  WorkFn fn_;
  std::shared_ptr<OperatorLog> log_;
  std::vector<int64_t> pending_;
};

inline WorkFn EmitIndex() {
  return [](WorkOrderContext& c, int64_t i) { c.EmitBlock(std::make_shared<IntBlock>(i)); };
}

inline WorkFn Nothing() {
  return [](WorkOrderContext&, int64_t) {};
}

// A plan with one source of `total` work orders (per_call per fetch) running fn.
inline std::unique_ptr<QueryPlan> SourcePlan(int64_t total, int64_t per_call, WorkFn fn,
                                             std::shared_ptr<OperatorLog> log,
                                             std::shared_ptr<std::atomic<bool>> stop = nullptr) {
  auto plan = std::make_unique<QueryPlan>();
  plan->AddOperator(std::make_unique<SourceOperator>("Source", total, per_call, std::move(fn),
                                                     std::move(log), std::move(stop)));
  return plan;
}

}  // namespace forktail::testing
