#include "olap/session/sql_session.h"

#include <unistd.h>

#include <algorithm>
#include <initializer_list>
#include <utility>

#include "olap/parser/ast.h"
#include "olap/plan/catalog/system_catalog.h"
#include "olap/plan/planner/index_selection.h"
#include "olap/plan/planner/planner.h"
#include "olap/session/block/optimistic_block.h"
#include "olap/session/block/txn_block.h"
#include "olap/session/cursor.h"
#include "olap/session/format/row_codec.h"
#include "olap/session/session_parameters.h"
#include "olap/session/session_request.h"
#include "olap/session/statement/parameter_template.h"
#include "olap/session/statement/point_statement.h"
#include "olap/session/statement/point_template.h"
#include "olap/session/statement/query_runner.h"
#include "olap/session/statement/txn_sequences.h"
#include "olap/session/statement/write_executor.h"
#include "storage/value/random_source.h"

namespace forktail {

namespace {

[[noreturn]] void ThrowResult(const TxnResult& r) {
  throw DbError(InternSqlstate(r.sqlstate), r.message);
}

}  // namespace

void ThrowLogFailed(const Status& health) {
  throw DbError(sqlstate::kIoError,
                "the database refuses reads and writes after a write-ahead log failure; restart "
                "the server to recover from the log: " +
                    health.message());
}

namespace {

bool IsTransactionControl(const sql::Statement& s) {
  return s.kind == sql::StatementKind::kTransaction;
}

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Rows of constants a table-free read may produce at any point of its plan
// and still run on the transaction thread (psql's \d on a few hundred tables
// stays under it); more, and it runs on a snapshot like any other read, so
// that `SELECT count(*) FROM generate_series(1, 1e9)` or a cross join of two
// catalog views cannot stop every transaction while it counts.
constexpr uint64_t kTableFreeRowBudget = 100'000;

// Operators whose row count is not known before they run: a recursive
// query and its work table, a set-returning function.
bool RowsUnknownAhead(const LogicalOp& op) {
  return op.kind == LogicalOpKind::kRecursiveUnion || op.kind == LogicalOpKind::kWorkTable ||
         op.kind == LogicalOpKind::kTableFunction;
}

// A bound on the rows `op` (and its subplans) can produce when it reads no
// user table; nullopt when it reads one, or when its rows have no bound
// known before it runs (WITH RECURSIVE, a set-returning function of outer
// columns). Joins and per-row subplans multiply; saturates at UINT64_MAX.
std::optional<uint64_t> TableFreeRows(const LogicalOp& op) {
  auto times = [](uint64_t a, uint64_t b) {
    return a != 0 && b > UINT64_MAX / a ? UINT64_MAX : a * b;
  };
  if (op.kind == LogicalOpKind::kGet || RowsUnknownAhead(op)) return std::nullopt;
  if (op.kind == LogicalOpKind::kValues) return op.rows.size();
  if (op.kind == LogicalOpKind::kSeries) return op.series.count;
  auto plus = [](uint64_t a, uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; };
  const bool multiplies = op.kind == LogicalOpKind::kJoin || op.kind == LogicalOpKind::kApply;
  uint64_t rows = multiplies ? 1 : 0;
  for (const LogicalOpPtr& child : op.children) {
    std::optional<uint64_t> r = TableFreeRows(*child);
    if (!r) return std::nullopt;
    if (multiplies) {
      rows = times(rows, *r);
    } else if (op.kind == LogicalOpKind::kUnion) {
      rows = plus(rows, *r);
    } else {
      rows = std::max(rows, *r);
    }
  }
  if (op.subplan != nullptr) {
    std::optional<uint64_t> r = TableFreeRows(*op.subplan);
    if (!r) return std::nullopt;
    rows = times(std::max<uint64_t>(rows, 1), std::max<uint64_t>(*r, 1));
  }
  return rows;
}

// Rows an index probe may find for a read to run on the transaction thread
// (a short range: an order's lines, a customer's orders); more and the read
// goes to a snapshot.
constexpr size_t kOnThreadIndexRows = 2000;

// Point templates a session keeps (point_template.h); past it they start over.
constexpr size_t kPointTemplates = 256;

void CollectConjuncts(const LogicalOp& op, std::vector<const Expression*>* out) {
  if (op.kind == LogicalOpKind::kFilter || op.kind == LogicalOpKind::kGet ||
      op.kind == LogicalOpKind::kJoin) {
    for (const ExprPtr& c : op.conditions) out->push_back(c.get());
  }
  for (const LogicalOpPtr& child : op.children) CollectConjuncts(*child, out);
}

// Whether every table `op` reads has an index some WHERE conjunct can probe
// (index_selection.h), and no subquery runs per row: a cheap test on the
// bound plan before the planner decides for sure (ReadNeedsSnapshot).
bool EveryTableIndexed(const LogicalOp& op, const std::vector<const Expression*>& conjuncts,
                       const Catalog& schemas) {
  if (op.kind == LogicalOpKind::kApply || op.subplan != nullptr) return false;
  auto column_of_get = [](const LogicalOp& get) {
    return [&get](const Expression& ref) -> std::optional<ColumnId> {
      for (size_t i = 0; i < get.columns.size() && i < get.table_columns.size(); i++) {
        if (get.columns[i].id == ref.column) {
          return ColumnId(static_cast<uint16_t>(get.table_columns[i]));
        }
      }
      return std::nullopt;
    };
  };
  if (op.kind == LogicalOpKind::kGet) {
    const Table& table = schemas.GetTable(op.table_id);
    return ChooseIndex(conjuncts, table.schema(), column_of_get(op)).has_value();
  }
  // Rows no index bounds: a series, a recursive query, many constant rows.
  if (op.kind == LogicalOpKind::kSeries || RowsUnknownAhead(op) ||
      (op.kind == LogicalOpKind::kValues && op.rows.size() > kTableFreeRowBudget)) {
    return false;
  }
  // ORDER BY ... LIMIT n: the first n entries of an ordered index.
  if (op.kind == LogicalOpKind::kLimit && op.limit >= 0 &&
      op.children.at(0)->kind == LogicalOpKind::kSort) {
    const auto first =
        static_cast<size_t>(op.limit) + static_cast<size_t>(std::max<int64_t>(op.offset, 0));
    if (std::optional<TableOrder> order = TableOrderBelow(*op.children[0], first)) {
      const Table& table = schemas.GetTable(order->get->table_id);
      if (ChooseIndexForOrder(conjuncts, table.schema(), column_of_get(*order->get), order->keys,
                              first)) {
        return true;
      }
    }
  }
  for (const LogicalOpPtr& child : op.children) {
    if (!EveryTableIndexed(*child, conjuncts, schemas)) return false;
  }
  return true;
}

// Whether the statement's text names one of `names` (any case): routing for
// statements that did not bind ahead of their execution.
bool MentionsAny(const sql::Statement& s, std::string_view text,
                 std::initializer_list<const char*> names) {
  if (s.end <= s.begin || s.end > text.size()) return false;
  std::string lower(text.substr(s.begin, s.end - s.begin));
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* name : names) {
    if (lower.find(name) != std::string::npos) return true;
  }
  return false;
}

// Whether a statement's text names nextval, currval, setval or lastval
// (a column or string of that name counts too: it only keeps the statement
// on the transaction thread).
bool MentionsSequenceFunction(const sql::Statement& s, std::string_view text) {
  return MentionsAny(s, text, {"nextval", "currval", "setval", "lastval"});
}

// A snapshot process has no backends: such a statement that did not bind
// ahead binds (and reports its own error) in this process.
bool MentionsServerState(const sql::Statement& s, std::string_view text) {
  return MentionsAny(s, text, {"pg_stat_activity", "pg_cancel_backend", "pg_terminate_backend"});
}

bool ReadsTable(const LogicalOp& op) {
  if (op.kind == LogicalOpKind::kGet) return true;
  for (const LogicalOpPtr& child : op.children) {
    if (ReadsTable(*child)) return true;
  }
  return op.subplan != nullptr && ReadsTable(*op.subplan);
}

// Whether a read that reads some table finds every row it reads through an
// index (a read of no table that is not small enough for the thread,
// TableFreeRows, has nothing an index could bound).
bool ReadsThroughIndexes(const PreBoundStatement& pre, const Catalog& schemas) {
  if (pre.bound.kind != BoundStatementKind::kQuery || !pre.bound.plan) return false;
  if (!ReadsTable(*pre.bound.plan)) return false;
  std::vector<const Expression*> conjuncts;
  CollectConjuncts(*pre.bound.plan, &conjuncts);
  return EveryTableIndexed(*pre.bound.plan, conjuncts, schemas);
}

}  // namespace

