// The logical plan: what a query computes, as a tree of relational
// operators, before any choice of physical algorithm. The binder builds it
// from the AST (olap/plan/binder), the
// optimizer rewrites it, the planner turns it into scheduler operators.
//
// Column ids. Every column any operator produces has a query-wide id (a
// number the binder hands out, unique in the query). Each operator lists its
// output columns as (id, name, type). An operator that forwards a column of
// its input unchanged keeps the column's id (Filter, Sort, Limit, Distinct,
// the key columns of Aggregate, both sides of a Join, a Project entry that
// is just a ColumnRef); an operator that computes a value gives it a fresh
// id (Project expressions, aggregates, Union/Values outputs, Get's columns).
// So an id names one value everywhere it appears, and the planner maps ids to
// positions in each operator's input.
//
// Expressions are olap/expression/expression.h's bound `Expression`, built with its
// factory functions, EXCEPT that a kColumnRef's `column` field holds a column
// id (never a position). An expression only refers to ids of its operator's
// input(s): a Join's condition to the ids of both children.
//
// Shape guarantees the planner may rely on (after Bind, kept by Optimize):
//   - no subqueries: IN / EXISTS / scalar / correlated subqueries are joins,
//     except the shapes joins cannot express, which are kApply operators
//     (their subplan is planned per outer binding at run time);
//   - Aggregate group keys, aggregate inputs, Sort keys and Join keys are
//     column ids of the child (the binder projects computed expressions into
//     columns first);
//   - a Join's key pair (left_keys[i], right_keys[i]) has KeyCompatible types;
//   - kRight never appears (RIGHT JOIN is bound as a LEFT JOIN with the
//     children swapped); kFull has at least one key pair when it can run
//     (olap/plan/binder/binder_join.h; the planner's 0A000 otherwise);
//   - after Optimize, the RIGHT child of every join is the build side (the
//     hash table); for semi/anti/null-aware-anti/left/single joins it always
//     was (the left side is the preserved / probe side).
//
// Annotations the optimizer adds for EXPLAIN and the planner: estimated_rows
// on every operator; on joins join_id, build_unique (each probe row matches
// at most one build row) and exact_filter (dense integer key range); on Gets
// the runtime (LIP) filters that builds feed to the scan.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "olap/expression/aggregates.h"
#include "olap/expression/expression.h"
#include "storage/ids.h"
#include "storage/value/types.h"

