// SqlSession: one client connection's SQL conversation with the engine
// (docs/client_contract.md is the contract with clients; the wire-protocol
// server uses only this header).
//
// A session is a small state machine:
//
//   status I (idle) --BEGIN--> T (in block) --error--> E (failed)
//          ^                     |  COMMIT/ROLLBACK      | ROLLBACK/COMMIT(=rollback)
//          +---------------------+-----------------------+
//
// Outside a block every statement is its own transaction (a multi-statement
// simple query string without BEGIN/COMMIT is one implicit block). Writes and
// DDL run on the transaction thread. Reads see every commit acknowledged to
// any client before they arrived (DESIGN.md "Freshness"): a SELECT by primary
// key, and one that reads no table (catalog queries), runs on the transaction
// thread; any other SELECT goes to a snapshot whose LSN is at least the
// engine's last commit at arrival (ReadRouting, sql_frontend.h), or, with
// `SET forktail.max_snapshot_age_ms = N`, to one at most N ms old that holds
// the session's own last commit.
//
// BEGIN ... COMMIT is an OptimisticBlock (optimistic_block.h): each statement
// is a short step on the transaction thread against committed state plus the
// block's own writes, which are undone after the step; COMMIT runs the block
// again as one transaction and commits if every result equals what the client
// saw, else fails with 40001. An idle block holds memory, never the thread,
// and has no time limit unless idle_in_transaction_session_timeout is set.
// An implicit block (statements sent together, no client think time) runs as
// a TxnBlock (txn_block.h) holding the thread from its first statement to its
// end. An error inside a block puts the session in state E: 25P02 "current
// transaction is aborted, commands ignored until end of transaction block"
// until ROLLBACK (or COMMIT, which answers ROLLBACK as PostgreSQL does), or,
// when a savepoint is set, ROLLBACK TO it, which brings the block back to T
// (the block records savepoints with its statements; the session restores
// its own state: settings, cursors, pending notifications).
//
// DECLARE reads its query like a SELECT (a recorded step inside a block) and
// the cursor keeps the rows for FETCH / MOVE (cursor.h); COPY ... TO reads
// like a SELECT too and hands back the encoded data
// (StatementResult::copy_out).
//
// Threads: a session is used by one thread at a time, except Cancel().
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "olap/session/sql_frontend.h"
#include "olap/session/statement_result.h"
#include "storage/storage.h"
#include "storage/value/timezone.h"

