// Physical operators under the real Scheduler (Release build):
//   ScanFilterAggregate/W  SELECT k, SUM(v), COUNT(*) FROM t WHERE f < 50 GROUP BY k
//   Join/W                 SELECT COUNT(*), SUM(u.w) FROM t JOIN u ON t.j = u.j
//                          (build u: 100k rows; probe t; half the probe rows match)
//   ScanBigintSum          SUM(v) through the scan operator (1 worker) into a
//                          minimal summing consumer
//   VectorSum              the physical limit: a summing loop over a
//                          std::vector<int64_t> of the same row count
// W = scheduler workers (1, 2). After the runs, main() prints the 1 -> 2
// worker speedups and the scan's cost relative to the vector loop.
//
//   build/phys-rel/bench/olap_physical_bench --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>

#include "olap/execution/physical.h"
#include "scheduler/scheduler.h"

namespace forktail {
namespace {

constexpr size_t kRows = size_t{2} << 20;
constexpr int32_t kBuildRows = 100000;

struct Data {
  std::shared_ptr<Table> t, u;
  std::vector<int64_t> v;  // t.v as a plain vector
};

const Data& GetData() {
  static Data* data = [] {
    auto* d = new Data;
    d->t = physical::CreateTable({"t",
                                  {{"k", Type::Integer()},
                                   {"v", Type::BigInt()},
                                   {"f", Type::Integer()},
                                   {"j", Type::Integer()}},
                                  {}});
    d->u = physical::CreateTable({"u", {{"j", Type::Integer()}, {"w", Type::BigInt()}}, {}});
    std::mt19937_64 rng(7);
    std::vector<Row> batch;
    for (size_t i = 0; i < kRows; ++i) {
      int64_t v = static_cast<int64_t>(rng() % 1000000);
      d->v.push_back(v);
      batch.push_back({Value::Integer(static_cast<int32_t>(rng() % 1000)), Value::BigInt(v),
                       Value::Integer(static_cast<int32_t>(rng() % 100)),
                       Value::Integer(static_cast<int32_t>(rng() % (2 * kBuildRows)))});
      if (batch.size() == 65536) {
        physical::InsertRows(*d->t, batch);
        batch.clear();
      }
    }
    physical::InsertRows(*d->t, batch);
    batch.clear();
    for (int32_t j = 0; j < kBuildRows; ++j) {
      batch.push_back({Value::Integer(j), Value::BigInt(j % 97)});
    }
    physical::InsertRows(*d->u, batch);
    return d;
  }();
  return *data;
}

std::map<std::string, double> g_best_seconds;        // benchmark name -> best seconds per query
std::map<std::string, std::string> g_best_progress;  // its per-operator work-order times
QueryProgress g_last_progress;

void Record(const std::string& name, double seconds) {
  auto it = g_best_seconds.find(name);
  if (it == g_best_seconds.end() || seconds < it->second) {
    g_best_seconds[name] = seconds;
    g_best_progress[name] = ProgressMonitor::Format({g_last_progress});
  }
}

double RunQuery(Scheduler& scheduler, std::unique_ptr<QueryPlan> plan) {
  auto start = std::chrono::steady_clock::now();
  QueryHandle handle = scheduler.Submit(std::move(plan), 1, size_t{512} << 20);
  handle.Wait();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  g_last_progress = handle.FinalProgress();
  return seconds;
}

std::unique_ptr<QueryPlan> ScanFilterAggregatePlan(int workers,
                                                   std::shared_ptr<ResultRows>* result) {
  PlanBuilder b(workers);
  ScanSpec spec;
  spec.columns = {0, 1, 2};
  spec.filter =
      Compare(CompareOp::kLt, ColumnRef(2, Type::Integer()), Constant(Value::Integer(50)));
  OperatorId agg = b.Aggregate(b.Scan(*GetData().t, std::move(spec)), {0},
                               {{AggKind::kSum, 1, {}}, {AggKind::kCountStar, 0, {}}});
  *result = b.Sink(agg);
  return b.Build();
}

std::unique_ptr<QueryPlan> JoinPlan(int workers, std::shared_ptr<ResultRows>* result) {
  PlanBuilder b(workers);
  OperatorId build = b.HashBuild(b.Scan(*GetData().u), {0}, {1});
  ScanSpec spec;
  spec.columns = {3};
  OperatorId probe = b.HashProbe(b.Scan(*GetData().t, std::move(spec)), build, JoinType::kInner,
                                 {0}, {0}, CompactionPolicy::Fixed(1024));
  *result = b.Sink(b.Aggregate(probe, {}, {{AggKind::kCountStar, 0, {}}, {AggKind::kSum, 1, {}}}));
  return b.Build();
}

void QueryBench(benchmark::State& state, const char* name,
                std::unique_ptr<QueryPlan> (*make)(int, std::shared_ptr<ResultRows>*)) {
  GetData();
  const int workers = static_cast<int>(state.range(0));
  SchedulerOptions options;
  options.num_workers = workers;
  Scheduler scheduler(options);
  for (auto _ : state) {
    std::shared_ptr<ResultRows> result;
    auto plan = make(workers, &result);
    double s = RunQuery(scheduler, std::move(plan));
    Record(std::string(name) + "/" + std::to_string(workers), s);
    benchmark::DoNotOptimize(result->rows.size());
  }
  state.SetItemsProcessed(state.iterations() * kRows);
}

void BM_ScanFilterAggregate(benchmark::State& state) {
  QueryBench(state, "ScanFilterAggregate", &ScanFilterAggregatePlan);
}
BENCHMARK(BM_ScanFilterAggregate)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Join(benchmark::State& state) { QueryBench(state, "Join", &JoinPlan); }
BENCHMARK(BM_Join)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Sums column 0 (BIGINT) of its input blocks: the cheapest possible consumer.
class SumOperator final : public PhysicalOperator {
 public:
  explicit SumOperator(std::atomic<int64_t>* sum) : PhysicalOperator("Sum", {}, 1, 64), sum_(sum) {}

