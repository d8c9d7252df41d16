// Join ordering. A maximal tree of inner/cross joins is flattened into its
// relations (the subtrees below it, themselves re-ordered first) and its
// predicates (key pairs and residual conditions, each touching a set of
// relations). The cardinality of a set of relations does not depend on the
// order they are joined in: the product of their rows times the selectivity
// of every predicate inside the set. A plan's cost is the sum, over its
// joins, of the join's output rows plus its build side's rows (C_out with a
// build term: building a hash table costs more per row than probing it).
// DP over subsets (splits joined by an equi-key first, then by any
// condition, cross products only for sets the predicates do not connect) finds the cheapest bushy
// tree for up to dp_max_relations relations; beyond that, greedy operator ordering (join the pair
// with the smallest result first).
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "olap/plan/logical_util.h"
#include "olap/plan/optimizer/optimizer_internal.h"
#include "storage/error.h"

namespace forktail {

namespace {

using Mask = uint64_t;

struct JoinPred {
  bool is_key = false;
  uint32_t a = 0, b = 0;  // key pair (a's relation, b's relation)
  ExprPtr residual;
  Mask mask = 0;
  double selectivity = 1;
};

class JoinOrderer {
 public:
  JoinOrderer(CardinalityEstimator& est, const OptimizerOptions& options)
      : est_(est), options_(options) {}

  LogicalOpPtr Run(LogicalOpPtr root) {
    Flatten(std::move(root));
    if (leaves_.size() > 64) return Rebuild();  // not expected; keep a valid tree
    for (size_t i = 0; i < leaves_.size(); i++) rows_.push_back(est_.Estimate(*leaves_[i]));
    ClassifyPredicates();
    size_t n = leaves_.size();
    Mask all = n == 64 ? ~Mask{0} : (Mask{1} << n) - 1;
    if (static_cast<int>(n) <= options_.dp_max_relations && n <= 16) {
      Dp(n);
    } else {
      Greedy(n);
    }
    return Build(all);
  }

 private:
  void Flatten(LogicalOpPtr op) {
    bool inner = op->kind == LogicalOpKind::kJoin && (op->join_kind == LogicalJoinKind::kInner ||
                                                      op->join_kind == LogicalJoinKind::kCross);
    if (!inner) {
      leaves_.push_back(ReorderJoins(std::move(op), est_, options_));
      return;
    }
    for (size_t i = 0; i < op->left_keys.size(); i++) {
      JoinPred p;
      p.is_key = true;
      p.a = op->left_keys[i];
      p.b = op->right_keys[i];
      preds_.push_back(std::move(p));
    }
    for (ExprPtr& c : op->conditions) {
      JoinPred p;
      p.residual = std::move(c);
      preds_.push_back(std::move(p));
    }
    Flatten(std::move(op->children[0]));
    Flatten(std::move(op->children[1]));
  }

  int RelationOf(uint32_t id) const {
    for (size_t i = 0; i < leaves_.size(); i++) {
      if (leaves_[i]->FindColumn(id) >= 0) return static_cast<int>(i);
    }
    return -1;
  }

  void ClassifyPredicates() {
    // Key pairs between the same two relations are estimated together (a
    // composite key is unique where its columns are not): the group's
    // selectivity goes to its first pair, 1 to the others.
    std::map<Mask, std::vector<JoinPred*>> key_groups;
    for (JoinPred& p : preds_) {
      if (p.is_key) {
        int ra = RelationOf(p.a), rb = RelationOf(p.b);
        if (ra > rb) {
          std::swap(p.a, p.b);
          std::swap(ra, rb);
        }
        p.mask = (Mask{1} << ra) | (Mask{1} << rb);
        key_groups[p.mask].push_back(&p);
      } else {
        ColumnSet cols = ColumnsOf(*p.residual);
        double input = 1;
        for (uint32_t id : cols) {
          int r = RelationOf(id);
          if (r >= 0 && !(p.mask & (Mask{1} << r))) {
            p.mask |= Mask{1} << r;
            input *= rows_[r];
          }
        }
        p.selectivity = est_.Selectivity(*p.residual, input);
      }
    }
    for (auto& [mask, group] : key_groups) {
      int ra = RelationOf(group[0]->a), rb = RelationOf(group[0]->b);
      std::vector<uint32_t> a, b;
      for (JoinPred* p : group) {
        a.push_back(p->a);
        b.push_back(p->b);
        p->selectivity = 1;
      }
      group[0]->selectivity = est_.KeysSelectivity(rows_[ra], rows_[rb], a, b);
    }
  }

