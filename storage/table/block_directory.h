// BlockDirectory: a table's map from block number to block handle, and the
// only way to reach a block. Code that wants a block pins it and holds the
// RAII BlockRef while it reads or writes; nothing keeps a raw Block* beyond a
// BlockRef's lifetime. That rule is what lets the buffer pool
// (tiering/buffer_pool.h) evict blocks.
//
// Residency. A handle is resident (its Block in memory) or not: the buffer
// pool evicts a clean block (Evict: its image is the cold store's, so only
// its summary stays here) and Pin() reads it back through the directory's
// loader. What callers may need without the block (row count, version, the
// bytes it will take) is in the summary, which the directory answers
// (row_count, version, ...) without loading anything.
//
// Loading policy, per thread (LoadPolicy):
//   - kInline (the default): Pin() of a non-resident block loads it at once
//     (snapshot processes, recovery, checkpoints, in-process queries);
//   - kThrow: Pin() throws BlockNotResident instead. The transaction engine
//     runs its bodies so (H-Store's anti-caching): the body is rolled back,
//     the block is read off the transaction thread and installed (Install),
//     and the body runs again; the thread never waits for I/O.
//
// Concurrency. Pins come from any thread (a snapshot's scan workers pin
// concurrently, and may load concurrently); Add, RemoveLast and Replace come
// only from the single writer (the transaction thread) while nobody else
// reads the directory. Residency changes (a load's install, Evict) take the
// directory's mutex; Pin's fast path takes none: it counts its pin, then
// checks that the handle is resident (both sequentially consistent), while
// Evict marks the handle non-resident, then checks that no pin is counted.
// One of the two sees the other (as in Dekker's protocol): the pinner backs
// off and loads, or the evictor leaves the block.
//
// Block numbers are dense (0, 1, 2, ...) and never reused.
#pragma once

#include <atomic>
#include <cassert>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "storage/table/block.h"

namespace forktail {

// What the directory knows of a block that is not in memory: enough to
// load it back (table, number, version) and to answer without loading.
struct BlockSummary {
  TableId table;
  uint64_t version = 0;
  uint32_t row_count = 0;
  uint32_t deleted_count = 0;
  uint32_t memory_bytes = 0;  // what the block takes once loaded
  bool frozen = false;
};

// Thrown by Pin() of a non-resident block under LoadPolicy::kThrow. Not a
// std::exception, so that no handler that turns errors into SQLSTATEs
// catches it: it must reach the transaction engine.
struct BlockNotResident {
  TableId table;
  BlockNo block;
  uint64_t version = 0;
};

enum class LoadPolicy : uint8_t { kInline, kThrow };

// Reads the image of an evicted block back: the buffer pool's reader, or a
// snapshot process's own (it opens its handles after the fork). Any thread.
class BlockImageReader {
 public:
  virtual ~BlockImageReader() = default;
  // The image of version `version` of block `block` of `table`: exactly the
  // bytes Block::ExportImage gave when it was written.
  virtual Status ReadImage(TableId table, BlockNo block, uint64_t version, std::string* image) = 0;
};

// What the block directories of one catalog share with the buffer pool:
// where they read an evicted block back (set in one place,
// Catalog::SetBlockImageReader, and replaced there in a snapshot process),
// and the bytes their resident blocks take, kept by every directory as it
// adds, frees, replaces, evicts and loads blocks.
struct BlockPoolShared {
  std::atomic<BlockImageReader*> reader{nullptr};
  std::atomic<int64_t> resident_bytes{0};
  // The buffer pool's budget (none: the most an int64 holds).
  std::atomic<int64_t> budget_bytes{INT64_MAX};
};

// Sets the calling thread's LoadPolicy for its lifetime, then restores it.
class LoadPolicyScope {
 public:
  explicit LoadPolicyScope(LoadPolicy policy);
  ~LoadPolicyScope();
  LoadPolicyScope(const LoadPolicyScope&) = delete;
  LoadPolicyScope& operator=(const LoadPolicyScope&) = delete;
  static LoadPolicy current();

 private:
  LoadPolicy saved_;
};

struct BlockHandle {
  enum class State : uint8_t { kResident, kNotResident };

  std::atomic<State> state{State::kResident};
  std::unique_ptr<Block> block;  // null while not resident
  // Pins held now. Atomic: a snapshot's scan workers pin concurrently.
  std::atomic<uint32_t> pins{0};
  BlockSummary summary;  // written before the handle turns non-resident
  // Replacement (LRU-2): the two latest use epochs in which the block was
  // pinned (BlockDirectory::use_epoch). A block read once by a scan has
  // prior_use 0 and goes before one read again and again.
  std::atomic<uint32_t> last_use{0};
  std::atomic<uint32_t> prior_use{0};
  // Heat: the use epochs the block was pinned in since a checkpoint last
  // took them (BlockDirectory::TakeUses), which the SSD tier adds to the
  // block's temperature, so that a block hot in memory, which the tier
  // never serves, is known as hot after a restart.
  std::atomic<uint32_t> uses{0};
};

// Holds a pin on one block; movable, not copyable.
class BlockRef {
 public:
  BlockRef() = default;
  BlockRef(BlockRef&& other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }
  BlockRef& operator=(BlockRef&& other) noexcept {
    if (this != &other) {
      Release();
      handle_ = other.handle_;
      other.handle_ = nullptr;
    }
    return *this;
  }
  BlockRef(const BlockRef&) = delete;
  BlockRef& operator=(const BlockRef&) = delete;
  ~BlockRef() { Release(); }

