// Memory a snapshot process costs, from /proc/PID/smaps_rollup.
//
// Right after fork every page is shared with the parent. When the parent (the
// transaction thread) writes a page, the kernel gives the parent a fresh copy
// and the old page stays mapped by the child alone: it becomes Private_* in
// the child. So a snapshot's Private_Dirty + Private_Clean is the memory it
// pins that nobody else maps ("copied so far", plus the child's own heap);
// Shared_* is still shared with the parent or other snapshots.
// With transparent huge pages a parent write splits the huge page and copies
// 4 KiB, so copied memory grows in 4 KiB steps.
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "storage/status.h"

namespace forktail {

struct ProcessMemory {
  uint64_t rss_bytes = 0;
  uint64_t private_clean_bytes = 0;
  uint64_t private_dirty_bytes = 0;
  uint64_t shared_clean_bytes = 0;
  uint64_t shared_dirty_bytes = 0;

  uint64_t copied_bytes() const { return private_dirty_bytes + private_clean_bytes; }
  uint64_t shared_bytes() const { return shared_clean_bytes + shared_dirty_bytes; }
};

// Reads /proc/<pid>/smaps_rollup. NotFound when the process is gone.
Status ReadProcessMemory(pid_t pid, ProcessMemory* out);

}  // namespace forktail
