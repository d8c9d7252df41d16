// Sorter: ORDER BY [LIMIT k OFFSET m] as sorted runs plus a k-way merge.
//
// Each input chunk (one work order's block slice) becomes a run: its live
// rows are sorted in place (a permutation over the input, no copy) and then
// copied in order into an owned chunk (strings into the run's arena). With a
// LIMIT, only the first limit+offset rows of a run can ever be output, so a
// run keeps just those (std::partial_sort: top-k); when limit+offset fits one
// vector, each new run is merged at once with the single run kept so far, so
// top-k holds one run whatever the input size. Merge() combines the runs
// with a heap of cursors, skips `offset` rows, stops after `limit`, and
// gathers the output a kVectorSize batch at a time (one type dispatch per
// column per batch).
//
// Order is PostgreSQL's:
//   - NULLs: SortKey::nulls_first says where; SortKey::Postgres() gives the
//     default (NULLS LAST for ASC, NULLS FIRST for DESC). The placement is
//     absolute: DESC does not flip it.
//   - DOUBLE: NaN sorts above every number (and equals NaN); -0.0 = 0.0.
//   - CHAR(n): trailing blanks are ignored; other strings compare bytewise.
// Equal keys keep run order within a run (stable) and earlier runs first in
// the merge, so a single run is a stable sort.
//
// Comparison goes through one function pointer per key column, chosen once
// per physical type (and CHAR), never a switch per value.
//
// AddRun is thread-safe (runs are built outside the lock); Merge runs once,
// after every AddRun returned.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#include "olap/common/data_chunk.h"

namespace forktail {

struct SortKey {
  uint32_t column = 0;
  bool ascending = true;
  bool nulls_first = false;

  // PostgreSQL's default NULL placement: last for ASC, first for DESC.
  static SortKey Postgres(uint32_t column, bool descending) {
    return SortKey{column, !descending, descending};
  }
};

class Sorter {
 public:
  static constexpr uint64_t kNoLimit = std::numeric_limits<uint64_t>::max();

  Sorter(std::vector<Type> types, std::vector<SortKey> keys, uint64_t limit = kNoLimit,
         uint64_t offset = 0);

  // Returns the change in bytes the sorter holds (the new run's size, or
  // the top-k run's growth; may be negative), for the query's memory charge.
  int64_t AddRun(const DataChunk& chunk);
  // The sorted output (after limit/offset) in chunks of up to kVectorSize.
  // Strings point into the runs: keep the Sorter alive while reading.
  std::vector<DataChunk> Merge();

  using CompareFn = int (*)(const Vector&, uint32_t, const Vector&, uint32_t);

 private:
  struct Run {
    DataChunk rows;
    std::vector<uint32_t> order;
  };
  int CompareRows(const DataChunk& a, uint32_t i, const DataChunk& b, uint32_t j) const;
  bool Bounded() const { return limit_ != kNoLimit && limit_ + offset_ <= kVectorSize; }
  size_t RunBytes(Run& run) const;
  Run MergeTwo(const Run& a, const Run& b, uint64_t keep) const;
  void Gather(const std::vector<std::pair<uint32_t, uint32_t>>& refs, DataChunk* out) const;

  std::vector<Type> types_;
  std::vector<SortKey> keys_;
  std::vector<CompareFn> cmp_;
  uint64_t limit_, offset_;
  std::mutex mu_;
  std::vector<Run> runs_;
};

}  // namespace forktail
