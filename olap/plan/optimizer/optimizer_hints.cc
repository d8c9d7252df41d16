// Physical hints on the optimized plan: join ids, build-side uniqueness,
// exact (dense key range) filters and LIP filter placement; before them, the
// semi-join reduction of grouped build sides (below).
#include <algorithm>
#include <cmath>
#include <map>

#include "olap/plan/logical_util.h"
#include "olap/plan/optimizer/optimizer_internal.h"

namespace forktail {

namespace {

// A dense key: at most this many range slots per row (an ExactFilter bit
// per value of [min, max]) and at most this many slots in all.
constexpr double kDenseSlotsPerRow = 2.0;
constexpr int64_t kMaxExactRange = int64_t{1} << 32;

// A LIP filter pays when the build keeps at most this share of the probe
// key's distinct values.
constexpr double kLipMaxShare = 0.8;

bool ContainsAll(const std::vector<uint32_t>& keys, const std::vector<uint32_t>& needed) {
  for (uint32_t n : needed) {
    if (std::find(keys.begin(), keys.end(), n) == keys.end()) return false;
  }
  return true;
}

// Semi-join reduction of a grouped build side (magic sets, Neumann and
// Kemper; DuckDB's delim join). A decorrelated subquery becomes
//
//   Join (left / single / inner ...) [outer.k = agg.k]
//     <outer: ... Get small (filtered) ...>
//     Aggregate keys=[agg.k] over <big input>
//
// which aggregates ALL of the big input although only the groups whose key
// the outer side produces can match. When the outer key's values all come
// from a Get much smaller than the aggregate's input (traced through
// filters, forwarding projections, inner-join key equalities, the preserved
// side of outer/semi/anti joins and group keys), a copy of that Get (fresh
// column ids, same conditions) becomes a semi join under the Aggregate:
//
//     Aggregate keys=[agg.k]
//       Join semi [agg.k = copy.k]
//         <big input>
//         Get small (copy)
//
// Only whole groups vanish, and only groups no outer row can match, so the
// join's result is unchanged for every join kind but NOT IN's null-aware
// anti join (whose NULL build key matters). The semi join then gets the
// usual runtime filter (exact or Bloom) into the big input's scan.
class GroupedBuildReducer {
 public:
  GroupedBuildReducer(CardinalityEstimator& est, uint32_t next_id) : est_(est), next_id_(next_id) {}

  bool changed() const { return changed_; }

  void Visit(LogicalOp* op) {
    // Not FULL: its build side is preserved too (every build row comes out).
    if (op->kind == LogicalOpKind::kJoin && op->join_kind != LogicalJoinKind::kNullAwareAnti &&
        op->join_kind != LogicalJoinKind::kCross && op->join_kind != LogicalJoinKind::kFull) {
      for (size_t i = 0; i < op->left_keys.size(); i++) {
        if (Reduce(op, i)) break;
      }
    }
    for (LogicalOpPtr& c : op->children) Visit(c.get());
  }

 private:
  // The Aggregate below `op` (through filters and forwarding projections)
  // that has `id` among its group keys; *key: the group key's id.
  static LogicalOp* GroupedSource(LogicalOp* op, uint32_t id, uint32_t* key) {
    while (true) {
      switch (op->kind) {
        case LogicalOpKind::kFilter:
          op = op->children[0].get();
          break;
        case LogicalOpKind::kProject: {
          int pos = op->FindColumn(id);
          if (pos < 0) return nullptr;
          const Expression& e = *op->expressions[pos];
          if (e.kind != ExprKind::kColumnRef) return nullptr;
          id = e.column;
          op = op->children[0].get();
          break;
        }
        case LogicalOpKind::kAggregate:
          if (std::find(op->group_keys.begin(), op->group_keys.end(), id) == op->group_keys.end()) {
            return nullptr;
          }
          *key = id;
          return op;
        default:
          return nullptr;
      }
    }
  }

  struct Source {
    const LogicalOp* get = nullptr;
    uint32_t column = 0;
  };

