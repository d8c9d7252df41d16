// SqlSession: DECLARE / FETCH / MOVE / CLOSE (cursor.h has the model).
//
// DECLARE runs its query as a read of the session (SqlSession::Read): inside
// BEGIN ... COMMIT a recorded step of the optimistic block, which COMMIT runs
// again and validates; in the implicit block of a multi-statement string on
// its transaction; outside a block (WITH HOLD only) like any SELECT, on a
// snapshot holding every commit acknowledged before it arrived. FETCH, MOVE
// and CLOSE only touch the session's stored rows: they never reach the
// transaction thread and are not recorded (what they return is part of the
// DECLARE's result, which COMMIT checks).
#include <algorithm>

#include "olap/parser/ast.h"
#include "olap/session/block/optimistic_block.h"
#include "olap/session/block/txn_block.h"
#include "olap/session/cursor.h"
#include "olap/session/session_parameters.h"
#include "olap/session/session_request.h"
#include "olap/session/sql_session.h"
#include "olap/session/statement/query_runner.h"

namespace forktail {
namespace {

constexpr const char* kInvalidCursorDefinition = "42P11";

std::string Upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

// transformDeclareCursorStmt: a cursor over FOR UPDATE / SHARE rows can
// only move forward within its transaction.
void CheckLockingCursor(const sql::DeclareStmt& declare) {
  const sql::Query& q = *declare.query->query;
  if (q.locking.empty() || q.from.empty()) return;  // no row is locked
  const std::string clause = "FOR " + Upper(q.locking);
  if (declare.hold) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  "DECLARE CURSOR WITH HOLD ... " + clause +
                      " is not supported\nDETAIL:  Holdable cursors must be READ ONLY.");
  }
  if (declare.scroll == 1) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  "DECLARE SCROLL CURSOR ... " + clause +
                      " is not supported\nDETAIL:  Scrollable cursors must be READ ONLY.");
  }
  if (declare.insensitive) {
    throw DbError(kInvalidCursorDefinition,
                  "DECLARE INSENSITIVE CURSOR ... " + clause +
                      " is not valid\nDETAIL:  Insensitive cursors must be READ ONLY.");
  }
}

}  // namespace

StatementResult SqlSession::DeclareCursor(const Request& request) {
  const sql::DeclareStmt& declare = *request.statement->declare;
  const Request query = request.Inner(*declare.query);
  // PostgreSQL analyzes the query before it looks at the transaction: a
  // binding error comes before 25P01. (The few queries answered without the
  // binder have no plan: not scrollable by default.)
  LogicalOpPtr plan = AnswerBuiltinQuery(*query.statement) ? nullptr : BindQueryPlan(query);
  CheckLockingCursor(declare);
  if (!InBlock() && !declare.hold) {
    throw DbError(sqlstate::kNoActiveSqlTransaction,
                  "DECLARE CURSOR can only be used in transaction blocks");
  }
  cursors_->ExpectAbsent(declare.name);  // 42P03 before the query runs
  Cursor::Options options;
  options.binary = declare.binary;
  options.hold = declare.hold;
  options.scroll = declare.scroll == 1 || (declare.scroll == -1 && plan &&
                                           DefaultScrollable(*plan, *declare.query->query));
  StatementResult rows = Read(query);
  cursors_->Add(declare.name,
                std::make_unique<Cursor>(std::move(rows.columns), std::move(rows.rows), options),
                InBlock());
  StatementResult result;
  result.command_tag = "DECLARE CURSOR";
  result.notices = std::move(rows.notices);
  return result;
}

StatementResult SqlSession::FetchCursor(const sql::Statement& statement) {
  return cursors_->Get(statement.fetch->name).Fetch(*statement.fetch);
}

StatementResult SqlSession::CloseCursor(const sql::Statement& statement) {
  StatementResult result;
  if (statement.close->all) {
    cursors_->CloseAll();
    result.command_tag = "CLOSE CURSOR ALL";
  } else {
    cursors_->Close(statement.close->name);
    result.command_tag = "CLOSE CURSOR";
  }
  return result;
}

void SqlSession::EndTransaction(bool committed) {
  savepoint_states_.clear();
  cursors_->EndTransaction(committed);
  EndTransactionSettings(committed);
  EndTransactionNotifications(committed);
}

std::optional<std::vector<ResultColumn>> SqlSession::CursorColumns(const std::string& name) const {
  if (const Cursor* cursor = cursors_->Find(name)) return cursor->columns();
  return std::nullopt;
}

void SqlSession::CloseCursorPortal(const std::string& name) {
  if (cursors_->Find(name) != nullptr) cursors_->Close(name);
}

}  // namespace forktail
