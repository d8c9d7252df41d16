// The binder's working state, shared by its files (internal to olap/plan):
//   binder.cc           Bind(), write statements, CREATE TABLE, type names
//   binder_scope.cc     scopes and name resolution (PostgreSQL's errors)
//   binder_expr.cc      expressions: literals, operators, functions, typing
//   binder_query.cc     SELECT / VALUES / set operations / WITH / FROM
//   binder_select.cc    grouping, aggregates, select list, ORDER BY, LIMIT
//   binder_grouping_sets.cc  ROLLUP, CUBE, GROUPING SETS, GROUPING()
//   binder_subquery.cc  subqueries -> joins (decorrelation)
//
// Scopes. A query's FROM items form a Scope: relations (alias + columns with
// query-wide ids). A subquery's Scope points to the enclosing one (`outer`):
// names not found locally resolve there, which makes the subquery
// correlated. Correlated conditions are taken out of the subquery's WHERE
// (BoundQuery::correlated) and become join conditions (binder_subquery.cc).
//
// Expression context. Binding an expression may need to add joins (a scalar
// subquery becomes a join whose result column the expression reads), so the
// context carries the plan those joins attach to. Aggregate calls are only
// allowed where `aggs` is set (select list, HAVING, ORDER BY); elsewhere the
// context names the clause for PostgreSQL's "aggregate functions are not
// allowed in WHERE".
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "olap/expression/scalar_function.h"
#include "olap/parser/ast.h"
#include "olap/plan/binder/binder.h"
#include "olap/plan/logical_util.h"
#include "storage/error.h"

