// ApplyOperator: the physical dependent join. For each live input row it
// reads the binding columns (the outer values a correlated subquery uses),
// asks `runner` for the subquery's rows under that binding, folds them into
// one value (ApplyFold below) and appends it as a new last column. Results
// are cached per distinct binding tuple for the operator's lifetime, so the
// subquery runs once per distinct binding, not once per row (the input's
// duplicates are cheap). Rows are never dropped: a condition over the result
// is a Select above.
//
// LATERAL (kLateral / kLateralLeft): the subquery's rows are not folded; each
// input row is emitted once per subquery row, followed by that row's values
// (the subquery's columns); with no rows, kLateral drops the input row and
// kLateralLeft emits it once with NULLs. Rows are cached per binding too.
//
// The runner does the real work (olap/plan/planner/apply_runner.h: substitute,
// optimize, plan, run on a private immediate scheduler); it is a callback so
// this module does not depend on the planner. It may be called from several
// workers at once with different bindings; a binding is run at most once
// (the cache lock is held while it runs, so concurrent rows wait).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "olap/execution/operator/physical_chunk_block.h"
#include "olap/execution/operator/physical_operator.h"
#include "storage/value/value.h"

namespace forktail {

enum class ApplyFold : uint8_t {
  kScalar,       // 0 rows: NULL; 1 row: its (single) value; more: 21000
  kExists,       // TRUE iff a row
  kAny,          // booleans: TRUE if one is TRUE, else NULL if one is NULL, else FALSE
  kAll,          // booleans: FALSE if one is FALSE, else NULL if one is NULL, else TRUE
  kLateral,      // every row (see above): the input row repeated per row
  kLateralLeft,  // ... and once with NULLs when there is none
};

// A total order on rows of the same types in which NULLs come first and
// equal each other (as UNION and DISTINCT compare rows).
struct RowLess {
  bool operator()(const Row& a, const Row& b) const;
};

// The subquery's result rows for one binding (values in binding order).
using ApplyRunner = std::function<std::vector<Row>(const Row& binding)>;

// Folds a subquery's rows per `fold`; the result has type `type`.
Value FoldApplyRows(ApplyFold fold, const std::vector<Row>& rows, const Type& type);

class ApplyOperator final : public PhysicalOperator {
 public:
  ApplyOperator(std::vector<Type> input_types, std::vector<uint32_t> binding_columns,
                ApplyFold fold, Type result_type, ApplyRunner runner, int parallelism);
  // kLateral / kLateralLeft: the subquery's rows have `result_types`.
  ApplyOperator(std::vector<Type> input_types, std::vector<uint32_t> binding_columns,
                ApplyFold fold, std::vector<Type> result_types, ApplyRunner runner,
                int parallelism);

  // Distinct bindings evaluated so far.
  size_t evaluations() const;

 protected:
  void ProcessBlock(WorkOrderContext& context, int slot, size_t input_index,
                    const StreamBlockPtr& block) override;

 private:
  Value Evaluate(const Row& binding);
  // The subquery's rows for `binding` (lateral; cached).
  const std::vector<Row>& LateralRows(const Row& binding);
  void ProcessLateral(WorkOrderContext& context, const ChunkBlock& in,
                      std::shared_ptr<ChunkBlock> out);

  std::vector<uint32_t> binding_columns_;
  ApplyFold fold_;
  Type result_type_;
  std::vector<Type> result_types_;  // lateral
  size_t input_width_ = 0;
  ApplyRunner runner_;
  mutable std::mutex mutex_;
  std::map<Row, Value, RowLess> cache_;
  std::map<Row, std::vector<Row>, RowLess> rows_cache_;  // lateral
};

}  // namespace forktail
