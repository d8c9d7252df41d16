// Sorter: ORDER BY [LIMIT k OFFSET m] as sorted runs plus a k-way merge.
//
// Each input chunk (one work order's block slice) becomes a run: its live
// rows are copied into an owned chunk and a permutation is sorted. With a
// LIMIT, only the first limit+offset rows of a run can ever be output, so a
// run keeps just those (std::partial_sort, a heap over the run: top-k).
// Merge() combines the runs with a heap of cursors, skips `offset` rows and
// stops after `limit`.
//
// Keys compare column by column; each key has a direction and a NULL
// placement (PostgreSQL's default is NULLS LAST for ASC and NULLS FIRST for
// DESC; the caller states it). Strings compare bytewise. Comparison goes
// through one function pointer per key column (typed per physical type),
// not a switch per value.
//
// AddRun is thread-safe (runs are built outside the lock); Merge runs once.
#pragma once

#include <cstdint>
#include <limits>
#include <mutex>
#include <vector>

#include "olap/data_chunk.h"

namespace forktail {

struct SortKey {
  uint32_t column = 0;
  bool ascending = true;
  bool nulls_first = false;
};

class Sorter {
 public:
  static constexpr uint64_t kNoLimit = std::numeric_limits<uint64_t>::max();

  Sorter(std::vector<Type> types, std::vector<SortKey> keys, uint64_t limit = kNoLimit,
         uint64_t offset = 0);

  void AddRun(const DataChunk& chunk);
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

  std::vector<Type> types_;
  std::vector<SortKey> keys_;
  std::vector<CompareFn> cmp_;
  uint64_t limit_, offset_;
  std::mutex mu_;
  std::vector<Run> runs_;
};

}  // namespace forktail
