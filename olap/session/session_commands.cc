// SqlSession: session commands (SET / SHOW / RESET / DISCARD / DEALLOCATE)
// and the extended protocol's Prepare / ExecutePrepared.
#include <algorithm>
#include <cstdio>

#include "olap/parser/ast.h"
#include "olap/plan/binder/sequence_functions.h"
#include "olap/session/block/optimistic_block.h"
#include "olap/session/block/txn_block.h"
#include "olap/session/cursor.h"
#include "olap/session/session_parameters.h"
#include "olap/session/session_request.h"
#include "olap/session/sql_session.h"
#include "olap/session/statement/parameter_template.h"
#include "olap/session/statement/query_runner.h"
#include "olap/session/statement/write_executor.h"
#include "txn/txn_engine.h"

namespace forktail {
namespace {

std::string Join(const std::vector<std::string>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); i++) out += (i ? ", " : "") + values[i];
  return out;
}

}  // namespace

// CREATE SCHEMA: Forktail has one schema for user objects, public (beside
// pg_catalog and information_schema), so the statement can only name one of
// those (pg_catalog is refused, as PostgreSQL refuses every pg_ name).
// Migration tools send CREATE SCHEMA IF NOT EXISTS "public" first: that is
// answered as PostgreSQL answers it (a notice, nothing changes); a new schema
// is 0A000, never created in name only.
StatementResult SqlSession::CreateSchemaCommand(const sql::Statement& s) {
  const sql::CreateSchemaStmt& c = *s.create_schema;
  if (c.if_not_exists && c.elements_position != 0) {
    throw DbError(sqlstate::kSyntaxError,
                  "CREATE SCHEMA IF NOT EXISTS cannot include schema elements",
                  c.elements_position);
  }
  const std::string& role = c.authorization;
  const bool current = role == "current_user" || role == "session_user" || role == "current_role";
  if (!role.empty() && !current && role != options_.user) {
    throw DbError(sqlstate::kUndefinedObject, "role \"" + role + "\" does not exist");
  }
  // CREATE SCHEMA AUTHORIZATION role names the schema after the role. Errors
  // about the objects have no position, as in PostgreSQL's.
  const std::string name = !c.name.empty() ? c.name : current ? options_.user : role;
  if (name.rfind("pg_", 0) == 0) {
    throw DbError("42939", "unacceptable schema name \"" + name +
                               "\"\nDETAIL:  The prefix \"pg_\" is reserved for system schemas.");
  }
  if (name != "public" && name != "information_schema") {
    throw DbError(sqlstate::kFeatureNotSupported,
                  "CREATE SCHEMA is not supported: Forktail has the schemas public, pg_catalog "
                  "and information_schema only",
                  s.position);
  }
  if (!c.if_not_exists) {
    throw DbError("42P06", "schema \"" + name + "\" already exists");
  }
  StatementResult result;
  result.command_tag = "CREATE SCHEMA";
  result.notices.push_back("schema \"" + name + "\" already exists, skipping");
  return result;
}

StatementResult SqlSession::SetConstraints(const sql::SetStmt& set) {
  // Every Forktail constraint is NOT DEFERRABLE (DEFERRABLE is refused when
  // a constraint is made), so this changes nothing, as in PostgreSQL for
  // such constraints: ALL and IMMEDIATE pass, a name must exist, and
  // deferring a named one fails.
  StatementResult result;
  result.command_tag = "SET CONSTRAINTS";
  if (!InBlock()) {
    result.notices.push_back(
        "WARNING 25P01:  SET CONSTRAINTS can only be used in transaction blocks");
  }
  std::shared_ptr<const Catalog> schemas = engine_.database().schemas();
  for (const std::string& written : set.values) {
    std::string name = written;
    if (const size_t dot = written.rfind('.'); dot != std::string::npos) {
      const std::string schema = written.substr(0, dot);
      if (schema != "public" && schema != "pg_catalog" && schema != "information_schema") {
        throw DbError("3F000", "schema \"" + schema + "\" does not exist");
      }
      name = schema == "public" ? written.substr(dot + 1) : written;
    }
    if (!schemas || !schemas->ConstraintNameExists(name)) {
      throw DbError(sqlstate::kUndefinedObject, "constraint \"" + name + "\" does not exist");
    }
    if (set.deferred) {
      throw DbError(sqlstate::kWrongObjectType, "constraint \"" + name + "\" is not deferrable");
    }
  }
  return result;
}