namespace forktail {

struct ScopeRelation {
  std::string alias;  // qualifier for t.x (the alias, or the table name)
  std::vector<LogicalColumn> columns;
  std::vector<bool> hidden;  // excluded from * and unqualified lookup (USING's right copy)
  // A base table's primary-key columns (their ids here); empty otherwise.
  // Grouping by all of them makes the table's other columns usable without
  // an aggregate (PostgreSQL's functional dependency).
  std::vector<uint32_t> primary_key_ids;
};

struct Scope {
  std::vector<ScopeRelation> relations;
  const Scope* outer = nullptr;
  // Ids produced at this level (for telling local from outer references).
  ColumnSet Ids() const;
};

// Aggregation state of one SELECT block.
struct AggState {
  std::vector<ExprPtr> group_exprs;    // bound over the FROM scope
  std::vector<uint32_t> group_ids;     // the key's column id (forwarded or computed)
  std::vector<ExprPtr> agg_inputs;     // per aggregate: its input (null: COUNT(*))
  std::vector<LogicalAggregate> aggs;  // input filled when the pre-projection is built
  std::vector<LogicalColumn> agg_columns;
  std::set<uint32_t> count_ids;  // outputs of COUNT / COUNT(*)
  bool grouped = false;          // GROUP BY, HAVING or an aggregate present
  bool in_aggregate = false;     // binding an aggregate's argument
  // GROUPING SETS / ROLLUP / CUBE (binder_grouping_sets.cc): each set lists
  // its keys (indexes into group_exprs, ascending). With two sets or more the
  // Aggregate also groups by `set_id`, an INTEGER column holding the set's
  // ordinal, and a key some set lacks is computed (NULL in that set's rows)
  // under a fresh id; set_id is 0 for a plain GROUP BY. The Aggregate groups
  // by `set_key`; expressions above it read `set_id` (the same id unless an
  // empty set's row is added above the Aggregate, AddEmptySetRows).
  std::vector<std::vector<size_t>> sets;
  uint32_t set_id = 0;
  uint32_t set_key = 0;
  bool InEverySet(size_t key) const;
};

// GROUP BY's items as grouping sets: every combination of one set of each
// ROLLUP / CUBE / GROUPING SETS / () item, each with the plain items
// (binder_grouping_sets.cc). 54001 past 4096 sets, 54011 for a CUBE of more
// than 12 elements.
std::vector<std::vector<const sql::Expr*>> ExpandGroupingSets(const sql::Query& q);
// A key's value in the pre-aggregation projection: `value`, or NULL in the
// rows of the sets that lack it.
ExprPtr MaskedGroupKey(const AggState& st, size_t key, ExprPtr value);
// `plan` joined with one row per grouping set (its ordinal, id st.set_id).
LogicalOpPtr JoinSetOrdinals(LogicalOpPtr plan, const AggState& st);

// Window calls of one SELECT block (binder_window.cc): bound in the select
// list and ORDER BY over the grouped scope, evaluated by Window operators
// placed after GROUP BY / HAVING and before DISTINCT / ORDER BY / LIMIT.
struct BoundWindowCall {
  WindowFunction fn;  // args filled when the Window operators are built
  std::vector<ExprPtr> args;
  std::vector<ExprPtr> partition;
  std::vector<ExprPtr> order;
  std::vector<SortKeyRef> order_keys;  // direction and NULL placement; column unused
  LogicalColumn out;
  int position = 0;
};

struct WindowState {
  std::vector<BoundWindowCall> calls;
  // Binding a window call: 1 its arguments, 2 its PARTITION BY / ORDER BY
  // (PostgreSQL words the nesting error differently).
  int binding = 0;
  // The query level's WINDOW clause (OVER w / OVER (w ...) resolve here).
  const std::vector<sql::NamedWindow>* named = nullptr;
};

// 42P20 for a WINDOW clause that defines a name twice, and the errors of
// resolving each definition against the ones before it (binder_window.cc).
void CheckWindowClause(const std::vector<sql::NamedWindow>& named);

struct SrfState;  // binder_srf.h

struct ExprContext {
  const Scope* scope = nullptr;
  LogicalOpPtr* plan = nullptr;    // where subquery joins attach; null: no subqueries
  const char* clause = "WHERE";    // for "aggregate functions are not allowed in %s"
  AggState* aggs = nullptr;        // aggregates allowed (and grouped-mode checks)
  WindowState* windows = nullptr;  // window calls allowed (else 42P20 naming `clause`)
  SrfState* srfs = nullptr;        // set-returning calls allowed (binder_srf.h)
  const Type* hint = nullptr;      // type an unknown literal / parameter should take
};

// Whether `e` holds a subquery (binder.cc).
bool HasSubquery(const sql::Expr& e);

// 0A000 "<what> is not supported" at `position`: what PostgreSQL accepts and
// Forktail does not implement is refused, never ignored.
[[noreturn]] void NotSupported(const std::string& what, int position);

// `ctx` for an operand whose type the surrounding call does not decide.
inline ExprContext WithoutHint(const ExprContext& ctx) {
  ExprContext c = ctx;
  c.hint = nullptr;
  return c;
}

// `e`'s value now: folded, or run on one row of no columns (a volatile
// call is evaluated once). For arguments evaluated before a statement runs
// (EXECUTE's, TABLESAMPLE's).
Value EvaluateNow(ExprPtr e);

// `ctx` for the operands of CASE or COALESCE, which PostgreSQL evaluates
// lazily and so refuses a set-returning call in (0A000 "set-returning
// functions are not allowed in CASE"); `clause` names them.
inline ExprContext WithoutSrfs(const ExprContext& ctx, const char* clause) {
  ExprContext c = ctx;
  if (c.srfs != nullptr) {
    c.srfs = nullptr;
    c.clause = clause;
  }
  return c;
}

// What binding a query returns.
struct BoundQuery {
  LogicalOpPtr plan;
  std::vector<LogicalColumn> columns;  // the visible output columns
  std::vector<ExprPtr> correlated;     // conjuncts over outer + inner ids
};

// How a subquery is bound (binder_subquery.cc sets it).
struct SubqueryMode {
  bool is_subquery = false;
  // Correlated, aggregated scalar subquery: stop before the select list's
  // projection; group additionally by the inner columns of `correlated` and
  // return the select expression in `deferred_select`.
  bool defer_select = false;
  std::vector<ExprPtr> deferred_select;
  std::set<uint32_t> count_ids;
  // Apply (binder_apply.cc): leave correlated conjuncts in the WHERE filter
  // (the subplan then reads outer columns; it runs per outer binding).
  bool keep_correlated = false;
};

class Binder {
 public:
  Binder(const Catalog& catalog, const BindOptions& options);
  // The binder keeps a reference to its options: a temporary would dangle.
  Binder(const Catalog& catalog, BindOptions&& options) = delete;

  BoundStatement BindStatement(const sql::Statement& stmt);

