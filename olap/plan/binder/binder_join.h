// Join FROM items: USING / NATURAL column merging and FULL JOIN keys, as
// PostgreSQL 15 binds them (binder_query.cc calls these from BindTableRef).
//
// USING (c, ...) and NATURAL (USING over the names both sides show, in the
// left side's order; none: no condition) add l.c = r.c per column and one
// merged column c per name, reachable unqualified and listed first by *:
//
//   INNER / LEFT  the left's c                  (the same column id)
//   RIGHT         the right's c
//   FULL          COALESCE(l.c, r.c)            (a Project over the join)
//
// (and a cast to the common type when the two differ). Both copies stay
// reachable qualified (l.c, r.c, l.*) but are hidden from * and from
// unqualified names. The merged columns live in a scope relation with no
// alias placed before the join's relations.
//
// FULL JOIN runs only as a hash join (planner_join.cc), so its condition
// must give keys: each conjunct `x = y` with x over one side only and y over
// the other becomes column = column, computed sides projected into columns
// below the join (PostgreSQL also hashes expressions). A condition with no
// column (ON TRUE, ON FALSE, NATURAL with no common name) becomes a constant
// key on both sides (equal, or different when the condition is FALSE/NULL).
// What is left stays a residual of the hash join; without any key the
// planner raises PostgreSQL's 0A000.
#pragma once

#include <string>
#include <vector>

#include "olap/plan/binder/binder_internal.h"

namespace forktail {

struct UsingMerge {
  ScopeRelation merged;  // alias "", the merged columns (empty: no USING)
  // Merged columns computed over the join (FULL's COALESCE, casts).
  std::vector<LogicalColumn> computed;
  std::vector<ExprPtr> exprs;
};

// NATURAL: the names of the visible columns of `left` that `right` shows
// too, in left's order.
std::vector<std::string> NaturalJoinColumns(const Scope& left, const Scope& right);

// USING `names`: appends l.c = r.c to *conditions, hides both copies in
// *both (which holds left's then right's relations) and returns the merged
// relation. Errors as PostgreSQL's (42701, 42702, 42703).
UsingMerge BindUsingColumns(Binder& binder, const std::vector<std::string>& names,
                            sql::JoinKind kind, const Scope& left, const Scope& right, Scope* both,
                            std::vector<ExprPtr>* conditions);

// FULL JOIN: rewrites *conditions so the hash join has keys (see above).
void PrepareFullJoinKeys(Binder& binder, LogicalOpPtr* left, LogicalOpPtr* right,
                         std::vector<ExprPtr>* conditions);

// The merge's computed columns on top of the join (unchanged if none).
LogicalOpPtr AddUsingMerge(LogicalOpPtr join, UsingMerge* merge);

}  // namespace forktail
