// QueryMemory: the memory of one query's intermediate results and hash tables
// (issue item "Temporary memory"), charged against the query's budget.
//
// Every allocation carries a small header that links it into the query's list
// of live allocations, so that
//   - a single Deallocate returns the bytes to the budget (std containers that
//     grow and shrink do not leak budget, unlike a bump arena), and
//   - ReleaseAll() frees whatever is still live when the query ends — also after
//     a cancel or an error, when operators may have been torn down mid-way.
// After ReleaseAll() a late Deallocate is a no-op (the bytes are gone already),
// so containers may safely outlive the release; allocating again aborts.
//
//   allocation as returned by ::operator new (aligned to max(align, 16)):
//   +---------- offset bytes ------------+------------------------+
//   | padding | Header (32 bytes)        | user bytes (size)      |
//   +---------+--------------------------+------------------------+
//                                        ^ pointer given to caller
//
// Charged bytes are the user sizes. Exceeding the limit throws DbError 53200
// "query exceeded its memory budget of N bytes"; the allocation is not made.
// Thread-safe: work orders of one query allocate concurrently.
//
// Memory the kernels allocate on their own (hash-table arrays, vector
// buffers, string arenas) is charged without being allocated here: Charge()
// adds bytes to the same budget (53200 past it, naming what asked) and
// Uncharge() gives them back. MemoryCharge (below) keeps such a charge in
// step with a structure's size and returns it when destroyed.
//
// Past its own limit, a query's bytes are also reserved from the server-wide
// MemoryGovernor (its high-water mark, in granules, held until ReleaseAll or
// the destructor); when the governor has no more, the allocation or charge
// fails with 53200 "out of memory" naming the server's budget.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>

#include "scheduler/memory_governor.h"

namespace forktail {

class QueryMemory {
 public:
  // `governor`: the server-wide budget these bytes are also reserved from
  // (nullptr: none).
  explicit QueryMemory(size_t limit = std::numeric_limits<size_t>::max(),
                       MemoryGovernor* governor = &MemoryGovernor::Global());
  ~QueryMemory();
  QueryMemory(const QueryMemory&) = delete;
  QueryMemory& operator=(const QueryMemory&) = delete;

  void* Allocate(size_t bytes, size_t alignment = alignof(std::max_align_t));
  void Deallocate(void* pointer) noexcept;
  void ReleaseAll() noexcept;

  // Counts `bytes` against the budget without allocating; throws 53200
  // "query exceeded its memory budget of N bytes (<what> needs M more)" and
  // counts nothing if that passes the limit.
  void Charge(size_t bytes, const char* what = nullptr);
  void Uncharge(size_t bytes) noexcept { used_.fetch_sub(bytes, std::memory_order_relaxed); }

  void SetLimit(size_t limit) { limit_.store(limit, std::memory_order_relaxed); }
  size_t limit() const { return limit_.load(std::memory_order_relaxed); }
  size_t used() const { return used_.load(std::memory_order_relaxed); }
  size_t peak() const { return peak_.load(std::memory_order_relaxed); }

 private:
  struct Header {
    Header* prev;
    Header* next;
    size_t size;
    uint32_t offset;     // from the start of the raw allocation to the user bytes
    uint32_t alignment;  // of the raw allocation
  };
  static constexpr size_t kHeaderSize = 32;
  static_assert(sizeof(Header) == kHeaderSize);

  static void FreeRaw(Header* header) noexcept;
  // Reserves from the governor up to `used` bytes (the caller's new total);
  // throws 53200 if it cannot, having reserved nothing.
  void ReserveUpTo(size_t used, size_t asked, const char* what);
  void ReturnReservation() noexcept;

  std::atomic<size_t> limit_;
  std::atomic<size_t> used_{0};
  std::atomic<size_t> peak_{0};
  MemoryGovernor* governor_;
  std::atomic<size_t> reserved_{0};  // from governor_, in granules
  std::mutex reserve_mutex_;
  std::mutex mutex_;  // guards the list and released_
  Header* head_ = nullptr;
  bool released_ = false;
};

// A charge for memory a structure holds outside QueryMemory (a hash table's
// arrays, an aggregation table, sort runs, output vectors), kept equal to
// the structure's current size: Set(bytes) charges the growth (53200 if the
// query's budget cannot take it; the charge then stays at its old value) or
// returns the shrinkage. The destructor returns the whole charge. Bind()
// names the query once (the first work order that sees its context);
// Set() before Bind() only records the size, charged at Bind(). Thread-safe.
class MemoryCharge {
 public:
  explicit MemoryCharge(const char* what = "operator memory") : what_(what) {}
  ~MemoryCharge();
  MemoryCharge(const MemoryCharge&) = delete;
  MemoryCharge& operator=(const MemoryCharge&) = delete;

  void Bind(const std::shared_ptr<QueryMemory>& memory);
  void Set(size_t bytes);
  // Set(bytes() + delta); delta may be negative.
  void Add(int64_t delta);
  size_t bytes() const;

 private:
  void SetLocked(size_t bytes);

  const char* what_;
  mutable std::mutex mutex_;
  std::shared_ptr<QueryMemory> memory_;
  size_t charged_ = 0;  // counted in memory_
  size_t wanted_ = 0;   // recorded before Bind
};

// A std allocator drawing from a QueryMemory, e.g.
//   std::vector<int64_t, QueryAllocator<int64_t>> v{QueryAllocator<int64_t>(plan.memory())};
template <typename T>
class QueryAllocator {
 public:
  using value_type = T;

  explicit QueryAllocator(std::shared_ptr<QueryMemory> memory) : memory_(std::move(memory)) {}
  template <typename U>
  QueryAllocator(const QueryAllocator<U>& other) : memory_(other.memory()) {}

  T* allocate(size_t n) { return static_cast<T*>(memory_->Allocate(n * sizeof(T), alignof(T))); }
  void deallocate(T* pointer, size_t) noexcept { memory_->Deallocate(pointer); }

  const std::shared_ptr<QueryMemory>& memory() const { return memory_; }
  template <typename U>
  bool operator==(const QueryAllocator<U>& other) const {
    return memory_ == other.memory();
  }

 private:
  std::shared_ptr<QueryMemory> memory_;
};

}  // namespace forktail