StatementResult SqlSession::SessionCommand(const sql::Statement& s) {
  StatementResult result;
  switch (s.kind) {
    case sql::StatementKind::kSet: {
      const sql::SetStmt& set = *s.set;
      if (set.constraints) return SetConstraints(set);
      result.command_tag = "SET";
      // SET TRANSACTION / SET LOCAL / SET transaction_read_only last until
      // the end of the transaction: outside a block that is this statement,
      // so PostgreSQL warns and nothing changes (the value is still checked).
      const bool transaction_scoped = set.name == "transaction_isolation" ||
                                      set.name == "transaction_read_only" ||
                                      set.name == "transaction_deferrable";
      if ((set.local || transaction_scoped) && !InBlock()) {
        SessionParameters scratch = *parameters_;
        if (!set.values.empty()) scratch.Set(set.name, Join(set.values));
        result.notices.push_back(
            set.local ? "WARNING 25P01:  SET LOCAL can only be used in transaction blocks"
                      : "WARNING 25P01:  SET TRANSACTION can only be used in transaction blocks");
        return result;
      }
      std::string read_only_name = set.name == "transaction_isolation"
                                       ? "transaction_read_only"
                                       : "default_transaction_read_only";
      std::string read_only_value;
      if (set.read_only != -1) {
        read_only_value = set.read_only == 1 ? "on" : "off";
      } else if (set.name == "transaction_read_only" && !set.values.empty()) {
        SessionParameters scratch = *parameters_;
        scratch.Set(set.name, Join(set.values));  // on / off / true / 1 ... -> on | off
        read_only_value = scratch.Get(set.name);
      }
      if (!read_only_value.empty() && read_only_name == "transaction_read_only") {
        if (read_only_value == "off" && parameters_->Get("transaction_read_only") == "on" &&
            block_ran_query_) {
          throw DbError(sqlstate::kActiveSqlTransaction,
                        "transaction read-write mode must be set before any query");
        }
        ApplySetting(read_only_name, &read_only_value, true);
        if (set.name == "transaction_read_only") return result;
      } else if (!read_only_value.empty()) {
        ApplySetting(read_only_name, &read_only_value, set.local);
      }
      if (set.is_default) {
        ApplySetting(set.name, nullptr, set.local);
      } else if (!set.values.empty()) {
        const std::string value = Join(set.values);
        ApplySetting(set.name, &value, set.local || transaction_scoped);
      }
      return result;
    }
    case sql::StatementKind::kShow: {
      const std::string& name = s.show->name;
      result.command_tag = "SHOW";
      if (name == "all") {
        result.columns = {
            {"name", Type::Text()}, {"setting", Type::Text()}, {"description", Type::Text()}};
        for (const auto& row : parameters_->All()) {
          result.rows.push_back({Value::Text(row[0]), Value::Text(row[1]), Value::Text(row[2])});
        }
        return result;
      }
      if (name == "forktail.txn_block_stats") {  // read-only, not a parameter
        // Implicit blocks (held: blocks, held_ms, idle_ms) and BEGIN blocks
        // (optimistic: commits, 40001s, steps, statements run again).
        TxnBlockStats st = TxnBlock::GlobalStats();
        OptimisticBlockStats ob = OptimisticBlock::GlobalStats();
        result.columns = {{name, Type::Text()}};
        result.rows.push_back({Value::Text(
            "blocks=" + std::to_string(st.blocks) +
            " held_ms=" + std::to_string(st.held_ns / 1000000) +
            " idle_ms=" + std::to_string(st.idle_ns / 1000000) +
            " optimistic_commits=" + std::to_string(ob.commits) +
            " serialization_failures=" + std::to_string(ob.serialization_failures) +
            " steps=" + std::to_string(ob.steps) + " reruns=" + std::to_string(ob.reruns) +
            " lock_waits=" + std::to_string(ob.lock_waits))});
        return result;
      }
      if (name == "forktail.txn_thread_stats") {  // read-only, not a parameter
        const TxnEngine::ThreadTime t = engine_.database().txn_thread_time();
        result.columns = {{name, Type::Text()}};
        result.rows.push_back(
            {Value::Text("busy_ms=" + std::to_string(t.busy_ns / 1000000) +
                         " alive_ms=" + std::to_string(t.alive_ns / 1000000) +
                         " committed=" + std::to_string(engine_.database().committed_count()))});
        return result;
      }
      if (name == "forktail.buffer_pool_stats") {  // read-only, not a parameter
        const PoolReport p = engine_.database().pool_report();
        result.columns = {{name, Type::Text()}};
        result.rows.push_back({Value::Text(
            !p.enabled ? std::string("budget=none")
                       : "budget_mb=" + std::to_string(p.budget_bytes >> 20) + " resident_mb=" +
                             std::to_string(p.resident_bytes >> 20) + " evicted=" +
                             std::to_string(p.evicted) + " read_back=" + std::to_string(p.reads) +
                             " read_mb=" + std::to_string(p.read_bytes >> 20) +
                             " from_ssd_tier=" + std::to_string(p.reads_from_tier) +
                             " restarts=" + std::to_string(p.restarts) +
                             " inline_loads=" + std::to_string(p.inline_loads) +
                             " forced_checkpoints=" + std::to_string(p.forced_checkpoints) +
                             " room_waits=" + std::to_string(p.room_waits))});
        return result;
      }
      if (name == "forktail.last_read") {  // read-only, not a parameter
        result.columns = {{name, Type::Text()}};
        std::string text = "where=none";
        if (last_read_.where == LastRead::Where::kTransactionThread) {
          text = "where=transaction_thread age_ms=0 commits_behind=0";
        } else if (last_read_.where == LastRead::Where::kSnapshot) {
          char buf[96];
          std::snprintf(buf, sizeof(buf), "where=snapshot age_ms=%.3f commits_behind=%llu",
                        last_read_.age_ms,
                        static_cast<unsigned long long>(last_read_.commits_behind));
          text = buf;
        }
        result.rows.push_back({Value::Text(std::move(text))});
        return result;
      }
      if (name == "forktail.snapshot_stats") {  // read-only, not a parameter
        result.columns = {{name, Type::Text()}};
        std::string text = "routing=in-process";
        if (SnapshotManager* snapshots = engine_.snapshots()) {
          const SnapshotStats st = snapshots->stats();
          text = "created=" + std::to_string(st.created) +
                 " live=" + std::to_string(snapshots->List().size()) +
                 " exited=" + std::to_string(st.exited_normally) +
                 " killed=" + std::to_string(st.killed) + " died=" + std::to_string(st.died);
        }
        result.rows.push_back({Value::Text(std::move(text))});
        return result;
      }
      std::string value = parameters_->Show(name);
      result.columns = {{parameters_->Canonical(name), Type::Text()}};
      result.rows.push_back({Value::Text(std::move(value))});
      return result;
    }
    case sql::StatementKind::kReset:
      result.command_tag = "RESET";
      if (s.reset->name == "all") {
        parameters_->ResetAll();
        if (settings_at_commit_) settings_at_commit_->ResetAll();
        // The open transaction keeps its own mode.
        if (settings_at_begin_) {
          parameters_->Set("transaction_read_only",
                           settings_at_commit_->Get("default_transaction_read_only"));
        }
      } else {
        ApplySetting(s.reset->name, nullptr, false);
      }
      return result;
    case sql::StatementKind::kDiscard: {
      std::string what = s.discard->what;
      if (what == "all" && status_ != TxnStatus::kIdle) {
        throw DbError(sqlstate::kActiveSqlTransaction,
                      "DISCARD ALL cannot run inside a transaction block", s.position);
      }
      if (what == "all") {
        parameters_->ResetAll();
        ApplyListen(false, "");  // UNLISTEN *
        cursors_->CloseAll();    // CLOSE ALL
        DeallocateAll();
      }
      // currval / lastval forget what this session drew.
      if (what == "all" || what == "sequences") *sequences_ = SequenceSessionState{};
      std::transform(what.begin(), what.end(), what.begin(), ::toupper);
      result.command_tag = "DISCARD " + what;
      return result;
    }
    default:
      break;
  }
  throw DbError(sqlstate::kFeatureNotSupported, "statement not supported", s.position);
}

