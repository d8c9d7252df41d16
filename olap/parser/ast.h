// The SQL abstract syntax tree: what sql::Parse (parser.h) produces and the
// binder consumes.
//
// The tree is purely syntactic. Nothing here is resolved: names are the
// spelled identifiers (unquoted ones folded to lower case, "quoted" ones kept
// verbatim, exactly as PostgreSQL does), literals keep their source text, and
// type names are the spelled names. The binder does all resolution and typing.
//
// Node style: tagged structs owning their children through unique_ptr, one
// `enum class` kind per family (Expr, TableRef, Query, Statement). A field is
// meaningful only for the kinds whose comment names it; all other fields keep
// their default values, so a binder can `switch (kind)` and read exactly the
// fields documented for that case.
//
// Positions: every node has `int position`, the 1-based CHARACTER (not byte)
// offset of the construct in the text given to sql::Parse, the same number
// PostgreSQL puts in an ErrorResponse's 'P' field. Pass it to
// DbError(sqlstate, message, position) to point at a node. Binary and
// unary operator nodes point at the OPERATOR token (as PostgreSQL does for
// "operator does not exist" errors), and so do the keyword operators kAnd,
// kOr, kIsNull, kIsBool, kIsDistinctFrom, kBetween, kInList, kInSubquery,
// kLike, kSimilar, kQuantified (the AND / IS / BETWEEN / IN / LIKE / op
// token); kCast written `x::t` points at `::`; everything else points at its
// first token. 0 means "no position" (synthesized nodes).
//
// Normalizations the parser applies (so the binder sees one spelling):
//   - `!=` becomes `<>`; OPERATOR(pg_catalog.~) becomes op "~".
//   - `x::t` and CAST(x AS t) are both kCast.
//   - SUBSTRING(x FROM a FOR b), SUBSTRING(x FOR b) and substring(x, a, b) are
//     all kFunction "substring" with arguments (x, a[, b]); SUBSTRING(x FOR b)
//     gets a = integer literal 1.
//   - POSITION(a IN b) is kFunction "position" with arguments (a, b).
//   - TRIM([BOTH|LEADING|TRAILING] [chars] FROM x) is kFunction "btrim" /
//     "ltrim" / "rtrim" with arguments (x[, chars]) as in PostgreSQL.
//   - EXTRACT(field FROM x) is kExtract (field lower-cased, e.g. "year").
//   - CURRENT_DATE, CURRENT_TIMESTAMP, LOCALTIMESTAMP, CURRENT_TIME,
//     LOCALTIME, CURRENT_USER, SESSION_USER, USER, CURRENT_SCHEMA,
//     CURRENT_CATALOG (without parentheses) are kFunction named in lower case
//     with `no_parens` = true (CURRENT_TIMESTAMP(3): args = {3}).
//   - COALESCE / NULLIF / GREATEST / LEAST are ordinary kFunction calls.
//   - COLLATE x is parsed and dropped.
//   - A minus sign directly applied to a numeric literal is folded into it,
//     as PostgreSQL does: `-5` is kLiteral kInteger "-5" (position of '-');
//     `-x`, `-(5)`... stay kUnaryOp. A unary '+' on a literal is dropped.
//   - `x AT TIME ZONE z` is kFunction "timezone" with arguments (z, x).
//   - INSERT VALUES rows and UPDATE SET values may be kDefault.
//   - Type names are lower-cased and canonicalized to PostgreSQL's internal
//     spelling where the grammar has a special form: INT / INTEGER -> "int4",
//     SMALLINT -> "int2", BIGINT -> "int8", REAL -> "float4", FLOAT /
//     DOUBLE PRECISION -> "float8" (FLOAT(p): p <= 24 -> "float4"), BOOLEAN ->
//     "bool", DECIMAL / DEC / NUMERIC -> "numeric", CHAR / CHARACTER ->
//     "bpchar" (default modifier {1} only in CREATE TABLE column types and
//     casts, as PostgreSQL), VARCHAR / CHARACTER VARYING -> "varchar",
//     TIMESTAMP [WITHOUT TIME ZONE] -> "timestamp", TIMESTAMP WITH TIME ZONE ->
//     "timestamptz", TIME [WITHOUT TIME ZONE] -> "time", TIME WITH TIME ZONE ->
//     "timetz", INTERVAL -> "interval". Other names (int4, text, date,
//     regclass, pg_catalog.text) are kept as spelled (lower-cased if
//     unquoted), with a schema qualifier in `schema`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace forktail::sql {

struct Expr;
struct Query;
struct TableRef;
struct Statement;
using ExprPtr = std::unique_ptr<Expr>;
using QueryPtr = std::unique_ptr<Query>;
using TableRefPtr = std::unique_ptr<TableRef>;
using StatementPtr = std::unique_ptr<Statement>;

// A possibly qualified name as spelled: {"t"}, {"public", "t"},
// {"pg_catalog", "format_type"}. Each part already case-folded/unquoted.
using QualifiedName = std::vector<std::string>;

// A type as written: `numeric(15,2)` -> {name "numeric", modifiers {15, 2}};
// `varchar(25)` -> {"varchar", {25}}; `pg_catalog.int2[]` ->
// {schema "pg_catalog", name "int2", array_bounds 1}. See the normalization
// list at the top for the canonical names.
struct TypeName {
  std::string schema;              // "" unless qualified
  std::string name;                // canonical lower-case name
  std::vector<int64_t> modifiers;  // typmods in order; empty if none
  int array_bounds = 0;            // number of [] suffixes (int4[] -> 1)
  // INTERVAL field restriction: "year", "month", "day", "hour", "minute",
  // "second", "year to month", "day to hour", "day to minute", "day to
  // second", "hour to minute", "hour to second", "minute to second"; "" if none.
  std::string interval_fields;
  int position = 0;
};

