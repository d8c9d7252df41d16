#include "snapshot/snapshot_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <thread>

#include "snapshot/frame.h"
#include "storage/error.h"

namespace forktail {

namespace {

// A stalled peer (a partial frame) must not pin a worker forever.
constexpr int kReceiveTimeoutSeconds = 5;
constexpr int kPollMs = 50;

// Created after the fork: the only synchronization the child uses.
struct ChildState {
  std::mutex mu;
  std::condition_variable cv;
  uint32_t running = 0;
};

[[noreturn]] void Die(const char* what) {
  // No stdio in the child: write(2) only.
  (void)!write(STDERR_FILENO, what, strlen(what));
  _exit(70);
}

class SocketSink : public BatchSink {
 public:
  SocketSink(int fd, uint32_t max_payload) : fd_(fd), max_payload_(max_payload) {}

  void Emit(std::string_view batch) override {
    if (Canceled())
      throw DbError(sqlstate::kQueryCanceled, "canceling statement due to user request");
    if (batch.size() > kMaxMessagePayload) {
      throw DbError(sqlstate::kProgramLimitExceeded,
                    "result batch of " + std::to_string(batch.size()) +
                        " bytes exceeds the limit of " + std::to_string(kMaxMessagePayload));
    }
    if (!WriteMessage(fd_, FrameType::kBatch, batch, max_payload_).ok()) {
      canceled_ = true;
      peer_gone_ = true;
      throw DbError(sqlstate::kQueryCanceled, "canceling statement: client went away");
    }
  }

  bool Canceled() override {
    if (canceled_) return true;
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, 0) <= 0) return false;
    Frame f;
    Status s = ReadFrame(fd_, max_payload_, &f);
    if (!s.ok()) {
      // EOF or garbage while running: the client is gone or broken; stop.
      peer_gone_ = true;
      canceled_ = true;
    } else if (f.type == FrameType::kCancel) {
      canceled_ = true;
    } else {
      protocol_error_ = "unexpected frame type " + std::to_string(static_cast<int>(f.type)) +
                        " while a request is running";
      canceled_ = true;
    }
    return canceled_;
  }

  bool peer_gone() const { return peer_gone_; }
  const std::string& protocol_error() const { return protocol_error_; }

 private:
  int fd_;
  uint32_t max_payload_;
  bool canceled_ = false;
  bool peer_gone_ = false;
  std::string protocol_error_;
};

void SendError(int fd, const char* sqlstate, const std::string& message) {
  WriteFrame(fd, FrameType::kError, EncodeErrorPayload(sqlstate, message)).PermitUnchecked();
}

