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
// Served over the wire (SqlFrontend, WireServer), the same procedure is
// `CALL deposit(7, 100)` for any client (olap/session/session_call.cc).
//
// Transactions run one at a time (txn/txn_engine.h): serializable, no locks
// on data. Execute blocks until the transaction committed
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
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

#include "forktail/procedure.h"
#include "forktail/transaction.h"

namespace forktail {

// The engine's internals stay behind this header (txn/database_impl.h);
// these are named here only by reference.
namespace wal {
class LogFileSystem;
struct LogWriterStats;
}  // namespace wal
namespace redo {
struct RecoveryReport;
}  // namespace redo
namespace tier {
class TieredImageSource;
}  // namespace tier

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

  // Where checkpoint images are written (docs/snapshots.md, "Checkpoints"):
  //  kSnapshotProcess: the transaction thread only forks between two
  //    transactions; the child (a snapshot process) writes the changed blocks'
  //    images as of that LSN into an SST file and exits; the calling thread
  //    ingests it into the cold store and commits the manifest. Transactions
  //    keep committing while the child writes.
  //  kInProcess: the transaction thread writes the SST file itself (pauses
  //    transactions for the write). The default in sanitizer builds only:
  //    GCC 12's ASan/TSan allocators are not fork-safe, so a child forked
  //    from a busy parent can hang (tests/common/sanitizer_fork.h).
  enum class CheckpointMode { kSnapshotProcess, kInProcess };
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  CheckpointMode checkpoint_mode = CheckpointMode::kInProcess;
#else
  CheckpointMode checkpoint_mode = CheckpointMode::kSnapshotProcess;
#endif
  // The SSD tier (DESIGN.md, Tiering): 0 = none, else the number of 2 MiB
  // slots, in ssd_tier_dir (empty = DATA_DIR/tier). A restart reads the
  // checkpoint's block images from the tier where it holds them and from the
  // cold store otherwise (copying those in); a checkpoint copies its new
  // images in. A tier that fails is bypassed and reported, never fatal.
  uint32_t ssd_tier_slots = 0;
  std::string ssd_tier_dir;
  // Where the cold store (RocksDB: checkpoint images, manifest) lives, when
  // not in DATA_DIR/cold - cheaper storage than the log's and the tier's.
  // Recorded as the symlink DATA_DIR/cold -> cold_dir, made on first open, so
  // that every later open and tool finds it; an open that names another
  // place than the link's fails (58030) rather than start an empty store.
  std::string cold_dir;
  // The memory budget of table blocks, in bytes (tiering/buffer_pool.h;
  // docs/tiering.md, "Buffer pool"): 0 = none, every block stays in memory.
  // Past it, blocks whose image a checkpoint made durable leave memory, the
  // least recently used first, and are read back (SSD tier, else the cold
  // store) when used; a transaction that needs one is rolled back, the
  // block is read with no lock held, and the transaction runs again. When
  // changed blocks alone exceed the budget, a checkpoint is taken early.
  uint64_t memory_budget = 0;
  // Frozen blocks compress their text columns (FSST) where that saves a
  // tenth or more; false keeps them uncompressed (a benchmark's baseline).
  bool compress_frozen_strings = true;
  // Tests only: called at each step of a checkpoint (crash and delay
  // injection). "child" runs in the checkpoint child before it writes (only in
  // kSnapshotProcess mode); "before_ingest", "after_ingest" (images ingested,
  // manifest not yet written) and "after_manifest" run on the thread that
  // called Checkpoint().
  std::function<void(std::string_view step)> checkpoint_test_hook;
};

struct CheckpointResult {
  uint64_t sequence = 0;
  wal::Lsn lsn = 0;
  uint64_t blocks_written = 0;
  uint64_t blocks_total = 0;
  uint64_t images_deleted = 0;
  int segments_removed = 0;
  double seconds = 0;
  // kSnapshotProcess: the checkpoint child's pid, how long the transaction
  // thread spent (collect + fork) and how long the child took to write.
  pid_t child_pid = 0;
  double txn_thread_seconds = 0;
  double write_seconds = 0;
  uint64_t bytes_written = 0;  // uncompressed image bytes
  // With an SSD tier: images copied into it, and the error that made the
  // copy stop (empty when none).
  uint64_t tier_admitted = 0;
  std::string tier_error;
};

// The buffer pool now (Database::pool_report()).
struct PoolReport {
  bool enabled = false;
  uint64_t budget_bytes = 0;
  int64_t resident_bytes = 0;
  uint64_t evicted = 0;          // blocks, since open
  uint64_t reads = 0;            // blocks read back
  uint64_t read_bytes = 0;       // their images' bytes
  uint64_t reads_from_tier = 0;  // of those, from the SSD tier
  uint64_t restarts = 0;         // transactions run again after a block load
  uint64_t inline_loads = 0;     // transactions that loaded under the lock at last
  uint64_t forced_checkpoints = 0;
  uint64_t room_waits = 0;  // transactions that waited for memory (back-pressure)
};

