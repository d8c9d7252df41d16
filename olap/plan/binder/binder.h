// Binder: turns a parsed statement (olap/parser/ast.h) into a bound one —
// names resolved against the Catalog, types checked and coerced, subqueries
// decorrelated into joins — following PostgreSQL's rules and error messages
// (SQLSTATE, wording, 1-based character position of the offending name).
//
// Queries (SELECT, VALUES, UNION/INTERSECT/EXCEPT, WITH) become a logical
// plan (olap/plan/logical.h) whose root's columns are the result columns, in
// order, with their user-visible names. Run it through Optimize() before
// planning: the binder keeps joins as written (FROM a, b is a cross join
// with the WHERE above it) and leaves push-down and join order to the
// optimizer.
//
// Parameters ($1..$n): BindOptions::parameter_types gives the types the
// client declared (nullopt: unknown). Unknown ones are inferred from their
// context — the other side of a comparison or arithmetic, the INSERT target
// column, the SET column, BIGINT for LIMIT/OFFSET — and default to TEXT.
// BoundStatement::parameter_types reports the final types (for the wire
// protocol's ParameterDescription). When BindOptions::parameters holds the
// values (execution), each $n is bound as a constant of its type (the value
// cast to it); without values (Prepare/Describe) it is a NULL constant of the
// type and LIMIT/OFFSET $n are ignored — such a plan is only for describing.
//
// Write statements bind against their one target table; their expressions'
// kColumnRef `column` is the TABLE COLUMN POSITION (not a query-wide id), so
// the engine can evaluate them on the table's rows directly.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "olap/plan/logical.h"
#include "storage/table/catalog.h"
#include "storage/table/schema.h"
#include "storage/value/value.h"

namespace forktail {

struct CatalogSession;
class SequenceAccess;  // sequence_functions.h

namespace sql {
struct Statement;
struct TypeName;
struct CreateViewStmt;
struct ColumnDef;
struct Expr;
using ExprPtr = std::unique_ptr<Expr>;
struct TableConstraint;
}  // namespace sql

struct BindOptions {
  // Declared types of $1..$n; nullopt or missing entries: infer.
  std::vector<std::optional<Type>> parameter_types;
  // Values of $1..$n at execution (empty: binding only to describe).
  std::vector<Value> parameters;
  // now() / current_timestamp: the transaction's start, microseconds since
  // 1970-01-01 UTC, as PostgreSQL's (a block's statements share it, and an
  // optimistic block's statements give the same answer when run again at
  // COMMIT). 0: the statement's own time (a statement outside a block is its
  // own transaction).
  int64_t transaction_timestamp = 0;
  // Who binds (current_user, pg_backend_pid()) and the server's backends
  // (pg_stat_activity, pg_cancel_backend); null: the defaults, no backends.
  std::shared_ptr<const CatalogSession> session;
  // nextval / currval / setval / lastval reach the transaction and the
  // session through this while the statement runs (sequence_functions.h);
  // null when the statement is only bound (Describe, off the transaction
  // thread) or runs where nothing may change (a snapshot process).
  SequenceAccess* sequences = nullptr;
  // Marks each constant bound from a parameter with its number
  // (Expression::parameter) and reports where each parameter went
  // (BoundStatement::parameter_uses, parameter_cells), so that the binding
  // can be reused for other values (parameter_template.h).
  bool tag_parameters = false;
};

// Whether a bound statement calls sequence functions (in its text, a view
// it reads or a column DEFAULT it uses): kWrites for nextval / setval,
// which change a sequence, kReads for currval / lastval only. Such a
// statement runs on the transaction thread, one row after another, and is
// never bound ahead of its transaction (the kernels hold its
// SequenceAccess).
enum class SequenceUse : uint8_t { kNone = 0, kReads = 1, kWrites = 2 };

enum class BoundStatementKind : uint8_t {
  kQuery,        // plan
  kInsert,       // table + (insert_rows or plan)
  kUpdate,       // table + where + set
  kDelete,       // table + where
  kCreateTable,  // schema
};

struct BoundStatement {
  BoundStatementKind kind = BoundStatementKind::kQuery;

  // kQuery: the query. kInsert from a query (or VALUES with non-constant
  // expressions): rows with one column per TABLE column, in table order,
  // already of the column types (assignment casts applied; unlisted columns
  // NULL, as there are no column defaults yet).
  LogicalOpPtr plan;

  // kInsert / kUpdate / kDelete: the target table.
  TableId table_id;
  std::string table_name;

  // kInsert with VALUES of constants only: the rows, one Value per table
  // column in table order, cast to the column types (plan is null then).
  std::vector<Row> insert_rows;