void ServeConnection(int fd, const SnapshotProcessConfig& config, const SnapshotContext& ctx) {
  timeval tv{kReceiveTimeoutSeconds, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  Frame request;
  Status s = ReadMessage(fd, config.max_frame_payload, kMaxMessagePayload, &request);
  if (!s.ok()) {
    if (s.code() != Status::Code::kNotFound) {
      SendError(fd, snapshot_sqlstate::kProtocolViolation, "invalid frame: " + s.message());
    }
    return;
  }
  if (request.type != FrameType::kRequest) {
    SendError(fd, snapshot_sqlstate::kProtocolViolation,
              "invalid frame: expected a request, got frame type " +
                  std::to_string(static_cast<int>(request.type)));
    return;
  }
  SocketSink sink(fd, config.max_frame_payload);
  try {
    (*config.handler)(ctx, request.payload, sink);
    if (!sink.protocol_error().empty()) {
      SendError(fd, snapshot_sqlstate::kProtocolViolation,
                "invalid frame: " + sink.protocol_error());
    } else if (!sink.peer_gone()) {
      WriteFrame(fd, FrameType::kDone, {}).PermitUnchecked();
    }
  } catch (const DbError& e) {
    if (!sink.protocol_error().empty()) {
      SendError(fd, snapshot_sqlstate::kProtocolViolation,
                "invalid frame: " + sink.protocol_error());
    } else if (!sink.peer_gone()) {
      SendError(fd, e.sqlstate(), e.what());
    }
  } catch (const std::bad_alloc&) {
    // Memory the query's budget did not see (malloc failed under a ulimit or
    // an overcommit limit): the query fails, the process goes on.
    if (!sink.peer_gone()) SendError(fd, sqlstate::kOutOfMemory, "out of memory");
  } catch (const std::exception& e) {
    if (!sink.peer_gone()) SendError(fd, sqlstate::kInternalError, e.what());
  } catch (...) {
    if (!sink.peer_gone())
      SendError(fd, sqlstate::kInternalError, "unknown error in snapshot handler");
  }
}

// Signal state comes from the forking thread: unblock everything, restore the
// default for termination signals (the parent's handlers talk to parent
// threads that do not exist here), ignore SIGPIPE (we use MSG_NOSIGNAL anyway).
void ResetSignals() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2}) signal(sig, SIG_DFL);
  signal(SIGPIPE, SIG_IGN);
  sigset_t none;
  sigemptyset(&none);
  pthread_sigmask(SIG_SETMASK, &none, nullptr);
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
// Sanitizer runtimes of this toolchain (GCC 12's libasan) do not lock their
// allocator and thread registry around fork(), unlike glibc. A lock a parent
// thread held at fork time stays held in the child forever. Allocate every
// size class from a fresh thread (empty thread cache: each class takes its
// region lock; creating the thread takes the registry lock): if one is
// stuck, this hangs before Ready is sent, and the parent kills this process
// and forks again (SnapshotOptions::ready_timeout_ms).
void ProbeAllocator() {
  std::thread([] {
    // Primary allocator size classes (up to 128 KiB), then one secondary
    // (mmap-backed) allocation.
    for (size_t size = 8; size <= (128u << 10); size += size / 4 + 8) {
      void* p = malloc(size);
      static_cast<volatile char*>(p)[0] = 1;
      free(p);
    }
    void* big = malloc(256u << 10);
    static_cast<volatile char*>(big)[0] = 1;
    free(big);
  }).join();
}
#else
void ProbeAllocator() {}
#endif

}  // namespace

void RunSnapshotProcess(const SnapshotProcessConfig& config) {
  ResetSignals();
  prctl(PR_SET_NAME, "ft-snapshot", 0, 0, 0);  // visible in ps/top as the snapshot process
  auto* state = new ChildState();              // leaked on purpose: _exit ends the process
  ProbeAllocator();
  // Linux applies a thread's nice value to that thread and to the threads it
  // creates later: this one is the child's only thread so far.
  if (config.nice > 0) setpriority(PRIO_PROCESS, 0, config.nice);
  if (!WriteFrame(config.control_fd, FrameType::kReady, {}).ok()) _exit(0);  // parent gone
  SnapshotContext ctx{config.lsn, getpid(), config.max_workers};
  bool retired = false;
  while (!retired) {
    bool can_accept;
    {
      std::lock_guard lock(state->mu);
      can_accept = state->running < config.max_workers;
    }
    pollfd fds[2] = {{config.control_fd, POLLIN, 0}, {config.listen_fd, POLLIN, 0}};
    const int n = poll(fds, can_accept ? 2 : 1, kPollMs);
    if (n < 0) {
      if (errno == EINTR) continue;
      Die("snapshot process: poll failed\n");
    }
    if (fds[0].revents != 0) {
      // Retire, EOF (parent gone) or garbage: all mean "finish and leave".
      Frame f;
      ReadFrame(config.control_fd, 0, &f).PermitUnchecked();
      retired = true;
      break;
    }
    if (can_accept && (fds[1].revents & POLLIN) != 0) {
      const int conn = accept4(config.listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (conn < 0) continue;
      {
        std::lock_guard lock(state->mu);
        ++state->running;
      }
      std::thread([conn, &config, ctx, state] {
        ServeConnection(conn, config, ctx);
        close(conn);
        std::lock_guard lock(state->mu);
        --state->running;
        state->cv.notify_all();
      }).detach();
    }
  }
  close(config.listen_fd);
  std::unique_lock lock(state->mu);
  state->cv.wait(lock, [state] { return state->running == 0; });
  _exit(0);
}

}  // namespace forktail