SqlSession::SqlSession(SqlFrontend& engine, SessionOptions options)
    : engine_(engine),
      options_(std::move(options)),
      running_notices_(std::make_unique<StatementNotices>()),
      parameters_(std::make_unique<SessionParameters>(options_.user, options_.application_name)),
      cursors_(std::make_unique<CursorSet>()),
      sequences_(std::make_unique<SequenceSessionState>()),
      block_sequences_(std::make_unique<SequenceSessionState>()) {
  CatalogSession catalog{
      options_.user, options_.database,
      options_.backend_pid != 0 ? options_.backend_pid : static_cast<int32_t>(getpid()),
      options_.backends, running_notices_.get()};
  // The parameters live as long as the session; statements are bound and
  // catalog rows built on the session's behalf while it waits for them.
  catalog.settings = [parameters = parameters_.get()] { return parameters->All(); };
  catalog.procedures = [db = &engine_.database()] { return CatalogProcedures(*db); };
  catalog_session_ = std::make_shared<const CatalogSession>(std::move(catalog));
  if (!options_.time_zone.empty()) parameters_->Set("TimeZone", options_.time_zone);
  if (options_.max_snapshot_age_ms != 0) {
    parameters_->Set("forktail.max_snapshot_age_ms", std::to_string(options_.max_snapshot_age_ms));
  }
}

SqlSession::~SqlSession() {
  if (copy_) {
    try {
      CopyFail("session closed");
    } catch (const DbError&) {
    }
  }
  if (block_) block_->Finish(false);
  if (listener_) engine_.notifications().UnlistenAll(listener_.get());
}

std::vector<StatementResult> SqlSession::Execute(std::string_view sql) {
  std::vector<StatementResult> results;
  Execute(sql, [&](StatementResult&& r) { results.push_back(std::move(r)); });
  return results;
}

