// SELECT ... FOR UPDATE / FOR SHARE: the rows it returns are locked until
// the block ends (block/row_locks.h), so that two blocks which read a row
// and then change it run one after the other instead of one failing with
// 40001 at COMMIT.
//
// The locked rows are named by their primary keys: the statement runs with
// its table's key columns appended to the select list; each run takes
// them off the result again and records them as the step's lock keys. A
// table without a primary key is locked as a whole (one key).
//
// What locks: a query over one table (alias and OF allowed), in an
// optimistic block or on its own (then the locks end with the statement:
// it still waits for a row another block holds, and NOWAIT still fails).
// What does not: a query over several tables, a view, a subquery or a CTE
// in FROM, and statements in an implicit multi-statement block (which holds
// the transaction thread and so must never wait): they read without locks
// and COMMIT's validation keeps them serializable. SKIP LOCKED is refused
// (0A000): skipping rows changes which rows a query returns, which this
// scheme cannot do.
#include <memory>
#include <string>
#include <vector>

#include "olap/parser/ast.h"
#include "olap/session/block/optimistic_block.h"
#include "olap/session/session_parameters.h"
#include "olap/session/session_request.h"
#include "olap/session/sql_session.h"
#include "olap/session/statement/write_executor.h"

namespace forktail {
namespace {

// Separates a key's parts (table, then each key value).
constexpr char kKeySeparator = '\x1f';

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// PostgreSQL's CheckSelectLocking: clauses whose rows are not table rows.
void CheckLockable(const sql::Query& q) {
  const std::string clause = "FOR " + Upper(q.locking);
  auto refuse = [&](const char* what) {
    throw DbError(sqlstate::kFeatureNotSupported, clause + " is not allowed with " + what,
                  q.position);
  };
  if (q.kind == sql::QueryKind::kSetOp) refuse("UNION/INTERSECT/EXCEPT");
  if (q.distinct) refuse("DISTINCT clause");
  if (!q.group_by.empty()) refuse("GROUP BY clause");
  if (q.having) refuse("HAVING clause");
  if (q.locking_wait == "skip locked") {
    throw DbError(sqlstate::kFeatureNotSupported,
                  clause + " SKIP LOCKED is not supported by Forktail", q.position)
        .WithHint("Use NOWAIT, or wait for the lock.");
  }
}

// The statement at the same place in a fresh parse of `text`: a copy of
// `original` that this session may change.
sql::StatementPtr Reparse(const sql::Statement& original, std::string_view text) {
  if (text.empty()) return nullptr;
  std::vector<sql::StatementPtr> statements = sql::Parse(text);
  for (sql::StatementPtr& s : statements) {
    if (s->begin == original.begin && s->kind == original.kind && s->query) return std::move(s);
  }
  return nullptr;
}

}  // namespace

std::optional<StatementResult> SqlSession::LockingRead(const Request& request, bool writes,
                                                       const StepFootprint* tables) {
  const sql::Query& q = *request.statement->query;
  CheckLockable(q);
  if (ReadOnly()) {  // row marks are writes to PostgreSQL
    throw DbError(sqlstate::kReadOnlySqlTransaction,
                  "cannot execute SELECT FOR " + Upper(q.locking) + " in a read-only transaction");
  }
  // An implicit block holds the transaction thread: it must never wait.
  if (block_ || q.from.size() != 1 || q.from[0]->kind != sql::TableRefKind::kTable) {
    return std::nullopt;
  }
  const sql::TableRef& from = *q.from[0];
  const std::string table_name = TableNameOf(from.names, from.position);
  for (const sql::CommonTableExpr& cte : q.with) {
    if (from.names.size() == 1 && cte.name == from.names[0]) return std::nullopt;
  }
  const std::string reference = from.alias.empty() ? from.names.back() : from.alias;
  for (const sql::QualifiedName& of : q.locking_of) {
    if (of.size() != 1 || of[0] != reference) {
      throw DbError(sqlstate::kUndefinedTable,
                    "relation \"" + sql::Join(of, ".") + "\" in FOR " + Upper(q.locking) +
                        " clause not found in FROM clause",
                    q.position);
    }
  }
  std::vector<std::string> key_columns;
  bool is_table = false;
  WithSchemas([&](const Catalog& catalog) {
    const Table* table = catalog.FindTable(table_name);
    if (table == nullptr) return;  // a view, or an error the read reports
    is_table = true;
    for (ColumnId c : table->schema().primary_key) {
      key_columns.push_back(table->schema().columns[c.value()].name);
    }
  });
  if (!is_table) return std::nullopt;

  // The statement with the key columns appended (none: the table is one key).
  sql::StatementPtr augmented = Reparse(*request.statement, request.text);
  if (!augmented) return std::nullopt;
  for (size_t i = 0; i < key_columns.size(); i++) {
    sql::SelectItem item;
    item.expr = std::make_unique<sql::Expr>();
    item.expr->kind = sql::ExprKind::kColumnRef;
    item.expr->names = {reference, key_columns[i]};
    item.alias = "?forktail_lock_key_" + std::to_string(i);
    augmented->query->select_list.push_back(std::move(item));
  }
  Request locking = request;
  locking.statement_owner = std::shared_ptr<const sql::Statement>(std::move(augmented));
  locking.statement = locking.statement_owner.get();

  RowLockRequest lock;
  lock.mode = q.locking == "share" || q.locking == "key share" ? RowLockTable::Mode::kShare
                                                               : RowLockTable::Mode::kExclusive;
  lock.policy.nowait = q.locking_wait == "nowait";
  lock.policy.timeout =
      std::chrono::milliseconds(std::stol("0" + parameters_->Get("lock_timeout")));
  lock.policy.cancel = &cancel_requested_;
  lock.relation = table_name;
  const size_t extra = key_columns.size();
  std::shared_ptr<std::vector<std::string>> keys = lock.keys;
  const std::string prefix = table_name + kKeySeparator;
  StatementBody body = [this, extra, keys, prefix](Transaction& txn, const Request& r) {
    StatementResult result = ExecuteRead(txn, r, nullptr);
    keys->clear();
    if (extra == 0) {
      if (!result.rows.empty()) keys->push_back(prefix);
      return result;
    }
    const size_t shown = result.columns.size() - extra;
    for (Row& row : result.rows) {
      std::string key = prefix;
      for (size_t i = shown; i < row.size(); i++) key += row[i].ToString() + kKeySeparator;
      keys->push_back(std::move(key));
      row.resize(shown);
    }
    result.columns.resize(shown);
    return result;
  };
  try {
    if (optimistic_) return RunStatement(locking, writes, body, &lock, nullptr, tables);
    // On its own: a block of one statement, whose locks end with it.
    OptimisticBlock single(engine_.database(), engine_.row_locks());
    return RunStatement(locking, writes, body, &lock, &single);
  } catch (const DbError& e) {
    // An aggregate makes the appended key columns ungrouped.
    if (std::string_view(e.sqlstate()) == sqlstate::kGroupingError) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    "FOR " + Upper(q.locking) + " is not allowed with aggregate functions",
                    q.position);
    }
    throw;
  }
}

}  // namespace forktail
