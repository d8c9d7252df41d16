#include "olap/execution/join/join_probe.h"

#include <algorithm>
#include <cassert>
#include <chrono>

#include "olap/expression/kernels.h"
#include "storage/error.h"

namespace forktail {

JoinProbe::JoinProbe(const JoinHashTable* table, JoinType type, std::vector<uint32_t> key_cols,
                     std::vector<uint32_t> out_cols, std::vector<Type> out_types,
                     CompactionPolicy policy, const Expression* residual)
    : table_(table),
      type_(type),
      key_cols_(std::move(key_cols)),
      out_cols_(std::move(out_cols)),
      out_types_(std::move(out_types)),
      policy_(std::move(policy)),
      arena_(std::make_shared<StringArena>()) {
  std::vector<Type> types = out_types_;
  if (JoinEmitsPayload(type_)) {
    for (const Type& t : table_->payload_types()) types.push_back(t);
  }
  if (JoinIsRightSemiAnti(type_)) {
    assert(out_cols_.empty());
    types.clear();  // nothing is emitted through out_
  }
  all_types_ = types;
  out_ = DataChunk(types);
  if (residual != nullptr) {
    if (type_ == JoinType::kNullAwareAnti) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    "NOT IN with a join condition beyond its keys is not supported; plan it as an "
                    "anti join");
    }
    residual_ = std::make_unique<JoinResidual>(residual, table_);
  }
}

void JoinProbe::Probe(const DataChunk& chunk, const Emit& emit) {
  auto start = std::chrono::steady_clock::now();
  uint64_t emitted = 0;
  Rows rows = chunk.rows();
  const KeyEncoder& enc = table_->encoder();
  const uint32_t w = enc.words();
  keys_.resize(size_t{rows.count} * w);
  hashes_.resize(rows.count);
  enc.Encode(chunk, key_cols_, rows, keys_.data(), hashes_.data());
  probe_rows_.clear();
  build_rows_.clear();
  // Two prefetch passes (bucket heads, then the chains' first entries) so
  // that the walks below find both in cache: a build bigger than the cache
  // (TPC-H Q13's 150,000 customers) otherwise stalls twice per probe row.
  for (uint32_t k = 0; k < rows.count; ++k) table_->PrefetchBucket(hashes_[k]);
  firsts_.resize(rows.count);
  for (uint32_t k = 0; k < rows.count; ++k) {
    const uint32_t b = table_->First(hashes_[k]);
    firsts_[k] = b;
    if (b != JoinHashTable::kEnd) table_->PrefetchEntry(b);
  }
  if (residual_ != nullptr) {
    MatchWithResidual(chunk, rows);
  } else {
    MatchKeys(rows);
  }
  // Left outer: restore probe order (matched and filler rows interleave
  // correctly already, since each probe row is handled in turn).
  Append(chunk, probe_rows_.data(), build_rows_.data(), static_cast<uint32_t>(probe_rows_.size()),
         emit, &emitted);
  if (out_.size() > 0 && out_.size() >= policy_.threshold()) Flush(emit, &emitted);
  auto nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count();
  policy_.Observe(emitted, static_cast<uint64_t>(nanos));
}

void JoinProbe::MatchKeys(Rows rows) {
  const KeyEncoder& enc = table_->encoder();
  const uint32_t w = enc.words();
  const uint32_t kEnd = JoinHashTable::kEnd;
  const bool outer = type_ == JoinType::kLeftOuter || type_ == JoinType::kFullOuter;
  JoinMatchMarks* marks = JoinMarksBuild(type_) ? marks_ : nullptr;
  assert(!JoinMarksBuild(type_) || marks != nullptr);
  if (JoinIsRightSemiAnti(type_)) {
    // Mark every build row of every key-equal chain entry; emit nothing.
    for (uint32_t k = 0; k < rows.count; ++k) {
      const uint64_t* key = &keys_[size_t{k} * w];
      if (KeyEncoder::HasNull(key)) continue;
      uint64_t h = hashes_[k];
      for (uint32_t b = firsts_[k]; b != kEnd; b = table_->Next(b)) {
        if (table_->HashOf(b) == h && enc.Equal(table_->KeyOf(b), key)) marks->Mark(b);
      }
    }
    return;
  }

  bool skip_all = type_ == JoinType::kNullAwareAnti && table_->has_null_key();
  bool build_empty = table_->rows() == 0;
  for (uint32_t k = 0; k < rows.count && !skip_all; ++k) {
    const uint64_t* key = &keys_[size_t{k} * w];
    uint32_t r = rows[k];
    if (KeyEncoder::HasNull(key)) {
      if (outer || type_ == JoinType::kAnti || (type_ == JoinType::kNullAwareAnti && build_empty)) {
        probe_rows_.push_back(r);
        build_rows_.push_back(kEnd);
      }
      continue;
    }
    uint64_t h = hashes_[k];
    bool matched = false;
    for (uint32_t b = firsts_[k]; b != kEnd; b = table_->Next(b)) {
      if (table_->HashOf(b) != h || !enc.Equal(table_->KeyOf(b), key)) continue;
      matched = true;
      if (JoinEmitsPayload(type_)) {
        probe_rows_.push_back(r);
        build_rows_.push_back(b);
        if (marks != nullptr) marks->Mark(b);
      } else {
        break;  // semi / anti need one match only
      }
    }
    bool keep = type_ == JoinType::kSemi ? matched
                : (type_ == JoinType::kAnti || type_ == JoinType::kNullAwareAnti)
                    ? !matched
                    : outer && !matched;
    if (keep) {
      probe_rows_.push_back(r);
      build_rows_.push_back(kEnd);
    }
  }
}