void SqlSession::Execute(std::string_view sql, const ResultCallback& on_result) {
  cancel_requested_.store(false);
  if (copy_) {
    throw DbError(sqlstate::kProtocolViolation, "a COPY FROM STDIN is in progress");
  }
  pending_point_text_.reset();
  if (status_ == TxnStatus::kIdle && !InBlock()) {
    if (std::optional<PointQueryText> text = PointQueryTextOf(sql)) {
      if (std::optional<StatementResult> result = CachedPointSelect(*text)) {
        on_result(std::move(*result));
        return;
      }
      pending_point_text_ = std::make_unique<PointQueryText>(std::move(*text));
    }
  }
  struct ForgetPointText {
    SqlSession* session;
    ~ForgetPointText() { session->pending_point_text_.reset(); }
  } forget_point_text{this};
  std::vector<std::shared_ptr<const sql::Statement>> statements;
  try {
    for (sql::StatementPtr& s : sql::Parse(sql)) statements.push_back(std::move(s));
  } catch (...) {
    OnError();
    throw;
  }
  const bool has_control = std::any_of(statements.begin(), statements.end(),
                                       [](const auto& s) { return IsTransactionControl(*s); });
  // PostgreSQL's implicit transaction: several statements in one string
  // without BEGIN/COMMIT commit or fail together.
  if (statements.size() > 1 && !has_control && status_ == TxnStatus::kIdle) {
    block_ = std::make_unique<TxnBlock>(
        engine_.database(),
        std::chrono::milliseconds(engine_.options().idle_in_transaction_hold_ms));
    block_->Start();
    block_timestamp_ = NowMicros();
    status_ = TxnStatus::kInBlock;
    BeginTransactionSettings(-1);
  }
  const bool implicit_block = block_ != nullptr;
  for (size_t i = 0; i < statements.size(); i++) {
    Request request;
    request.statement = statements[i].get();
    request.statement_owner = statements[i];
    request.text = sql;
    StatementResult result;
    try {
      if (statements[i]->kind == sql::StatementKind::kCopy && statements[i]->copy->std_stream &&
          statements[i]->copy->from && statements.size() > 1 && implicit_block) {
        throw DbError(sqlstate::kFeatureNotSupported,
                      "COPY FROM STDIN must be the only statement of its query string (or run "
                      "inside BEGIN ... COMMIT)",
                      statements[i]->position);
      }
      result = Dispatch(request);
      if (copy_ && i + 1 < statements.size()) {
        if (copy_->loader && !copy_->in_block) copy_->loader->Abort();
        copy_.reset();
        throw DbError(sqlstate::kFeatureNotSupported,
                      "COPY FROM STDIN must be the last statement of its query string",
                      statements[i]->position);
      }
    } catch (...) {
      OnError();
      throw;
    }
    on_result(std::move(result));
  }
  if (pending_point_text_) {  // no template: the general path for this text from now on
    if (point_templates_.size() >= kPointTemplates) point_templates_.clear();
    point_templates_[pending_point_text_->key] = nullptr;
  }
  if (implicit_block) {
    TxnResult r = block_->Finish(true);
    block_.reset();
    status_ = TxnStatus::kIdle;
    EndTransaction(r.ok);
    if (!r.ok) ThrowResult(r);
    if (r.commit_lsn != wal::kInvalidLsn)
      last_commit_lsn_ = std::max(last_commit_lsn_, r.commit_lsn);
  }
}

void SqlSession::OnError() {
  if (status_ != TxnStatus::kInBlock) return;
  if (block_) {  // implicit: the whole string failed; the session is idle again
    EndTransaction(false);
    block_->Finish(false);
    block_.reset();
    status_ = TxnStatus::kIdle;
    return;
  }
  if (implicit_optimistic_) {  // as the implicit block of a string: idle again
    AbortImplicitTransaction();
    return;
  }
  status_ = TxnStatus::kFailed;
  // A savepoint can bring the block back (ROLLBACK TO); without one it is over.
  if (optimistic_ && optimistic_->savepoints() > 0) return;
  EndTransaction(false);
  optimistic_.reset();  // nothing of it was ever applied
}

void SqlSession::CheckBlockTimeout() {
  if (status_ != TxnStatus::kInBlock) return;
  if (block_ && block_->timed_out()) {
    block_->Finish(false);
    block_.reset();
    status_ = TxnStatus::kIdle;
    EndTransaction(false);
    throw DbError(kIdleInTransactionTimeout,
                  "terminating transaction: idle in transaction timeout exceeded");
  }
  if (!optimistic_) return;
  const long timeout_ms = std::stol("0" + parameters_->Get("idle_in_transaction_session_timeout"));
  if (timeout_ms > 0 &&
      std::chrono::steady_clock::now() - idle_since_ > std::chrono::milliseconds(timeout_ms)) {
    optimistic_.reset();
    status_ = TxnStatus::kIdle;
    EndTransaction(false);
    throw DbError(kIdleInTransactionTimeout,
                  "terminating transaction: idle-in-transaction timeout (" +
                      std::to_string(timeout_ms) +
                      " ms) exceeded; the transaction was rolled back");
  }
}

// statement_timeout: the statement is canceled at the deadline (as a client's
// CancelRequest would) and its 57014 says why, as PostgreSQL's does.
StatementResult SqlSession::Dispatch(const Request& request) {
  running_notices_->Take();  // a failed statement's are dropped
  StatementResult result = TimedRoute(request);
  for (std::string& n : running_notices_->Take()) result.notices.push_back(std::move(n));
  return result;
}

StatementResult SqlSession::TimedRoute(const Request& request) {
  const long timeout_ms = std::stol("0" + parameters_->Get("statement_timeout"));
  if (timeout_ms <= 0) return Route(request);
  StatementTimer& timer = engine_.statement_timer();
  const uint64_t id = timer.Arm(
      StatementTimer::Clock::now() + std::chrono::milliseconds(timeout_ms), [this] { Cancel(); });
  // Whether the timer fired; a cancel it set after the statement ended must
  // not reach the next one.
  auto disarm = [&] {
    const bool fired = timer.Disarm(id);
    if (fired) cancel_requested_.store(false);
    return fired;
  };
  try {
    StatementResult result = Route(request);
    disarm();
    return result;
  } catch (const DbError& e) {
    if (disarm() && std::string_view(e.sqlstate()) == sqlstate::kQueryCanceled) {
      throw DbError(sqlstate::kQueryCanceled, "canceling statement due to statement timeout",
                    e.position());
    }
    throw;
  } catch (...) {
    disarm();
    throw;
  }
}