  // --- queries (binder_query.cc, binder_select.cc)
  BoundQuery BindQuery(const sql::Query& q, const Scope* outer, SubqueryMode* mode = nullptr);
  BoundQuery BindSelect(const sql::Query& q, const Scope* outer, SubqueryMode* mode);
  BoundQuery BindValues(const sql::Query& q, const Scope* outer);
  // A VALUES row that holds subqueries (binder_query.cc): it binds over a
  // one-row plan (RowPlan) its subqueries join onto, then is projected to
  // `columns`. Only a single row: rows of several plans would have to come
  // out of a UNION ALL in order, with their defaults (nextval) drawn in
  // order, which nothing here promises (0A000, ExpectOneRowWithSubqueries).
  static LogicalOpPtr RowPlan();
  static LogicalOpPtr ProjectRow(LogicalOpPtr plan, std::vector<ExprPtr> row,
                                 std::vector<LogicalColumn> columns);
  static bool ExpectOneRowWithSubqueries(const std::vector<std::vector<sql::ExprPtr>>& rows);
  BoundQuery BindSetOp(const sql::Query& q, const Scope* outer);
  // FROM: the cross product of the items; fills `scope`.
  LogicalOpPtr BindFrom(const std::vector<sql::TableRefPtr>& from, Scope* scope);
  LogicalOpPtr BindTableRef(const sql::TableRef& ref, Scope* scope);
  LogicalOpPtr MakeGet(const Table& table, const std::string& alias, ScopeRelation* rel,
                       bool ids_are_positions = false);
  // ORDER BY / LIMIT / OFFSET on a bound query (set operations, VALUES).
  void ApplyOrderLimit(const sql::Query& q, BoundQuery* bq);
  void ApplyLimit(const sql::Query& q, LogicalOpPtr* plan);

  // CREATE TABLE AS / SELECT INTO (binder_create_table_as.cc): the schema
  // and the plan of the rows.
  BoundStatement BindCreateTableAs(const sql::CreateTableStmt& s);

