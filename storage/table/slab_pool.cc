#include "storage/table/slab_pool.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <new>

namespace forktail {
namespace {

constexpr size_t kMaxChunkBytes = 2 * 1024 * 1024;

}  // namespace

SlabPool::~SlabPool() {
  for (auto [p, n] : chunks_) munmap(p, n);
}

size_t SlabPool::ClassOf(size_t bytes) {
  if (bytes <= 256) return bytes == 0 ? 0 : (bytes - 1) / 16;
  // 2^k < bytes <= 2^(k+1), k in 8..13: eight classes of 2^(k-3) each.
  const size_t k = static_cast<size_t>(std::bit_width(bytes - 1)) - 1;
  return 16 + (k - 8) * 8 + (bytes - (size_t{1} << k) - 1) / (size_t{1} << (k - 3));
}

size_t SlabPool::ClassBytes(size_t c) {
  if (c < 16) return (c + 1) * 16;
  const size_t k = 8 + (c - 16) / 8;
  return (size_t{1} << k) + ((c - 16) % 8 + 1) * (size_t{1} << (k - 3));
}

void SlabPool::NewRun(size_t c) {
  if (cursor_ == limit_) {
    void* p = mmap(nullptr, next_chunk_bytes_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    chunks_.emplace_back(p, next_chunk_bytes_);
    cursor_ = static_cast<char*>(p);
    limit_ = cursor_ + next_chunk_bytes_;
    next_chunk_bytes_ = std::min(next_chunk_bytes_ * 2, kMaxChunkBytes);
  }
  // Chunks are whole runs, so a run never straddles two of them. Its slots
  // are handed out in order, so that its pages are touched only as they are
  // used: a class a small structure uses once costs one slot, not a run.
  runs_[c] = {cursor_, cursor_ + kRunBytes};
  cursor_ += kRunBytes;
}

void* SlabPool::Allocate(size_t bytes) {
  if (bytes > kLargest || kLargest == 0) {
    large_bytes_ += bytes;
    return ::operator new(bytes);
  }
  const size_t c = ClassOf(bytes);
  if (void* s = free_[c]) {
    free_[c] = *static_cast<void**>(s);
    return s;
  }
  const size_t slot = ClassBytes(c);
  if (static_cast<size_t>(runs_[c].second - runs_[c].first) < slot) NewRun(c);
  void* s = runs_[c].first;
  runs_[c].first += slot;
  carved_bytes_ += slot;
  return s;
}

void SlabPool::Deallocate(void* p, size_t bytes) noexcept {
  if (p == nullptr) return;
  if (bytes > kLargest || kLargest == 0) {
    large_bytes_ -= bytes;
    ::operator delete(p);
    return;
  }
  const size_t c = ClassOf(bytes);
  *static_cast<void**>(p) = free_[c];
  free_[c] = p;
}

}  // namespace forktail
