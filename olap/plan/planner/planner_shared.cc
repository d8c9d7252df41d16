// Shared subplans: a subtree that computes exactly what an already planned
// one computes (a CTE or view referenced twice, the same derived table
// written twice) reuses that one's physical operator, whose output blocks
// the scheduler delivers to every consumer. PostgreSQL likewise evaluates a
// CTE referenced twice once. The binder binds each reference on its own,
// with fresh column ids, so the comparison maps ids (and join ids) of one
// subtree onto the other's.
#include <map>

#include "olap/plan/logical_util.h"
#include "olap/plan/planner/planner_internal.h"

namespace forktail {
namespace planner {
namespace {

class SameComputation {
 public:
  // Whether b computes what a computes, with b's ids in place of a's.
  bool Compare(const LogicalOp& a, const LogicalOp& b) {
    if (!Same(a, b)) return false;
    // Runtime filters name their join's build column, which the walk maps
    // after the probe side's Get: checked once everything is mapped.
    for (const auto& [x, y] : filters_) {
      if (!SameId(x->build_column, y->build_column)) return false;
    }
    return true;
  }

  // a's output id -> b's (valid after Compare returned true).
  uint32_t Map(uint32_t a_id) const {
    auto it = ids_.find(a_id);
    return it == ids_.end() ? kNoId : it->second;
  }

 private:
  // Records a -> b; false if either is already paired otherwise.
  static bool Pair(std::map<uint32_t, uint32_t>* fwd, std::map<uint32_t, uint32_t>* back,
                   uint32_t a, uint32_t b) {
    return fwd->emplace(a, b).first->second == b && back->emplace(b, a).first->second == a;
  }
  bool SameId(uint32_t a, uint32_t b) const {
    auto it = ids_.find(a);
    return it != ids_.end() && it->second == b;
  }
  bool SameIds(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) const {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!SameId(a[i], b[i])) return false;
    }
    return true;
  }

  // A volatile call is never the same computation twice (each evaluation
  // may answer differently).
  bool SameExpr(const Expression& a, const Expression& b) const {
    return !HasVolatileCall(a) && !HasVolatileCall(b) &&
           ExprEquals(a, b, [this](uint32_t x, uint32_t y) { return SameId(x, y); });
  }