void SqlSession::ApplySetting(const std::string& name, const std::string* value, bool local) {
  auto apply = [&](SessionParameters& p) {
    if (value != nullptr) {
      p.Set(name, *value);
    } else {
      p.Reset(name);
    }
  };
  apply(*parameters_);  // checks the value first: an invalid one changes nothing
  if (!local && settings_at_commit_) apply(*settings_at_commit_);
}

void SqlSession::BeginTransactionSettings(int read_only) {
  settings_at_begin_ = std::make_unique<SessionParameters>(*parameters_);
  settings_at_commit_ = std::make_unique<SessionParameters>(*parameters_);
  block_ran_query_ = false;
  parameters_->Set("transaction_read_only",
                   read_only == 1   ? "on"
                   : read_only == 0 ? "off"
                                    : parameters_->Get("default_transaction_read_only"));
}

void SqlSession::EndTransactionSettings(bool committed) {
  if (!settings_at_begin_) return;  // ended already (a failed block, then ROLLBACK)
  *parameters_ = committed ? *settings_at_commit_ : *settings_at_begin_;
  settings_at_begin_.reset();
  settings_at_commit_.reset();
  // Outside a transaction these show what the next one will get.
  parameters_->Set("transaction_read_only", parameters_->Get("default_transaction_read_only"));
  parameters_->Set("transaction_isolation", parameters_->Get("default_transaction_isolation"));
}

