#include "olap/plan/binder/binder_lateral.h"

#include <string>
#include <utility>

namespace forktail {

namespace {

// "t" of the display name "t.x" the binder keeps for column `id`.
std::string TableOf(Binder& binder, uint32_t id) {
  const std::string& shown = binder.display_[id];
  size_t dot = shown.rfind('.');
  return dot == std::string::npos ? shown : shown.substr(0, dot);
}

}  // namespace

Scope LateralScope(const Scope& scope) {
  Scope s;
  s.relations = scope.relations;
  s.outer = scope.outer;
  return s;
}

BoundQuery BindFromSubquery(Binder& binder, const sql::TableRef& ref, const Scope* scope) {
  if (ref.lateral) {
    Scope lateral = LateralScope(*scope);
    return binder.BindQuery(*ref.subquery, &lateral);
  }
  // It sees the enclosing queries (a correlated subquery's FROM item may
  // read the outer row), not this level's items.
  Scope enclosing;
  enclosing.outer = scope->outer;
  try {
    return binder.BindQuery(*ref.subquery, scope->outer != nullptr ? &enclosing : nullptr);
  } catch (const DbError& err) {
    // PostgreSQL tells a reference to an item of this FROM list (visible
    // only to LATERAL items) from one to no item at all.
    const std::string msg = err.what();
    const std::string prefix = "missing FROM-clause entry for table \"";
    if (msg.rfind(prefix, 0) != 0) throw;
    std::string table = msg.substr(prefix.size(), msg.size() - prefix.size() - 1);
    for (const ScopeRelation& rel : scope->relations) {
      if (rel.alias == table) {
        throw DbError(sqlstate::kUndefinedTable,
                      "invalid reference to FROM-clause entry for table \"" + table + "\"",
                      err.position())
            .WithHint("There is an entry for table \"" + table +
                      "\", but it cannot be referenced from this part of the query.");
      }
    }
    throw;
  }
}

LogicalOpPtr JoinMaybeLateral(Binder& binder, LogicalJoinKind kind, LogicalOpPtr left,
                              LogicalOpPtr right, std::vector<ExprPtr> conditions,
                              bool right_first) {
  const LogicalOp& item = right_first ? *left : *right;
  const LogicalOp& other = right_first ? *right : *left;
  ColumnSet outer_ids = OutputIds(other);
  uint32_t lateral_ref = 0;
  bool lateral = false;
  for (uint32_t id : FreeColumns(item)) {
    if (outer_ids.count(id) && !lateral) {
      lateral = true;
      lateral_ref = id;
    }
  }
  if (!lateral) {
    return MakeJoin(kind, std::move(left), std::move(right), {}, {}, std::move(conditions));
  }
  if (right_first || (kind != LogicalJoinKind::kInner && kind != LogicalJoinKind::kCross &&
                      kind != LogicalJoinKind::kLeft)) {
    throw DbError(
        sqlstate::kInvalidColumnReference,
        "invalid reference to FROM-clause entry for table \"" + TableOf(binder, lateral_ref) + "\"",
        binder.ref_position_[lateral_ref]);
  }
  LogicalOpPtr sub = std::move(right);
  if (!conditions.empty()) sub = MakeFilter(std::move(sub), std::move(conditions));
  std::map<uint32_t, Type> types;
  CollectRefTypes(*sub, &types);
  auto apply = std::make_unique<LogicalOp>();
  apply->kind = LogicalOpKind::kApply;
  apply->apply_kind =
      kind == LogicalJoinKind::kLeft ? ApplyKind::kLateralLeft : ApplyKind::kLateral;
  for (uint32_t id : FreeColumns(*sub)) {
    auto t = types.find(id);
    if (t == types.end()) {
      // An outer column read other than by an expression (an aggregate's
      // input) cannot be substituted.
      throw DbError(sqlstate::kFeatureNotSupported,
                    "an outer reference in this position of a LATERAL item is not supported",
                    binder.ref_position_[id]);
    }
    apply->expressions.push_back(ColumnRef(id, t->second));
  }
  apply->columns = sub->columns;  // RecomputeColumns keeps these last
  apply->subplan = std::move(sub);
  apply->children.push_back(std::move(left));
  RecomputeColumns(apply.get());
  return apply;
}

}  // namespace forktail
