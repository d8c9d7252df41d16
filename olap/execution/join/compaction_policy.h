// CompactionPolicy: when a hash-join probe emits its buffered output.
//
// A selective join turns full input vectors into sparse output; pushing
// many small chunks downstream costs per-chunk overhead in every operator
// above. The probe therefore compacts logically: it gathers matches into its
// output chunk across input chunks and emits only once the chunk holds at
// least threshold() rows (always when full, and at Finish()).
//   off:     threshold 0 — emit after every input chunk (no compaction);
//   fixed:   a constant threshold;
//   learned: a multi-armed bandit (Qiao and Zhang, SIGMOD 2024): the arms
//            are thresholds, an episode is kEpisodeChunks input chunks
//            played with one arm, its reward the measured throughput
//            (output rows per second of probe + downstream time). Arms are
//            tried once each, then epsilon-greedy on the mean reward.
// One instance per probe operator per worker (not thread-safe).
#pragma once

#include <chrono>
#include <cstdint>
#include <random>
#include <vector>

namespace forktail {

class CompactionPolicy {
 public:
  enum class Mode : uint8_t { kOff, kFixed, kLearned };
  static constexpr uint32_t kEpisodeChunks = 16;

  static CompactionPolicy Off() { return CompactionPolicy(Mode::kOff, 0); }
  static CompactionPolicy Fixed(uint32_t threshold) {
    return CompactionPolicy(Mode::kFixed, threshold);
  }
  static CompactionPolicy Learned(uint64_t seed = 42);

  Mode mode() const { return mode_; }
  uint32_t threshold() const { return threshold_; }

  // Called by the probe after each input chunk with the rows it emitted and
  // the nanoseconds spent (probe plus the downstream emit callbacks).
  void Observe(uint64_t rows, uint64_t nanos);

  // The arm the bandit currently prefers (learned mode).
  uint32_t best_threshold() const;

 private:
  CompactionPolicy(Mode mode, uint32_t threshold) : mode_(mode), threshold_(threshold) {}
  void PickArm();

  Mode mode_;
  uint32_t threshold_;
  std::vector<uint32_t> arms_;
  std::vector<double> reward_sum_;
  std::vector<uint32_t> plays_;
  size_t arm_ = 0;
  uint32_t episode_chunks_ = 0;
  uint64_t episode_rows_ = 0, episode_nanos_ = 0;
  std::mt19937_64 rng_;
};

}  // namespace forktail