  explicit operator bool() const { return handle_ != nullptr; }
  Block* get() const { return handle_->block.get(); }
  Block* operator->() const { return get(); }
  Block& operator*() const { return *get(); }

 private:
  friend class BlockDirectory;
  // Adopts a pin already counted on `handle`.
  explicit BlockRef(BlockHandle* handle) : handle_(handle) {}
  void Release() {
    if (handle_ != nullptr) handle_->pins.fetch_sub(1, std::memory_order_release);
    handle_ = nullptr;
  }

  BlockHandle* handle_ = nullptr;
};

class BlockDirectory {
 public:
  // Reads a block back: the image of `summary`'s version of block `no`.
  // Throws (DbError) when it cannot.
  using BlockLoader =
      std::function<std::unique_ptr<Block>(BlockNo no, const BlockSummary& summary)>;

  BlockDirectory() = default;
  ~BlockDirectory();
  BlockDirectory(const BlockDirectory&) = delete;
  BlockDirectory& operator=(const BlockDirectory&) = delete;

  // Adds a block; its number must be the next one (size()).
  void Add(std::unique_ptr<Block> block);
  // Removes the newest block (undo of the insert that created it); it must be
  // unpinned and resident.
  void RemoveLast();
  // Puts `block` (same number) in place of block `no`, which must be
  // unpinned and resident (freezing and thawing swap a block's form).
  void Replace(BlockNo no, std::unique_ptr<Block> block);

  // Pins block `no`, loading it first if it is not resident (see "Loading
  // policy"; throws BlockNotResident under kThrow).
  BlockRef Pin(BlockNo no) const;
  // Pins block `no` if it is resident; an empty BlockRef otherwise.
  BlockRef TryPin(BlockNo no) const;
  size_t size() const { return handles_.size(); }
  bool Contains(BlockNo no) const { return no.value() < handles_.size(); }
  uint32_t PinCount(BlockNo no) const { return handles_[no.value()]->pins.load(); }

  // Without loading: the block's row count, version, whether it changed
  // since the last checkpoint (never, while not resident: only clean blocks
  // are evicted), whether it is frozen, and the bytes it takes (or will
  // take) in memory.
  bool resident(BlockNo no) const;
  uint32_t row_count(BlockNo no) const;
  uint64_t version(BlockNo no) const;
  bool changed_since_checkpoint(BlockNo no) const;
  size_t memory_bytes(BlockNo no) const;
  // The latest two use epochs of block `no` (see BlockHandle).
  uint32_t last_use(BlockNo no) const { return handles_[no.value()]->last_use.load(); }
  uint32_t prior_use(BlockNo no) const { return handles_[no.value()]->prior_use.load(); }
  // The use epochs counted for block `no` since the last call (see
  // BlockHandle::uses), and the count starts again.
  uint32_t TakeUses(BlockNo no) const { return handles_[no.value()]->uses.exchange(0); }

  // Buffer pool. Evict drops block `no` from memory, keeping its summary;
  // false (nothing changes) if it is pinned or not resident. The caller
  // makes sure that the loader can read this version back. Const: where a
  // block lives is not what the directory holds (its rows do not change).
  bool Evict(BlockNo no) const;
  // Evict, if the block has not changed since the last checkpoint: a block
  // a scan loaded (the image it was read from is durable) goes again, unless
  // a write got to it meanwhile.
  bool EvictIfClean(BlockNo no) const;
  // A block the caller loaded (Load) for non-resident handle `no`: installs
  // it unless the handle is resident meanwhile, or turned to another
  // version; returns whether it did.
  bool Install(BlockNo no, std::unique_ptr<Block> block);
  // Reads block `no` of `summary` through the loader, without installing
  // it: any thread, no lock held (the prefetch of anti-caching).
  std::unique_ptr<Block> Load(BlockNo no, const BlockSummary& summary) const;
  void SetLoader(BlockLoader loader) { loader_ = std::move(loader); }
  // Where the resident bytes are counted (none: not counted). Set before
  // the first block is added.
  void SetShared(BlockPoolShared* shared) { shared_ = shared; }

  // The process's use epoch (LRU-2): the buffer pool advances it once per
  // eviction round; a pin records it in its handle.
  static std::atomic<uint32_t> use_epoch;

 private:
  bool EvictWhere(BlockNo no, bool only_clean) const;
  // Pin's slow path: loads (or throws) and pins.
  BlockRef PinNotResident(BlockHandle* handle, BlockNo no) const;
  static void NoteUse(BlockHandle* handle);
  void Count(int64_t bytes) const {
    if (shared_ != nullptr) shared_->resident_bytes.fetch_add(bytes, std::memory_order_relaxed);
  }

  std::vector<std::unique_ptr<BlockHandle>> handles_;
  BlockLoader loader_;
  BlockPoolShared* shared_ = nullptr;
  // Residency changes: a load's install, Evict.
  mutable std::mutex residency_mu_;
};

}  // namespace forktail