namespace forktail {

// One output column of an operator.
struct LogicalColumn {
  uint32_t id = 0;
  std::string name;  // user-visible name ("?column?", "count", "l_orderkey", alias)
  Type type;
};

enum class LogicalOpKind : uint8_t {
  kGet,             // table scan: reads `table_columns`, applies `conditions`
  kFilter,          // keeps rows where every `conditions` entry is TRUE
  kProject,         // one `expressions` entry per output column
  kJoin,            // see LogicalJoinKind
  kAggregate,       // group_keys, then aggregates; no keys: exactly one row
  kDistinct,        // removes duplicate rows (all columns)
  kSort,            // sort_keys; output = input columns in sorted order
  kLimit,           // skips `offset` rows, then passes at most `limit` rows
  kUnion,           // children have equal arity; positional; set_distinct: UNION
  kIntersect,       // set_distinct: INTERSECT, else INTERSECT ALL (may be absent)
  kExcept,          // set_distinct: EXCEPT, else EXCEPT ALL (may be absent)
  kValues,          // constant rows (also SELECT without FROM: one row, no columns)
  kApply,           // dependent join: `subplan` evaluated per row of children[0]
  kWindow,          // window functions over children[0] (partition_keys, sort_keys)
  kTableFunction,   // a set-returning function in FROM whose arguments read
                    // outer columns (olap/plan/binder/table_function.h); only inside
                    // an Apply's subplan, expanded to kValues per binding
  kSeries,          // generate_series over integers with constant arguments, too
                    // long for kValues rows: `series` (an INTEGER/BIGINT column,
                    // then WITH ORDINALITY's BIGINT if asked)
  kRecursiveUnion,  // WITH RECURSIVE: a leaf whose rows are computed when the
                    // query runs, from `subplan` (see below)
  kWorkTable,       // inside a kRecursiveUnion's recursive term: the rows the
                    // previous iteration added (`work_table_id` names which)
};

// What an Apply computes from the rows its subplan returns for one outer row
// (the subplan has one output column):
enum class ApplyKind : uint8_t {
  kScalar,  // 0 rows: NULL; 1 row: its value; more: 21000
  kExists,  // whether there is a row
  kAny,     // the subplan yields booleans: TRUE if one is TRUE, else NULL if
            // one is NULL, else FALSE (empty: FALSE)
  kAll,     // FALSE if one is FALSE, else NULL if one is NULL, else TRUE
  // LATERAL (olap/plan/binder/binder_lateral.h): the output is children[0]'s
  // columns then ALL the subplan's columns (the subplan's ids), one row per
  // (outer row, subplan row) pair; the subplan may have any arity.
  kLateral,      // outer rows with no subplan row are dropped
  kLateralLeft,  // ... kept once, with NULLs (LEFT JOIN LATERAL)
};

inline bool IsLateral(ApplyKind k) {
  return k == ApplyKind::kLateral || k == ApplyKind::kLateralLeft;
}

// Output columns: left's then right's, except semi/anti/null-aware anti
// (left's only). "Match" means: all key pairs equal (NULL never equals) and
// the residual condition TRUE.
enum class LogicalJoinKind : uint8_t {
  kInner,          // matching pairs
  kLeft,           // inner + unmatched left rows with NULL right columns
  kRight,          // never produced (bound as kLeft with the children swapped)
  kFull,           // inner + unmatched rows of both sides, NULL-padded
  kCross,          // every pair; no keys, no residual (the optimizer turns
                   // cross joins with equality conditions into kInner)
  kSemi,           // left rows with at least one match (EXISTS, IN)
  kAnti,           // left rows with no match (NOT EXISTS)
  kNullAwareAnti,  // NOT IN: JoinType::kNullAwareAnti's rule (join_probe.h):
                   // nothing if the right side has a NULL key; a left row with
                   // a NULL key only if the right side is empty; one key pair
  kSingle,         // scalar subquery: like kLeft, but more than one match for
                   // a left row raises 21000 "more than one row returned by a
                   // subquery used as an expression"; the right side has one
                   // column. Uncorrelated: no keys (every left row matches the
                   // right side's at most one row)
};

enum class RuntimeFilterKind : uint8_t {
  kBloom,  // LIP Bloom filter on the build keys' hashes
  kExact,  // ExactFilter over [exact_min, exact_max] of the build key
};

// A filter a join's build feeds to a Get on its probe side (Quickstep's LIP):
// rows of the Get whose `probe_column` cannot match the build keys of join
// `join_id` are dropped during the scan. The build must finish before that
// scan starts (the planner adds the blocking edge). Single-key joins only.
struct RuntimeFilterRef {
  int join_id = 0;
  RuntimeFilterKind kind = RuntimeFilterKind::kBloom;
  uint32_t probe_column = 0;  // column id of the Get's output
  uint32_t build_column = 0;  // column id of the join's right child
  // The estimated share of the Get's rows it keeps (the estimator applies
  // it, so that a join above sees the Get's rows as filtered).
  double selectivity = 1;
};

struct SortKeyRef {
  uint32_t column = 0;  // column id of the child
  bool descending = false;
  bool nulls_first = false;  // the binder fills PostgreSQL's default (DESC: first)
};

// One aggregate of an Aggregate operator. FILTER (WHERE c) was rewritten by
// the binder to the input CASE WHEN c THEN x END (COUNT(*) FILTER: COUNT of
// CASE WHEN c THEN 1 END).
struct LogicalAggregate {
  AggKind kind = AggKind::kCountStar;
  uint32_t input = 0;     // column id of the child; unused for kCountStar
  ListAggOrder order;     // kStringAgg / kArrayAgg (olap/execution/aggregate/list_agg.h)
  std::string separator;  // kStringAgg
};

struct LogicalOp;
using LogicalOpPtr = std::unique_ptr<LogicalOp>;

inline constexpr int64_t kNoRowLimit = -1;

struct LogicalOp {
  LogicalOpKind kind = LogicalOpKind::kValues;
  std::vector<LogicalOpPtr> children;  // Join: [left, right]; Union etc.: n
  std::vector<LogicalColumn> columns;  // output columns
  // Statistics-based estimate of the output row count (Optimize fills it;
  // -1: not estimated).
  double estimated_rows = -1;

  // kGet: the table (look it up in the Catalog the plan was bound against)
  // and, per output column, the table column it reads (same order as
  // `columns`). `conditions` are pushed-down filters over the Get's output ids.
  TableId table_id;
  std::string table_name;
  std::string alias;  // the FROM item's alias (or the table name)
  std::vector<uint32_t> table_columns;
  // Ids of `columns` that only `conditions` read (PruneColumns): the scan
  // reads them but does not output them, so that a frozen block's scan
  // need not decode them (olap/execution/operator/physical_scan.h).
  std::vector<uint32_t> condition_only;
  std::vector<RuntimeFilterRef> runtime_filters;

  // kFilter, kGet: conjuncts (all must be TRUE). kJoin: the residual
  // condition's conjuncts (empty: none), over both children's ids.
  std::vector<ExprPtr> conditions;

  // kProject: one per output column. kValues: unused.
  std::vector<ExprPtr> expressions;

  // kJoin
  LogicalJoinKind join_kind = LogicalJoinKind::kInner;
  std::vector<uint32_t> left_keys;   // column ids of children[0]
  std::vector<uint32_t> right_keys;  // column ids of children[1]
  int join_id = 0;                   // unique in the plan (Optimize assigns; 0: none)
  bool build_unique = false;         // right keys are unique in the right child
  bool exact_filter = false;         // right key is a dense integer key:
  int64_t exact_min = 0;             // an ExactFilter over [exact_min, exact_max]
  int64_t exact_max = 0;             // can replace the Bloom filter