enum class ExprKind : uint8_t {
  kColumnRef,       // names: [schema.][table.]column
  kStar,            // `*` or `t.*` in a select list: names = qualifier ({} for bare *)
  kLiteral,         // literal_kind, text, (kTyped: type)
  kParameter,       // $n: param_index
  kUnaryOp,         // op ("-", "+", "~", "|/" ...), children[0]; position = operator
  kBinaryOp,        // op, children[0] op children[1]; position = operator
  kAnd,             // children: >= 2 conjuncts, flattened (a AND b AND c: 3 children)
  kOr,              // children: >= 2 disjuncts, flattened
  kNot,             // children[0]
  kIsNull,          // children[0] IS [NOT] NULL (negated); also `x ISNULL` / `x NOTNULL`
  kIsBool,          // children[0] IS [NOT] TRUE/FALSE/UNKNOWN: bool_test, negated
  kIsDistinctFrom,  // children[0] IS [NOT] DISTINCT FROM children[1] (negated = NOT)
  kBetween,         // children: x, low, high; negated (NOT BETWEEN); symmetric
  kInList,          // children[0] [NOT] IN (children[1..]); negated
  kInSubquery,      // children[0] [NOT] IN (subquery); negated. children[0] may be kRow
  kLike,            // children: x, pattern[, escape]; negated; case_insensitive (ILIKE)
                    // `~~` / `!~~` / `~~*` / `!~~*` operators also map here
  kSimilar,         // children: x, pattern[, escape]; negated (SIMILAR TO)
  kExists,          // EXISTS (subquery)
  kSubquery,        // scalar subquery: (subquery)
  kQuantified,      // children[0] op ANY|SOME|ALL (subquery | array expr): op,
                    // quantifier; subquery set, or children[1] = the array expression.
                    // x [NOT] LIKE|ILIKE ANY (..) has op "~~" / "!~~" / "~~*" / "!~~*"
  kCase,            // CASE [children[0] if case_operand] WHEN.. THEN.. [ELSE]: see fields
  kCast,            // children[0]::type / CAST(children[0] AS type)
  kFunction,        // names(args): see the function fields
  kExtract,         // EXTRACT(field FROM children[0])
  kArray,           // ARRAY[children...] (nested ARRAY[[..],[..]] are kArray children)
  kArraySubquery,   // ARRAY(subquery)
  kRow,             // (a, b, ...) or ROW(a, ...): children
  kSubscript,       // children[0][children[1]] or children[0][children[1]:children[2]]
                    // (slice: is_slice; a missing bound is a null child)
  kFieldSelect,     // (children[0]).field: names = {field}
  kDefault,         // DEFAULT in INSERT VALUES / UPDATE SET
};

enum class LiteralKind : uint8_t {
  kNull,       // NULL                                            text ""
  kBoolean,    // TRUE / FALSE                                    text "true" / "false"
  kInteger,    // digits only: 42 (may exceed int64: binder decides int4/int8/numeric)
  kNumeric,    // with '.' and/or exponent: 1.5, .5, 1e10, 2.5E-3 (text as written)
  kString,     // 'abc', E'a\nb', $$x$$, U&'..' : text is the decoded value
  kBitString,  // B'1010' (text "1010") or X'1F' (text "x1F")
  kTyped,      // type 'text': DATE '1998-12-01', TIMESTAMP '...', INTERVAL '3' MONTH,
               // INTERVAL '90' DAY (3) (type.interval_fields "day", type.modifiers {3}),
               // INTERVAL '1 year 2 days'; text = the decoded string
};

enum class BoolTest : uint8_t { kTrue, kFalse, kUnknown };
enum class Quantifier : uint8_t { kAny, kAll };  // SOME is kAny
enum class SortDirection : uint8_t { kAsc, kDesc };
// kDefault: PostgreSQL's default (NULLS LAST for ASC, NULLS FIRST for DESC).
enum class NullsOrder : uint8_t { kDefault, kFirst, kLast };

// One ORDER BY key (query ORDER BY, aggregate ORDER BY, window ORDER BY).
// An integer-literal expr is an ordinal (ORDER BY 2) in query ORDER BY; a bare
// kColumnRef may name an output alias: the binder decides, as PostgreSQL does.
struct OrderItem {
  ExprPtr expr;
  SortDirection direction = SortDirection::kAsc;
  NullsOrder nulls = NullsOrder::kDefault;
  int position = 0;
};

// OVER (PARTITION BY ... ORDER BY ... [frame]) or OVER name; also the
// definition in WINDOW name AS (...).
struct WindowSpec {
  std::string name;        // OVER w / OVER (w ...): the referenced window name; "" if none
  bool bare_name = false;  // OVER w (no parentheses): w as it is, frame included
  std::vector<ExprPtr> partition_by;
  std::vector<OrderItem> order_by;
  std::string frame;  // frame clause text, normalized upper-case words ("" = default)
  int position = 0;
};

// WINDOW name AS (spec): a definition may refer to an earlier one.
struct NamedWindow {
  std::string name;
  std::unique_ptr<WindowSpec> spec;
  int position = 0;  // of the name
};

struct Expr {
  ExprKind kind = ExprKind::kLiteral;
  int position = 0;
  std::vector<ExprPtr> children;  // operands; order documented per kind above

