// A fake transaction engine for the snapshot tests: one thread that executes
// "transactions" one at a time over a table of 2 MiB huge-page-aligned blocks
// (mmap + MADV_HUGEPAGE) and serves ForkPoint requests between them.
//
// The LSN of the N-th committed transaction is N (a real engine's LSNs are
// byte positions; the tests only need monotonic values). A workload set with
// SetWorkload runs whenever no fork request is pending, so snapshots land
// between arbitrary transactions of a busy thread.
#pragma once

#include <sys/mman.h>

#include <atomic>
#include <cassert>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <new>
#include <thread>
#include <utility>
#include <vector>

#include "snapshot/snapshot.h"

namespace forktail::testing {

inline constexpr size_t kBlockBytes = 2u << 20;
inline constexpr size_t kSlotsPerBlock = kBlockBytes / sizeof(int64_t);

// int64 slots in 2 MiB blocks; slot i lives in block i / kSlotsPerBlock.
class FakeTable {
 public:
  FakeTable(size_t blocks, bool huge_pages) {
    for (size_t b = 0; b < blocks; ++b) {
      // Over-allocate by one block and trim, to align to the huge-page size.
      void* raw = mmap(nullptr, 2 * kBlockBytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (raw == MAP_FAILED) throw std::bad_alloc();
      const auto addr = reinterpret_cast<uintptr_t>(raw);
      const uintptr_t aligned = (addr + kBlockBytes - 1) & ~(kBlockBytes - 1);
      if (aligned > addr) munmap(raw, aligned - addr);
      const uintptr_t end = addr + 2 * kBlockBytes;
      if (end > aligned + kBlockBytes) {
        munmap(reinterpret_cast<void*>(aligned + kBlockBytes), end - aligned - kBlockBytes);
      }
      auto* block = reinterpret_cast<int64_t*>(aligned);
      if (huge_pages) madvise(block, kBlockBytes, MADV_HUGEPAGE);
      for (size_t i = 0; i < kSlotsPerBlock; i += 512) block[i] = 0;  // fault it in
      blocks_.push_back(block);
    }
  }
  ~FakeTable() {
    for (int64_t* b : blocks_) munmap(b, kBlockBytes);
  }
  FakeTable(const FakeTable&) = delete;
  FakeTable& operator=(const FakeTable&) = delete;

  int64_t& at(size_t slot) { return blocks_[slot / kSlotsPerBlock][slot % kSlotsPerBlock]; }
  size_t capacity() const { return blocks_.size() * kSlotsPerBlock; }
  size_t blocks() const { return blocks_.size(); }
  int64_t* block(size_t b) { return blocks_[b]; }

  size_t rows = 0;  // the table-like counter: inserted rows

 private:
  std::vector<int64_t*> blocks_;
};

class FakeTxnEngine : public ForkPoint {
 public:
  using Txn = std::function<void(FakeTable&)>;

  explicit FakeTxnEngine(size_t blocks, bool huge_pages = true) : table_(blocks, huge_pages) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~FakeTxnEngine() override {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
      cv_.notify_all();
    }
    thread_.join();
  }

  void RunBetweenTransactions(std::function<void(Lsn)> fn) override {
    std::lock_guard lock(mu_);
    forks_.push_back(std::move(fn));
    cv_.notify_all();
  }

  CommitProgress Committed() const override {
    const uint64_t c = commits_.load(std::memory_order_acquire);
    return {c, c};
  }

  // The transaction the thread repeats while no fork is pending (empty: idle).
  void SetWorkload(Txn txn) {
    std::lock_guard lock(mu_);
    workload_ = std::move(txn);
    cv_.notify_all();
  }

  // Runs one transaction on the transaction thread and waits for its commit.
  void Execute(Txn txn) {
    std::promise<void> done;
    {
      std::lock_guard lock(mu_);
      submitted_.push_back({std::move(txn), [&] { done.set_value(); }});
      cv_.notify_all();
    }
    done.get_future().wait();
  }

  // Only for setup/inspection while the thread is idle.
  FakeTable& table() { return table_; }

 private:
  void Loop() {
    std::unique_lock lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || !forks_.empty() || !submitted_.empty() || workload_; });
      if (!forks_.empty()) {
        auto fn = std::move(forks_.front());
        forks_.pop_front();
        lock.unlock();
        fn(commits_.load(std::memory_order_relaxed));  // between two transactions
        lock.lock();
        continue;
      }
      if (stop_) return;
      Txn txn;
      std::function<void()> on_commit;
      if (!submitted_.empty()) {
        txn = std::move(submitted_.front().first);
        on_commit = std::move(submitted_.front().second);
        submitted_.pop_front();
      } else {
        txn = workload_;
      }
      lock.unlock();
      txn(table_);
      commits_.fetch_add(1, std::memory_order_release);  // the commit
      if (on_commit) on_commit();                        // acknowledged after the commit
      lock.lock();
    }
  }

  FakeTable table_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void(Lsn)>> forks_;
  std::deque<std::pair<Txn, std::function<void()>>> submitted_;
  Txn workload_;
  bool stop_ = false;
  std::atomic<uint64_t> commits_{0};
  std::thread thread_;
};

}  // namespace forktail::testing
