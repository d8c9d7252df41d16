// Constant folding, shared by the binder (which folds as it binds, so that
// literals it checks, such as LIMIT counts and casts of constants, are
// values) and the optimizer's first pass.
#pragma once

#include "olap/expression/expression.h"
#include "olap/plan/logical.h"

namespace forktail {

// Folds the constant subexpressions of `e` (evaluated once, on a one-row
// chunk; an expression that raises stays unfolded, so the error comes at run
// time, if a row evaluates it; a volatile function such as nextval stays a
// call) and the Boolean identities that hold under three-valued logic (TRUE
// AND x = x, FALSE AND x = FALSE, ...).
ExprPtr FoldExpression(ExprPtr e);
// FoldExpression on every expression of the tree; drops conditions that
// folded to TRUE.
void FoldConstants(LogicalOp* op);

}  // namespace forktail