StatementResult SqlSession::Route(const Request& arrived) {
  CheckBlockTimeout();
  // After a write-ahead log failure memory may hold commits that are not
  // durable (their clients got 58030): nothing may read them, and nothing
  // may be written, until a restart recovers from the log (PostgreSQL
  // PANICs). Session commands and transaction control still answer.
  switch (arrived.statement->kind) {
    case sql::StatementKind::kSet:
    case sql::StatementKind::kShow:
    case sql::StatementKind::kReset:
    case sql::StatementKind::kDiscard:
    case sql::StatementKind::kDeallocate:
    case sql::StatementKind::kPrepare:
    case sql::StatementKind::kTransaction:
      break;
    default:
      if (engine_.database().log_failed()) ThrowLogFailed(engine_.database().health());
  }
  Request request = arrived;
  request.catalog_session = catalog_session_;
  if (InBlock()) request.transaction_timestamp = block_timestamp_;
  if (!request.time_zone) request.time_zone = SessionTimeZone();
  datetime::ScopedTimeZone zone(request.time_zone);
  struct IdleFrom {  // an open block is idle again once this statement is done
    SqlSession* session;
    ~IdleFrom() { session->idle_since_ = std::chrono::steady_clock::now(); }
  } idle_from{this};
  const sql::Statement& s = *request.statement;
  if (status_ == TxnStatus::kFailed && s.kind != sql::StatementKind::kTransaction) {
    throw DbError(sqlstate::kInFailedSqlTransaction,
                  "current transaction is aborted, commands ignored until end of transaction "
                  "block");
  }
  switch (s.kind) {
    case sql::StatementKind::kTransaction:
      return TransactionControl(s);
    case sql::StatementKind::kSet:
    case sql::StatementKind::kShow:
    case sql::StatementKind::kReset:
    case sql::StatementKind::kDiscard:
      return SessionCommand(s);
    case sql::StatementKind::kDeallocate:
      return DeallocateCommand(s);
    case sql::StatementKind::kPrepare:
      return PrepareCommand(request);
    case sql::StatementKind::kExecute:
      return ExecuteCommand(request);
    case sql::StatementKind::kListen:
      return ListenCommand(s);
    case sql::StatementKind::kCreateSchema:
      return CreateSchemaCommand(s);
    default:
      if (InBlock()) block_ran_query_ = true;
      break;
  }
  switch (s.kind) {
    case sql::StatementKind::kSelect:
      if (std::optional<SessionFunctionCall> call = FindSessionFunctionCall(s)) {
        return RunSessionFunction(request, *call);
      }
      return Read(request);
    case sql::StatementKind::kExplain:
      return Read(request);
    case sql::StatementKind::kCopy:
      if (s.copy->from) {
        CheckWritable(s);
        return StartCopy(request);
      }
      return CopyTo(request);
    case sql::StatementKind::kDeclare:
      return DeclareCursor(request);
    case sql::StatementKind::kFetch:
      return FetchCursor(s);
    case sql::StatementKind::kClose:
      return CloseCursor(s);
    case sql::StatementKind::kCall:
      CheckWritable(s);
      return CallProcedure(request);
    case sql::StatementKind::kCheckpoint: {
      // Off the transaction thread, like a client's Database::Checkpoint():
      // the thread only collects the plan and forks the writer, and this
      // returns once the checkpoint is durable (PostgreSQL's CHECKPOINT).
      engine_.database().Checkpoint();
      StatementResult result;
      result.command_tag = "CHECKPOINT";
      return result;
    }
    default:
      if (WriteExecutor::Handles(s)) {
        CheckWritable(s);
        return Write(request);
      }
      throw DbError(sqlstate::kFeatureNotSupported, "statement not supported", s.position);
  }
}

StatementResult SqlSession::TransactionControl(const sql::Statement& s) {
  const sql::TransactionStmt& t = *s.transaction;
  StatementResult result;
  if (t.chain) {
    throw DbError(sqlstate::kFeatureNotSupported, "COMMIT AND CHAIN is not supported", s.position);
  }
  switch (t.kind) {
    case sql::TransactionKind::kSavepoint:
    case sql::TransactionKind::kRelease:
    case sql::TransactionKind::kRollbackTo:
      return SavepointControl(s);
    case sql::TransactionKind::kBegin:
      result.command_tag = "BEGIN";
      if (status_ == TxnStatus::kFailed) {
        throw DbError(sqlstate::kInFailedSqlTransaction,
                      "current transaction is aborted, commands ignored until end of "
                      "transaction block");
      }
      if (implicit_optimistic_) {
        // PostgreSQL: BEGIN in the implicit transaction makes it a block;
        // what ran before it is the block's.
        implicit_optimistic_ = false;
      } else if (status_ == TxnStatus::kInBlock) {
        result.notices.push_back("there is already a transaction in progress");
        return result;
      } else {
        OpenOptimisticBlock(t.read_only);
      }
      if (!t.isolation_level.empty()) parameters_->Set("transaction_isolation", t.isolation_level);
      return result;
    case sql::TransactionKind::kCommit:
      if (implicit_optimistic_) {
        // PostgreSQL commits the implicit transaction, with a warning.
        result.command_tag = "COMMIT";
        result.notices.push_back("there is no transaction in progress");
        CommitOptimisticBlock();
        return result;
      }
      if (status_ == TxnStatus::kIdle) {
        result.command_tag = "COMMIT";
        result.notices.push_back("there is no transaction in progress");
        return result;
      }
      if (status_ == TxnStatus::kFailed) {
        optimistic_.reset();
        status_ = TxnStatus::kIdle;
        EndTransaction(false);
        result.command_tag = "ROLLBACK";
        return result;
      }
      CommitOptimisticBlock();
      result.command_tag = "COMMIT";
      return result;
    case sql::TransactionKind::kRollback:
      result.command_tag = "ROLLBACK";
      if (status_ == TxnStatus::kIdle || implicit_optimistic_) {
        result.notices.push_back("there is no transaction in progress");
        if (status_ == TxnStatus::kIdle) return result;
      }
      implicit_optimistic_ = false;
      optimistic_.reset();
      status_ = TxnStatus::kIdle;
      EndTransaction(false);
      return result;
  }
  return result;
}

