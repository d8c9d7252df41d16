#include "snapshot/snapshot_manager.h"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstring>
#include <memory>

#include "snapshot/fork_exclusions.h"
#include "snapshot/snapshot_entry.h"

namespace forktail {

namespace {

using Clock = std::chrono::steady_clock;

// State shared between the thread asking for a fork and the fork point's
// callback on the transaction thread (which may in theory run late).
struct ForkJob {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  bool abandoned = false;
  pid_t pid = -1;
  int fork_errno = 0;
  Lsn lsn = 0;
  uint64_t commits = 0;
  int64_t fork_ns = 0;
  std::shared_ptr<const void> pin;  // ForkPoint::PinForSnapshot's, for the entry
  int keep[2] = {-1, -1};
  SnapshotProcessConfig config;
};

void CloseAndForget(int fd) {
  if (fd < 0) return;
  ForkExclusions::Global().IncludeFd(fd);
  close(fd);
}

}  // namespace

SnapshotManager::SnapshotManager(ForkPoint* fork_point, SnapshotOptions options)
    : fork_point_(fork_point), options_(std::move(options)) {
  assert(options_.handler && "SnapshotOptions::handler is required");
  assert(options_.max_live_snapshots > 0 && options_.child_workers > 0);
  next_memory_poll_ = Clock::now();
  policy_thread_ = std::thread([this] { PolicyLoop(); });
}

SnapshotManager::~SnapshotManager() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    cv_.notify_all();
  }
  policy_thread_.join();
  std::unique_lock lock(mu_);
  for (auto& e : entries_) {
    assert(e->running == 0 && "a SnapshotLease outlived its SnapshotManager");
    e->retired = true;
    RetireLocked(*e);
  }
  const auto deadline = Clock::now() + std::chrono::seconds(2);
  while (!entries_.empty() && Clock::now() < deadline) {
    ReapLocked();
    if (entries_.empty()) break;
    cv_.wait_for(lock, std::chrono::milliseconds(5));
  }
  for (auto& e : entries_) {
    kill(e->pid, SIGKILL);
    int status;
    while (waitpid(e->pid, &status, 0) < 0 && errno == EINTR) {
    }
    CloseAndForget(e->control_fd);
  }
  entries_.clear();
}

