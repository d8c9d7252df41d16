#include "snapshot/huge_page_keeper.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <future>

#include "forktail/database.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

namespace forktail {
namespace {

constexpr uintptr_t kBlockBytes = uintptr_t{2} << 20;

}  // namespace

uint64_t AnonHugePageBytes() {
  FILE* f = std::fopen("/proc/self/smaps_rollup", "r");
  if (f == nullptr) return 0;
  char line[256];
  uint64_t kib = 0;
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    if (std::strncmp(line, "AnonHugePages:", 14) == 0) {
      kib = std::strtoull(line + 14, nullptr, 10);
      break;
    }
  }
  std::fclose(f);
  return kib * 1024;
}

std::vector<void*> ListDatabaseBlocks(Database* db) {
  std::promise<std::vector<void*>> done;
  std::future<std::vector<void*>> result = done.get_future();
  db->RunBetweenTransactions([db, &done](wal::Lsn) {
    std::vector<void*> blocks;
    const Catalog& catalog = db->frozen_catalog();  // safe here: between transactions
    for (TableId id : catalog.ListTables()) {
      const Table& t = catalog.GetTable(id);
      for (size_t b = 0; b < t.block_count(); b++) {
        BlockRef ref = t.directory().TryPin(BlockNo(static_cast<uint32_t>(b)));
        if (!ref || ref->frozen()) continue;  // not in memory, or malloc'ed: not a huge page
        // Blocks are 2 MiB and 2 MiB aligned (storage/table/block.h): any address
        // inside one, rounded down, is its start.
        auto inside = reinterpret_cast<uintptr_t>(ref->View().delete_bitmap());
        blocks.push_back(reinterpret_cast<void*>(inside & ~(kBlockBytes - 1)));
      }
    }
    done.set_value(std::move(blocks));
  });
  return result.get();
}

HugePageKeeper::HugePageKeeper(std::function<std::vector<void*>()> list_blocks,
                               HugePageKeeperOptions options)
    : list_blocks_(std::move(list_blocks)), options_(options) {
  thread_ = std::thread([this] { Loop(); });
}

HugePageKeeper::~HugePageKeeper() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

HugePageKeeperStats HugePageKeeper::stats() {
  std::lock_guard<std::mutex> l(mu_);
  return stats_;
}

void HugePageKeeper::Loop() {
  if (options_.low_priority) {
    // Nice 19 for this thread only (Linux priorities are per task).
    setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 19);
  }
  std::unique_lock<std::mutex> l(mu_);
  while (!stopping_ && supported_.load()) {
    cv_.wait_for(l, std::chrono::milliseconds(options_.interval_ms));
    if (stopping_) break;
    l.unlock();
    CheckNow();
    l.lock();
  }
}

void HugePageKeeper::CheckNow() {
  std::lock_guard<std::mutex> sweep(sweep_mu_);
  std::vector<void*> blocks = list_blocks_();
  if (blocks.empty()) return;
  const double block_bytes = static_cast<double>(blocks.size() * kBlockBytes);
  // Other huge pages of the process (if any) only make this optimistic.
  const double fraction = static_cast<double>(AnonHugePageBytes()) / block_bytes;
  {
    std::lock_guard<std::mutex> l(mu_);
    stats_.last_huge_fraction = fraction;
  }
  if (fraction >= options_.min_huge_fraction) return;
  auto t0 = std::chrono::steady_clock::now();
  uint64_t failures = 0;
  for (void* block : blocks) {
    if (madvise(block, kBlockBytes, MADV_COLLAPSE) != 0) {
      if (errno == EINVAL) {  // kernel without MADV_COLLAPSE
        supported_ = false;
        break;
      }
      failures++;
    }
  }
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::lock_guard<std::mutex> l(mu_);
  stats_.sweeps++;
  stats_.blocks_checked += blocks.size();
  stats_.collapse_failures += failures;
  stats_.collapse_ms += ms;
}

}  // namespace forktail