void SqlSession::OpenOptimisticBlock(int read_only) {
  *block_sequences_ = *sequences_;
  optimistic_ = std::make_unique<OptimisticBlock>(engine_.database(), engine_.row_locks(),
                                                  [this] { *sequences_ = *block_sequences_; });
  block_timestamp_ = NowMicros();
  status_ = TxnStatus::kInBlock;
  BeginTransactionSettings(read_only);
}

void SqlSession::CommitOptimisticBlock() {
  implicit_optimistic_ = false;
  TxnResult r = optimistic_->Commit();
  optimistic_->ReleaseLocks();
  finished_block_ = std::move(optimistic_);
  status_ = TxnStatus::kIdle;
  EndTransaction(r.ok);
  if (!r.ok) ThrowResult(r);
  if (r.commit_lsn != wal::kInvalidLsn) last_commit_lsn_ = std::max(last_commit_lsn_, r.commit_lsn);
}

void SqlSession::ReleaseFinished() { finished_block_.reset(); }

void SqlSession::EndImplicitTransaction() {
  if (!implicit_optimistic_) return;
  if (status_ != TxnStatus::kInBlock || !optimistic_) {
    implicit_optimistic_ = false;
    return;
  }
  CommitOptimisticBlock();
}

void SqlSession::AbortImplicitTransaction() {
  if (!implicit_optimistic_) return;
  implicit_optimistic_ = false;
  optimistic_.reset();
  status_ = TxnStatus::kIdle;
  EndTransaction(false);
}

StatementResult SqlSession::SavepointControl(const sql::Statement& s) {
  const sql::TransactionStmt& t = *s.transaction;
  StatementResult result;
  const char* command = t.kind == sql::TransactionKind::kSavepoint ? "SAVEPOINT"
                        : t.kind == sql::TransactionKind::kRelease ? "RELEASE SAVEPOINT"
                                                                   : "ROLLBACK TO SAVEPOINT";
  // An implicit block (block_) is a query string without BEGIN, and the
  // extended protocol's implicit transaction one without BEGIN before its
  // Sync; PostgreSQL refuses savepoints there too.
  if (status_ == TxnStatus::kIdle || block_ || implicit_optimistic_) {
    throw DbError(sqlstate::kNoActiveSqlTransaction,
                  std::string(command) + " can only be used in transaction blocks");
  }
  if (status_ == TxnStatus::kFailed && t.kind != sql::TransactionKind::kRollbackTo) {
    throw DbError(sqlstate::kInFailedSqlTransaction,
                  "current transaction is aborted, commands ignored until end of transaction "
                  "block");
  }
  if (!optimistic_) {  // failed with no savepoint set: none to go back to
    throw DbError(sqlstate::kInvalidSavepointSpecification,
                  "savepoint \"" + t.savepoint + "\" does not exist");
  }
  switch (t.kind) {
    case sql::TransactionKind::kSavepoint: {
      result.command_tag = "SAVEPOINT";
      SavepointState state;
      state.parameters = std::make_unique<SessionParameters>(*parameters_);
      state.at_commit = std::make_unique<SessionParameters>(*settings_at_commit_);
      state.listens = pending_listens_.size();
      state.notifications = pending_notifications_.size();
      state.cursors = cursors_->Mark();
      optimistic_->Savepoint(t.savepoint);
      savepoint_states_.push_back(std::move(state));
      break;
    }
    case sql::TransactionKind::kRelease:
      result.command_tag = "RELEASE";
      savepoint_states_.resize(optimistic_->Release(t.savepoint));
      break;
    default: {
      result.command_tag = "ROLLBACK";
      const size_t level = optimistic_->RollbackTo(t.savepoint);
      savepoint_states_.resize(level + 1);
      const SavepointState& state = savepoint_states_.back();
      *parameters_ = *state.parameters;
      *settings_at_commit_ = *state.at_commit;
      pending_listens_.resize(std::min(pending_listens_.size(), state.listens));
      pending_notifications_.resize(std::min(pending_notifications_.size(), state.notifications));
      cursors_->CloseDeclaredSince(state.cursors);
      status_ = TxnStatus::kInBlock;
      break;
    }
  }
  return result;
}

void SqlSession::OnTxnThread(const std::function<void(Transaction&)>& work) {
  if (block_) {
    block_->Run(work);
    return;
  }
  if (optimistic_) {
    optimistic_->Inspect(work);
    return;
  }
  // Pipelined: the result now, the fsync shared with the next statements
  // (WaitDurable before anything reaches the client).
  const bool defer = pipelined_;
  TxnResult r = RunTransaction(engine_.database(), [&](Transaction& txn) {
    if (defer) txn.AcknowledgeWhenApplied();
    work(txn);
  });
  if (!r.ok) ThrowResult(r);
  if (r.commit_lsn != wal::kInvalidLsn) last_commit_lsn_ = std::max(last_commit_lsn_, r.commit_lsn);
  if (r.durable_lsn != wal::kInvalidLsn) {
    pending_durable_lsn_ = std::max<uint64_t>(pending_durable_lsn_, r.durable_lsn);
  }
}

