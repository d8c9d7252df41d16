// SnapshotEntry: the parent's record of one snapshot process. Internal to the
// module (the manager owns the list; leases and queries share entries so that
// a request can still name a process that died and was reaped).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "snapshot/fork_point.h"
#include "snapshot/memory_usage.h"

namespace forktail {

struct SnapshotEntry {
  // Immutable after creation.
  uint64_t id = 0;
  pid_t pid = 0;
  Lsn lsn = 0;
  uint64_t commits = 0;  // ForkPoint::Committed().commits at the fork
  std::string address;   // abstract Unix socket name, leading NUL included
  std::chrono::steady_clock::time_point created;
  int64_t fork_ns = 0;  // time spent in fork() on the transaction thread
  // ForkPoint::PinForSnapshot's token: released with the entry, after the
  // child is reaped and its last lease is gone.
  std::shared_ptr<const void> pin;

  // Guarded by SnapshotManager::mu_.
  int control_fd = -1;
  uint32_t running = 0;                              // leases handed out and not yet released
  std::chrono::steady_clock::time_point idle_since;  // running last became 0
  bool retired = false;                              // no new leases; the child leaves once idle
  bool retire_sent = false;
  bool dead = false;        // reaped
  std::string kill_reason;  // set when the manager killed it (policy)
  const char* kill_sqlstate = nullptr;
  std::string death_message;  // set when reaped
  const char* death_sqlstate = nullptr;
  bool exited_normally = false;
  ProcessMemory memory;  // last smaps_rollup reading

  std::string Name() const {
    return "snapshot process " + std::to_string(pid) + " (LSN " + std::to_string(lsn) + ")";
  }
};

}  // namespace forktail
