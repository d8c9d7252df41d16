// DISTINCT aggregates over one column become plain aggregates over a
// distinct input (optimizer_internal.h).
//
//   Aggregate keys=[k] aggs=[count(DISTINCT x)]
//   ->  Aggregate keys=[k] aggs=[count(x)]
//         Aggregate keys=[k, x]                  (the distinct (k, x) pairs)
//
// Per-group hash sets (the executor's DISTINCT state) cost a set per group
// and a node per value; one hash table of (k, x) pairs, aggregated again,
// runs on the parallel aggregation's fast paths (TPC-H Q16's COUNT(DISTINCT
// ps_suppkey) per part brand, type and size). NULLs stay right: a (k, NULL)
// pair keeps group k, whose count(x) ignores the NULL as COUNT(DISTINCT x)
// does; with no group keys, an empty input still gives one row.
#include "olap/plan/logical_util.h"
#include "olap/plan/optimizer/optimizer_internal.h"

namespace forktail {
namespace {

AggKind PlainKind(AggKind kind) {
  switch (kind) {
    case AggKind::kCountDistinct:
      return AggKind::kCount;
    case AggKind::kSumDistinct:
      return AggKind::kSum;
    case AggKind::kAvgDistinct:
      return AggKind::kAvg;
    default:
      return kind;
  }
}

// Whether every aggregate of `agg` is a DISTINCT one over the same column.
bool AllDistinctOverOneColumn(const LogicalOp& agg) {
  if (agg.aggregates.empty()) return false;
  for (const LogicalAggregate& a : agg.aggregates) {
    if (PlainKind(a.kind) == a.kind || a.input != agg.aggregates[0].input) return false;
  }
  return true;
}

void Split(LogicalOp* agg) {
  const LogicalOp& child = *agg->children[0];
  const uint32_t x = agg->aggregates[0].input;
  auto distinct = std::make_unique<LogicalOp>();
  distinct->kind = LogicalOpKind::kAggregate;
  distinct->group_keys = agg->group_keys;
  bool x_grouped = false;
  for (uint32_t k : agg->group_keys) x_grouped |= k == x;
  if (!x_grouped) distinct->group_keys.push_back(x);
  for (uint32_t id : distinct->group_keys) {
    distinct->columns.push_back(child.columns.at(static_cast<size_t>(child.FindColumn(id))));
  }
  distinct->children.push_back(std::move(agg->children[0]));
  agg->children[0] = std::move(distinct);
  for (LogicalAggregate& a : agg->aggregates) a.kind = PlainKind(a.kind);
}

void Visit(LogicalOp* op) {
  for (LogicalOpPtr& c : op->children) Visit(c.get());
  if (op->kind == LogicalOpKind::kAggregate && AllDistinctOverOneColumn(*op)) Split(op);
}

}  // namespace

void SplitDistinctAggregates(LogicalOp* root) { Visit(root); }

}  // namespace forktail