void SqlSession::WaitDurable() {
  if (pending_durable_lsn_ == 0) return;
  const uint64_t lsn = pending_durable_lsn_;
  pending_durable_lsn_ = 0;
  Status s = engine_.database().WaitDurable(lsn);
  if (!s.ok()) ThrowLogFailed(s);
}

// Binding needs only schemas: done here, on the session's thread, against
// the published copy, so the transaction thread (which a block holds) only
// executes (point_statement.h). The transaction body checks that the copy is
// still the live catalog's schema version and binds again if not.
std::optional<PreBoundStatement> SqlSession::PreBindRequest(const Request& request) {
  if (BlockChangedSchema()) return std::nullopt;  // would be stale
  std::shared_ptr<const Catalog> schemas = engine_.database().schemas();
  if (!schemas) return std::nullopt;
  if (request.binding) {
    return request.binding->PreBind(*request.statement, request.Bind(), *schemas,
                                    request.time_zone);
  }
  return PreBind(*request.statement, request.Bind(), *schemas);
}

bool SqlSession::BlockChangedSchema() const {
  if (block_) return block_->started() && block_->alive() && block_->changed_schema();
  return optimistic_ && optimistic_->changed_schema();
}

void SqlSession::NoteSchemaChange() {
  if (block_) block_->NoteSchemaChange();
  if (optimistic_) optimistic_->NoteSchemaChange();
}

void SqlSession::WithSchemas(const std::function<void(const Catalog&)>& fn) {
  std::shared_ptr<const Catalog> schemas = engine_.database().schemas();
  if (BlockChangedSchema() || !schemas) {
    OnTxnThread([&](Transaction&) { fn(engine_.database().frozen_catalog()); });
    return;
  }
  fn(*schemas);
}

LogicalOpPtr SqlSession::BindQueryPlan(const Request& request) {
  LogicalOpPtr plan;
  WithSchemas([&](const Catalog& catalog) {
    plan = std::move(Bind(*request.statement, catalog, request.Bind()).plan);
  });
  return plan;
}

StatementResult SqlSession::RunStatement(const Request& request, bool writes,
                                         const StatementBody& plain, const RowLockRequest* lock,
                                         OptimisticBlock* block, const StepFootprint* tables) {
  // The statement's sequence functions reach its transaction and this
  // session (sequence_functions.h), at every run.
  const bool read_only = ReadOnly();
  StatementBody body = [this, plain, read_only](Transaction& txn, const Request& r) {
    TxnSequences sequences(txn, engine_.database().frozen_catalog(), sequences_.get(), read_only);
    // One run at a time uses a request (the transaction thread's), and
    // nothing keeps the pointer past it.
    struct Restore {
      const Request& request;
      SequenceAccess* saved;
      ~Restore() { request.sequences = saved; }
    } restore{r, std::exchange(r.sequences, &sequences)};
    return plain(txn, r);
  };
  if (!block) block = optimistic_.get();
  if (block) {
    if (!request.statement_owner) {
      throw DbError(sqlstate::kInternalError, "a block's statement must be owned to run again");
    }
    auto owned = std::make_shared<const OwnedRequest>(request);
    // Only a top-level ORDER BY gives rows an order COMMIT must find again.
    const sql::Statement& s = *request.statement;
    const bool ordered =
        s.kind == sql::StatementKind::kSelect && s.query && !s.query->order_by.empty();
    // Every run draws the same random values (random_source.h): a
    // statement that returns gen_random_uuid()'s uuids can commit.
    const uint64_t seed = random_source::NewSeed();
    return block->Run(
        [body, owned, seed](Transaction& txn) {
          datetime::ScopedTimeZone zone(owned->request.time_zone);
          random_source::ReplayScope replay(seed);
          return body(txn, owned->request);
        },
        writes, ordered, lock, tables);
  }
  StatementResult result;
  OnTxnThread([&](Transaction& txn) {
    datetime::ScopedTimeZone zone(request.time_zone);
    result = body(txn, request);
  });
  return result;
}

QueryRunContext SqlSession::RunContext() {
  QueryRunContext context;
  context.catalog = &engine_.database().frozen_catalog();
  context.scheduler = &engine_.scheduler();
  context.parallelism = engine_.options().parallelism;
  context.cancel = &cancel_requested_;
  return context;
}

StatementResult SqlSession::ExecuteWrite(Transaction& txn, const Request& request,
                                         const PreBoundStatement* pre) {
  WriteExecutor writer(txn, RunContext());
  if (pre && pre->Current(engine_.database().frozen_catalog())) {
    CountPreBoundExecution();
    return writer.ExecuteKept(*request.statement, pre->bound);
  }
  return writer.Execute(*request.statement, request.Bind());
}

StatementResult SqlSession::Write(const Request& request) {
  const sql::StatementKind kind = request.statement->kind;
  const bool dml = kind == sql::StatementKind::kInsert || kind == sql::StatementKind::kUpdate ||
                   kind == sql::StatementKind::kDelete;
  if (!dml) NoteSchemaChange();
  // Bound once off the thread; a run where the schemas changed since (DDL of
  // the block's or another session's) binds again.
  std::shared_ptr<const PreBoundStatement> pre;
  if (dml) {
    if (std::optional<PreBoundStatement> p = PreBindRequest(request)) {
      pre = std::make_shared<const PreBoundStatement>(std::move(*p));
    }
  }
  const std::optional<StepFootprint> tables = BlockStepTables(pre.get());
  return RunStatement(
      request, /*writes=*/true,
      [this, pre](Transaction& txn, const Request& r) { return ExecuteWrite(txn, r, pre.get()); },
      nullptr, nullptr, tables ? &*tables : nullptr);
}