  // kColumnRef: name parts; kStar: qualifier parts; kFunction: [schema.]name
  // (lower-cased, e.g. {"pg_catalog", "format_type"}, {"count"}); kFieldSelect:
  // {field}.
  QualifiedName names;

  // kLiteral
  LiteralKind literal_kind = LiteralKind::kNull;
  std::string text;  // kLiteral: see LiteralKind; kExtract: the field ("year", "epoch")
  TypeName type;     // kLiteral kTyped: the type; kCast: the target type

  int param_index = 0;  // kParameter: n of $n (1-based)

  // kUnaryOp / kBinaryOp / kQuantified: operator spelling. Normalized: "<>"
  // for != ; other operators as written: + - * / % ^ = <> < <= > >= || ~ !~ ~*
  // !~* & | # << >> @> <@ && ...
  std::string op;
  // OPERATOR(schema.op): the schema ("pg_catalog"), "" when not qualified.
  std::string op_schema;

  bool negated = false;                  // kIsNull, kIsBool, kIsDistinctFrom, kBetween, kInList,
                                         // kInSubquery, kLike, kSimilar: the NOT form
  bool case_insensitive = false;         // kLike: ILIKE
  bool symmetric = false;                // kBetween: BETWEEN SYMMETRIC
  bool is_slice = false;                 // kSubscript
  BoolTest bool_test = BoolTest::kTrue;  // kIsBool
  Quantifier quantifier = Quantifier::kAny;  // kQuantified

  // kExists, kSubquery, kInSubquery, kQuantified (subquery form), kArraySubquery
  QueryPtr subquery;

  // kCase: `case_operand` (simple CASE x WHEN ...; null for searched CASE),
  // `whens` = {condition/value, result} pairs in order, `else_result` (null:
  // ELSE NULL). children is unused for kCase.
  ExprPtr case_operand;
  std::vector<std::pair<ExprPtr, ExprPtr>> whens;
  ExprPtr else_result;

  // kFunction: arguments are `children`.
  bool star = false;       // COUNT(*) (children empty)
  bool distinct = false;   // agg(DISTINCT x)
  bool no_parens = false;  // CURRENT_TIMESTAMP & co. written without ()
  bool variadic = false;   // f(VARIADIC arr)
  // f(name => value): one name per child ("" for a positional argument);
  // empty when no argument is named.
  std::vector<std::string> arg_names;
  ExprPtr filter;                    // agg(...) FILTER (WHERE filter); null if none
  std::vector<OrderItem> agg_order;  // string_agg(x, ',' ORDER BY y)
  bool within_group = false;         // agg_order came as WITHIN GROUP (ORDER BY ...)
  std::unique_ptr<WindowSpec> over;  // f(...) OVER (...); null if not a window call
};

// Calls fn(Expr&) on each direct sub-expression of `e` that is an
// expression of the same query: operands (`children`), the parts of a CASE,
// an aggregate's FILTER and ORDER BY. Not on subqueries nor window
// definitions. Expr may be const.
template <typename E, typename Fn>
void ForEachSubExpr(E& e, Fn&& fn) {
  for (auto& c : e.children) {
    if (c) fn(*c);
  }
  if (e.case_operand) fn(*e.case_operand);
  for (auto& [when, then] : e.whens) {
    if (when) fn(*when);
    if (then) fn(*then);
  }
  if (e.else_result) fn(*e.else_result);
  if (e.filter) fn(*e.filter);
  for (auto& o : e.agg_order) {
    if (o.expr) fn(*o.expr);
  }
}

enum class JoinKind : uint8_t { kInner, kLeft, kRight, kFull, kCross };

enum class TableRefKind : uint8_t {
  kTable,     // names: [schema.]table
  kSubquery,  // (subquery) [AS] alias [(column_aliases)]; lateral
  kFunction,  // function call in FROM: generate_series(1, 10) AS s; `function`,
              // with_ordinality, lateral
  kJoin,      // left JOIN right: join_kind, natural, on / using_columns
};

// TABLESAMPLE method (arguments) [REPEATABLE (seed)] after a table.
struct TableSample {
  std::string method;  // lower case: "bernoulli", "system", ...
  int position = 0;    // of the method's name
  std::vector<ExprPtr> arguments;
  ExprPtr repeatable;  // null: none
};

struct TableRef {
  TableRefKind kind = TableRefKind::kTable;
  int position = 0;

  QualifiedName names;           // kTable
  QueryPtr subquery;             // kSubquery
  ExprPtr function;              // kFunction: a kFunction Expr
  bool with_ordinality = false;  // kFunction
  bool lateral = false;          // kSubquery / kFunction

  // kTable / kSubquery / kFunction: [AS] alias [(column_aliases)]; "" if none.
  // kJoin: an alias on a parenthesized join ((a JOIN b) AS j) if any.
  std::string alias;
  std::vector<std::string> column_aliases;
  // kFunction: a column definition list, [AS] [alias] (name type, ...): one
  // type per column_aliases entry (a function returning "record"); empty
  // otherwise.
  std::vector<TypeName> column_types;
  std::unique_ptr<TableSample> sample;  // kTable: TABLESAMPLE; null if none

  // kJoin. Comma-separated FROM items are NOT joins: they are separate entries
  // of Query::from (the binder cross-joins them).
  JoinKind join_kind = JoinKind::kInner;
  bool natural = false;
  TableRefPtr left, right;
  ExprPtr on;                              // ON condition; null for CROSS / NATURAL / USING
  std::vector<std::string> using_columns;  // USING (a, b)
};