  // --- expressions (binder_expr.cc)
  ExprPtr BindExpr(const sql::Expr& e, ExprContext& ctx);
  // A condition (WHERE, ON, HAVING): must be boolean.
  ExprPtr BindCondition(const sql::Expr& e, ExprContext& ctx, const char* clause);
  ExprPtr BindLiteral(const sql::Expr& e, const Type* hint);
  ExprPtr BindParameter(const sql::Expr& e, const Type* hint);
  ExprPtr BindFunction(const sql::Expr& e, ExprContext& ctx);
  // A function that is neither an aggregate nor a window function.
  ExprPtr BindScalarFunction(const sql::Expr& e, ExprContext& ctx);
  ExprPtr BindAggregate(const sql::Expr& e, ExprContext& ctx);
  // Grouping sets (binder_grouping_sets.cc): records `sets` (keys by index)
  // in *st, giving the keys some set lacks fresh ids; GROUPING(..); and the
  // row of each empty set that the Aggregate `agg` misses on empty input.
  void SetGroupingSets(std::vector<std::vector<size_t>> sets, bool distinct, AggState* st);
  ExprPtr BindGroupingCall(const sql::Expr& e, ExprContext& ctx);
  LogicalOpPtr AddEmptySetRows(LogicalOpPtr agg, const AggState& st);
  // f(...) OVER (...), and window-only functions called without OVER
  // (binder_window.cc).
  ExprPtr BindWindowCall(const sql::Expr& e, ExprContext& ctx);
  static bool IsWindowOnlyName(const std::string& name);
  // Pre-projection of computed window arguments and keys, then one Window
  // operator per distinct (PARTITION BY, ORDER BY) on top of *plan.
  LogicalOpPtr PlanWindows(LogicalOpPtr plan, WindowState* ws);
  // DISTINCT ON (binder_select.cc): over the select list's projection `all`,
  // the first row of each group equal on the outputs `on_outputs`, first in
  // the ORDER BY's order.
  LogicalOpPtr FirstRowPerGroup(LogicalOpPtr plan, const std::vector<LogicalColumn>& all,
                                const std::vector<size_t>& on_outputs,
                                const std::vector<SortKeyRef>& sort_keys,
                                const std::vector<size_t>& sort_outputs);
  // A function of the FunctionRegistry (olap/expression/scalar_function.h).
  ExprPtr BindRegisteredFunction(const sql::Expr& e, ExprContext& ctx);
  // now() etc.: one timestamp per statement (taken on first use).
  FunctionBindContext FunctionContext();
  ExprPtr BindBinary(const sql::Expr& e, ExprContext& ctx);
  // binder_jsonb.cc: jsonb's operators (null if `e` is not one of them),
  // || and - once an operand is known to be jsonb (null: not jsonb ||), and
  // jsonb_build_object / jsonb_build_array (false if `call` is not one).
  ExprPtr BindJsonbOperator(const sql::Expr& e, ExprContext& ctx);
  ExprPtr BindJsonbConcatOrDelete(const sql::Expr& e, ExprPtr left, ExprPtr right);
  // Also json_build_object / json_build_array, and to_json(t) / to_jsonb(t) /
  // row_to_json(t) of a whole row t (false otherwise).
  bool BindJsonbConstructor(const sql::Expr& call, ExprContext& ctx, ExprPtr* out);
  // json[b]_agg(x [ORDER BY ..]) / json[b]_object_agg(k, v [ORDER BY ..]):
  // string_agg of each row's JSON text, made one json or jsonb value.
  ExprPtr BindJsonbAggregate(const sql::Expr& call, ExprContext& ctx);
  // An argument of a JSON constructor as json (jsonb): to_json(b) of its
  // value, or the object of a whole row. *structured: an array or a row.
  ExprPtr BindJsonArgument(const sql::Expr& arg, bool jsonb, const std::string& fn,
                           ExprContext& ctx, bool* structured);
  ExprPtr ToJsonValue(ExprPtr value, bool jsonb, const std::string& fn, int position);
  ExprPtr BindDateArith(const sql::Expr& e, ArithOp op, ExprPtr left, ExprPtr right);
  ExprPtr BindIntervalArith(const sql::Expr& e, ArithOp op, ExprPtr left, ExprPtr right);
  ExprPtr BindIntervalSumOrAvg(bool avg, ExprPtr input, ExprPtr filter, ExprContext& ctx);
  ExprPtr BindMakeInterval(const sql::Expr& e, ExprContext& ctx);
  // x ILIKE p as lower(x) LIKE lower(p) (ASCII case folding).
  ExprPtr FoldCaseForILike(ExprPtr x, std::string* pattern);
  ExprPtr BindComparison(CompareOp op, const sql::Expr& l, const sql::Expr& r, ExprContext& ctx,
                         int position);
  // (a, b) op (c, d), PostgreSQL's row comparison: = and <> pair by pair
  // (AND / OR), <, <=, >, >= left to right, decided by the first pair that is
  // not equal (NULL if that pair holds a NULL).
  ExprPtr BindRowComparison(CompareOp op, const sql::Expr& l, const sql::Expr& r, ExprContext& ctx,
                            int position);
  // Binds l and r so that an unknown literal/parameter on one side takes the
  // other side's type.
  std::pair<ExprPtr, ExprPtr> BindPair(const sql::Expr& l, const sql::Expr& r, ExprContext& ctx);
  bool IsUnknownTyped(const sql::Expr& e) const;
  int64_t ConstantInt(const sql::Expr& e, const char* what);
  // Whether the AST contains an aggregate call (outside subqueries).
  static bool ContainsAggregate(const sql::Expr& e);
  static bool IsAggregateName(const std::string& name);

  // --- names (binder_scope.cc)
  ExprPtr ResolveColumn(const sql::Expr& e, const Scope& scope);
  Table& LookupTable(const sql::QualifiedName& names, int position) const;

  // --- subqueries (binder_subquery.cc)
  // A top-level WHERE conjunct that is [NOT] EXISTS / [NOT] IN / op ANY|ALL
  // (subquery): joined onto *plan; returns false if `e` is not one.
  bool BindSubqueryConjunct(const sql::Expr& e, ExprContext& ctx);
  // A scalar subquery inside an expression: joined onto *ctx.plan; returns
  // the expression giving its value.
  ExprPtr BindScalarSubquery(const sql::Expr& e, ExprContext& ctx);
  // The join rewrites behind the two above; 0A000 for shapes they cannot
  // express (the callers then fall back to an Apply).
  bool BindSubqueryJoin(const sql::Expr& e, bool negated, ExprContext& ctx);
  ExprPtr BindScalarJoin(const sql::Expr& e, ExprContext& ctx);
  // EXISTS / [NOT] IN / op ANY|ALL (subquery) as a value anywhere in an
  // expression: an Apply onto *ctx.plan (binder_apply.cc); returns the
  // boolean expression.
  ExprPtr BindSubqueryValue(const sql::Expr& e, ExprContext& ctx);
  // The general fallback for any subquery: binds `q` keeping its correlated
  // conditions inside, and attaches an Apply of `kind` onto *ctx.plan (a
  // hole is fine). ANY/ALL compare `lhs` (bound in ctx) with the column by
  // `op`. Returns a ref to the Apply's result column.
  ExprPtr BindApply(const sql::Query& q, ExprContext& ctx, ApplyKind kind, const sql::Expr* lhs,
                    const std::string& op, int position);
  // Adds a column computing `e` on top of *plan (unless it already is a
  // column of type `want`); returns its id.
  uint32_t Materialize(LogicalOpPtr* plan, ExprPtr e, const Type& want);