std::shared_ptr<SnapshotEntry> SnapshotManager::ForkSnapshot() {
  auto entry = std::make_shared<SnapshotEntry>();
  // Registered at creation so that no other child (another snapshot, another
  // module's fork) inherits them; this snapshot's child keeps its own two.
  int sv[2] = {-1, -1};
  int listen_fd = -1;
  int err = 0;
  const std::string name = "forktail-snapshot-" + std::to_string(getpid()) + "-" +
                           std::to_string(reinterpret_cast<uintptr_t>(this)) + "-" +
                           std::to_string(next_id_);
  entry->address = std::string(1, '\0') + name;  // abstract namespace: no file to clean up
  ForkExclusions::Global().OpenExcluded([&](std::vector<int>* fds) {
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
      err = errno;
      return;
    }
    listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    *fds = {sv[0], sv[1], listen_fd};
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, entry->address.data(), entry->address.size());
    const auto len =
        static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + entry->address.size());
    if (listen_fd < 0 || bind(listen_fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        listen(listen_fd, 128) != 0) {
      err = errno;
    }
  });
  if (err != 0) {
    for (int fd : {sv[0], sv[1], listen_fd}) CloseAndForget(fd);
    throw DbError(snapshot_sqlstate::kInsufficientResources,
                  std::string("could not create snapshot sockets: ") + std::strerror(err));
  }

  auto job = std::make_shared<ForkJob>();
  job->keep[0] = listen_fd;
  job->keep[1] = sv[1];
  job->config = SnapshotProcessConfig{0,
                                      listen_fd,
                                      sv[1],
                                      options_.child_workers,
                                      options_.max_frame_payload,
                                      &options_.handler,
                                      options_.nice};
  ForkPoint* fork_point = fork_point_;
  fork_point_->RunBetweenTransactions([job, fork_point](Lsn lsn) {
    {
      std::lock_guard lock(job->mu);
      if (job->abandoned) return;
    }
    job->config.lsn = lsn;
    const uint64_t commits = fork_point->Committed().commits;
    std::shared_ptr<const void> pin = fork_point->PinForSnapshot();
    const auto start = Clock::now();
    const pid_t pid = ForkExclusions::Global().Fork(job->keep);
    if (pid == 0) RunSnapshotProcess(job->config);  // never returns
    const int err = errno;
    const int64_t ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
    std::lock_guard lock(job->mu);
    job->pid = pid;
    job->fork_errno = err;
    job->lsn = lsn;
    job->commits = commits;
    job->fork_ns = ns;
    if (pid > 0) job->pin = std::move(pin);
    job->done = true;
    job->cv.notify_all();
  });
  {
    std::unique_lock lock(job->mu);
    if (!job->cv.wait_for(lock, std::chrono::milliseconds(options_.fork_wait_ms),
                          [&] { return job->done; })) {
      job->abandoned = true;
      lock.unlock();
      for (int fd : {sv[0], sv[1], listen_fd}) CloseAndForget(fd);
      throw DbError(sqlstate::kInternalError,
                    "the transaction thread did not reach a fork point within " +
                        std::to_string(options_.fork_wait_ms) + " ms");
    }
  }
  CloseAndForget(listen_fd);
  CloseAndForget(sv[1]);
  if (job->pid < 0) {
    CloseAndForget(sv[0]);
    throw DbError(
        snapshot_sqlstate::kInsufficientResources,
        std::string("could not fork snapshot process: ") + std::strerror(job->fork_errno));
  }
  // The child reports Ready once it runs; a child stuck on a lock inherited
  // from the fork (see ProbeAllocator in snapshot_process.cc) is replaced.
  pollfd ready{sv[0], POLLIN, 0};
  int n;
  while ((n = poll(&ready, 1, static_cast<int>(options_.ready_timeout_ms))) < 0 && errno == EINTR) {
  }
  Frame frame;
  if (n <= 0 || !ReadFrame(sv[0], 0, &frame).ok() || frame.type != FrameType::kReady) {
    kill(job->pid, SIGKILL);
    int status;
    while (waitpid(job->pid, &status, 0) < 0 && errno == EINTR) {
    }
    CloseAndForget(sv[0]);
    return nullptr;
  }
  entry->pid = job->pid;
  entry->lsn = job->lsn;
  entry->commits = job->commits;
  entry->fork_ns = job->fork_ns;
  entry->pin = std::move(job->pin);
  entry->created = Clock::now();
  entry->idle_since = entry->created;
  entry->control_fd = sv[0];
  return entry;
}

// Called with mu_ held and creating_ set by the caller; forks unlocked.
void SnapshotManager::CreateSerialized(std::unique_lock<std::mutex>& lock) {
  if (LiveCountLocked() >= options_.max_live_snapshots) {
    // Idle old snapshots are retired by the policy; give them time to exit.
    for (auto& e : entries_) {
      if (e->running == 0) RetireLocked(*e);
    }
    wake_ = true;
    cv_.notify_all();
    cv_.wait_for(lock, std::chrono::milliseconds(options_.cap_wait_ms),
                 [&] { return stopping_ || LiveCountLocked() < options_.max_live_snapshots; });
    if (LiveCountLocked() >= options_.max_live_snapshots) {
      ++stats_.refused;
      throw DbError(
          snapshot_sqlstate::kInsufficientResources,
          "too many snapshot processes: " + std::to_string(LiveCountLocked()) +
              " live (max_live_snapshots = " + std::to_string(options_.max_live_snapshots) + ")");
    }
  }
  lock.unlock();
  std::shared_ptr<SnapshotEntry> entry;
  int failures = 0;
  try {
    while (!entry && failures < static_cast<int>(options_.fork_attempts)) {
      entry = ForkSnapshot();
      if (!entry) ++failures;
    }
  } catch (...) {
    lock.lock();
    stats_.start_failures += failures;
    throw;
  }
  lock.lock();
  stats_.start_failures += failures;
  if (!entry) {
    throw DbError(snapshot_sqlstate::kInsufficientResources,
                  "snapshot process did not start: no Ready within " +
                      std::to_string(options_.ready_timeout_ms) + " ms in " +
                      std::to_string(options_.fork_attempts) + " attempts");
  }
  entry->id = next_id_++;
  entries_.push_back(entry);
  ++stats_.created;
  // The older snapshots are no longer the newest: retire the idle ones now.
  for (auto& e : entries_) {
    if (e != entry) RetireLocked(*e);  // sends Retire once idle
  }
}

