// snapshot/: fork-based copy-on-write snapshots — the module's public door.
//
// Concept. The transaction thread forks between two transactions
// (ForkPoint). The child, a snapshot process, holds the parent's memory as of
// that commit LSN, frozen by copy-on-write: it sees every transaction
// committed before the LSN and none after. It starts its own worker threads,
// serves requests over a Unix-domain socket (frame.h) with a pluggable
// SnapshotHandler, and exits when retired and idle. The parent's
// SnapshotManager decides when to fork (on demand with a freshness bound, by
// age, by commits), leases snapshots to requests, retires, kills and reaps
// them, and accounts their copied memory.
//
// Fork-safety rules (what code running in a snapshot process may do):
//   1. Only the forking thread exists in the child. Any lock another parent
//      thread held at fork time stays held forever: the child never locks a
//      mutex, condition variable, logger, thread pool or singleton created by
//      the parent. It creates what it needs after the fork (the worker
//      threads, their mutexes). The exceptions are the leaf mutexes of
//      process-wide caches that binding needs (the function registry, the
//      time-zone cache): they are held across fork by the forking thread
//      (storage/fork_guard.h), so the child finds them free. A child that
//      took a zone lookup's mutex held by a session thread hung until its
//      10-minute lifetime ended.
//   2. glibc malloc/free and pthread_create are usable: glibc resets its
//      allocator arenas and thread bookkeeping in the child. (Sanitizer
//      allocators of older toolchains do not always: see README.md.)
//   3. No stdio, iostreams or parent loggers in the child (stream locks);
//      diagnostics go to write(2).
//   4. The child never touches the parent's io_uring rings, RocksDB handle,
//      client sockets or log files; it opens what it needs. Descriptors
//      registered with ForkExclusions are closed in the child, memory
//      registered there is not mapped at all (MADV_DONTFORK).
//   5. The child leaves with _exit: no atexit handlers or static destructors
//      of the parent run, no buffered parent output is flushed twice.
//   6. Signal dispositions for termination signals are reset to the default
//      and the signal mask is cleared in the child; SIGPIPE is ignored.
//   7. fork() is called only from the fork point, and the code between fork
//      and RunSnapshotProcess does only async-signal-safe work (close).
//
// Memory: ForkExclusions::ExcludeMemory / AllocateDontForkBuffer for buffers
// the child never reads. Per-snapshot copied memory is in SnapshotInfo.
#pragma once

#include "snapshot/database_fork_point.h"  // IWYU pragma: export
#include "snapshot/fork_exclusions.h"      // IWYU pragma: export
#include "snapshot/fork_point.h"           // IWYU pragma: export
#include "snapshot/frame.h"                // IWYU pragma: export
#include "snapshot/huge_page_keeper.h"     // IWYU pragma: export
#include "snapshot/memory_usage.h"         // IWYU pragma: export
#include "snapshot/snapshot_control.h"     // IWYU pragma: export
#include "snapshot/snapshot_manager.h"     // IWYU pragma: export
#include "snapshot/snapshot_process.h"     // IWYU pragma: export
#include "snapshot/snapshot_query.h"       // IWYU pragma: export
