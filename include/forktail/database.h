// Database: Forktail's embedded C++ API.
//
//   auto db = Database::Open("/var/lib/app", {});     // recovers if needed
//   db->Run([](Transaction& txn) {
//     txn.CreateTable({"account", {{"id", Type::BigInt()}, {"balance", Type::BigInt()}},
//                      {ColumnId(0)}});
//   }).ThrowIfError();
//   db->RegisterProcedure("deposit", [](Transaction& txn, int64_t id, int64_t amount) {
//     auto row = txn.Get("account", {Value::BigInt(id)});
//     if (!row) txn.Abort("no such account");
//     txn.UpdateByKey("account", {Value::BigInt(id)},
//                     {{"balance", Value::BigInt((*row)[1].GetInt() + amount)}});
//   });
//   TxnResult r = db->Execute("deposit", {Value::BigInt(7), Value::BigInt(100)});
//
// Every transaction runs on the one transaction thread (txn/txn_engine.h):
// serializable, no locks. Execute blocks until the transaction committed
// durably (synchronous commit) or failed; ExecuteAsync returns a future or
// calls back. Errors come back in TxnResult (SQLSTATE + message); the
// database's own failures (cannot open, log failure) throw DbError.
//
// Files in the data directory: wal/ (the write-ahead log, recovery/) and
// cold/ (the cold store with checkpoints, recovery/cold_store.h).
//
// Thread-safe: any thread may call any method, except that Close() and the
// destructor must not race with other calls.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "forktail/procedure.h"
#include "forktail/transaction.h"
#include "recovery/replay_driver.h"
#include "txn/txn_engine.h"

namespace forktail {

namespace wal {
class LogFileSystem;
}

struct DatabaseOptions {
  // true (default): a commit is acknowledged after its log record is durable.
  // false: acknowledged when appended; the log is synced at least every
  // async_flush_interval (or async_max_unsynced_bytes), so a power failure
  // loses at most that window of acknowledged commits. kill -9 of the
  // process alone loses only what the writer thread had not yet written.
  bool synchronous_commit = true;
  std::chrono::microseconds async_flush_interval = std::chrono::milliseconds(10);
  uint64_t async_max_unsynced_bytes = uint64_t{1} << 20;
  // Size of a WAL segment file. Default 64 MiB.
  uint64_t wal_segment_size = uint64_t{64} << 20;
  // The WAL's file-I/O seam; nullptr = POSIX. Tests inject faults here.
  wal::LogFileSystem* wal_file_system = nullptr;
};

struct CheckpointResult {
  uint64_t sequence = 0;
  wal::Lsn lsn = 0;
  uint64_t blocks_written = 0;
  uint64_t blocks_total = 0;
  uint64_t images_deleted = 0;
  int segments_removed = 0;
  double seconds = 0;
};

class Database {
 public:
  // Opens (creating if missing) and recovers: newest checkpoint + log replay,
  // torn tail cut. Throws DbError: 58030 I/O errors, XX001 corruption (the
  // message names the segment file and the offset).
  static std::unique_ptr<Database> Open(const std::string& dir,
                                        const DatabaseOptions& options = {});
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Registers (or replaces) a procedure; see procedure.h for the parameter types.
  template <typename F>
  void RegisterProcedure(const std::string& name, F fn) {
    RegisterErased(name, MakeProcedure(name, std::move(fn)));
  }
  void RegisterErased(const std::string& name, Procedure procedure);

  // Runs a registered procedure; 42883 if there is none of that name.
  TxnResult Execute(std::string_view procedure, std::vector<Value> args);
  std::future<TxnResult> ExecuteAsync(std::string_view procedure, std::vector<Value> args);
  void ExecuteAsync(std::string_view procedure, std::vector<Value> args, TxnCallback done);

  // Runs an ad-hoc transaction body (tests, tools, DDL).
  TxnResult Run(TxnBody body);
  std::future<TxnResult> RunAsync(TxnBody body);

  // Takes a checkpoint between two transactions; throws DbError on failure
  // (the previous checkpoint stays the newest complete one).
  CheckpointResult Checkpoint();

  // Snapshot fork point (snapshot/database_fork_point.h): runs `fn` on the
  // transaction thread between two transactions with the LSN of the last
  // committed transaction (wal::kInvalidLsn before the first commit since
  // Open). Asynchronous; `fn` may fork (see TxnEngine::RunBetweenTransactions
  // for why that is safe and what the child must not touch).
  void RunBetweenTransactions(std::function<void(wal::Lsn)> fn);
  // Any thread: the last commit's LSN (kInvalidLsn before the first one) and
  // the number of transactions committed since Open.
  wal::Lsn last_commit_lsn() const;
  uint64_t committed_count() const;
  // The tables, for reading WITHOUT a transaction. Only safe where nothing can
  // mutate them concurrently: in a snapshot process (the child of a fork made
  // by RunBetweenTransactions, whose memory is frozen) or inside `fn` on the
  // transaction thread. Any other thread races with the transaction thread.
  const Catalog& frozen_catalog() const { return catalog_; }

  // What Open's recovery did.
  const redo::RecoveryReport& recovery_report() const { return report_; }
  const std::string& dir() const { return dir_; }
  // Ok, or the write-ahead log's sticky error.
  Status health() const;
  wal::LogWriterStats log_stats() const;

  // Stops the transaction thread after what is queued and closes the log.
  void Close();

 private:
  Database(std::string dir, const DatabaseOptions& options);
  void OpenAndRecover();
  Procedure Lookup(std::string_view name) const;
  CheckpointResult CheckpointOnTxnThread();

  const std::string dir_;
  const DatabaseOptions options_;
  Catalog catalog_;
  std::unique_ptr<ckpt::ColdStore> cold_store_;
  std::unique_ptr<wal::LogWriter> log_;
  std::unique_ptr<TxnEngine> engine_;
  redo::RecoveryReport report_;
  std::unique_ptr<ckpt::Manifest> last_manifest_;  // transaction thread only
  wal::TxnId next_txn_hint_ = 1;
  mutable std::shared_mutex procedures_mu_;
  std::map<std::string, Procedure, std::less<>> procedures_;
  bool closed_ = false;
};

}  // namespace forktail
