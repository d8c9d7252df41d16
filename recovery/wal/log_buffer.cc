#include "recovery/wal/log_buffer.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace forktail::wal {
namespace {
constexpr size_t kMinCapacity = size_t{1} << 20;
constexpr size_t kPage = 4096;
}  // namespace

LogBuffer::~LogBuffer() {
  if (data_ != nullptr) ::munmap(data_, capacity_);
}

void LogBuffer::Reallocate(size_t capacity) {
  capacity = (capacity + kPage - 1) / kPage * kPage;
  void* p = ::mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    std::fprintf(stderr, "forktail: cannot map a WAL buffer of %zu bytes: %s\n", capacity,
                 std::strerror(errno));
    std::abort();
  }
  if (dont_fork_ && ::madvise(p, capacity, MADV_DONTFORK) != 0) {
    std::fprintf(stderr, "forktail: madvise(MADV_DONTFORK) on a WAL buffer failed: %s\n",
                 std::strerror(errno));
    std::abort();
  }
  if (size_ > 0) std::memcpy(p, data_, size_);
  if (data_ != nullptr) ::munmap(data_, capacity_);
  data_ = static_cast<char*>(p);
  capacity_ = capacity;
}

char* LogBuffer::Extend(size_t n) {
  if (size_ + n > capacity_) Reallocate(std::max({capacity_ * 2, size_ + n, kMinCapacity}));
  char* p = data_ + size_;
  size_ += n;
  return p;
}

void LogBuffer::ShrinkIfOversized(size_t keep_capacity) {
  if (size_ == 0 && capacity_ > std::max(keep_capacity, kMinCapacity) && data_ != nullptr) {
    ::munmap(data_, capacity_);
    data_ = nullptr;
    capacity_ = 0;
  }
}

void LogBuffer::Swap(LogBuffer& other) {
  std::swap(data_, other.data_);
  std::swap(size_, other.size_);
  std::swap(capacity_, other.capacity_);
  std::swap(dont_fork_, other.dont_fork_);
}

}  // namespace forktail::wal
