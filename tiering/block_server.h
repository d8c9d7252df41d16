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
// Protocol (little-endian): request = table u32 | block u32 | version u64;
// reply = status u8 (Status::Code) | length u32 | bytes (the image, or the
// error message).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "storage/storage.h"

namespace forktail::tier {

class BlockServer {
 public:
  // Serves images read through `source` (which must outlive the server).
  static Status Start(BlockImageReader* source, std::unique_ptr<BlockServer>* out);
  ~BlockServer();  // stops accepting, ends every connection, joins
  BlockServer(const BlockServer&) = delete;
  BlockServer& operator=(const BlockServer&) = delete;

  // The abstract socket's name (without the leading NUL).
  const std::string& address() const { return address_; }
  uint64_t requests() const { return requests_.load(std::memory_order_relaxed); }

 private:
  BlockServer(BlockImageReader* source, int listen_fd, std::string address);
  void AcceptLoop();
  void Serve(int fd);

  BlockImageReader* const source_;
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
// made on the first read; reads are serialized on it (one in flight).
class RemoteBlockReader : public BlockImageReader {
 public:
  explicit RemoteBlockReader(std::string address) : address_(std::move(address)) {}
  ~RemoteBlockReader() override;
  Status ReadImage(TableId table, BlockNo block, uint64_t version, std::string* image) override;

 private:
  const std::string address_;
  std::mutex mu_;
  int fd_ = -1;
};

}  // namespace forktail::tier
