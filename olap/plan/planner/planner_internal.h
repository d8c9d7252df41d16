// The planner's working state (planner.h), shared by planner*.cc. Internal
// to olap/plan.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "olap/plan/planner/index_selection.h"
#include "olap/plan/planner/planner.h"

namespace forktail {
namespace planner {

// A planned logical operator: its physical operator and the column id at
// each output position.
struct Planned {
  OperatorId id = 0;
  std::vector<uint32_t> layout;
};

// A layout position that carries no id (a zero-column scan's placeholder).
inline constexpr uint32_t kNoId = UINT32_MAX;

class Planner {
 public:
  Planner(const Catalog& catalog, const PlanOptions& options);
  PhysicalPlan Run(const LogicalOp& root);

  // planner.cc
  Planned PlanOp(const LogicalOp& op);
  // planner_shared.cc: the operator of an already planned subtree that
  // computes what `op` computes (a CTE referenced twice), its layout in
  // `op`'s ids; RecordShared offers a planned subtree for reuse.
  std::optional<Planned> FindShared(const LogicalOp& op) const;
  void RecordShared(const LogicalOp& op, const Planned& planned);
  // The position of `id` in `layout`; XX000 if absent.
  static uint32_t Position(const std::vector<uint32_t>& layout, uint32_t id);
  // A clone of `e` with column ids replaced by positions in `layout`.
  static ExprPtr Positional(const Expression& e, const std::vector<uint32_t>& layout);
  // The AND of the positional clones of `conds` (null if none).
  static ExprPtr Conjunction(const std::vector<const Expression*>& conds,
                             const std::vector<uint32_t>& layout);
  // A Select producing exactly `columns` (by id) from `in`, each cast to
  // `types[i]` when given and different.
  Planned ProjectTo(const Planned& in, const std::vector<uint32_t>& ids,
                    const std::vector<Type>* types, double estimated_rows);
  // Records how EXPLAIN shows operator `id`.
  OperatorId Note(OperatorId id, std::string label, std::string detail, double estimated_rows,
                  std::vector<OperatorId> inputs);
  void AddMemory(double rows, double bytes_per_row);
  // "name#id" style text of expressions over a logical operator's inputs.
  static std::string Show(const Expression& e, const std::vector<const LogicalOp*>& inputs);
  static std::string ShowIds(const std::vector<uint32_t>& ids,
                             const std::vector<const LogicalOp*>& inputs);

  // planner_join.cc
  Planned PlanJoin(const LogicalOp& op);
  // A semi, anti or left outer join whose preserved (left) side is the hash
  // build (JoinType::kRightSemi / kRightAnti / kRightOuter), planner_join.cc.
  Planned PlanBuildOnPreserved(const LogicalOp& op, JoinType type, std::string detail,
                               const std::vector<const Expression*>& residual);
  // planner_apply.cc
  Planned PlanApply(const LogicalOp& op);
  // planner_window.cc
  Planned PlanWindow(const LogicalOp& op);
  // planner_setop.cc
  Planned PlanUnion(const LogicalOp& op);
  Planned PlanSetOp(const LogicalOp& op);
  Planned PlanValues(const LogicalOp& op);
  Planned PlanSeries(const LogicalOp& op);
  Planned PlanRecursiveUnion(const LogicalOp& op);

  PlanBuilder& builder() { return b_; }

 private:
  Planned PlanNew(const LogicalOp& op);  // PlanOp without reuse
  Planned PlanGet(const LogicalOp& get, const std::vector<const Expression*>& extra,
                  const LogicalOp* project, double estimated_rows);
  Planned PlanFilter(const LogicalOp& op);
  Planned PlanProject(const LogicalOp& op);
  Planned PlanAggregate(const LogicalOp& op);
  Planned PlanDistinct(const LogicalOp& op);
  Planned PlanSort(const LogicalOp& op, uint64_t k);
  Planned PlanLimit(const LogicalOp& op);

  // Hash builds that may feed runtime filters, by the optimizer's join_id:
  // the build operator and the join's right key ids.
  struct FilterSource {
    OperatorId build = 0;
    std::vector<uint32_t> right_keys;
  };

  const Catalog& catalog_;
  PlanOptions options_;
  std::map<int, FilterSource> filter_sources_;
  // While PlanLimit plans a Sort's input: ORDER BY ... LIMIT over one table,
  // so that PlanGet may read only the first rows of an ordered index.
  std::optional<TableOrder> order_hint_;
  // While PlanJoin plans the probe side of a hash join that drops the probe
  // rows without a match (inner, semi, right semi, right anti): the Get that
  // side reads (below at most a Filter and a Project), the join's probe key
  // ids and the build, so that PlanGet may read by index per build key.
  struct IndexJoinHint {
    const LogicalOp* get = nullptr;
    std::vector<uint32_t> key_ids;  // ids of the probe side's output
    OperatorId build = 0;
  };
  std::optional<IndexJoinHint> index_join_hint_;
  void HintIndexJoin(const LogicalOp& probe_side, const std::vector<uint32_t>& key_ids,
                     OperatorId build);
  std::vector<std::pair<const LogicalOp*, Planned>> shared_;  // RecordShared
  PlanBuilder b_;
  std::vector<PlanNode> nodes_;
  double memory_ = 0;
};

// The ids of `columns`, in order: an operator's output layout.
inline std::vector<uint32_t> ColumnIds(const std::vector<LogicalColumn>& columns) {
  std::vector<uint32_t> ids;
  for (const LogicalColumn& c : columns) ids.push_back(c.id);
  return ids;
}

}  // namespace planner
}  // namespace forktail
