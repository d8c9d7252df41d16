// JoinHashTable: the build side of a hash join, built by several threads.
//
// Build in two phases (the caller puts a barrier between them):
//   1. Add(t, chunk): thread t appends build rows to its own partition —
//      encoded keys, hashes, and payload columns copied into thread-local
//      chunks (strings into a thread-local arena). No sharing, no latches.
//   2. Finalize(t): the first caller sizes the bucket array for all rows
//      (std::call_once); every thread then links its own rows into the
//      chains with a lock-free CAS on the bucket heads:
//         next[row] = head[b]; CAS(head[b], next[row], row)
//      so chains are complete once every thread returned (caller's barrier).
//
//   row id = partition base + index in the thread's partition
//   head[b]: uint32 row id of the chain's first row (kEnd = empty)
//   entry[r]: [next row in the chain][hash][key words]: Finalize copies each
//             thread's keys there, so a probe step touches one entry
//
// Rows whose key has a NULL are kept (for payload) but never linked: NULL
// keys never match. has_null_key() remembers that one existed, which NOT IN
// needs (JoinType::kNullAwareAnti).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "olap/common/key_encoder.h"

namespace forktail {

class JoinHashTable {
 public:
  static constexpr uint32_t kEnd = UINT32_MAX;

  JoinHashTable(std::vector<Type> key_types, std::vector<uint32_t> key_cols,
                std::vector<Type> payload_types, std::vector<uint32_t> payload_cols, int threads);

  void Add(int thread, const DataChunk& chunk);
  void Finalize(int thread);

  const KeyEncoder& encoder() const { return enc_; }
  const std::vector<Type>& payload_types() const { return payload_types_; }
  uint64_t rows() const { return total_; }
  bool has_null_key() const { return has_null_key_.load(std::memory_order_relaxed); }

  // Memory, for the query's charge: what thread's partition holds now (keys
  // and hashes until Finalize, payload chunks and strings), and what the
  // bucket heads and entries will take for the rows added so far.
  size_t PartBytes(int thread) const;
  size_t DirectoryBytes() const;

  // Chain walk: first row whose bucket matches hash, then Next().
  uint32_t First(uint64_t hash) const {
    return heads_[hash & mask_].load(std::memory_order_relaxed);
  }
  void PrefetchBucket(uint64_t hash) const { __builtin_prefetch(&heads_[hash & mask_]); }
  void PrefetchEntry(uint32_t row) const { __builtin_prefetch(Entry(row)); }
  uint32_t Next(uint32_t row) const { return static_cast<uint32_t>(Entry(row)[0]); }
  uint64_t HashOf(uint32_t row) const { return Entry(row)[1]; }
  const uint64_t* KeyOf(uint32_t row) const { return Entry(row) + 2; }
  // out[out_offset + k] = payload column c of build row rows[k] (kEnd: NULL).
  void GatherPayload(const uint32_t* rows, uint32_t n, uint32_t c, Vector* out,
                     uint32_t out_offset) const;

 private:
  struct Part {
    std::vector<uint64_t> keys;
    std::vector<uint64_t> hashes;
    std::vector<DataChunk> payload;  // full chunks of kVectorSize rows
    std::shared_ptr<StringArena> arena = std::make_shared<StringArena>();
    uint64_t base = 0;
    uint64_t count = 0;
  };
  // Entries are contiguous after Finalize: one cache line per probe step.
  //   entry: [next row][hash][key words ...]
  const uint64_t* Entry(uint32_t row) const { return &entries_[size_t{row} * entry_words_]; }
  uint32_t PartOf(uint32_t row) const;
  void Allocate();

  KeyEncoder enc_;
  std::vector<uint32_t> key_cols_;
  std::vector<Type> payload_types_;
  std::vector<uint32_t> payload_cols_;
  std::vector<Part> parts_;
  std::once_flag allocated_;
  uint64_t total_ = 0;
  uint64_t mask_ = 0;
  std::unique_ptr<std::atomic<uint32_t>[]> heads_;
  std::unique_ptr<uint64_t[]> entries_;
  uint32_t entry_words_ = 0;
  std::atomic<bool> has_null_key_{false};
};

}  // namespace forktail
