// Checkpoints: a consistent image of every table plus the catalog as of a log
// position, so that recovery = load the newest checkpoint + replay the log
// after its LSN, and the log before that LSN can be removed.
//
// Two steps, so that a later issue can move the second into a fork()ed
// snapshot process and OLTP never pauses:
//  1. CollectCheckpoint, on the transaction thread between two transactions:
//     the catalog bytes, the checkpoint LSN and the list of (table, block,
//     version) to write - only blocks changed since the last checkpoint (the
//     block header's changed flag) or missing from the previous manifest;
//  2. WriteCheckpoint, from a frozen image of those blocks (today the live
//     tables, with no transaction running; later the snapshot child): block
//     images first, the manifest LAST with a synced write (cold_store.h), then
//     the images no manifest needs any more are deleted.
// After a successful write the transaction thread calls MarkWritten, which
// clears the blocks' changed flags. A failed or interrupted checkpoint leaves
// the flags set and the previous manifest in place, so the next one retries.
//
// Manifest (little-endian; masked CRC32C over every byte before it):
//
//   +-------+---------+-----+----------+----------+-------------+---------+
//   | magic | version | lsn | next txn | sequence | catalog len | catalog |
//   | u32   | u32     | u64 | u64      | u64      | u32         | bytes   |
//   +-------+---------+-----+----------+----------+-------------+---------+
//   | table count u32 | (table id u32 | block count u32 | version u64 * n)* | crc u32 |
//   +-----------------+-----------------------------------------------------+---------+
//
// The LSN is where replay starts: every transaction whose commit record lies
// before it is in the images, none after it. The checkpointer makes the log
// durable up to that LSN before the manifest is written, so the log never
// restarts below it.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "recovery/cold_store.h"
#include "recovery/wal_format.h"
#include "storage/storage.h"

namespace forktail::ckpt {

inline constexpr uint32_t kManifestMagic = 0x4d435446;  // "FTCM"
inline constexpr uint32_t kManifestVersion = 1;

struct Manifest {
  wal::Lsn lsn = 0;
  uint64_t next_txn = 1;
  uint64_t sequence = 0;  // 1 for the first checkpoint, then +1
  std::string catalog;    // Catalog::Serialize()
  // table id -> block versions by block number
  std::map<uint32_t, std::vector<uint64_t>> tables;

  std::string Encode() const;
  static Status Decode(std::string_view bytes, Manifest* out);
  std::set<BlockKey> Keys() const;
  uint64_t block_count() const;
};

struct CheckpointPlan {
  Manifest manifest;
  std::vector<BlockKey> keys;  // images to write
  std::vector<BlockRef> refs;  // the blocks, pinned, parallel to keys
};

struct CheckpointStats {
  uint64_t blocks_written = 0;
  uint64_t blocks_total = 0;
  uint64_t bytes_written = 0;  // uncompressed image bytes
  uint64_t images_deleted = 0;
};

// Step 1 (transaction thread). `previous` is the newest manifest or nullptr.
CheckpointPlan CollectCheckpoint(const Catalog& catalog, wal::Lsn lsn, uint64_t next_txn,
                                 const Manifest* previous);
// Step 2: writes the images and the manifest, then deletes unneeded images.
Status WriteCheckpoint(const CheckpointPlan& plan, ColdStore* store, CheckpointStats* stats);
// After WriteCheckpoint succeeded (transaction thread).
void MarkWritten(CheckpointPlan& plan);

// Recovery: loads the manifest's catalog and block images into an empty
// catalog, rebuilds indexes and statistics. NotFound if there is no checkpoint.
Status LoadCheckpoint(ColdStore* store, Catalog* catalog, Manifest* manifest,
                      uint64_t* blocks_loaded);

}  // namespace forktail::ckpt