// `expr [AS] alias` in a select list or RETURNING. alias "" when none given
// (the binder derives the output name as PostgreSQL does: column name,
// function name, or "?column?").
struct SelectItem {
  ExprPtr expr;
  std::string alias;
  int position = 0;  // start of expr
};

// WITH name [(columns)] AS [[NOT] MATERIALIZED] (query)
struct CommonTableExpr {
  std::string name;
  std::vector<std::string> column_names;
  QueryPtr query;
  int position = 0;
};

// A GROUP BY item that is not a plain expression (PostgreSQL's grouping
// sets): `()`, ROLLUP (..), CUBE (..) or GROUPING SETS (..). An element of
// ROLLUP or CUBE is one expression or a parenthesized list of them, which
// counts as one element; an item of GROUPING SETS is any GROUP BY item, a
// parenthesized list being one set.
struct GroupingElement {
  enum class Kind : uint8_t {
    kList,    // one set: `exprs` (empty: the empty set `()`)
    kRollup,  // `elements` (kList each): every prefix, longest first
    kCube,    // `elements` (kList each): every subset
    kSets,    // GROUPING SETS: the sets of each of `elements`, in order
  };
  Kind kind = Kind::kList;
  int position = 0;
  std::vector<ExprPtr> exprs;
  std::vector<GroupingElement> elements;
};

enum class QueryKind : uint8_t {
  kSelect,  // SELECT ... [FROM ...]: the select fields
  kValues,  // VALUES (..), (..): values
  kSetOp,   // left UNION|INTERSECT|EXCEPT [ALL] right
};
enum class SetOpKind : uint8_t { kUnion, kIntersect, kExcept };

// One query expression. ORDER BY / LIMIT / OFFSET / WITH / locking apply to
// the query as a whole: for `SELECT .. UNION SELECT .. ORDER BY 1 LIMIT 5`
// they sit on the kSetOp node; for a parenthesized operand they sit on that
// operand.
struct Query {
  QueryKind kind = QueryKind::kSelect;
  int position = 0;

  // WITH [RECURSIVE] ctes; visible in this query and its sub-nodes.
  std::vector<CommonTableExpr> with;
  bool recursive = false;

  // kSelect
  bool distinct = false;                // SELECT DISTINCT (also DISTINCT ON)
  std::vector<ExprPtr> distinct_on;     // DISTINCT ON (exprs); empty otherwise
  std::vector<SelectItem> select_list;  // may be empty (SELECT FROM t is legal)
  std::vector<TableRefPtr> from;        // comma-separated items; empty: no FROM
  ExprPtr where;                        // null if none
  std::vector<ExprPtr> group_by;        // expressions; integer literal = ordinal
  // GROUP BY's grouping-set items: the query groups by every combination of
  // one set of each, each joined with `group_by` (empty: by `group_by` alone).
  std::vector<GroupingElement> grouping_sets;
  bool group_distinct = false;  // GROUP BY DISTINCT: drops repeated sets
  // SELECT .. INTO [TEMP] [TABLE] name: the table (empty: no INTO). The
  // parser makes a statement whose query has one a CREATE TABLE AS; one left
  // in a nested query is the binder's 42601.
  QualifiedName into;
  bool into_temporary = false;
  int into_position = 0;
  ExprPtr having;                    // null if none
  std::vector<NamedWindow> windows;  // WINDOW w AS (...), ...; in order

  // kValues: rows of expressions (every row the same length: checked by the parser)
  std::vector<std::vector<ExprPtr>> values;

  // kSetOp
  SetOpKind set_op = SetOpKind::kUnion;
  bool set_all = false;  // UNION ALL etc.
  QueryPtr left, right;

  // all kinds
  std::vector<OrderItem> order_by;
  ExprPtr limit;   // LIMIT n / FETCH FIRST n ROWS ONLY; null for none or LIMIT ALL
  ExprPtr offset;  // OFFSET n; null if none
  // FOR UPDATE / FOR NO KEY UPDATE / FOR SHARE / FOR KEY SHARE: "update",
  // "no key update", "share", "key share"; "" if none.
  std::string locking;
  // FOR ... OF t, u: the tables named; empty: every table of the FROM.
  std::vector<QualifiedName> locking_of;
  // FOR ... NOWAIT / SKIP LOCKED: "nowait", "skip locked"; "" (wait) if none.
  std::string locking_wait;
};

// name = value option of COPY (...), EXPLAIN (...), WITH (...) of CREATE
// TABLE, and the old COPY syntax (normalized: CSV -> {"format","csv"},
// HEADER -> {"header",""}, DELIMITER 'x' -> {"delimiter","x"}, NULL 'x' ->
// {"null","x"}, BINARY -> {"format","binary"}, QUOTE / ESCAPE likewise,
// FORCE NOT NULL / FORCE QUOTE -> {"force_not_null"/"force_quote", "a,b"}).
// name is lower-cased; value is the option's argument as text (a string
// literal's decoded value, a number's text, an identifier/keyword
// lower-cased, "" when the option had no argument).
struct Option {
  std::string name;
  std::string value;
  bool has_value = false;
  int position = 0;
};

enum class ConstraintKind : uint8_t { kPrimaryKey, kUnique, kForeignKey, kCheck };

// ON DELETE / ON UPDATE of a foreign key.
enum class ReferentialAction : uint8_t { kNoAction, kRestrict, kCascade, kSetNull, kSetDefault };

