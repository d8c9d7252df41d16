// Database::Checkpoint: checkpoints written by a snapshot process
// (include/forktail/database.h, recovery/checkpoint.h, docs/snapshots.md).
//
//   caller thread            transaction thread               checkpoint child
//   Checkpoint() ──RunExclusive──> collect plan, clear flags,
//                                  fork ─────────────────────> write images.sst
//        │  <── returns (ms) ───── release pins, next txn      (SstFileWriter), _exit
//   read status pipe, waitpid <──────────────────────────────── exit status + message
//   log Flush up to the LSN
//   ingest images.sst, manifest (synced), delete old images, drop log segments
//
// The transaction thread never waits for the write. A crash anywhere before
// the manifest's synced write leaves the previous manifest the newest
// complete checkpoint; an orphaned child dies with its parent
// (PR_SET_PDEATHSIG) and Open removes its staging directory.
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "forktail/database.h"
#include "txn/database_impl.h"

namespace forktail {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

[[noreturn]] void ThrowStatus(const std::string& what, const Status& s) {
  throw DbError(s.code() == Status::Code::kCorruption ? sqlstate::kDataCorrupted
                : s.code() == Status::Code::kNoSpace  ? sqlstate::kDiskFull
                                                      : sqlstate::kIoError,
                what + ": " + s.message());
}

// What the child reports on its status pipe before exiting: the counts, then
// an error message (empty on success).
struct ChildReport {
  uint64_t blocks_written = 0;
  uint64_t bytes_written = 0;
  uint64_t micros = 0;
  uint32_t message_len = 0;
};

void WriteAll(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= static_cast<size_t>(w);
  }
}

// The checkpoint child: the only thread is the forking one. It touches the
// pinned blocks' (frozen) memory and its own new file, nothing of the
// parent's: no log, no RocksDB handle, no parent mutex. Leaves with _exit.
[[noreturn]] void RunChild(const ckpt::CheckpointPlan& plan, const std::string& image_file,
                           int status_fd, pid_t parent,
                           const std::function<void(std::string_view)>& hook) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(3);  // the parent died before prctl
  signal(SIGTERM, SIG_DFL);
  signal(SIGINT, SIG_DFL);
  signal(SIGPIPE, SIG_IGN);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  prctl(PR_SET_NAME, "ft-checkpoint");
  Clock::time_point t0 = Clock::now();
  if (hook) hook("child");
  ckpt::CheckpointStats stats;
  bool wrote = false;
  Status s = ckpt::WriteCheckpointImages(plan, image_file, &stats, &wrote);
  ChildReport r;
  r.blocks_written = stats.blocks_written;
  r.bytes_written = stats.bytes_written;
  r.micros = static_cast<uint64_t>(Seconds(t0) * 1e6);
  std::string message = s.ok() ? std::string() : s.message();
  r.message_len = static_cast<uint32_t>(message.size());
  WriteAll(status_fd, &r, sizeof(r));
  WriteAll(status_fd, message.data(), message.size());
  _exit(s.ok() ? 0 : 1);
}

std::string DescribeExit(int status) {
  if (WIFSIGNALED(status)) {
    return fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  }
  return fmt::format("exited with code {}", WEXITSTATUS(status));
}

}  // namespace

struct Database::PendingCheckpoint {
  ckpt::CheckpointPlan plan;  // refs released on the transaction thread after the fork
  std::string image_file;
  bool wrote_file = false;  // kInProcess: the transaction thread wrote it
  ckpt::CheckpointStats stats;
  Status write_status;  // kInProcess
  pid_t pid = 0;        // kSnapshotProcess
  int status_fd = -1;   // read end of the child's status pipe
  std::string fork_error;
  double txn_thread_seconds = 0;
};

std::string Database::StagingDir() const { return impl_->dir + "/checkpoint-staging"; }

CheckpointResult Database::Checkpoint() {
  std::lock_guard<std::mutex> lock(impl_->checkpoint_mu);
  Clock::time_point t0 = Clock::now();
  std::error_code ec;
  std::filesystem::remove_all(StagingDir(), ec);
  std::filesystem::create_directories(StagingDir(), ec);
  if (ec) {
    throw DbError(sqlstate::kIoError, fmt::format("could not create checkpoint staging directory "
                                                  "\"{}\": {}",
                                                  StagingDir(), ec.message()));
  }
  PendingCheckpoint pending;
  pending.image_file = fmt::format("{}/images-{}.sst", StagingDir(),
                                   impl_->last_manifest ? impl_->last_manifest->sequence + 1 : 1);
  impl_->engine->RunExclusive([&] { CollectAndFork(&pending); });
  CheckpointResult result;
  try {
    FinishCheckpoint(&pending, &result);
  } catch (...) {
    std::filesystem::remove_all(StagingDir(), ec);
    throw;
  }
  std::filesystem::remove_all(StagingDir(), ec);
  result.seconds = Seconds(t0);
  return result;
}