  bool SameExprs(const std::vector<ExprPtr>& a, const std::vector<ExprPtr>& b) const {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!a[i] || !b[i] ? a[i] || b[i] : !SameExpr(*a[i], *b[i])) return false;
    }
    return true;
  }

  bool Same(const LogicalOp& a, const LogicalOp& b) {
    if (a.kind != b.kind || a.children.size() != b.children.size() ||
        a.columns.size() != b.columns.size()) {
      return false;
    }
    // A join's id first: the runtime filters of the Gets below name it.
    if (a.kind == LogicalOpKind::kJoin &&
        !Pair(&join_ids_, &join_ids_back_, static_cast<uint32_t>(a.join_id),
              static_cast<uint32_t>(b.join_id))) {
      return false;
    }
    for (size_t i = 0; i < a.children.size(); ++i) {
      if (!Same(*a.children[i], *b.children[i])) return false;
    }
    // Outputs: pass-through ids are already paired by the children, fresh
    // ones (Get, Project, aggregates, set operations) are paired here.
    for (size_t i = 0; i < a.columns.size(); ++i) {
      if (!(a.columns[i].type == b.columns[i].type) ||
          !Pair(&ids_, &ids_back_, a.columns[i].id, b.columns[i].id)) {
        return false;
      }
    }
    switch (a.kind) {
      case LogicalOpKind::kGet:
        if (a.table_id != b.table_id || a.table_columns != b.table_columns ||
            a.runtime_filters.size() != b.runtime_filters.size()) {
          return false;
        }
        for (size_t i = 0; i < a.runtime_filters.size(); ++i) {
          const RuntimeFilterRef& x = a.runtime_filters[i];
          const RuntimeFilterRef& y = b.runtime_filters[i];
          // Only a join inside the subtree may filter it: one outside could
          // filter the two differently.
          auto j = join_ids_.find(static_cast<uint32_t>(x.join_id));
          if (j == join_ids_.end() || j->second != static_cast<uint32_t>(y.join_id) ||
              x.kind != y.kind || !SameId(x.probe_column, y.probe_column)) {
            return false;
          }
          filters_.emplace_back(&x, &y);
        }
        return SameExprs(a.conditions, b.conditions);
      case LogicalOpKind::kFilter:
        return SameExprs(a.conditions, b.conditions);
      case LogicalOpKind::kProject:
        return SameExprs(a.expressions, b.expressions);
      case LogicalOpKind::kJoin:
        return a.join_kind == b.join_kind && SameIds(a.left_keys, b.left_keys) &&
               SameIds(a.right_keys, b.right_keys) && SameExprs(a.conditions, b.conditions) &&
               a.build_unique == b.build_unique && a.exact_filter == b.exact_filter &&
               a.exact_min == b.exact_min && a.exact_max == b.exact_max;
      case LogicalOpKind::kAggregate:
        if (!SameIds(a.group_keys, b.group_keys) || a.aggregates.size() != b.aggregates.size()) {
          return false;
        }
        for (size_t i = 0; i < a.aggregates.size(); ++i) {
          const LogicalAggregate& x = a.aggregates[i];
          const LogicalAggregate& y = b.aggregates[i];
          if (x.kind != y.kind || x.order.by != y.order.by ||
              x.order.descending != y.order.descending ||
              x.order.nulls_first != y.order.nulls_first || x.order.distinct != y.order.distinct ||
              x.order.filtered != y.order.filtered || x.separator != y.separator ||
              (x.kind != AggKind::kCountStar && !SameId(x.input, y.input))) {
            return false;
          }
        }
        return true;
      case LogicalOpKind::kDistinct:
        return true;
      case LogicalOpKind::kSort:
        if (a.sort_keys.size() != b.sort_keys.size()) return false;
        for (size_t i = 0; i < a.sort_keys.size(); ++i) {
          const SortKeyRef& x = a.sort_keys[i];
          const SortKeyRef& y = b.sort_keys[i];
          if (!SameId(x.column, y.column) || x.descending != y.descending ||
              x.nulls_first != y.nulls_first) {
            return false;
          }
        }
        return true;
      case LogicalOpKind::kLimit:
        return a.limit == b.limit && a.offset == b.offset;
      case LogicalOpKind::kUnion:
      case LogicalOpKind::kIntersect:
      case LogicalOpKind::kExcept:
        return a.set_distinct == b.set_distinct;
      case LogicalOpKind::kValues:
        if (a.rows.size() != b.rows.size()) return false;
        for (size_t i = 0; i < a.rows.size(); ++i) {
          if (!SameExprs(a.rows[i], b.rows[i])) return false;
        }
        return true;
      case LogicalOpKind::kSeries:
        return a.series == b.series;
      case LogicalOpKind::kApply:  // planned per binding at run time
      case LogicalOpKind::kRecursiveUnion:
      case LogicalOpKind::kWorkTable:
      case LogicalOpKind::kWindow:
      case LogicalOpKind::kTableFunction:
        return false;
    }
    return false;
  }

  std::map<uint32_t, uint32_t> ids_, ids_back_;
  std::map<uint32_t, uint32_t> join_ids_, join_ids_back_;
  std::vector<std::pair<const RuntimeFilterRef*, const RuntimeFilterRef*>> filters_;
};

// Operators worth sharing: those that read a table and do work beyond the
// scan (a shared plain scan would only trade a re-read for a fan-out).
bool WorthSharing(const LogicalOp& op) {
  switch (op.kind) {
    case LogicalOpKind::kAggregate:
    case LogicalOpKind::kJoin:
    case LogicalOpKind::kDistinct:
    case LogicalOpKind::kSort:
    case LogicalOpKind::kUnion:
    case LogicalOpKind::kIntersect:
    case LogicalOpKind::kExcept:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::optional<Planned> Planner::FindShared(const LogicalOp& op) const {
  if (!WorthSharing(op) || index_join_hint_ || order_hint_) return std::nullopt;
  for (const auto& [done, planned] : shared_) {
    if (done->kind != op.kind) continue;
    SameComputation same;
    if (!same.Compare(*done, op)) continue;
    Planned reused{planned.id, {}};
    for (uint32_t id : planned.layout) reused.layout.push_back(id == kNoId ? kNoId : same.Map(id));
    return reused;
  }
  return std::nullopt;
}

void Planner::RecordShared(const LogicalOp& op, const Planned& planned) {
  if (WorthSharing(op) && !index_join_hint_ && !order_hint_) shared_.emplace_back(&op, planned);
}

}  // namespace planner
}  // namespace forktail
