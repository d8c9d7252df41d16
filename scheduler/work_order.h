// A work order is the unit the scheduler hands to a worker: one operator's work
// on one input block or one partition (Quickstep's WorkOrder, a morsel in
// Leis et al.). It is small, runs to completion on one worker without blocking
// on other work orders, and talks to the rest of the query only through its
// WorkOrderContext: the query's cancel flag, the query's memory, and the output
// blocks it emits. Emitted blocks are routed to the producing operator's
// consumers by the scheduler after Execute() returns (see
// relational_operator.h), so a work order never calls another operator.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace forktail {

class QueryMemory;
template <typename T>
class QueryAllocator;

// Scheduler-assigned query number, unique within one Scheduler.
using QueryId = uint64_t;
// Position of an operator in its QueryPlan (assigned by QueryPlan::AddOperator).
using OperatorId = uint32_t;

// An opaque unit of intermediate data passed along plan edges. The scheduler
// never looks inside; olap/ derives its column blocks from it.
class StreamBlock {
 public:
  virtual ~StreamBlock() = default;
};
using StreamBlockPtr = std::shared_ptr<const StreamBlock>;

// What a running work order may see of its query. Lives on the worker's stack
// for the duration of one Execute() call; not shared between work orders.
class WorkOrderContext {
 public:
  WorkOrderContext(const std::atomic<bool>* cancelled, const std::shared_ptr<QueryMemory>* memory)
      : cancelled_(cancelled), memory_(memory) {}

  // True once the query was cancelled or failed. Long work orders should poll it
  // and return early; their (partial) output is then discarded.
  bool IsCancelled() const { return cancelled_->load(std::memory_order_relaxed); }

  // Memory charged to this query; thread-safe (see query_memory.h).
  QueryMemory& memory() const { return **memory_; }
  // For std containers: std::vector<T, QueryAllocator<T>> v(context.allocator<T>());
  template <typename T>
  QueryAllocator<T> allocator() const {
    return QueryAllocator<T>(*memory_);
  }

  // Hands an output block to the scheduler. Delivered to every consumer of this
  // work order's operator once Execute() has returned without throwing.
  void EmitBlock(StreamBlockPtr block) { emitted_.push_back(std::move(block)); }

  std::vector<StreamBlockPtr> TakeEmitted() { return std::move(emitted_); }

 private:
  const std::atomic<bool>* cancelled_;
  const std::shared_ptr<QueryMemory>* memory_;
  std::vector<StreamBlockPtr> emitted_;
};

class WorkOrder {
 public:
  virtual ~WorkOrder() = default;

  // Runs on a worker thread, concurrently with other work orders of the same and
  // other queries, without any scheduler lock held. Throwing fails this query
  // (a DbError keeps its SQLSTATE; anything else becomes XX000) and no other.
  virtual void Execute(WorkOrderContext& context) = 0;
};

}  // namespace forktail