bool SqlSession::ReadOnly() const {
  return parameters_->Get(InBlock() ? "transaction_read_only" : "default_transaction_read_only") ==
         "on";
}

void SqlSession::CheckWritable(const sql::Statement& statement) const {
  if (!ReadOnly()) return;
  std::string command;
  switch (statement.kind) {
    case sql::StatementKind::kInsert:
      command = "INSERT";
      break;
    case sql::StatementKind::kUpdate:
      command = "UPDATE";
      break;
    case sql::StatementKind::kDelete:
      command = "DELETE";
      break;
    case sql::StatementKind::kCopy:
      command = "COPY FROM";
      break;
    case sql::StatementKind::kCall:
      command = "CALL";  // a procedure may write; which it does is not known before it runs
      break;
    case sql::StatementKind::kCreateTable:
      command = statement.create_table->as_query ? "CREATE TABLE AS" : "CREATE TABLE";
      break;
    case sql::StatementKind::kDropTable: {
      command = "DROP " + statement.drop->object;
      std::transform(command.begin(), command.end(), command.begin(), ::toupper);
      break;
    }
    case sql::StatementKind::kCreateIndex:
      command = "CREATE INDEX";
      break;
    case sql::StatementKind::kCreateView:
      command = "CREATE VIEW";
      break;
    case sql::StatementKind::kAlterTable:
      command = "ALTER TABLE";
      break;
    case sql::StatementKind::kTruncate:
      command = "TRUNCATE TABLE";
      break;
    case sql::StatementKind::kCreateSequence:
      command = "CREATE SEQUENCE";
      break;
    case sql::StatementKind::kAlterSequence:
      command = "ALTER SEQUENCE";
      break;
    case sql::StatementKind::kComment:
      command = "COMMENT";
      break;
    default:
      return;  // VACUUM / ANALYZE change no data: allowed, as in PostgreSQL
  }
  throw DbError(sqlstate::kReadOnlySqlTransaction,
                "cannot execute " + command + " in a read-only transaction");
}

