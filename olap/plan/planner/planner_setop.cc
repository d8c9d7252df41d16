// UNION [ALL], INTERSECT, EXCEPT, VALUES and WITH RECURSIVE.
#include <fmt/format.h>

#include <memory>

#include "olap/expression/expression_executor.h"
#include "olap/plan/planner/apply_runner.h"
#include "olap/plan/planner/planner_internal.h"
#include "storage/error.h"

namespace forktail {
namespace planner {
namespace {

std::vector<Type> Types(const std::vector<LogicalColumn>& columns) {
  std::vector<Type> types;
  for (const LogicalColumn& c : columns) types.push_back(c.type);
  return types;
}

// The value of a constant expression (folded by the optimizer, but VALUES
// rows may still hold e.g. a cast the folder left): evaluated on one row of
// no columns.
Value EvaluateConstant(const Expression& e) {
  if (e.kind == ExprKind::kConstant) return e.constant;
  ExpressionExecutor executor(e);
  DataChunk one;
  one.set_size(1);
  return VectorValue(executor.Execute(one), 0);
}

}  // namespace

Planned Planner::PlanUnion(const LogicalOp& op) {
  std::vector<Type> types = Types(op.columns);
  std::vector<OperatorId> inputs;
  for (const LogicalOpPtr& child : op.children) {
    if (child->columns.size() != op.columns.size()) {
      throw DbError(sqlstate::kInternalError, "planner: union inputs differ in arity");
    }
    Planned in = PlanOp(*child);
    inputs.push_back(ProjectTo(in, ColumnIds(child->columns), &types, child->estimated_rows).id);
  }
  Planned out{b_.UnionAll(inputs), ColumnIds(op.columns)};
  Note(out.id, "UnionAll", "", op.set_distinct ? -1 : op.estimated_rows, inputs);
  if (!op.set_distinct) return out;
  std::vector<uint32_t> keys;
  for (uint32_t i = 0; i < op.columns.size(); ++i) keys.push_back(i);
  OperatorId agg = 0;
  Planned distinct{b_.Distinct(out.id, std::move(keys), &agg), out.layout};
  Note(agg, "Aggregate (distinct)", "UNION", op.estimated_rows, {out.id});
  Note(distinct.id, "Select", "keys", op.estimated_rows, {agg});
  AddMemory(op.estimated_rows, 32.0 + 16.0 * static_cast<double>(op.columns.size()));
  return distinct;
}

// INTERSECT / EXCEPT (distinct): each input row tagged (1, 0) or (0, 1),
// grouped on all columns (NULLs group together, as set operations compare),
// then the groups present on the left and (INTERSECT) also / (EXCEPT) not on
// the right.
Planned Planner::PlanSetOp(const LogicalOp& op) {
  const bool intersect = op.kind == LogicalOpKind::kIntersect;
  if (!op.set_distinct) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  std::string(intersect ? "INTERSECT" : "EXCEPT") + " ALL is not supported");
  }
  if (op.children.size() != 2) {
    throw DbError(sqlstate::kInternalError, "planner: set operation needs two inputs");
  }
  std::vector<Type> types = Types(op.columns);
  const uint32_t n = static_cast<uint32_t>(op.columns.size());
  std::vector<OperatorId> inputs;
  for (int side = 0; side < 2; ++side) {
    const LogicalOp& child = *op.children[side];
    Planned in = PlanOp(child);
    std::vector<ExprPtr> proj;
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t pos = Position(in.layout, child.columns.at(i).id);
      ExprPtr e = ColumnRef(pos, b_.types(in.id)[pos]);
      if (!(e->type == types[i])) e = Cast(std::move(e), types[i]);
      proj.push_back(std::move(e));
    }
    proj.push_back(Constant(Value::BigInt(side == 0 ? 1 : 0)));
    proj.push_back(Constant(Value::BigInt(side == 0 ? 0 : 1)));
    OperatorId tagged = b_.Select(in.id, nullptr, std::move(proj));
    Note(tagged, "Select", side == 0 ? "tag left" : "tag right", child.estimated_rows, {in.id});
    inputs.push_back(tagged);
  }
  OperatorId all = b_.UnionAll(inputs);
  Note(all, "UnionAll", "", -1, inputs);
  std::vector<uint32_t> keys;
  for (uint32_t i = 0; i < n; ++i) keys.push_back(i);
  OperatorId groups = b_.Aggregate(all, keys, {{AggKind::kSum, n, {}}, {AggKind::kSum, n + 1, {}}});
  Note(groups, "Aggregate", "count per side", -1, {all});
  AddMemory(op.estimated_rows, 48.0 + 16.0 * static_cast<double>(n));
  ExprPtr in_left =
      Compare(CompareOp::kGt, ColumnRef(n, Type::BigInt()), Constant(Value::BigInt(0)));
  ExprPtr right = Compare(intersect ? CompareOp::kGt : CompareOp::kEq,
                          ColumnRef(n + 1, Type::BigInt()), Constant(Value::BigInt(0)));
  std::vector<ExprPtr> proj;
  for (uint32_t i = 0; i < n; ++i) proj.push_back(ColumnRef(i, types[i]));
  Planned out{b_.Select(groups, And(std::move(in_left), std::move(right)), std::move(proj)),
              ColumnIds(op.columns)};
  Note(out.id, "Select", intersect ? "INTERSECT" : "EXCEPT", op.estimated_rows, {groups});
  return out;
}

