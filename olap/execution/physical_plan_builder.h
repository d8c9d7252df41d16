// PlanBuilder: builds a physical QueryPlan in a few lines, wiring each
// operator's input types and the edges' kinds, e.g.
//
//   PlanBuilder b(workers);
//   OperatorId build = b.HashBuild(b.Scan(t, std::move(spec)), {0}, {1});
//   OperatorId probe = b.HashProbe(b.Scan(u), build, JoinType::kInner, {0}, {0, 2});
//   auto result = b.Sink(b.Aggregate(probe, {1}, {{AggKind::kSum, 2}}));
//   scheduler.Submit(b.Build(), 1, estimate).Wait();   // result->rows
//
// Edges: build -> probe is blocking (no probe before the table is final),
// everything else pipelining; a hash build consumes its input as it streams
// (a blocking edge there held the whole build input in its queue).
// `parallelism` is the number of worker slots of each operator (thread-local
// states of aggregator and join); use the scheduler's worker count (1 in
// immediate mode). Column numbers index the input operator's output columns.
#pragma once

#include <memory>
#include <vector>

#include "olap/execution/aggregate/aggregator.h"
#include "olap/execution/join/join_probe.h"
#include "olap/execution/join/physical_nested_loop_join.h"
#include "olap/execution/operator/physical_apply.h"
#include "olap/execution/operator/physical_scan.h"
#include "olap/execution/operator/physical_sink.h"
#include "olap/execution/operator/physical_values.h"
#include "olap/execution/sort/physical_sort.h"
#include "olap/execution/sort/physical_window.h"
#include "scheduler/query_plan.h"

namespace forktail {

class PlanBuilder {
 public:
  explicit PlanBuilder(int parallelism = 2);

  OperatorId Scan(const Table& table, ScanSpec spec = {});
  OperatorId Select(OperatorId input, ExprPtr filter, std::vector<ExprPtr> projections = {});
  OperatorId HashBuild(OperatorId input, std::vector<uint32_t> key_cols,
                       std::vector<uint32_t> payload_cols);
  // residual (may be null): over [probe input columns..., build payload
  // columns...] (physical_hash_join.h).
  OperatorId HashProbe(OperatorId probe_input, OperatorId build, JoinType type,
                       std::vector<uint32_t> key_cols, std::vector<uint32_t> out_cols,
                       CompactionPolicy policy = CompactionPolicy::Off(),
                       ExprPtr residual = nullptr);
  // A runtime (LIP / exact) filter the hash build `build` fills over its key
  // key_cols[key_index], for a probe-side scan's read column `scan_column`
  // (put it in that scan's ScanSpec::runtime_filters, then Precede(build,
  // scan)). Inner and semi joins only (join_runtime_filter.h).
  std::shared_ptr<const RuntimeFilter> JoinFilter(OperatorId build, size_t key_index,
                                                  uint32_t scan_column);
  // The distinct keys the hash build `build` publishes for an index join
  // when it has at most `max_keys` (put the slot in the probe-side scan's
  // ScanSpec::index_join, then Precede(build, scan)). Joins that drop probe
  // rows without a match only: inner, semi, right semi, right anti.
  std::shared_ptr<JoinKeySlot> JoinKeys(OperatorId build, size_t max_keys);
  // A blocking edge: `then` starts only after `first` finished (first < then).
  void Precede(OperatorId first, OperatorId then);
  // The specs' input_type is filled in from the input's types. Keys without
  // aggregates are a Distinct (below).
  OperatorId Aggregate(OperatorId input, std::vector<uint32_t> key_cols,
                       std::vector<AggregateSpec> aggs, AggMethod method = AggMethod::kAdaptive);
  // DISTINCT on key_cols: the aggregator keeps no group without an aggregate
  // state, so this is an Aggregate with a COUNT(*) (*aggregate gets its id)
  // and a Select keeping the key columns (the returned id).
  OperatorId Distinct(OperatorId input, std::vector<uint32_t> key_cols,
                      OperatorId* aggregate = nullptr);
  OperatorId Sort(OperatorId input, std::vector<PhysicalSortKey> keys, uint64_t limit = kNoLimit);
  OperatorId Limit(OperatorId input, uint64_t limit, uint64_t offset = 0);
  // Input columns, then one per window function (olap/execution/sort/physical_window.h).
  OperatorId Window(OperatorId input, PhysicalWindowSpec spec);
  // Inputs must have the same physical column types (cast with a Select).
  OperatorId UnionAll(const std::vector<OperatorId>& inputs);
  // Constant rows (cast to `types` where they differ).
  OperatorId Values(std::vector<Type> types, std::vector<Row> rows);
  // Rows computed when the query runs (physical_values.h).
  OperatorId ComputedValues(std::vector<Type> types, ValuesOperator::Producer producer);
  // generate_series over integers (physical_series.h).
  OperatorId Series(const Type& type, int64_t from, int64_t step, uint64_t count,
                    bool with_ordinality);
  // See physical_nested_loop_join.h; build is materialized (blocking edge).
  OperatorId LoopJoin(OperatorId probe_input, OperatorId build_input, LoopJoinType type,
                      std::vector<uint32_t> probe_keys, std::vector<uint32_t> build_keys,
                      ExprPtr residual);
  // See physical_apply.h: appends the folded subquery result per row.
  OperatorId Apply(OperatorId input, std::vector<uint32_t> binding_columns, ApplyFold fold,
                   Type result_type, ApplyRunner runner);
  // LATERAL (fold kLateral / kLateralLeft): appends the subquery's columns.
  OperatorId LateralApply(OperatorId input, std::vector<uint32_t> binding_columns, ApplyFold fold,
                          std::vector<Type> result_types, ApplyRunner runner);
  std::shared_ptr<ResultRows> Sink(OperatorId input);

  const std::vector<Type>& types(OperatorId id) const;
  // The operator's output counters (they outlive the query).
  std::shared_ptr<OperatorStats> stats(OperatorId id) const { return ops_[id]->stats(); }
  // Operators added so far (ids 0..size()-1).
  size_t size() const { return ops_.size(); }
  // Hands over the plan; the builder is empty afterwards.
  std::unique_ptr<QueryPlan> Build();

 private:
  OperatorId Add(std::unique_ptr<PhysicalOperator> op);

  int parallelism_;
  std::unique_ptr<QueryPlan> plan_;
  std::vector<PhysicalOperator*> ops_;
};

}  // namespace forktail