namespace forktail {

namespace sql {
struct SetStmt;
struct CallStmt;
struct Statement;
}  // namespace sql

class BackendDirectory;
class StatementNotices;
struct CatalogSession;
struct CatalogProcedure;
class Database;

// The procedures `db` registered, as the system catalog shows them (pg_proc,
// psql's \df; session_call.cc).
std::vector<CatalogProcedure> CatalogProcedures(const Database& db);

enum class TxnStatus : char { kIdle = 'I', kInBlock = 'T', kFailed = 'E' };

struct SessionOptions {
  std::string user = "forktail";
  std::string database = "forktail";
  std::string application_name;
  // The startup packet's TimeZone: set as SET TimeZone would (22023 for a
  // zone PostgreSQL refuses); empty: UTC.
  std::string time_zone;
  // 0: reads see every commit acknowledged before they arrive; N: a snapshot
  // at most N ms old that holds the session's own last commit will do
  // (SET forktail.max_snapshot_age_ms = N).
  uint32_t max_snapshot_age_ms = 0;
  // The backend's process ID as clients know it (BackendKeyData;
  // pg_backend_pid()); 0: this process's.
  int32_t backend_pid = 0;
  // The server's backends (pg_stat_activity, pg_cancel_backend,
  // pg_terminate_backend); null: none (an embedded session). Outlives the
  // session.
  BackendDirectory* backends = nullptr;
  // The server's named prepared statements of the wire protocol, which
  // share SQL PREPARE's namespace (PREPARE may not reuse their names;
  // DEALLOCATE and DISCARD ALL drop them); unset: none.
  std::function<bool(const std::string& name)> protocol_statement_exists;
  std::function<bool(const std::string& name)> drop_protocol_statement;  // false: none
  std::function<void()> drop_protocol_statements;
};

class PreparedBinding;

// What Prepare returns and Describe answers.
struct PreparedStatement {
  std::string sql;
  // One per $n (n = 1..max); types the client gave or the binder inferred.
  std::vector<Type> parameter_types;
  // Empty for statements that return no rows.
  std::vector<ResultColumn> columns;
  // The parsed statement (nullptr for an empty query string).
  std::shared_ptr<const sql::Statement> statement;
  // What its executions reuse of an earlier one's binding
  // (statement/parameter_template.h); null: nothing.
  std::shared_ptr<PreparedBinding> binding;
};

class TxnBlock;
class CursorSet;
struct SequenceSessionState;
struct SessionFunctionCall;
struct LogicalOp;
using LogicalOpPtr = std::unique_ptr<LogicalOp>;
struct QueryRunContext;
class OptimisticBlock;
struct RowLockRequest;
struct StepFootprint;
class SessionParameters;
struct PreBoundStatement;
class PointTemplate;
struct PointQueryText;

class SqlSession {
 public:
  SqlSession(SqlFrontend& engine, SessionOptions options = {});
  // An open block is rolled back.
  ~SqlSession();
  SqlSession(const SqlSession&) = delete;
  SqlSession& operator=(const SqlSession&) = delete;

  // Simple query: runs each `;`-separated statement in order and returns the
  // results of those that ran. The first failing statement throws DbError
  // (with its position in `sql`). Without BEGIN/COMMIT in the string, several
  // statements form one implicit transaction: a failure undoes them all.
  std::vector<StatementResult> Execute(std::string_view sql);
  // The same, handing each statement's result to `on_result` as soon as it is
  // complete (a server sends it before a later statement's error).
  using ResultCallback = std::function<void(StatementResult&&)>;
  void Execute(std::string_view sql, const ResultCallback& on_result);

  // Parses and binds `sql` (one statement or none). `param_types[i]` is the
  // client's type for $i+1; std::nullopt (or a shorter vector) = infer.
  std::shared_ptr<const PreparedStatement> Prepare(
      std::string_view sql, const std::vector<std::optional<Type>>& param_types = {});
  // Runs a prepared statement with parameter values ($1 = params[0]); NULL
  // values are Value::Null(type). Throws DbError.
  StatementResult ExecutePrepared(const PreparedStatement& statement,
                                  const std::vector<Value>& params);

  // COPY t FROM STDIN: after Execute returned "COPY_IN" (always the last
  // statement of its query string), the data arrives here. CopyIn throws
  // DbError on bad data (22P04, 22P02, 23505 ... with COPY's CONTEXT line);
  // the COPY is then over and rolled back: ignore the client's further
  // CopyData until its CopyDone/CopyFail (in_copy() is false). CopyFail
  // rolls back and throws 57014 "COPY from stdin failed: <message>".
  // Without a block the rows go in batches of SqlFrontendOptions::copy_batch_rows
  // per transaction (0, the default: one transaction, all-or-nothing);
  // inside a block they join the block's transaction.
  void CopyIn(std::string_view bytes);
  StatementResult CopyDone();  // "COPY n"
  void CopyFail(std::string_view message);
  bool in_copy() const { return copy_ != nullptr; }

  // Whether SQL PREPARE made a statement of this name (the protocol's Parse
  // may not reuse it: 42P05).
  bool HasPreparedStatement(const std::string& name) const {
    return prepared_statements_.count(name) != 0;
  }

  // Cursors as portals of the extended protocol (cursor.h): Describe of a
  // portal named like a cursor answers its columns (nullopt: no such
  // cursor), Close of one closes it (nothing when there is none).
  std::optional<std::vector<ResultColumn>> CursorColumns(const std::string& name) const;
  void CloseCursorPortal(const std::string& name);