// How the SSD tier served the last open (Database::tier_report()).
struct TierReport {
  bool enabled = false;
  std::string dir;
  uint32_t slots = 0;
  uint32_t valid_at_open = 0;
  uint64_t blocks_from_tier = 0;
  uint64_t blocks_from_cold = 0;
  uint64_t dropped_stale = 0;
  bool direct_io = false;
  bool io_uring = false;
  std::string error;  // why the tier was bypassed (empty when it was not)
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

  // Registers (or replaces) a procedure; see procedure.h for the parameter
  // types. `result` names the columns of the rows it Emit()s, for SQL's
  // CALL (olap/session: `CALL name(arguments)` from any client runs it as
  // one statement); each emitted row must have that many values.
  template <typename F>
  void RegisterProcedure(const std::string& name, F fn, std::vector<ProcedureColumn> result = {}) {
    ProcedureSignature signature{ProcedureParameterTypes(fn), false, std::move(result),
                                 std::nullopt};
    RegisterErased(name, MakeProcedure(name, std::move(fn)), std::move(signature));
  }
  // A procedure taking its arguments as given (`signature` says what CALL
  // knows of it: by default any arguments, no result columns).
  void RegisterErased(const std::string& name, Procedure procedure,
                      ProcedureSignature signature = ProcedureSignature::AnyArguments());
  struct RegisteredProcedure {
    Procedure body;
    ProcedureSignature signature;
  };
  // The procedure of that name, or std::nullopt.
  std::optional<RegisteredProcedure> FindProcedure(std::string_view name) const;
  // The names of the registered procedures, in order.
  std::vector<std::string> ProcedureNames() const;

  // Runs a registered procedure; 42883 if there is none of that name.
  // Execute and Run run the body on the calling thread, under the engine's
  // execution lock (serial with every other transaction), and return once the
  // outcome may be reported; the Async forms queue it for the engine's
  // thread. Neither may be called from inside a transaction body.
  TxnResult Execute(std::string_view procedure, std::vector<Value> args);
  std::future<TxnResult> ExecuteAsync(std::string_view procedure, std::vector<Value> args);
  void ExecuteAsync(std::string_view procedure, std::vector<Value> args, TxnCallback done);

  // Runs an ad-hoc transaction body (tests, tools, DDL).
  TxnResult Run(TxnBody body);
  std::future<TxnResult> RunAsync(TxnBody body);

  // Takes a checkpoint as of a point between two transactions and returns
  // when it is durable; throws DbError on failure (the previous checkpoint
  // stays the newest complete one). With CheckpointMode::kSnapshotProcess the
  // transaction thread only collects the changed blocks' list and forks;
  // the write, the ingest and the manifest happen off it. One checkpoint at a
  // time (concurrent callers queue). Do not call from a transaction body.
  CheckpointResult Checkpoint();

  // How checkpoint children are forked. Default: fork(). The snapshot module
  // installs ForkExclusions::Fork (DatabaseForkPoint) so that the checkpoint
  // child, like a snapshot process, closes the descriptors registered there
  // (client sockets, other snapshots' channels). Called on the transaction
  // thread; must return like fork().
  void SetForkFunction(std::function<pid_t()> fork);

  // Freezes the blocks that have stopped changing into their compressed,
  // read-only form (storage/table/block.h, "Frozen blocks"): every table's
  // blocks but its tail that no write changed since the previous call
  // (kIdle: the server calls it every few seconds, so a block freezes after
  // one to two intervals without a change), or all of them (kAll: after a
  // bulk load; tests). The caller's thread encodes: the transaction thread
  // only copies a few blocks at a time between transactions and later puts
  // the frozen copies in place of those that no write changed meanwhile, so
  // transactions keep going. Returns the blocks frozen. Not logged: replay
  // and checkpoints take either form.
  enum class FreezeScope { kIdle, kAll };
  size_t FreezeBlocks(FreezeScope scope);

  // Snapshot fork point (snapshot/database_fork_point.h): runs `fn` on the
  // transaction thread between two transactions with the LSN of the last
  // committed transaction (wal::kInvalidLsn before the first commit since
  // Open). Asynchronous; `fn` may fork (see TxnEngine::RunBetweenTransactions
  // for why that is safe and what the child must not touch).
  void RunBetweenTransactions(std::function<void(wal::Lsn)> fn);
  // Any thread: the last commit's LSN and the number of transactions
  // committed since Open. After a reopen, until the first new commit, the LSN
  // is the recovered log's last position (every recovered commit is at or
  // before it, every new one after); kInvalidLsn only for an empty database.
  wal::Lsn last_commit_lsn() const;
  // Any thread: the log position the newest complete checkpoint covers
  // (replay starts there); 0 before the first checkpoint.
  wal::Lsn checkpoint_lsn() const;
  uint64_t committed_count() const;
  // Any thread: the transaction thread's busy and alive time (utilization).
  TxnThreadTime txn_thread_time() const;
  // The tables, for reading WITHOUT a transaction. Only safe where nothing can
  // mutate them concurrently: in a snapshot process (the child of a fork made
  // by RunBetweenTransactions, whose memory is frozen) or inside `fn` on the
  // transaction thread. Any other thread races with the transaction thread.
  const Catalog& frozen_catalog() const;
  // Any thread: an immutable copy of the schemas (no rows) as of the last
  // committed schema change, published before that commit is acknowledged
  // (TxnEngine::schemas). For binding statements without the transaction thread.
  std::shared_ptr<const Catalog> schemas() const;

