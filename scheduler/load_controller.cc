#include "scheduler/load_controller.h"

#include <cassert>
#include <string>

#include "storage/error.h"

namespace forktail {

void LoadController::CheckFits(size_t estimate) const {
  if (estimate > budget_) {
    throw DbError(sqlstate::kOutOfMemory, "query memory estimate of " + std::to_string(estimate) +
                                              " bytes exceeds the scheduler's memory budget of " +
                                              std::to_string(budget_) + " bytes");
  }
}

bool LoadController::Offer(QueryId query, size_t estimate) {
  assert(estimate <= budget_);
  if (queue_.empty() && admitted_ + estimate <= budget_) {
    admitted_ += estimate;
    return true;
  }
  queue_.push_back(Waiting{query, estimate});
  return false;
}

std::vector<QueryId> LoadController::Release(size_t estimate) {
  assert(estimate <= admitted_);
  admitted_ -= estimate;
  return AdmitWaiting();
}

bool LoadController::RemoveQueued(QueryId query) {
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    if (it->query == query) {
      queue_.erase(it);
      return true;
    }
  }
  return false;
}

std::vector<QueryId> LoadController::AdmitWaiting() {
  std::vector<QueryId> admitted;
  while (!queue_.empty() && admitted_ + queue_.front().estimate <= budget_) {
    admitted_ += queue_.front().estimate;
    admitted.push_back(queue_.front().query);
    queue_.pop_front();
  }
  return admitted;
}

}  // namespace forktail