// A table constraint of CREATE TABLE or ALTER TABLE ADD.
struct TableConstraint {
  ConstraintKind kind = ConstraintKind::kPrimaryKey;
  std::string name;                      // CONSTRAINT name; "" if none
  std::vector<std::string> columns;      // key columns (kPrimaryKey, kUnique, kForeignKey)
  QualifiedName ref_table;               // kForeignKey: REFERENCES table
  std::vector<std::string> ref_columns;  // kForeignKey: referenced columns ({} = its PK)
  // kForeignKey: MATCH FULL (MATCH SIMPLE is the default; the parser refuses
  // MATCH PARTIAL as PostgreSQL does), the actions, ON DELETE SET NULL /
  // SET DEFAULT (columns), [NOT] DEFERRABLE and INITIALLY DEFERRED /
  // IMMEDIATE as given (deferrable_position: where DEFERRABLE or INITIALLY
  // DEFERRED is, 0 if neither).
  bool match_full = false;
  ReferentialAction on_delete = ReferentialAction::kNoAction;
  ReferentialAction on_update = ReferentialAction::kNoAction;
  std::vector<std::string> delete_set_columns;
  int deferrable_position = 0;
  ExprPtr check;  // kCheck
  int position = 0;
};

// One option of CREATE / ALTER SEQUENCE or of an identity column
// (PostgreSQL's SeqOptElem), as written: the binder checks and applies them.
struct SequenceOption {
  // "as", "cache", "cycle", "increment", "maxvalue", "minvalue", "owned_by",
  // "start", "restart", "sequence_name"
  std::string name;
  bool no = false;      // NO CYCLE, NO MINVALUE, NO MAXVALUE
  std::string number;   // the value as written, "-" included; "" for RESTART alone
  TypeName type;        // AS type
  QualifiedName names;  // OWNED BY table.column ({"none"}: OWNED BY NONE), SEQUENCE NAME
  int position = 0;     // of the option's first word
};

// One column of CREATE TABLE.
struct ColumnDef {
  std::string name;
  TypeName type;
  bool not_null = false;   // NOT NULL (or PRIMARY KEY inline, which implies it)
  bool null_seen = false;  // explicit NULL
  bool primary_key = false;
  bool unique = false;
  ExprPtr default_value;  // DEFAULT expr; null if none
  // GENERATED BY DEFAULT AS IDENTITY (1) / GENERATED ALWAYS AS IDENTITY (2); 0: none
  int identity = 0;
  std::vector<SequenceOption> identity_options;  // AS IDENTITY ( options )
  // Inline [CONSTRAINT name] CHECK (expr) and REFERENCES t (kind kCheck /
  // kForeignKey; columns: this column).
  std::vector<TableConstraint> constraints;
  int position = 0;
  // LIKE source [{INCLUDING | EXCLUDING} option ...]: this entry stands for
  // the source table's columns; `like_including` is a set of LikeOption bits.
  QualifiedName like;
  uint32_t like_including = 0;
};

// CREATE TABLE's LIKE options (PostgreSQL's TableLikeOption).
enum LikeOption : uint32_t {
  kLikeComments = 1,
  kLikeCompression = 2,
  kLikeConstraints = 4,
  kLikeDefaults = 8,
  kLikeGenerated = 16,
  kLikeIdentity = 32,
  kLikeIndexes = 64,
  kLikeStatistics = 128,
  kLikeStorage = 256,
  kLikeAll = 511,
};

enum class StatementKind : uint8_t {
  kSelect,       // query
  kInsert,       // insert
  kUpdate,       // update
  kDelete,       // del
  kCreateTable,  // create_table
  kDropTable,    // drop (also DROP INDEX: drop->object "index")
  kCreateIndex,  // create_index
  kCreateView,   // create_view (DROP VIEW: kDropTable with drop->object "view")
  kAlterTable,   // alter_table
  kTruncate,     // truncate
  kTransaction,  // transaction: BEGIN / START TRANSACTION / COMMIT / END / ROLLBACK / ABORT
  kSet,          // set: SET / SET SESSION CHARACTERISTICS / SET TRANSACTION
  kShow,         // show: SHOW name / SHOW ALL
  kReset,        // reset: RESET name / RESET ALL
  kVacuum,       // vacuum: VACUUM [ANALYZE] [t..]; ANALYZE [t..]
  kCopy,         // copy
  kExplain,      // explain
  kDiscard,      // discard: DISCARD ALL / PLANS / ...
  kDeallocate,   // deallocate: DEALLOCATE [PREPARE] name | ALL
  kDeclare,      // declare: DECLARE name ... CURSOR ... FOR query
  kFetch,        // fetch: FETCH / MOVE
  kClose,        // close: CLOSE name | ALL
  // create_sequence (DROP SEQUENCE: kDropTable with drop->object "sequence")
  kCreateSequence,
  // alter_sequence
  kAlterSequence,
  kCheckpoint,  // CHECKPOINT (no member)
  kListen,      // listen: LISTEN ch / UNLISTEN ch | * / NOTIFY ch [, 'payload']
  kComment,     // comment: COMMENT ON TABLE t | COLUMN t.c IS 'text' | NULL
  kPrepare,     // prepare: PREPARE name [(type, ...)] AS statement
  kExecute,     // execute: EXECUTE name [(argument, ...)]
  kCall,        // call: CALL name([argument, ...])
  // create_schema: CREATE SCHEMA [IF NOT EXISTS] name [AUTHORIZATION role]
  kCreateSchema,
};

