// Functions that act on the session, not on data, run by the session when a
// statement is one call alone (FindSessionFunctionCall, query_runner.h):
//   SELECT set_config(name, value, is_local)  -- pg_dump, drivers: SET by name
//   SELECT pg_sleep(seconds)                  -- scripts and tests
//   SELECT pg_notify(channel, payload)        -- NOTIFY (session_notify.cc)
// Neither reaches the transaction thread or a snapshot: pg_sleep waits on the
// connection's thread and stops at a cancel or statement_timeout (57014).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>

#include "olap/parser/ast.h"
#include "olap/session/session_parameters.h"
#include "olap/session/session_request.h"
#include "olap/session/sql_session.h"
#include "olap/session/statement/query_runner.h"
#include "storage/error.h"

namespace forktail {
namespace {

// An argument's value: a literal or a $n parameter, possibly cast (the cast
// is left to the function: its arguments are text, a boolean and a number).
// nullopt for NULL. Anything computed is refused with 0A000.
std::optional<std::string> ArgumentText(const sql::Expr& arg, const std::vector<Value>& parameters,
                                        const std::string& function) {
  const sql::Expr* e = &arg;
  while (e->kind == sql::ExprKind::kCast && !e->children.empty()) e = e->children[0].get();
  if (e->kind == sql::ExprKind::kLiteral) {
    switch (e->literal_kind) {
      case sql::LiteralKind::kNull:
        return std::nullopt;
      case sql::LiteralKind::kBoolean:
      case sql::LiteralKind::kInteger:
      case sql::LiteralKind::kNumeric:
      case sql::LiteralKind::kString:
        return e->text;
      default:
        break;
    }
  } else if (e->kind == sql::ExprKind::kParameter && e->param_index >= 1 &&
             static_cast<size_t>(e->param_index) <= parameters.size()) {
    const Value& v = parameters[static_cast<size_t>(e->param_index) - 1];
    if (v.is_null()) return std::nullopt;
    return v.type().IsString() ? std::string(v.GetString()) : v.ToString();
  }
  throw DbError(sqlstate::kFeatureNotSupported,
                function +
                    "() of an argument that is not a constant or a parameter is not "
                    "supported",
                arg.position);
}

// PostgreSQL's boolean input (true/false, yes/no, on/off, 1/0, prefixes).
bool ParseBoolean(const std::string& text, int position) {
  std::string t;
  for (char c : text) {
    if (c != ' ') t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  auto prefix_of = [&](const char* word) {
    return !t.empty() && std::string_view(word).substr(0, t.size()) == t;
  };
  if (t == "1" || t == "on" || prefix_of("true") || prefix_of("yes")) return true;
  if (t == "0" || t == "off" || t == "of" || prefix_of("false") || prefix_of("no")) return false;
  throw DbError(sqlstate::kInvalidTextRepresentation,
                "invalid input syntax for type boolean: \"" + text + "\"", position);
}

double ParseSeconds(const std::string& text, int position) {
  try {
    size_t used = 0;
    double seconds = std::stod(text, &used);
    if (text.find_first_not_of(" \t\n", used) == std::string::npos) return seconds;
  } catch (const std::exception&) {
  }
  throw DbError(sqlstate::kInvalidTextRepresentation,
                "invalid input syntax for type double precision: \"" + text + "\"", position);
}

}  // namespace

StatementResult SqlSession::RunSessionFunction(const Request& request,
                                               const SessionFunctionCall& call) {
  const std::vector<sql::ExprPtr>& args = call.call->children;
  const std::string& function = call.call->names.back();  // for messages
  StatementResult result;
  result.columns = {{call.column, Type::Text()}};
  result.command_tag = "SELECT 1";
  if (call.function == SessionFunction::kPgNotify) {
    // NOTIFY with a channel that is any string (not case-folded); void.
    std::optional<std::string> channel = ArgumentText(*args[0], request.parameters, function);
    std::optional<std::string> payload = ArgumentText(*args[1], request.parameters, function);
    Notify(channel.value_or(""), payload.value_or(""), args[0]->position);
    result.rows.push_back({Value::Text("")});
    return result;
  }
  if (call.function == SessionFunction::kPgSleep) {
    // pg_sleep returns void: psql shows an empty value.
    std::optional<std::string> text = ArgumentText(*args[0], request.parameters, function);
    const double seconds = text ? ParseSeconds(*text, args[0]->position) : 0;
    if (seconds > 0 && std::isfinite(seconds)) {
      const auto deadline = std::chrono::steady_clock::now() +
                            std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(std::min(seconds, 1e9)));
      for (;;) {
        if (cancel_requested_.load()) {
          throw DbError(sqlstate::kQueryCanceled, "canceling statement due to user request");
        }
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) break;
        std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
            deadline - now, std::chrono::milliseconds(10)));
      }
    }
    // strict: NULL in, NULL out
    result.rows.push_back({text ? Value::Text("") : Value::Null(Type::Text())});
    return result;
  }
  std::optional<std::string> name = ArgumentText(*args[0], request.parameters, function);
  std::optional<std::string> value = ArgumentText(*args[1], request.parameters, function);
  std::optional<std::string> local = ArgumentText(*args[2], request.parameters, function);
  if (!name) throw DbError(sqlstate::kNullValueNotAllowed, "SET requires parameter name");
  const bool is_local = local && ParseBoolean(*local, args[2]->position);
  std::string lower = *name;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (is_local && !InBlock()) {
    // Only for this statement's own transaction: checked, then gone.
    SessionParameters scratch = *parameters_;
    if (value) scratch.Set(lower, *value);
    result.rows.push_back({Value::Text(scratch.Show(lower))});
    return result;
  }
  ApplySetting(lower, value ? &*value : nullptr, is_local);
  result.rows.push_back({Value::Text(parameters_->Show(lower))});
  return result;
}

}  // namespace forktail
