#include "scheduler/policy_enforcer.h"

#include <algorithm>

namespace forktail {

std::vector<double> PolicyEnforcer::Probabilities(SchedulingPolicy policy,
                                                  std::span<const PolicyCandidate> candidates) {
  int top = 0;
  for (const auto& c : candidates) top = std::max(top, c.priority);
  std::vector<double> weights;
  weights.reserve(candidates.size());
  double sum = 0;
  for (const auto& c : candidates) {
    const double t = std::max(c.predicted_nanos, 1.0);
    double w = 0;
    switch (policy) {
      case SchedulingPolicy::kFair:
        w = 1.0 / t;
        break;
      case SchedulingPolicy::kProportionalPriority:
        w = std::max(c.priority, 1) / t;
        break;
      case SchedulingPolicy::kHighestPriorityFirst:
        w = c.priority == top ? 1.0 / t : 0.0;
        break;
    }
    weights.push_back(w);
    sum += w;
  }
  for (double& w : weights) w /= sum;
  return weights;
}

size_t PolicyEnforcer::Choose(std::span<const PolicyCandidate> candidates) {
  if (candidates.size() == 1) return 0;
  const std::vector<double> p = Probabilities(policy_, candidates);
  double draw = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
  for (size_t i = 0; i < p.size(); ++i) {
    if (draw < p[i]) return i;
    draw -= p[i];
  }
  for (size_t i = p.size(); i-- > 0;) {
    if (p[i] > 0) return i;  // rounding left draw just above the total
  }
  return 0;
}

}  // namespace forktail
