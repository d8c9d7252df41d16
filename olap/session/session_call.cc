// SqlSession: CALL name(arguments), which runs a stored procedure the
// embedding application registered (Database::RegisterProcedure) as one
// statement. It is a write like INSERT: on its own it is one transaction,
// acknowledged once durable; in a block (BEGIN ... COMMIT, a multi-statement
// string, the extended protocol's implicit transaction) it runs there and,
// in an optimistic block, again at COMMIT, whose result must equal what the
// client was given. The rows the procedure Emit()s are the statement's rows,
// with the columns it declared.
#include "forktail/database.h"
#include "olap/parser/ast.h"
#include "olap/plan/binder/binder.h"
#include "olap/plan/catalog/system_catalog.h"
#include "olap/session/session_request.h"
#include "olap/session/sql_session.h"
#include "storage/error.h"

namespace forktail {
namespace {

// A call whose arguments are evaluated: what each run of it needs.
struct BoundCall {
  std::string name;
  Procedure body;
  std::vector<Value> arguments;
  std::vector<ResultColumn> columns;
};

std::vector<ResultColumn> ResultColumns(const ProcedureSignature& signature) {
  std::vector<ResultColumn> columns;
  for (const ProcedureColumn& c : signature.result) columns.push_back({c.name, c.type});
  return columns;
}

// The emitted rows as the statement's rows: one value per declared column,
// each of its column's type.
std::vector<Row> TakeRows(const BoundCall& call, std::vector<Row>& output, size_t from) {
  std::vector<Row> rows;
  rows.reserve(output.size() - from);
  if (from < output.size() && call.columns.empty()) {
    throw DbError("42P13",
                  "procedure " + call.name + " emitted rows, but declares no result columns")
        .WithHint("Register it with a ProcedureColumn for each value of the rows it emits.");
  }
  for (size_t r = from; r < output.size(); r++) {
    Row& row = output[r];
    if (row.size() != call.columns.size()) {
      throw DbError("42P13", "procedure " + call.name + " emitted a row of " +
                                 std::to_string(row.size()) + " values, but declares " +
                                 std::to_string(call.columns.size()) + " result columns")
          .WithHint("Register it with a ProcedureColumn for each value of the rows it emits.");
    }
    for (size_t c = 0; c < row.size(); c++) {
      const Type& want = call.columns[c].type;
      if (row[c].is_null()) {
        row[c] = Value::Null(want);
      } else if (!(row[c].type() == want)) {
        row[c] = row[c].CastTo(want);
      }
    }
    rows.push_back(std::move(row));
  }
  output.resize(from);
  return rows;
}

}  // namespace

StatementResult SqlSession::CallProcedure(const Request& request) {
  const sql::Statement& statement = *request.statement;
  const sql::CallStmt& call = *statement.call;
  std::optional<Database::RegisteredProcedure> procedure =
      engine_.database().FindProcedure(call.name);
  std::optional<std::vector<std::optional<Type>>> types;
  if (procedure) types = procedure->signature.ArgumentTypes(call.arguments.size());

  auto bound = std::make_shared<BoundCall>();
  bound->name = call.name;
  {
    std::shared_ptr<const Catalog> schemas = engine_.database().schemas();
    bound->arguments = EvaluateCallArguments(
        call.name, call.arguments,
        types.value_or(std::vector<std::optional<Type>>(call.arguments.size())), *schemas,
        request.Bind());
  }
  if (!types) {
    // PostgreSQL's answer when no procedure takes these arguments.
    std::string given;
    for (size_t i = 0; i < bound->arguments.size(); i++) {
      given += (i ? ", " : "") + bound->arguments[i].type().ToString();
    }
    throw DbError(kUndefinedFunction, "procedure " + call.name + "(" + given + ") does not exist",
                  statement.position)
        .WithHint(
            "No procedure matches the given name and argument types. You might need to add "
            "explicit type casts.");
  }
  bound->body = std::move(procedure->body);
  bound->columns = ResultColumns(procedure->signature);

  return RunStatement(
      request, /*writes=*/true,
      [bound](Transaction& txn, const Request&) {
        const size_t from = txn.output().size();
        bound->body(txn, bound->arguments);
        StatementResult result;
        result.rows = TakeRows(*bound, txn.output(), from);
        result.columns = bound->columns;
        result.command_tag = "CALL";
        return result;
      },
      nullptr, nullptr, nullptr);
}

void SqlSession::DescribeCall(const sql::CallStmt& call,
                              const std::vector<std::optional<Type>>& client_types,
                              std::vector<Type>* parameter_types,
                              std::vector<ResultColumn>* columns) const {
  // An unknown procedure or arguments that do not fit fail at Execute.
  std::optional<Database::RegisteredProcedure> procedure =
      engine_.database().FindProcedure(call.name);
  if (!procedure) return;
  *columns = ResultColumns(procedure->signature);
  std::optional<std::vector<std::optional<Type>>> types =
      procedure->signature.ArgumentTypes(call.arguments.size());
  if (!types) return;
  for (size_t i = 0; i < call.arguments.size(); i++) {
    const sql::Expr& argument = *call.arguments[i];
    if (argument.kind != sql::ExprKind::kParameter || !(*types)[i]) continue;
    const size_t n = static_cast<size_t>(argument.param_index) - 1;
    const bool client_typed = n < client_types.size() && client_types[n];
    if (n < parameter_types->size() && !client_typed) (*parameter_types)[n] = *(*types)[i];
  }
}

std::vector<CatalogProcedure> CatalogProcedures(const Database& db) {
  std::vector<CatalogProcedure> out;
  for (const std::string& name : db.ProcedureNames()) {
    std::optional<Database::RegisteredProcedure> p = db.FindProcedure(name);
    if (!p) continue;  // replaced meanwhile
    const ProcedureSignature& signature = p->signature;
    out.push_back({name, signature.parameters, signature.variadic, signature.any_arguments,
                   !signature.result.empty()});
  }
  return out;
}

}  // namespace forktail
