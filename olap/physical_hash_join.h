// Hash join as two operators, over the kernels' JoinHashTable / JoinProbe.
//
//   build input --blocking--> HashJoinBuild --blocking--> HashJoinProbe
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
#pragma once

#include <memory>
#include <vector>

#include "olap/join_probe.h"
#include "olap/physical_operator.h"

namespace forktail {

class HashJoinBuildOperator final : public PhysicalOperator {
 public:
  HashJoinBuildOperator(const std::vector<Type>& input_types, std::vector<uint32_t> key_cols,
                        std::vector<uint32_t> payload_cols, int parallelism);

  // Valid (final) once this operator finished.
  const std::shared_ptr<JoinHashTable>& table() const { return table_; }
  const std::vector<Type>& key_types() const { return key_types_; }

 protected:
  void ProcessBlock(WorkOrderContext& context, int slot, size_t input_index,
                    const StreamBlockPtr& block) override;
  bool Finish(WorkOrderSink& sink) override;

 private:
  std::vector<Type> key_types_;
  std::shared_ptr<JoinHashTable> table_;
  bool finalizing_ = false;
};

class HashJoinProbeOperator final : public PhysicalOperator {
 public:
  // `build` is the plan's build operator (it outlives this one's work).
  HashJoinProbeOperator(const std::vector<Type>& probe_types, const HashJoinBuildOperator* build,
                        JoinType type, std::vector<uint32_t> key_cols,
                        std::vector<uint32_t> out_cols, CompactionPolicy policy, int parallelism);

 protected:
  void ProcessBlock(WorkOrderContext& context, int slot, size_t input_index,
                    const StreamBlockPtr& block) override;
  bool Finish(WorkOrderSink& sink) override;

 private:
  JoinProbe& ProbeOf(int slot);
  void Collect(const DataChunk& chunk, ChunkBlock* out);

  const HashJoinBuildOperator* build_;
  JoinType type_;
  std::vector<uint32_t> key_cols_, out_cols_;
  std::vector<Type> out_types_;
  CompactionPolicy policy_;
  std::vector<std::unique_ptr<JoinProbe>> probes_;  // per slot, made on first use
  bool finishing_ = false;
};

}  // namespace forktail