void Database::CollectAndFork(PendingCheckpoint* p) {
  Clock::time_point t0 = Clock::now();
  // Every record appended so far belongs to a finished transaction: the LSN
  // after them is where replay resumes. (The caller makes it durable before
  // the manifest is written, off this thread.)
  wal::Lsn lsn = impl_->log->stats().next_lsn;
  p->plan = ckpt::CollectCheckpoint(impl_->catalog, lsn, impl_->engine->next_txn_id(),
                                    impl_->last_manifest.get());
  // Before the fork, so that the child's copy does not differ and the flag
  // writes do not split shared huge pages after it (checkpoint.h: why now).
  ckpt::MarkWritten(p->plan);
  if (impl_->options.checkpoint_mode == DatabaseOptions::CheckpointMode::kInProcess) {
    p->write_status =
        ckpt::WriteCheckpointImages(p->plan, p->image_file, &p->stats, &p->wrote_file);
  } else {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      p->fork_error = fmt::format("could not create a pipe: {}", std::strerror(errno));
    } else {
      const pid_t parent = getpid();
      pid_t pid = impl_->fork ? impl_->fork() : fork();
      if (pid == 0) {
        close(fds[0]);
        RunChild(p->plan, p->image_file, fds[1], parent, impl_->options.checkpoint_test_hook);
      }
      close(fds[1]);
      if (pid < 0) {
        p->fork_error =
            fmt::format("could not fork the checkpoint process: {}", std::strerror(errno));
        close(fds[0]);
      } else {
        p->pid = pid;
        p->status_fd = fds[0];
      }
    }
  }
  // Pins are counted on this thread; the child holds its own copy.
  p->plan.refs.clear();
  p->txn_thread_seconds = Seconds(t0);
}

void Database::FinishCheckpoint(PendingCheckpoint* p, CheckpointResult* r) {
  auto hook = [this](std::string_view step) {
    if (impl_->options.checkpoint_test_hook) impl_->options.checkpoint_test_hook(step);
  };
  if (!p->fork_error.empty()) throw DbError(sqlstate::kOutOfMemory, p->fork_error);
  if (p->pid > 0) {
    // Child's report, then its exit status. EOF comes when it exits (or dies).
    std::string bytes;
    char buf[4096];
    for (;;) {
      ssize_t n = read(p->status_fd, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      bytes.append(buf, static_cast<size_t>(n));
    }
    close(p->status_fd);
    int status = 0;
    while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR) {
    }
    ChildReport report;
    std::string message;
    if (bytes.size() >= sizeof(report)) {
      std::memcpy(&report, bytes.data(), sizeof(report));
      message = bytes.substr(sizeof(report), report.message_len);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      throw DbError(
          sqlstate::kIoError,
          fmt::format("could not write the checkpoint: checkpoint process {} {}{}{}", p->pid,
                      DescribeExit(status), message.empty() ? "" : ": ", message));
    }
    p->stats.blocks_written = report.blocks_written;
    p->stats.bytes_written = report.bytes_written;
    p->wrote_file = report.blocks_written > 0;
    r->child_pid = p->pid;
    r->write_seconds = static_cast<double>(report.micros) / 1e6;
  } else if (!p->write_status.ok()) {
    ThrowStatus("could not write the checkpoint", p->write_status);
  }
  hook("before_ingest");
  // The log must never restart below the checkpoint's LSN.
  Status s = impl_->log->Flush();
  if (!s.ok()) ThrowStatus("could not checkpoint", s);
  ckpt::Manifest& manifest = p->plan.manifest;
  // Versions live snapshot processes may still read stay (buffer pool).
  std::function<std::set<ckpt::BlockKey>()> pinned;
  if (impl_->pool) pinned = [this] { return impl_->pool->PinnedKeys(); };
  s = ckpt::CommitCheckpoint(
      manifest, p->wrote_file ? p->image_file : std::string(), impl_->cold_store.get(), &p->stats,
      [&] { hook("after_ingest"); }, pinned);
  if (!s.ok()) ThrowStatus("could not write the checkpoint", s);
  hook("after_manifest");
  int removed = 0;
  s = wal::RemoveSegmentsBefore(
      impl_->options.wal_file_system ? impl_->options.wal_file_system : wal::PosixLogFileSystem(),
      impl_->dir, manifest.lsn, &removed);
  if (!s.ok()) ThrowStatus("could not remove old log segments after a checkpoint", s);
  r->sequence = manifest.sequence;
  r->lsn = manifest.lsn;
  r->blocks_written = p->stats.blocks_written;
  r->blocks_total = manifest.block_count();
  r->bytes_written = p->stats.bytes_written;
  r->images_deleted = p->stats.images_deleted;
  r->segments_removed = removed;
  r->txn_thread_seconds = p->txn_thread_seconds;
  if (impl_->ssd_tier) {
    // Write-through: the new images reach the tier only once the cold store
    // holds them durably (the manifest above). A failing tier is bypassed.
    s = tier::AdmitCheckpointImages(impl_->cold_store.get(), impl_->ssd_tier.get(), manifest,
                                    p->plan.keys, p->plan.uses, &r->tier_admitted);
    if (!s.ok()) {
      r->tier_error = s.ToString();
      impl_->tier_report.error = r->tier_error;
      if (impl_->pool) impl_->pool->DropSsdTier();
      impl_->failed_ssd_tier = std::move(impl_->ssd_tier);
    }
  }
  manifest.catalog.clear();
  impl_->last_manifest = std::make_unique<ckpt::Manifest>(std::move(manifest));
  impl_->checkpoint_lsn = impl_->last_manifest->lsn;
  // Its versions are durable now: blocks still at them may leave memory.
  if (impl_->pool) impl_->pool->SetDurable(*impl_->last_manifest);
}

}  // namespace forktail