  // Any thread: cancels the running statement (it fails with 57014
  // "canceling statement due to user request"). No-op when nothing runs.
  void Cancel();

  // LISTEN: readable while notifications for this session wait (-1 when it
  // never listened); TakeNotifications drains them (session_notify.cc).
  int notification_fd() const;
  std::vector<Notification> TakeNotifications();

  TxnStatus status() const;
  // SHOW / ParameterStatus values ("server_version" -> "15.8", ...); empty
  // string for an unknown name.
  std::string GetParameter(std::string_view name) const;
  uint64_t parameters_version() const;  // SessionParameters::version()
  // The zone of SET TIME ZONE: timestamptz values come in and go out in it
  // (the session sets it as the thread's current zone while it works).
  datetime::TimeZonePtr SessionTimeZone() const;
  // The parameters a server reports in ParameterStatus after startup.
  static const std::vector<std::string>& ReportedParameters();

  // The commit LSN of this session's last write (0 before any).
  uint64_t last_commit_lsn() const { return last_commit_lsn_; }

  // Group commit inside a pipeline (server/backend.h): while `more_input`,
  // statements that commit on their own return before their commit is
  // durable; WaitDurable() must be called before their results reach the
  // client (throws 58030 if the log failed).
  void SetPipelined(bool more_input) { pipelined_ = more_input; }
  void WaitDurable();
  // Frees the transaction block that ended last (its recorded statements),
  // which the session keeps until the client has its answer: freeing a
  // pipeline of 10,000 statements took as long as committing it.
  void ReleaseFinished();

  // The extended protocol's implicit transaction (PostgreSQL's): outside a
  // block, the statements a client executes before its next Sync are one
  // transaction, so that a failure undoes them all (psycopg's executemany
  // sends every row before one Sync). The server says before each
  // ExecutePrepared whether more may come before the Sync
  // (`more_before_sync`: the next message buffered is not a Sync, or none
  // is). A writing statement (INSERT, UPDATE, DELETE) that may be followed
  // opens an implicit optimistic block; later statements are its steps, and
  // EndImplicitTransaction (at the Sync) commits it, throwing what COMMIT
  // would (40001, 58030). A statement whose Sync is already there runs as
  // its own transaction, which is the same thing. Reads before the group's
  // first write run on their own, as they would in PostgreSQL's READ
  // COMMITTED implicit transaction. An error rolls the block back: the
  // server skips to the Sync and the session is idle again.
  void SetMoreBeforeSync(bool more_before_sync) { more_before_sync_ = more_before_sync; }
  void EndImplicitTransaction();
  // Rolls the implicit transaction back (an error outside a statement).
  void AbortImplicitTransaction();

 private:
  struct CopyState;
  struct Request;       // one statement to run: AST, its text, parameters
  struct OwnedRequest;  // the same, owning its text (a block's, run again)
  // Executes a statement on the transaction thread in `txn`.
  using StatementBody = std::function<StatementResult(Transaction&, const Request&)>;

