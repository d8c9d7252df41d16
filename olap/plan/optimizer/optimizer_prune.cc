// Column pruning, top-down: each operator learns which of its output ids
// someone above reads and asks its children only for what it needs itself.
#include <utility>

#include "olap/plan/logical_util.h"
#include "olap/plan/optimizer/optimizer_internal.h"

namespace forktail {

namespace {

class Pruner {
 public:
  explicit Pruner(const CardinalityEstimator& est) : est_(est) {}

  LogicalOpPtr Prune(LogicalOpPtr op, const ColumnSet& required, bool root) {
    switch (op->kind) {
      case LogicalOpKind::kGet: {
        ColumnSet need = required;
        for (const ExprPtr& c : op->conditions) CollectColumns(*c, &need);
        std::vector<LogicalColumn> cols;
        std::vector<uint32_t> table_cols;
        std::vector<uint32_t> condition_only;
        bool any_output = false;
        for (size_t i = 0; i < op->columns.size(); i++) {
          const uint32_t id = op->columns[i].id;
          if (need.count(id)) {
            cols.push_back(op->columns[i]);
            table_cols.push_back(op->table_columns[i]);
            if (required.count(id) || root) {
              any_output = true;
            } else {
              condition_only.push_back(id);
            }
          }
        }
        if (cols.empty() && !op->columns.empty()) {  // COUNT(*): rows, no values
          cols.push_back(op->columns[0]);
          table_cols.push_back(op->table_columns[0]);
        }
        // Rows still need a column to carry them (COUNT(*) ... WHERE).
        if (!any_output && !condition_only.empty()) condition_only.erase(condition_only.begin());
        op->columns = std::move(cols);
        op->table_columns = std::move(table_cols);
        op->condition_only = std::move(condition_only);
        return op;
      }
      case LogicalOpKind::kFilter: {
        ColumnSet need = required;
        for (const ExprPtr& c : op->conditions) CollectColumns(*c, &need);
        op->children[0] = Prune(std::move(op->children[0]), need, false);
        if (op->conditions.empty() && !root) return std::move(op->children[0]);
        RecomputeColumns(op.get());
        return op;
      }
      case LogicalOpKind::kProject:
        return PruneProject(std::move(op), required, root);
      case LogicalOpKind::kJoin:
        return PruneJoin(std::move(op), required);
      case LogicalOpKind::kAggregate: {
        ColumnSet need(op->group_keys.begin(), op->group_keys.end());
        std::vector<LogicalColumn> cols(op->columns.begin(),
                                        op->columns.begin() + op->group_keys.size());
        std::vector<LogicalAggregate> aggs;
        for (size_t i = 0; i < op->aggregates.size(); i++) {
          const LogicalColumn& c = op->columns[op->group_keys.size() + i];
          bool last_chance =
              aggs.empty() && op->group_keys.empty() && i + 1 == op->aggregates.size();
          if (root || required.count(c.id) || last_chance) {
            aggs.push_back(op->aggregates[i]);
            cols.push_back(c);
            if (op->aggregates[i].kind != AggKind::kCountStar) need.insert(op->aggregates[i].input);
          }
        }
        op->aggregates = std::move(aggs);
        op->columns = std::move(cols);
        op->children[0] = Prune(std::move(op->children[0]), need, false);
        return op;
      }
      case LogicalOpKind::kSort: {
        ColumnSet need = required;
        for (const SortKeyRef& k : op->sort_keys) need.insert(k.column);
        op->children[0] = Prune(std::move(op->children[0]), need, false);
        RecomputeColumns(op.get());
        return op;
      }
      case LogicalOpKind::kWindow: {  // keeps every function; reads keys and arguments
        ColumnSet need = required;
        need.insert(op->partition_keys.begin(), op->partition_keys.end());
        for (const SortKeyRef& k : op->sort_keys) need.insert(k.column);
        for (const WindowFunction& f : op->window_functions) {
          need.insert(f.args.begin(), f.args.end());
        }
        op->children[0] = Prune(std::move(op->children[0]), need, false);
        RecomputeColumns(op.get());
        return op;
      }
      case LogicalOpKind::kLimit:
        op->children[0] = Prune(std::move(op->children[0]), required, false);
        RecomputeColumns(op.get());
        return op;
      default:
        // Distinct and set operations read every column of their inputs.
        for (LogicalOpPtr& c : op->children) {
          ColumnSet all = OutputIds(*c);
          c = Prune(std::move(c), all, false);
        }
        RecomputeColumns(op.get());
        return op;
    }
  }

 private:
  LogicalOpPtr PruneProject(LogicalOpPtr op, const ColumnSet& required, bool root) {
    if (!root) {
      std::vector<LogicalColumn> cols;
      std::vector<ExprPtr> exprs;
      for (size_t i = 0; i < op->columns.size(); i++) {
        if (required.count(op->columns[i].id)) {
          cols.push_back(op->columns[i]);
          exprs.push_back(std::move(op->expressions[i]));
        }
      }
      if (cols.empty() && !op->columns.empty()) {
        cols.push_back(op->columns[0]);
        exprs.push_back(std::move(op->expressions[0]));
      }
      op->columns = std::move(cols);
      op->expressions = std::move(exprs);
    }
    ColumnSet need;
    for (const ExprPtr& e : op->expressions) CollectColumns(*e, &need);
    op->children[0] = Prune(std::move(op->children[0]), need, false);
    // A projection that forwards its input unchanged does nothing (at the
    // root, the names must agree too: they are the result's).
    const LogicalOp& child = *op->children[0];
    bool identity = child.columns.size() == op->columns.size();
    for (size_t i = 0; identity && i < op->columns.size(); i++) {
      const Expression& e = *op->expressions[i];
      identity = e.kind == ExprKind::kColumnRef && e.column == op->columns[i].id &&
                 child.columns[i].id == op->columns[i].id &&
                 (!root || child.columns[i].name == op->columns[i].name);
    }
    if (identity) return std::move(op->children[0]);
    return op;
  }

  LogicalOpPtr PruneJoin(LogicalOpPtr op, const ColumnSet& required) {
    ColumnSet need = required;
    need.insert(op->left_keys.begin(), op->left_keys.end());
    need.insert(op->right_keys.begin(), op->right_keys.end());
    for (const ExprPtr& c : op->conditions) CollectColumns(*c, &need);
    // The build side only filters: a semi join suffices when each probe row
    // matches at most one build row.
    if (op->join_kind == LogicalJoinKind::kInner && !op->left_keys.empty()) {
      bool right_used = false;
      for (const LogicalColumn& c : op->children[1]->columns) {
        right_used = right_used || required.count(c.id) > 0;
      }
      if (!right_used && UniqueOn(*op->children[1], op->right_keys, est_)) {
        op->join_kind = LogicalJoinKind::kSemi;
      }
    }
    for (LogicalOpPtr& c : op->children) {
      ColumnSet mine;
      for (const LogicalColumn& col : c->columns) {
        if (need.count(col.id)) mine.insert(col.id);
      }
      c = Prune(std::move(c), mine, false);
    }
    RecomputeColumns(op.get());
    return op;
  }

  const CardinalityEstimator& est_;
};

}  // namespace

LogicalOpPtr PruneColumns(LogicalOpPtr root, const CardinalityEstimator& estimator) {
  ColumnSet all = OutputIds(*root);
  return Pruner(estimator).Prune(std::move(root), all, true);
}

}  // namespace forktail