  // Gets whose column holds every value `id` takes in `op`'s output.
  static void Sources(const LogicalOp& op, uint32_t id, std::vector<Source>* out) {
    if (op.FindColumn(id) < 0) return;
    switch (op.kind) {
      case LogicalOpKind::kGet:
        out->push_back({&op, id});
        return;
      case LogicalOpKind::kFilter:
      case LogicalOpKind::kSort:
      case LogicalOpKind::kLimit:
      case LogicalOpKind::kDistinct:
        Sources(*op.children[0], id, out);
        return;
      case LogicalOpKind::kProject: {
        const Expression& e = *op.expressions[op.FindColumn(id)];
        if (e.kind == ExprKind::kColumnRef) Sources(*op.children[0], e.column, out);
        return;
      }
      case LogicalOpKind::kAggregate:
        if (std::find(op.group_keys.begin(), op.group_keys.end(), id) != op.group_keys.end()) {
          Sources(*op.children[0], id, out);
        }
        return;
      case LogicalOpKind::kJoin: {
        const LogicalOp& l = *op.children[0];
        const LogicalOp& r = *op.children[1];
        const bool inner = op.join_kind == LogicalJoinKind::kInner;
        const bool in_left = l.FindColumn(id) >= 0;
        if (!in_left && !inner) return;  // NULL-extended or absent
        Sources(in_left ? l : r, id, out);
        // A matched pair has equal keys: the other side's key bounds it too.
        if (inner || op.join_kind == LogicalJoinKind::kSemi) {
          const std::vector<uint32_t>& mine = in_left ? op.left_keys : op.right_keys;
          const std::vector<uint32_t>& other = in_left ? op.right_keys : op.left_keys;
          for (size_t k = 0; k < mine.size(); k++) {
            if (mine[k] == id) Sources(in_left ? r : l, other[k], out);
          }
        }
        return;
      }
      default:
        return;
    }
  }

  bool Reduce(LogicalOp* join, size_t i) {
    uint32_t group_key = 0;
    LogicalOp* agg = GroupedSource(join->children[1].get(), join->right_keys[i], &group_key);
    if (agg == nullptr) return false;
    LogicalOp& input = *agg->children[0];
    std::vector<Source> sources;
    Sources(*join->children[0], join->left_keys[i], &sources);
    const Source* best = nullptr;
    for (const Source& s : sources) {
      if (best == nullptr || s.get->estimated_rows < best->get->estimated_rows) best = &s;
    }
    if (best == nullptr || best->get->estimated_rows < 0 || input.estimated_rows < 0) return false;
    // Worth it when the copy keeps a small share of the groups and its scan
    // is cheap beside the aggregate's input.
    const double groups = std::max(1.0, agg->estimated_rows);
    const double kept = est_.Ndv(best->column, best->get->estimated_rows);
    const Table* table = est_.OriginOf(best->column).table;
    const double scanned =
        table != nullptr ? static_cast<double>(table->statistics().row_count()) : 0.0;
    if (kept > kMagicMaxShare * groups || scanned > input.estimated_rows) return false;
    const LogicalColumn* key_col = &best->get->columns[best->get->FindColumn(best->column)];
    int agg_pos = input.FindColumn(group_key);
    if (agg_pos < 0 || !KeyCompatible(input.columns[agg_pos].type, key_col->type)) return false;

    LogicalOpPtr copy = ClonePlan(*best->get);
    copy->runtime_filters.clear();
    std::map<uint32_t, uint32_t> rename;
    for (LogicalColumn& c : copy->columns) {
      rename[c.id] = next_id_;
      c.id = next_id_++;
    }
    for (ExprPtr& c : copy->conditions) RenameColumns(c.get(), rename);
    const uint32_t copy_key = rename.at(best->column);
    agg->children[0] = MakeJoin(LogicalJoinKind::kSemi, std::move(agg->children[0]),
                                std::move(copy), {group_key}, {copy_key}, {});
    changed_ = true;
    return true;
  }

  // Reduce when the outer side keeps at most this share of the groups.
  static constexpr double kMagicMaxShare = 0.5;

  CardinalityEstimator& est_;
  uint32_t next_id_;
  bool changed_ = false;
};

uint32_t MaxColumnId(const LogicalOp& op) {
  uint32_t m = 0;
  for (const LogicalColumn& c : op.columns) m = std::max(m, c.id);
  for (const LogicalOpPtr& c : op.children) m = std::max(m, MaxColumnId(*c));
  return m;
}

class HintAdder {
 public:
  HintAdder(CardinalityEstimator& est, bool runtime_filters)
      : est_(est), runtime_filters_(runtime_filters) {}