  // Runs one statement and adds the notices raised while it ran.
  StatementResult Dispatch(const Request& request);
  // Runs one statement under statement_timeout (Route does the work).
  StatementResult TimedRoute(const Request& request);
  StatementResult Route(const Request& request);
  StatementResult TransactionControl(const sql::Statement& statement);
  // SAVEPOINT, RELEASE, ROLLBACK TO (inside BEGIN ... COMMIT only).
  StatementResult SavepointControl(const sql::Statement& statement);
  // SET CONSTRAINTS (session_commands.cc).
  StatementResult SetConstraints(const sql::SetStmt& set);
  StatementResult SessionCommand(const sql::Statement& statement);
  // PREPARE / EXECUTE / DEALLOCATE (session_prepare.cc).
  StatementResult PrepareCommand(const Request& request);
  StatementResult ExecuteCommand(const Request& request);
  StatementResult DeallocateCommand(const sql::Statement& statement);
  void DeallocateAll();  // the protocol's named statements too
  // CALL name(arguments): a stored procedure the application registered
  // (session_call.cc).
  StatementResult CallProcedure(const Request& request);
  // What Describe says of a CALL: the procedure's result columns, and the
  // types of its parameters for the $n passed straight to them that the
  // client left untyped.
  void DescribeCall(const sql::CallStmt& call, const std::vector<std::optional<Type>>& client_types,
                    std::vector<Type>* parameter_types, std::vector<ResultColumn>* columns) const;
  // SELECT set_config(...) / pg_sleep(...) alone (session_functions.cc).
  StatementResult RunSessionFunction(const Request& request, const SessionFunctionCall& call);
  // LISTEN / UNLISTEN / NOTIFY (session_notify.cc): at once outside a
  // block, at COMMIT inside one (dropped at ROLLBACK).
  StatementResult ListenCommand(const sql::Statement& statement);
  StatementResult CreateSchemaCommand(const sql::Statement& statement);
  void Notify(const std::string& channel, const std::string& payload, int position);
  void ApplyListen(bool listen, const std::string& channel);
  void EndTransactionNotifications(bool committed);
  StatementResult Read(const Request& request);
  StatementResult ReadServerState(const Request& request, const PreBoundStatement& bound);
  StatementResult ReadFromSnapshot(const Request& request);
  StatementResult Write(const Request& request);
  // Runs `body` for `request` on the transaction thread: as a recorded step
  // of `block` (default: the open optimistic block), in the implicit block,
  // or as its own transaction (remembering its commit LSN). `lock`: the
  // step's row locks (a block's step only).
  StatementResult RunStatement(const Request& request, bool writes, const StatementBody& body,
                               const RowLockRequest* lock = nullptr,
                               OptimisticBlock* block = nullptr,
                               const StepFootprint* tables = nullptr);
  // In an optimistic block: the tables `pre` reads or writes, for the
  // step's forecast (StatementTables); nullopt outside blocks or unknown.
  std::optional<StepFootprint> BlockStepTables(const PreBoundStatement* pre);
  // SELECT ... FOR UPDATE / SHARE over one table (session_locking.cc): a
  // step that locks the rows it returns; nullopt when the statement names
  // no rows to lock (several tables, a view): it then reads without locks.
  std::optional<StatementResult> LockingRead(const Request& request, bool writes,
                                             const StepFootprint* tables);
  // For a statement run on the transaction thread (in-process).
  QueryRunContext RunContext();
  // `pre`: bound off the thread (used when still current), or nullptr.
  StatementResult ExecuteWrite(Transaction& txn, const Request& request,
                               const PreBoundStatement* pre);
  // `indexed`: every table the read looks at is probed through an index
  // (ReadsThroughIndexes), so it runs on the calling thread without the
  // scheduler's workers, unless a probe finds too many rows.
  StatementResult ExecuteRead(Transaction& txn, const Request& request,
                              const PreBoundStatement* pre, bool indexed = false);
  // Whether `bound` reads only through indexes (see ExecuteRead).
  bool IndexedRead(const std::optional<PreBoundStatement>& bound) const;
  // A SELECT that reads no user table (catalog views, constants, series) and
  // whose plan builds few rows anywhere (joins multiply): cheap enough to run
  // on the transaction thread.
  static bool SmallAndTableFree(const PreBoundStatement& pre);
  bool InBlock() const { return block_ != nullptr || optimistic_ != nullptr; }
  // The open block ran DDL: statements for it bind in it.
  bool BlockChangedSchema() const;
  void NoteSchemaChange();
  std::optional<PreBoundStatement> PreBindRequest(const Request& request);
  StatementResult StartCopy(const Request& request);
  // What fills a COPY's per-row DEFAULTs (nextval) in the rows' transaction,
  // with this session's currval state (session_copy.cc).
  std::function<std::function<void(Row&)>(Transaction&, const TableSchema&,
                                          const std::vector<uint16_t>&)>
  CopyDefaults();
  // COPY ... TO STDOUT | 'file' (session_copy_to.cc).
  StatementResult CopyTo(const Request& request);
  // DECLARE / FETCH / MOVE / CLOSE (session_cursor.cc).
  StatementResult DeclareCursor(const Request& request);
  StatementResult FetchCursor(const sql::Statement& statement);
  StatementResult CloseCursor(const sql::Statement& statement);
  // The open transaction (a block, implicit or not) ended: its cursors end
  // with it, WITH HOLD ones stay if it committed (CursorSet::EndTransaction),
  // and its settings with them (EndTransactionSettings).
  void EndTransaction(bool committed);
  // Settings are transactional, as in PostgreSQL (session_commands.cc): a
  // block starts from the session's (`read_only`: BEGIN READ ONLY 1, READ
  // WRITE 0, neither -1); ROLLBACK restores what it found; COMMIT keeps what
  // SET and RESET did and drops what SET LOCAL did.
  void BeginTransactionSettings(int read_only);
  // BEGIN (and the extended protocol's implicit transaction): a new
  // optimistic block; COMMIT of the open one (the session is idle after it,
  // committed or not; throws the failure).
  void OpenOptimisticBlock(int read_only);
  void CommitOptimisticBlock();
  void EndTransactionSettings(bool committed);
  // SET / RESET name (value nullptr: the default) on the current settings
  // and, unless `local`, on those the open block's COMMIT will keep.
  void ApplySetting(const std::string& name, const std::string* value, bool local);
  // 25006 "cannot execute INSERT in a read-only transaction" when the open
  // transaction (or, outside a block, default_transaction_read_only) is
  // read-only and `statement` writes.
  void CheckWritable(const sql::Statement& statement) const;
  // The open transaction (or, outside a block, default_transaction_read_only)
  // is read-only.
  bool ReadOnly() const;
  // Runs `fn` on the schemas statements of this session bind against: the
  // published copy, or the open block's own after it ran DDL.
  void WithSchemas(const std::function<void(const Catalog&)>& fn);
  // Binds a query (a kSelect statement) where WithSchemas says; throws its
  // binding errors (with positions).
  LogicalOpPtr BindQueryPlan(const Request& request);
  // Runs `work` on the transaction thread: in the implicit block, on the
  // optimistic block's state (not recorded), or as its own transaction
  // (remembering its commit LSN). Rethrows what `work` throws (positions
  // intact).
  void OnTxnThread(const std::function<void(Transaction&)>& work);
  // Called when a statement failed: a block is rolled back (state E).
  void OnError();
  // A simple-query SELECT by integer primary key whose text (without its
  // key literals) this session bound before (point_template.h): answered
  // from that template on the transaction thread; nullopt to take the
  // general path (no template, schemas or settings changed since, a key
  // that does not fit).
  std::optional<StatementResult> CachedPointSelect(const PointQueryText& text);
  // On the general path of such a SELECT (Read): keeps its template.
  void KeepPointTemplate(const PreBoundStatement& pre);
  void CheckBlockTimeout();
  SnapshotLease AcquireSnapshot();
  std::shared_ptr<const PreparedStatement> Describe(
      std::string_view sql, std::vector<std::unique_ptr<sql::Statement>> statements,
      const std::vector<std::optional<Type>>& types);

