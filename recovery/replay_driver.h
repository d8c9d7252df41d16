// Restart: newest complete checkpoint + replay of the log after its LSN.
//
//   1. the cold store's manifest (checkpoint.h), if any: catalog and block
//      images are loaded, indexes and statistics rebuilt;
//   2. the log is read from the checkpoint's LSN; the records of committed
//      transactions are applied (replay.h);
//   3. how the log ended decides the rest (log_reader.h): a clean end is fine;
//      a torn tail (a crash in the middle of a write) is cut - its records
//      never replayed - unless this is only a check; corruption before the
//      tail is an error that names the segment and the offset, and recovery
//      stops: nothing is silently skipped.
// check_only (`forktail recover --check`) does all of it in memory and changes
// no file.
#pragma once

#include <cstdint>
#include <string>

#include "recovery/checkpoint.h"
#include "recovery/replay.h"
#include "recovery/wal/log_reader.h"
#include "storage/storage.h"

namespace forktail::redo {

// DATA_DIR/cold: where the cold store (RocksDB) lives.
std::string ColdStoreDir(const std::string& data_dir);

struct RecoveryReport {
  bool has_checkpoint = false;
  ckpt::Manifest checkpoint;  // valid if has_checkpoint (catalog bytes dropped)
  uint64_t blocks_loaded = 0;
  ReplayStats replay;
  bool has_log = false;
  wal::LogEnd end;        // how the log ended
  bool tail_cut = false;  // a torn tail was truncated
  double checkpoint_seconds = 0;
  double replay_seconds = 0;
  uint64_t next_txn = 1;

  // Several lines: checkpoint used, records replayed, tail.
  std::string ToString() const;
};

// Recovers into an empty catalog. `store` may be nullptr (no cold store yet).
// fs nullptr = the POSIX file system. `images` (may be nullptr) is where the
// checkpoint's block images are read, the SSD tier in front of `store`.
Status RecoverDatabase(const std::string& data_dir, wal::LogFileSystem* fs, ckpt::ColdStore* store,
                       ckpt::BlockImageSource* images, Catalog* catalog, bool check_only,
                       RecoveryReport* report);

}  // namespace forktail::redo
