// StatementTimer: one thread that runs callbacks at deadlines, for
// statement_timeout (a session arms it when a statement starts and disarms
// it when the statement ends; the callback cancels the statement).
//
// Disarm() returns only once the callback will not run or has finished, so
// a session can disarm and go on without the callback racing its next
// statement.
//
// Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace forktail {

class StatementTimer {
 public:
  using Clock = std::chrono::steady_clock;

  StatementTimer();
  ~StatementTimer();
  StatementTimer(const StatementTimer&) = delete;
  StatementTimer& operator=(const StatementTimer&) = delete;

  // Runs `fn` on the timer's thread at `deadline` unless disarmed first.
  uint64_t Arm(Clock::time_point deadline, std::function<void()> fn);
  // Returns true when the callback ran (or was running and has finished).
  bool Disarm(uint64_t id);

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable cv_;
  // Pending callbacks by (deadline, id).
  std::map<std::pair<Clock::time_point, uint64_t>, std::function<void()>> pending_;
  uint64_t next_id_ = 1;
  uint64_t running_ = 0;            // the id whose callback runs now (0: none)
  std::map<uint64_t, bool> fired_;  // ids that fired and were not yet disarmed
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace forktail