  // kUpdate / kDelete with FROM / USING (plan set): a query whose rows are
  // the target rows' primary keys, then (kUpdate) the SET values; `set`'s
  // expressions then read those rows.
  // kUpdate / kDelete: the WHERE condition over the table's columns by
  // position (null: every row).
  ExprPtr where;
  // kUpdate: (table column position, new value expression over the table's
  // columns by position, already of the column's type), in SET order.
  std::vector<std::pair<uint32_t, ExprPtr>> set;

  // kInsert ... ON CONFLICT. A conflict is a row whose primary key is taken
  // (the one unique constraint a table has). kNothing skips that row;
  // kUpdate applies `conflict_set` (table column position, expression) to the
  // existing row where `conflict_where` holds (null: always). Those
  // expressions read a row of 2n columns: the existing row's n columns
  // (positions 0..n-1), then the proposed row's, EXCLUDED (n..2n-1).
  enum class OnConflictAction : uint8_t { kNone, kNothing, kUpdate };
  OnConflictAction on_conflict = OnConflictAction::kNone;
  // The arbiter: the unique index the target names (IndexRange::kPrimaryKey
  // or a position in TableSchema::indexes); empty: every unique index (ON
  // CONFLICT DO NOTHING without a target).
  std::vector<int> conflict_arbiters;
  std::vector<std::pair<uint32_t, ExprPtr>> conflict_set;
  ExprPtr conflict_where;

  // kInsert / kUpdate / kDelete ... RETURNING: the expressions over the
  // table's columns by position, evaluated on each row written (the new row;
  // DELETE: the removed one), and the result columns they make (name, type).
  std::vector<ExprPtr> returning;
  std::vector<LogicalColumn> returning_columns;

  // kCreateTable: the schema to hand to Catalog::CreateTable; if_not_exists
  // as written.
  TableSchema schema;
  bool if_not_exists = false;

  // kCreateTable: the sequences of its SERIAL and identity columns, to be
  // created with it (owner_column set; the owner table is the new one).
  std::vector<Sequence> sequences;

  SequenceUse sequence_use = SequenceUse::kNone;

  // Final types of $1..$n (declared or inferred).
  std::vector<Type> parameter_types;

  // With BindOptions::tag_parameters: per parameter ($1 first), how many
  // constants the binder made of it; and the cells of `insert_rows` that
  // hold one of those constants, cast to the column's type.
  std::vector<uint32_t> parameter_uses;
  struct ParameterCell {
    uint32_t row = 0;
    uint32_t column = 0;
    uint16_t parameter = 0;  // n of $n
  };
  std::vector<ParameterCell> parameter_cells;

