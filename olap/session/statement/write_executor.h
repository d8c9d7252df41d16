// WriteExecutor: write and DDL statements, executed on the transaction thread
// inside one Transaction (a statement's own, or its transaction block's).
//
//   INSERT VALUES            the binder's constant rows, inserted one by one;
//   INSERT VALUES with       expressions that read no column (now()) are
//     expressions            evaluated here on one empty row, as the planner's
//                            Values would, without planning a query;
//   INSERT SELECT            the bound source plan runs here, in process, over
//                            the live catalog (nothing else mutates it while
//                            this transaction runs), then its rows are inserted;
//   UPDATE / DELETE          the table's live rows are read in batches of
//                            kVectorSize into DataChunks; the bound WHERE and
//                            SET expressions run on them with olap's
//                            ExpressionExecutor; the changes are applied after
//                            the scan (so an UPDATE never sees its own output);
//                            a WHERE that fixes the whole primary key to
//                            constants (pk = c [AND ...], parameters included)
//                            reads only the row the key index names and
//                            evaluates the full WHERE on it;
//   CREATE / DROP TABLE, CREATE INDEX, TRUNCATE, VACUUM/ANALYZE:
//                            see ddl_executor.cc for what each does;
//   CREATE / ALTER / DROP SEQUENCE: sequence_ddl.cc;
//   ALTER TABLE              alter_table.cc.
// Each INSERT, UPDATE and DELETE is one statement of its Transaction
// (Transaction::StatementScope): foreign keys are checked, and their
// ON DELETE / ON UPDATE actions run, when it ends; the rows those actions
// update get the table's CHECK constraints, and SET DEFAULT the columns'
// DEFAULT expressions (ActionHooks).
// Any error throws DbError; the caller's transaction then rolls back every
// change the statement (and, in a block, the block) made — a constraint
// violation in row 1000 leaves rows 1..999 nowhere.
#pragma once

#include "forktail/transaction.h"
#include "olap/plan/binder/binder.h"
#include "olap/session/statement/query_runner.h"
#include "olap/session/statement_result.h"

namespace forktail {

namespace sql {
struct Statement;
struct AlterAction;
}  // namespace sql

class WriteExecutor {
 public:
  // `context.catalog` is the live catalog (Database::frozen_catalog() on the
  // transaction thread); `context.scheduler` runs INSERT ... SELECT's source.
  WriteExecutor(Transaction& txn, const QueryRunContext& context) : txn_(txn), context_(context) {}

  StatementResult Execute(const sql::Statement& statement, const BindOptions& options);
  // INSERT / UPDATE / DELETE already bound against a catalog with the live
  // catalog's schemas (point_statement.h: bound off the transaction thread).
  StatementResult ExecuteBound(const sql::Statement& statement, BoundStatement bound);
  // The same for a bound statement kept to run again (a transaction block's,
  // point_statement.h): copies only what its execution consumes (an INSERT
  // of values nothing; an UPDATE or DELETE its expressions).
  StatementResult ExecuteKept(const sql::Statement& statement, const BoundStatement& bound);

  // Whether this executor handles the statement kind.
  static bool Handles(const sql::Statement& statement);

  // Process-wide count of UPDATE/DELETE statements that read their target
  // through the primary-key index instead of scanning (for tests and stats).
  static uint64_t key_lookups();

