// JoinHashTable: the build side of a hash join, built by several threads.
//
// Build in two phases (the caller puts a barrier between them):
//   1. Add(t, chunk): thread t appends build rows to its own partition, as
//      whole entries (below) in blocks of 256 KiB; strings are copied into a
//      thread-local arena. No sharing, no latches.
//   2. Finalize(t): the first caller sizes the bucket array and the entry
//      array for all rows (std::call_once); every thread then moves its own
//      entries there (freeing its blocks as it goes) and links them into the
//      chains with a lock-free CAS on the bucket heads:
//         next[row] = head[b]; CAS(head[b], next[row], row)
//      so chains are complete once every thread returned (caller's barrier).
//
//   row id = partition base + index in the thread's partition
//   head[b]: uint32 row id of the chain's first row (kEnd = empty)
//   entry[r]: [next row in the chain][hash][key words][payload][payload NULLs]
//     payload: each column's value at its physical width (4 bytes for an
//     INTEGER, 16 for a string view), widest first; NULLs: one bit per
//     column; the entry rounded up to whole words.
//   A row's key and payload share its entry, so the probe that compared the
//   key finds the payload in the cache lines it just read; columnar payload
//   costs a dependent miss per column of every matched row.
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

  // Memory, for the query's charge: what thread's partition holds now
  // (its entry blocks until Finalize, and strings), and what the bucket heads
  // and entries will take for the rows added so far.
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
    struct Block {
      std::unique_ptr<uint64_t[]> entries;
      uint32_t capacity = 0, used = 0;
    };
    std::vector<Block> blocks;  // growing from 64 rows up to max_block_rows_
    std::shared_ptr<StringArena> arena = std::make_shared<StringArena>();
    std::vector<uint64_t> keys, hashes;  // scratch for one chunk's encoded keys
    std::vector<uint64_t*> dest;         // scratch: where each row of the chunk goes
    uint64_t base = 0;
    uint64_t count = 0;
  };
  // Entries are contiguous after Finalize: one cache line per probe step.
  const uint64_t* Entry(uint32_t row) const { return &entries_[size_t{row} * entry_words_]; }
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
  // Entry layout: payload column c at byte payload_at_[c]; its NULL bit in
  // byte nulls_at_ + c / 8.
  std::vector<uint32_t> payload_at_;
  uint32_t nulls_at_ = 0;
  uint32_t entry_words_ = 0;
  uint32_t max_block_rows_ = 0;
  std::atomic<bool> has_null_key_{false};
};

}  // namespace forktail
