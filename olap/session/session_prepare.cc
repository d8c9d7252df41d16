// SqlSession: SQL-level prepared statements. PREPARE name [(types)] AS
// statement, EXECUTE name [(arguments)], DEALLOCATE [PREPARE] name | ALL.
//
// A SQL PREPARE is the extended protocol's Parse by other means: the same
// Describe (its $n get the declared types, or the ones the binder infers),
// and EXECUTE runs it as ExecutePrepared does, with the arguments evaluated
// first. Its names share one namespace with the protocol's named statements
// (the server's, reached through SessionOptions), as in PostgreSQL.
#include "olap/parser/ast.h"
#include "olap/parser/parser.h"
#include "olap/plan/binder/binder.h"
#include "olap/session/session_request.h"
#include "olap/session/sql_session.h"
#include "txn/txn_engine.h"

namespace forktail {
namespace {

std::string Quoted(const std::string& name) { return "\"" + name + "\""; }

[[noreturn]] void NoSuchStatement(const std::string& name) {
  throw DbError(sqlstate::kInvalidSqlStatementName,
                "prepared statement " + Quoted(name) + " does not exist");
}

}  // namespace

StatementResult SqlSession::PrepareCommand(const Request& request) {
  const sql::PrepareStmt& prepare = *request.statement->prepare;
  const bool protocol_has =
      options_.protocol_statement_exists && options_.protocol_statement_exists(prepare.name);
  if (prepared_statements_.count(prepare.name) != 0 || protocol_has) {
    throw DbError("42P05", "prepared statement " + Quoted(prepare.name) + " already exists");
  }
  std::vector<std::optional<Type>> types;
  for (const sql::TypeName& t : prepare.types) types.emplace_back(TypeFromName(t));
  // The statement is parsed again from its own text, so that the prepared
  // statement owns what it refers to (the query string goes away).
  const sql::Statement& inner = *prepare.statement;
  std::string_view body = request.text.substr(inner.begin, inner.end - inner.begin);
  std::shared_ptr<const PreparedStatement> prepared = Describe(body, sql::Parse(body), types);
  prepared_statements_[prepare.name] = std::move(prepared);
  StatementResult result;
  result.command_tag = "PREPARE";
  return result;
}

StatementResult SqlSession::ExecuteCommand(const Request& request) {
  const sql::ExecuteStmt& execute = *request.statement->execute;
  auto it = prepared_statements_.find(execute.name);
  if (it == prepared_statements_.end()) {
    if (options_.protocol_statement_exists && options_.protocol_statement_exists(execute.name)) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    "EXECUTE of a statement prepared by the protocol's Parse message is not "
                    "supported")
          .WithHint("PREPARE it in SQL, or execute it with Bind and Execute.");
    }
    NoSuchStatement(execute.name);
  }
  // Held while it runs: a DEALLOCATE inside it cannot free it.
  const std::shared_ptr<const PreparedStatement> prepared = it->second;
  const std::vector<Type>& types = prepared->parameter_types;
  if (execute.arguments.size() != types.size()) {
    // PostgreSQL's DETAIL ("Expected 1 parameters but got 0.") as a hint.
    throw DbError(sqlstate::kSyntaxError,
                  "wrong number of parameters for prepared statement " + Quoted(execute.name))
        .WithHint("Expected " + std::to_string(types.size()) + " parameters but got " +
                  std::to_string(execute.arguments.size()) + ".");
  }
  std::vector<Value> values;
  {
    std::shared_ptr<const Catalog> schemas = engine_.database().schemas();
    values = EvaluateExecuteArguments(execute.arguments, types, *schemas, request.Bind());
  }
  if (!prepared->statement) return StatementResult{};
  Request run = request;
  run.statement = prepared->statement.get();
  run.statement_owner = prepared->statement;
  run.binding = prepared->binding;
  run.text = prepared->sql;
  run.parameter_types.assign(types.begin(), types.end());
  run.parameters = std::move(values);
  StatementResult result = Route(run);
  if (prepared->statement->kind == sql::StatementKind::kSelect &&
      result.columns != prepared->columns) {
    throw DbError(sqlstate::kFeatureNotSupported, "cached plan must not change result type");
  }
  return result;
}

StatementResult SqlSession::DeallocateCommand(const sql::Statement& statement) {
  const sql::DeallocateStmt& deallocate = *statement.deallocate;
  StatementResult result;
  if (deallocate.all) {
    DeallocateAll();
    result.command_tag = "DEALLOCATE ALL";
    return result;
  }
  const bool dropped =
      prepared_statements_.erase(deallocate.name) != 0 ||
      (options_.drop_protocol_statement && options_.drop_protocol_statement(deallocate.name));
  if (!dropped) NoSuchStatement(deallocate.name);
  result.command_tag = "DEALLOCATE";
  return result;
}

void SqlSession::DeallocateAll() {
  prepared_statements_.clear();
  if (options_.drop_protocol_statements) options_.drop_protocol_statements();
}

}  // namespace forktail
