// SqlFrontend: the SQL front end of one Database — what every SqlSession of that
// database shares.
//
// Where a statement runs (DESIGN.md, process model):
//   - writes and DDL (INSERT/UPDATE/DELETE/COPY, CREATE/DROP/TRUNCATE) run on
//     the transaction thread through Database::Run, so they are serializable
//     and roll back as a whole on any error;
//   - a SELECT (VALUES, EXPLAIN) runs where ReadRouting says:
//       kSnapshot  (default) in a fork()ed snapshot process holding every
//                  commit acknowledged before the SELECT arrived (except the
//                  point and table-free SELECTs a session runs on the
//                  transaction thread, sql_session.h). The engine's
//                  SnapshotHandler runs there: it parses the request's SQL,
//                  binds it against Database::frozen_catalog(), optimizes,
//                  plans and executes it on a Scheduler the child creates
//                  after the fork (once per child), and streams the rows back
//                  as batches (row_codec.h) that the parent decodes.
//       kInProcess on the transaction thread's consistent state: inside a
//                  Database::Run body nothing mutates the tables, so the query
//                  reads them directly, executing on the parent's Scheduler.
//                  Used under sanitizers (their allocators are not fork-safe,
//                  tests/common/sanitizer_fork.h) and always for reads inside
//                  a transaction block (they must see the block's own writes).
//
// Lifetime: the engine either owns its Database (Open) or borrows one; it must
// be destroyed before a borrowed Database, and after every SqlSession using it.
// Thread-safe: sessions on many threads share one engine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "forktail/database.h"
#include "olap/session/block/row_locks.h"
#include "olap/session/notification_hub.h"
#include "olap/session/statement_timer.h"
#include "scheduler/scheduler.h"
#include "snapshot/snapshot.h"

namespace forktail {

enum class ReadRouting : uint8_t { kSnapshot, kInProcess };

struct SqlFrontendOptions {
  // Where SELECTs outside transaction blocks run (see above).
  ReadRouting routing = ReadRouting::kSnapshot;
  // The implicit block of a multi-statement query string (TxnBlock) holds
  // the transaction thread between its statements for at most this long;
  // past it the block is rolled back (25P03). Its statements arrive together,
  // so only a stall of the session's own thread can hit it. BEGIN ... COMMIT
  // blocks are optimistic (optimistic_block.h) and never hold the thread.
  uint32_t idle_in_transaction_hold_ms = 200;
  // Worker threads of the parent's Scheduler (in-process queries).
  size_t workers = 2;
  // Worker threads of the Scheduler each snapshot process creates.
  size_t child_workers = 2;
  // Degree of parallelism the planner is asked for.
  int parallelism = 2;
  // Rows per transaction of COPY ... FROM (0: the whole input in one
  // transaction, all-or-nothing; the default).
  size_t copy_batch_rows = 0;
  // Which server files COPY ... FROM 'file' may read. An embedded engine is
  // the application's own process (kAnywhere); `forktail serve` refuses
  // files unless started with --copy-from-dir DIR, and then reads only files
  // under DIR (relative names are under it too), as PostgreSQL lets only
  // superusers and pg_read_server_files read server files. Clients' own
  // files go through COPY FROM STDIN (psql's \copy).
  enum class ServerFiles : uint8_t { kAnywhere, kUnderDir, kNever };
  ServerFiles copy_from_files = ServerFiles::kAnywhere;
  std::string copy_from_dir;  // kUnderDir
  // Which server files COPY ... TO 'file' may write, the same way (`forktail
  // serve --copy-to-dir DIR`, as PostgreSQL's pg_write_server_files): under
  // kUnderDir nothing outside DIR is ever created or overwritten, whatever
  // the name says ('..', symbolic links); kAnywhere takes absolute paths
  // only, as PostgreSQL does. Clients write their own files through COPY TO
  // STDOUT (psql's \copy ... to).
  ServerFiles copy_to_files = ServerFiles::kAnywhere;
  std::string copy_to_dir;  // kUnderDir
  // Rows per result batch sent from a snapshot process (row_codec.h).
  size_t result_batch_rows = 1024;
  // Snapshot policy (refresh, caps, lifetime). `handler` is ignored: the engine
  // installs its own.
  SnapshotOptions snapshot;
};

class SqlFrontend {
 public:
  // Borrows `db` (it must outlive the engine).
  SqlFrontend(Database* db, SqlFrontendOptions options = {});
  // Opens (recovering) the database in `dir` and owns it.
  static std::unique_ptr<SqlFrontend> Open(const std::string& dir, SqlFrontendOptions options = {},
                                           const DatabaseOptions& db_options = {});
  ~SqlFrontend();
  SqlFrontend(const SqlFrontend&) = delete;
  SqlFrontend& operator=(const SqlFrontend&) = delete;

  Database& database() { return *db_; }
  const SqlFrontendOptions& options() const { return options_; }
  // nullptr under ReadRouting::kInProcess (no process is ever forked then).
  SnapshotManager* snapshots() { return snapshots_.get(); }
  // The parent's scheduler for in-process queries.
  Scheduler& scheduler() { return *scheduler_; }
  // statement_timeout's deadlines, for every session.
  StatementTimer& statement_timer() { return statement_timer_; }
  // The row locks of SELECT ... FOR UPDATE / SHARE, for every session.
  RowLockTable& row_locks() { return row_locks_; }
  // LISTEN / NOTIFY between this server's sessions.
  NotificationHub& notifications() { return notifications_; }

  // --- used by SqlSession and the snapshot handler ---
  // The scheduler of the current snapshot process; created by the first
  // request after the fork (never in the parent).
  Scheduler& ChildScheduler();
  // Handles one snapshot request (runs in the child).
  void HandleSnapshotRequest(std::string_view request, BatchSink& sink);

 private:
  void RunSnapshotRequest(std::string_view request, BatchSink& sink);
  void Start();

  std::unique_ptr<Database> owned_db_;
  Database* db_;
  SqlFrontendOptions options_;
  std::unique_ptr<Scheduler> scheduler_;
  StatementTimer statement_timer_;
  RowLockTable row_locks_;  // the parent's only; a snapshot child never locks rows
  NotificationHub notifications_;
  std::unique_ptr<DatabaseForkPoint> fork_point_;
  std::unique_ptr<SnapshotManager> snapshots_;
  // Child-only state: never touched by the parent, so never locked at fork.
  std::mutex child_mu_;
  std::unique_ptr<Scheduler> child_scheduler_;
};

}  // namespace forktail
