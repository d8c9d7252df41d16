#include "scheduler/query_execution.h"

#include <cassert>
#include <string>

#include "storage/error.h"

namespace forktail {

QueryExecution::QueryExecution(QueryId id, std::unique_ptr<QueryPlan> plan, int priority,
                               size_t estimate, QueryHandle handle, ProgressMonitor* progress)
    : id_(id),
      plan_(std::move(plan)),
      priority_(priority),
      estimate_(estimate),
      handle_(std::move(handle)),
      progress_(progress),
      ops_(plan_->size()) {
  for (const QueryPlan::Edge& edge : plan_->edges()) {
    ++ops_[edge.consumer].inputs_pending;
    if (!edge.pipelining) ++ops_[edge.consumer].blocking_inputs_pending;
  }
}

void QueryExecution::Start() {
  std::vector<std::string> names;
  for (OperatorId op = 0; op < plan_->size(); ++op) names.emplace_back(plan_->op(op).name());
  progress_->AddQuery(id_, priority_, std::move(names));
  try {
    for (OperatorId op = 0; op < plan_->size() && !failed(); ++op) {
      if (ops_[op].blocking_inputs_pending == 0) Fetch(op);
    }
    CheckStall();
  } catch (...) {
    Fail(std::current_exception());
  }
}

QueryExecution::Task QueryExecution::Pop() {
  Task task = std::move(ready_.front());
  ready_.pop_front();
  ++running_;
  return task;
}

void QueryExecution::OnWorkOrderDone(OperatorId op, uint64_t nanos,
                                     std::vector<StreamBlockPtr> blocks, std::exception_ptr error) {
  assert(running_ > 0);
  --running_;
  --ops_[op].outstanding;
  progress_->Finished(id_, op, nanos);
  if (error) Fail(error);
  if (failed()) return;
  try {
    for (size_t edge_index : plan_->out_edges(op)) {
      const QueryPlan::Edge& edge = plan_->edges()[edge_index];
      for (const StreamBlockPtr& block : blocks)
        plan_->op(edge.consumer).FeedInputBlock(edge.input_index, block);
    }
    if (!blocks.empty()) {
      for (size_t edge_index : plan_->out_edges(op)) {
        Fetch(plan_->edges()[edge_index].consumer, /*consumer=*/true);
      }
    }
    Fetch(op);
    MaybeFinish(op);
    CheckStall();
  } catch (...) {
    Fail(std::current_exception());
  }
}

void QueryExecution::Fail(std::exception_ptr error) {
  if (failed()) return;
  try {
    std::rethrow_exception(error);
  } catch (const DbError&) {
    error_ = error;
  } catch (const std::exception& e) {
    error_ = std::make_exception_ptr(DbError(sqlstate::kInternalError, e.what()));
  } catch (...) {
    error_ = std::make_exception_ptr(
        DbError(sqlstate::kInternalError, "work order threw a non-standard exception"));
  }
  cancelled_.store(true, std::memory_order_relaxed);
  ready_.clear();
}

void QueryExecution::Fetch(OperatorId op, bool consumer) {
  OperatorState& state = ops_[op];
  if (failed() || state.done || state.generation_done || state.blocking_inputs_pending > 0) return;
  WorkOrderSink sink;
  state.generation_done = plan_->op(op).GetNextWorkOrders(sink);
  std::vector<std::unique_ptr<WorkOrder>> orders = sink.Take();
  if (!orders.empty()) progress_->Produced(id_, op, orders.size());
  state.outstanding += orders.size();
  if (consumer) {
    // In front, in the order produced.
    for (size_t i = orders.size(); i-- > 0;) ready_.push_front(Task{op, std::move(orders[i])});
  } else {
    for (auto& order : orders) ready_.push_back(Task{op, std::move(order)});
  }
  MaybeFinish(op);
}

void QueryExecution::MaybeFinish(OperatorId op) {
  OperatorState& state = ops_[op];
  if (failed() || state.done || !state.generation_done || state.outstanding > 0 ||
      state.inputs_pending > 0) {
    return;
  }
  state.done = true;
  ++done_operators_;
  plan_->op(op).AllWorkOrdersFinished();
  progress_->OperatorDone(id_, op);
  for (size_t edge_index : plan_->out_edges(op)) {
    const QueryPlan::Edge& edge = plan_->edges()[edge_index];
    OperatorState& consumer = ops_[edge.consumer];
    plan_->op(edge.consumer).DoneFeedingInput(edge.input_index);
    --consumer.inputs_pending;
    if (!edge.pipelining) --consumer.blocking_inputs_pending;
    Fetch(edge.consumer, /*consumer=*/true);  // starts it, or lets it react to the news
    MaybeFinish(edge.consumer);               // it may have been waiting only for this input
  }
}

void QueryExecution::CheckStall() {
  if (failed() || running_ > 0 || !ready_.empty() || done_operators_ == ops_.size()) return;
  for (OperatorId op = 0; op < ops_.size(); ++op) {
    if (!ops_[op].done) {
      throw DbError(sqlstate::kInternalError, "query plan stalled: operator " +
                                                  std::string(plan_->op(op).name()) +
                                                  " produces no work orders and is not finished");
    }
  }
}

}  // namespace forktail
