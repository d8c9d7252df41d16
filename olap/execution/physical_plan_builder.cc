#include "olap/execution/physical_plan_builder.h"

#include "olap/execution/aggregate/physical_aggregate.h"
#include "olap/execution/join/physical_hash_join.h"
#include "olap/execution/operator/physical_select.h"
#include "olap/execution/operator/physical_series.h"
#include "olap/execution/operator/physical_union.h"
#include "olap/execution/operator/physical_values.h"

namespace forktail {

PlanBuilder::PlanBuilder(int parallelism)
    : parallelism_(parallelism < 1 ? 1 : parallelism), plan_(std::make_unique<QueryPlan>()) {}

OperatorId PlanBuilder::Add(std::unique_ptr<PhysicalOperator> op) {
  ops_.push_back(op.get());
  return plan_->AddOperator(std::move(op));
}

const std::vector<Type>& PlanBuilder::types(OperatorId id) const {
  return ops_[id]->output_types();
}

OperatorId PlanBuilder::Scan(const Table& table, ScanSpec spec) {
  return Add(std::make_unique<TableScanOperator>(table, std::move(spec), parallelism_));
}

OperatorId PlanBuilder::Select(OperatorId input, ExprPtr filter, std::vector<ExprPtr> projections) {
  OperatorId id = Add(std::make_unique<SelectOperator>(types(input), std::move(filter),
                                                       std::move(projections), parallelism_));
  plan_->AddEdge(input, id, true);
  return id;
}

OperatorId PlanBuilder::HashBuild(OperatorId input, std::vector<uint32_t> key_cols,
                                  std::vector<uint32_t> payload_cols) {
  OperatorId id = Add(std::make_unique<HashJoinBuildOperator>(
      types(input), std::move(key_cols), std::move(payload_cols), parallelism_));
  plan_->AddEdge(input, id, true);
  return id;
}

OperatorId PlanBuilder::HashProbe(OperatorId probe_input, OperatorId build, JoinType type,
                                  std::vector<uint32_t> key_cols, std::vector<uint32_t> out_cols,
                                  CompactionPolicy policy, ExprPtr residual) {
  auto* build_op = dynamic_cast<HashJoinBuildOperator*>(ops_[build]);
  if (build_op == nullptr) abort();  // not a HashBuild id: a plan-construction bug
  OperatorId id = Add(std::make_unique<HashJoinProbeOperator>(
      types(probe_input), build_op, type, std::move(key_cols), std::move(out_cols),
      std::move(policy), parallelism_, std::move(residual)));
  plan_->AddEdge(probe_input, id, true);  // input 0
  plan_->AddEdge(build, id, false);       // input 1
  return id;
}

std::shared_ptr<const RuntimeFilter> PlanBuilder::JoinFilter(OperatorId build, size_t key_index,
                                                             uint32_t scan_column) {
  auto* build_op = dynamic_cast<HashJoinBuildOperator*>(ops_[build]);
  if (build_op == nullptr) abort();  // not a HashBuild id: a plan-construction bug
  auto slot = std::make_shared<JoinFilterSlot>();
  build_op->PublishFilter(key_index, slot);
  return std::make_shared<JoinRuntimeFilter>(std::move(slot), scan_column);
}

std::shared_ptr<JoinKeySlot> PlanBuilder::JoinKeys(OperatorId build, size_t max_keys) {
  auto* build_op = dynamic_cast<HashJoinBuildOperator*>(ops_[build]);
  if (build_op == nullptr) abort();  // not a HashBuild id: a plan-construction bug
  auto slot = std::make_shared<JoinKeySlot>();
  slot->max_keys = max_keys;
  build_op->PublishKeys(slot);
  return slot;
}

void PlanBuilder::Precede(OperatorId first, OperatorId then) { plan_->AddEdge(first, then, false); }

OperatorId PlanBuilder::Aggregate(OperatorId input, std::vector<uint32_t> key_cols,
                                  std::vector<AggregateSpec> aggs, AggMethod method) {
  if (aggs.empty() && !key_cols.empty()) return Distinct(input, std::move(key_cols));
  for (AggregateSpec& a : aggs) {
    if (a.kind != AggKind::kCountStar) a.input_type = types(input)[a.input];
  }
  OperatorId id = Add(std::make_unique<AggregateOperator>(types(input), std::move(key_cols),
                                                          std::move(aggs), method, parallelism_));
  plan_->AddEdge(input, id, true);
  return id;
}

OperatorId PlanBuilder::Distinct(OperatorId input, std::vector<uint32_t> key_cols,
                                 OperatorId* aggregate) {
  const size_t keys = key_cols.size();
  OperatorId agg = Aggregate(input, std::move(key_cols), {{AggKind::kCountStar, 0, {}}});
  if (aggregate != nullptr) *aggregate = agg;
  std::vector<ExprPtr> proj;
  for (uint32_t k = 0; k < keys; ++k) proj.push_back(ColumnRef(k, types(agg)[k]));
  return Select(agg, nullptr, std::move(proj));
}

OperatorId PlanBuilder::Sort(OperatorId input, std::vector<PhysicalSortKey> keys, uint64_t limit) {
  OperatorId id =
      Add(std::make_unique<SortOperator>(types(input), std::move(keys), limit, parallelism_));
  plan_->AddEdge(input, id, true);
  return id;
}

OperatorId PlanBuilder::Window(OperatorId input, PhysicalWindowSpec spec) {
  OperatorId id =
      Add(std::make_unique<WindowOperator>(types(input), std::move(spec), parallelism_));
  plan_->AddEdge(input, id, true);
  return id;
}

OperatorId PlanBuilder::Limit(OperatorId input, uint64_t limit, uint64_t offset) {
  OperatorId id = Add(std::make_unique<LimitOperator>(types(input), limit, offset));
  plan_->AddEdge(input, id, true);
  return id;
}

OperatorId PlanBuilder::UnionAll(const std::vector<OperatorId>& inputs) {
  OperatorId id = Add(std::make_unique<UnionAllOperator>(types(inputs.at(0)), inputs.size()));
  for (OperatorId in : inputs) {
    const std::vector<Type>& t = types(in);
    bool same = t.size() == types(id).size();
    for (size_t c = 0; same && c < t.size(); ++c) {
      same = PhysicalTypeOf(t[c]) == PhysicalTypeOf(types(id)[c]);
    }
    if (!same) abort();  // a plan-construction bug: the planner casts union inputs
    plan_->AddEdge(in, id, true);
  }
  return id;
}

OperatorId PlanBuilder::Values(std::vector<Type> types, std::vector<Row> rows) {
  return Add(std::make_unique<ValuesOperator>(std::move(types), std::move(rows)));
}

OperatorId PlanBuilder::ComputedValues(std::vector<Type> types, ValuesOperator::Producer producer) {
  return Add(std::make_unique<ValuesOperator>(std::move(types), std::move(producer)));
}

OperatorId PlanBuilder::Series(const Type& type, int64_t from, int64_t step, uint64_t count,
                               bool with_ordinality) {
  return Add(std::make_unique<SeriesOperator>(type, from, step, count, with_ordinality));
}

OperatorId PlanBuilder::LoopJoin(OperatorId probe_input, OperatorId build_input, LoopJoinType type,
                                 std::vector<uint32_t> probe_keys, std::vector<uint32_t> build_keys,
                                 ExprPtr residual) {
  OperatorId id = Add(std::make_unique<NestedLoopJoinOperator>(
      types(probe_input), types(build_input), type, std::move(probe_keys), std::move(build_keys),
      std::move(residual), parallelism_));
  plan_->AddEdge(probe_input, id, true);   // input 0
  plan_->AddEdge(build_input, id, false);  // input 1
  return id;
}

OperatorId PlanBuilder::Apply(OperatorId input, std::vector<uint32_t> binding_columns,
                              ApplyFold fold, Type result_type, ApplyRunner runner) {
  OperatorId id =
      Add(std::make_unique<ApplyOperator>(types(input), std::move(binding_columns), fold,
                                          std::move(result_type), std::move(runner), parallelism_));
  plan_->AddEdge(input, id, true);
  return id;
}

OperatorId PlanBuilder::LateralApply(OperatorId input, std::vector<uint32_t> binding_columns,
                                     ApplyFold fold, std::vector<Type> result_types,
                                     ApplyRunner runner) {
  OperatorId id = Add(std::make_unique<ApplyOperator>(types(input), std::move(binding_columns),
                                                      fold, std::move(result_types),
                                                      std::move(runner), parallelism_));
  plan_->AddEdge(input, id, true);
  return id;
}

std::shared_ptr<ResultRows> PlanBuilder::Sink(OperatorId input) {
  auto result = std::make_shared<ResultRows>();
  OperatorId id = Add(std::make_unique<ResultSinkOperator>(types(input), result));
  plan_->AddEdge(input, id, true);
  return result;
}

std::unique_ptr<QueryPlan> PlanBuilder::Build() {
  ops_.clear();
  auto plan = std::move(plan_);
  plan_ = std::make_unique<QueryPlan>();
  return plan;
}

}  // namespace forktail