std::optional<StepFootprint> SqlSession::BlockStepTables(const PreBoundStatement* pre) {
  if (!optimistic_ || !pre) return std::nullopt;
  std::shared_ptr<const Catalog> schemas = engine_.database().schemas();
  if (!schemas || !pre->Current(*schemas)) return std::nullopt;
  try {
    return StatementTables(*pre, *schemas);
  } catch (const DbError&) {
    return std::nullopt;  // a table dropped meanwhile: the step finds out
  }
}

StatementResult SqlSession::ExecuteRead(Transaction& txn, const Request& request,
                                        const PreBoundStatement* pre, bool indexed) {
  // A SELECT by primary key reads its row directly (point_statement.h).
  if (pre && pre->point_select && pre->Current(engine_.database().frozen_catalog())) {
    if (std::optional<StatementResult> point = pre->point_select->Execute(txn)) {
      CountPreBoundExecution();
      return std::move(*point);
    }
  }
  if (indexed) {
    // A few rows through indexes: handing them to the workers and waiting
    // for them costs more than reading them here.
    QueryRunContext context = RunContext();
    context.index_only_row_limit = kOnThreadIndexRows;
    context.scheduler = &ImmediateScheduler();
    context.parallelism = 1;
    try {
      return RunQueryStatement(*request.statement, request.Bind(), context);
    } catch (const ReadNeedsSnapshot&) {
      // A probe found more rows than a short read: with the workers.
    }
  }
  return RunQueryStatement(*request.statement, request.Bind(), RunContext());
}

bool SqlSession::IndexedRead(const std::optional<PreBoundStatement>& bound) const {
  if (!bound) return false;
  std::shared_ptr<const Catalog> schemas = engine_.database().schemas();
  return schemas && bound->Current(*schemas) && ReadsThroughIndexes(*bound, *schemas);
}

bool SqlSession::SmallAndTableFree(const PreBoundStatement& pre) {
  if (pre.bound.kind != BoundStatementKind::kQuery || !pre.bound.plan) return false;
  std::optional<uint64_t> rows = TableFreeRows(*pre.bound.plan);
  return rows && *rows <= kTableFreeRowBudget;
}

// Where a read runs (DESIGN.md "Freshness"): every path sees each commit
// acknowledged before the statement arrived.
StatementResult SqlSession::Read(const Request& request) {
  if (std::optional<StatementResult> builtin = AnswerBuiltinQuery(*request.statement)) {
    return std::move(*builtin);
  }
  last_read_ = {LastRead::Where::kTransactionThread};  // ReadFromSnapshot says otherwise
  // Bound once here: the point shape and the table-free test both read it.
  std::optional<PreBoundStatement> bound = PreBindRequest(request);
  if (bound && bound->bound.uses_server_state) return ReadServerState(request, *bound);
  const bool point = bound && bound->point_select;
  const bool table_free = bound && !point && SmallAndTableFree(*bound);
  // nextval and setval change a sequence, currval and lastval read this
  // session's state: such a statement runs on the transaction thread (in a
  // block, one that changes a sequence runs again at each later step). The
  // text is checked too when binding here failed.
  SequenceUse sequences = bound ? bound->bound.sequence_use : SequenceUse::kNone;
  if (sequences == SequenceUse::kNone &&
      MentionsSequenceFunction(*request.statement, request.text)) {
    sequences = SequenceUse::kWrites;
  }
  std::shared_ptr<const PreBoundStatement> pre;  // kept only for a point SELECT
  if (point) pre = std::make_shared<const PreBoundStatement>(std::move(*bound));
  if (request.statement->kind == sql::StatementKind::kSelect && request.statement->query &&
      !request.statement->query->locking.empty()) {
    const std::optional<StepFootprint> tables =
        BlockStepTables(pre ? pre.get() : (bound ? &*bound : nullptr));
    if (std::optional<StatementResult> locked = LockingRead(
            request, /*writes=*/sequences == SequenceUse::kWrites, tables ? &*tables : nullptr)) {
      return std::move(*locked);
    }
  }
  if (optimistic_ && request.statement->kind == sql::StatementKind::kExplain) {
    // A plan, and EXPLAIN ANALYZE's timings, are not data the block read:
    // shown on the block's state, not recorded, not validated at COMMIT.
    StatementResult result;
    optimistic_->Inspect([&](Transaction& txn) { result = ExecuteRead(txn, request, nullptr); });
    return result;
  }
  if (optimistic_) {  // a step of the block; it runs again at COMMIT
    const std::optional<StepFootprint> tables =
        BlockStepTables(pre ? pre.get() : (bound ? &*bound : nullptr));
    const bool indexed = !point && IndexedRead(bound);
    return RunStatement(
        request, /*writes=*/sequences == SequenceUse::kWrites,
        [this, pre, indexed](Transaction& txn, const Request& r) {
          return ExecuteRead(txn, r, pre.get(), indexed);
        },
        nullptr, nullptr, tables ? &*tables : nullptr);
  }
  // Outside a block: a point SELECT, or one that reads no table, on the
  // transaction thread (fresh by construction, no fork); others on a
  // snapshot holding every acknowledged commit.
  const bool on_thread = block_ != nullptr ||
                         engine_.options().routing == ReadRouting::kInProcess || point ||
                         table_free || sequences != SequenceUse::kNone ||
                         (!bound && MentionsServerState(*request.statement, request.text));
  if (!on_thread) {
    // A short indexed read on the thread too; the planner sends it to a
    // snapshot after all if a probe finds too many rows.
    std::shared_ptr<const Catalog> schemas = engine_.database().schemas();
    if (bound && schemas && ReadsThroughIndexes(*bound, *schemas)) {
      bool needs_snapshot = false;
      StatementResult result =
          RunStatement(request, /*writes=*/false, [&](Transaction&, const Request& r) {
            QueryRunContext context = RunContext();
            context.index_only_row_limit = kOnThreadIndexRows;
            context.scheduler = &ImmediateScheduler();
            context.parallelism = 1;
            try {
              return RunQueryStatement(*r.statement, r.Bind(), context);
            } catch (const ReadNeedsSnapshot&) {
              needs_snapshot = true;
              return StatementResult();
            }
          });
      if (!needs_snapshot) return result;
    }
    return ReadFromSnapshot(request);
  }
  if (pre && pending_point_text_ && request.statement->query &&
      request.statement->query->locking.empty()) {
    KeepPointTemplate(*pre);
  }
  return RunStatement(request, /*writes=*/false, [&](Transaction& txn, const Request& r) {
    return ExecuteRead(txn, r, pre.get());
  });
}

