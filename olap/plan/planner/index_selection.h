// Index selection: which index, if any, narrows a table read to the rows a
// conjunction can accept.
//
// Used wherever a table is read under a WHERE: the planner's table scans (on
// the transaction thread and in snapshots) and UPDATE/DELETE's row search.
// The index only narrows: the caller still evaluates every conjunct on each
// row it reads, so a choice must find a superset of the accepted rows, and
// that is all it must do. What qualifies a conjunct:
//
//   column = c, column < c, <=, >, >=   (either side; BETWEEN arrives as two)
//
// where `column` is a table column (an integer column widened by a cast
// counts) and c a constant that converts to the column's type without loss
// (so the comparison in the column's type is the comparison the WHERE makes).
// CHAR columns qualify only for `=` (their comparisons ignore trailing
// blanks, which byte order does not); DOUBLE columns never.
//
// Choice: the primary key's hash index when every key column has an `=`;
// otherwise the ordered index (each secondary one, then the primary key's)
// with the longest `=` prefix, a range on the next column breaking ties (one
// bounded on both sides over one bounded on one side), the first of equals
// winning; none when no index has a first column constrained. A conjunct
// that is a disjunction -- an OR of such conjunctions, a row value's IN list
// ((a, b) IN ((1, 2), (3, 4)) binds as one), or column IN (constants) --
// becomes the union of one probe per branch (IndexRange::any_of, up to 1000
// branches) when every branch has an index, and wins when its weakest
// branch fixes more than the best single choice. The
// cost check (an index probe that finds too many rows falls back to a scan)
// is made at execution time, where the row count is known exactly.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "olap/expression/expression.h"
#include "storage/table/ordered_index.h"
#include "storage/table/schema.h"

namespace forktail {

struct LogicalOp;

struct IndexChoice {
  IndexRange range;
  std::string name;       // "t_pkey" or the index's name
  std::string condition;  // what the probe fixes, for EXPLAIN: "a = 5 AND b >= 3"
};

// `column_of` maps a column reference to the table column it reads (nullopt:
// not a column of this table).
using TableColumnOf = std::function<std::optional<ColumnId>(const Expression& column_ref)>;

// The column reference a comparison side is, for an index: itself, or an
// integer column widened to another integer type by a cast; else null.
const Expression* IndexedColumnSide(const Expression& e);

std::optional<IndexChoice> ChooseIndex(const std::vector<const Expression*>& conjuncts,
                                       const TableSchema& schema, const TableColumnOf& column_of);

// An index join (physical_scan.h "Index joins"): the probe side of a hash
// join reads, per distinct build key, the rows an index finds for the
// scan's `=` constants together with that key. `join_columns[k]` is the
// table column join key k compares to (nullopt: not a plain column of this
// table). The choice is the best by the rule above over the conjuncts plus
// `column = <key>` for each such column, taken only when it fixes more than
// the conjuncts alone do: `pattern` is its probe with the constants in
// pattern.equal, `fill` says which positions each key fills (position, join
// key index), `types` the index column type at each.
struct IndexJoinChoice {
  IndexRange pattern;
  std::vector<std::pair<size_t, size_t>> fill;
  std::vector<Type> types;
  std::string name;       // the index's
  std::string condition;  // for EXPLAIN: "s_w_id = 1 AND s_i_id = <join key>"
};
std::optional<IndexJoinChoice> ChooseIndexForJoin(
    const std::vector<const Expression*>& conjuncts, const TableSchema& schema,
    const TableColumnOf& column_of, const std::vector<std::optional<ColumnId>>& join_columns);

// One ORDER BY key over a table column.
struct IndexOrderKey {
  ColumnId column;
  bool descending = false;
  bool nulls_first = false;
};

// ORDER BY `order` LIMIT `first` through an ordered index: one whose probe
// fixes every conjunct exactly (so that its first `first` entries are the
// first accepted rows) and whose entries after the `=` prefix come in the
// order's order, read forward or backward; the best such by the rule above.
// The range has `first` and `descending` set. Nullopt: none qualifies.
std::optional<IndexChoice> ChooseIndexForOrder(const std::vector<const Expression*>& conjuncts,
                                               const TableSchema& schema,
                                               const TableColumnOf& column_of,
                                               const std::vector<IndexOrderKey>& order,
                                               size_t first);

// ORDER BY ... LIMIT `first` over one table: the shape Sort -> Projects of
// plain columns -> at most one Filter -> Get, whose conditions the planner
// evaluates with the Get's own (so an index choice sees every condition on
// the rows: a Filter higher up could drop rows after a probe stopped). The
// Get and the sort keys as its table's columns; nullopt for other shapes.
struct TableOrder {
  const LogicalOp* get = nullptr;
  std::vector<IndexOrderKey> keys;
  size_t first = 0;
};
std::optional<TableOrder> TableOrderBelow(const LogicalOp& sort, size_t first);

}  // namespace forktail
