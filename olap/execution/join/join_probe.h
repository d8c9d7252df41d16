// JoinProbe: the probe side of a hash join over a finalized JoinHashTable.
// One instance per probe operator per worker thread.
//
// Output chunks: the probe's output columns, then (inner, left outer) the
// build payload columns. Join types:
//   kInner          every (probe row, build row) pair with equal keys;
//   kLeftOuter      inner pairs plus unmatched probe rows with NULL payload;
//   kFullOuter      as kLeftOuter, and every build row of a matching pair is
//                   marked in the JoinMatchMarks (set_match_marks, required):
//                   after the last probe, EmitUnmatchedBuildRows pads the
//                   unmarked build rows (join_match_marks.h);
//   kSemi           probe rows with at least one match (EXISTS / IN);
//   kAnti           probe rows with no match: NOT EXISTS semantics (a probe
//                   row with a NULL key has no match, so it is returned);
//   kNullAwareAnti  NOT IN semantics: nothing when the build side has a NULL
//                   key; a probe row with a NULL key is returned only when the
//                   build side is empty; otherwise as kAnti. A caller gets
//                   NOT IN by choosing this type (its build must keep the
//                   NULL-key rows, which Add() does).
//   kRightSemi      the semi join with the preserved side as the BUILD side:
//                   the probe emits nothing and marks in the JoinMatchMarks
//                   (set_match_marks, required) every build row with a
//                   matching probe row; after the last probe the marked build
//                   rows are the output (EmitBuildRows). Output columns: the
//                   build payload only (out_cols must be empty). Planned when
//                   the preserved side is the small one (TPC-H Q04: build on
//                   the orders, probe lineitem), so the hash table holds the
//                   small side.
//   kRightAnti      as kRightSemi, the output being the UNmarked build rows:
//                   NOT EXISTS (a build row with a NULL key is never marked,
//                   so it is returned).
//   kRightOuter     the left outer join with the preserved side as the BUILD
//                   side: the probe emits the inner pairs and marks their
//                   build rows; after the last probe the unmarked build rows
//                   are padded with NULL probe columns, as kFullOuter's.
//                   Planned when the preserved side is the small one (TPC-H
//                   Q13: build on the customers, probe the orders).
//
// Residual (optional; join_residual.h): a boolean expression over the probe
// input chunk's columns [0, P) and the build payload columns [P, P + B). A
// pair matches only when the keys are equal AND the residual is TRUE; semi
// keeps a probe row with at least one matching pair, anti one with none, left
// outer pads a probe row without one with NULL payload; full outer marks the
// build row of each matching pair. With a residual every
// key-equal pair of a probe chunk is gathered first (semi/anti cannot stop at
// the first key match) and the residual runs once per kVectorSize pairs.
// kNullAwareAnti takes no residual (its NULL-key rule would have to be checked
// per probe row against the residual): the constructor throws 0A000. A
// correlated `x NOT IN (SELECT y ... WHERE corr)` is exactly kAnti on corr's
// equi-keys with residual `rest-of-corr AND (x = y OR x IS NULL OR y IS NULL)`
// (no element may make x = y TRUE or NULL).
//
// Matches are gathered into the current output chunk across input chunks;
// the CompactionPolicy decides when it is emitted (compaction_policy.h).
#pragma once

#include <functional>
#include <vector>

#include "olap/execution/join/compaction_policy.h"
#include "olap/execution/join/join_hash_table.h"
#include "olap/execution/join/join_match_marks.h"
#include "olap/execution/join/join_residual.h"

namespace forktail {

enum class JoinType : uint8_t {
  kInner,
  kLeftOuter,
  kSemi,
  kAnti,
  kNullAwareAnti,
  kFullOuter,
  kRightSemi,
  kRightAnti,
  kRightOuter
};

// Whether the join's output carries the build payload (inner, left, full,
// right outer, and the right semi / anti joins, whose output is the build payload only).
inline bool JoinEmitsPayload(JoinType t) {
  return t == JoinType::kInner || t == JoinType::kLeftOuter || t == JoinType::kFullOuter ||
         t == JoinType::kRightSemi || t == JoinType::kRightAnti || t == JoinType::kRightOuter;
}

// Whether the probe emits nothing and only marks build rows (right semi /
// anti): the output is made from the marks after the last probe.
inline bool JoinIsRightSemiAnti(JoinType t) {
  return t == JoinType::kRightSemi || t == JoinType::kRightAnti;
}

// Whether the probes mark the build rows they match (JoinMatchMarks).
inline bool JoinMarksBuild(JoinType t) {
  return t == JoinType::kFullOuter || t == JoinType::kRightOuter || JoinIsRightSemiAnti(t);
}

class JoinProbe {
 public:
  // Receives each full output chunk. The callee may move the chunk out
  // (keep it without a copy); the probe then starts a fresh one.
  using Emit = std::function<void(DataChunk&)>;

  // `residual` (may be null: keys only) must outlive the probe.
  JoinProbe(const JoinHashTable* table, JoinType type, std::vector<uint32_t> key_cols,
            std::vector<uint32_t> out_cols, std::vector<Type> out_types, CompactionPolicy policy,
            const Expression* residual = nullptr);

  // kFullOuter, kRightOuter, kRightSemi, kRightAnti: where matched build rows are marked
  // (outlives the probe).
  void set_match_marks(JoinMatchMarks* marks) { marks_ = marks; }

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
  // Fills probe_rows_/build_rows_ for one chunk (keys only / with residual).
  void MatchKeys(Rows rows);
  void MatchWithResidual(const DataChunk& chunk, Rows rows);

  const JoinHashTable* table_;
  JoinType type_;
  std::vector<uint32_t> key_cols_, out_cols_;
  std::vector<Type> out_types_;
  CompactionPolicy policy_;
  std::vector<Type> all_types_;  // out_'s columns: probe outputs, then payload
  DataChunk out_;
  std::shared_ptr<StringArena> arena_;  // probe strings copied into out_
  std::vector<uint64_t> keys_, hashes_;
  std::vector<uint32_t> firsts_;  // per probe row: its chain's first entry
  std::vector<uint32_t> probe_rows_, build_rows_;
  std::unique_ptr<JoinResidual> residual_;
  std::vector<uint32_t> cand_probe_, cand_build_, cand_end_;  // residual candidates
  std::vector<uint8_t> pass_;
  uint64_t chunks_emitted_ = 0;
  JoinMatchMarks* marks_ = nullptr;
};

}  // namespace forktail