std::shared_ptr<const PreparedStatement> SqlSession::Prepare(
    std::string_view sql, const std::vector<std::optional<Type>>& param_types) {
  std::vector<sql::StatementPtr> statements;
  try {
    statements = sql::Parse(sql);
  } catch (...) {
    OnError();
    throw;
  }
  if (statements.size() > 1) {
    OnError();
    throw DbError(sqlstate::kSyntaxError,
                  "cannot insert multiple commands into a prepared statement");
  }
  try {
    return Describe(sql, std::move(statements), param_types);
  } catch (...) {
    OnError();
    throw;
  }
}

std::shared_ptr<const PreparedStatement> SqlSession::Describe(
    std::string_view sql, std::vector<sql::StatementPtr> statements,
    const std::vector<std::optional<Type>>& types) {
  auto prepared = std::make_shared<PreparedStatement>();
  prepared->sql = std::string(sql);
  if (statements.empty()) return prepared;
  prepared->binding = std::make_shared<PreparedBinding>();
  const sql::Statement& s = *statements[0];
  CheckBlockTimeout();
  if (status_ == TxnStatus::kFailed && s.kind != sql::StatementKind::kTransaction) {
    throw DbError(sqlstate::kInFailedSqlTransaction,
                  "current transaction is aborted, commands ignored until end of transaction "
                  "block");
  }
  const size_t count = std::max<size_t>(static_cast<size_t>(s.max_parameter), types.size());
  std::vector<Type> final_types(count, Type::Text());
  for (size_t i = 0; i < types.size(); i++) {
    if (types[i]) final_types[i] = *types[i];
  }
  std::optional<StatementResult> builtin = AnswerBuiltinQuery(s);
  const sql::Statement* bindable = nullptr;
  std::optional<SessionFunctionCall> session_call = FindSessionFunctionCall(s);
  if (builtin) {
    prepared->columns = builtin->columns;
  } else if (session_call) {
    prepared->columns = {{session_call->column, Type::Text()}};
  } else if (s.kind == sql::StatementKind::kExplain) {
    prepared->columns = {{"QUERY PLAN", Type::Text()}};
    bindable = s.explain->statement.get();
  } else if (s.kind == sql::StatementKind::kShow) {
    prepared->columns = {
        {s.show->name == "all" ? "name" : parameters_->Canonical(s.show->name), Type::Text()}};
    if (s.show->name == "all") {
      prepared->columns.push_back({"setting", Type::Text()});
      prepared->columns.push_back({"description", Type::Text()});
    }
  } else if (s.kind == sql::StatementKind::kSelect || s.kind == sql::StatementKind::kInsert ||
             s.kind == sql::StatementKind::kUpdate || s.kind == sql::StatementKind::kDelete) {
    bindable = &s;
  } else if (s.kind == sql::StatementKind::kExecute) {
    // The prepared statement's columns (an unknown name fails at Execute).
    auto it = prepared_statements_.find(s.execute->name);
    if (it != prepared_statements_.end()) prepared->columns = it->second->columns;
  } else if (s.kind == sql::StatementKind::kCall) {
    DescribeCall(*s.call, types, &final_types, &prepared->columns);
  } else if (s.kind == sql::StatementKind::kDeclare) {
    bindable = s.declare->query.get();  // its parameters; DECLARE returns no rows
  } else if (s.kind == sql::StatementKind::kFetch && !s.fetch->move) {
    // PostgreSQL describes a FETCH by its cursor as it is now (no rows, and
    // no error, when there is none yet).
    if (std::optional<std::vector<ResultColumn>> columns = CursorColumns(s.fetch->name)) {
      prepared->columns = std::move(*columns);
    }
  }
  if (bindable != nullptr) {
    // Binding needs only schemas. Outside a block: against the immutable
    // copy published at the last schema change (Database::schemas), without
    // queueing on the transaction thread, which another session's block may
    // hold while its client (pgbench -j 1) waits for this answer. Inside the
    // session's own block once it ran DDL: in the block, whose uncommitted
    // DDL it must see (TxnBlock::changed_schema).
    BindOptions options;
    options.parameter_types = types;
    options.session = catalog_session_;
    BoundStatement bound;
    if (BlockChangedSchema()) {
      OnTxnThread([&](Transaction&) {
        bound = Bind(*bindable, engine_.database().frozen_catalog(), options);
      });
    } else {
      std::shared_ptr<const Catalog> schemas = engine_.database().schemas();
      bound = Bind(*bindable, *schemas, options);
    }
    for (size_t i = 0; i < bound.parameter_types.size() && i < final_types.size(); i++) {
      final_types[i] = bound.parameter_types[i];
    }
    if (bound.kind == BoundStatementKind::kQuery && s.kind != sql::StatementKind::kExplain &&
        s.kind != sql::StatementKind::kDeclare && bound.plan) {
      for (const LogicalColumn& c : bound.plan->columns)
        prepared->columns.push_back({c.name, c.type});
    }
    for (const LogicalColumn& c : bound.returning_columns) {
      prepared->columns.push_back({c.name, c.type});
    }
  }
  prepared->parameter_types = std::move(final_types);
  prepared->statement = std::shared_ptr<const sql::Statement>(std::move(statements[0]));
  return prepared;
}

