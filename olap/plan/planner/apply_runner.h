// Running an Apply's subquery for one binding (the physical ApplyOperator's
// runner, olap/execution/operator/physical_apply.h). The subplan reads outer columns by id;
// each is replaced by a constant of the binding (NULL stays a typed NULL, so
// `inner = outer` is simply not TRUE), then the plan is optimized, planned
// and run to completion on a private immediate-mode Scheduler on the calling
// thread (the outer query's worker): the nested query never waits for the
// outer scheduler, so it cannot deadlock on its workers. Nested Applies in
// the subplan lose the bindings substituted here and run the same way when
// their turn comes (correlation two or more levels deep).
#pragma once

#include <cstdint>
#include <vector>

#include "olap/plan/logical.h"
#include "scheduler/work_order.h"
#include "storage/table/catalog.h"
#include "storage/value/value.h"

namespace forktail {

// A clone of `plan` with every reference to ids[i] (in expressions, also
// inside nested Applies' subplans) replaced by the constant binding[i] of
// the reference's type.
LogicalOpPtr SubstituteBindings(const LogicalOp& plan, const std::vector<uint32_t>& ids,
                                const Row& binding);

// The rows of `subplan` under `binding` (see above). Throws the query's
// DbError.
std::vector<Row> RunApplySubplan(const LogicalOp& subplan, const std::vector<uint32_t>& ids,
                                 const Row& binding, const Catalog& catalog);

// The rows of a kRecursiveUnion (logical.h): its anchor, then its recursive
// term run again and again, each time with the work table replaced by the
// rows the previous round added, until a round adds none (or the rows reach
// the op's `limit`). Each run is
// planned and run like an Apply's subplan (above). Between rounds it polls
// the query's cancel flag (57014), and it charges the rows it holds to the
// query's memory, so that a recursion that never ends stops at the query's
// memory budget (53200) or its statement_timeout. Throws the query's DbError.
std::vector<Row> RunRecursiveUnion(const LogicalOp& op, const Catalog& catalog,
                                   WorkOrderContext& context);

}  // namespace forktail
