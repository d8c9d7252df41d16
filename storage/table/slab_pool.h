// SlabPool: the memory of one long-lived structure (an ordered index's
// leaves, their map nodes and separators), taken from chunks of its own.
//
// Why: an index built while a bulk load runs gets its leaves from the same
// malloc arena as the load's transient buffers (log records, undo, parsed
// rows). When the load's memory is freed, each live leaf keeps the pages
// around it resident, and malloc_trim cannot return them: at TPC-H SF1 the
// server held ~250 MiB of such holes beside a 183 MiB index (issue 19). Here
// the index's allocations sit together in chunks that nothing else shares.
//
// Sizes up to 256 bytes are rounded to 16, larger ones up to 16 KiB to an
// eighth of their power of two (a leaf's 4 KiB of entries is a class of its
// own, a 131-entry offset array takes 576 bytes, not 1024, a packed leaf
// wastes 6% on average); each size class takes 64 KiB runs from the
// current chunk, hands their slots out in order (a page is touched when a
// slot on it is first used, so a class used once costs a slot, not a run),
// and keeps a free list. Chunks are mmap'd (untouched pages cost nothing),
// growing from 64 KiB to 2 MiB, and unmapped when the pool is destroyed.
// Larger requests go to operator new. Freed slots are reused by the same
// class and are not returned to the system before the pool goes.
//
// Under ASan and TSan every request goes to operator new, so that the
// sanitizers still see each slot's bounds and lifetime.
//
// Not thread-safe: a pool belongs to one structure, mutated by one thread at
// a time (a forked snapshot has its own copy of the pages).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace forktail {

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FORKTAIL_SLAB_PASS_THROUGH 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FORKTAIL_SLAB_PASS_THROUGH 1
#endif

class SlabPool {
 public:
#ifdef FORKTAIL_SLAB_PASS_THROUGH
  static constexpr size_t kLargest = 0;  // every request: operator new
#else
  static constexpr size_t kLargest = 16 * 1024;  // larger: operator new
#endif

  SlabPool() = default;
  ~SlabPool();
  SlabPool(const SlabPool&) = delete;
  SlabPool& operator=(const SlabPool&) = delete;

  void* Allocate(size_t bytes);
  void Deallocate(void* p, size_t bytes) noexcept;

  // Bytes in use or free for reuse: the slots handed out so far and the
  // large requests.
  size_t memory_bytes() const { return carved_bytes_ + large_bytes_; }

 private:
  static constexpr size_t kRunBytes = 64 * 1024;
  static constexpr size_t kClasses = 16 + 6 * 8;  // 16..256 by 16, then 8 per doubling
  static size_t ClassOf(size_t bytes);
  static size_t ClassBytes(size_t c);
  // Gives class c a fresh run to hand slots out of.
  void NewRun(size_t c);

  std::array<void*, kClasses> free_{};                    // singly linked through the slots
  std::array<std::pair<char*, char*>, kClasses> runs_{};  // each class's run: next slot, end
  std::vector<std::pair<void*, size_t>> chunks_;
  char* cursor_ = nullptr;  // the current chunk's uncarved rest
  char* limit_ = nullptr;
  size_t next_chunk_bytes_ = kRunBytes;
  size_t carved_bytes_ = 0;
  size_t large_bytes_ = 0;
};

// A standard allocator over a SlabPool (containers of one structure share
// its pool; the pool outlives them).
template <typename T>
class SlabAllocator {
 public:
  using value_type = T;
  using propagate_on_container_copy_assignment = std::true_type;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;

  explicit SlabAllocator(SlabPool* pool) noexcept : pool_(pool) {}
  template <typename U>
  SlabAllocator(const SlabAllocator<U>& other) noexcept : pool_(other.pool()) {}

  T* allocate(size_t n) { return static_cast<T*>(pool_->Allocate(n * sizeof(T))); }
  void deallocate(T* p, size_t n) noexcept { pool_->Deallocate(p, n * sizeof(T)); }
  SlabPool* pool() const noexcept { return pool_; }

  template <typename U>
  friend bool operator==(const SlabAllocator& a, const SlabAllocator<U>& b) noexcept {
    return a.pool() == b.pool();
  }

 private:
  SlabPool* pool_;
};

}  // namespace forktail
