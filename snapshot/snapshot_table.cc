#include <fmt/format.h>

#include "snapshot/snapshot_manager.h"

namespace forktail {

std::string FormatSnapshotTable(const std::vector<SnapshotInfo>& snapshots) {
  std::string out =
      fmt::format("{:>4} {:>8} {:>14} {:>10} {:>7} {:>8} {:>9} {:>12} {:>12}\n", "id", "pid", "lsn",
                  "age_ms", "running", "state", "fork_ms", "copied_kib", "shared_kib");
  for (const SnapshotInfo& s : snapshots) {
    out += fmt::format("{:>4} {:>8} {:>14} {:>10.0f} {:>7} {:>8} {:>9.3f} {:>12} {:>12}\n", s.id,
                       s.pid, s.lsn, s.age_ms, s.running, s.retired ? "retired" : "live", s.fork_ms,
                       s.memory.copied_bytes() / 1024, s.memory.shared_bytes() / 1024);
  }
  return out;
}

}  // namespace forktail