struct SetClause {
  std::string column;  // SET column = value (kDefault for DEFAULT)
  ExprPtr value;
  int position = 0;  // of the column name
};

// INSERT ... ON CONFLICT [(columns) | ON CONSTRAINT name] DO NOTHING |
// DO UPDATE SET ... [WHERE ...]
struct OnConflict {
  std::vector<std::string> target_columns;  // (a, b); empty: none given
  std::vector<int> target_positions;        // per column: where an error about it points
  ExprPtr target_where;                     // (columns) WHERE predicate: a partial index's
  std::string constraint;                   // ON CONSTRAINT name
  bool do_update = false;
  std::vector<SetClause> set;  // DO UPDATE
  ExprPtr where;               // DO UPDATE ... WHERE; null if none
  int position = 0;            // of ON
};

struct InsertStmt {
  QualifiedName table;
  std::string alias;                 // INSERT INTO t AS x
  std::vector<std::string> columns;  // (cols); empty: all columns in order
  // The source: kValues for VALUES lists (kDefault exprs allowed), any query
  // for INSERT ... SELECT; null for DEFAULT VALUES.
  QueryPtr source;
  std::unique_ptr<OnConflict> on_conflict;  // null: none
  std::vector<SelectItem> returning;        // RETURNING list; empty if none
  int table_position = 0;
};

struct UpdateStmt {
  QualifiedName table;
  std::string alias;
  std::vector<SetClause> set;
  std::vector<TableRefPtr> from;  // UPDATE ... FROM; empty if none
  ExprPtr where;                  // null if none
  std::vector<SelectItem> returning;
  int table_position = 0;
};

struct DeleteStmt {
  QualifiedName table;
  std::string alias;
  std::vector<TableRefPtr> using_tables;  // DELETE ... USING
  ExprPtr where;
  std::vector<SelectItem> returning;
  int table_position = 0;
};

struct CreateTableStmt {
  QualifiedName table;
  bool if_not_exists = false;
  bool temporary = false;
  std::vector<ColumnDef> columns;
  std::vector<TableConstraint> constraints;  // table-level constraints
  std::vector<Option> options;               // WITH (fillfactor=100)
  // CREATE TABLE t [(names)] AS query [WITH [NO] DATA], and SELECT .. INTO t:
  // the query (null otherwise), the names of its first columns, and whether
  // its rows are inserted.
  QueryPtr as_query;
  std::vector<std::string> as_column_names;
  bool with_data = true;
};

struct DropStmt {
  std::string object = "table";      // "table", "index", "view" or "sequence"
  std::vector<QualifiedName> names;  // DROP TABLE a, b
  std::vector<int> name_positions;   // parallel to names
  bool if_exists = false;
  bool cascade = false;
};

// CREATE [TEMPORARY | UNLOGGED] SEQUENCE [IF NOT EXISTS] name [options]
struct CreateSequenceStmt {
  QualifiedName name;
  bool if_not_exists = false;
  bool temporary = false;
  bool unlogged = false;
  std::vector<SequenceOption> options;
};

// ALTER SEQUENCE [IF EXISTS] name options | RENAME TO new_name
struct AlterSequenceStmt {
  QualifiedName name;
  bool if_exists = false;
  std::vector<SequenceOption> options;
  std::string new_name;  // RENAME TO; "" otherwise
};

struct CreateViewStmt {
  QualifiedName name;
  bool or_replace = false;
  std::vector<std::string> column_names;  // CREATE VIEW v (a, b); empty if none
  QueryPtr query;
};

struct CreateIndexStmt {
  std::string name;  // "" if omitted
  QualifiedName table;
  bool unique = false;
  bool if_not_exists = false;
  std::string method;           // USING btree/hash; "" if not given
  std::vector<OrderItem> keys;  // index keys: column refs or (expressions)
  ExprPtr where;                // partial index predicate; null if none
};

enum class AlterKind : uint8_t {
  kAddConstraint,    // ADD [CONSTRAINT name] PRIMARY KEY | UNIQUE | CHECK | FOREIGN KEY ...
  kAddColumn,        // ADD [COLUMN] [IF NOT EXISTS] column definition
  kDropColumn,       // DROP [COLUMN] [IF EXISTS] name [RESTRICT | CASCADE]
  kAlterColumnType,  // ALTER [COLUMN] name [SET DATA] TYPE type [USING expr]
  kSetDefault,       // ALTER [COLUMN] name SET DEFAULT expr
  kDropDefault,      // ALTER [COLUMN] name DROP DEFAULT
  kSetNotNull,       // ALTER [COLUMN] name SET NOT NULL
  kDropNotNull,      // ALTER [COLUMN] name DROP NOT NULL
  kRenameColumn,     // RENAME [COLUMN] name TO new_name (the statement's only action)
  kRenameTable,      // RENAME TO new_name (the statement's only action)
  // ALTER [COLUMN] name {RESTART [[WITH] n] | SET sequence option | SET
  // GENERATED {ALWAYS | BY DEFAULT}}...: an identity column's sequence and kind
  kAlterIdentity,
  kDropConstraint,  // DROP CONSTRAINT [IF EXISTS] name [RESTRICT | CASCADE]
};

