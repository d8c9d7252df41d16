// PhysicalOperator: the common frame of the physical operators — how they
// turn input ChunkBlocks into work orders and keep per-worker state.
//
// Work orders. Each input block becomes one work order (ProcessBlock), so the
// unit of parallelism is the input block (a table block for a scan's
// consumers). Once every input is done and every input block was handed out,
// Finish() is asked for final work orders (merge, finalize, flush); it is
// called again after each of this operator's work orders finished, and
// returns true when it will add no more. outstanding() tells it how many of
// its work orders have not finished yet, so an operator can run phases:
//   aggregate: consume per block -> merge per worker slot -> one finalize.
//
// Worker slots. Kernels such as the aggregator and the join build keep
// thread-local state indexed 0..threads-1, and expression executors keep
// scratch vectors, so a work order runs holding a slot: an index in
// [0, parallelism) that no concurrent work order of this operator holds.
// With parallelism >= the scheduler's workers a slot is always free; with
// fewer, a work order waits for one (holders never wait on anything, so this
// cannot deadlock).
//
// Statistics. Every work order's emitted rows and blocks are counted into
// an OperatorStats object the operator shares (stats()): the operator is
// destroyed when its query ends, the counts outlive it for EXPLAIN ANALYZE.
//
// Threads: the RelationalOperator callbacks run under the scheduler's lock;
// ProcessBlock and spawned work orders run concurrently on workers.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "olap/execution/operator/physical_chunk_block.h"
#include "scheduler/relational_operator.h"

namespace forktail {

// What an operator emitted (live rows, blocks), counted as its work orders end.
struct OperatorStats {
  std::atomic<uint64_t> rows_out{0};
  std::atomic<uint64_t> blocks_out{0};
};

class PhysicalOperator : public RelationalOperator {
 public:
  PhysicalOperator(std::string name, std::vector<Type> output_types, size_t inputs,
                   int parallelism);

  std::string_view name() const override { return name_; }
  const std::vector<Type>& output_types() const { return output_types_; }
  int parallelism() const { return parallelism_; }
  const std::shared_ptr<OperatorStats>& stats() const { return stats_; }

  bool GetNextWorkOrders(WorkOrderSink& sink) override;
  void FeedInputBlock(size_t input_index, StreamBlockPtr block) override;
  void DoneFeedingInput(size_t input_index) override;

 protected:
  // Handles one input block, holding worker slot `slot`.
  virtual void ProcessBlock(WorkOrderContext& context, int slot, size_t input_index,
                            const StreamBlockPtr& block) = 0;
  // See the header comment. Default: nothing to finish.
  virtual bool Finish(WorkOrderSink& /*sink*/) { return true; }

  using Task = std::function<void(WorkOrderContext&)>;
  using SlotTask = std::function<void(WorkOrderContext&, int slot)>;
  void Spawn(WorkOrderSink& sink, Task task);
  void SpawnWithSlot(WorkOrderSink& sink, SlotTask task);
  int outstanding() const { return outstanding_.load(std::memory_order_acquire); }

  // For constructors that learn their output types only after base init.
  void SetOutputTypes(std::vector<Type> types) { output_types_ = std::move(types); }
  // Emits `out` unless it holds no live row.
  static void EmitIfRows(WorkOrderContext& context, std::shared_ptr<ChunkBlock> out);

 private:
  class SlotWorkOrder;
  int AcquireSlot();
  void ReleaseSlot(int slot);

  std::string name_;
  std::vector<Type> output_types_;
  size_t inputs_;
  size_t inputs_done_ = 0;
  int parallelism_;
  std::deque<std::pair<size_t, StreamBlockPtr>> pending_;
  std::atomic<int> outstanding_{0};
  std::mutex slot_mutex_;
  std::condition_variable slot_cv_;
  std::vector<int> free_slots_;
  std::shared_ptr<OperatorStats> stats_ = std::make_shared<OperatorStats>();
};

}  // namespace forktail
