#include "olap/execution/join/compaction_policy.h"

#include <algorithm>

#include "olap/common/vector.h"

namespace forktail {

CompactionPolicy CompactionPolicy::Learned(uint64_t seed) {
  CompactionPolicy p(Mode::kLearned, 0);
  p.arms_ = {0, 256, 512, 1024, 1536, kVectorSize};
  p.reward_sum_.assign(p.arms_.size(), 0);
  p.plays_.assign(p.arms_.size(), 0);
  p.rng_.seed(seed);
  p.arm_ = 0;
  p.threshold_ = p.arms_[0];
  return p;
}

void CompactionPolicy::Observe(uint64_t rows, uint64_t nanos) {
  if (mode_ != Mode::kLearned) return;
  episode_rows_ += rows;
  episode_nanos_ += nanos;
  if (++episode_chunks_ < kEpisodeChunks) return;
  double reward = episode_nanos_ == 0 ? 0 : 1e9 * episode_rows_ / episode_nanos_;
  reward_sum_[arm_] += reward;
  ++plays_[arm_];
  episode_chunks_ = 0;
  episode_rows_ = episode_nanos_ = 0;
  PickArm();
}

uint32_t CompactionPolicy::best_threshold() const {
  if (mode_ != Mode::kLearned) return threshold_;
  size_t best = 0;
  double best_mean = -1;
  for (size_t a = 0; a < arms_.size(); ++a) {
    if (plays_[a] == 0) continue;
    double mean = reward_sum_[a] / plays_[a];
    if (mean > best_mean) {
      best_mean = mean;
      best = a;
    }
  }
  return arms_[best];
}

void CompactionPolicy::PickArm() {
  for (size_t a = 0; a < arms_.size(); ++a) {
    if (plays_[a] == 0) {
      arm_ = a;
      threshold_ = arms_[a];
      return;
    }
  }
  std::uniform_real_distribution<double> coin(0, 1);
  if (coin(rng_) < 0.1) {
    arm_ = std::uniform_int_distribution<size_t>(0, arms_.size() - 1)(rng_);
  } else {
    arm_ = std::find(arms_.begin(), arms_.end(), best_threshold()) - arms_.begin();
  }
  threshold_ = arms_[arm_];
}

}  // namespace forktail
