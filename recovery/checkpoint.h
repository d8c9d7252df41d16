// Checkpoints: a consistent image of every table plus the catalog as of a log
// position, so that recovery = load the newest checkpoint + replay the log
// after its LSN, and the log before that LSN can be removed.
//
// Steps (Database::Checkpoint, docs/snapshots.md "Checkpoints"):
//  1. CollectCheckpoint, on the transaction thread between two transactions:
//     the catalog bytes, the checkpoint LSN and the list of (table, block,
//     version) to write - blocks changed since the last checkpoint (the
//     block header's changed flag) or missing from the previous manifest.
//     Then, still there, MarkWritten clears the collected blocks' changed
//     flags at once, and the process forks (snapshot process).
//  2. WriteCheckpointImages, from the frozen image of those blocks (in the
//     forked child, or in-process on the transaction thread): an SST file
//     written without a DB handle (cold_store.h, ImageFileWriter).
//  3. CommitCheckpoint, off the transaction thread once the log is durable
//     up to the LSN: ingest the file, write the manifest LAST with a synced
//     write, then delete the images no manifest needs any more.
// (WriteCheckpoint does 2+3 through the store's handle in one call.)
//
// Why the flags are cleared at fork time and not after the write: a block
// changed after the fork must stay marked. A change after MarkCheckpointed
// bumps the block's version and sets the flag again, so it is written next
// time; a block changed again while its flag was still set would not be. If
// the checkpoint then fails, nothing is lost either: its blocks' versions are
// in no committed manifest, and CollectCheckpoint writes every block whose
// (table, block, version) the previous manifest lacks.
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
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "recovery/cold_store.h"
#include "recovery/wal/wal_format.h"
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
  // Blocks used in memory since the last plan, each with the use epochs it
  // was pinned in (BlockDirectory::TakeUses): heat the SSD tier adds to
  // their temperatures (tiering/tiered_images.h).
  std::vector<std::pair<BlockKey, uint64_t>> uses;
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
// Transaction thread, right after CollectCheckpoint (see above). Does not
// release the pins.
void MarkWritten(CheckpointPlan& plan);

// Step 2: writes the plan's images into a new SST file at `path` (nothing
// when the plan has no images: *wrote_file = false). Fills blocks_written,
// blocks_total and bytes_written. Safe in a forked child: touches only the
// pinned blocks' memory and the new file.
Status WriteCheckpointImages(const CheckpointPlan& plan, const std::string& path,
                             CheckpointStats* stats, bool* wrote_file);
// Step 3: ingests `image_file` (unless empty), writes the manifest (synced),
// deletes images it does not need: those neither it nor `also_keep` (when
// given; called after the manifest is written) names - versions that live
// snapshot processes may still read (tiering/buffer_pool.h). `after_ingest`
// (may be empty) runs between the ingestion and the manifest (crash tests).
Status CommitCheckpoint(const Manifest& manifest, const std::string& image_file, ColdStore* store,
                        CheckpointStats* stats, const std::function<void()>& after_ingest,
                        const std::function<std::set<BlockKey>()>& also_keep = {});

// Where LoadCheckpoint reads block images: the cold store itself, or the SSD
// tier in front of it (tiering/tiered_images.h).
class BlockImageSource {
 public:
  virtual ~BlockImageSource() = default;
  // Once, with the checkpoint's manifest, before any read.
  virtual Status Start(const Manifest& manifest) = 0;
  // images[i] for keys[i] (the cold store's exact image of that version).
  virtual Status ReadImages(const std::vector<BlockKey>& keys,
                            std::vector<std::string>* images) = 0;
  // How hot each block was before the restart (0: not known); under a
  // memory budget the hottest stay in memory after the load.
  virtual std::vector<uint64_t> Temperatures(const std::vector<BlockKey>& keys) {
    return std::vector<uint64_t>(keys.size(), 0);
  }
};

// Recovery: loads the manifest's catalog and block images into an empty
// catalog, rebuilds indexes and statistics. NotFound if there is no checkpoint.
// Images come from `source` when given, else from `store`.
Status LoadCheckpoint(ColdStore* store, Catalog* catalog, Manifest* manifest,
                      uint64_t* blocks_loaded, BlockImageSource* source = nullptr);

}  // namespace forktail::ckpt
