// JoinProbe: the probe side of a hash join over a finalized JoinHashTable.
// One instance per probe operator per worker thread.
//
// Output chunks: the probe's output columns, then (inner, left outer) the
// build payload columns. Join types:
//   kInner          every (probe row, build row) pair with equal keys;
//   kLeftOuter      inner pairs plus unmatched probe rows with NULL payload;
//   kSemi           probe rows with at least one match (EXISTS / IN);
//   kAnti           probe rows with no match: NOT EXISTS semantics (a probe
//                   row with a NULL key has no match, so it is returned);
//   kNullAwareAnti  NOT IN semantics: nothing when the build side has a NULL
//                   key; a probe row with a NULL key is returned only when the
//                   build side is empty; otherwise as kAnti. A caller gets
//                   NOT IN by choosing this type (its build must keep the
//                   NULL-key rows, which Add() does).
//
// Matches are gathered into the current output chunk across input chunks;
// the CompactionPolicy decides when it is emitted (compaction_policy.h).
#pragma once

#include <functional>
#include <vector>

#include "olap/compaction_policy.h"
#include "olap/join_hash_table.h"

namespace forktail {

enum class JoinType : uint8_t { kInner, kLeftOuter, kSemi, kAnti, kNullAwareAnti };

class JoinProbe {
 public:
  using Emit = std::function<void(const DataChunk&)>;

  JoinProbe(const JoinHashTable* table, JoinType type, std::vector<uint32_t> key_cols,
            std::vector<uint32_t> out_cols, std::vector<Type> out_types, CompactionPolicy policy);

  void Probe(const DataChunk& chunk, const Emit& emit);
  // Emits what is still buffered.
  void Finish(const Emit& emit);

  const CompactionPolicy& policy() const { return policy_; }
  uint64_t chunks_emitted() const { return chunks_emitted_; }

 private:
  // Appends pairs (probe row, build row or kEnd for NULL payload).
  void Append(const DataChunk& chunk, const uint32_t* probe_rows, const uint32_t* build_rows,
              uint32_t n, const Emit& emit, uint64_t* emitted);
  void Flush(const Emit& emit, uint64_t* emitted);

  const JoinHashTable* table_;
  JoinType type_;
  std::vector<uint32_t> key_cols_, out_cols_;
  std::vector<Type> out_types_;
  CompactionPolicy policy_;
  DataChunk out_;
  std::shared_ptr<StringArena> arena_;  // probe strings copied into out_
  std::vector<uint64_t> keys_, hashes_;
  std::vector<uint32_t> probe_rows_, build_rows_;
  uint64_t chunks_emitted_ = 0;
};

}  // namespace forktail