// One action of ALTER TABLE (a statement may list several, comma-separated).
struct AlterAction {
  AlterKind kind = AlterKind::kAddConstraint;
  TableConstraint constraint;  // kAddConstraint
  ColumnDef column;            // kAddColumn
  std::string column_name;     // the column of every other column action;
                               // kDropConstraint: the constraint's name
  std::string new_name;        // kRenameColumn, kRenameTable
  TypeName type;               // kAlterColumnType
  ExprPtr expr;                // kSetDefault: the DEFAULT; kAlterColumnType: USING (or null)
  bool if_exists = false;      // ADD COLUMN IF NOT EXISTS, DROP COLUMN / CONSTRAINT IF EXISTS
  bool cascade = false;        // DROP COLUMN / CONSTRAINT ... CASCADE
  int position = 0;            // of the action's first word
  // kAlterIdentity: the sequence options, and SET GENERATED (1 BY DEFAULT,
  // 2 ALWAYS; 0 not given)
  std::vector<SequenceOption> identity_options;
  int set_generated = 0;
};

struct AlterTableStmt {
  QualifiedName table;
  int table_position = 0;
  bool if_exists = false;
  std::vector<AlterAction> actions;
};

struct TruncateStmt {
  std::vector<QualifiedName> tables;
  bool cascade = false;
  bool restart_identity = false;
};

// kSavepoint: SAVEPOINT name; kRelease: RELEASE [SAVEPOINT] name;
// kRollbackTo: ROLLBACK [WORK | TRANSACTION] TO [SAVEPOINT] name.
enum class TransactionKind : uint8_t {
  kBegin,
  kCommit,
  kRollback,
  kSavepoint,
  kRelease,
  kRollbackTo
};

struct TransactionStmt {
  TransactionKind kind = TransactionKind::kBegin;
  std::string savepoint;  // kSavepoint, kRelease, kRollbackTo: the name
  // "serializable", "repeatable read", "read committed", "read uncommitted";
  // "" if not given.
  std::string isolation_level;
  int read_only = -1;  // READ ONLY: 1, READ WRITE: 0, not given: -1
  bool chain = false;  // COMMIT AND CHAIN
};

struct SetStmt {
  // Parameter name, lower-cased (dotted names kept: "myapp.x"). Special forms:
  // SET TIME ZONE x -> "timezone"; SET NAMES x -> "client_encoding";
  // SET SESSION CHARACTERISTICS AS TRANSACTION ... ->
  // "default_transaction_isolation" (+ read_only); SET TRANSACTION ... ->
  // "transaction_isolation".
  std::string name;
  // The values as text: strings decoded, identifiers / keywords lower-cased,
  // numbers as written (SET search_path = a, b -> {"a", "b"}). Empty with
  // is_default for `= DEFAULT` / `TO DEFAULT` (and SET TIME ZONE LOCAL).
  std::vector<std::string> values;
  bool is_default = false;
  bool local = false;  // SET LOCAL
  int read_only = -1;  // transaction characteristics forms: see TransactionStmt
  // SET CONSTRAINTS {ALL | name [, ...]} {DEFERRED | IMMEDIATE}: name
  // "constraints", values the names as written ("public.fk"; none: ALL).
  bool constraints = false;
  bool deferred = false;
};

struct ShowStmt {
  std::string name;  // lower-cased; "all"; SHOW TIME ZONE -> "timezone";
                     // SHOW TRANSACTION ISOLATION LEVEL -> "transaction_isolation"
};

struct ResetStmt {
  std::string name;  // lower-cased; "all"
};

struct VacuumStmt {
  bool vacuum = true;    // false: a bare ANALYZE statement
  bool analyze = false;  // VACUUM ANALYZE, or ANALYZE
  bool full = false;
  bool verbose = false;
  std::vector<Option> options;        // VACUUM (opts) form
  std::vector<QualifiedName> tables;  // empty: all tables
};

struct CopyStmt {
  QualifiedName table;               // empty when `query` is set
  std::vector<std::string> columns;  // empty: all columns
  // COPY (query) TO ...: the query as a kSelect statement spanning its text
  // (see DeclareStmt); null otherwise.
  StatementPtr query;
  bool from = true;             // COPY ... FROM (false: TO)
  bool std_stream = false;      // STDIN / STDOUT
  std::string file;             // 'file' when !std_stream
  std::vector<Option> options;  // normalized, see Option
};

// DECLARE name [BINARY] [ASENSITIVE | INSENSITIVE] [[NO] SCROLL] CURSOR
// [{WITH | WITHOUT} HOLD] FOR query
struct DeclareStmt {
  std::string name;
  bool binary = false;
  bool insensitive = false;  // INSENSITIVE (ASENSITIVE is the default)
  int scroll = -1;           // SCROLL: 1, NO SCROLL: 0, neither: -1
  bool hold = false;         // WITH HOLD
  // The query as a statement of its own (kSelect), whose position, begin,
  // end and max_parameter span the query's text inside the DECLARE.
  StatementPtr query;
};

// FETCH / MOVE, normalized as PostgreSQL's grammar does: NEXT and a bare
// FETCH are FORWARD 1, PRIOR is BACKWARD 1, FIRST is ABSOLUTE 1, LAST is
// ABSOLUTE -1, n is FORWARD n, ALL is FORWARD ALL.
enum class FetchDirection : uint8_t { kForward, kBackward, kAbsolute, kRelative };
inline constexpr int64_t kFetchAll = INT64_MAX;  // count of ALL

struct FetchStmt {
  bool move = false;  // MOVE: positions only, returns no rows
  FetchDirection direction = FetchDirection::kForward;
  int64_t count = 1;  // a 32-bit signed count as in PostgreSQL, or kFetchAll
  std::string name;   // the cursor
};

struct ListenStmt {
  enum class Action : uint8_t { kListen, kUnlisten, kNotify };
  Action action = Action::kListen;
  std::string channel;  // an identifier (case-folded unless quoted); "" for UNLISTEN *
  std::string payload;  // NOTIFY's; "" if none
};

