// Hash join as two operators, over the kernels' JoinHashTable / JoinProbe.
//
//   build input -pipelining-> HashJoinBuild --blocking--> HashJoinProbe
//   probe input --------------pipelining------------------^ (input 0)
//
// HashJoinBuild: one work order per input block adds its rows to the table
// partition of its worker slot; once all are added, one Finalize work order
// per slot links the slots' rows into the chains (the table's two-phase
// build). It emits nothing; its consumer reads table() once it is done.
//
// HashJoinProbe: input 0 streams the probe side; input 1 is the build
// operator (a blocking edge, so no probe work order runs before the table is
// final). One JoinProbe per worker slot gathers matches across input blocks
// under its CompactionPolicy (off / fixed / learned, an operator option); a
// final work order per slot flushes what it still buffers. Output columns:
// the probe's out_cols, then (inner, left outer) the build payload columns.
// Output blocks keep the hash table alive (payload strings live in it).
//
// FULL OUTER (JoinType::kFullOuter): the slots' probes share one
// JoinMatchMarks over the build rows (made once the table is final, at the
// first probe block or at Finish if the probe side was empty) and mark the
// build rows they pair. Once every probe work order finished (all marks are
// set), Finish spawns, beside the per-slot flushes, one work order per slot
// emitting the unmarked build rows of its share of the row ids with NULL
// probe columns (join_match_marks.h). The marks are charged to the query.
//
// RIGHT OUTER (JoinType::kRightOuter): as FULL OUTER, without padding the
// unmatched probe rows (a LEFT JOIN planned with its preserved side as the
// build).
//
// Right semi / anti (JoinType::kRightSemi / kRightAnti): the same marks; the
// probes emit nothing, and Finish's per-slot work orders emit the marked
// (semi) or unmarked (anti) build rows, payload columns only (out_cols must
// be empty). The preserved side is the build: a planner picks them when
// the preserved side is much smaller than the other (EXISTS over lineitem).
//
// Residual condition (optional, last constructor argument; join_residual.h):
// a bound boolean Expression whose column refs index [0, P) = the probe
// input's columns (P = probe_types.size(), all of them, not only out_cols)
// and [P, P + B) = the build's payload columns in payload order. A pair
// matches only when the keys are equal AND the residual is TRUE, for inner,
// left outer, semi and anti; kNullAwareAnti rejects a residual with 0A000
// (see join_probe.h for the exact anti-join form of a correlated NOT IN).
// PlanBuilder::HashProbe does not take it (yet): a planner constructs the
// operator directly, e.g.
//   HashJoinProbeOperator(probe_types, build, JoinType::kSemi, {0}, {0, 1},
//                         CompactionPolicy::Off(), workers,
//                         Compare(CompareOp::kNe, ColumnRef(2, Type::Integer()),
//                                 ColumnRef(P + 1, Type::Integer())));
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "olap/execution/join/join_key_collector.h"
#include "olap/execution/join/join_probe.h"
#include "olap/execution/join/join_runtime_filter.h"
#include "olap/execution/operator/physical_operator.h"
#include "scheduler/query_memory.h"

namespace forktail {

// Memory: the table's partitions (keys, hashes, payload copies, strings), its
// bucket directory, the collected filter keys and the filters are charged to
// the query's QueryMemory as they grow (53200 "query exceeded its memory
// budget of N bytes (hash join build needs M more)"), and returned when the
// operator is destroyed at the query's end. The probe charges each output
// block's vectors while the block lives.
class HashJoinBuildOperator final : public PhysicalOperator {
 public:
  HashJoinBuildOperator(const std::vector<Type>& input_types, std::vector<uint32_t> key_cols,
                        std::vector<uint32_t> payload_cols, int parallelism);

  // Runtime filter (join_runtime_filter.h): when the build finishes, fill
  // `slot` with a filter over key column key_cols[key_index]; the probe-side
  // scan holds a JoinRuntimeFilter on the slot, and the plan has a blocking
  // edge from this operator to that scan. Call before the query is
  // submitted; several filters (other key columns, other scans) may be
  // requested. Only for inner and semi joins.
  void PublishFilter(size_t key_index, std::shared_ptr<JoinFilterSlot> slot,
                     JoinFilterKind kind = JoinFilterKind::kAuto);

  // Index join (join_key_collector.h): when the build finishes with at most
  // slot->max_keys distinct keys, publish them in `slot` for the probe
  // side's scan (ordered after this operator by a blocking edge). Call
  // before the query is submitted; one per build. Only for joins that drop
  // probe rows without a match.
  void PublishKeys(std::shared_ptr<JoinKeySlot> slot);

  // Valid (final) once this operator finished.
  const std::shared_ptr<JoinHashTable>& table() const { return table_; }
  const std::vector<Type>& key_types() const { return key_types_; }

  void AllWorkOrdersFinished() override;

 protected:
  void ProcessBlock(WorkOrderContext& context, int slot, size_t input_index,
                    const StreamBlockPtr& block) override;
  bool Finish(WorkOrderSink& sink) override;

 private:
  void ChargeSlot(int slot);

  std::vector<Type> key_types_;
  std::vector<uint32_t> key_cols_;
  std::shared_ptr<JoinHashTable> table_;
  std::vector<std::unique_ptr<JoinFilterBuilder>> filters_;
  std::unique_ptr<JoinKeyCollector> keys_;  // null: no index join
  std::vector<std::unique_ptr<MemoryCharge>> slot_charges_;
  MemoryCharge directory_charge_{"hash join build"};
  bool finalizing_ = false;
};

class HashJoinProbeOperator final : public PhysicalOperator {
 public:
  // `build` is the plan's build operator (it outlives this one's work).
  HashJoinProbeOperator(const std::vector<Type>& probe_types, const HashJoinBuildOperator* build,
                        JoinType type, std::vector<uint32_t> key_cols,
                        std::vector<uint32_t> out_cols, CompactionPolicy policy, int parallelism,
                        ExprPtr residual = nullptr);

 protected:
  void ProcessBlock(WorkOrderContext& context, int slot, size_t input_index,
                    const StreamBlockPtr& block) override;
  bool Finish(WorkOrderSink& sink) override;

 private:
  JoinProbe& ProbeOf(int slot);
  JoinMatchMarks* Marks();  // JoinMarksBuild types only; made on first use
  void Collect(DataChunk& chunk, ChunkBlock* out, MemoryCharge* charge);

  const HashJoinBuildOperator* build_;
  JoinType type_;
  std::vector<uint32_t> key_cols_, out_cols_;
  std::vector<Type> out_types_;
  CompactionPolicy policy_;
  ExprPtr residual_;  // may be null; the slots' JoinProbes point at it
  std::vector<std::unique_ptr<JoinProbe>> probes_;  // per slot, made on first use
  bool finishing_ = false;
  std::once_flag marks_once_;
  std::unique_ptr<JoinMatchMarks> marks_;
  MemoryCharge marks_charge_{"hash join match marks"};
};

}  // namespace forktail
