// Sort / top-k through the physical SortOperator, which now runs on the
// kernels' Sorter (olap/execution/sort/sorter.h), against the stand-in it replaced (the
// previous physical_sort.cc code, kept here verbatim as LegacySortOperator:
// per-block runs of several chunks, a type switch per comparison).
//
//   SortFull/{impl}  ORDER BY k1 ASC, s DESC, v ASC over kRows rows (2 workers)
//   TopK/{impl}      the same with LIMIT 100
//   impl 0 = LegacySortOperator, 1 = SortOperator (Sorter)
// k1 INTEGER (1000 distinct, 5% NULL), s TEXT (~100 distinct), v DOUBLE.
//
//   build/sched-rel/bench/olap_sort_bench --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <queue>
#include <random>

#include "olap/execution/physical.h"
#include "olap/expression/kernels.h"
#include "scheduler/scheduler.h"

namespace forktail {
namespace {

class LegacySortOperator final : public PhysicalOperator {
 public:
  LegacySortOperator(std::vector<Type> types, std::vector<PhysicalSortKey> keys, uint64_t limit,
                     int parallelism);

 protected:
  void ProcessBlock(WorkOrderContext& context, int slot, size_t input_index,
                    const StreamBlockPtr& block) override;
  bool Finish(WorkOrderSink& sink) override;

 private:
  struct Ref {
    uint32_t chunk;
    uint32_t row;
  };
  struct Run {
    std::vector<DataChunk> chunks;
    std::vector<Ref> order;
  };
  int CompareRows(const Run& ra, Ref a, const Run& rb, Ref b) const;
  void Merge(WorkOrderContext& context);

  std::vector<PhysicalSortKey> keys_;
  uint64_t limit_;
  std::mutex mutex_;
  std::vector<std::shared_ptr<Run>> runs_;
  bool merging_ = false;
};

namespace {

template <typename T>
int CompareScalar(const Type& type, T a, T b) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    if (type.id == TypeId::kChar) {
      while (!a.empty() && a.back() == ' ') a.remove_suffix(1);
      while (!b.empty() && b.back() == ' ') b.remove_suffix(1);
    }
    int c = a.compare(b);
    return c < 0 ? -1 : c > 0;
  } else if constexpr (std::is_same_v<T, double>) {
    bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
    return a < b ? -1 : a > b;
  } else {
    return a < b ? -1 : a > b;
  }
}

}  // namespace

LegacySortOperator::LegacySortOperator(std::vector<Type> types, std::vector<PhysicalSortKey> keys,
                                       uint64_t limit, int parallelism)
    : PhysicalOperator("LegacySort", std::move(types), 1, parallelism),
      keys_(std::move(keys)),
      limit_(limit) {}

int LegacySortOperator::CompareRows(const Run& ra, Ref a, const Run& rb, Ref b) const {
  for (const PhysicalSortKey& k : keys_) {
    const Vector& va = ra.chunks[a.chunk].column(k.column);
    const Vector& vb = rb.chunks[b.chunk].column(k.column);
    bool na = va.IsNull(a.row), nb = vb.IsNull(b.row);
    int c;
    if (na || nb) {
      if (na == nb) continue;
      bool nulls_first = k.nulls_first < 0 ? k.descending : k.nulls_first == 1;
      // NULL placement is absolute: not flipped by DESC.
      c = (na ? 1 : -1) * (nulls_first ? -1 : 1);
      return c;
    }
    c = DispatchPhysical(va.physical(), [&]<typename T>() {
      return CompareScalar<T>(va.type(), va.data<T>()[a.row], vb.data<T>()[b.row]);
    });
    if (c != 0) return k.descending ? -c : c;
  }
  return 0;
}

