// Database's state behind the public header (include/forktail/database.h):
// the catalog, the log, the transaction engine and the checkpoint state. Only
// txn/database*.cc see it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>

#include "forktail/database.h"
#include "recovery/recovery.h"
#include "recovery/replay_driver.h"
#include "tiering/tiering.h"
#include "txn/txn_engine.h"

namespace forktail {

struct Database::Impl {
  Impl(std::string dir, const DatabaseOptions& options) : dir(std::move(dir)), options(options) {}

  const std::string dir;
  const DatabaseOptions options;
  Catalog catalog;
  std::unique_ptr<ckpt::ColdStore> cold_store;
  std::unique_ptr<wal::LogWriter> log;
  std::unique_ptr<TxnEngine> engine;
  redo::RecoveryReport report;
  std::unique_ptr<tier::SsdTier> ssd_tier;  // nullptr without one, or once it failed
  // A tier that failed after the buffer pool started using it: bypassed,
  // kept alive until close (a read may still be using it).
  std::unique_ptr<tier::SsdTier> failed_ssd_tier;
  TierReport tier_report;
  // Guarded by checkpoint_mu (read on the transaction thread while the
  // checkpointing caller holds it).
  std::unique_ptr<ckpt::Manifest> last_manifest;
  std::atomic<wal::Lsn> checkpoint_lsn{0};    // last_manifest's LSN, for any thread
  std::mutex checkpoint_mu;                   // one checkpoint at a time
  std::function<pid_t()> fork;                // set before use; read on the transaction thread
  wal::Lsn recovered_lsn = wal::kInvalidLsn;  // last LSN of the recovered log
  wal::TxnId next_txn_hint = 1;
  mutable std::shared_mutex procedures_mu;
  std::map<std::string, Database::RegisteredProcedure, std::less<>> procedures;
  bool closed = false;
  // Buffer pool (DatabaseOptions::memory_budget; txn/database_pool.cc).
  std::unique_ptr<tier::BufferPool> pool;
  std::unique_ptr<tier::BlockServer> block_server;  // serves the pool to snapshot processes
  std::string snapshot_slot_dir;     // the SSD tier's directory, which snapshot processes read
  std::string block_server_address;  // copied into every child
  std::unique_ptr<BlockImageReader> snapshot_reader;  // in a snapshot process
  std::thread pool_thread;
  std::mutex pool_mu;
  std::condition_variable pool_cv;
  bool pool_stop = false;    // guarded by pool_mu
  bool pool_wakeup = false;  // a transaction waits for room: run a round now (pool_mu)
  uint64_t pool_passes = 0;  // passes of the pool thread (pool_mu)
  std::atomic<uint64_t> forced_checkpoints{0};
  std::atomic<uint64_t> pool_waits{0};  // transactions that waited for room
};

}  // namespace forktail