  void Visit(LogicalOp* op) {
    if (op->kind == LogicalOpKind::kJoin) {
      // A filter placed by a join above may have narrowed a Get below: the
      // estimates this join's filter is sized by must see it (TPC-H Q18:
      // the orders a semi join keeps make orders a small build for
      // lineitem).
      if (placed_) {
        est_.Estimate(*op);
        placed_ = false;
      }
      op->join_id = ++next_join_id_;
      op->build_unique = UniqueOn(*op->children[1], op->right_keys, est_);
      MarkExact(op);
      if (runtime_filters_) PlaceLip(op);
    }
    for (LogicalOpPtr& c : op->children) Visit(c.get());
  }

 private:
  void MarkExact(LogicalOp* op) {
    op->exact_filter = false;
    if (!op->build_unique || op->right_keys.size() != 1) return;
    const LogicalOp& right = *op->children[1];
    int pos = right.FindColumn(op->right_keys[0]);
    if (pos < 0 || !right.columns[pos].type.IsInteger()) return;
    CardinalityEstimator::Origin o = est_.OriginOf(op->right_keys[0]);
    if (o.table == nullptr) return;
    const TableSchema& schema = o.table->schema();
    if (schema.primary_key.size() != 1 || schema.primary_key[0].value() != o.column) return;
    const TableStatistics& st = o.table->statistics();
    const ColumnStatistics& cs = st.column(ColumnId(static_cast<uint16_t>(o.column)));
    if (!cs.min || !cs.max || st.row_count() == 0) return;
    int64_t lo = cs.min->GetInt(), hi = cs.max->GetInt();
    double range = static_cast<double>(hi) - static_cast<double>(lo) + 1;
    if (range > kDenseSlotsPerRow * static_cast<double>(st.row_count()) ||
        range > static_cast<double>(kMaxExactRange)) {
      return;
    }
    op->exact_filter = true;
    op->exact_min = lo;
    op->exact_max = hi;
  }

  // The Get on the probe side that produces `id`, reached through
  // operators that keep or drop whole rows without changing the meaning of
  // dropping more of them (filters, forwarding projections, the probe side
  // of any join, either side of an inner join).
  static LogicalOp* ProbeGet(LogicalOp* op, uint32_t id) {
    while (true) {
      if (op->FindColumn(id) < 0) return nullptr;
      switch (op->kind) {
        case LogicalOpKind::kGet:
          return op;
        case LogicalOpKind::kFilter:
        case LogicalOpKind::kSort:
          op = op->children[0].get();
          break;
        case LogicalOpKind::kProject: {
          int pos = op->FindColumn(id);
          const Expression& e = *op->expressions[pos];
          if (e.kind != ExprKind::kColumnRef || e.column != id) return nullptr;
          op = op->children[0].get();
          break;
        }
        case LogicalOpKind::kAggregate:
          // A group key: dropping input rows drops whole groups (TPC-H Q02's
          // minimum cost per part, for the parts the outer query keeps).
          if (std::find(op->group_keys.begin(), op->group_keys.end(), id) == op->group_keys.end()) {
            return nullptr;
          }
          op = op->children[0].get();
          break;
        case LogicalOpKind::kJoin: {
          LogicalOp* l = op->children[0].get();
          LogicalOp* r = op->children[1].get();
          if (l->FindColumn(id) >= 0) {
            op = l;
          } else if (op->join_kind == LogicalJoinKind::kInner ||
                     op->join_kind == LogicalJoinKind::kCross) {
            op = r;
          } else {
            return nullptr;
          }
          break;
        }
        default:
          return nullptr;
      }
    }
  }

