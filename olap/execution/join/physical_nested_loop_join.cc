#include "olap/execution/join/physical_nested_loop_join.h"

#include <algorithm>

#include "olap/expression/kernels.h"
#include "storage/error.h"

namespace forktail {
namespace {

constexpr uint32_t kEnd = UINT32_MAX;

std::vector<Type> Pick(const std::vector<Type>& types, const std::vector<uint32_t>& cols) {
  std::vector<Type> out;
  for (uint32_t c : cols) out.push_back(types[c]);
  return out;
}

std::vector<Type> OutputTypes(const std::vector<Type>& probe, const std::vector<Type>& build,
                              LoopJoinType type) {
  std::vector<Type> out = probe;
  if (type != LoopJoinType::kSemi && type != LoopJoinType::kAnti) {
    out.insert(out.end(), build.begin(), build.end());
  }
  return out;
}

}  // namespace

const char* LoopJoinTypeName(LoopJoinType type) {
  switch (type) {
    case LoopJoinType::kInner:
      return "inner";
    case LoopJoinType::kLeftOuter:
      return "left";
    case LoopJoinType::kSemi:
      return "semi";
    case LoopJoinType::kAnti:
      return "anti";
    case LoopJoinType::kSingle:
      return "single";
  }
  return "?";
}

// The materialized build side: dense chunks (row id g lives in chunk
// g / kVectorSize at row g % kVectorSize) and, with keys, chains of row ids
// per hash bucket. Read-only once built; output blocks keep it alive.
struct NestedLoopJoinOperator::Build {
  std::vector<StreamBlockPtr> blocks;  // the views in `chunks` point into them
  std::vector<DataChunk> chunks;
  uint32_t rows = 0;
  std::unique_ptr<KeyEncoder> enc;  // null: no keys
  std::vector<uint64_t> keys, hashes;
  std::vector<uint32_t> heads, next;
  uint64_t mask = 0;
};

struct NestedLoopJoinOperator::Batch {
  uint32_t probe[kVectorSize];
  uint32_t build[kVectorSize];
  uint32_t n = 0;
};

NestedLoopJoinOperator::NestedLoopJoinOperator(const std::vector<Type>& probe_types,
                                               const std::vector<Type>& build_types,
                                               LoopJoinType type, std::vector<uint32_t> probe_keys,
                                               std::vector<uint32_t> build_keys, ExprPtr residual,
                                               int parallelism)
    : PhysicalOperator("NestedLoopJoin", OutputTypes(probe_types, build_types, type), 2,
                       parallelism),
      type_(type),
      probe_types_(probe_types),
      build_types_(build_types),
      probe_keys_(std::move(probe_keys)),
      build_keys_(std::move(build_keys)),
      residual_(std::move(residual)),
      executors_(this->parallelism()),
      build_(std::make_shared<Build>()) {
  bool same = probe_keys_.size() == build_keys_.size();
  for (size_t k = 0; same && k < probe_keys_.size(); ++k) {
    const Type& probe = probe_types_[probe_keys_[k]];
    const Type& build = build_types_[build_keys_[k]];
    // Integers of any width encode alike (key_encoder.h).
    same =
        PhysicalTypeOf(probe) == PhysicalTypeOf(build) || (probe.IsInteger() && build.IsInteger());
  }
  if (!same) throw DbError(sqlstate::kInternalError, "nested loop join keys do not pair up");
}

void NestedLoopJoinOperator::FeedInputBlock(size_t input_index, StreamBlockPtr block) {
  if (input_index == 1) {
    build_blocks_.push_back(std::move(block));
    return;
  }
  PhysicalOperator::FeedInputBlock(input_index, std::move(block));
}

bool NestedLoopJoinOperator::GetNextWorkOrders(WorkOrderSink& sink) {
  // The build edge is blocking: the first call comes after every build block
  // arrived. Probe blocks wait in the base's queue until the index is built.
  if (!ready_) {
    if (!index_spawned_) {
      index_spawned_ = true;
      build_->blocks = std::move(build_blocks_);
      Spawn(sink, [this](WorkOrderContext&) { BuildIndex(); });
      return false;
    }
    if (outstanding() > 0) return false;
    ready_ = true;
  }
  return PhysicalOperator::GetNextWorkOrders(sink);
}

void NestedLoopJoinOperator::BuildIndex() {
  Build& b = *build_;
  std::vector<uint32_t> idx;
  for (const StreamBlockPtr& block : b.blocks) {
    for (const DataChunk& in : AsChunkBlock(block).chunks) {
      Rows rows = in.rows();
      idx.resize(rows.count);
      for (uint32_t k = 0; k < rows.count; ++k) idx[k] = rows[k];
      for (uint32_t off = 0; off < rows.count;) {
        if (b.chunks.empty() || b.chunks.back().size() == kVectorSize) {
          b.chunks.emplace_back(build_types_);
        }
        DataChunk& dst = b.chunks.back();
        uint32_t take = std::min(rows.count - off, kVectorSize - dst.size());
        for (size_t c = 0; c < build_types_.size(); ++c) {
          GatherRows(in.column(c), Rows{idx.data() + off, take}, &dst.column(c), dst.size(),
                     nullptr);
        }
        dst.set_size(dst.size() + take);
        off += take;
        b.rows += take;
      }
    }
  }
  if (build_keys_.empty()) return;
  b.enc = std::make_unique<KeyEncoder>(Pick(build_types_, build_keys_));
  const uint32_t w = b.enc->words();
  b.keys.resize(size_t{b.rows} * w);
  b.hashes.resize(b.rows);
  for (size_t c = 0; c < b.chunks.size(); ++c) {
    size_t base = c * kVectorSize;
    b.enc->Encode(b.chunks[c], build_keys_, b.chunks[c].rows(), &b.keys[base * w], &b.hashes[base]);
  }
  uint64_t buckets = 16;
  while (buckets < 2 * uint64_t{b.rows}) buckets *= 2;
  b.mask = buckets - 1;
  b.heads.assign(buckets, kEnd);
  b.next.assign(b.rows, kEnd);
  for (uint32_t g = b.rows; g-- > 0;) {  // chains list rows in build order
    if (KeyEncoder::HasNull(&b.keys[size_t{g} * w])) continue;
    uint64_t bucket = b.hashes[g] & b.mask;
    b.next[g] = b.heads[bucket];
    b.heads[bucket] = g;
  }
}

void NestedLoopJoinOperator::ProcessBlock(WorkOrderContext& context, int slot,
                                          size_t /*input_index*/, const StreamBlockPtr& block) {
  // A probe block times the build side can be huge (a cross join of 20k rows
  // with 20k: 400M rows): the output goes out in charged blocks as it grows.
  ChunkBlockWriter out(context, "nested loop join output", {block, build_});
  bool cancelled = false;
  for (const DataChunk& chunk : AsChunkBlock(block).chunks) {
    ProbeChunk(slot, chunk, &out, &cancelled, context);
    if (cancelled) return;
  }
  out.Flush();
}

void NestedLoopJoinOperator::ProbeChunk(int slot, const DataChunk& chunk, ChunkBlockWriter* out,
                                        bool* cancelled, WorkOrderContext& context) {
  const Build& b = *build_;
  const Rows rows = chunk.rows();
  const bool counts_only =
      residual_ == nullptr && (type_ == LoopJoinType::kSemi || type_ == LoopJoinType::kAnti);
  std::vector<uint32_t> matches(chunk.size(), 0);
  std::vector<uint64_t> keys, hashes;
  uint32_t w = 0;
  if (b.enc != nullptr) {
    w = b.enc->words();
    keys.resize(size_t{rows.count} * w);
    hashes.resize(rows.count);
    b.enc->Encode(chunk, probe_keys_, rows, keys.data(), hashes.data());
  }
  auto batch = std::make_unique<Batch>();
  auto add = [&](uint32_t p, uint32_t g) {
    if (counts_only) {
      ++matches[p];
      return;
    }
    batch->probe[batch->n] = p;
    batch->build[batch->n] = g;
    if (++batch->n == kVectorSize) {
      Flush(slot, chunk, *batch, matches.data(), out);
      *cancelled = context.IsCancelled();
    }
  };
  for (uint32_t k = 0; k < rows.count && !*cancelled; ++k) {
    const uint32_t p = rows[k];
    if (b.enc == nullptr) {
      if (counts_only) {
        matches[p] = b.rows;
        continue;
      }
      for (uint32_t g = 0; g < b.rows && !*cancelled; ++g) add(p, g);
      continue;
    }
    const uint64_t* key = &keys[size_t{k} * w];
    if (KeyEncoder::HasNull(key)) continue;
    for (uint32_t g = b.heads[hashes[k] & b.mask]; g != kEnd && !*cancelled; g = b.next[g]) {
      if (b.hashes[g] == hashes[k] && b.enc->Equal(&b.keys[size_t{g} * w], key)) add(p, g);
    }
  }
  if (*cancelled) return;
  if (batch->n > 0) Flush(slot, chunk, *batch, matches.data(), out);
  if (type_ == LoopJoinType::kInner) return;
  std::vector<uint32_t> sel;
  const bool want_matched = type_ == LoopJoinType::kSemi;
  for (uint32_t k = 0; k < rows.count; ++k) {
    if ((matches[rows[k]] > 0) == want_matched) sel.push_back(rows[k]);
  }
  if (sel.empty()) return;
  if (type_ == LoopJoinType::kSemi || type_ == LoopJoinType::kAnti) {
    DataChunk mine = BorrowChunk(chunk);
    mine.SetSelection(sel.data(), static_cast<uint32_t>(sel.size()));
    out->Add(std::move(mine));
  } else {
    out->Add(Unmatched(chunk, sel.data(), static_cast<uint32_t>(sel.size())));
  }
}

void NestedLoopJoinOperator::Flush(int slot, const DataChunk& probe, Batch& batch,
                                   uint32_t* matches, ChunkBlockWriter* out) {
  const Build& b = *build_;
  const uint32_t n = batch.n;
  batch.n = 0;
  DataChunk pairs;
  for (size_t c = 0; c < probe_types_.size(); ++c) {
    Vector v(probe_types_[c]);
    GatherRows(probe.column(c), Rows{batch.probe, n}, &v, 0, nullptr);
    pairs.AddColumn(std::move(v));
  }
  for (size_t c = 0; c < build_types_.size(); ++c) {
    Vector v(build_types_[c]);
    DispatchPhysical(v.physical(), [&]<typename T>() {
      T* d = v.mutable_data<T>();
      for (uint32_t k = 0; k < n; ++k) {
        uint32_t g = batch.build[k];
        const Vector& src = b.chunks[g / kVectorSize].column(c);
        uint32_t row = g % kVectorSize;
        if (src.IsNull(row)) {
          v.SetNull(k, true);
        } else {
          d[k] = src.data<T>()[row];
        }
      }
    });
    pairs.AddColumn(std::move(v));
  }
  pairs.set_size(n);
  if (residual_ != nullptr) {
    if (executors_[slot] == nullptr)
      executors_[slot] = std::make_unique<ExpressionExecutor>(*residual_);
    uint32_t kept = executors_[slot]->Select(pairs, pairs.rows(), pairs.selection().data());
    pairs.SetSelectionCount(kept);
  }
  const Rows live = pairs.rows();
  if (live.count == 0) return;
  if (type_ != LoopJoinType::kInner) {
    for (uint32_t k = 0; k < live.count; ++k) {
      uint32_t m = ++matches[batch.probe[live[k]]];
      if (m > 1 && type_ == LoopJoinType::kSingle) {
        throw DbError(sqlstate::kCardinalityViolation,
                      "more than one row returned by a subquery used as an expression");
      }
    }
  }
  if (type_ == LoopJoinType::kSemi || type_ == LoopJoinType::kAnti) return;
  out->Add(std::move(pairs));
}

DataChunk NestedLoopJoinOperator::Unmatched(const DataChunk& probe, const uint32_t* sel,
                                            uint32_t n) const {
  DataChunk c;
  for (size_t col = 0; col < probe_types_.size(); ++col) {
    Vector v(probe_types_[col]);
    GatherRows(probe.column(col), Rows{sel, n}, &v, 0, nullptr);
    c.AddColumn(std::move(v));
  }
  for (const Type& t : build_types_) {
    Vector v(t);
    for (uint32_t k = 0; k < n; ++k) v.SetNull(k, true);
    c.AddColumn(std::move(v));
  }
  c.set_size(n);
  return c;
}

}  // namespace forktail
