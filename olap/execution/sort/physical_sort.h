// Sort / top-k and Limit.
//
// Sort runs on the kernels' Sorter (olap/execution/sort/sorter.h):
//   per input block (one work order): each chunk's live rows become a sorted
//   run (top-k: a run keeps only its first `limit` rows);
//   final work order: k-way merge of the runs, stopping after `limit` rows,
//   gathered into kVectorSize-row output chunks emitted as ONE block, so
//   order is kept downstream. The block keeps the Sorter alive (strings).
// Key order follows PostgreSQL: ASC puts NULLs last, DESC first, unless
// nulls_first says otherwise; NaN sorts above every other double; CHAR
// compares with trailing blanks ignored; strings bytewise.
// Memory: runs and the output block are charged to the query's QueryMemory
// (53200 "... (sort needs N more)").
//
// Limit: skips the first `offset` rows of its input in arrival order and
// passes the next `limit` (claimed with an atomic counter, so with several
// input blocks which rows is unspecified, as LIMIT without ORDER BY is; a
// sort's single output block keeps its order).
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#include "olap/execution/operator/physical_operator.h"
#include "olap/execution/sort/sorter.h"
#include "scheduler/query_memory.h"

namespace forktail {

inline constexpr uint64_t kNoLimit = std::numeric_limits<uint64_t>::max();

// The planner's sort key (PostgreSQL defaults: NULLs last for ASC, first for
// DESC); the operator turns it into the Sorter's SortKey.
struct PhysicalSortKey {
  uint32_t column = 0;
  bool descending = false;
  // Default (unset): NULLs last for ASC, first for DESC.
  int nulls_first = -1;  // -1 default, 0 last, 1 first
};

class SortOperator final : public PhysicalOperator {
 public:
  SortOperator(std::vector<Type> types, std::vector<PhysicalSortKey> keys, uint64_t limit,
               int parallelism);

 protected:
  void ProcessBlock(WorkOrderContext& context, int slot, size_t input_index,
                    const StreamBlockPtr& block) override;
  bool Finish(WorkOrderSink& sink) override;

 private:
  void Merge(WorkOrderContext& context);

  std::shared_ptr<Sorter> sorter_;
  MemoryCharge runs_charge_{"sort"};
  bool merging_ = false;
};

class LimitOperator final : public PhysicalOperator {
 public:
  LimitOperator(std::vector<Type> types, uint64_t limit, uint64_t offset = 0);

 protected:
  void ProcessBlock(WorkOrderContext& context, int slot, size_t input_index,
                    const StreamBlockPtr& block) override;

 private:
  std::atomic<uint64_t> taken_{0};
  uint64_t limit_;
  uint64_t offset_;
};

}  // namespace forktail
