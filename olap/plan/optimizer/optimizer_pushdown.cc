// Predicate push-down. Push(op, preds) places the conjuncts `preds` (over
// op's output ids) as deep in op's subtree as they stay correct and returns
// the rewritten subtree; what cannot go down lands in a Filter above op.
#include <algorithm>
#include <utility>

#include "olap/expression/scalar_function.h"
#include "olap/plan/logical_util.h"
#include "olap/plan/optimizer/optimizer_internal.h"

namespace forktail {

namespace {

using Preds = std::vector<ExprPtr>;

// (A AND B) OR (A AND C)  ->  A AND (B OR C): conjuncts common to every
// disjunct come out (TPC-H Q19 repeats its join condition in each branch).
void FactorDisjunction(ExprPtr e, Preds* out) {
  if (e->kind != ExprKind::kOr) {
    out->push_back(std::move(e));
    return;
  }
  std::vector<const Expression*> disjuncts;
  SplitDisjuncts(*e, &disjuncts);
  std::vector<Preds> branches;
  for (const Expression* d : disjuncts) {
    Preds c;
    SplitConjuncts(CloneExpr(*d), &c);
    branches.push_back(std::move(c));
  }
  Preds common;
  for (size_t i = 0; i < branches[0].size();) {
    const Expression& candidate = *branches[0][i];
    bool everywhere = true;
    for (size_t b = 1; b < branches.size() && everywhere; b++) {
      bool found = false;
      for (const ExprPtr& x : branches[b]) found = found || ExprEquals(*x, candidate);
      everywhere = found;
    }
    if (!everywhere) {
      i++;
      continue;
    }
    for (size_t b = 1; b < branches.size(); b++) {
      for (size_t j = 0; j < branches[b].size(); j++) {
        if (ExprEquals(*branches[b][j], candidate)) {
          branches[b].erase(branches[b].begin() + static_cast<long>(j));
          break;
        }
      }
    }
    common.push_back(std::move(branches[0][i]));
    branches[0].erase(branches[0].begin() + static_cast<long>(i));
  }
  if (common.empty()) {
    out->push_back(std::move(e));
    return;
  }
  ExprPtr rest;
  bool some_branch_empty = false;
  for (Preds& b : branches) some_branch_empty = some_branch_empty || b.empty();
  if (!some_branch_empty) {  // an empty branch is TRUE: the OR is TRUE
    for (Preds& b : branches) {
      ExprPtr conj = MakeConjunction(std::move(b));
      rest = rest ? Or(std::move(rest), std::move(conj)) : std::move(conj);
    }
  }
  for (ExprPtr& c : common) out->push_back(std::move(c));
  if (rest) out->push_back(std::move(rest));
}

// From an OR over both sides, the implied condition on one side only:
// OR over disjuncts of (the disjunct's conjuncts on that side); null when
// some disjunct says nothing about that side.
ExprPtr DeriveForSide(const Expression& e, const ColumnSet& side) {
  if (e.kind != ExprKind::kOr) return nullptr;
  std::vector<const Expression*> disjuncts;
  SplitDisjuncts(e, &disjuncts);
  ExprPtr result;
  for (const Expression* d : disjuncts) {
    Preds conj, mine;
    SplitConjuncts(CloneExpr(*d), &conj);
    for (ExprPtr& c : conj) {
      if (RefersOnlyTo(*c, side) && !ColumnsOf(*c).empty()) mine.push_back(std::move(c));
    }
    if (mine.empty()) return nullptr;
    ExprPtr part = MakeConjunction(std::move(mine));
    result = result ? Or(std::move(result), std::move(part)) : std::move(part);
  }
  return result;
}

// A side of a join key: a plain column, or an integer column widened to
// another integer type by a cast (the binder's int = bigint). Hash keys
// compare integers as 64-bit values whatever their width (key_encoder.h), so
// the column itself can be the key.
const Expression* KeySide(const Expression& e) {
  if (e.kind == ExprKind::kColumnRef) return &e;
  if (e.kind == ExprKind::kCast && e.type.IsInteger() && e.children.size() == 1 &&
      e.children[0]->kind == ExprKind::kColumnRef && e.children[0]->type.IsInteger()) {
    return e.children[0].get();
  }
  return nullptr;
}

// l = r with l's columns in `left` and r's in `right` (either order):
// the key pair, if both are key sides of compatible types (*l_side and
// *r_side: the columns).
bool AsKeyPair(const Expression& e, const ColumnSet& left, const ColumnSet& right, uint32_t* l,
               uint32_t* r, const Expression** l_side = nullptr,
               const Expression** r_side = nullptr) {
  if (e.kind != ExprKind::kCompare || e.compare != CompareOp::kEq) return false;
  const Expression* a = KeySide(*e.children[0]);
  const Expression* b = KeySide(*e.children[1]);
  if (a == nullptr || b == nullptr) return false;
  if (!KeyCompatible(a->type, b->type) && !(a->type.IsInteger() && b->type.IsInteger())) {
    return false;
  }
  if (!left.count(a->column) || !right.count(b->column)) std::swap(a, b);
  if (!left.count(a->column) || !right.count(b->column)) return false;
  *l = a->column;
  *r = b->column;
  if (l_side) *l_side = a;
  if (r_side) *r_side = b;
  return true;
}

// The next column id a rewrite may take (PushDownPredicates sets it past
// every id of the plan it rewrites).
thread_local uint32_t t_next_id = 0;

uint32_t MaxColumnId(const LogicalOp& op) {
  uint32_t max = 0;
  for (const LogicalColumn& c : op.columns) max = std::max(max, c.id);
  LogicalOp& mutable_op = const_cast<LogicalOp&>(op);
  ForEachExpression(mutable_op, [&](ExprPtr& e) {
    if (!e) return;
    for (uint32_t id : ColumnsOf(*e)) max = std::max(max, id);
  });
  for (const LogicalOpPtr& c : op.children) {
    if (c) max = std::max(max, MaxColumnId(*c));
  }
  return max;
}

// f(l) = g(r) with f reading only `left`'s columns and g only `right`'s
// (TPC-C/CH: mod(s_w_id * s_i_id, 10000) = su_suppkey), neither a plain
// column pair (AsKeyPair's) nor volatile: the sides, left first, to become
// computed join keys.
bool AsExpressionKeys(const Expression& e, const ColumnSet& left, const ColumnSet& right,
                      const Expression** l_side, const Expression** r_side) {
  if (e.kind != ExprKind::kCompare || e.compare != CompareOp::kEq || e.children.size() != 2) {
    return false;
  }
  const Expression* a = e.children[0].get();
  const Expression* b = e.children[1].get();
  if (!KeyCompatible(a->type, b->type) && !(a->type.IsInteger() && b->type.IsInteger())) {
    return false;
  }
  if (HasVolatileCall(*a) || HasVolatileCall(*b)) return false;
  const ColumnSet ca = ColumnsOf(*a), cb = ColumnsOf(*b);
  if (ca.empty() || cb.empty()) return false;
  if (RefersOnlyTo(*a, right) && RefersOnlyTo(*b, left)) std::swap(a, b);
  if (!RefersOnlyTo(*a, left) || !RefersOnlyTo(*b, right)) return false;
  *l_side = a;
  *r_side = b;
  return true;
}

// `op` with the column `id` = `key` added as low in it as it can be: in
// the child of an inner join that has all of the key's columns (so that
// the join order stays free to change: ReorderJoins sees through inner
// joins only), else by a Project above `op`.
LogicalOpPtr AddKeyColumn(LogicalOpPtr op, const Expression& key, uint32_t id) {
  const bool inner =
      op->kind == LogicalOpKind::kJoin &&
      (op->join_kind == LogicalJoinKind::kInner || op->join_kind == LogicalJoinKind::kCross);
  if (inner || op->kind == LogicalOpKind::kFilter) {
    for (LogicalOpPtr& child : op->children) {
      if (RefersOnlyTo(key, OutputIds(*child))) {
        child = AddKeyColumn(std::move(child), key, id);
        RecomputeColumns(op.get());
        return op;
      }
    }
  }
  auto project = std::make_unique<LogicalOp>();
  project->kind = LogicalOpKind::kProject;
  for (const LogicalColumn& c : op->columns) {
    project->columns.push_back(c);
    project->expressions.push_back(ColumnRef(c.id, c.type));
  }
  project->columns.push_back({id, "?join_key?", key.type});
  project->expressions.push_back(CloneExpr(key));
  project->children.push_back(std::move(op));
  return project;
}

// `child` with each of `keys` that is not a plain column added as a new
// column (AddKeyColumn); *ids: the key columns' ids.
LogicalOpPtr WithKeyColumns(LogicalOpPtr child, const std::vector<const Expression*>& keys,
                            std::vector<uint32_t>* ids) {
  for (const Expression* k : keys) {
    if (k->kind == ExprKind::kColumnRef) {
      ids->push_back(k->column);
      continue;
    }
    const uint32_t id = t_next_id++;
    child = AddKeyColumn(std::move(child), *k, id);
    ids->push_back(id);
  }
  return child;
}

// Equal join keys carry constants across: with `from` = `to` a join key
// and `from` = c among `preds`, `to` = c holds too (c_w_id = w_id AND
// w_id = 1 gives c_w_id = 1, which an index on c_w_id can use). Only for
// keys of one type, so the comparison means the same on either side.
void TransferConstants(const Preds& preds, const Expression& from, const Expression& to,
                       Preds* into) {
  if (!(from.type == to.type)) return;
  for (const ExprPtr& p : preds) {
    if (p->kind != ExprKind::kCompare || p->compare != CompareOp::kEq) continue;
    for (int side = 0; side < 2; side++) {
      const Expression& column = *p->children[side];
      const Expression& value = *p->children[1 - side];
      if (column.kind == ExprKind::kColumnRef && column.column == from.column &&
          value.kind == ExprKind::kConstant && !value.constant.is_null()) {
        into->push_back(Compare(CompareOp::kEq, ColumnRef(to.column, to.type), CloneExpr(value)));
        return;
      }
    }
  }
}

// Whether e is NULL whenever every column of `side` is NULL (it reads one
// of them through operators that are NULL on a NULL operand).
bool NullIfSideNull(const Expression& e, const ColumnSet& side) {
  switch (e.kind) {
    case ExprKind::kColumnRef:
      return side.count(e.column) != 0;
    case ExprKind::kArith:
    case ExprKind::kCompare:
    case ExprKind::kCast:
    case ExprKind::kLike:
    case ExprKind::kDateAdd:
    case ExprKind::kExtract:
    case ExprKind::kSubstring:
      for (const ExprPtr& c : e.children) {
        if (NullIfSideNull(*c, side)) return true;
      }
      return false;
    case ExprKind::kIn:
      return NullIfSideNull(*e.children[0], side);
    default:
      return false;
  }
}

// Whether the condition e cannot be TRUE on a row whose `side` columns are
// all NULL (PostgreSQL's "strict" qual, reduce_outer_joins): above an outer
// join it removes the rows that pad `side` with NULLs.
bool NullRejecting(const Expression& e, const ColumnSet& side) {
  switch (e.kind) {
    case ExprKind::kAnd:
      for (const ExprPtr& c : e.children) {
        if (NullRejecting(*c, side)) return true;
      }
      return false;
    case ExprKind::kOr:
      for (const ExprPtr& c : e.children) {
        if (!NullRejecting(*c, side)) return false;
      }
      return !e.children.empty();
    case ExprKind::kIsNull:
      return e.negated && NullIfSideNull(*e.children[0], side);
    case ExprKind::kNot:
      return NullIfSideNull(*e.children[0], side);
    default:
      return NullIfSideNull(e, side);
  }
}

// A FULL JOIN under WHERE conjuncts `preds`: a conjunct rejecting the rows
// whose left columns are NULL (the right's unmatched rows) leaves only the
// left side preserved: LEFT. Rejecting NULL right columns: LEFT with the
// children (and keys) swapped. Both: inner. Otherwise it stays FULL.
void ReduceFullJoin(LogicalOp* op, const Preds& preds) {
  ColumnSet left = OutputIds(*op->children[0]);
  ColumnSet right = OutputIds(*op->children[1]);
  bool left_not_null = false, right_not_null = false;
  for (const ExprPtr& p : preds) {
    left_not_null = left_not_null || NullRejecting(*p, left);
    right_not_null = right_not_null || NullRejecting(*p, right);
  }
  if (left_not_null && right_not_null) {
    op->join_kind = LogicalJoinKind::kInner;
  } else if (left_not_null) {
    op->join_kind = LogicalJoinKind::kLeft;
  } else if (right_not_null) {
    op->join_kind = LogicalJoinKind::kLeft;
    std::swap(op->children[0], op->children[1]);
    std::swap(op->left_keys, op->right_keys);
  }
}

LogicalOpPtr Push(LogicalOpPtr op, Preds preds);

LogicalOpPtr WithFilter(LogicalOpPtr op, Preds preds) {
  if (preds.empty()) return op;
  return MakeFilter(std::move(op), std::move(preds));
}

LogicalOpPtr PushJoin(LogicalOpPtr op, Preds preds) {
  if (op->join_kind == LogicalJoinKind::kFull) ReduceFullJoin(op.get(), preds);
  ColumnSet left = OutputIds(*op->children[0]);
  ColumnSet right = OutputIds(*op->children[1]);
  Preds to_left, to_right, above, residual;
  LogicalJoinKind kind = op->join_kind;
  {
    Preds own;
    for (ExprPtr& c : op->conditions) {
      Preds parts;
      SplitConjuncts(std::move(c), &parts);
      for (ExprPtr& q : parts) {
        if (!IsTrueConstant(*q)) FactorDisjunction(std::move(q), &own);
      }
    }
    op->conditions = std::move(own);
  }
  bool inner = kind == LogicalJoinKind::kInner || kind == LogicalJoinKind::kCross;

  if (inner) {
    for (ExprPtr& c : op->conditions) preds.push_back(std::move(c));
    op->conditions.clear();
    Preds key_predicates;  // the l = r predicates that became join keys
    std::vector<const Expression*> left_exprs, right_exprs;                  // computed keys' sides
    std::vector<std::pair<const Expression*, const Expression*>> key_pairs;  // their columns
    for (ExprPtr& p : preds) {
      if (RefersOnlyTo(*p, left)) {
        to_left.push_back(std::move(p));
      } else if (RefersOnlyTo(*p, right)) {
        to_right.push_back(std::move(p));
      } else {
        uint32_t l, r;
        const Expression *l_side, *r_side;
        if (AsKeyPair(*p, left, right, &l, &r, &l_side, &r_side)) {
          op->left_keys.push_back(l);
          op->right_keys.push_back(r);
          key_pairs.push_back({l_side, r_side});
          key_predicates.push_back(std::move(p));  // keeps the sides alive
          continue;
        }
        if (AsExpressionKeys(*p, left, right, &l_side, &r_side)) {
          left_exprs.push_back(l_side);
          right_exprs.push_back(r_side);
          key_predicates.push_back(std::move(p));
          continue;
        }
        if (ExprPtr d = DeriveForSide(*p, left)) to_left.push_back(std::move(d));
        if (ExprPtr d = DeriveForSide(*p, right)) to_right.push_back(std::move(d));
        residual.push_back(std::move(p));
      }
    }
    for (const auto& [l_side, r_side] : key_pairs) {
      const Expression& l = *l_side;
      const Expression& r = *r_side;
      const size_t left_before = to_left.size();
      TransferConstants(to_right, r, l, &to_left);
      if (to_left.size() == left_before) TransferConstants(to_left, l, r, &to_right);
    }
    if (!left_exprs.empty()) {
      // The computed keys become columns of Projects above the children.
      op->children[0] = WithKeyColumns(std::move(op->children[0]), left_exprs, &op->left_keys);
      op->children[1] = WithKeyColumns(std::move(op->children[1]), right_exprs, &op->right_keys);
    }
    op->join_kind = op->left_keys.empty() && residual.empty() ? LogicalJoinKind::kCross
                                                              : LogicalJoinKind::kInner;
  } else {
    // Only the left side's rows come out unchanged (left, semi, anti,
    // single): conditions above on the left's columns go there. A FULL
    // join preserves both sides: nothing goes below it.
    const bool full = kind == LogicalJoinKind::kFull;
    for (ExprPtr& p : preds) {
      if (!full && RefersOnlyTo(*p, left)) {
        to_left.push_back(std::move(p));
      } else {
        above.push_back(std::move(p));
      }
    }
    // The join's own condition: the parts on the right side alone filter the
    // right input (ON conditions of the nullable side, subquery conditions).
    for (ExprPtr& c : op->conditions) {
      uint32_t l, r;
      if (kind != LogicalJoinKind::kNullAwareAnti && AsKeyPair(*c, left, right, &l, &r)) {
        op->left_keys.push_back(l);
        op->right_keys.push_back(r);
        continue;
      }
      if (!full && !ColumnsOf(*c).empty() && RefersOnlyTo(*c, right)) {
        to_right.push_back(std::move(c));
      } else if (kind == LogicalJoinKind::kSemi && !ColumnsOf(*c).empty() &&
                 RefersOnlyTo(*c, left)) {
        to_left.push_back(std::move(c));
      } else {
        residual.push_back(std::move(c));
      }
    }
  }
  op->conditions = std::move(residual);
  op->children[0] = Push(std::move(op->children[0]), std::move(to_left));
  op->children[1] = Push(std::move(op->children[1]), std::move(to_right));
  RecomputeColumns(op.get());
  return WithFilter(std::move(op), std::move(above));
}

LogicalOpPtr Push(LogicalOpPtr op, Preds incoming) {
  Preds preds;
  for (ExprPtr& p : incoming) {
    Preds parts;
    SplitConjuncts(std::move(p), &parts);
    for (ExprPtr& q : parts) {
      if (IsTrueConstant(*q)) continue;
      FactorDisjunction(std::move(q), &preds);
    }
  }
  switch (op->kind) {
    case LogicalOpKind::kFilter: {
      for (ExprPtr& c : op->conditions) preds.push_back(std::move(c));
      LogicalOpPtr child = std::move(op->children[0]);
      return Push(std::move(child), std::move(preds));
    }
    case LogicalOpKind::kGet:
      for (ExprPtr& p : preds) op->conditions.push_back(std::move(p));
      return op;
    case LogicalOpKind::kProject: {
      std::map<uint32_t, const Expression*> map;
      for (size_t i = 0; i < op->columns.size(); i++) {
        map[op->columns[i].id] = op->expressions[i].get();
      }
      for (ExprPtr& p : preds) SubstituteColumns(&p, map);
      op->children[0] = Push(std::move(op->children[0]), std::move(preds));
      return op;
    }
    case LogicalOpKind::kSort:
    case LogicalOpKind::kDistinct:
      op->children[0] = Push(std::move(op->children[0]), std::move(preds));
      RecomputeColumns(op.get());
      return op;
    case LogicalOpKind::kAggregate: {
      Preds down, above;
      ColumnSet keys(op->group_keys.begin(), op->group_keys.end());
      for (ExprPtr& p : preds) {
        if (!op->group_keys.empty() && RefersOnlyTo(*p, keys)) {
          down.push_back(std::move(p));
        } else {
          above.push_back(std::move(p));
        }
      }
      op->children[0] = Push(std::move(op->children[0]), std::move(down));
      return WithFilter(std::move(op), std::move(above));
    }
    case LogicalOpKind::kJoin:
      return PushJoin(std::move(op), std::move(preds));
    case LogicalOpKind::kApply: {
      // Conditions not reading the subquery's result go below: fewer rows
      // (and distinct bindings) to run the subquery for.
      Preds down, above;
      const ColumnSet input = OutputIds(*op->children[0]);
      ColumnSet result;  // the result column (lateral: the subplan's columns)
      for (const LogicalColumn& c : op->columns) {
        if (!input.count(c.id)) result.insert(c.id);
      }
      for (ExprPtr& p : preds) {
        bool reads_result = false;
        for (uint32_t id : ColumnsOf(*p)) reads_result = reads_result || result.count(id) > 0;
        (reads_result ? above : down).push_back(std::move(p));
      }
      op->children[0] = Push(std::move(op->children[0]), std::move(down));
      RecomputeColumns(op.get());
      return WithFilter(std::move(op), std::move(above));
    }
    default:
      // Limit, set operations, Values: conditions stay above; children are
      // optimized on their own.
      for (LogicalOpPtr& c : op->children) c = Push(std::move(c), {});
      RecomputeColumns(op.get());
      return WithFilter(std::move(op), std::move(preds));
  }
}

}  // namespace

LogicalOpPtr PushDownPredicates(LogicalOpPtr op) {
  t_next_id = MaxColumnId(*op) + 1;
  return Push(std::move(op), {});
}

}  // namespace forktail