 protected:
  void ProcessBlock(WorkOrderContext&, int, size_t, const StreamBlockPtr& block) override {
    int64_t s = 0;
    for (const DataChunk& c : AsChunkBlock(block).chunks) {
      const int64_t* v = c.column(0).data<int64_t>();
      ForEachRow(c.rows(), [&](uint32_t i) { s += v[i]; });
    }
    sum_->fetch_add(s, std::memory_order_relaxed);
  }

 private:
  std::atomic<int64_t>* sum_;
};

void BM_ScanBigintSum(benchmark::State& state) {
  GetData();
  SchedulerOptions options;
  options.num_workers = 1;
  Scheduler scheduler(options);
  for (auto _ : state) {
    std::atomic<int64_t> sum{0};
    auto plan = std::make_unique<QueryPlan>();
    ScanSpec spec;
    spec.columns = {1};
    OperatorId scan =
        plan->AddOperator(std::make_unique<TableScanOperator>(*GetData().t, std::move(spec), 1));
    OperatorId consumer = plan->AddOperator(std::make_unique<SumOperator>(&sum));
    plan->AddEdge(scan, consumer, true);
    Record("ScanBigintSum", RunQuery(scheduler, std::move(plan)));
    benchmark::DoNotOptimize(sum.load());
  }
  state.SetItemsProcessed(state.iterations() * kRows);
  state.SetBytesProcessed(state.iterations() * kRows * 8);
}
BENCHMARK(BM_ScanBigintSum)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_VectorSum(benchmark::State& state) {
  const std::vector<int64_t>& v = GetData().v;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    int64_t s = 0;
    for (int64_t x : v) s += x;
    benchmark::DoNotOptimize(s);
    Record("VectorSum",
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  state.SetItemsProcessed(state.iterations() * kRows);
  state.SetBytesProcessed(state.iterations() * kRows * 8);
}
BENCHMARK(BM_VectorSum)->Unit(benchmark::kMillisecond)->UseRealTime();

void PrintSummary() {
  auto ms = [](const std::string& k) {
    return g_best_seconds.count(k) ? g_best_seconds[k] * 1e3 : 0;
  };
  for (const char* q : {"ScanFilterAggregate", "Join"}) {
    double one = ms(std::string(q) + "/1"), two = ms(std::string(q) + "/2");
    if (one > 0 && two > 0) {
      std::printf("%-20s best of runs: 1 worker %8.2f ms, 2 workers %8.2f ms, speedup %.2fx\n", q,
                  one, two, one / two);
      if (std::getenv("FORKTAIL_BENCH_PROGRESS") != nullptr) {
        for (int w : {1, 2}) {
          std::string key = std::string(q) + "/" + std::to_string(w);
          std::printf("%s\n%s\n", key.c_str(), g_best_progress[key].c_str());
        }
      }
    }
  }
  double scan = ms("ScanBigintSum"), vec = ms("VectorSum");
  if (scan > 0 && vec > 0) {
    std::printf(
        "BIGINT sum of %zu rows: scan operator %.2f ms (%.2f ns/row), vector loop %.2f ms "
        "(%.2f ns/row), ratio %.2fx\n",
        kRows, scan, scan * 1e6 / kRows, vec, vec * 1e6 / kRows, scan / vec);
  }
}

}  // namespace
}  // namespace forktail

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  forktail::PrintSummary();
  return 0;
}
