#include "olap/session/statement/query_runner.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "olap/common/freed_memory.h"
#include "olap/parser/ast.h"
#include "olap/plan/optimizer/optimizer.h"
#include "olap/plan/planner/executor.h"
#include "olap/plan/planner/explain.h"
#include "scheduler/memory_governor.h"

namespace forktail {
namespace {

bool IsCurrentSchemaCall(const sql::Expr& e) {
  if (e.kind != sql::ExprKind::kFunction || !e.children.empty() || e.star) return false;
  if (e.names.size() == 1) return e.names[0] == "current_schema";
  return e.names.size() == 2 && e.names[0] == "pg_catalog" && e.names[1] == "current_schema";
}

// The one item of `SELECT item` without FROM or any other clause; nullptr
// for any other statement.
const sql::SelectItem* SoleSelectItem(const sql::Statement& statement) {
  if (statement.kind != sql::StatementKind::kSelect || !statement.query) return nullptr;
  const sql::Query& q = *statement.query;
  if (q.kind != sql::QueryKind::kSelect || !q.from.empty() || q.where ||
      q.select_list.size() != 1 || !q.group_by.empty() || !q.grouping_sets.empty() || q.having ||
      !q.order_by.empty() || q.limit || q.offset || !q.with.empty() || !q.locking.empty() ||
      q.distinct || !q.select_list[0].expr) {
    return nullptr;
  }
  return &q.select_list[0];
}

}  // namespace

std::optional<SessionFunctionCall> FindSessionFunctionCall(const sql::Statement& statement) {
  const sql::SelectItem* item = SoleSelectItem(statement);
  if (item == nullptr) return std::nullopt;
  const sql::Expr& e = *item->expr;
  if (e.kind != sql::ExprKind::kFunction || e.star || e.names.empty() || e.names.size() > 2 ||
      (e.names.size() == 2 && e.names[0] != "pg_catalog")) {
    return std::nullopt;
  }
  struct Known {
    const char* name;
    size_t arguments;
    SessionFunction function;
  };
  static constexpr Known kKnown[] = {{"set_config", 3, SessionFunction::kSetConfig},
                                     {"pg_sleep", 1, SessionFunction::kPgSleep},
                                     {"pg_notify", 2, SessionFunction::kPgNotify}};
  const std::string& name = e.names.back();
  for (const Known& k : kKnown) {
    if (name == k.name && e.children.size() == k.arguments) {
      return SessionFunctionCall{k.function, &e, item->alias.empty() ? name : item->alias};
    }
  }
  return std::nullopt;
}

// One query may take half of the server-wide budget, so that a runaway query
// fails on its own limit while other sessions' queries still find memory; the
// governor fails a query with 53200 when others hold the rest.
size_t DefaultQueryMemoryLimit() { return MemoryGovernor::Global().budget() / 2; }
size_t DefaultSchedulerMemoryBudget() {
  return std::max(size_t{1} << 30, MemoryGovernor::Global().budget());
}

namespace {

ExecuteOptions OptionsOf(const QueryRunContext& context) {
  ExecuteOptions options;
  options.parallelism = context.parallelism;
  options.cancel = context.cancel;
  options.memory_limit = context.memory_limit;
  // The estimate-based limit never exceeds the query's own.
  options.max_memory = std::min(options.max_memory, context.memory_limit);
  options.index_only_row_limit = context.index_only_row_limit;
  return options;
}

std::vector<Row> ExecutePlan(const LogicalOp& plan, const QueryRunContext& context) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<Row> rows =
      ExecuteQuery(*context.scheduler, plan, *context.catalog, OptionsOf(context)).rows;
  ReturnFreedMemory(std::chrono::steady_clock::now() - start);
  return rows;
}

bool OptionIsOn(const sql::Option& o) {
  return !o.has_value || (o.value != "false" && o.value != "off" && o.value != "0");
}

StatementResult Explain(const sql::Statement& statement, const BindOptions& options,
                        const QueryRunContext& context) {
  const sql::ExplainStmt& explain = *statement.explain;
  bool analyze = explain.analyze;
  for (const sql::Option& o : explain.options) {
    if (o.name == "analyze") analyze = OptionIsOn(o);
  }
  const sql::Statement& inner = *explain.statement;
  if (inner.kind != sql::StatementKind::kSelect) {
    throw DbError(sqlstate::kFeatureNotSupported, "EXPLAIN supports only queries", inner.position);
  }
  BoundStatement bound = Bind(inner, *context.catalog, options);
  LogicalOpPtr plan = Optimize(std::move(bound.plan), *context.catalog);
  StatementResult result;
  result.columns = {{"QUERY PLAN", Type::Text()}};
  for (std::string& line :
       ExplainLines(*plan, *context.catalog, analyze, *context.scheduler, OptionsOf(context))) {
    result.rows.push_back({Value::Text(std::move(line))});
  }
  result.command_tag = "EXPLAIN";
  if (analyze) ReturnFreedMemory();
  return result;
}

}  // namespace

