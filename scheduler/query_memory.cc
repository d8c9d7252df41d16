#include "scheduler/query_memory.h"

#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>

#include "storage/error.h"

namespace forktail {

QueryMemory::QueryMemory(size_t limit, MemoryGovernor* governor)
    : limit_(limit), governor_(governor) {}

QueryMemory::~QueryMemory() {
  ReleaseAll();
  ReturnReservation();  // charges made after ReleaseAll reserved again
}

void QueryMemory::ReserveUpTo(size_t used, size_t asked, const char* what) {
  if (governor_ == nullptr || used <= reserved_.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(reserve_mutex_);
  const size_t reserved = reserved_.load(std::memory_order_relaxed);
  if (used <= reserved) return;
  const size_t granule = MemoryGovernor::kGranule;
  const size_t more = (used - reserved + granule - 1) / granule * granule;
  if (!governor_->TryReserve(more)) {
    std::string message = "out of memory: the server's queries may use " +
                          std::to_string(governor_->budget() >> 20) +
                          " MiB in all (query_memory) and this query holds " +
                          std::to_string(reserved >> 20) + " MiB";
    if (what != nullptr) {
      message += " (" + std::string(what) + " needs " + std::to_string(asked) + " bytes more)";
    }
    throw DbError(sqlstate::kOutOfMemory, message)
        .WithHint(
            "Other queries hold the rest, or this one needs more than the server's "
            "budget: forktail serve --query-memory sets it.");
  }
  reserved_.store(reserved + more, std::memory_order_release);
}

void QueryMemory::ReturnReservation() noexcept {
  if (governor_ == nullptr) return;
  std::lock_guard<std::mutex> lock(reserve_mutex_);
  const size_t reserved = reserved_.exchange(0, std::memory_order_relaxed);
  if (reserved > 0) governor_->Release(reserved);
}

void* QueryMemory::Allocate(size_t bytes, size_t alignment) {
  const size_t raw_alignment = alignment < 16 ? 16 : alignment;
  if ((raw_alignment & (raw_alignment - 1)) != 0 || raw_alignment > 4096) {
    std::fprintf(stderr, "QueryMemory: unsupported alignment %zu\n", alignment);
    std::abort();
  }
  const size_t offset = (kHeaderSize + raw_alignment - 1) / raw_alignment * raw_alignment;
  const size_t limit = limit_.load(std::memory_order_relaxed);
  const size_t before = used_.fetch_add(bytes, std::memory_order_relaxed);
  if (before + bytes > limit || before + bytes < before) {
    used_.fetch_sub(bytes, std::memory_order_relaxed);
    throw DbError(sqlstate::kOutOfMemory,
                  "query exceeded its memory budget of " + std::to_string(limit) + " bytes");
  }
  try {
    ReserveUpTo(before + bytes, bytes, nullptr);
  } catch (...) {
    used_.fetch_sub(bytes, std::memory_order_relaxed);
    throw;
  }
  size_t peak = peak_.load(std::memory_order_relaxed);
  while (before + bytes > peak &&
         !peak_.compare_exchange_weak(peak, before + bytes, std::memory_order_relaxed)) {
  }
  char* raw;
  try {
    raw = static_cast<char*>(::operator new(offset + bytes, std::align_val_t(raw_alignment)));
  } catch (...) {
    used_.fetch_sub(bytes, std::memory_order_relaxed);
    throw;
  }
  auto* header = reinterpret_cast<Header*>(raw + offset - kHeaderSize);
  header->size = bytes;
  header->offset = static_cast<uint32_t>(offset);
  header->alignment = static_cast<uint32_t>(raw_alignment);
  std::lock_guard<std::mutex> lock(mutex_);
  if (released_) {
    std::fprintf(stderr, "QueryMemory: allocation after the query's memory was released\n");
    std::abort();
  }
  header->prev = nullptr;
  header->next = head_;
  if (head_ != nullptr) head_->prev = header;
  head_ = header;
  return raw + offset;
}

void QueryMemory::Charge(size_t bytes, const char* what) {
  const size_t limit = limit_.load(std::memory_order_relaxed);
  const size_t before = used_.fetch_add(bytes, std::memory_order_relaxed);
  if (before + bytes > limit || before + bytes < before) {
    used_.fetch_sub(bytes, std::memory_order_relaxed);
    std::string message = "query exceeded its memory budget of " + std::to_string(limit) + " bytes";
    if (what != nullptr) {
      message += " (" + std::string(what) + " needs " + std::to_string(bytes) + " more)";
    }
    throw DbError(sqlstate::kOutOfMemory, message);
  }
  try {
    ReserveUpTo(before + bytes, bytes, what);
  } catch (...) {
    used_.fetch_sub(bytes, std::memory_order_relaxed);
    throw;
  }
  size_t peak = peak_.load(std::memory_order_relaxed);
  while (before + bytes > peak &&
         !peak_.compare_exchange_weak(peak, before + bytes, std::memory_order_relaxed)) {
  }
}

void QueryMemory::Deallocate(void* pointer) noexcept {
  if (pointer == nullptr) return;
  auto* header = reinterpret_cast<Header*>(static_cast<char*>(pointer) - kHeaderSize);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (released_) return;
    if (header->prev != nullptr) header->prev->next = header->next;
    if (header->next != nullptr) header->next->prev = header->prev;
    if (head_ == header) head_ = header->next;
  }
  used_.fetch_sub(header->size, std::memory_order_relaxed);
  FreeRaw(header);
}

void QueryMemory::ReleaseAll() noexcept {
  Header* list;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    released_ = true;
    list = head_;
    head_ = nullptr;
  }
  while (list != nullptr) {
    Header* next = list->next;
    used_.fetch_sub(list->size, std::memory_order_relaxed);
    FreeRaw(list);
    list = next;
  }
  ReturnReservation();
}

void QueryMemory::FreeRaw(Header* header) noexcept {
  char* raw = reinterpret_cast<char*>(header) + kHeaderSize - header->offset;
  ::operator delete(raw, std::align_val_t(header->alignment));
}

MemoryCharge::~MemoryCharge() {
  if (memory_ != nullptr && charged_ > 0) memory_->Uncharge(charged_);
}

void MemoryCharge::Bind(const std::shared_ptr<QueryMemory>& memory) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (memory_ != nullptr) return;
  memory_ = memory;
  SetLocked(wanted_);
}

void MemoryCharge::Set(size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  SetLocked(bytes);
}

void MemoryCharge::Add(int64_t delta) {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t now = memory_ != nullptr ? charged_ : wanted_;
  SetLocked(delta < 0 && static_cast<size_t>(-delta) > now ? 0 : now + delta);
}

size_t MemoryCharge::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return memory_ != nullptr ? charged_ : wanted_;
}

void MemoryCharge::SetLocked(size_t bytes) {
  wanted_ = bytes;
  if (memory_ == nullptr) return;
  if (bytes > charged_) {
    memory_->Charge(bytes - charged_, what_);
  } else {
    memory_->Uncharge(charged_ - bytes);
  }
  charged_ = bytes;
}

}  // namespace forktail
