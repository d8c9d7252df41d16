// BlockDirectory: a table's map from block number to block handle, and the
// only way to reach a block. Code that wants a block pins it and holds the
// RAII BlockRef while it reads or writes; nothing keeps a raw Block* beyond a
// BlockRef's lifetime. That rule is what lets a buffer pool evict blocks later.
//
// Today every block is resident: Pin() only counts the pin. The buffer pool
// (tiering/) will add:
//   - BlockHandle::State::kNotResident, with `block` empty and the image's
//     location remembered by the pool;
//   - a BlockLoader set with SetLoader(): Pin() of a non-resident handle calls
//     it to read the image back (SSD tier or cold store) and makes the handle
//     resident;
//   - eviction of handles whose pin count is zero.
// Those are the only changes: callers already go through Pin().
//
// Block numbers are dense (0, 1, 2, ...) and never reused.
#pragma once

#include <atomic>
#include <cassert>
#include <functional>
#include <memory>
#include <vector>

#include "storage/table/block.h"

namespace forktail {

struct BlockHandle {
  enum class State : uint8_t { kResident, kNotResident };

  State state = State::kResident;
  std::unique_ptr<Block> block;
  // Pins held now. Atomic: a snapshot's scan workers pin concurrently.
  std::atomic<uint32_t> pins{0};
};

// Holds a pin on one block; movable, not copyable.
class BlockRef {
 public:
  BlockRef() = default;
  explicit BlockRef(BlockHandle* handle) : handle_(handle) {
    handle_->pins.fetch_add(1, std::memory_order_relaxed);
  }
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
  void Release() {
    if (handle_ != nullptr) handle_->pins.fetch_sub(1, std::memory_order_relaxed);
    handle_ = nullptr;
  }

  BlockHandle* handle_ = nullptr;
};

class BlockDirectory {
 public:
  // Reads a block image back for a non-resident handle (buffer pool; unused today).
  using BlockLoader = std::function<std::unique_ptr<Block>(BlockNo)>;

  BlockDirectory() = default;
  BlockDirectory(const BlockDirectory&) = delete;
  BlockDirectory& operator=(const BlockDirectory&) = delete;

  // Adds a block; its number must be the next one (size()).
  void Add(std::unique_ptr<Block> block);
  // Removes the newest block (undo of the insert that created it); it must be
  // unpinned.
  void RemoveLast();
  // Puts `block` (same number) in place of block `no`, which must be
  // unpinned (freezing and thawing swap a block's form).
  void Replace(BlockNo no, std::unique_ptr<Block> block);

  BlockRef Pin(BlockNo no) const;
  size_t size() const { return handles_.size(); }
  bool Contains(BlockNo no) const { return no.value() < handles_.size(); }
  uint32_t PinCount(BlockNo no) const { return handles_[no.value()]->pins.load(); }

  void SetLoader(BlockLoader loader) { loader_ = std::move(loader); }

 private:
  std::vector<std::unique_ptr<BlockHandle>> handles_;
  BlockLoader loader_;
};

}  // namespace forktail
