// Helpers over logical plans and their expressions (column-id based), shared
// by the binder and the optimizer. Internal to olap/plan.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "olap/plan/logical.h"

namespace forktail {

using ColumnSet = std::set<uint32_t>;

// Ids of the kColumnRef nodes in `e`.
void CollectColumns(const Expression& e, ColumnSet* out);
ColumnSet ColumnsOf(const Expression& e);
// Whether every column `e` refers to is in `ids` (true for constants).
bool RefersOnlyTo(const Expression& e, const ColumnSet& ids);
ColumnSet OutputIds(const LogicalOp& op);

// AND trees flattened into their conjuncts (in order); a null expression
// gives none.
void SplitConjuncts(ExprPtr e, std::vector<ExprPtr>* out);
// The AND of `conjuncts` (null if empty).
ExprPtr MakeConjunction(std::vector<ExprPtr> conjuncts);
// The same without taking them: views of `e`'s conjuncts.
void SplitConjuncts(const Expression& e, std::vector<const Expression*>* out);
// OR trees flattened into their disjuncts.
void SplitDisjuncts(const Expression& e, std::vector<const Expression*>* out);

// Replaces each kColumnRef whose id is in `map` with a clone of the mapped
// expression (used to move a condition below a Project).
void SubstituteColumns(ExprPtr* e, const std::map<uint32_t, const Expression*>& map);
// Renames column ids (id -> new id).
void RenameColumns(Expression* e, const std::map<uint32_t, uint32_t>& map);
// The same in every expression and column id of a plan, its children and
// subplans (outputs included): for ids that, within `op`, name one column
// each (a column an operator below computes anew).
void RenameColumnsInPlan(LogicalOp* op, const std::map<uint32_t, uint32_t>& map);

// Structural equality (same kinds, types, operators, constants, children).
// Column refs match when `same_column(a_id, b_id)` holds (default: equal ids).
bool ExprEquals(const Expression& a, const Expression& b,
                const std::function<bool(uint32_t, uint32_t)>& same_column = {});
// Whether `e` calls a volatile function (clock_timestamp(), nextval()).
bool HasVolatileCall(const Expression& e);

// Whether the expression is a constant TRUE / a constant (non-NULL) FALSE or
// NULL (a condition that keeps no row).
bool IsTrueConstant(const Expression& e);
bool IsFalseOrNullConstant(const Expression& e);

// Visits every expression slot of `op` (not its children): conditions,
// expressions, Values rows.
void ForEachExpression(LogicalOp& op, const std::function<void(ExprPtr&)>& f);

// Recomputes the output columns of pass-through operators from their
// children (Filter, Sort, Limit, Distinct, Join, Apply); other kinds are
// unchanged.
void RecomputeColumns(LogicalOp* op);

// COALESCE(a, b) (the factory takes a vector, which braces cannot fill
// with move-only pointers).
ExprPtr Coalesce2(ExprPtr a, ExprPtr b);

// The operator constructors the binder and optimizer use.
LogicalOpPtr MakeFilter(LogicalOpPtr child, std::vector<ExprPtr> conditions);
LogicalOpPtr MakeProject(LogicalOpPtr child, std::vector<LogicalColumn> columns,
                         std::vector<ExprPtr> expressions);
LogicalOpPtr MakeJoin(LogicalJoinKind kind, LogicalOpPtr left, LogicalOpPtr right,
                      std::vector<uint32_t> left_keys, std::vector<uint32_t> right_keys,
                      std::vector<ExprPtr> residual);

}  // namespace forktail
