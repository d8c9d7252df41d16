// NestedLoopJoin: joins a streamed probe side with a small, materialized
// build side, for the joins a hash join cannot run:
//   - no equality keys at all (cross product, theta joins: a < b);
//   - the "single" join of a scalar subquery: every probe row gets the one
//     build row that matches it, NULLs when none does, and 21000 "more than
//     one row returned by a subquery used as an expression" when several do;
//   - any join with a residual (non-equi) condition over both sides.
// Optional equality keys are indexed (a chained hash table over the build
// rows), so a keyed single join or a keyed join with a residual does not
// compare every pair.
//
//   build input --blocking--> NestedLoopJoin (input 1)
//   probe input --pipelining-> NestedLoopJoin (input 0)
//
// Phases: once the build input finished, one work order copies its rows into
// dense chunks (strings stay views: the build blocks are kept alive) and
// indexes the keys; then one work order per probe block enumerates candidate
// pairs in batches of kVectorSize, gathers them into a chunk
//   [probe columns..., build columns...]
// evaluates the residual there (the residual's column refs index that
// layout) and emits:
//   kInner      matching pairs: [probe columns..., build columns...];
//   kLeftOuter  inner pairs plus unmatched probe rows with NULL build columns;
//   kSingle     as kLeftOuter, but a probe row with two matches is an error;
//   kSemi/kAnti probe rows with / without a match: [probe columns...].
// NULL keys never match. Work per probe block is O(rows x candidates): meant
// for small build sides (the planner puts the smaller input there).
#pragma once

#include <memory>
#include <vector>

#include "olap/common/key_encoder.h"
#include "olap/execution/operator/physical_operator.h"
#include "olap/expression/expression_executor.h"

namespace forktail {

enum class LoopJoinType : uint8_t { kInner, kLeftOuter, kSemi, kAnti, kSingle };
const char* LoopJoinTypeName(LoopJoinType type);

class NestedLoopJoinOperator final : public PhysicalOperator {
 public:
  // Key columns pair up (same count; the planner casts both sides to common
  // types); residual may be null.
  NestedLoopJoinOperator(const std::vector<Type>& probe_types, const std::vector<Type>& build_types,
                         LoopJoinType type, std::vector<uint32_t> probe_keys,
                         std::vector<uint32_t> build_keys, ExprPtr residual, int parallelism);

  bool GetNextWorkOrders(WorkOrderSink& sink) override;
  void FeedInputBlock(size_t input_index, StreamBlockPtr block) override;

 protected:
  void ProcessBlock(WorkOrderContext& context, int slot, size_t input_index,
                    const StreamBlockPtr& block) override;

 private:
  struct Build;
  struct Batch;
  void BuildIndex();
  void ProbeChunk(int slot, const DataChunk& chunk, ChunkBlockWriter* out, bool* cancelled,
                  WorkOrderContext& context);
  // Gathers the batch's pairs, applies the residual, counts matches per probe
  // row and (inner, left, single) appends the matching pairs to out.
  void Flush(int slot, const DataChunk& probe, Batch& batch, uint32_t* matches,
             ChunkBlockWriter* out);
  // Probe rows `sel` (count n) with NULL build columns.
  DataChunk Unmatched(const DataChunk& probe, const uint32_t* sel, uint32_t n) const;

  LoopJoinType type_;
  std::vector<Type> probe_types_, build_types_;
  std::vector<uint32_t> probe_keys_, build_keys_;
  ExprPtr residual_;
  std::vector<std::unique_ptr<ExpressionExecutor>> executors_;  // per slot
  std::shared_ptr<Build> build_;
  std::vector<StreamBlockPtr> build_blocks_;
  bool index_spawned_ = false;
  bool ready_ = false;
};

}  // namespace forktail
