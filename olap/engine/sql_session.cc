#include "olap/engine/sql_session.h"

#include <algorithm>

#include "olap/engine/point_statement.h"
#include "olap/engine/query_runner.h"
#include "olap/engine/row_codec.h"
#include "olap/engine/session_parameters.h"
#include "olap/engine/session_request.h"
#include "olap/engine/txn_block.h"
#include "olap/engine/write_executor.h"
#include "olap/sql/ast.h"

namespace forktail {

namespace {

[[noreturn]] void ThrowResult(const TxnResult& r) {
  throw DbError(InternSqlstate(r.sqlstate), r.message);
}

bool IsTransactionControl(const sql::Statement& s) {
  return s.kind == sql::StatementKind::kTransaction;
}

}  // namespace

SqlSession::SqlSession(SqlEngine& engine, SessionOptions options)
    : engine_(engine),
      options_(std::move(options)),
      parameters_(std::make_unique<SessionParameters>(options_.user, options_.application_name)) {
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
  std::vector<sql::StatementPtr> statements;
  try {
    statements = sql::Parse(sql);
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
    implicit_block_ = true;
    status_ = TxnStatus::kInBlock;
  }
  for (size_t i = 0; i < statements.size(); i++) {
    Request request;
    request.statement = statements[i].get();
    request.text = sql;
    StatementResult result;
    try {
      if (statements[i]->kind == sql::StatementKind::kCopy && statements[i]->copy->std_stream &&
          statements.size() > 1 && implicit_block_) {
        throw DbError(sqlstate::kFeatureNotSupported,
                      "COPY FROM STDIN must be the only statement of its query string (or run "
                      "inside BEGIN ... COMMIT)",
                      statements[i]->position);
      }
      result = Dispatch(request);
      if (copy_ && i + 1 < statements.size()) {
        if (!copy_->in_block) copy_->loader->Abort();
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
  if (implicit_block_) {
    TxnResult r = block_->Finish(true);
    block_.reset();
    implicit_block_ = false;
    status_ = TxnStatus::kIdle;
    if (!r.ok) ThrowResult(r);
    if (r.commit_lsn != wal::kInvalidLsn)
      last_commit_lsn_ = std::max(last_commit_lsn_, r.commit_lsn);
  }
}

void SqlSession::OnError() {
  if (status_ != TxnStatus::kInBlock) return;
  if (block_) block_->Finish(false);
  block_.reset();
  if (implicit_block_) {
    implicit_block_ = false;
    status_ = TxnStatus::kIdle;
  } else {
    status_ = TxnStatus::kFailed;
  }
}

void SqlSession::CheckBlockTimeout() {
  if (status_ == TxnStatus::kInBlock && block_ && block_->timed_out()) {
    block_->Finish(false);
    block_.reset();
    status_ = TxnStatus::kIdle;
    throw DbError(kIdleInTransactionTimeout,
                  "terminating transaction: idle in transaction timeout exceeded");
  }
}

StatementResult SqlSession::Dispatch(const Request& request) {
  CheckBlockTimeout();
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
    case sql::StatementKind::kDeallocate:
      return SessionCommand(s);
    case sql::StatementKind::kSelect:
    case sql::StatementKind::kExplain:
      return Read(request);
    case sql::StatementKind::kCopy:
      return StartCopy(request);
    default:
      if (WriteExecutor::Handles(s)) return Write(request);
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
    case sql::TransactionKind::kBegin:
      result.command_tag = "BEGIN";
      if (status_ == TxnStatus::kFailed) {
        throw DbError(sqlstate::kInFailedSqlTransaction,
                      "current transaction is aborted, commands ignored until end of "
                      "transaction block");
      }
      if (status_ == TxnStatus::kInBlock) {
        result.notices.push_back("there is already a transaction in progress");
        return result;
      }
      block_ = std::make_unique<TxnBlock>(
          engine_.database(),
          std::chrono::milliseconds(engine_.options().idle_in_transaction_hold_ms));
      block_->Start();
      status_ = TxnStatus::kInBlock;
      return result;
    case sql::TransactionKind::kCommit:
      if (status_ == TxnStatus::kIdle) {
        result.command_tag = "COMMIT";
        result.notices.push_back("there is no transaction in progress");
        return result;
      }
      if (status_ == TxnStatus::kFailed) {
        status_ = TxnStatus::kIdle;
        result.command_tag = "ROLLBACK";
        return result;
      }
      {
        TxnResult r = block_->Finish(true);
        const bool timed_out = block_->timed_out();  // just before COMMIT arrived
        block_.reset();
        status_ = TxnStatus::kIdle;
        if (timed_out) {
          throw DbError(kIdleInTransactionTimeout,
                        "terminating transaction: idle in transaction timeout exceeded");
        }
        if (!r.ok) ThrowResult(r);
        if (r.commit_lsn != wal::kInvalidLsn) {
          last_commit_lsn_ = std::max(last_commit_lsn_, r.commit_lsn);
        }
      }
      result.command_tag = "COMMIT";
      return result;
    case sql::TransactionKind::kRollback:
      result.command_tag = "ROLLBACK";
      if (status_ == TxnStatus::kIdle) {
        result.notices.push_back("there is no transaction in progress");
        return result;
      }
      if (block_) block_->Finish(false);
      block_.reset();
      status_ = TxnStatus::kIdle;
      return result;
  }
  return result;
}

void SqlSession::OnTxnThread(const std::function<void(Transaction&)>& work) {
  if (block_) {
    block_->Run(work);
    return;
  }
  std::exception_ptr error;
  TxnResult r = engine_.database().Run([&](Transaction& txn) {
    try {
      work(txn);
    } catch (...) {
      error = std::current_exception();
      throw;
    }
  });
  if (error) std::rethrow_exception(error);
  if (!r.ok) ThrowResult(r);
  if (r.commit_lsn != wal::kInvalidLsn) last_commit_lsn_ = std::max(last_commit_lsn_, r.commit_lsn);
}

// Binding needs only schemas: done here, on the session's thread, against
// the published copy, so the transaction thread (which a block holds) only
// executes (point_statement.h). The transaction body checks that the copy is
// still the live catalog's schema version and binds again if not.
std::optional<PreBoundStatement> SqlSession::PreBindRequest(const Request& request) {
  if (block_ && block_->changed_schema()) return std::nullopt;  // would be stale
  std::shared_ptr<const Catalog> schemas = engine_.database().schemas();
  if (!schemas) return std::nullopt;
  return PreBind(*request.statement, request.Bind(), *schemas);
}

StatementResult SqlSession::Write(const Request& request) {
  const sql::StatementKind kind = request.statement->kind;
  const bool dml = kind == sql::StatementKind::kInsert || kind == sql::StatementKind::kUpdate ||
                   kind == sql::StatementKind::kDelete;
  if (!dml && block_) block_->NoteSchemaChange();
  std::optional<PreBoundStatement> pre;
  if (dml) pre = PreBindRequest(request);
  StatementResult result;
  OnTxnThread([&](Transaction& txn) {
    QueryRunContext context;
    context.catalog = &engine_.database().frozen_catalog();
    context.scheduler = &engine_.scheduler();
    context.parallelism = engine_.options().parallelism;
    context.cancel = &cancel_requested_;
    WriteExecutor writer(txn, context);
    if (pre && pre->Current(engine_.database().frozen_catalog())) {
      CountPreBoundExecution();
      result = writer.ExecuteBound(*request.statement, std::move(pre->bound));
      return;
    }
    result = writer.Execute(*request.statement, request.Bind());
  });
  return result;
}

StatementResult SqlSession::Read(const Request& request) {
  if (std::optional<StatementResult> builtin = AnswerBuiltinQuery(*request.statement)) {
    return std::move(*builtin);
  }
  if (!block_ && engine_.options().routing == ReadRouting::kSnapshot) {
    return ReadFromSnapshot(request);
  }
  // In a block (it must see its own writes) or in-process routing: on the
  // transaction thread, where nothing mutates the tables while it runs. A
  // SELECT by primary key reads its row there directly (point_statement.h).
  std::optional<PreBoundStatement> pre = PreBindRequest(request);
  StatementResult result;
  OnTxnThread([&](Transaction& txn) {
    if (pre && pre->point_select && pre->Current(engine_.database().frozen_catalog())) {
      if (std::optional<StatementResult> point = pre->point_select->Execute(txn)) {
        CountPreBoundExecution();
        result = std::move(*point);
        return;
      }
    }
    QueryRunContext context;
    context.catalog = &engine_.database().frozen_catalog();
    context.scheduler = &engine_.scheduler();
    context.parallelism = engine_.options().parallelism;
    context.cancel = &cancel_requested_;
    result = RunQueryStatement(*request.statement, request.Bind(), context);
  });
  return result;
}

void SqlSession::Cancel() {
  std::lock_guard<std::mutex> l(cancel_mu_);
  cancel_requested_.store(true);
  if (cancel_hook_) cancel_hook_();
}

TxnStatus SqlSession::status() const { return status_; }

std::string SqlSession::GetParameter(std::string_view name) const { return parameters_->Get(name); }

const std::vector<std::string>& SqlSession::ReportedParameters() {
  return SessionParameters::Reported();
}

}  // namespace forktail
