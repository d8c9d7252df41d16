// PolicyEnforcer: decides which query gets the next free worker (Quickstep's
// policy enforcer). It sees the queries that have a work order ready, each with
// its priority p_q >= 1 and the learning agent's predicted execution time t_q of
// its next work order, and draws one at random with probability
//
//   Fair:                  P(q) = (1/t_q)   / sum_j (1/t_j)
//   ProportionalPriority:  P(q) = (p_q/t_q) / sum_j (p_j/t_j)
//   HighestPriorityFirst:  only queries with the highest p_q present compete,
//                          among them as Fair.
//
// Why: every dispatch hands out a work order that occupies a worker for ~t_q, so
// query q's expected share of worker time is P(q)*t_q / sum_j P(j)*t_j, which is
// 1/n for Fair and p_q / sum_j p_j for Proportional — whatever the work-order
// sizes. Drawing (rather than strict rotation) mixes queries even with one
// worker. The generator is seeded, so a run with the immediate scheduler is
// reproducible. Not thread-safe: used under the scheduler lock.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "scheduler/work_order.h"

namespace forktail {

enum class SchedulingPolicy { kFair, kHighestPriorityFirst, kProportionalPriority };

struct PolicyCandidate {
  QueryId query;
  int priority;
  double predicted_nanos;
};

class PolicyEnforcer {
 public:
  PolicyEnforcer(SchedulingPolicy policy, uint64_t seed) : policy_(policy), rng_(seed) {}

  // Index into candidates (non-empty) of the query to serve next.
  size_t Choose(std::span<const PolicyCandidate> candidates);

  // The probabilities above, one per candidate (sums to 1).
  static std::vector<double> Probabilities(SchedulingPolicy policy,
                                           std::span<const PolicyCandidate> candidates);

  SchedulingPolicy policy() const { return policy_; }

 private:
  SchedulingPolicy policy_;
  std::mt19937_64 rng_;
};

}  // namespace forktail