  uint32_t NewId() { return next_id_++; }
  // Sequence functions (binder_sequence.cc): the statement's SequenceAccess
  // (null when it is only bound), and what the statement does with them.
  SequenceAccess* sequence_access() const { return options_.sequences; }
  void NoteSequenceUse(SequenceUse use) {
    if (use > sequence_use_) sequence_use_ = use;
  }
  SequenceUse sequence_use() const { return sequence_use_; }
  // "alias.column" of each resolved id and the position of its latest
  // reference (for 42803's message and position).
  std::map<uint32_t, std::string> display_;
  std::map<uint32_t, int> ref_position_;
  const Catalog& catalog() const { return catalog_; }
  const BindOptions& options() const { return options_; }
  // The statement must run where the server's backends are
  // (BoundStatement::uses_server_state).
  void MarkServerStateUse() { uses_server_state_ = true; }

  // Output name of a select item as PostgreSQL derives it.
  static std::string OutputName(const sql::Expr& e);

  // A column's DEFAULT (bound from its stored text; NULL when it has none),
  // and a DEFAULT expression as CREATE TABLE gives it (0A000 for column
  // references and subqueries).
  // An identity column's default is nextval of its sequence, found through
  // `table` (the table's name).
  ExprPtr DefaultOf(const ColumnDef& col, const std::string& table);
  ExprPtr BindDefault(const sql::Expr& e, const ColumnDef& col);
  // A CHECK condition over `schema`'s columns (column refs are positions).
  ExprPtr BindCheck(const sql::Expr& e, const TableSchema& schema);
  // One column of CREATE TABLE or ALTER TABLE ... ADD COLUMN: type, SERIAL,
  // IDENTITY, DEFAULT (checked now, kept as text), NOT NULL; its inline
  // constraints are the caller's. A SERIAL or identity column adds its
  // sequence to *sequences (named as PostgreSQL names it, avoiding the
  // names already there).
  ColumnDef BindColumnDef(const sql::ColumnDef& c, const std::string& table,
                          std::vector<Sequence>* sequences);

 private:
  BoundStatement BindInsert(const sql::InsertStmt& s);
  BoundStatement BindUpdate(const sql::UpdateStmt& s);
  BoundStatement BindDelete(const sql::DeleteStmt& s);
  // RETURNING items over `scope` (the target table, ids = column positions).
  void BindReturning(const std::vector<sql::SelectItem>& items, const Scope& scope,
                     BoundStatement* out);
  // SET column = value (UPDATE, ON CONFLICT DO UPDATE): the column's position
  // and the value over `scope`, of the column's type. `plan`: the rows the
  // value is computed over, for a subquery in it to join onto (null: none
  // allowed).
  std::pair<uint32_t, ExprPtr> BindSetClause(const sql::SetClause& set, const TableSchema& schema,
                                             const Scope& scope, LogicalOpPtr* plan = nullptr);
  // UPDATE ... FROM / DELETE ... USING, and an UPDATE or DELETE with a
  // subquery (`others` empty): the target joined with `others`,
  // filtered by `where`, bound as a query whose rows are the matching target
  // rows' primary keys followed by each SET value (`set` then reads them).
  BoundStatement BindJoinedWrite(BoundStatementKind kind, const Table& table,
                                 const std::string& alias,
                                 const std::vector<sql::TableRefPtr>& others,
                                 const sql::Expr* where, const std::vector<sql::SetClause>* set,
                                 const std::vector<sql::SelectItem>& returning, int position);
  // ON CONFLICT and RETURNING of an INSERT into `table`.
  void BindInsertClauses(const Table& table, const sql::InsertStmt& s, BoundStatement* out);
  void BindOnConflict(const sql::OnConflict& c, const Table& table, const Scope& target,
                      BoundStatement* out);
  BoundStatement BindCreateTable(const sql::CreateTableStmt& s);