  // What Open's recovery did (recovery/replay_driver.h).
  const redo::RecoveryReport& recovery_report() const;
  const TierReport& tier_report() const;
  PoolReport pool_report() const;
  // Runs one eviction round of the buffer pool now, between two
  // transactions (its thread runs them every 100 ms anyway); nothing
  // without a budget.
  void TrimToBudget();

  // Snapshot processes of a database with a memory budget (tiering/
  // block_server.h). PinForSnapshot: on the transaction thread right before
  // a fork; the images of the blocks not in memory stay readable until the
  // token is released (nullptr without a budget). BeginSnapshotProcess: in
  // the forked child, before it reads a table: blocks that were not in
  // memory are read through a connection of its own to this process's
  // block server.
  std::shared_ptr<const void> PinForSnapshot();
  void BeginSnapshotProcess();
  const std::string& dir() const;
  // Ok, or the write-ahead log's sticky error.
  Status health() const;
  // Lock-free: the write-ahead log has failed (health() is an error). Memory
  // may then hold commits that are not durable; the SQL layer refuses every
  // read and write until a restart recovers from the log.
  bool log_failed() const;
  // Blocks until the log is durable through `lsn` (at once when it is, or in
  // asynchronous mode); the log's error if it failed first.
  Status WaitDurable(wal::Lsn lsn);
  // The write-ahead log's counters (recovery/wal/log_writer.h).
  wal::LogWriterStats log_stats() const;

  // Stops the transaction thread after what is queued and closes the log.
  void Close();

 private:
  struct Impl;  // txn/database_impl.h
  struct PendingCheckpoint;
  Database(std::string dir, const DatabaseOptions& options);
  void OpenAndRecover();
  // Opens the SSD tier when the options ask for one; the source recovery
  // reads images through (nullptr without a tier).
  std::unique_ptr<tier::TieredImageSource> OpenTier();
  // DatabaseOptions::cold_dir: links DATA_DIR/cold there (or checks the link).
  void PlaceColdStore();
  // DatabaseOptions::memory_budget: the pool, before recovery loads blocks;
  // its maintenance thread, once the engine runs (txn/database_pool.cc).
  void OpenPool();
  void StartPoolThread();
  void PoolLoop();
  // Back-pressure (txn/database_pool.cc): a transaction about to read a
  // block back waits while memory is well past the budget.
  bool PoolHasRoom() const;
  void WaitForPoolRoom();
  // Identity and SERIAL columns of tables made before sequences existed
  // (a per-table counter, Table::identity_value) get their sequences, in
  // one logged transaction (txn/database_migrate.cc).
  void MigrateIdentityColumns();
  void CollectAndFork(PendingCheckpoint* pending);
  void FinishCheckpoint(PendingCheckpoint* pending, CheckpointResult* result);
  std::string StagingDir() const;

  std::unique_ptr<Impl> impl_;
};

// A shared library of procedures, for `forktail serve --procedures FILE`
// (what PostgreSQL's shared_preload_libraries is to C functions):
//
//   #include "forktail/database.h"
//   FORKTAIL_PROCEDURE_LIBRARY(db) {
//     db.RegisterProcedure("deposit", [](forktail::Transaction& txn, int64_t id,
//                                        int64_t amount) { ... });
//   }
//
// Build it as a module (CMake: add_library(NAME MODULE ...)) against these
// headers with the compiler the server was built with, and do not link
// Forktail's libraries into it: its calls into the engine resolve against the
// server's own symbols when serve loads it. serve calls the function once per
// start, after opening the database and before accepting connections:
// procedures are code, not data, so they are loaded again at every start and
// not stored in the database. The library also exports the ABI string it was
// built with; serve refuses one that differs from its own (other headers,
// another compiler) instead of calling into it.
inline constexpr const char* kProcedureLibraryAbi = "forktail-procedures/1 " __VERSION__;
#define FORKTAIL_PROCEDURE_LIBRARY(db)                      \
  extern "C" const char* forktail_procedure_library_abi() { \
    return ::forktail::kProcedureLibraryAbi;                \
  }                                                         \
  extern "C" void forktail_register_procedures(::forktail::Database& db)

}  // namespace forktail
