// ColdStore: the durable home of checkpoints, a RocksDB database in
// DATA_DIR/cold (DESIGN.md, tiering). It holds
//
//   key                                          value
//   'B' table u32 | block u32 | version u64      LZ4 block image: raw size u32 | LZ4 bytes
//   'M'                                          the checkpoint manifest (checkpoint.h)
//
// (key integers big-endian, so keys sort by table, block, version).
//
// Block images are written with unsynced writes; the manifest with a synced
// write, which (RocksDB's WAL being one sequential file) also makes every
// earlier write durable. So once PutManifest returns Ok, the checkpoint's
// images and manifest are durable together, and a crash before that leaves
// the previous manifest as the newest complete checkpoint.
//
// Checkpoints written by a snapshot process (checkpoint.h) do not go through
// the store's DB handle at all: the child writes the images into an SST file
// with ImageFileWriter (RocksDB's SstFileWriter, no DB handle: the child must
// not touch the parent's RocksDB instance, and RocksDB allows one process per
// DB anyway) and the parent adds the file with IngestImageFile, which links it
// into the LSM tree atomically and durably (the SST is synced by Finish,
// RocksDB's own MANIFEST by the ingestion). A crash before or during the
// ingestion leaves at most unreferenced images, which the next checkpoint's
// DeleteBlocksExcept removes.
//
// RocksDB's diagnostic log is ours (rocksdb_info_log.h): on a full disk
// Open and the writes return NoSpace instead of RocksDB aborting the process.
//
// Not thread-safe beyond what RocksDB gives; one checkpointer at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <tuple>

#include "storage/storage.h"

namespace rocksdb {
class DB;
class SstFileWriter;
}  // namespace rocksdb

namespace forktail::ckpt {

// (table, block, version): one stored block image.
struct BlockKey {
  uint32_t table = 0;
  uint32_t block = 0;
  uint64_t version = 0;
  auto operator<=>(const BlockKey&) const = default;
};

class ColdStore {
 public:
  // Opens DIR (creating it unless read_only). read_only fails with NotFound
  // when DIR holds no store.
  static Status Open(const std::string& dir, bool read_only, std::unique_ptr<ColdStore>* out);
  ~ColdStore();

  Status PutBlockImage(const BlockKey& key, std::string_view image);
  Status GetBlockImage(const BlockKey& key, std::string* image);
  Status PutManifest(std::string_view bytes);
  // NotFound if no checkpoint was ever completed.
  Status GetManifest(std::string* bytes);
  // Deletes every block image not in `keep`; *deleted counts them.
  Status DeleteBlocksExcept(const std::set<BlockKey>& keep, uint64_t* deleted);
  Status CountBlocks(uint64_t* count);
  // Adds an SST file written by ImageFileWriter (moved into the store when
  // possible, else copied). The file must not overlap a concurrent write.
  Status IngestImageFile(const std::string& path);

 private:
  explicit ColdStore(rocksdb::DB* db);
  std::unique_ptr<rocksdb::DB> db_;
};

// Writes block images into a standalone SST file for ColdStore::IngestImageFile.
// Keys must be added in increasing order. Uses no DB handle and no RocksDB
// background thread: safe in a forked child. LZ4-compresses like PutBlockImage.
class ImageFileWriter {
 public:
  ImageFileWriter();
  ~ImageFileWriter();
  ImageFileWriter(const ImageFileWriter&) = delete;
  ImageFileWriter& operator=(const ImageFileWriter&) = delete;

  Status Open(const std::string& path);
  Status Add(const BlockKey& key, std::string_view image);
  // Finishes and syncs the file. At least one Add is required.
  Status Finish(uint64_t* file_bytes);

 private:
  std::unique_ptr<rocksdb::SstFileWriter> writer_;
  std::string value_;  // compression buffer, reused
};

}  // namespace forktail::ckpt
