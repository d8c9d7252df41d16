// Group keys functionally dependent on grouped primary keys become
// ANY_VALUE aggregates (optimizer_internal.h).
//
// GROUP BY c_custkey, c_name, c_address, c_comment, ... (TPC-H Q10, Q18, and
// every query written for PostgreSQL's rule that a grouped primary key
// allows the other columns of its table) hashes and compares every one of
// those strings per row, though c_custkey alone decides the group: the rows
// of a group share one customer row, so its other columns have one value
// per group. Those keys are carried as AggKind::kAnyValue instead.
#include <set>

#include "olap/plan/optimizer/optimizer_internal.h"
#include "storage/table/catalog.h"

namespace forktail {
namespace {

void CollectGets(const LogicalOp& op, std::vector<const LogicalOp*>* gets) {
  if (op.kind == LogicalOpKind::kGet) {
    gets->push_back(&op);
    return;
  }
  for (const LogicalOpPtr& c : op.children) CollectGets(*c, gets);
}

// The ids among `keys` that come from a Get of the input whose whole
// primary key is among `keys` too (the key columns themselves excluded). A
// column id names one Get's column wherever it appears, and every output
// row of the input carries the columns of one row of that Get (or NULLs in
// all of them, from an outer join), so the primary key decides the rest.
std::set<uint32_t> DependentKeys(const LogicalOp& agg, const Catalog& catalog) {
  std::set<uint32_t> keys(agg.group_keys.begin(), agg.group_keys.end());
  std::vector<const LogicalOp*> gets;
  CollectGets(*agg.children[0], &gets);
  std::set<uint32_t> dependent;
  for (const LogicalOp* get : gets) {
    const TableSchema& schema = catalog.GetTable(get->table_id).schema();
    if (schema.primary_key.empty()) continue;
    std::set<uint32_t> pk_ids;
    for (ColumnId pk : schema.primary_key) {
      for (size_t i = 0; i < get->columns.size() && i < get->table_columns.size(); i++) {
        if (get->table_columns[i] == pk.value() && keys.count(get->columns[i].id) != 0) {
          pk_ids.insert(get->columns[i].id);
        }
      }
    }
    if (pk_ids.size() != schema.primary_key.size()) continue;
    for (const LogicalColumn& c : get->columns) {
      if (keys.count(c.id) != 0 && pk_ids.count(c.id) == 0) dependent.insert(c.id);
    }
  }
  return dependent;
}

void Reduce(LogicalOp* agg, const Catalog& catalog) {
  const std::set<uint32_t> dependent = DependentKeys(*agg, catalog);
  if (dependent.empty()) return;
  // Output: the remaining keys, the aggregates, then the moved keys (same
  // ids: the operators above read columns by id).
  const size_t n_keys = agg->group_keys.size();
  std::vector<uint32_t> keys;
  std::vector<LogicalColumn> columns, moved;
  for (size_t i = 0; i < n_keys; i++) {
    const uint32_t id = agg->group_keys[i];
    if (dependent.count(id) == 0) {
      keys.push_back(id);
      columns.push_back(agg->columns[i]);
      continue;
    }
    LogicalAggregate a;
    a.kind = AggKind::kAnyValue;
    a.input = id;
    agg->aggregates.push_back(a);
    moved.push_back(agg->columns[i]);
  }
  columns.insert(columns.end(), agg->columns.begin() + static_cast<std::ptrdiff_t>(n_keys),
                 agg->columns.end());
  columns.insert(columns.end(), moved.begin(), moved.end());
  agg->group_keys = std::move(keys);
  agg->columns = std::move(columns);
}

// Set operations match their inputs' columns by position: an aggregate
// right below one keeps its column order.
bool Positional(const LogicalOp& op) {
  return op.kind == LogicalOpKind::kUnion || op.kind == LogicalOpKind::kIntersect ||
         op.kind == LogicalOpKind::kExcept;
}

void Visit(LogicalOp* op, bool positional_parent, const Catalog& catalog) {
  for (LogicalOpPtr& c : op->children) Visit(c.get(), Positional(*op), catalog);
  if (op->kind == LogicalOpKind::kAggregate && op->group_keys.size() > 1 && !positional_parent) {
    Reduce(op, catalog);
  }
}

}  // namespace

void ReduceDependentGroupKeys(LogicalOp* root, const Catalog& catalog) {
  // The root's column order is restored by Optimize (KeepResultColumns).
  Visit(root, false, catalog);
}

}  // namespace forktail