void LegacySortOperator::ProcessBlock(WorkOrderContext& context, int /*slot*/,
                                      size_t /*input_index*/, const StreamBlockPtr& block) {
  auto run = std::make_shared<Run>();
  for (const DataChunk& in : AsChunkBlock(block).chunks) {
    // Compact the live rows into owned vectors; strings are copied into an
    // arena the run owns, so the run does not depend on the input block.
    Rows rows = in.rows();
    DataChunk c;
    for (size_t col = 0; col < in.column_count(); ++col) {
      Vector v(in.column(col).type());
      bool is_string = v.physical() == PhysicalType::kString;
      GatherRows(in.column(col), rows, &v, 0, is_string ? v.arena() : nullptr);
      c.AddColumn(std::move(v));
    }
    c.set_size(rows.count);
    for (uint32_t r = 0; r < rows.count; ++r) {
      run->order.push_back({static_cast<uint32_t>(run->chunks.size()), r});
    }
    run->chunks.push_back(std::move(c));
  }
  if (context.IsCancelled() || run->order.empty()) return;
  auto less = [&](Ref a, Ref b) { return CompareRows(*run, a, *run, b) < 0; };
  if (limit_ < run->order.size()) {
    std::partial_sort(run->order.begin(), run->order.begin() + limit_, run->order.end(), less);
    run->order.resize(limit_);
  } else {
    std::stable_sort(run->order.begin(), run->order.end(), less);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  runs_.push_back(std::move(run));
}

bool LegacySortOperator::Finish(WorkOrderSink& sink) {
  if (outstanding() > 0) return false;
  if (!merging_) {
    merging_ = true;
    Spawn(sink, [this](WorkOrderContext& context) { Merge(context); });
  }
  return true;
}

void LegacySortOperator::Merge(WorkOrderContext& context) {
  struct Head {
    uint32_t run;
    size_t pos;
  };
  auto after = [&](const Head& a, const Head& b) {
    int c = CompareRows(*runs_[a.run], runs_[a.run]->order[a.pos], *runs_[b.run],
                        runs_[b.run]->order[b.pos]);
    return c != 0 ? c > 0 : a.run > b.run;
  };
  std::priority_queue<Head, std::vector<Head>, decltype(after)> heap(after);
  for (uint32_t r = 0; r < runs_.size(); ++r) heap.push({r, 0});
  std::shared_ptr<ChunkBlock> out = ChunkBlock::Make(context);
  const std::vector<Type>& types = output_types();
  uint64_t emitted = 0;
  std::vector<std::pair<const Run*, Ref>> batch;
  auto flush = [&] {
    if (batch.empty()) return;
    DataChunk c(types);
    for (size_t col = 0; col < types.size(); ++col) {
      Vector& dst = c.column(col);
      DispatchPhysical(dst.physical(), [&]<typename T>() {
        T* d = dst.mutable_data<T>();
        for (size_t k = 0; k < batch.size(); ++k) {
          const Vector& src = batch[k].first->chunks[batch[k].second.chunk].column(col);
          uint32_t row = batch[k].second.row;
          if (src.IsNull(row)) {
            dst.SetNull(static_cast<uint32_t>(k), true);
          } else {
            d[k] = src.data<T>()[row];
            if (src.nulls() != nullptr || dst.nulls() != nullptr) {
              dst.SetNull(static_cast<uint32_t>(k), false);
            }
          }
        }
      });
    }
    c.set_size(static_cast<uint32_t>(batch.size()));
    out->chunks.push_back(std::move(c));
    batch.clear();
  };
  while (!heap.empty() && emitted < limit_) {
    Head h = heap.top();
    heap.pop();
    const Run& run = *runs_[h.run];
    batch.emplace_back(&run, run.order[h.pos]);
    ++emitted;
    if (batch.size() == kVectorSize) flush();
    if (h.pos + 1 < run.order.size()) heap.push({h.run, h.pos + 1});
  }
  flush();
  // Strings are views into the runs' arenas: the block keeps the runs.
  for (auto& run : runs_) out->keep_alive.push_back(std::shared_ptr<const Run>(std::move(run)));
  runs_.clear();
  EmitIfRows(context, std::move(out));
}

constexpr size_t kRows = size_t{1} << 20;

const std::shared_ptr<Table>& GetTable() {
  static auto* table = [] {
    auto* t = new std::shared_ptr<Table>(physical::CreateTable(
        {"t", {{"k1", Type::Integer()}, {"s", Type::Text()}, {"v", Type::Double()}}, {}}));
    std::mt19937_64 rng(5);
    std::vector<Row> batch;
    for (size_t i = 0; i < kRows; ++i) {
      batch.push_back({rng() % 20 == 0 ? Value::Null(Type::Integer())
                                       : Value::Integer(static_cast<int32_t>(rng() % 1000)),
                       Value::Text("str" + std::to_string(rng() % 100)),
                       Value::Double(static_cast<double>(rng() % 100000) / 7)});
      if (batch.size() == 65536) {
        physical::InsertRows(**t, batch);
        batch.clear();
      }
    }
    physical::InsertRows(**t, batch);
    return t;
  }();
  return *table;
}

std::map<std::string, double> g_best;

void SortBench(benchmark::State& state, uint64_t limit, const char* name) {
  GetTable();
  const bool sorter = state.range(0) == 1;
  const int workers = 2;
  SchedulerOptions options;
  options.num_workers = workers;
  Scheduler scheduler(options);
  std::vector<PhysicalSortKey> keys = {{0, false, -1}, {1, true, -1}, {2, false, -1}};
  for (auto _ : state) {
    auto plan = std::make_unique<QueryPlan>();
    auto scan = std::make_unique<TableScanOperator>(*GetTable(), ScanSpec{}, workers);
    std::vector<Type> types = scan->output_types();
    std::unique_ptr<PhysicalOperator> sort;
    if (sorter) {
      sort = std::make_unique<SortOperator>(types, keys, limit, workers);
    } else {
      sort = std::make_unique<LegacySortOperator>(types, keys, limit, workers);
    }
    auto result = std::make_shared<ResultRows>();
    auto sink = std::make_unique<ResultSinkOperator>(types, result);
    OperatorId a = plan->AddOperator(std::move(scan));
    OperatorId b = plan->AddOperator(std::move(sort));
    OperatorId c = plan->AddOperator(std::move(sink));
    plan->AddEdge(a, b, true);
    plan->AddEdge(b, c, true);
    auto start = std::chrono::steady_clock::now();
    scheduler.Submit(std::move(plan), 1, size_t{1} << 30).Wait();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::string key = std::string(name) + (sorter ? "/Sorter" : "/stand-in");
    if (!g_best.count(key) || s < g_best[key]) g_best[key] = s;
    benchmark::DoNotOptimize(result->rows.size());
  }
  state.SetItemsProcessed(state.iterations() * kRows);
}

void BM_SortFull(benchmark::State& state) { SortBench(state, kNoLimit, "SortFull"); }
BENCHMARK(BM_SortFull)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
void BM_TopK(benchmark::State& state) { SortBench(state, 100, "TopK"); }
BENCHMARK(BM_TopK)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace forktail

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (const auto& [k, s] : forktail::g_best) {
    std::printf("%-20s best %8.2f ms (%.1f M rows/s)\n", k.c_str(), s * 1e3,
                forktail::kRows / s / 1e6);
  }
  return 0;
}
