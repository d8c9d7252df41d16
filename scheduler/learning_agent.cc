#include "scheduler/learning_agent.h"

#include <algorithm>

namespace forktail {

void LearningAgent::Record(QueryId query, OperatorId op, double nanos) {
  auto [it, inserted] = per_operator_.try_emplace({query, op}, nanos);
  if (!inserted) it->second += kAlpha * (std::min(nanos, kMaxJump * it->second) - it->second);
  if (!have_global_) {
    global_ = nanos;
    have_global_ = true;
  } else {
    global_ += kAlpha * (nanos - global_);
  }
}

double LearningAgent::Predict(QueryId query, OperatorId op) const {
  if (auto it = per_operator_.find({query, op}); it != per_operator_.end()) return it->second;
  double sum = 0;
  int count = 0;
  for (auto it = per_operator_.lower_bound({query, 0});
       it != per_operator_.end() && it->first.first == query; ++it) {
    sum += it->second;
    ++count;
  }
  if (count > 0) return sum / count;
  return have_global_ ? global_ : kDefaultNanos;
}

void LearningAgent::Forget(QueryId query) {
  per_operator_.erase(per_operator_.lower_bound({query, 0}),
                      per_operator_.lower_bound({query + 1, 0}));
}

}  // namespace forktail
