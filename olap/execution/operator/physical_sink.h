// ResultSink: the root of a plan; collects the final rows as forktail::Value
// rows (for tests and, later, the wire protocol). One work order per input
// block converts it; rows keep the order of the blocks' arrival and, within a
// block, the chunks' order (so a sort's single output block stays sorted).
// The ResultRows object is shared with the caller and outlives the query.
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "olap/execution/operator/physical_operator.h"

namespace forktail {

struct ResultRows {
  std::vector<Type> types;
  std::vector<Row> rows;  // complete once the query's handle is Done without error
};

class ResultSinkOperator final : public PhysicalOperator {
 public:
  ResultSinkOperator(std::vector<Type> types, std::shared_ptr<ResultRows> result);

  void FeedInputBlock(size_t input_index, StreamBlockPtr block) override;
  void AllWorkOrdersFinished() override;

 protected:
  void ProcessBlock(WorkOrderContext& context, int slot, size_t input_index,
                    const StreamBlockPtr& block) override;

 private:
  std::shared_ptr<ResultRows> result_;
  std::mutex mutex_;                     // guards parts_ (work orders fill different entries)
  std::vector<std::vector<Row>> parts_;  // by arrival number
  size_t arrived_ = 0;
  std::unordered_map<const StreamBlock*, size_t> seq_;  // unprocessed block -> arrival number
};

}  // namespace forktail
