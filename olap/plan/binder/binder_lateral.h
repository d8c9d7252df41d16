// LATERAL: FROM items that read columns of the FROM items before them.
//
//   FROM t, LATERAL (SELECT ... t.x ...) s        subquery, comma or [INNER] JOIN
//   FROM t LEFT JOIN LATERAL (...) s ON cond      outer rows without a match: NULLs
//   FROM t, generate_series(1, t.n) g             functions are implicitly lateral
//   FROM t, unnest(t.arr) u
//
// Such an item is bound with the earlier items visible as an enclosing scope
// (its plan then reads their column ids: its free columns), and joined to
// them as a dependent join: an Apply of kind kLateral / kLateralLeft
// (logical.h) whose input is the left side and whose subplan is the item
// (with the join's ON conditions as a Filter on top, so a LEFT JOIN's
// condition decides which item rows match). At run time each distinct
// binding of the left columns gets the item's plan with them substituted,
// optimized, planned and run (apply_runner.h), and the Apply emits the left
// row once per item row (kLateralLeft: once with NULLs if there is none).
// An item marked LATERAL that reads no earlier column is an ordinary join.
//
// Why an Apply and not decorrelation: the per-row LIMIT and the
// set-returning functions over outer columns, LATERAL's main uses, have no
// join form without window functions; the Apply already runs any subquery
// shape per binding, and caches per distinct binding.
//
// Scope: the item sees the items to its left in the same FROM list, or in a
// JOIN the join's left side. Errors as PostgreSQL 15's: a subquery without
// LATERAL reading an earlier item: 42P01 `invalid reference to FROM-clause
// entry for table "t"` with its HINT (DbError::hint, ErrorResponse 'H');
// a lateral reference under RIGHT JOIN: 42P10 with the same message.
#pragma once

#include <map>
#include <vector>

#include "olap/plan/binder/binder_internal.h"

namespace forktail {

// Type of each column id referenced in `op`'s expressions (nested Applies'
// subplans included) (binder_apply.cc).
void CollectRefTypes(const Expression& e, std::map<uint32_t, Type>* out);
void CollectRefTypes(const LogicalOp& op, std::map<uint32_t, Type>* out);

// The scope a lateral item (or any function in FROM) binds in: the
// relations of `scope` (the items before it) over `scope->outer`.
Scope LateralScope(const Scope& scope);

// A subquery in FROM: LATERAL binds it in LateralScope(*scope); without
// LATERAL it sees the enclosing queries' columns but none of this query
// level (a reference to an earlier item is 42P01 "invalid reference ...").
BoundQuery BindFromSubquery(Binder& binder, const sql::TableRef& ref, const Scope* scope);

// Joins `right` (bound after `left`) onto `left`: a Join of `kind` with the
// `conditions` if `right` reads no column of `left`, else a lateral Apply
// (kInner / kCross: kLateral; kLeft: kLateralLeft; other kinds: 42P10).
// `right_first` is true when `kind` came from RIGHT JOIN with the children
// swapped (then `left` is the lateral item).
LogicalOpPtr JoinMaybeLateral(Binder& binder, LogicalJoinKind kind, LogicalOpPtr left,
                              LogicalOpPtr right, std::vector<ExprPtr> conditions,
                              bool right_first);

}  // namespace forktail
