// Running a query statement (SELECT, VALUES, EXPLAIN [ANALYZE]) in one
// process over a Catalog that nothing mutates while it runs: a snapshot
// process's frozen catalog, or the live one from inside a transaction body on
// the transaction thread. Parse -> Bind -> Optimize -> plan -> execute on the
// given Scheduler; the rows are materialized.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "olap/plan/binder/binder.h"
#include "olap/plan/logical.h"
#include "olap/session/statement_result.h"
#include "scheduler/scheduler.h"
#include "storage/storage.h"

namespace forktail {

namespace sql {
struct Statement;
}  // namespace sql

// Memory defaults from the server-wide MemoryGovernor's budget (by default
// half of RAM or of the cgroup's limit): one query may use half of it (the
// governor fails it with 53200 sooner when other queries hold the rest); a
// scheduler admits queries whose estimates sum to it (at least 1 GiB).
size_t DefaultQueryMemoryLimit();
size_t DefaultSchedulerMemoryBudget();

struct QueryRunContext {
  const Catalog* catalog = nullptr;
  Scheduler* scheduler = nullptr;
  int parallelism = 2;
  // Set by whoever wants the query to stop; the runner cancels the scheduler
  // query when it sees it (checked every few milliseconds).
  const std::atomic<bool>* cancel = nullptr;
  // Hard memory cap of one query (53200 beyond it); the planner's estimate
  // only decides admission.
  size_t memory_limit = DefaultQueryMemoryLimit();
  // ExecuteOptions::index_only_row_limit: a read on the transaction thread
  // (RunQueryStatement may throw ReadNeedsSnapshot).
  size_t index_only_row_limit = 0;
};

// The statement is a kSelect or kExplain; throws DbError.
StatementResult RunQueryStatement(const sql::Statement& statement, const BindOptions& options,
                                  const QueryRunContext& context);

// Executes an already bound plan (INSERT ... SELECT's source); returns its
// rows. `sequences`: the plan calls sequence functions (BoundStatement::
// sequence_use), so it runs as RunQueryStatement runs such a query.
std::vector<Row> RunLogicalPlan(LogicalOpPtr plan, const QueryRunContext& context,
                                SequenceUse sequences = SequenceUse::kNone);

// The calling thread's scheduler that runs a query's work orders one after
// another on that thread, without workers: for short reads on the
// transaction thread, and for queries that call sequence functions, whose
// kernels must run on the statement's thread, in row order (RunQueryStatement
// uses it for those by itself).
Scheduler& ImmediateScheduler();

// Queries the binder cannot bind yet but clients send on connect, answered
// here (see the .cc): nullopt when `statement` is not one of them.
std::optional<StatementResult> AnswerBuiltinQuery(const sql::Statement& statement);

// `SELECT set_config(name, value, is_local)`, `SELECT pg_sleep(seconds)` and
// `SELECT pg_notify(channel, payload)` alone (what pg_dump, drivers and scripts send): they act on
// the session, not on data, so the session runs them itself (session_functions.cc); the binder
// refuses them anywhere else with 0A000.
enum class SessionFunction : uint8_t { kSetConfig, kPgSleep, kPgNotify };
struct SessionFunctionCall {
  SessionFunction function;
  const sql::Expr* call;  // its arguments are call->children
  std::string column;     // the result column's name
};
std::optional<SessionFunctionCall> FindSessionFunctionCall(const sql::Statement& statement);

}  // namespace forktail
