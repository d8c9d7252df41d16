#include "olap/execution/join/physical_hash_join.h"

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
  if (JoinEmitsPayload(type)) {
    for (const Type& t : build->table()->payload_types()) types.push_back(t);
  }
  return types;
}

// A new output block whose vectors are charged to the query while it lives.
std::shared_ptr<ChunkBlock> MakeOutput(WorkOrderContext& context,
                                       const std::shared_ptr<JoinHashTable>& table,
                                       std::shared_ptr<MemoryCharge>* charge) {
  std::shared_ptr<ChunkBlock> out = ChunkBlock::Make(context);
  out->keep_alive.push_back(table);
  *charge = std::make_shared<MemoryCharge>("hash join output");
  (*charge)->Bind(context.allocator<char>().memory());
  out->keep_alive.push_back(*charge);
  return out;
}

}  // namespace

HashJoinBuildOperator::HashJoinBuildOperator(const std::vector<Type>& input_types,
                                             std::vector<uint32_t> key_cols,
                                             std::vector<uint32_t> payload_cols, int parallelism)
    : PhysicalOperator("HashJoinBuild", {}, 1, parallelism),
      key_types_(Pick(input_types, key_cols)),
      key_cols_(key_cols) {
  std::vector<Type> payload_types = Pick(input_types, payload_cols);
  table_ =
      std::make_shared<JoinHashTable>(key_types_, std::move(key_cols), std::move(payload_types),
                                      std::move(payload_cols), this->parallelism());
  for (int t = 0; t < this->parallelism(); ++t) {
    slot_charges_.push_back(std::make_unique<MemoryCharge>("hash join build"));
  }
}

void HashJoinBuildOperator::PublishFilter(size_t key_index, std::shared_ptr<JoinFilterSlot> slot,
                                          JoinFilterKind kind) {
  if (key_index >= key_cols_.size()) {
    throw DbError(sqlstate::kInternalError, "runtime filter on a key the hash join does not have");
  }
  filters_.push_back(std::make_unique<JoinFilterBuilder>(
      std::move(slot), key_cols_[key_index], key_types_[key_index], kind, parallelism()));
}

void HashJoinBuildOperator::PublishKeys(std::shared_ptr<JoinKeySlot> slot) {
  keys_ = std::make_unique<JoinKeyCollector>(std::move(slot), key_cols_, parallelism());
}

void HashJoinBuildOperator::ChargeSlot(int slot) {
  size_t bytes = table_->PartBytes(slot);
  for (const auto& f : filters_) bytes += f->ThreadBytes(slot);
  if (keys_) bytes += keys_->ThreadBytes(slot);
  slot_charges_[slot]->Set(bytes);
}

void HashJoinBuildOperator::ProcessBlock(WorkOrderContext& context, int slot,
                                         size_t /*input_index*/, const StreamBlockPtr& block) {
  std::shared_ptr<QueryMemory> memory = context.allocator<char>().memory();
  slot_charges_[slot]->Bind(memory);
  directory_charge_.Bind(memory);
  for (const DataChunk& chunk : AsChunkBlock(block).chunks) {
    if (context.IsCancelled()) return;
    table_->Add(slot, chunk);
    for (const auto& f : filters_) f->Collect(slot, chunk);
    if (keys_) keys_->Collect(slot, chunk);
    ChargeSlot(slot);
  }
}

bool HashJoinBuildOperator::Finish(WorkOrderSink& sink) {
  if (outstanding() > 0) return false;
  if (!finalizing_) {
    finalizing_ = true;
    // Charged before allocating (a callback's throw fails the query).
    size_t bytes = table_->DirectoryBytes();
    for (const auto& f : filters_) {
      f->Allocate();
      bytes += f->FilterBytes();
    }
    directory_charge_.Set(bytes);
    for (int t = 0; t < parallelism(); ++t) {
      Spawn(sink, [this, t](WorkOrderContext&) {
        table_->Finalize(t);
        for (const auto& f : filters_) f->Insert(t);
        ChargeSlot(t);  // keys and hashes are gone now
      });
    }
  }
  return true;
}

void HashJoinBuildOperator::AllWorkOrdersFinished() {
  for (const auto& f : filters_) f->Publish();
  if (keys_) keys_->Publish();
}