  double Card(Mask s) {
    auto it = card_.find(s);
    if (it != card_.end()) return it->second;
    double c = 1;
    for (size_t i = 0; i < leaves_.size(); i++) {
      if (s & (Mask{1} << i)) c *= rows_[i];
    }
    for (const JoinPred& p : preds_) {
      if (std::popcount(p.mask) >= 2 && (p.mask & s) == p.mask) c *= p.selectivity;
    }
    c = std::max(c, 1.0);
    card_[s] = c;
    return c;
  }

  // Whether a predicate links s1 and s2 (keys_only: an equi-key pair, so
  // the join can hash; otherwise any condition).
  bool Connected(Mask s1, Mask s2, bool keys_only = false) const {
    for (const JoinPred& p : preds_) {
      if (keys_only && !p.is_key) continue;
      if ((p.mask & s1) && (p.mask & s2) && (p.mask & ~(s1 | s2)) == 0) return true;
    }
    return false;
  }

  // Whether predicates between two relations connect them all. One over
  // three or more (`a.x + b.y > c.z`) does not count: it joins none of its
  // pairs, so those pairs need a product below it (Dp's third pass).
  bool GraphConnected(Mask all, bool keys_only) const {
    Mask reached = 1;
    for (bool grew = true; grew;) {
      grew = false;
      for (const JoinPred& p : preds_) {
        if (keys_only && !p.is_key) continue;
        if (std::popcount(p.mask) != 2) continue;
        if ((p.mask & reached) && (p.mask & ~reached & all)) {
          reached |= p.mask & all;
          grew = true;
        }
      }
    }
    return reached == all;
  }

  struct Best {
    double cost = std::numeric_limits<double>::infinity();
    Mask left = 0, right = 0;
  };

  void Dp(size_t n) {
    Mask all = (Mask{1} << n) - 1;
    // Non-hash joins only when the equi-keys leave the relations apart,
    // cross products only when all predicates do; otherwise a set without
    // such a split is never a sub-plan.
    int max_pass = GraphConnected(all, true) ? 1 : GraphConnected(all, false) ? 2 : 3;
    for (size_t i = 0; i < n; i++) best_[Mask{1} << i] = {0, 0, 0};
    for (Mask s = 1; s <= all; s++) {
      if (std::popcount(s) < 2) continue;
      Best b;
      // Hash joins first, then joins on other conditions, then products.
      for (int pass = 0; pass < max_pass && b.left == 0; pass++) {
        Mask low = s & (~s + 1);
        for (Mask s1 = (s - 1) & s; s1 != 0; s1 = (s1 - 1) & s) {
          if (!(s1 & low)) continue;  // each split once
          Mask s2 = s & ~s1;
          if (pass < 2 && !Connected(s1, s2, pass == 0)) continue;
          double cost = best_[s1].cost + best_[s2].cost + Card(s) + std::min(Card(s1), Card(s2));
          if (cost < b.cost) b = {cost, s1, s2};
        }
      }
      best_[s] = b;
    }
  }

  void Greedy(size_t n) {
    std::vector<Mask> parts;
    for (size_t i = 0; i < n; i++) {
      parts.push_back(Mask{1} << i);
      best_[parts.back()] = {0, 0, 0};
    }
    while (parts.size() > 1) {
      double best_card = std::numeric_limits<double>::infinity();
      size_t bi = 0, bj = 1;
      bool best_connected = false;
      for (size_t i = 0; i < parts.size(); i++) {
        for (size_t j = i + 1; j < parts.size(); j++) {
          bool conn = Connected(parts[i], parts[j], true);
          double c = Card(parts[i] | parts[j]);
          if ((conn && !best_connected) || (conn == best_connected && c < best_card)) {
            best_card = c;
            bi = i;
            bj = j;
            best_connected = conn;
          }
        }
      }
      Mask merged = parts[bi] | parts[bj];
      best_[merged] = {0, parts[bi], parts[bj]};
      parts[bi] = merged;
      parts.erase(parts.begin() + static_cast<long>(bj));
    }
  }

