// LoadController: admits queries by memory (Quickstep's load controller). Each
// query declares a memory estimate; the sum of the estimates of admitted
// queries never exceeds the budget. A query that does not fit waits in a FIFO
// queue; when an admitted query ends its estimate is returned and queued
// queries are admitted strictly in arrival order (the head is never bypassed by
// a smaller query behind it, so a big query cannot starve). A query whose
// estimate exceeds the whole budget can never run and is refused at once.
// Not thread-safe: used under the scheduler lock.
#pragma once

#include <cstddef>
#include <deque>
#include <vector>

#include "scheduler/work_order.h"

namespace forktail {

class LoadController {
 public:
  explicit LoadController(size_t budget) : budget_(budget) {}

  // Throws DbError 53200 if the estimate exceeds the whole budget.
  void CheckFits(size_t estimate) const;
  // Admits now (true) or queues (false). Call CheckFits first.
  bool Offer(QueryId query, size_t estimate);
  // Returns an admitted query's estimate; returns the queued queries admitted now.
  std::vector<QueryId> Release(size_t estimate);
  // Drops a queued query (cancelled before admission); false if not queued.
  // Call AdmitWaiting() after: the dropped query may have been the blocking head.
  bool RemoveQueued(QueryId query);
  std::vector<QueryId> AdmitWaiting();

  size_t budget() const { return budget_; }
  size_t admitted_bytes() const { return admitted_; }
  size_t queued() const { return queue_.size(); }

 private:
  struct Waiting {
    QueryId query;
    size_t estimate;
  };
  size_t budget_;
  size_t admitted_ = 0;
  std::deque<Waiting> queue_;
};

}  // namespace forktail
