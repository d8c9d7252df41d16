#include "olap/session/statement_timer.h"

#include <utility>

namespace forktail {

StatementTimer::StatementTimer() : thread_([this] { Loop(); }) {}

StatementTimer::~StatementTimer() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

uint64_t StatementTimer::Arm(Clock::time_point deadline, std::function<void()> fn) {
  std::lock_guard<std::mutex> l(mu_);
  const uint64_t id = next_id_++;
  const bool earliest = pending_.empty() || deadline < pending_.begin()->first.first;
  pending_.emplace(std::make_pair(deadline, id), std::move(fn));
  if (earliest) cv_.notify_all();
  return id;
}

bool StatementTimer::Disarm(uint64_t id) {
  std::unique_lock<std::mutex> l(mu_);
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if (it->first.second == id) {
      pending_.erase(it);
      return false;
    }
  }
  cv_.wait(l, [&] { return running_ != id; });
  return fired_.erase(id) > 0;
}

void StatementTimer::Loop() {
  std::unique_lock<std::mutex> l(mu_);
  while (!stopping_) {
    if (pending_.empty()) {
      cv_.wait(l);
      continue;
    }
    auto first = pending_.begin();
    // A copy: Disarm may erase the entry while this thread waits.
    const Clock::time_point deadline = first->first.first;
    if (Clock::now() < deadline) {
      cv_.wait_until(l, deadline);
      continue;
    }
    const uint64_t id = first->first.second;
    std::function<void()> fn = std::move(first->second);
    pending_.erase(first);
    running_ = id;
    fired_[id] = true;
    l.unlock();
    fn();
    l.lock();
    running_ = 0;
    cv_.notify_all();
  }
}

}  // namespace forktail