  // Reads pg_stat_activity or calls pg_cancel_backend / pg_terminate_backend:
  // it must run in the server process, where BindOptions::session's
  // backends are (the session runs it off the transaction thread).
  bool uses_server_state = false;
};

// Throws DbError with PostgreSQL's SQLSTATE, message and position.
// Statements that are not queries, writes or CREATE TABLE (BEGIN, SET, SHOW,
// COPY, DROP, EXPLAIN's wrapper, ...) are the engine's business: 0A000.
BoundStatement Bind(const sql::Statement& statement, const Catalog& catalog,
                    const BindOptions& options = {});

// CREATE VIEW: the query bound against `catalog` (its errors are the
// statement's), giving the view's columns, its stored text and the relations
// it reads. 42701 for a repeated column name, 42601 for more names than
// columns.
ViewDef BindViewDefinition(const sql::CreateViewStmt& create, const Catalog& catalog);

// A FOREIGN KEY (or column REFERENCES) constraint of `table`: a table being
// created (its schema so far: columns, primary key, UNIQUE and CHECK
// constraints, the foreign keys bound before this one) or one that exists
// (ALTER TABLE ADD). Checked as PostgreSQL checks it, in its order: 0A000
// DEFERRABLE; 42710 a name the table's constraints have; the referenced
// table (42P01, 42809 a view); 42703 unknown columns; 42P10 ON DELETE SET
// columns that are not the key's; 42704 no primary key to reference; 42830
// duplicated referenced columns, no unique key on them, or column counts that
// differ; 42804 types without an equality (PostgreSQL's DETAIL). Unnamed:
// "<table>_<columns>_fkey", numbered past the names every table's
// constraints have.
ForeignKeyDef BindForeignKey(const sql::TableConstraint& constraint, const TableSchema& table,
                             const Catalog& catalog);

// EXECUTE name (arguments): each argument bound with its parameter's type
// as the hint, cast to it (42804 "parameter $n of type x cannot be coerced
// to the expected type y" when no cast does) and evaluated now. Column
// references (42703), subqueries, aggregates and volatile calls (0A000)
// have no place here.
std::vector<Value> EvaluateExecuteArguments(const std::vector<sql::ExprPtr>& arguments,
                                            const std::vector<Type>& types, const Catalog& catalog,
                                            const BindOptions& options);

// CALL name(arguments): each argument bound and evaluated now, cast to
// `types[i]` where that is set (42804 "argument n of procedure name must be
// x, got y" when no cast does), as it is otherwise. Column references,
// subqueries, aggregates and sequence functions fail as in EXECUTE.
std::vector<Value> EvaluateCallArguments(const std::string& procedure,
                                         const std::vector<sql::ExprPtr>& arguments,
                                         const std::vector<std::optional<Type>>& types,
                                         const Catalog& catalog, const BindOptions& options);

// A table's CHECK constraints bound over its column positions (one boolean
// expression each, in schema.checks order), to evaluate on rows to write.
std::vector<ExprPtr> BindChecks(const TableSchema& schema);

// The value of a column's DEFAULT (NULL when it has none), evaluated now: for
// rows that come without the column and without a statement (COPY with a
// column list), when it is not per row (DefaultIsPerRow).
Value EvaluateColumnDefault(const ColumnDef& column);
// Whether each row needs its own evaluation of the column's DEFAULT, as
// PostgreSQL evaluates it: an identity column, a sequence function, or a
// volatile function (gen_random_uuid(), random(), clock_timestamp()).
bool DefaultIsPerRow(const ColumnDef& column);
// The DEFAULT of `schema`'s column `column` bound over `catalog` (an
// identity column's is nextval of its sequence), to be evaluated once per
// row on a row of no columns: what COPY runs for a default that calls
// sequence functions.
ExprPtr BindColumnDefault(const TableSchema& schema, size_t column, const Catalog& catalog,
                          const BindOptions& options);

// ALTER TABLE (binder_alter.cc).
// A column of ALTER TABLE ... ADD COLUMN, bound as CREATE TABLE binds one
// (type, SERIAL, IDENTITY, DEFAULT, NOT NULL; not its inline constraints);
// a SERIAL or identity column adds its sequence to *sequences.
ColumnDef BindAddedColumn(const sql::ColumnDef& column, const std::string& table,
                          const Catalog& catalog, std::vector<Sequence>* sequences);
// ALTER COLUMN ... SET DEFAULT: `e` checked as a DEFAULT of `column`; the
// text to store (sequence_functions.h's StoredDefaultText).
std::string BindDefaultText(const sql::Expr& e, const ColumnDef& column, const Catalog& catalog);
// A CHECK over `schema`'s columns, checked (42703, 42804, 0A000 for a
// subquery ...); the text to store.
std::string BindCheckText(const sql::Expr& e, const TableSchema& schema);
// The names of the columns a stored CHECK reads.
std::vector<std::string> CheckColumnNames(const CheckDef& check);
// A stored CHECK's text with column `from` renamed `to`.
std::string RenameColumnInCheck(const CheckDef& check, const std::string& from,
                                const std::string& to);
// The columns (name, type) of `view`'s stored query bound against `catalog`;
// throws what binding throws (a column it reads is gone, ...).
std::vector<std::pair<std::string, Type>> BindViewColumns(const ViewDef& view,
                                                          const Catalog& catalog);
// PostgreSQL's assignment-cast rule, coarsely (INSERT's, and ALTER COLUMN
// TYPE's without USING): numbers to numbers, anything to strings, dates and
// timestamps to each other, a type to itself.
bool AssignmentCastExists(const Type& from, const Type& to);
// False where no explicit cast converts `from` to `to` at all (uuid or bytea
// and a non-string type, jsonb and a date), so that the error points at the
// cast; others fail, if they do, on their values.
bool ExplicitCastExists(const Type& from, const Type& to);

// The storage type for a SQL type name (sql::TypeName, as the parser
// canonicalizes it) as written in DDL or CAST: int2/smallint, int4/int/integer, int8/bigint,
// float8/double precision/ real/float4/float (all DOUBLE), numeric(p,s)/decimal(p,s) (p <= 38, else
// 0A000; CREATE TABLE columns p <= 18, else 0A000; numeric without precision: DECIMAL(18,4), a
// documented deviation from PostgreSQL's unbounded numeric), char(n)/character(n) (no n: 1),
// varchar(n)/character varying(n) (no n: unbounded), text, date,
// timestamp [without time zone], bool/boolean. Unknown: 42704
// `type "x" does not exist`; serial etc.: 0A000.
Type TypeFromName(const sql::TypeName& type);

}  // namespace forktail