std::optional<StatementResult> SqlSession::CachedPointSelect(const PointQueryText& text) {
  if (parameters_->version() != point_templates_version_) {  // search_path, role, ...
    point_templates_.clear();
    point_templates_version_ = parameters_->version();
  }
  auto it = point_templates_.find(text.key);
  if (it == point_templates_.end() || !it->second) return std::nullopt;
  std::shared_ptr<const PointTemplate> tmpl = it->second;
  std::unique_ptr<PointSelect> point = tmpl->Instantiate(text.literals);
  if (!point || engine_.database().log_failed()) return std::nullopt;  // the general path says why
  cancel_requested_.store(false);
  datetime::ScopedTimeZone zone(SessionTimeZone());
  std::optional<std::optional<Row>> row;
  bool stale = false;
  OnTxnThread([&](Transaction& txn) {
    if (engine_.database().frozen_catalog().schema_version() != tmpl->schema_version()) {
      stale = true;
      return;
    }
    row = point->FindRow(txn);
  });
  idle_since_ = std::chrono::steady_clock::now();
  if (stale) point_templates_.erase(text.key);
  if (!row) return std::nullopt;
  CountPointTemplateExecution();
  last_read_ = {LastRead::Where::kTransactionThread};
  return point->Answer(std::move(*row));  // off the transaction thread
}

void SqlSession::KeepPointTemplate(const PreBoundStatement& pre) {
  std::unique_ptr<PointQueryText> text = std::move(pending_point_text_);
  std::shared_ptr<const Catalog> schemas = engine_.database().schemas();
  if (!schemas || schemas->schema_version() != pre.schema_version) return;
  if (point_templates_.size() >= kPointTemplates) point_templates_.clear();
  point_templates_[text->key] = PointTemplate::Make(pre, *schemas, text->literals);
}

// pg_stat_activity, pg_cancel_backend, pg_terminate_backend: answered in
// this process (the backends are here, not in a snapshot) and off the
// transaction thread, so that a backend holding it stays visible and
// cancellable. Such a read is not part of a block's recorded reads: it
// reads no table, and what it shows is no data a COMMIT could validate.
StatementResult SqlSession::ReadServerState(const Request& request,
                                            const PreBoundStatement& bound) {
  if (bound.bound.kind != BoundStatementKind::kQuery || !bound.bound.plan ||
      ReadsTable(*bound.bound.plan)) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  "a query that reads pg_stat_activity or calls pg_cancel_backend or "
                  "pg_terminate_backend cannot read tables or views in Forktail");
  }
  if (bound.bound.sequence_use != SequenceUse::kNone) {  // those run on the transaction thread
    throw DbError(sqlstate::kFeatureNotSupported,
                  "a query that reads pg_stat_activity or calls pg_cancel_backend or "
                  "pg_terminate_backend cannot call sequence functions in Forktail");
  }
  std::shared_ptr<const Catalog> schemas = engine_.database().schemas();
  QueryRunContext context = RunContext();
  if (schemas) context.catalog = schemas.get();
  context.scheduler = &ImmediateScheduler();
  context.parallelism = 1;
  if (!schemas) {
    return RunStatement(request, /*writes=*/false, [&](Transaction&, const Request& r) {
      return RunQueryStatement(*r.statement, r.Bind(), context);
    });
  }
  return RunQueryStatement(*request.statement, request.Bind(), context);
}

void SqlSession::Cancel() {
  std::lock_guard<std::mutex> l(cancel_mu_);
  cancel_requested_.store(true);
  if (cancel_hook_) cancel_hook_();
}

TxnStatus SqlSession::status() const { return status_; }

std::string SqlSession::GetParameter(std::string_view name) const { return parameters_->Get(name); }

uint64_t SqlSession::parameters_version() const { return parameters_->version(); }

datetime::TimeZonePtr SqlSession::SessionTimeZone() const {
  datetime::TimeZonePtr zone = datetime::TimeZone::Find(parameters_->Get("TimeZone"));
  return zone ? zone : datetime::TimeZone::Utc();
}

const std::vector<std::string>& SqlSession::ReportedParameters() {
  return SessionParameters::Reported();
}

}  // namespace forktail
