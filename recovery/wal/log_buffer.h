// The in-memory byte buffer that submitters encode records into and the log
// writer hands to write(2). Memory comes from anonymous mmap so that it can be
// marked MADV_DONTFORK: a fork()-based snapshot (DESIGN.md, "Fork safety
// rules") then neither copies these pages nor maps them in the child, which
// must never touch the parent's log anyway. With dont_fork the child sees the
// range as unmapped; do not read a LogBuffer after fork() in the child.
//
// Not thread-safe: the LogWriter guards it with its mutex (submitters) or owns
// it exclusively (the writer thread, after swapping it out).
#pragma once

#include <cstddef>

namespace forktail::wal {

class LogBuffer {
 public:
  explicit LogBuffer(bool dont_fork) : dont_fork_(dont_fork) {}
  ~LogBuffer();
  LogBuffer(const LogBuffer&) = delete;
  LogBuffer& operator=(const LogBuffer&) = delete;

  // Appends n uninitialized bytes and returns where they start. Grows the
  // mapping (doubling) as needed; aborts if the kernel refuses memory.
  char* Extend(size_t n);
  void Clear() { size_ = 0; }
  // Releases the mapping if it grew far beyond what recent batches needed.
  void ShrinkIfOversized(size_t keep_capacity);
  void Swap(LogBuffer& other);

  const char* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  bool dont_fork() const { return dont_fork_; }

 private:
  void Reallocate(size_t capacity);

  char* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
  bool dont_fork_;
};

}  // namespace forktail::wal
