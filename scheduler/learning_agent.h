// LearningAgent: predicts how long the next work order of (query, operator)
// will run, from the work orders of that pair that already finished (Quickstep's
// learning agent). The policy enforcer turns predictions into probabilities.
//
// Model: an exponential moving average per (query, operator),
//   t <- t + kAlpha * (sample - t),      first sample: t = sample,
// which follows phase changes of an operator within ~1/kAlpha work orders.
// A sample is first clamped to at most kMaxJump * t: a work order whose worker
// was preempted (the machine is shared) must not make its query look slow for
// the next several draws. That noise is not symmetric — a query whose predicted
// time spikes loses most of its probability, one whose rival spikes can gain
// little — so unclamped it biases shares against the favoured query. A genuine
// slow-down is still learned, by a factor of up to 1 + kAlpha per work order.
// An operator with no sample yet is predicted by the mean of its query's other
// operators, else by the average over all queries, else kDefaultNanos. Not
// thread-safe: used under the scheduler lock.
#pragma once

#include <map>
#include <utility>

#include "scheduler/work_order.h"

namespace forktail {

class LearningAgent {
 public:
  static constexpr double kAlpha = 0.2;
  static constexpr double kMaxJump = 2.0;
  static constexpr double kDefaultNanos = 100'000;

  void Record(QueryId query, OperatorId op, double nanos);
  double Predict(QueryId query, OperatorId op) const;
  void Forget(QueryId query);

 private:
  std::map<std::pair<QueryId, OperatorId>, double> per_operator_;
  double global_ = 0;
  bool have_global_ = false;
};

}  // namespace forktail
