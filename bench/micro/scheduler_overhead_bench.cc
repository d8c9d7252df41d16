// Scheduling overhead: the cost of handing out one empty work order, at 1 and
// 2 worker threads and in immediate mode, beside a plain loop that runs the
// same empty work orders inline. "per_work_order" is wall time per work order
// (for N workers the work orders run in parallel, so contention on the
// scheduler mutex shows as a higher figure, not a lower one).
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "scheduler/scheduler.h"

namespace forktail {
namespace {

constexpr int64_t kWorkOrders = 20000;

class EmptyWorkOrder : public WorkOrder {
 public:
  void Execute(WorkOrderContext& context) override { benchmark::DoNotOptimize(&context); }
};

// Yields its work orders in batches of 64, as a scan over blocks would.
class EmptySource : public RelationalOperator {
 public:
  std::string_view name() const override { return "EmptySource"; }
  bool GetNextWorkOrders(WorkOrderSink& sink) override {
    for (int i = 0; i < 64 && produced_ < kWorkOrders; ++i, ++produced_) {
      sink.Add(std::make_unique<EmptyWorkOrder>());
    }
    return produced_ == kWorkOrders;
  }

 private:
  int64_t produced_ = 0;
};

void Report(benchmark::State& state) {
  state.SetItemsProcessed(state.iterations() * kWorkOrders);
  // Seconds per work order, printed with an SI prefix (e.g. "170n" = 170 ns).
  state.counters["per_work_order"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kWorkOrders),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_InlineLoop(benchmark::State& state) {
  auto memory = std::make_shared<QueryMemory>();
  std::atomic<bool> cancelled{false};
  for (auto _ : state) {
    std::vector<std::unique_ptr<WorkOrder>> orders;
    orders.reserve(kWorkOrders);
    for (int64_t i = 0; i < kWorkOrders; ++i) orders.push_back(std::make_unique<EmptyWorkOrder>());
    for (auto& order : orders) {
      WorkOrderContext context(&cancelled, &memory);
      order->Execute(context);
    }
  }
  Report(state);
}
BENCHMARK(BM_InlineLoop)->UseRealTime();

void BM_Scheduler(benchmark::State& state) {
  SchedulerOptions options;
  options.immediate = state.range(0) == 0;
  options.num_workers = static_cast<size_t>(state.range(0));
  Scheduler scheduler(options);
  for (auto _ : state) {
    auto plan = std::make_unique<QueryPlan>();
    plan->AddOperator(std::make_unique<EmptySource>());
    scheduler.Submit(std::move(plan), 1, 1 << 20).Wait();
  }
  Report(state);
}
// 0 = immediate mode (the caller runs everything), then 1 and 2 worker threads.
BENCHMARK(BM_Scheduler)->ArgName("workers")->Arg(0)->Arg(1)->Arg(2)->UseRealTime();

}  // namespace
}  // namespace forktail

BENCHMARK_MAIN();
