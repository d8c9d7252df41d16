// Aggregator: parallel hash aggregation (GROUP BY and global aggregates)
// behind one interface, with the methods of Ye, Ross and Vesdapunt (DaMoN
// 2011) side by side:
//
//   kShared       one table split into kPartitions latched sub-tables; each
//                 chunk's rows are bucketed by partition and each bucket is
//                 applied under that partition's latch. Contends when few
//                 groups are hot.
//   kIndependent  one private table per thread; Merge() folds them into
//                 partitioned final tables, each partition by one thread.
//   kPartition    partition-and-aggregate: threads only scatter rows
//                 (keys + inputs, copied) into per-thread partition buffers;
//                 Merge() aggregates each partition on one thread.
//   kPlat         partition-and-lookahead: a bounded private table (kPlatGroups)
//                 takes the groups seen first; rows of other groups overflow
//                 into the partition buffers; Merge() aggregates buffers and
//                 private tables per partition.
//   kHybrid       a bounded private table acting as a cache in front of the
//                 shared latched tables: when it fills, its groups are merged
//                 into the shared tables (batch eviction) and it restarts.
//   kAdaptive     the default: independent while a thread has seen at most
//                 kAdaptiveGroups groups (few groups: private tables stay in
//                 cache and the merge is tiny; the fastest method there);
//                 past that the thread switches to partition-and-aggregate
//                 (many groups: the fastest method there), its table being
//                 folded in at Merge(). Figures: olap/README.md.
//
// Protocol: thread t (0 <= t < threads) calls Consume(t, chunk) for its
// chunks; after all threads finished consuming (caller's barrier) each thread
// calls Merge(t); after all merged, Result() returns the groups. Strings in
// the result point into the aggregator's tables: keep it alive while reading.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "olap/execution/aggregate/group_table.h"

namespace forktail {

enum class AggMethod : uint8_t { kShared, kIndependent, kPartition, kPlat, kHybrid, kAdaptive };
const char* AggMethodName(AggMethod m);

class Aggregator {
 public:
  static constexpr uint32_t kPartitions = 64;
  static constexpr uint32_t kPlatGroups = 1 << 15;
  static constexpr uint32_t kAdaptiveGroups = 1 << 13;

  // key_cols / the specs' inputs index the input chunks' columns; key_types
  // are their types. No key columns = one global group (one row even for
  // empty input).
  Aggregator(AggMethod method, std::vector<uint32_t> key_cols, std::vector<Type> key_types,
             std::vector<AggregateSpec> aggs, int threads, uint32_t private_groups = kPlatGroups);
  ~Aggregator();

  void Consume(int thread, const DataChunk& chunk);
  void Merge(int thread);
  // Output chunks: key columns then one column per aggregate.
  std::vector<DataChunk> Result() const { return Result(0, 1); }
  // Slice `slice` of `slices` of the output (disjoint groups; together all
  // of them), so that several work orders emit it and the operators above
  // run on it in parallel.
  std::vector<DataChunk> Result(uint32_t slice, uint32_t slices) const;

  AggMethod method() const { return method_; }

  // Memory, for the query's charge (heap bytes, arrays by capacity):
  //   ThreadBytes(t)  thread t's private table, partition buffers, scratch;
  //                   call from thread t (or once consumption is over);
  //   SharedBytes()   the latched shared tables (kShared, kHybrid), any thread;
  //   MergedBytes(t)  the final tables of thread t's partitions (not kShared /
  //                   kHybrid, whose tables SharedBytes counts), after Merge(t).
  size_t ThreadBytes(int thread) const;
  size_t SharedBytes() const { return shared_bytes_.load(std::memory_order_relaxed); }
  size_t MergedBytes(int thread) const;

 private:
  struct ThreadState;
  struct Partition;
  void ConsumeRows(ThreadState& ts, const DataChunk& chunk, Rows rows,
                   const std::vector<uint32_t>& key_cols, const std::vector<uint32_t>& inputs);
  void ApplyShared(ThreadState& ts, const DataChunk& chunk, Rows rows, const uint64_t* keys,
                   const uint64_t* hashes, const std::vector<uint32_t>& inputs);
  void Scatter(ThreadState& ts, const DataChunk& chunk, Rows rows, const uint64_t* hashes);
  void FlushToShared(GroupTable& table);
  static uint32_t PartitionOf(uint64_t hash) { return static_cast<uint32_t>(hash >> 58); }

  AggMethod method_;
  std::vector<uint32_t> key_cols_;
  KeyEncoder enc_;
  std::vector<AggregateSpec> aggs_;
  std::vector<uint32_t> inputs_;
  // Columns kept in partition buffers, and the key/input indexes into them.
  std::vector<uint32_t> kept_cols_;
  std::vector<Type> kept_types_;
  std::vector<uint32_t> kept_key_cols_, kept_inputs_;
  int threads_;
  uint32_t private_groups_;  // PLAT / hybrid bound; adaptive switch point
  std::vector<std::unique_ptr<ThreadState>> ts_;
  // kPartitions, in one allocation. Mutable: Result() (const) gives a global
  // aggregate over no rows its one group.
  mutable std::vector<std::optional<Partition>> parts_;
  std::atomic<size_t> shared_bytes_{0};
};

static_assert(Aggregator::kPartitions == 64, "PartitionOf takes the top 6 hash bits");

}  // namespace forktail