  // kAggregate: output = group_keys' columns (same ids) then one column per
  // aggregate (fresh ids, type AggregateResultType).
  std::vector<uint32_t> group_keys;
  std::vector<LogicalAggregate> aggregates;

  // kSort
  std::vector<SortKeyRef> sort_keys;

  // kLimit (values known at bind time: $n parameters are bound as constants)
  int64_t limit = kNoRowLimit;  // kNoRowLimit: no limit
  int64_t offset = 0;

  // kUnion / kIntersect / kExcept
  bool set_distinct = false;

  // kValues: rows of constant expressions (one per output column).
  std::vector<std::vector<ExprPtr>> rows;

  // kSeries: from, from + step, ... (`count` values; the rows' order is not
  // kept downstream, as a table scan's).
  struct Series {
    int64_t from = 0;
    int64_t step = 1;
    uint64_t count = 0;
    bool operator==(const Series&) const = default;
  } series;

  // kApply (a correlated subquery the binder could not turn into a join):
  // output = children[0]'s columns then one result column (last; lateral
  // kinds: the subplan's columns, see ApplyKind). `subplan`
  // is the subquery's plan, NOT a child (the optimizer never rewrites it
  // against the outer plan); it reads outer columns by id (its free
  // columns). `expressions` holds one ColumnRef per free column (the
  // bindings), so passes that collect the ids an operator reads keep them.
  // At run time (olap/plan/planner/apply_runner.h) each distinct binding tuple gets
  // the subplan with the bindings replaced by constants, optimized, planned
  // and run on its own; results are cached per binding tuple. Bindings may
  // name columns of an operator further out (two levels of correlation):
  // the outer Apply substitutes them before this one runs.
  ApplyKind apply_kind = ApplyKind::kScalar;
  LogicalOpPtr subplan;

  // kRecursiveUnion (WITH RECURSIVE t AS (anchor UNION [ALL] term)): a leaf
  // with fresh output ids. `subplan` is a kUnion whose children are the
  // anchor and the recursive term, both with exactly the output's types, in
  // its order; they are NOT children (the optimizer never rewrites them
  // against the outer plan) and run at run time
  // (olap/plan/planner/apply_runner.h): the anchor once, then the term again
  // and again with each kWorkTable leaf of id `work_table_id` replaced by the
  // rows the previous round added, until a round adds none. set_distinct
  // (UNION): a row equal to one already produced is not added (nor iterated
  // on). The term reads the work table once (the binder's 42P19). `limit`
  // (kNoRowLimit: none): the rows a LIMIT above needs; rounds stop once
  // they produced that many (the optimizer's CapRecursions).
  uint32_t work_table_id = 0;

  // kTableFunction: the function's name; `expressions` are its arguments;
  // `columns` its value column, then `ordinality` when WITH ORDINALITY.
  std::string function_name;

  // kWindow: output = children[0]'s columns, then one column per
  // window_functions entry (fresh ids). Rows are grouped by partition_keys
  // (NULLs equal) and ordered within a partition by sort_keys; the
  // functions' args are column ids of the child (olap/execution/sort/window_function.h).
  std::vector<uint32_t> partition_keys;
  std::vector<WindowFunction> window_functions;

  // Position of the first output column with this id; -1 if absent.
  int FindColumn(uint32_t id) const;
};

// Whether a join key pair can be hashed as one key: the same TypeId (and the
// same scale for DECIMAL; any lengths for strings of the same kind).
bool KeyCompatible(const Type& a, const Type& b);

// A deep copy of a plan, annotations too (expressions: CloneExpr,
// expression.h).
LogicalOpPtr ClonePlan(const LogicalOp& op);

// Whether a keyed semi, anti or left join builds its hash table on its
// preserved (left) side, the other side being estimated much bigger (the
// planner's right semi / anti / outer joins); the optimizer then places its
// runtime filter on the other side's scan.
bool BuildsOnPreservedSide(const LogicalOp& join);

// Debug / EXPLAIN printing. Column refs print as name#id when the id is found
// among `op`'s input columns, else as #id. Example plan:
//   Project [n_name#12, revenue#30]  (rows=5)
//     Aggregate keys=[n_name#12] aggs=[sum(#29)]  (rows=25)
//       Join inner [c_nationkey#3 = n_nationkey#11] build_unique  (rows=150000)
//         Get customer [c_custkey#1, c_nationkey#3] filter=[...]  (rows=150000)
//         Get nation [n_nationkey#11, n_name#12]  (rows=25)
// Printing is deterministic (tests compare it).
std::string ExprToString(const Expression& e, const std::vector<const LogicalColumn*>& inputs);
std::string ExprToString(const Expression& e);
// One line for the operator itself (no children, no newline).
std::string DescribeOp(const LogicalOp& op);
// The whole tree, indented by two spaces per level, one line per operator.
std::string PlanToString(const LogicalOp& op, bool with_estimates = true);

const char* LogicalOpKindName(LogicalOpKind k);
const char* LogicalJoinKindName(LogicalJoinKind k);

}  // namespace forktail
