#include "storage/table/frozen_arena.h"

#include <sys/mman.h>

#include <cassert>
#include <new>

namespace forktail {
namespace {

size_t RoundUp(size_t v, size_t to) { return (v + to - 1) / to * to; }
size_t RoundDown(size_t v, size_t to) { return v / to * to; }

}  // namespace

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FORKTAIL_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FORKTAIL_SANITIZED 1
#endif

FrozenArena& FrozenArena::Global() {
  // Never destroyed: blocks freed during static destruction still find it.
  // Under ASan and TSan the images come from operator new, so that the
  // sanitizers still see every read past an image.
#ifdef FORKTAIL_SANITIZED
  static FrozenArena* arena = new FrozenArena(0);
#else
  static FrozenArena* arena = new FrozenArena(kReserveBytes);
#endif
  return *arena;
}

FrozenArena::FrozenArena(size_t reserve_bytes) {
  if (reserve_bytes == 0) return;
  // One huge page more than asked, so that the start can be aligned.
  const size_t span = reserve_bytes + kHugePage;
  void* p = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) return;  // an address-space limit: operator new serves
  const auto raw = reinterpret_cast<uintptr_t>(p);
  const uintptr_t aligned = RoundUp(raw, kHugePage);
  if (aligned > raw) munmap(p, aligned - raw);
  const uintptr_t end = raw + span;
  if (end > aligned + reserve_bytes) {
    munmap(reinterpret_cast<void*>(aligned + reserve_bytes), end - aligned - reserve_bytes);
  }
  base_ = reinterpret_cast<uint8_t*>(aligned);
  capacity_ = reserve_bytes;
  madvise(base_, capacity_, MADV_HUGEPAGE);  // best effort: THP may be off
}

FrozenArena::~FrozenArena() {
  if (base_ != nullptr) munmap(base_, capacity_);
}

uint64_t* FrozenArena::Allocate(size_t bytes) {
  assert(bytes > 0 && bytes % 8 == 0);
  if (base_ != nullptr) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = holes_.begin(); it != holes_.end(); ++it) {
      if (it->second < bytes) continue;
      const size_t at = it->first;
      const size_t left = it->second - bytes;
      holes_.erase(it);
      if (left > 0) holes_.emplace(at + bytes, left);
      used_ += bytes;
      return reinterpret_cast<uint64_t*>(base_ + at);
    }
    if (capacity_ - top_ >= bytes) {
      const size_t at = top_;
      top_ += bytes;
      used_ += bytes;
      return reinterpret_cast<uint64_t*>(base_ + at);
    }
  }
  return static_cast<uint64_t*>(::operator new(bytes));  // aligned for any scalar
}

void FrozenArena::Free(uint64_t* p, size_t bytes) {
  if (!Owns(p)) {
    ::operator delete(p);
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  size_t at = reinterpret_cast<uint8_t*>(p) - base_;
  size_t size = bytes;
  used_ -= bytes;
  // Merge with the hole after it and the one before it.
  if (auto next = holes_.find(at + size); next != holes_.end()) {
    size += next->second;
    holes_.erase(next);
  }
  if (auto next = holes_.lower_bound(at); next != holes_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == at) {
      at = prev->first;
      size += prev->second;
      holes_.erase(prev);
    }
  }
  // The huge pages the hole covers whole go back to the kernel.
  const size_t from = RoundUp(at, kHugePage);
  const size_t to = RoundDown(at + size, kHugePage);
  if (to > from) madvise(base_ + from, to - from, MADV_DONTNEED);
  if (at + size == top_) {
    top_ = at;  // the top comes down; what lay above `to` stays resident until reused
  } else {
    holes_.emplace(at, size);
  }
}

bool FrozenArena::Owns(const void* p) const {
  const auto* b = static_cast<const uint8_t*>(p);
  return base_ != nullptr && b >= base_ && b < base_ + capacity_;
}

size_t FrozenArena::used_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return used_;
}

size_t FrozenArena::top_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return top_;
}

size_t FrozenArena::hole_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return holes_.size();
}

}  // namespace forktail
