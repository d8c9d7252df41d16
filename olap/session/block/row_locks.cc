#include "olap/session/block/row_locks.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

#include "storage/error.h"

namespace forktail {
namespace {

// How often a waiter looks at its cancel flag and deadline besides being
// woken by a release.
constexpr std::chrono::milliseconds kWaitSlice{10};

}  // namespace

uint64_t RowLockTable::NewOwner() { return next_owner_.fetch_add(1, std::memory_order_relaxed); }

uint64_t RowLockTable::Epoch() const { return epoch_.load(std::memory_order_acquire); }

size_t RowLockTable::Slot(const std::string& key) {
  return std::hash<std::string>{}(key) % std::tuple_size_v<decltype(released_at_)>;
}

bool RowLockTable::Compatible(const Lock& lock, uint64_t owner, Mode mode) const {
  const bool only_owner =
      std::all_of(lock.holders.begin(), lock.holders.end(), [&](uint64_t h) { return h == owner; });
  return only_owner || (lock.mode == Mode::kShare && mode == Mode::kShare);
}

bool RowLockTable::WouldDeadlock(uint64_t owner, const std::string& key) const {
  // Walk the waits-for graph from the holders of `key`: reaching `owner`
  // means each of them waits, directly or not, for `owner`.
  std::vector<const std::string*> pending{&key};
  std::unordered_set<uint64_t> seen;
  while (!pending.empty()) {
    const std::string* k = pending.back();
    pending.pop_back();
    auto lock = locks_.find(*k);
    if (lock == locks_.end()) continue;
    for (uint64_t holder : lock->second.holders) {
      if (holder == owner) {
        if (k != &key) return true;
        continue;  // `owner`'s own share of the key it upgrades
      }
      if (!seen.insert(holder).second) continue;
      auto wait = waits_.find(holder);
      if (wait != waits_.end()) pending.push_back(&wait->second);
    }
  }
  return false;
}

bool RowLockTable::Acquire(uint64_t owner, const std::vector<std::string>& keys, Mode mode,
                           uint64_t epoch, const WaitPolicy& policy, std::string_view relation) {
  std::unique_lock<std::mutex> l(mu_);
  const auto deadline = std::chrono::steady_clock::now() + policy.timeout;
  bool waited = false;
  for (;;) {
    const std::string* blocked = nullptr;
    for (const std::string& key : keys) {
      auto lock = locks_.find(key);
      if (lock != locks_.end() && !Compatible(lock->second, owner, mode)) {
        blocked = &key;
        break;
      }
    }
    if (!blocked) break;
    if (policy.skip_locked) return true;
    const std::string table(relation);
    if (policy.nowait) {
      throw DbError(sqlstate::kLockNotAvailable,
                    "could not obtain lock on row in relation \"" + table + "\"");
    }
    if (WouldDeadlock(owner, *blocked)) {
      throw DbError(sqlstate::kDeadlockDetected,
                    "deadlock detected: waiting for a row of relation \"" + table +
                        "\" locked by a transaction that waits for this one")
          .WithHint("See server log for query details.");
    }
    waits_[owner] = *blocked;
    released_.wait_for(l, kWaitSlice);
    waits_.erase(owner);
    waited = true;
    if (policy.cancel && policy.cancel->load(std::memory_order_relaxed)) {
      throw DbError(sqlstate::kQueryCanceled, "canceling statement due to user request");
    }
    if (policy.timeout.count() > 0 && std::chrono::steady_clock::now() >= deadline) {
      throw DbError(sqlstate::kLockNotAvailable, "canceling statement due to lock timeout");
    }
  }
  bool stale = waited;
  std::vector<std::string>& mine = held_[owner];
  for (const std::string& key : keys) {
    Lock& lock = locks_[key];
    if (std::find(lock.holders.begin(), lock.holders.end(), owner) == lock.holders.end()) {
      lock.holders.push_back(owner);
      mine.push_back(key);
    }
    if (mode == Mode::kExclusive) lock.mode = Mode::kExclusive;
    stale = stale || released_at_[Slot(key)] > epoch;
  }
  return stale;
}

bool RowLockTable::Available(uint64_t owner, const std::string& key, Mode mode) const {
  std::lock_guard<std::mutex> l(mu_);
  auto lock = locks_.find(key);
  return lock == locks_.end() || Compatible(lock->second, owner, mode);
}

void RowLockTable::ReleaseAll(uint64_t owner) {
  {
    std::lock_guard<std::mutex> l(mu_);
    auto mine = held_.find(owner);
    if (mine == held_.end()) return;
    const uint64_t epoch = epoch_.load(std::memory_order_relaxed) + 1;
    for (const std::string& key : mine->second) {
      auto lock = locks_.find(key);
      if (lock == locks_.end()) continue;
      std::vector<uint64_t>& holders = lock->second.holders;
      holders.erase(std::remove(holders.begin(), holders.end(), owner), holders.end());
      if (holders.empty()) locks_.erase(lock);
      released_at_[Slot(key)] = epoch;
    }
    held_.erase(mine);
    epoch_.store(epoch, std::memory_order_release);
  }
  released_.notify_all();
}

size_t RowLockTable::held(uint64_t owner) const {
  std::lock_guard<std::mutex> l(mu_);
  auto mine = held_.find(owner);
  return mine == held_.end() ? 0 : mine->second.size();
}

}  // namespace forktail
