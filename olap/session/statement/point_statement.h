// Point statements: the short statements of OLTP transactions (pgbench's
// TPC-B-like script: UPDATE/SELECT by primary key, INSERT VALUES) prepared
// off the transaction thread and executed on it without the optimizer, the
// physical planner or the scheduler.
//
// Why: a transaction block holds the one transaction thread from its first
// statement to COMMIT (txn_block.h), so every microsecond a statement spends
// on that thread is a microsecond no other writer runs. Binding needs only
// schemas, which Database::schemas() publishes as an immutable copy; running
// a one-row statement through the parallel scheduler costs worker handoffs
// and chunk pipelines for one row. So:
//
//   session thread (PreBind)                 transaction thread
//   ------------------------                 ------------------
//   Bind against Database::schemas()  --->   schema_version still current?
//   (a PointSelect when the SELECT              no: bind again in the
//    fixes the whole primary key)                   transaction (old path)
//                                               yes: execute the bound
//                                                    statement: key index
//                                                    lookup, one row
//
// The version check makes the split safe: Catalog::schema_version() changes
// with every schema change (another session's committed DDL, or this block's
// own uncommitted DDL), and a schemas() copy carries the version it was made
// at; equal versions mean the same tables, ids, columns and keys, so the
// bound statement means on the live catalog what it meant on the copy.
// Serializability is untouched: every read and write still happens on the
// transaction thread inside the statement's transaction.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "forktail/transaction.h"
#include "olap/common/data_chunk.h"
#include "olap/plan/binder/binder.h"
#include "olap/session/statement_result.h"

namespace forktail {

namespace sql {
struct Statement;
}  // namespace sql

// If `where` (over table column positions) is a conjunction that fixes every
// primary-key column with `column = constant` (a parameter is bound as a
// constant), the key values in key order. The caller still evaluates the
// full WHERE on the row the lookup finds, so the other conjuncts (and the
// comparisons' exact semantics) decide; the lookup only has to find every
// row that could satisfy it, which it does because the key is unique and
// each key column equals its constant.
std::optional<std::vector<Value>> PointKey(const Expression* where, const TableSchema& schema);

// The primary-key prefix a query of one user table reads: when `plan` (bound)
// is a chain of one-input operators over one Get, and the Get's conditions
// with those of the Filters right above it fix the first k >= 1 key columns
// with `column = constant` (as PointKey), those k values, and *table is the
// table. Every row that decides the query's result then has a key starting
// with them (a transaction block's step forecast: block/optimistic_block.h).
// nullopt for any other plan.
std::optional<std::vector<Value>> KeyPrefixRead(const LogicalOp& plan, const Catalog& catalog,
                                                TableId* table);

// A SELECT that reads at most one row of one user table through its primary
// key: [Project] over Filter* over Get, the conjuncts fixing every key
// column to a constant (SELECT abalance FROM pgbench_accounts WHERE aid = $1).
// The full WHERE and the select list are evaluated on the row found.
class PointSelect {
 public:
  // nullptr when `plan` (bound, not optimized) has another shape.
  static std::unique_ptr<PointSelect> Make(const LogicalOp& plan, const Catalog& catalog);

  // On the transaction thread, in `txn`. nullopt when the key constant does
  // not fit the key column (an out-of-range integer): run the general path.
  std::optional<StatementResult> Execute(const Transaction& txn) const;
  // Execute in two halves: the row of the key (in `txn`; the inner nullopt:
  // none), and the answer from it, which needs no transaction, so that the
  // transaction thread is held only for the lookup.
  std::optional<std::optional<Row>> FindRow(const Transaction& txn) const;
  StatementResult Answer(std::optional<Row> row) const;

  // The table it reads and the key of the row (key order).
  const std::string& table() const { return table_; }
  const std::vector<Value>& key() const { return key_; }

  // A copy that reads the row of `key` (values of key()'s types) and
  // evaluates no WHERE: for a SELECT whose WHERE is exactly its key's
  // equalities, which the lookup decides (point_template.h).
  std::unique_ptr<PointSelect> ForKey(std::vector<Value> key) const;

 private:
  friend class PointTemplate;

  std::string table_;
  std::vector<Value> key_;
  std::vector<Type> row_types_;   // the table's column types
  ExprPtr where_;                 // over table column positions; null: none (ForKey)
  std::vector<ExprPtr> outputs_;  // one per result column, over positions
  std::vector<ResultColumn> columns_;
};

// A deep copy (plans and expressions cloned): a bound statement is consumed
// by its execution, and a block's statements execute more than once.
BoundStatement CopyBound(const BoundStatement& bound);

// A statement bound off the transaction thread.
struct PreBoundStatement {
  uint64_t schema_version = 0;  // of the schemas it was bound against
  BoundStatement bound;
  std::unique_ptr<PointSelect> point_select;  // kQuery with the point shape, else null

  // On the transaction thread: whether the live catalog still has the
  // schemas this was bound against. A statement that calls sequence
  // functions never is: its kernels hold the SequenceAccess of the
  // transaction it binds in (sequence_functions.h).
  bool Current(const Catalog& live) const {
    return bound.sequence_use == SequenceUse::kNone && live.schema_version() == schema_version;
  }
};

// Binds a SELECT, INSERT, UPDATE or DELETE against `schemas` (an immutable
// Database::schemas() copy; any thread). A SELECT's `point_select` is set
// when it has the point shape; otherwise only its bound plan is there (for
// routing decisions; it executes through the general path). nullopt for
// other statements, for INSERT ... SELECT (its source may read catalog
// views, taken from the catalog it binds against), and when binding fails
// (the on-thread path binds again against the live catalog and reports the
// error there).
std::optional<PreBoundStatement> PreBind(const sql::Statement& statement,
                                         const BindOptions& options, const Catalog& schemas);

// Process-wide count of statements executed through PreBind's result on the
// transaction thread (tests check that the fast path is taken).
uint64_t PreBoundExecutions();
void CountPreBoundExecution();

}  // namespace forktail