// Clients (psql's \d, JDBC, psycopg) ask `SELECT current_schema()` on
// connect. Forktail has one schema, public; the binder has no schema
// functions, so the engine answers that exact query itself. Anything more
// elaborate (current_schema() in an expression, with FROM) goes to the binder.
std::optional<StatementResult> AnswerBuiltinQuery(const sql::Statement& statement) {
  const sql::SelectItem* sole = SoleSelectItem(statement);
  if (sole == nullptr || !IsCurrentSchemaCall(*sole->expr)) return std::nullopt;
  const sql::SelectItem& item = *sole;
  StatementResult result;
  result.columns = {{item.alias.empty() ? "current_schema" : item.alias, Type::Text()}};
  result.rows.push_back({Value::Text("public")});
  result.command_tag = "SELECT 1";
  return result;
}

Scheduler& ImmediateScheduler() {
  // Handing a few hundred rows to the scheduler's workers and back costs
  // more in thread wake-ups than the work (perf: most of the time in futex
  // waits). One per thread that runs them.
  thread_local Scheduler scheduler([] {
    SchedulerOptions options;
    options.immediate = true;
    return options;
  }());
  return scheduler;
}

namespace {

QueryRunContext SerialIf(const QueryRunContext& context, SequenceUse sequences) {
  QueryRunContext serial = context;
  if (sequences != SequenceUse::kNone) {
    serial.scheduler = &ImmediateScheduler();
    serial.parallelism = 1;
  }
  return serial;
}

}  // namespace

std::vector<Row> RunLogicalPlan(LogicalOpPtr plan, const QueryRunContext& context,
                                SequenceUse sequences) {
  plan = Optimize(std::move(plan), *context.catalog);
  return ExecutePlan(*plan, SerialIf(context, sequences));
}

StatementResult RunQueryStatement(const sql::Statement& statement, const BindOptions& options,
                                  const QueryRunContext& context) {
  if (std::optional<StatementResult> builtin = AnswerBuiltinQuery(statement)) {
    return std::move(*builtin);
  }
  if (statement.kind == sql::StatementKind::kExplain) return Explain(statement, options, context);
  BoundStatement bound = Bind(statement, *context.catalog, options);
  if (bound.kind != BoundStatementKind::kQuery || !bound.plan) {
    throw DbError(sqlstate::kInternalError, "a query statement did not bind to a query");
  }
  StatementResult result;
  for (const LogicalColumn& c : bound.plan->columns) result.columns.push_back({c.name, c.type});
  LogicalOpPtr plan = Optimize(std::move(bound.plan), *context.catalog);
  result.rows = ExecutePlan(*plan, SerialIf(context, bound.sequence_use));
  result.command_tag = "SELECT " + std::to_string(result.rows.size());
  return result;
}

}  // namespace forktail