StatementResult SqlSession::ExecutePrepared(const PreparedStatement& prepared,
                                            const std::vector<Value>& params) {
  cancel_requested_.store(false);
  if (copy_) throw DbError(sqlstate::kProtocolViolation, "a COPY FROM STDIN is in progress");
  if (!prepared.statement) return StatementResult{};  // empty query
  if (params.size() != prepared.parameter_types.size()) {
    throw DbError(sqlstate::kProtocolViolation,
                  "bind message supplies " + std::to_string(params.size()) +
                      " parameters, but prepared statement requires " +
                      std::to_string(prepared.parameter_types.size()));
  }
  Request request;
  request.statement = prepared.statement.get();
  request.statement_owner = prepared.statement;
  request.binding = prepared.binding;
  request.text = prepared.sql;
  request.time_zone = SessionTimeZone();
  datetime::ScopedTimeZone zone(request.time_zone);
  for (size_t i = 0; i < params.size(); i++) {
    const Type& t = prepared.parameter_types[i];
    request.parameter_types.push_back(t);
    try {
      request.parameters.push_back(params[i].is_null() ? Value::Null(t) : params[i].CastTo(t));
    } catch (...) {
      OnError();
      throw;
    }
  }
  try {
    const sql::StatementKind kind = prepared.statement->kind;
    if (more_before_sync_ && status_ == TxnStatus::kIdle &&
        (kind == sql::StatementKind::kInsert || kind == sql::StatementKind::kUpdate ||
         kind == sql::StatementKind::kDelete || kind == sql::StatementKind::kCall)) {
      OpenOptimisticBlock(-1);
      implicit_optimistic_ = true;
    }
    StatementResult result = Dispatch(request);
    // The statement is bound again at each execution; a result shape that
    // differs from what Describe announced (a table dropped and re-created
    // since) fails as PostgreSQL's plan cache does.
    if (prepared.statement->kind == sql::StatementKind::kSelect &&
        result.columns != prepared.columns) {
      throw DbError(sqlstate::kFeatureNotSupported, "cached plan must not change result type");
    }
    return result;
  } catch (...) {
    OnError();
    throw;
  }
}

}  // namespace forktail
