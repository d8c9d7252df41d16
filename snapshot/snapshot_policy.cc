// The manager's policy thread: reaping, retirement, lifetime kills, memory
// accounting and age/commit refresh (see snapshot_manager.h for the policy).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "snapshot/fork_exclusions.h"
#include "snapshot/snapshot_entry.h"
#include "snapshot/snapshot_manager.h"

namespace forktail {

namespace {
using Clock = std::chrono::steady_clock;

std::string DescribeStatus(int status) {
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  return "status " + std::to_string(status);
}
}  // namespace

void SnapshotManager::PolicyLoop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    TickLocked(lock);
    if (stopping_) break;
    cv_.wait_for(lock, std::chrono::milliseconds(options_.tick_ms),
                 [&] { return stopping_ || wake_; });
    wake_ = false;
  }
}

void SnapshotManager::RetireLocked(SnapshotEntry& e) {
  e.retired = true;
  if (e.retire_sent || e.dead || e.running > 0) return;
  e.retire_sent = true;
  // A failed write means the child is gone already; the reaper will see it.
  WriteFrame(e.control_fd, FrameType::kRetire, {}).PermitUnchecked();
}

void SnapshotManager::ReapLocked() {
  bool any = false;
  for (auto& e : entries_) {
    int status = 0;
    const pid_t r = waitpid(e->pid, &status, WNOHANG);
    if (r != e->pid) continue;
    e->dead = true;
    any = true;
    ForkExclusions::Global().IncludeFd(e->control_fd);
    close(e->control_fd);
    e->control_fd = -1;
    if (!e->kill_reason.empty()) {
      e->death_sqlstate = e->kill_sqlstate;
      e->death_message = e->Name() + " was terminated: " + e->kill_reason;
      ++stats_.killed;
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      e->exited_normally = true;
      e->death_sqlstate = snapshot_sqlstate::kConnectionFailure;
      e->death_message = e->Name() + " exited";
      ++stats_.exited_normally;
    } else {
      e->death_sqlstate = snapshot_sqlstate::kCrashShutdown;
      e->death_message = e->Name() + " died: " + DescribeStatus(status);
      ++stats_.died;
    }
  }
  if (any) {
    std::erase_if(entries_, [](const auto& e) { return e->dead; });
    cv_.notify_all();
  }
}

bool SnapshotManager::PollMemory(std::unique_lock<std::mutex>& lock) {
  std::vector<std::shared_ptr<SnapshotEntry>> live = entries_;
  lock.unlock();  // smaps_rollup walks page tables: do not block leases meanwhile
  std::vector<ProcessMemory> readings(live.size());
  std::vector<bool> ok(live.size());
  for (size_t i = 0; i < live.size(); ++i)
    ok[i] = ReadProcessMemory(live[i]->pid, &readings[i]).ok();
  lock.lock();
  for (size_t i = 0; i < live.size(); ++i) {
    if (ok[i]) live[i]->memory = readings[i];
  }
  if (options_.max_copied_bytes == 0) return false;
  uint64_t total = 0;
  for (const auto& e : entries_) {
    if (e->kill_reason.empty()) total += e->memory.copied_bytes();
  }
  if (total <= options_.max_copied_bytes) return false;
  // Over the cap: kill the oldest snapshots that no longer take requests
  // (their queries fail with 53200), then, if the newest alone is over, fork
  // a fresh one so that the newest can drain and go.
  auto newest = NewestLocked();
  for (auto& e : entries_) {  // oldest first
    if (total <= options_.max_copied_bytes) break;
    if (e == newest || !e->kill_reason.empty()) continue;
    KillLocked(*e, sqlstate::kOutOfMemory,
               "the snapshots' copied memory (" + std::to_string(total >> 10) +
                   " KiB) exceeded max_copied_bytes (" +
                   std::to_string(options_.max_copied_bytes >> 10) + " KiB)");
    total -= std::min(total, e->memory.copied_bytes());
  }
  return total > options_.max_copied_bytes;
}

void SnapshotManager::KillLocked(SnapshotEntry& e, const char* code, std::string reason) {
  e.kill_reason = std::move(reason);
  e.kill_sqlstate = code;
  e.retired = true;
  kill(e.pid, SIGKILL);
}

void SnapshotManager::TickLocked(std::unique_lock<std::mutex>& lock) {
  ReapLocked();
  const auto now = Clock::now();
  if (options_.max_lifetime_ms > 0) {
    const auto lifetime = std::chrono::milliseconds(options_.max_lifetime_ms);
    for (auto& e : entries_) {
      if (e->kill_reason.empty() && now - e->created > lifetime) {
        KillLocked(
            *e, sqlstate::kAdminShutdown,
            "it exceeded its lifetime of " + std::to_string(options_.max_lifetime_ms) + " ms");
      }
    }
  }
  auto newest = NewestLocked();
  for (auto& e : entries_) {
    if (e != newest) RetireLocked(*e);  // sends Retire once idle
  }
  // A newest snapshot that nobody has used for retire_idle_ms while commits
  // went on serves no fresh read: let its process go (the next read forks).
  if (newest && options_.retire_idle_ms > 0 && newest->running == 0 &&
      now - newest->idle_since >= std::chrono::milliseconds(options_.retire_idle_ms) &&
      fork_point_->Committed().lsn > newest->lsn) {
    RetireLocked(*newest);
  }
  bool memory_refresh = false;
  if (now >= next_memory_poll_) {
    next_memory_poll_ = now + std::chrono::milliseconds(options_.memory_poll_ms);
    memory_refresh = PollMemory(lock);
    if (stopping_) return;
  }
  const bool auto_refresh = options_.refresh_interval_ms > 0 || options_.refresh_after_commits > 0;
  if (creating_ || (!auto_refresh && !memory_refresh)) return;
  newest = NewestLocked();
  const CommitProgress committed = fork_point_->Committed();
  bool refresh = memory_refresh || newest == nullptr;
  if (newest && committed.commits > newest->commits) {
    const uint64_t since = committed.commits - newest->commits;
    refresh = refresh ||
              (options_.refresh_after_commits > 0 && since >= options_.refresh_after_commits) ||
              (options_.refresh_interval_ms > 0 &&
               now - newest->created >= std::chrono::milliseconds(options_.refresh_interval_ms));
  }
  if (!refresh) return;
  creating_ = true;
  try {
    CreateSerialized(lock);
  } catch (const DbError&) {
    // Over max_live_snapshots (counted in stats) or the fork failed: the next
    // tick tries again; on-demand callers get the error themselves.
  }
  creating_ = false;
  cv_.notify_all();
}

}  // namespace forktail