  LogicalOpPtr Build(Mask s) {
    if (std::popcount(s) == 1) {
      int i = std::countr_zero(s);
      LogicalOpPtr leaf = std::move(leaves_[i]);
      // Predicates on one relation only (rare after push-down) filter it.
      std::vector<ExprPtr> own;
      for (JoinPred& p : preds_) {
        if (!p.is_key && p.residual && (p.mask == s || p.mask == 0))
          own.push_back(std::move(p.residual));
      }
      if (!own.empty()) leaf = MakeFilter(std::move(leaf), std::move(own));
      return leaf;
    }
    Mask s1 = best_[s].left, s2 = best_[s].right;
    if (s1 == 0 || s2 == 0) {  // Dp left the set without a plan: a bug, never a crash
      throw DbError(sqlstate::kInternalError, "join ordering found no plan for a join");
    }
    // The larger input probes; the smaller is built (the right child).
    if (Card(s1) < Card(s2)) std::swap(s1, s2);
    LogicalOpPtr left = Build(s1);
    LogicalOpPtr right = Build(s2);
    std::vector<uint32_t> lk, rk;
    std::vector<ExprPtr> residual;
    for (JoinPred& p : preds_) {
      if ((p.mask & s) != p.mask || !(p.mask & s1) || !(p.mask & s2)) continue;
      if (p.is_key) {
        bool a_left = left->FindColumn(p.a) >= 0;
        lk.push_back(a_left ? p.a : p.b);
        rk.push_back(a_left ? p.b : p.a);
      } else if (p.residual) {
        residual.push_back(std::move(p.residual));
      }
    }
    LogicalJoinKind kind =
        lk.empty() && residual.empty() ? LogicalJoinKind::kCross : LogicalJoinKind::kInner;
    return MakeJoin(kind, std::move(left), std::move(right), std::move(lk), std::move(rk),
                    std::move(residual));
  }

  // Fallback: a left-deep tree in the original order.
  LogicalOpPtr Rebuild() {
    LogicalOpPtr acc = std::move(leaves_[0]);
    for (size_t i = 1; i < leaves_.size(); i++) {
      acc = MakeJoin(LogicalJoinKind::kCross, std::move(acc), std::move(leaves_[i]), {}, {}, {});
    }
    std::vector<ExprPtr> all;
    for (JoinPred& p : preds_) {
      if (p.is_key) {
        const LogicalColumn& a = acc->columns[acc->FindColumn(p.a)];
        const LogicalColumn& b = acc->columns[acc->FindColumn(p.b)];
        all.push_back(Compare(CompareOp::kEq, ColumnRef(a.id, a.type), ColumnRef(b.id, b.type)));
      } else {
        all.push_back(std::move(p.residual));
      }
    }
    return all.empty() ? std::move(acc) : MakeFilter(std::move(acc), std::move(all));
  }

  CardinalityEstimator& est_;
  const OptimizerOptions& options_;
  std::vector<LogicalOpPtr> leaves_;
  std::vector<double> rows_;
  std::vector<JoinPred> preds_;
  std::map<Mask, double> card_;
  std::map<Mask, Best> best_;
};

}  // namespace

LogicalOpPtr ReorderJoins(LogicalOpPtr op, CardinalityEstimator& estimator,
                          const OptimizerOptions& options) {
  if (op->kind == LogicalOpKind::kJoin &&
      (op->join_kind == LogicalJoinKind::kInner || op->join_kind == LogicalJoinKind::kCross)) {
    if (!options.reorder_joins) {
      for (LogicalOpPtr& c : op->children) c = ReorderJoins(std::move(c), estimator, options);
      RecomputeColumns(op.get());
      return op;
    }
    return JoinOrderer(estimator, options).Run(std::move(op));
  }
  for (LogicalOpPtr& c : op->children) c = ReorderJoins(std::move(c), estimator, options);
  RecomputeColumns(op.get());
  return op;
}

}  // namespace forktail