HashJoinProbeOperator::HashJoinProbeOperator(const std::vector<Type>& probe_types,
                                             const HashJoinBuildOperator* build, JoinType type,
                                             std::vector<uint32_t> key_cols,
                                             std::vector<uint32_t> out_cols,
                                             CompactionPolicy policy, int parallelism,
                                             ExprPtr residual)
    : PhysicalOperator("HashJoinProbe", ProbeOutputTypes(probe_types, build, type, out_cols), 2,
                       parallelism),
      build_(build),
      type_(type),
      key_cols_(std::move(key_cols)),
      out_cols_(std::move(out_cols)),
      out_types_(Pick(probe_types, out_cols_)),
      policy_(std::move(policy)),
      residual_(std::move(residual)),
      probes_(this->parallelism()) {
  if (key_cols_.size() != build->key_types().size()) {
    throw DbError(sqlstate::kInternalError, "hash join probe and build key counts differ");
  }
  if (JoinIsRightSemiAnti(type_) && !out_cols_.empty()) {
    throw DbError(sqlstate::kInternalError, "a right semi or anti join outputs no probe column");
  }
  if (residual_ != nullptr) {
    if (type_ == JoinType::kNullAwareAnti) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    "NOT IN with a join condition beyond its keys is not supported; plan it as an "
                    "anti join");
    }
    JoinResidual::Validate(*residual_, probe_types, build->table()->payload_types());
  }
}

JoinMatchMarks* HashJoinProbeOperator::Marks() {
  std::call_once(marks_once_,
                 [this] { marks_ = std::make_unique<JoinMatchMarks>(build_->table()->rows()); });
  return marks_.get();
}

JoinProbe& HashJoinProbeOperator::ProbeOf(int slot) {
  if (probes_[slot] == nullptr) {
    probes_[slot] = std::make_unique<JoinProbe>(build_->table().get(), type_, key_cols_, out_cols_,
                                                out_types_, policy_, residual_.get());
    if (JoinMarksBuild(type_)) probes_[slot]->set_match_marks(Marks());
  }
  return *probes_[slot];
}

void HashJoinProbeOperator::Collect(DataChunk& chunk, ChunkBlock* out, MemoryCharge* charge) {
  // The probe's full output chunk moves into the block (no copy; the probe
  // starts a new one). Strings stay views: their arenas are kept alive by
  // the vectors, the table by the block. Charged before it is taken, so a
  // join that multiplies rows stops at the budget.
  charge->Add(static_cast<int64_t>(ChunkVectorBytes(chunk)));
  out->chunks.push_back(std::move(chunk));
}

void HashJoinProbeOperator::ProcessBlock(WorkOrderContext& context, int slot,
                                         size_t /*input_index*/, const StreamBlockPtr& block) {
  if (JoinMarksBuild(type_)) {
    marks_charge_.Bind(context.allocator<char>().memory());
    marks_charge_.Set(Marks()->bytes());
  }
  JoinProbe& probe = ProbeOf(slot);
  std::shared_ptr<MemoryCharge> charge;
  std::shared_ptr<ChunkBlock> out = MakeOutput(context, build_->table(), &charge);
  // Buffered probe strings were copied into the probe's arena; payload views
  // point into the table. Nothing points into the input block.
  auto emit = [&](DataChunk& c) { Collect(c, out.get(), charge.get()); };
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
      std::shared_ptr<MemoryCharge> charge;
      std::shared_ptr<ChunkBlock> out = MakeOutput(context, build_->table(), &charge);
      probes_[t]->Finish([&](DataChunk& c) { Collect(c, out.get(), charge.get()); });
      EmitIfRows(context, std::move(out));
    });
  }
  if (JoinMarksBuild(type_)) {
    // Every probe work order is done: the marks are final. Each slot emits
    // its share of the build rows: FULL and RIGHT OUTER pad those that found
    // no partner, the right semi join emits the marked ones, the right anti
    // join the unmarked ones.
    const bool marked = type_ == JoinType::kRightSemi;
    const JoinMatchMarks* marks = Marks();
    const uint64_t rows = marks->rows();
    const uint64_t n = static_cast<uint64_t>(parallelism());
    for (uint64_t t = 0; t < n && rows > 0; ++t) {
      const uint64_t begin = rows * t / n, end = rows * (t + 1) / n;
      if (begin == end) continue;
      Spawn(sink, [this, marks, begin, end, marked](WorkOrderContext& context) {
        std::shared_ptr<MemoryCharge> charge;
        std::shared_ptr<ChunkBlock> out = MakeOutput(context, build_->table(), &charge);
        EmitBuildRows(*build_->table(), *marks, begin, end, marked, out_types_,
                      [&](DataChunk& c) { Collect(c, out.get(), charge.get()); });
        EmitIfRows(context, std::move(out));
      });
    }
  }
  return true;
}

}  // namespace forktail