  SqlFrontend& engine_;
  SessionOptions options_;
  // WARNINGs raised while a statement runs; Dispatch moves them into its result.
  std::unique_ptr<StatementNotices> running_notices_;
  // What the binder tells current_user, pg_backend_pid() and
  // pg_stat_activity (options_ as the catalog sees them).
  std::shared_ptr<const CatalogSession> catalog_session_;
  std::unique_ptr<SessionParameters> parameters_;
  // The settings the open transaction found (ROLLBACK restores them) and
  // those its COMMIT leaves (SET and RESET change both, SET LOCAL neither);
  // null outside a transaction.
  std::unique_ptr<SessionParameters> settings_at_begin_;
  std::unique_ptr<SessionParameters> settings_at_commit_;
  bool block_ran_query_ = false;                 // SET TRANSACTION READ WRITE must come first
  std::unique_ptr<TxnBlock> block_;              // the implicit block of a multi-statement string
  std::unique_ptr<OptimisticBlock> optimistic_;  // BEGIN ... COMMIT
  int64_t block_timestamp_ = 0;                  // now() in the open block
  std::chrono::steady_clock::time_point idle_since_;  // the block's last statement ended
  TxnStatus status_ = TxnStatus::kIdle;
  uint64_t last_commit_lsn_ = 0;
  bool pipelined_ = false;
  bool more_before_sync_ = false;
  // Point templates by text (null: that text has none), valid for the
  // session settings of version point_templates_version_.
  std::map<std::string, std::shared_ptr<const PointTemplate>> point_templates_;
  uint64_t point_templates_version_ = 0;
  // The text of the simple-query SELECT on the general path, for
  // KeepPointTemplate; null otherwise.
  std::unique_ptr<PointQueryText> pending_point_text_;
  std::unique_ptr<OptimisticBlock> finished_block_;  // committed, not yet freed (ReleaseFinished)
  bool implicit_optimistic_ = false;  // optimistic_ is the implicit transaction until Sync
  // The log must be durable through this before results reach the client
  // (0: nothing pending).
  uint64_t pending_durable_lsn_ = 0;
  std::unique_ptr<CopyState> copy_;
  // How fresh the last SELECT's data was (SHOW forktail.last_read): where it
  // ran, and for a snapshot its age and the commits made since its fork
  // when the read started. On the transaction thread both are 0.
  struct LastRead {
    enum class Where : uint8_t { kNone, kTransactionThread, kSnapshot } where = Where::kNone;
    double age_ms = 0;
    uint64_t commits_behind = 0;
  } last_read_;
  std::unique_ptr<CursorSet> cursors_;
  // SQL PREPARE's statements by name (not transactional: a ROLLBACK keeps
  // them, as in PostgreSQL).
  std::map<std::string, std::shared_ptr<const PreparedStatement>> prepared_statements_;
  // LISTEN / NOTIFY: the channels listened to (committed), this session's
  // Listener once it listened, and an open block's pending changes.
  std::set<std::string> listening_;
  std::unique_ptr<NotificationHub::Listener> listener_;
  struct PendingListen {
    bool listen;          // LISTEN, else UNLISTEN
    std::string channel;  // "" for UNLISTEN *
  };
  std::vector<PendingListen> pending_listens_;
  std::vector<Notification> pending_notifications_;
  // currval / lastval (sequence_functions.h), and their state when the open
  // optimistic block began: each of its runs (step, COMMIT) starts from it,
  // since each runs the block's statements again.
  std::unique_ptr<SequenceSessionState> sequences_;
  std::unique_ptr<SequenceSessionState> block_sequences_;
  // What ROLLBACK TO SAVEPOINT restores of the session, one per savepoint
  // of the open block (optimistic_ keeps their statements): the settings,
  // the pending LISTEN / NOTIFY, the cursors declared since.
  struct SavepointState {
    std::unique_ptr<SessionParameters> parameters;
    std::unique_ptr<SessionParameters> at_commit;
    size_t listens = 0;
    size_t notifications = 0;
    uint64_t cursors = 0;
  };
  std::vector<SavepointState> savepoint_states_;
  // Cancel support: the running statement's cancel action.
  mutable std::mutex cancel_mu_;
  std::function<void()> cancel_hook_;
  std::atomic<bool> cancel_requested_{false};
};

}  // namespace forktail
