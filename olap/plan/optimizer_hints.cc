// Physical hints on the optimized plan: join ids, build-side uniqueness,
// exact (dense key range) filters and LIP filter placement.
#include <algorithm>
#include <cmath>

#include "olap/plan/logical_util.h"
#include "olap/plan/optimizer_internal.h"

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

class HintAdder {
 public:
  HintAdder(CardinalityEstimator& est, bool runtime_filters)
      : est_(est), runtime_filters_(runtime_filters) {}

  void Visit(LogicalOp* op) {
    if (op->kind == LogicalOpKind::kJoin) {
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
    if (op->join_kind != LogicalJoinKind::kInner && op->join_kind != LogicalJoinKind::kSemi) return;
    LogicalOp* get = ProbeGet(op->children[0].get(), op->left_keys[0]);
    if (get == nullptr) return;
    const LogicalOp& build = *op->children[1];
    double build_ndv = est_.Ndv(op->right_keys[0], build.estimated_rows);
    double probe_ndv = est_.Ndv(op->left_keys[0], get->estimated_rows);
    if (build_ndv > kLipMaxShare * probe_ndv) return;
    RuntimeFilterRef f;
    f.join_id = op->join_id;
    f.kind = op->exact_filter ? RuntimeFilterKind::kExact : RuntimeFilterKind::kBloom;
    f.probe_column = op->left_keys[0];
    f.build_column = op->right_keys[0];
    get->runtime_filters.push_back(f);
  }

  CardinalityEstimator& est_;
  bool runtime_filters_;
  int next_join_id_ = 0;
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
  HintAdder(estimator, runtime_filters).Visit(root);
}

}  // namespace forktail
