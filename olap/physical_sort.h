// Sort / top-k and Limit. The kernels' sort/top-k is not in the tree yet, so
// this is a simple, correct stand-in:
//   per input block (one work order): copy the block's live rows into owned
//   chunks (a run), sort the run's row references by the keys, and keep only
//   the first `limit` of them (top-k);
//   final work order: k-way merge of the runs (a heap of run heads), stopping
//   after `limit` rows, gathered into kVectorSize-row output chunks emitted as
//   ONE block, so order is kept downstream.
// Key order follows PostgreSQL: ASC puts NULLs last, DESC first, unless
// nulls_first says otherwise; NaN sorts above every other double; CHAR
// compares with trailing blanks ignored; strings bytewise.
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

#include "olap/physical_operator.h"

namespace forktail {

inline constexpr uint64_t kNoLimit = std::numeric_limits<uint64_t>::max();

// The sort operator's own key (PostgreSQL defaults: NULLs last for ASC, first
// for DESC; NaN sorts above every number). TODO: run on the kernels' Sorter
// (olap/sorter.h) once it follows the same NULL/NaN order, and drop this copy.
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
  struct Ref {
    uint32_t chunk;
    uint32_t row;
  };
  struct Run {
    std::vector<DataChunk> chunks;
    std::vector<Ref> order;
  };
  // <0, 0, >0 as row a sorts before, with, after row b.
  int CompareRows(const Run& ra, Ref a, const Run& rb, Ref b) const;
  void Merge(WorkOrderContext& context);

  std::vector<PhysicalSortKey> keys_;
  uint64_t limit_;
  std::mutex mutex_;  // guards runs_ (work orders add runs)
  std::vector<std::shared_ptr<Run>> runs_;
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