void JoinProbe::MatchWithResidual(const DataChunk& chunk, Rows rows) {
  const KeyEncoder& enc = table_->encoder();
  const uint32_t w = enc.words();
  const uint32_t kEnd = JoinHashTable::kEnd;
  // Every key-equal pair, grouped by probe row: row k owns
  // [cand_end_[k-1], cand_end_[k]). A NULL key has no candidate.
  cand_probe_.clear();
  cand_build_.clear();
  cand_end_.resize(rows.count);
  for (uint32_t k = 0; k < rows.count; ++k) {
    const uint64_t* key = &keys_[size_t{k} * w];
    if (!KeyEncoder::HasNull(key)) {
      uint64_t h = hashes_[k];
      for (uint32_t b = firsts_[k]; b != kEnd; b = table_->Next(b)) {
        if (table_->HashOf(b) != h || !enc.Equal(table_->KeyOf(b), key)) continue;
        cand_probe_.push_back(rows[k]);
        cand_build_.push_back(b);
      }
    }
    cand_end_[k] = static_cast<uint32_t>(cand_probe_.size());
  }
  pass_.resize(cand_probe_.size());
  residual_->Evaluate(chunk, cand_probe_.data(), cand_build_.data(), cand_probe_.size(),
                      pass_.data());
  const bool outer = type_ == JoinType::kLeftOuter || type_ == JoinType::kFullOuter;
  JoinMatchMarks* marks = JoinMarksBuild(type_) ? marks_ : nullptr;
  assert(!JoinMarksBuild(type_) || marks != nullptr);
  if (JoinIsRightSemiAnti(type_)) {
    for (size_t c = 0; c < cand_build_.size(); ++c) {
      if (pass_[c]) marks->Mark(cand_build_[c]);
    }
    return;
  }
  const bool pairs = JoinEmitsPayload(type_);
  uint32_t i = 0;
  for (uint32_t k = 0; k < rows.count; ++k) {
    bool matched = false;
    for (; i < cand_end_[k]; ++i) {
      if (!pass_[i]) continue;
      matched = true;
      if (!pairs) {
        i = cand_end_[k];
        break;
      }
      probe_rows_.push_back(rows[k]);
      build_rows_.push_back(cand_build_[i]);
      if (marks != nullptr) marks->Mark(cand_build_[i]);
    }
    bool keep = type_ == JoinType::kSemi   ? matched
                : type_ == JoinType::kAnti ? !matched
                                           : outer && !matched;
    if (keep) {
      probe_rows_.push_back(rows[k]);
      build_rows_.push_back(kEnd);
    }
  }
}

void JoinProbe::Append(const DataChunk& chunk, const uint32_t* probe_rows,
                       const uint32_t* build_rows, uint32_t n, const Emit& emit,
                       uint64_t* emitted) {
  const size_t np = out_cols_.size();
  uint32_t done = 0;
  while (done < n) {
    uint32_t at = out_.size();
    uint32_t take = std::min(kVectorSize - at, n - done);
    Rows sub{probe_rows + done, take};
    for (size_t c = 0; c < np; ++c) {
      GatherRows(chunk.column(out_cols_[c]), sub, &out_.column(c), at, arena_.get());
    }
    for (size_t c = np; c < out_.column_count(); ++c) {
      table_->GatherPayload(build_rows + done, take, static_cast<uint32_t>(c - np), &out_.column(c),
                            at);
    }
    out_.set_size(at + take);
    done += take;
    if (out_.size() == kVectorSize) Flush(emit, emitted);
  }
}

void JoinProbe::Flush(const Emit& emit, uint64_t* emitted) {
  if (out_.size() == 0) return;
  for (size_t c = 0; c < out_.column_count(); ++c) out_.column(c).KeepAlive(arena_);
  *emitted += out_.size();
  ++chunks_emitted_;
  emit(out_);
  if (out_.column_count() != all_types_.size()) {
    out_ = DataChunk(all_types_);  // the callee took it
  } else {
    for (size_t c = 0; c < out_.column_count(); ++c) {
      out_.column(c).ResetAuxiliary();
      out_.column(c).ClearNulls();
    }
    out_.set_size(0);
  }
  arena_ = std::make_shared<StringArena>();
}

void JoinProbe::Finish(const Emit& emit) {
  uint64_t emitted = 0;
  Flush(emit, &emitted);
}

}  // namespace forktail
