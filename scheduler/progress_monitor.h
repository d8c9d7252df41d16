// ProgressMonitor: per running query and per operator, how many work orders
// finished out of how many were produced so far (the total grows while an
// operator still generates), how long they ran in sum, and whether the operator
// is done. Snapshot() copies it for EXPLAIN ANALYZE and `forktail snapshots`;
// Format() prints a snapshot as a table. Not thread-safe: used under the
// scheduler lock (Scheduler::Progress() takes the copy).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/work_order.h"

namespace forktail {

struct OperatorProgress {
  std::string name;
  uint64_t work_orders_done = 0;
  uint64_t work_orders_total = 0;  // produced so far
  uint64_t exec_nanos = 0;         // sum of the finished work orders' run times
  bool finished = false;
};

struct QueryProgress {
  QueryId query = 0;
  int priority = 0;
  size_t memory_used = 0;   // QueryMemory bytes live at the snapshot
  size_t memory_limit = 0;  // the query's declared estimate
  std::vector<OperatorProgress> operators;

  uint64_t TotalExecNanos() const;
  uint64_t TotalDone() const;
};

class ProgressMonitor {
 public:
  void AddQuery(QueryId query, int priority, std::vector<std::string> operator_names);
  void Produced(QueryId query, OperatorId op, uint64_t count);
  void Finished(QueryId query, OperatorId op, uint64_t nanos);
  void OperatorDone(QueryId query, OperatorId op);
  // Removes the query and returns its last state.
  QueryProgress Remove(QueryId query);

  QueryProgress Get(QueryId query) const;
  std::vector<QueryProgress> Snapshot() const;
  static std::string Format(const std::vector<QueryProgress>& snapshot);

 private:
  std::map<QueryId, QueryProgress> queries_;
};

}  // namespace forktail