  const Catalog& catalog_;
  const BindOptions& options_;
  // BoundStatement::uses_server_state (binder_catalog.cc sets it).
  bool uses_server_state_ = false;
  uint32_t next_id_ = 1;
  int64_t statement_timestamp_ = 0;  // FunctionContext()
  SequenceUse sequence_use_ = SequenceUse::kNone;
  std::vector<std::optional<Type>> param_types_;
  std::vector<uint32_t> parameter_uses_;  // BoundStatement::parameter_uses
  // CTEs visible while binding (innermost last).
  std::vector<const sql::CommonTableExpr*> ctes_;
  // WITH RECURSIVE (binder_query.cc): the CTEs of WITH RECURSIVE lists, and
  // those being bound that may read themselves (innermost last). A CTE of
  // such a list is first bound as a probe; if it reads itself, it is bound
  // again as anchor, then recursive term, which reads the work table.
  struct RecursiveCte {
    enum class Phase : uint8_t { kProbe, kAnchor, kTerm };
    const sql::CommonTableExpr* cte;
    Phase phase;
    std::vector<LogicalColumn> columns;  // kTerm: the work table's
    uint32_t work_table_id;
    int references;     // kTerm: of the work table, so far
    int nullable_side;  // nullable_side_ where the CTE's binding began
  };
  // Sides of outer joins being bound that are padded with NULLs.
  int nullable_side_ = 0;
  std::set<const sql::CommonTableExpr*> recursive_list_;
  std::vector<RecursiveCte> recursive_;
  // Makes q's WITH list visible; returns the depth to restore.
  size_t PushCtes(const sql::Query& q);
  // A reference to ctes_[index] in FROM, named `alias`.
  // `in_subquery`: the reference is in a subquery's FROM that sees outer
  // columns (an expression's subquery).
  LogicalOpPtr BindCteRef(size_t index, const std::string& alias, bool in_subquery,
                          ScopeRelation* rel);
  BoundQuery BindRecursiveCte(const sql::CommonTableExpr& cte);
  // Views being expanded (innermost last; a cycle is an error) and the
  // parsed view queries, kept for the binder's lifetime.
  std::vector<std::string> views_expanding_;
  std::vector<sql::StatementPtr> view_statements_;
  // When set: the names of the tables and views the statement reads
  // directly (CREATE VIEW's dependencies).
  std::vector<std::string>* relations_read_ = nullptr;

  // A view in FROM: its stored query, bound as a subquery under `alias`.
  LogicalOpPtr BindViewRef(const ViewDef& view, const std::string& alias, ScopeRelation* rel);

  friend class CteGuard;
  friend ViewDef BindViewDefinition(const sql::CreateViewStmt&, const Catalog&);
  friend BoundStatement Bind(const sql::Statement&, const Catalog&, const BindOptions&);
};

// Rethrows a DbError from an expression factory with a position (and
// 42883 for "operator does not exist", as PostgreSQL reports it).
[[noreturn]] void RethrowAt(const DbError& e, int position);

// An interval literal (INTERVAL '1 day', INTERVAL '3' MONTH, '2 hours'::interval)
// and its value (22007/22008 at its position).
bool IsIntervalLiteral(const sql::Expr& e);
Interval IntervalOfLiteral(const sql::Expr& e);

// A type's name without modifiers, as PostgreSQL's messages spell it
// ("character", "numeric", "character varying").
std::string BaseTypeName(const Type& t);

// The names of the columns `e` references (each once, in order of appearance).
void ColumnNamesIn(const sql::Expr& e, std::vector<std::string>* out);

// Ids referenced by the plan's expressions that no operator below produces.
ColumnSet FreeColumns(const LogicalOp& op);

// `argument` bound as a `want` (an assignment cast, else what `mismatch`
// makes of the type it has) and evaluated now (EvaluateNow): EXECUTE's and
// TABLESAMPLE's arguments. A sequence function is 0A000 naming `clause`.
Value EvaluateArgumentNow(Binder& binder, const sql::Expr& argument, const Type& want,
                          const char* clause,
                          const std::function<DbError(const Type& got)>& mismatch);

// TABLESAMPLE over `table`'s scan (binder_tablesample.cc): the scan under a
// filter that keeps each row with the sample's probability.
LogicalOpPtr BindTableSample(Binder& binder, const sql::TableSample& sample, LogicalOpPtr scan,
                             const ScopeRelation& table);

}  // namespace forktail
