// The logic of `forktail tier inspect` and `forktail tier verify`, as library
// functions that tests run without the binary (tools/tier_command.cc only
// parses the command line). Neither changes a file: the tier is opened
// read-only and the cold store with RocksDB's read-only open, so both may run
// beside a live server.
#pragma once

#include <ostream>
#include <string>

namespace forktail::tier {

// Exit codes, as `forktail wal verify`'s.
inline constexpr int kTierClean = 0;       // every valid slot intact (stale ones are reported)
inline constexpr int kTierTorn = 1;        // also torn slot records (harmless: read as empty)
inline constexpr int kTierCorrupt = 2;     // a valid slot that fails its CRC or the cold store
inline constexpr int kTierUsageError = 3;  // no tier, bad arguments, I/O error

// tier_dir empty = DATA_DIR/tier.
// Summary (slots valid and empty, bytes, I/O mode, temperature histogram);
// with list_slots one line per valid slot.
int TierInspect(const std::string& data_dir, const std::string& tier_dir, bool list_slots,
                std::ostream& out, std::ostream& err);
// Reads every valid slot, checks its bytes against the record's CRC and
// against the cold store's image of the same version, and says which slots
// hold versions the current checkpoint no longer names (stale: dropped at the
// next open, never read).
int TierVerify(const std::string& data_dir, const std::string& tier_dir, std::ostream& out,
               std::ostream& err);

}  // namespace forktail::tier