 private:
  // `bound`, or `owned` (the same statement, when the caller gave it up)
  // whose parts it may take instead of copying them.
  StatementResult RunBound(const sql::Statement& statement, const BoundStatement& bound,
                           BoundStatement* owned);
  StatementResult Insert(const BoundStatement& bound, BoundStatement* owned);
  // INSERT ... ON CONFLICT: inserts the rows whose key is free, skips or
  // updates the others; returns the rows as written (inserted or updated).
  // 23514 (with PostgreSQL's DETAIL) if one of the rows, as the table will
  // store it, makes one of the table's CHECK conditions FALSE.
  void EnforceChecks(const std::string& table, const std::vector<Row>& rows) const;
  // The first row (as the table stores it) that makes one of `checks` (bound
  // over `schema`, BindChecks) FALSE, and which check.
  struct CheckViolation {
    size_t check;
    Row row;
  };
  static std::optional<CheckViolation> FindCheckViolation(const TableSchema& schema,
                                                          const std::vector<ExprPtr>& checks,
                                                          const std::vector<Row>& rows);
  // The existing row an ON CONFLICT arbiter finds for the proposed row.
  std::optional<TupleId> FindConflict(const BoundStatement& bound, const Row& row) const;
  std::vector<Row> InsertOnConflict(const BoundStatement& bound, const std::vector<Type>& types,
                                    std::vector<Row> rows);
  StatementResult UpdateOrDelete(const sql::Statement& statement, BoundStatement bound);
  // UPDATE ... FROM / DELETE ... USING: the bound plan names the rows.
  StatementResult UpdateOrDeleteJoined(bool is_update, BoundStatement bound);
  class ActionHooks;
  StatementResult CreateTable(const sql::Statement& statement, const BindOptions& options);
  StatementResult Drop(const sql::Statement& statement);
  StatementResult CreateView(const sql::Statement& statement);
  // An object that depends on one being dropped: a view that reads it, or a
  // foreign key that references it (a table) or finds its rows through it
  // (an index). `description` as PostgreSQL names it ("view v",
  // "constraint c_p_fkey on table c"), `depends_on` what it depends on
  // ("table p", "view v", "index p_u_key").
  struct Dependent {
    std::string description;
    std::string depends_on;
    std::string view;        // a view: its name
    std::string table;       // a foreign key: its table
    std::string constraint;  // and its name
  };
  // What dropping table or view `relation` takes along: the foreign keys of
  // other tables that reference it (not those of `dropping`, the tables the
  // statement drops too), then the views that read it and those that read
  // them, depth-first.
  std::vector<Dependent> RelationDependents(const std::string& relation, const std::string& kind,
                                            const std::vector<std::string>& dropping) const;
  // The foreign keys that find `table`'s rows through its secondary index at
  // `position` (named `index`).
  std::vector<Dependent> IndexDependents(const Table& table, size_t position) const;
  // Before `object` ("table p", "index i", "constraint c on table t") is
  // dropped: 2BP01 listing `dependents` as PostgreSQL lists them, or with
  // `cascade` PostgreSQL's NOTICE and the dependents dropped.
  void DropDependents(const std::string& object, const std::vector<Dependent>& dependents,
                      bool cascade, StatementResult* result);
  // ALTER TABLE ... DROP CONSTRAINT (ddl_executor.cc); notices into *result.
  void AlterTableDropConstraint(const sql::AlterAction& action, const Table& table,
                                StatementResult* result);
  StatementResult CreateIndex(const sql::Statement& statement);
  // CREATE / ALTER / DROP SEQUENCE (sequence_ddl.cc).
  StatementResult CreateSequence(const sql::Statement& statement);
  StatementResult AlterSequence(const sql::Statement& statement);
  void DropSequence(const std::string& name, bool if_exists, bool cascade, int position,
                    StatementResult* result);
  // Before table `table` (or its column `column`, when not empty) is
  // dropped: the sequences it owns go too, after what else depends on them
  // (other columns' DEFAULTs, views): 2BP01, or with `cascade` those go first.
  void DropOwnedSequences(const std::string& table, const std::string& column, bool cascade,
                          StatementResult* result);
  // Drops sequence `id` and, with `cascade`, what depends on it except the
  // DEFAULTs of `skip_table` (its `skip_column`, or all): those go with it.
  void DropSequenceWithDependents(TableId id, bool cascade, StatementResult* result,
                                  const std::string& skip_table, const std::string& skip_column);
  StatementResult AlterTable(const sql::Statement& statement);
  StatementResult Truncate(const sql::Statement& statement);
  // COMMENT ON TABLE / COLUMN: a schema change in place (ReplaceSchema).
  StatementResult Comment(const sql::Statement& statement);
  StatementResult Vacuum(const sql::Statement& statement);

  Transaction& txn_;
  QueryRunContext context_;

  friend class TableAlteration;  // ALTER TABLE (alter_table.cc)
};

// The storage name of a table reference: "t" and "public.t" name table t;
// another schema is 3F000 `schema "x" does not exist`.
std::string TableNameOf(const std::vector<std::string>& qualified, int position);

}  // namespace forktail
