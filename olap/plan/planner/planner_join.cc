// Joins: hash join when there are equality keys (and the join kind can run
// there), NestedLoopJoin otherwise (planner.h lists the rules).
#include <set>

#include "olap/execution/join/join_key_collector.h"
#include "olap/plan/planner/planner_internal.h"
#include "storage/error.h"

namespace forktail {
namespace planner {
namespace {

void CollectIds(const Expression& e, std::set<uint32_t>* out) {
  if (e.kind == ExprKind::kColumnRef) out->insert(e.column);
  for (const ExprPtr& c : e.children) CollectIds(*c, out);
}

std::vector<uint32_t> Concat(std::vector<uint32_t> a, const std::vector<uint32_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The columns of `layout` whose ids are in `keep`, in layout order: their
// positions (what an operator reads) and their ids (the output's layout).
struct PickedColumns {
  std::vector<uint32_t> positions;
  std::vector<uint32_t> ids;
};
PickedColumns Pick(const std::vector<uint32_t>& layout, const std::set<uint32_t>& keep) {
  PickedColumns picked;
  for (uint32_t p = 0; p < layout.size(); ++p) {
    if (keep.count(layout[p]) != 0) {
      picked.positions.push_back(p);
      picked.ids.push_back(layout[p]);
    }
  }
  return picked;
}

// The probes gather their output across input chunks until it holds this
// many rows (compaction_policy.h): a selective join then emits a few dense
// chunks instead of one sparse chunk per input chunk, each with its own
// kVectorSize-slot vectors (TPC-H Q10 at SF1: 2930 chunks of ~40 rows).
CompactionPolicy ProbeCompaction() { return CompactionPolicy::Fixed(kVectorSize / 2); }

// A build estimated to have more rows than this hands no keys to an index
// join: collecting them would cost more than it could save (the collector
// gives up past kRowsPerKey rows per key it may publish).
constexpr double kMaxIndexJoinBuildRows =
    double{JoinKeyCollector::kRowsPerKey * TableScanOperator::kMaxIndexJoinKeys};

// "HashJoinProbe right outer": the EXPLAIN label of a hash probe.
std::string HashProbeLabel(JoinType type) {
  static const char* kNames[] = {"inner",           "left", "semi",       "anti",
                                 "null-aware anti", "full", "right semi", "right anti",
                                 "right outer"};
  return std::string("HashJoinProbe ") + kNames[static_cast<int>(type)];
}

}  // namespace

void Planner::HintIndexJoin(const LogicalOp& probe_side, const std::vector<uint32_t>& key_ids,
                            OperatorId build) {
  const LogicalOp* op = &probe_side;
  for (int depth = 0;
       depth < 2 && (op->kind == LogicalOpKind::kFilter || op->kind == LogicalOpKind::kProject);
       depth++) {
    op = op->children.at(0).get();
  }
  if (op->kind != LogicalOpKind::kGet) return;
  index_join_hint_ = IndexJoinHint{op, key_ids, build};
}

Planned Planner::PlanJoin(const LogicalOp& op) {
  const LogicalOp& lop = *op.children.at(0);  // probe / preserved side
  const LogicalOp& rop = *op.children.at(1);  // build side
  const LogicalJoinKind kind = op.join_kind;
  const bool keyed = !op.left_keys.empty();
  std::vector<const Expression*> residual;
  for (const ExprPtr& c : op.conditions) residual.push_back(c.get());

  std::string detail;
  for (size_t i = 0; i < op.left_keys.size(); ++i) {
    detail += std::string(i ? ", " : "[") + ShowIds({op.left_keys[i]}, {&lop}) + " = " +
              ShowIds({op.right_keys[i]}, {&rop});
  }
  if (keyed) detail += "]";
  std::string residual_text;
  for (const Expression* c : residual) {
    residual_text += (residual_text.empty() ? "" : " AND ") + Show(*c, {&lop, &rop});
  }
  if (!residual_text.empty()) {
    detail += (detail.empty() ? "" : " ") + ("residual=[" + residual_text + "]");
  }
  if (op.build_unique) detail += " build_unique";

  const bool semi_like = kind == LogicalJoinKind::kSemi || kind == LogicalJoinKind::kAnti ||
                         kind == LogicalJoinKind::kNullAwareAnti;
  bool use_hash = keyed;
  JoinType hash_type = JoinType::kInner;
  switch (kind) {
    case LogicalJoinKind::kInner:
      hash_type = JoinType::kInner;
      break;
    case LogicalJoinKind::kLeft:
      hash_type = JoinType::kLeftOuter;
      break;
    case LogicalJoinKind::kSemi:
      hash_type = JoinType::kSemi;
      break;
    case LogicalJoinKind::kAnti:
      hash_type = JoinType::kAnti;
      break;
    case LogicalJoinKind::kNullAwareAnti:
      if (!keyed || !residual.empty()) {
        throw DbError(sqlstate::kFeatureNotSupported,
                      "NOT IN with a correlated or non-equality condition is not supported");
      }
      hash_type = JoinType::kNullAwareAnti;
      break;
    case LogicalJoinKind::kSingle:
      // Unique build keys: at most one match per probe row, a left join.
      use_hash = keyed && op.build_unique && residual.empty();
      hash_type = JoinType::kLeftOuter;
      break;
    case LogicalJoinKind::kCross:
      use_hash = false;
      break;
    case LogicalJoinKind::kFull:
      // A hash join marking the build rows it pairs (join_match_marks.h);
      // as PostgreSQL, no FULL JOIN without a hash-joinable equality (the
      // binder gives ON TRUE / ON FALSE constant keys).
      if (!keyed) {
        throw DbError(sqlstate::kFeatureNotSupported,
                      "FULL JOIN is only supported with merge-joinable or hash-joinable join "
                      "conditions");
      }
      hash_type = JoinType::kFullOuter;
      break;
    case LogicalJoinKind::kRight:
      throw DbError(sqlstate::kFeatureNotSupported, "RIGHT joins are not supported");
  }

  // Semi / anti with a much smaller preserved side: build on it and mark
  // (EXISTS over lineitem in TPC-H Q04, Q21, Q22), so the hash table holds
  // the small side instead of the big one.
  // The same for a LEFT JOIN (TPC-H Q13: customers LEFT JOIN their orders):
  // the big side streams through the probe instead of filling the table.
  if (use_hash && BuildsOnPreservedSide(op)) {
    const JoinType type = kind == LogicalJoinKind::kSemi   ? JoinType::kRightSemi
                          : kind == LogicalJoinKind::kAnti ? JoinType::kRightAnti
                                                           : JoinType::kRightOuter;
    return PlanBuildOnPreserved(op, type, std::move(detail), residual);
  }

  if (!use_hash) {
    Planned left = PlanOp(lop);
    Planned right = PlanOp(rop);
    std::vector<uint32_t> lk, rk;
    for (uint32_t id : op.left_keys) lk.push_back(Position(left.layout, id));
    for (uint32_t id : op.right_keys) rk.push_back(Position(right.layout, id));
    LoopJoinType type = LoopJoinType::kInner;
    if (kind == LogicalJoinKind::kLeft) type = LoopJoinType::kLeftOuter;
    if (kind == LogicalJoinKind::kSemi) type = LoopJoinType::kSemi;
    if (kind == LogicalJoinKind::kAnti) type = LoopJoinType::kAnti;
    if (kind == LogicalJoinKind::kSingle) type = LoopJoinType::kSingle;
    std::vector<uint32_t> both = Concat(left.layout, right.layout);
    Planned out{b_.LoopJoin(left.id, right.id, type, lk, rk, Conjunction(residual, both)),
                semi_like ? left.layout : both};
    Note(out.id, std::string("NestedLoopJoin ") + LoopJoinTypeName(type), detail, op.estimated_rows,
         {left.id, right.id});
    AddMemory(rop.estimated_rows, 16.0 * static_cast<double>(right.layout.size()) + 24.0);
    return out;
  }

  // Hash join. The build side is planned first: its runtime filters go to
  // scans on the probe side, which must come later in the plan.
  Planned right = PlanOp(rop);
  std::vector<uint32_t> rk;
  for (uint32_t id : op.right_keys) rk.push_back(Position(right.layout, id));
  std::set<uint32_t> needed, residual_ids;
  for (const Expression* c : residual) CollectIds(*c, &residual_ids);
  for (const LogicalColumn& c : op.columns) needed.insert(c.id);
  needed.insert(residual_ids.begin(), residual_ids.end());
  // Payload: what the output needs (inner, left, full), or only the residual's
  // columns (semi, anti: the output is the probe side's).
  auto [payload, payload_ids] = Pick(right.layout, semi_like ? residual_ids : needed);
  OperatorId build = b_.HashBuild(right.id, rk, payload);
  Note(build, "HashJoinBuild", "keys=[" + ShowIds(op.right_keys, {&rop}) + "]", rop.estimated_rows,
       {right.id});
  AddMemory(rop.estimated_rows, 32.0 + 8.0 * static_cast<double>(rk.size()) +
                                    16.0 * static_cast<double>(payload.size()));
  if (op.join_id != 0 && (kind == LogicalJoinKind::kInner || kind == LogicalJoinKind::kSemi)) {
    filter_sources_[op.join_id] = {build, op.right_keys};
  }

  if ((hash_type == JoinType::kInner || hash_type == JoinType::kSemi) && rop.estimated_rows >= 0 &&
      rop.estimated_rows <= kMaxIndexJoinBuildRows) {
    HintIndexJoin(lop, op.left_keys, build);
  }
  Planned left = PlanOp(lop);
  index_join_hint_.reset();
  std::vector<uint32_t> lk;
  for (uint32_t id : op.left_keys) lk.push_back(Position(left.layout, id));
  auto [out_cols, layout] = Pick(left.layout, needed);
  if (!semi_like) layout.insert(layout.end(), payload_ids.begin(), payload_ids.end());
  ExprPtr positional = Conjunction(residual, Concat(left.layout, payload_ids));
  std::string label = HashProbeLabel(hash_type);
  if (kind == LogicalJoinKind::kSingle) label += " (single, unique build)";
  Planned out{b_.HashProbe(left.id, build, hash_type, lk, out_cols, ProbeCompaction(),
                           std::move(positional)),
              std::move(layout)};
  Note(out.id, std::move(label), std::move(detail), op.estimated_rows, {left.id, build});
  return out;
}

Planned Planner::PlanBuildOnPreserved(const LogicalOp& op, JoinType type, std::string detail,
                                      const std::vector<const Expression*>& residual) {
  const LogicalOp& lop = *op.children.at(0);  // preserved side: the build
  const LogicalOp& rop = *op.children.at(1);  // the probe
  // The build first: runtime filters from builds inside it go to scans
  // planned after them.
  Planned left = PlanOp(lop);
  std::vector<uint32_t> lk;
  for (uint32_t id : op.left_keys) lk.push_back(Position(left.layout, id));
  std::set<uint32_t> needed;
  for (const Expression* c : residual) CollectIds(*c, &needed);
  for (const LogicalColumn& c : op.columns) needed.insert(c.id);
  // Payload: the output columns and the residual's columns of the preserved
  // side (the residual's extra columns ride along in the output).
  auto [payload, payload_ids] = Pick(left.layout, needed);
  OperatorId build = b_.HashBuild(left.id, lk, payload);
  Note(build, "HashJoinBuild", "keys=[" + ShowIds(op.left_keys, {&lop}) + "]", lop.estimated_rows,
       {left.id});
  AddMemory(lop.estimated_rows, 33.0 + 8.0 * static_cast<double>(lk.size()) +
                                    16.0 * static_cast<double>(payload.size()));

  // Probe rows without a partner count for nothing: the build's keys may
  // filter the probe side's scan (HintAdder places those filters).
  if (op.join_id != 0) filter_sources_[op.join_id] = {build, op.left_keys};
  const bool outer = type == JoinType::kRightOuter;
  if (!outer && lop.estimated_rows >= 0 && lop.estimated_rows <= kMaxIndexJoinBuildRows) {
    HintIndexJoin(rop, op.right_keys, build);
  }
  Planned right = PlanOp(rop);
  index_join_hint_.reset();
  std::vector<uint32_t> rk;
  for (uint32_t id : op.right_keys) rk.push_back(Position(right.layout, id));
  ExprPtr positional = Conjunction(residual, Concat(right.layout, payload_ids));
  // Right semi / anti: the output is the payload; right outer: the probe's
  // needed columns, then the payload.
  PickedColumns probe_out;
  if (outer) probe_out = Pick(right.layout, needed);
  std::vector<uint32_t> layout = std::move(probe_out.ids);
  layout.insert(layout.end(), payload_ids.begin(), payload_ids.end());
  Planned out{
      b_.HashProbe(right.id, build, type, rk, probe_out.positions,
                   outer ? ProbeCompaction() : CompactionPolicy::Off(), std::move(positional)),
      std::move(layout)};
  Note(out.id, HashProbeLabel(type), std::move(detail), op.estimated_rows, {right.id, build});
  return out;
}

}  // namespace planner
}  // namespace forktail