SnapshotLease SnapshotManager::Acquire(Lsn min_lsn) {
  std::unique_lock lock(mu_);
  for (;;) {
    if (stopping_) throw DbError(sqlstate::kAdminShutdown, "snapshot manager is shutting down");
    auto newest = NewestLocked();
    if (newest && newest->lsn >= min_lsn) {
      ++newest->running;
      return SnapshotLease(this, newest);
    }
    if (creating_) {
      cv_.wait(lock);
      continue;
    }
    const CommitProgress committed = fork_point_->Committed();
    if (min_lsn > committed.lsn) {
      throw DbError(sqlstate::kInvalidParameterValue,
                    "requested snapshot LSN " + std::to_string(min_lsn) +
                        " is ahead of the last committed LSN " + std::to_string(committed.lsn));
    }
    CreateExclusively(lock);
  }
}

void SnapshotManager::Refresh() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return !creating_ || stopping_; });
  if (stopping_) return;
  CreateExclusively(lock);
}

// Called with mu_ held and no creation under way: marks one as under way for
// the duration of CreateSerialized and wakes the waiters afterwards, also when
// it throws.
void SnapshotManager::CreateExclusively(std::unique_lock<std::mutex>& lock) {
  creating_ = true;
  try {
    CreateSerialized(lock);
  } catch (...) {
    creating_ = false;
    cv_.notify_all();
    throw;
  }
  creating_ = false;
  cv_.notify_all();
}

std::shared_ptr<SnapshotEntry> SnapshotManager::NewestLocked() const {
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (!(*it)->retired && !(*it)->dead && (*it)->kill_reason.empty()) return *it;
  }
  return nullptr;
}

size_t SnapshotManager::LiveCountLocked() const { return entries_.size(); }

DbError SnapshotManager::DescribeLoss(const SnapshotEntry& entry, const std::string& detail) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, std::chrono::seconds(5), [&] { return entry.dead; });
  if (entry.dead && !entry.exited_normally) {
    return DbError(entry.death_sqlstate, entry.death_message);
  }
  return DbError(snapshot_sqlstate::kConnectionFailure,
                 "lost connection to " + entry.Name() + ": " + detail);
}

void SnapshotManager::ReleaseLease(const std::shared_ptr<SnapshotEntry>& entry) {
  std::lock_guard lock(mu_);
  assert(entry->running > 0);
  --entry->running;
  if (entry->running == 0) entry->idle_since = Clock::now();
  if (entry->running == 0 && !entry->dead) {
    if (entry != NewestLocked()) entry->retired = true;
    if (entry->retired) RetireLocked(*entry);
  }
}

std::vector<SnapshotInfo> SnapshotManager::List() {
  std::lock_guard lock(mu_);
  std::vector<SnapshotInfo> out;
  const auto now = Clock::now();
  for (const auto& e : entries_) {
    SnapshotInfo info;
    info.id = e->id;
    info.pid = e->pid;
    info.lsn = e->lsn;
    info.age_ms = std::chrono::duration<double, std::milli>(now - e->created).count();
    info.running = e->running;
    info.retired = e->retired;
    info.fork_ms = static_cast<double>(e->fork_ns) / 1e6;
    info.memory = e->memory;
    out.push_back(info);
  }
  return out;
}

SnapshotStats SnapshotManager::stats() {
  std::lock_guard lock(mu_);
  return stats_;
}

}  // namespace forktail
