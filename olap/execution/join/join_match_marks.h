// JoinMatchMarks: which build rows of a finalized JoinHashTable found a
// partner, for FULL OUTER joins (JoinType::kFullOuter, join_probe.h) and the
// right semi / anti joins (kRightSemi / kRightAnti: the output is the marked
// / unmarked build rows).
//
//   marks: one byte per build row id (JoinHashTable row ids are dense,
//          [0, table.rows()), rows with a NULL key included: never marked)
//
// Several probe threads mark concurrently: relaxed atomic bytes, and a byte
// already set is only read (hot build rows then stay shared in every core's
// cache instead of bouncing). Marks are read only after every probe finished
// (the caller's barrier: the probe operator's last work order), which orders
// them; EmitUnmatchedBuildRows then pads each unmarked row with NULL probe
// columns. Build rows can be split into ranges emitted by different threads.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "olap/execution/join/join_hash_table.h"

namespace forktail {

class JoinMatchMarks {
 public:
  explicit JoinMatchMarks(uint64_t rows);

  void Mark(uint32_t row) {
    std::atomic<uint8_t>& m = marks_[row];
    if (m.load(std::memory_order_relaxed) == 0) m.store(1, std::memory_order_relaxed);
  }
  bool marked(uint32_t row) const { return marks_[row].load(std::memory_order_relaxed) != 0; }
  uint64_t rows() const { return rows_; }
  size_t bytes() const { return rows_; }

 private:
  uint64_t rows_;
  std::unique_ptr<std::atomic<uint8_t>[]> marks_;
};

// The unmarked build rows in [begin, end) as output chunks of kVectorSize
// rows at most: `probe_types` columns all NULL, then the table's payload
// columns. Payload strings stay views into the table (keep it alive).
void EmitUnmatchedBuildRows(const JoinHashTable& table, const JoinMatchMarks& marks, uint64_t begin,
                            uint64_t end, const std::vector<Type>& probe_types,
                            const std::function<void(DataChunk&)>& emit);

// As EmitUnmatchedBuildRows, choosing the rows whose mark is `marked`: the
// right semi join emits the marked rows, the right anti join (and FULL
// OUTER's padding) the unmarked ones.
void EmitBuildRows(const JoinHashTable& table, const JoinMatchMarks& marks, uint64_t begin,
                   uint64_t end, bool marked, const std::vector<Type>& probe_types,
                   const std::function<void(DataChunk&)>& emit);

}  // namespace forktail
