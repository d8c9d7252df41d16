// BlockDecoder: a checkpoint load's reads and decodes, on a thread of their
// own (LoadCheckpoint, checkpoint.h).
//
// A restart spends its time in two halves per block: reading the image (the
// SSD tier through io_uring, or the cold store) and turning it into a block
// (a 2 MiB copy, its checksum, the pages faulted in), then adding the block's
// rows to the table's ordered indexes and statistics. The second half must
// run on the loading thread, in block order; the first needs nothing from it.
// So this thread reads and decodes the images of the blocks ahead while the
// caller indexes the current one, and a restart takes about the longer of
// the two halves instead of their sum.
//
// Memory: one batch of images being read (kBatch) and at most kAhead
// decoded blocks waiting, beyond what the budget counts.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "recovery/checkpoint.h"

namespace forktail::ckpt {

class BlockDecoder {
 public:
  struct TableToLoad {
    Table* table;
    uint32_t id;
    const std::vector<uint64_t>* versions;  // by block number
  };
  // Images are read in batches of kBatch, so that a tier keeps several reads
  // in flight; kAhead decoded blocks wait at most. Batches of 32 left the
  // loading thread idle while the decoder waited for a whole batch (warm
  // restart of 85 blocks: 0.67 s, against 0.59 s with 8).
  static constexpr size_t kBatch = 8;
  static constexpr size_t kAhead = 8;

  // Starts reading `tables`' blocks in order, from `source` when given, else
  // from `store`. The tables must outlive the decoder and keep their schema.
  BlockDecoder(ColdStore* store, BlockImageSource* source, std::vector<TableToLoad> tables);
  // Stops the thread (after the read it is in) and joins it.
  ~BlockDecoder();
  BlockDecoder(const BlockDecoder&) = delete;
  BlockDecoder& operator=(const BlockDecoder&) = delete;

  // The next block in order (the tables in the order given, each table's
  // blocks by number), or the error that reading or decoding it met.
  Status Next(std::unique_ptr<Block>* block);

 private:
  void Run();
  Status ReadAndDecode(const TableToLoad& t, std::vector<BlockKey>* keys,
                       std::vector<std::string>* images);
  // Queues a decoded block, waiting for room; false when stopped.
  bool Push(std::unique_ptr<Block> block);

  ColdStore* const store_;
  BlockImageSource* const source_;
  const std::vector<TableToLoad> tables_;

  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::unique_ptr<Block>> ready_;
  Status error_;  // the first error; the thread stops there
  bool stopping_ = false;
  bool finished_ = false;  // every block is queued, or error_ is set
  std::thread thread_;
};

}  // namespace forktail::ckpt
