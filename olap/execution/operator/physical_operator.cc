#include "olap/execution/operator/physical_operator.h"

#include <cassert>
#include <utility>

namespace forktail {

// Runs a task and counts it finished (also when it throws: the query then
// fails and the count no longer matters, but it stays exact).
class PhysicalOperator::SlotWorkOrder final : public WorkOrder {
 public:
  SlotWorkOrder(PhysicalOperator* op, SlotTask task, bool needs_slot)
      : op_(op), task_(std::move(task)), needs_slot_(needs_slot) {}

  void Execute(WorkOrderContext& context) override {
    struct Done {
      PhysicalOperator* op;
      int slot;
      ~Done() {
        if (slot >= 0) op->ReleaseSlot(slot);
        op->outstanding_.fetch_sub(1, std::memory_order_acq_rel);
      }
    } done{op_, needs_slot_ ? op_->AcquireSlot() : -1};
    if (context.IsCancelled()) return;
    task_(context, done.slot);
    Count(context);
  }

 private:
  // Counts the emitted blocks' rows (every physical operator emits
  // ChunkBlocks); the blocks go back to the context unchanged.
  void Count(WorkOrderContext& context) {
    std::vector<StreamBlockPtr> blocks = context.TakeEmitted();
    if (blocks.empty()) return;
    uint64_t rows = 0;
    for (StreamBlockPtr& b : blocks) {
      rows += AsChunkBlock(b).row_count();
      context.EmitBlock(std::move(b));
    }
    op_->stats_->rows_out.fetch_add(rows, std::memory_order_relaxed);
    op_->stats_->blocks_out.fetch_add(blocks.size(), std::memory_order_relaxed);
  }

  PhysicalOperator* op_;
  SlotTask task_;
  bool needs_slot_;
};

PhysicalOperator::PhysicalOperator(std::string name, std::vector<Type> output_types, size_t inputs,
                                   int parallelism)
    : name_(std::move(name)),
      output_types_(std::move(output_types)),
      inputs_(inputs),
      parallelism_(parallelism < 1 ? 1 : parallelism) {
  for (int s = parallelism_ - 1; s >= 0; --s) free_slots_.push_back(s);
}

bool PhysicalOperator::GetNextWorkOrders(WorkOrderSink& sink) {
  while (!pending_.empty()) {
    auto [input, block] = std::move(pending_.front());
    pending_.pop_front();
    SpawnWithSlot(
        sink, [this, input = input, block = std::move(block)](WorkOrderContext& context, int slot) {
          ProcessBlock(context, slot, input, block);
        });
  }
  if (inputs_done_ < inputs_) return false;
  return Finish(sink);
}

void PhysicalOperator::FeedInputBlock(size_t input_index, StreamBlockPtr block) {
  pending_.emplace_back(input_index, std::move(block));
}

void PhysicalOperator::DoneFeedingInput(size_t /*input_index*/) { ++inputs_done_; }

void PhysicalOperator::Spawn(WorkOrderSink& sink, Task task) {
  outstanding_.fetch_add(1, std::memory_order_acq_rel);
  sink.Add(std::make_unique<SlotWorkOrder>(
      this, [task = std::move(task)](WorkOrderContext& context, int) { task(context); }, false));
}

void PhysicalOperator::SpawnWithSlot(WorkOrderSink& sink, SlotTask task) {
  outstanding_.fetch_add(1, std::memory_order_acq_rel);
  sink.Add(std::make_unique<SlotWorkOrder>(this, std::move(task), true));
}

void PhysicalOperator::EmitIfRows(WorkOrderContext& context, std::shared_ptr<ChunkBlock> out) {
  if (out->row_count() == 0) return;
  context.EmitBlock(std::move(out));
}

int PhysicalOperator::AcquireSlot() {
  std::unique_lock<std::mutex> lock(slot_mutex_);
  slot_cv_.wait(lock, [&] { return !free_slots_.empty(); });
  int slot = free_slots_.back();
  free_slots_.pop_back();
  return slot;
}

void PhysicalOperator::ReleaseSlot(int slot) {
  {
    std::lock_guard<std::mutex> lock(slot_mutex_);
    free_slots_.push_back(slot);
  }
  slot_cv_.notify_one();
}

}  // namespace forktail
