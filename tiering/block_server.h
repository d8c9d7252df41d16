// BlockServer and RemoteBlockReader: how a snapshot process reads the blocks
// that were not in memory when it was forked (tiering/buffer_pool.h).
//
// A snapshot process must not touch the parent's RocksDB handle or SSD tier
// (DESIGN.md, fork safety: RocksDB allows one process per database, and the
// parent's threads may hold its locks at the fork). So the parent serves
// images: a BlockServer listens on an abstract Unix socket (no file to clean
// up; the name carries the parent's pid and a counter) and answers each
// connection on a thread of its own with the buffer pool's ReadImage. A
// snapshot process opens its connection after the fork, on first need
// (RemoteBlockReader), as its own handle.
//
// Versions. A child asks for the exact version its fork saw. Every version an
// evicted block can have is one a committed checkpoint manifest names, and
// the database keeps the images of the manifest each live snapshot process
// was forked under (Database::PinManifestForSnapshot), so the image is there
// for as long as the child lives.
//
// Slots. With an SSD tier the child reads a block's slot itself, with its
// own O_DIRECT handle of the slot file: it asks the server only where the
// tier holds that version (slot, length, CRC) and checks the bytes it reads
// against the CRC, since the slot may be replaced meanwhile (it then asks
// for the image). The image then crosses no socket and no server thread,
// and the scan's workers read in parallel.
//
// Protocol (little-endian): request = kind u8 (kImage, kLocate) | table u32
// | block u32 | version u64; reply = status u8 (Status::Code) | length u32 |
// bytes: for kImage the image, for kLocate slot u32 | image length u32 |
// image CRC u32 (NotFound: not in the tier), or the error message.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "storage/storage.h"
#include "tiering/slot_file.h"
#include "tiering/slot_table.h"

namespace forktail::tier {

class BlockServer {
 public:
  // Where the SSD tier holds a version (BufferPool::LocateInTier).
  using Locator =
      std::function<bool(TableId, BlockNo, uint64_t version, uint32_t* slot, SlotRecord* record)>;

  // Serves images read through `source` (which must outlive the server),
  // and the tier's slots through `locate` (none: every kLocate is NotFound).
  static Status Start(BlockImageReader* source, std::unique_ptr<BlockServer>* out,
                      Locator locate = nullptr);
  ~BlockServer();  // stops accepting, ends every connection, joins
  BlockServer(const BlockServer&) = delete;
  BlockServer& operator=(const BlockServer&) = delete;

  // The abstract socket's name (without the leading NUL).
  const std::string& address() const { return address_; }
  uint64_t requests() const { return requests_.load(std::memory_order_relaxed); }

 private:
  BlockServer(BlockImageReader* source, Locator locate, int listen_fd, std::string address);
  void AcceptLoop();
  void Serve(int fd);

  BlockImageReader* const source_;
  const Locator locate_;
  const int listen_fd_;
  const std::string address_;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> requests_{0};
  std::mutex mu_;
  std::vector<int> connections_;  // open fds, shut down at stop
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

// A snapshot process's reader: one connection to the parent's BlockServer,
// made on the first read, and requests serialized on it (one in flight);
// with `slot_dir` (the SSD tier's directory; empty: none) slots are read
// from the slot file directly, by any number of threads at once.
class RemoteBlockReader : public BlockImageReader {
 public:
  RemoteBlockReader(std::string address, std::string slot_dir);
  ~RemoteBlockReader() override;
  Status ReadImage(TableId table, BlockNo block, uint64_t version, std::string* image) override;

 private:
  // One request and its reply; a lost connection is an IoError.
  Status Exchange(uint8_t kind, TableId table, BlockNo block, uint64_t version, uint8_t* code,
                  std::string* body);
  // The slot's bytes when they are still the image `record` describes.
  bool ReadSlot(uint32_t slot, uint32_t length, uint32_t crc, std::string* image);

  const std::string address_;
  const std::string slot_dir_;  // empty: no direct reads
  std::mutex mu_;
  int fd_ = -1;
  std::once_flag slots_open_;
  SlotFile slots_;
  bool slots_readable_ = false;  // false: images come from the server
};

}  // namespace forktail::tier