Planned Planner::PlanValues(const LogicalOp& op) {
  std::vector<Type> types = Types(op.columns);
  std::vector<Row> rows;
  for (const std::vector<ExprPtr>& exprs : op.rows) {
    if (exprs.size() != types.size()) {
      throw DbError(sqlstate::kInternalError, "planner: VALUES row arity differs");
    }
    Row row;
    for (const ExprPtr& e : exprs) row.push_back(EvaluateConstant(*e));
    rows.push_back(std::move(row));
  }
  size_t count = rows.size();
  Planned out{b_.Values(types, std::move(rows)), ColumnIds(op.columns)};
  Note(out.id, "Values", std::to_string(count) + (count == 1 ? " row" : " rows"),
       static_cast<double>(count), {});
  return out;
}

Planned Planner::PlanSeries(const LogicalOp& op) {
  const LogicalOp::Series& s = op.series;
  Planned out{b_.Series(op.columns[0].type, s.from, s.step, s.count, op.columns.size() == 2),
              ColumnIds(op.columns)};
  Note(out.id, "Series",
       fmt::format("generate_series from {} step {}: {} rows", s.from, s.step, s.count),
       static_cast<double>(s.count), {});
  return out;
}

Planned Planner::PlanRecursiveUnion(const LogicalOp& op) {
  // Rounds without a bound on their number or their rows: never on the
  // transaction thread.
  if (options_.index_only_row_limit > 0) throw ReadNeedsSnapshot();
  std::shared_ptr<const LogicalOp> recursion = ClonePlan(op);
  const Catalog* catalog = &catalog_;
  Planned out{b_.ComputedValues(Types(op.columns),
                                [recursion, catalog](WorkOrderContext& context) {
                                  return RunRecursiveUnion(*recursion, *catalog, context);
                                }),
              ColumnIds(op.columns)};
  std::string detail = op.set_distinct ? "UNION" : "UNION ALL";
  if (op.limit != kNoRowLimit) detail += fmt::format(", first {} rows", op.limit);
  Note(out.id, "RecursiveUnion", std::move(detail), op.estimated_rows, {});
  // The terms are optimized and planned when they run: their logical plans.
  std::vector<std::string>& nested = nodes_[out.id].nested;
  const char* titles[] = {"non-recursive term:", "recursive term (per round):"};
  for (size_t side = 0; side < 2; side++) {
    nested.push_back(titles[side]);
    std::string text = PlanToString(*op.subplan->children[side], false);
    for (size_t at = 0; at < text.size();) {
      size_t end = text.find('\n', at);
      if (end == std::string::npos) end = text.size();
      nested.push_back("  " + text.substr(at, end - at));
      at = end + 1;
    }
  }
  return out;
}

}  // namespace planner
}  // namespace forktail
