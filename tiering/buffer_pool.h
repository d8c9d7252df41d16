// BufferPool: the memory budget for table blocks (DESIGN.md, Tiering;
// docs/tiering.md, "Buffer pool").
//
// Residency lives in each table's BlockDirectory (block_directory.h); the
// pool decides what leaves memory and reads what comes back:
//
//   - Accounting. Every directory of the catalog adds and subtracts the bytes
//     of the blocks it holds in one counter (BlockImageReaderSlot::
//     resident_bytes): 2 MiB per plain block, its encoded size per frozen one.
//   - Clean blocks only. A block may leave memory when its image is durable
//     in the cold store: its version is the one the newest committed
//     checkpoint manifest names (SetDurable) and it has not changed since.
//     The cold store then holds exactly what memory held, so nothing is
//     written to evict it, and recovery needs no per-block LSN: an evicted
//     block is a checkpoint's image, and replay starts from that checkpoint.
//     Dirty blocks become clean at the next checkpoint; when they alone
//     exceed the budget, EvictRound says so and the database checkpoints
//     early (the write-back).
//   - Victims by LRU-2 (BlockHandle::last_use / prior_use, in use epochs
//     that each EvictRound starts, so an epoch is the time between rounds): a block used in only
//     one epoch (a scan's) goes before one used in two; among equals the older. A table's tail
//     block stays (inserts go there; a write must never find it missing).
//   - Reads (ReadImage, the catalog's BlockImageReader): the SSD tier when
//     it holds that exact version, else the cold store, whose image is then
//     copied into the tier (write-through). Any thread.
//
// Threads: EvictRound on the transaction thread between transactions (no
// body is running, so no block a transaction wrote can be evicted under
// it); SetDurable from the checkpointing thread; ReadImage from any.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "recovery/checkpoint.h"
#include "recovery/cold_store.h"
#include "storage/storage.h"
#include "tiering/ssd_tier.h"

namespace forktail::tier {

struct BufferPoolStats {
  uint64_t evicted = 0;  // blocks
  uint64_t evicted_bytes = 0;
  uint64_t rounds = 0;
  uint64_t reads = 0;  // images read back
  uint64_t read_bytes = 0;
  uint64_t reads_from_tier = 0;  // of those, from the SSD tier
  uint64_t dirty_rounds = 0;     // rounds that ended over budget for want of clean blocks
};

// What one round did.
struct EvictRoundResult {
  uint64_t evicted = 0;
  uint64_t evicted_bytes = 0;
  // Still over the budget after it: only dirty, pinned or tail blocks are
  // left in memory, so a checkpoint must make some clean.
  bool needs_checkpoint = false;
};

class BufferPool : public BlockImageReader {
 public:
  // `cold` must outlive the pool; `ssd` may be null (no SSD tier).
  BufferPool(Catalog* catalog, ckpt::ColdStore* cold, SsdTier* ssd, uint64_t budget_bytes);

  uint64_t budget_bytes() const { return budget_; }
  // The catalog's resident block bytes now.
  int64_t resident_bytes() const;
  bool over_budget() const { return resident_bytes() > static_cast<int64_t>(budget_); }

  // The versions a committed checkpoint made durable (its manifest). Any
  // thread.
  void SetDurable(const ckpt::Manifest& manifest);

  // Snapshot processes (tiering/block_server.h). Transaction thread, right
  // before a fork: the child may read any block that is not in memory now,
  // at its version, which the durable manifest names; that manifest's images
  // stay in the cold store until the returned token is released (after the
  // child is gone). PinnedKeys: what checkpoints must not delete for them.
  std::shared_ptr<const void> PinForSnapshot();
  std::set<BlockKey> PinnedKeys() const;

  // Transaction thread, between transactions, every so often (each call
  // starts a use epoch): when over the budget, evicts clean, unpinned
  // blocks (not tails), the least recently used first (LRU-2), until the
  // resident bytes are at most `target` of the budget.
  EvictRoundResult EvictRound(double target = 0.9);

  // BlockImageReader.
  Status ReadImage(TableId table, BlockNo block, uint64_t version, std::string* image) override;
  // Where the SSD tier holds exactly this version, for a snapshot process
  // that reads the slot file itself (block_server.h); counted as a read from
  // the tier. false: no tier, or not there (ReadImage then).
  bool LocateInTier(TableId table, BlockNo block, uint64_t version, uint32_t* slot,
                    SlotRecord* record);
  // The SSD tier failed and is bypassed from now on: reads go to the cold
  // store. The tier object must stay alive (a read may be using it).
  void DropSsdTier() { ssd_.store(nullptr); }

  BufferPoolStats stats() const;

 private:
  bool Durable(TableId table, BlockNo block, uint64_t version) const;
  void CountRead(uint64_t bytes, bool from_tier);

  Catalog* const catalog_;
  ckpt::ColdStore* const cold_;
  std::atomic<SsdTier*> ssd_;
  const uint64_t budget_;

  using Versions = std::map<uint32_t, std::vector<uint64_t>>;  // table -> version by block
  mutable std::mutex durable_mu_;
  std::shared_ptr<const Versions> durable_ = std::make_shared<Versions>();
  uint64_t durable_sequence_ = 0;  // its manifest's
  struct Pinned {
    int count = 0;
    std::shared_ptr<const Versions> versions;
  };
  std::map<uint64_t, Pinned> pinned_;  // by manifest sequence; guarded by durable_mu_

  mutable std::mutex stats_mu_;
  BufferPoolStats stats_;
};

}  // namespace forktail::tier
