#include "olap/physical_hash_join.h"

#include "storage/error.h"

namespace forktail {
namespace {

std::vector<Type> Pick(const std::vector<Type>& types, const std::vector<uint32_t>& cols) {
  std::vector<Type> out;
  for (uint32_t c : cols) out.push_back(types[c]);
  return out;
}

std::vector<Type> ProbeOutputTypes(const std::vector<Type>& probe_types,
                                   const HashJoinBuildOperator* build, JoinType type,
                                   const std::vector<uint32_t>& out_cols) {
  std::vector<Type> types = Pick(probe_types, out_cols);
  if (type == JoinType::kInner || type == JoinType::kLeftOuter) {
    for (const Type& t : build->table()->payload_types()) types.push_back(t);
  }
  return types;
}

}  // namespace

HashJoinBuildOperator::HashJoinBuildOperator(const std::vector<Type>& input_types,
                                             std::vector<uint32_t> key_cols,
                                             std::vector<uint32_t> payload_cols, int parallelism)
    : PhysicalOperator("HashJoinBuild", {}, 1, parallelism),
      key_types_(Pick(input_types, key_cols)) {
  std::vector<Type> payload_types = Pick(input_types, payload_cols);
  table_ =
      std::make_shared<JoinHashTable>(key_types_, std::move(key_cols), std::move(payload_types),
                                      std::move(payload_cols), this->parallelism());
}

void HashJoinBuildOperator::ProcessBlock(WorkOrderContext& context, int slot,
                                         size_t /*input_index*/, const StreamBlockPtr& block) {
  for (const DataChunk& chunk : AsChunkBlock(block).chunks) {
    if (context.IsCancelled()) return;
    table_->Add(slot, chunk);
  }
}

bool HashJoinBuildOperator::Finish(WorkOrderSink& sink) {
  if (outstanding() > 0) return false;
  if (!finalizing_) {
    finalizing_ = true;
    for (int t = 0; t < parallelism(); ++t) {
      Spawn(sink, [table = table_.get(), t](WorkOrderContext&) { table->Finalize(t); });
    }
  }
  return true;
}

HashJoinProbeOperator::HashJoinProbeOperator(const std::vector<Type>& probe_types,
                                             const HashJoinBuildOperator* build, JoinType type,
                                             std::vector<uint32_t> key_cols,
                                             std::vector<uint32_t> out_cols,
                                             CompactionPolicy policy, int parallelism)
    : PhysicalOperator("HashJoinProbe", ProbeOutputTypes(probe_types, build, type, out_cols), 2,
                       parallelism),
      build_(build),
      type_(type),
      key_cols_(std::move(key_cols)),
      out_cols_(std::move(out_cols)),
      out_types_(Pick(probe_types, out_cols_)),
      policy_(std::move(policy)),
      probes_(this->parallelism()) {
  if (key_cols_.size() != build->key_types().size()) {
    throw DbError(sqlstate::kInternalError, "hash join probe and build key counts differ");
  }
}

JoinProbe& HashJoinProbeOperator::ProbeOf(int slot) {
  if (probes_[slot] == nullptr) {
    probes_[slot] = std::make_unique<JoinProbe>(build_->table().get(), type_, key_cols_, out_cols_,
                                                out_types_, policy_);
  }
  return *probes_[slot];
}

void HashJoinProbeOperator::Collect(const DataChunk& chunk, ChunkBlock* out) {
  // The probe reuses its output chunk: copy it (strings stay views; their
  // arenas are shared, the table is kept alive by the block).
  out->chunks.push_back(CopyChunk(chunk));
}

void HashJoinProbeOperator::ProcessBlock(WorkOrderContext& context, int slot,
                                         size_t /*input_index*/, const StreamBlockPtr& block) {
  JoinProbe& probe = ProbeOf(slot);
  std::shared_ptr<ChunkBlock> out = ChunkBlock::Make(context);
  out->keep_alive.push_back(build_->table());
  // Buffered probe strings were copied into the probe's arena; payload views
  // point into the table. Nothing points into the input block.
  auto emit = [&](const DataChunk& c) { Collect(c, out.get()); };
  for (const DataChunk& chunk : AsChunkBlock(block).chunks) {
    if (context.IsCancelled()) return;
    probe.Probe(chunk, emit);
  }
  EmitIfRows(context, std::move(out));
}

bool HashJoinProbeOperator::Finish(WorkOrderSink& sink) {
  if (outstanding() > 0) return false;
  if (finishing_) return true;
  finishing_ = true;
  for (int t = 0; t < parallelism(); ++t) {
    if (probes_[t] == nullptr) continue;
    Spawn(sink, [this, t](WorkOrderContext& context) {
      std::shared_ptr<ChunkBlock> out = ChunkBlock::Make(context);
      out->keep_alive.push_back(build_->table());
      probes_[t]->Finish([&](const DataChunk& c) { Collect(c, out.get()); });
      EmitIfRows(context, std::move(out));
    });
  }
  return true;
}

}  // namespace forktail