struct CommentStmt {
  bool column = false;              // COLUMN, else TABLE
  QualifiedName name;               // [schema.]table, or [schema.]table.column
  std::optional<std::string> text;  // nullopt: IS NULL (the comment is removed)
};

// Forktail has the schemas PostgreSQL creates (public, pg_catalog,
// information_schema) and no others: naming one of those is answered,
// anything else is 0A000 (the session's CREATE SCHEMA).
struct CreateSchemaStmt {
  std::string name;           // "" for CREATE SCHEMA AUTHORIZATION role
  std::string authorization;  // AUTHORIZATION role; "" if none
  bool if_not_exists = false;
  int elements_position = 0;  // where schema elements (CREATE TABLE ...) start; 0: none
};

struct CloseStmt {
  std::string name;  // "" with all
  bool all = false;
};

struct ExplainStmt {
  bool analyze = false;
  bool verbose = false;
  std::vector<Option> options;  // EXPLAIN (ANALYZE, COSTS off, ...) as given
  StatementPtr statement;       // the explained statement
};

struct DiscardStmt {
  std::string what;  // "all", "plans", "sequences", "temp"
};

struct DeallocateStmt {
  std::string name;  // "" with all
  bool all = false;
};

// CALL [public.]name([argument, ...]): runs a stored procedure the
// embedding application registered (Database::RegisterProcedure).
struct CallStmt {
  std::string name;
  std::vector<ExprPtr> arguments;
};

struct Statement;
// PREPARE name [(type, ...)] AS statement: a SELECT (VALUES, TABLE, WITH),
// INSERT, UPDATE or DELETE, whose $n are the parameters. `statement`'s
// begin / end / max_parameter are its own (the PREPARE has no parameters).
struct PrepareStmt {
  std::string name;
  std::vector<TypeName> types;
  std::unique_ptr<Statement> statement;
};

// EXECUTE name [(argument, ...)].
struct ExecuteStmt {
  std::string name;
  std::vector<ExprPtr> arguments;
};

// One statement of the input. Exactly one of the per-kind members is set,
// the one named next to its StatementKind.
struct Statement {
  StatementKind kind = StatementKind::kSelect;
  int position = 0;  // 1-based character offset of the first token
  // Source text span: BYTE offsets [begin, end) into the string given to
  // sql::Parse, from the first token to the end of the last token (the
  // terminating ';' and surrounding whitespace/comments excluded).
  size_t begin = 0;
  size_t end = 0;
  // Number of $n parameters referenced: the highest n seen (0 if none).
  int max_parameter = 0;

  QueryPtr query;  // kSelect
  std::unique_ptr<InsertStmt> insert;
  std::unique_ptr<UpdateStmt> update;
  std::unique_ptr<DeleteStmt> del;
  std::unique_ptr<CreateTableStmt> create_table;
  std::unique_ptr<DropStmt> drop;
  std::unique_ptr<CreateIndexStmt> create_index;
  std::unique_ptr<CreateViewStmt> create_view;
  std::unique_ptr<AlterTableStmt> alter_table;
  std::unique_ptr<TruncateStmt> truncate;
  std::unique_ptr<TransactionStmt> transaction;
  std::unique_ptr<SetStmt> set;
  std::unique_ptr<ShowStmt> show;
  std::unique_ptr<ResetStmt> reset;
  std::unique_ptr<VacuumStmt> vacuum;
  std::unique_ptr<CopyStmt> copy;
  std::unique_ptr<ExplainStmt> explain;
  std::unique_ptr<DiscardStmt> discard;
  std::unique_ptr<DeallocateStmt> deallocate;
  std::unique_ptr<PrepareStmt> prepare;
  std::unique_ptr<ExecuteStmt> execute;
  std::unique_ptr<CallStmt> call;
  std::unique_ptr<CreateSchemaStmt> create_schema;
  std::unique_ptr<DeclareStmt> declare;
  std::unique_ptr<FetchStmt> fetch;
  std::unique_ptr<CloseStmt> close;
  std::unique_ptr<CreateSequenceStmt> create_sequence;
  std::unique_ptr<AlterSequenceStmt> alter_sequence;
  std::unique_ptr<ListenStmt> listen;
  std::unique_ptr<CommentStmt> comment;
};

// Parses every statement of a ';'-separated string. An empty string, only
// whitespace/comments, or `;` alone give zero statements. Syntax errors throw
// DbError(sqlstate::kSyntaxError, "syntax error at or near \"tok\"" or
// "syntax error at end of input", position) with PostgreSQL's message and
// 1-based character position; lexical errors (unterminated quoted string,
// ...) likewise use PostgreSQL's wording. Defined in parser.cc.
std::vector<StatementPtr> Parse(std::string_view text);

// Compact debug rendering, fully parenthesized, used by tests and EXPLAIN
// VERBOSE-style diagnostics: e.g. `((a + 1) > $1)`, `count(*)`,
// `SELECT a, sum(b) FROM t WHERE (a > 1) GROUP BY a`. Defined in
// ast_printer.cc.
std::string ToString(const Expr& expr);
std::string ToString(const TypeName& type);
std::string ToString(const TableRef& ref);
std::string ToString(const Query& query);
std::string ToString(const Statement& statement);
// `parts` separated by `sep`: the printers' helper.
std::string Join(const std::vector<std::string>& parts, std::string_view sep);

}  // namespace forktail::sql
