// The snapshot process: what runs in the child after fork.
//
// The child owns a frozen image of the parent's memory as of `lsn`. It runs
// RunSnapshotProcess and never returns into the code that forked it (the
// transaction thread's loop must not continue in the child). Its main thread
// polls the listening socket and the control channel; each accepted
// connection gets a worker thread created after the fork (at most
// `max_workers` at once; further connections wait in the listen backlog).
// A worker reads one Request, calls the handler, streams its batches, and
// ends with Done or Error.
//
// On Retire (or EOF on the control channel: the parent is gone) the child
// closes its listening socket (new connects are refused), waits for running
// workers and leaves with _exit(0): no atexit handlers or static destructors
// of the parent run in the child.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string_view>

#include "snapshot/fork_point.h"

namespace forktail {

// Where a handler sends its result. Emit throws DbError 57014 (query_canceled)
// once the parent sent Cancel or went away, so a handler only has to let the
// exception pass.
class BatchSink {
 public:
  virtual ~BatchSink() = default;
  virtual void Emit(std::string_view batch) = 0;
  // Polls for a Cancel without sending anything (for long stretches without
  // output).
  virtual bool Canceled() = 0;
};

struct SnapshotContext {
  Lsn lsn = 0;
  pid_t pid = 0;
  uint32_t max_workers = 0;
};

// The pluggable work: runs one request in a snapshot process. Registered
// before the fork (SnapshotOptions::handler); it runs in the child on a
// worker thread, possibly several at once. It may read the forked data
// freely (nothing mutates it) and may allocate and create threads, but must
// obey the fork-safety rules in snapshot.h. It reports user errors by
// throwing DbError; any other exception becomes XX000.
using SnapshotHandler =
    std::function<void(const SnapshotContext& ctx, std::string_view request, BatchSink& sink)>;

struct SnapshotProcessConfig {
  Lsn lsn = 0;
  int listen_fd = -1;
  int control_fd = -1;
  uint32_t max_workers = 4;
  uint32_t max_frame_payload = 0;
  const SnapshotHandler* handler = nullptr;
  int nice = 0;  // SnapshotOptions::nice
};

[[noreturn]] void RunSnapshotProcess(const SnapshotProcessConfig& config);

}  // namespace forktail
