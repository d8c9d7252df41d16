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
// and COMMIT's validation keeps them serializable.
//
// SKIP LOCKED leaves out the rows another block holds, and the block's
// later runs leave out the same rows (SkippedRows), so that COMMIT finds the
// result the client was given. As in PostgreSQL, whose LockRows node runs
// below Limit, the skipping comes before LIMIT and OFFSET: the statement
// runs without them and applies them to the rows it keeps.
#include <algorithm>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "olap/parser/ast.h"
#include "olap/session/block/optimistic_block.h"
#include "olap/session/session_parameters.h"
#include "olap/session/session_request.h"
#include "olap/session/sql_session.h"
#include "olap/session/statement/parameter_template.h"
#include "olap/session/statement/point_statement.h"
#include "olap/session/statement/query_runner.h"
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
  if (!q.group_by.empty() || !q.grouping_sets.empty()) refuse("GROUP BY clause");
  if (q.having) refuse("HAVING clause");
}

// SKIP LOCKED: takes LIMIT and OFFSET off `q` into a query of their own
// (over the same parameters), whose one row gives them; null if neither.
std::shared_ptr<const sql::Statement> TakeLimits(sql::Query& q, int* limit_at, int* offset_at) {
  if (!q.limit && !q.offset) return nullptr;
  auto limits = std::make_shared<sql::Statement>();
  limits->kind = sql::StatementKind::kSelect;
  limits->query = std::make_unique<sql::Query>();
  for (auto [expr, at] : {std::pair{&q.limit, limit_at}, std::pair{&q.offset, offset_at}}) {
    *at = -1;
    if (!*expr) continue;
    *at = static_cast<int>(limits->query->select_list.size());
    sql::SelectItem item;
    item.position = (*expr)->position;
    item.expr = std::move(*expr);
    limits->query->select_list.push_back(std::move(item));
  }
  return limits;
}

// The value of LIMIT or OFFSET, with PostgreSQL's errors; nullopt: none.
std::optional<int64_t> RowCount(const Row& row, int at, const char* what) {
  if (at < 0 || row[at].is_null()) return std::nullopt;
  const int64_t n = row[at].CastTo(Type::BigInt()).GetInt();
  if (n < 0) {
    throw DbError(std::string(what) == "OFFSET" ? "2201X" : "2201W",
                  std::string(what) + " must not be negative");
  }
  return n;
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
  const bool skip_locked = q.locking_wait == "skip locked";
  int limit_at = -1;
  int offset_at = -1;
  std::shared_ptr<const sql::Statement> limits =
      skip_locked ? TakeLimits(*augmented->query, &limit_at, &offset_at) : nullptr;
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
  if (request.binding) {
    // Shares its owner's lifetime; a different statement, so its own template.
    locking.binding =
        std::shared_ptr<PreparedBinding>(request.binding, &request.binding->LockingForm());
  }

  RowLockRequest lock;
  lock.mode = q.locking == "share" || q.locking == "key share" ? RowLockTable::Mode::kShare
                                                               : RowLockTable::Mode::kExclusive;
  lock.policy.nowait = q.locking_wait == "nowait";
  lock.policy.timeout =
      std::chrono::milliseconds(std::stol("0" + parameters_->Get("lock_timeout")));
  lock.policy.cancel = &cancel_requested_;
  lock.relation = table_name;
  if (skip_locked) {
    lock.policy.skip_locked = true;
    lock.skipped = std::make_shared<SkippedRows>();
  }
  const size_t extra = key_columns.size();
  std::shared_ptr<std::vector<std::string>> keys = lock.keys;
  std::shared_ptr<SkippedRows> skipped = lock.skipped;
  const std::string prefix = table_name + kKeySeparator;
  // Bound once here, as Read binds: a lock by primary key reads its row
  // directly, one through an index reads without the workers, at every run.
  std::optional<PreBoundStatement> bound = PreBindRequest(locking);
  const bool indexed = bound && !bound->point_select && IndexedRead(bound);
  std::shared_ptr<const PreBoundStatement> pre;
  if (bound && bound->point_select)
    pre = std::make_shared<const PreBoundStatement>(std::move(*bound));
  StatementBody body = [this, extra, keys, skipped, limits, limit_at, offset_at, prefix, pre,
                        indexed](Transaction& txn, const Request& r) {
    StatementResult result = ExecuteRead(txn, r, pre.get(), indexed);
    keys->clear();
    const size_t shown = result.columns.size() - extra;
    std::vector<Row> kept;
    for (Row& row : result.rows) {
      std::string key = prefix;  // no key columns: the table is one key
      for (size_t i = shown; i < row.size(); i++) key += row[i].ToString() + kKeySeparator;
      if (skipped) {
        if (!skipped->decided && skipped->held_elsewhere(key)) skipped->keys.insert(key);
        if (skipped->keys.count(key)) continue;
      }
      row.resize(shown);
      kept.push_back(std::move(row));
      keys->push_back(std::move(key));
    }
    if (skipped) skipped->decided = true;
    if (limits) {
      StatementResult values = RunQueryStatement(*limits, r.Bind(), RunContext());
      const size_t offset = RowCount(values.rows.at(0), offset_at, "OFFSET").value_or(0);
      const size_t limit = RowCount(values.rows.at(0), limit_at, "LIMIT")
                               .value_or(std::numeric_limits<int64_t>::max());
      const size_t begin = std::min(offset, kept.size());
      const size_t end = begin + std::min(limit, kept.size() - begin);
      kept = std::vector<Row>(std::make_move_iterator(kept.begin() + begin),
                              std::make_move_iterator(kept.begin() + end));
      // PostgreSQL's Limit reads the OFFSET rows through LockRows: they are locked too.
      keys->resize(end);
    }
    if (extra == 0 && !keys->empty()) keys->resize(1);
    result.rows = std::move(kept);
    result.columns.resize(shown);
    result.command_tag = "SELECT " + std::to_string(result.rows.size());
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