  void PlaceLip(LogicalOp* op) {
    if (op->left_keys.size() != 1) return;
    // A join built on its preserved side (right semi / anti / outer) filters
    // its other side: rows there without a partner count for nothing.
    const bool flipped = BuildsOnPreservedSide(*op);
    if (!flipped && op->join_kind != LogicalJoinKind::kInner &&
        op->join_kind != LogicalJoinKind::kSemi) {
      return;
    }
    const int probe_side = flipped ? 1 : 0;
    const uint32_t probe_key = flipped ? op->right_keys[0] : op->left_keys[0];
    const uint32_t build_key = flipped ? op->left_keys[0] : op->right_keys[0];
    LogicalOp* get = ProbeGet(op->children[probe_side].get(), probe_key);
    if (get == nullptr) return;
    const LogicalOp& build = *op->children[1 - probe_side];
    double build_ndv = est_.Ndv(build_key, build.estimated_rows);
    double probe_ndv = est_.Ndv(probe_key, get->estimated_rows);
    if (build_ndv > kLipMaxShare * probe_ndv) return;
    RuntimeFilterRef f;
    f.join_id = op->join_id;
    f.kind = op->exact_filter && !flipped ? RuntimeFilterKind::kExact : RuntimeFilterKind::kBloom;
    f.probe_column = probe_key;
    f.build_column = build_key;
    f.selectivity = probe_ndv > 0 ? std::min(1.0, build_ndv / probe_ndv) : 1.0;
    get->runtime_filters.push_back(f);
    placed_ = true;
  }

  CardinalityEstimator& est_;
  bool runtime_filters_;
  int next_join_id_ = 0;
  bool placed_ = false;  // a filter was placed since the last estimate
};

}  // namespace

bool UniqueOn(const LogicalOp& op, const std::vector<uint32_t>& keys,
              const CardinalityEstimator& estimator) {
  switch (op.kind) {
    case LogicalOpKind::kGet: {
      const Table* table = nullptr;
      std::vector<uint32_t> key_cols;
      for (uint32_t k : keys) {
        int pos = op.FindColumn(k);
        if (pos < 0) continue;
        CardinalityEstimator::Origin o = estimator.OriginOf(k);
        if (o.table == nullptr) return false;
        table = o.table;
        key_cols.push_back(op.table_columns[pos]);
      }
      if (table == nullptr || table->schema().primary_key.empty()) return false;
      std::vector<uint32_t> pk;
      for (ColumnId c : table->schema().primary_key) pk.push_back(c.value());
      return ContainsAll(key_cols, pk);
    }
    case LogicalOpKind::kFilter:
    case LogicalOpKind::kSort:
    case LogicalOpKind::kLimit:
      return UniqueOn(*op.children[0], keys, estimator);
    case LogicalOpKind::kProject: {
      std::vector<uint32_t> forwarded;
      for (uint32_t k : keys) {
        int pos = op.FindColumn(k);
        if (pos >= 0 && op.expressions[pos]->kind == ExprKind::kColumnRef) {
          forwarded.push_back(op.expressions[pos]->column);
        }
      }
      return UniqueOn(*op.children[0], forwarded, estimator);
    }
    case LogicalOpKind::kAggregate:
      return ContainsAll(keys, op.group_keys);
    case LogicalOpKind::kDistinct: {
      std::vector<uint32_t> all;
      for (const LogicalColumn& c : op.columns) all.push_back(c.id);
      return ContainsAll(keys, all);
    }
    case LogicalOpKind::kValues:
      return op.rows.size() <= 1;
    case LogicalOpKind::kJoin: {
      const LogicalOp& l = *op.children[0];
      const LogicalOp& r = *op.children[1];
      std::vector<uint32_t> lk, rk;
      for (uint32_t k : keys) (l.FindColumn(k) >= 0 ? lk : rk).push_back(k);
      switch (op.join_kind) {
        case LogicalJoinKind::kSemi:
        case LogicalJoinKind::kAnti:
        case LogicalJoinKind::kNullAwareAnti:
          return UniqueOn(l, lk, estimator);
        case LogicalJoinKind::kInner:
        case LogicalJoinKind::kLeft:
        case LogicalJoinKind::kSingle:
          if (!UniqueOn(l, lk, estimator)) return false;
          // Each left row meets at most one right row, or the right part of
          // the key pins it down.
          return UniqueOn(r, op.right_keys, estimator) || UniqueOn(r, rk, estimator);
        default:
          return false;
      }
    }
    default:
      return false;
  }
}

void AddPhysicalHints(LogicalOp* root, CardinalityEstimator& estimator, bool runtime_filters) {
  if (runtime_filters) {
    GroupedBuildReducer reducer(estimator, MaxColumnId(*root) + 1);
    reducer.Visit(root);
    if (reducer.changed()) {
      estimator.LearnColumns(*root);
      estimator.Estimate(*root);
    }
  }
  HintAdder(estimator, runtime_filters).Visit(root);
}

}  // namespace forktail
