#include "olap/plan/planner/planner.h"

#include <algorithm>
#include <cmath>

#include "olap/execution/operator/physical_table.h"
#include "olap/plan/binder/table_function.h"
#include "olap/plan/planner/index_selection.h"
#include "olap/plan/planner/planner_internal.h"
#include "storage/error.h"
#include "storage/table/table.h"

namespace forktail {
namespace planner {
namespace {

void RewriteRefs(Expression* e, const std::vector<uint32_t>& layout) {
  if (e->kind == ExprKind::kColumnRef) e->column = Planner::Position(layout, e->column);
  for (ExprPtr& c : e->children) RewriteRefs(c.get(), layout);
}

// A rough per-row cost of evaluating e, to run a scan's cheap conjuncts
// first: each narrows the rows the next one sees (PostgreSQL orders quals
// by cost too). Fixed-width compares are cheap; string compares, IN lists
// over strings, LIKE and function calls are not (TPC-H Q12: the date ranges
// before `l_shipmode IN ('MAIL', 'SHIP')`).
constexpr int kCostlyConjunct = 4;  // a string compare
int EvalCost(const Expression& e) {
  int cost = 0;
  for (const ExprPtr& c : e.children) cost += EvalCost(*c);
  const bool strings = !e.children.empty() && e.children[0]->type.StoredAsString();
  switch (e.kind) {
    case ExprKind::kColumnRef:
    case ExprKind::kConstant:
      return cost;
    case ExprKind::kCompare:
      return cost + (strings ? 4 : 1);
    case ExprKind::kIn:
      return cost + (strings ? 4 : 1) * static_cast<int>(std::max<size_t>(e.in_list.size(), 1));
    case ExprKind::kLike:
    case ExprKind::kFunction:
    case ExprKind::kSubstring:
      return cost + 16;
    default:
      return cost + 1;
  }
}

}  // namespace

Planner::Planner(const Catalog& catalog, const PlanOptions& options)
    : catalog_(catalog), options_(options), b_(options.parallelism) {}

uint32_t Planner::Position(const std::vector<uint32_t>& layout, uint32_t id) {
  auto it = std::find(layout.begin(), layout.end(), id);
  if (it == layout.end()) {
    throw DbError(sqlstate::kInternalError,
                  "planner: column #" + std::to_string(id) + " is not produced by the input");
  }
  return static_cast<uint32_t>(it - layout.begin());
}

ExprPtr Planner::Positional(const Expression& e, const std::vector<uint32_t>& layout) {
  ExprPtr out = CloneExpr(e);
  RewriteRefs(out.get(), layout);
  return out;
}

ExprPtr Planner::Conjunction(const std::vector<const Expression*>& conds,
                             const std::vector<uint32_t>& layout) {
  ExprPtr all;
  for (const Expression* c : conds) {
    ExprPtr p = Positional(*c, layout);
    all = all == nullptr ? std::move(p) : And(std::move(all), std::move(p));
  }
  return all;
}

std::string Planner::Show(const Expression& e, const std::vector<const LogicalOp*>& inputs) {
  std::vector<const LogicalColumn*> cols;
  for (const LogicalOp* in : inputs) {
    for (const LogicalColumn& c : in->columns) cols.push_back(&c);
  }
  return ExprToString(e, cols);
}

std::string Planner::ShowIds(const std::vector<uint32_t>& ids,
                             const std::vector<const LogicalOp*>& inputs) {
  std::string s;
  for (uint32_t id : ids) {
    if (!s.empty()) s += ", ";
    Expression ref;
    ref.kind = ExprKind::kColumnRef;
    ref.column = id;
    s += Show(ref, inputs);
  }
  return s;
}

OperatorId Planner::Note(OperatorId id, std::string label, std::string detail,
                         double estimated_rows, std::vector<OperatorId> inputs) {
  if (nodes_.size() <= id) nodes_.resize(id + 1);
  PlanNode& n = nodes_[id];
  n.label = std::move(label);
  n.detail = std::move(detail);
  n.estimated_rows = estimated_rows;
  n.inputs = std::move(inputs);
  n.stats = b_.stats(id);
  return id;
}

void Planner::AddMemory(double rows, double bytes_per_row) {
  if (rows > 0) memory_ += rows * bytes_per_row;
}

Planned Planner::ProjectTo(const Planned& in, const std::vector<uint32_t>& ids,
                           const std::vector<Type>* types, double estimated_rows) {
  const std::vector<Type>& in_types = b_.types(in.id);
  bool identity = in.layout == ids;
  std::vector<ExprPtr> proj;
  for (size_t i = 0; i < ids.size(); ++i) {
    uint32_t pos = Position(in.layout, ids[i]);
    ExprPtr e = ColumnRef(pos, in_types[pos]);
    if (types != nullptr && !(in_types[pos] == (*types)[i])) {
      e = Cast(std::move(e), (*types)[i]);
      identity = false;
    }
    proj.push_back(std::move(e));
  }
  if (identity) return in;
  Planned out{b_.Select(in.id, nullptr, std::move(proj)), ids};
  Note(out.id, "Select", "project", estimated_rows, {in.id});
  return out;
}

Planned Planner::PlanOp(const LogicalOp& op) {
  if (std::optional<Planned> shared = FindShared(op)) return *shared;
  Planned planned = PlanNew(op);
  RecordShared(op, planned);
  return planned;
}

Planned Planner::PlanNew(const LogicalOp& op) {
  switch (op.kind) {
    case LogicalOpKind::kGet:
      return PlanGet(op, {}, nullptr, op.estimated_rows);
    case LogicalOpKind::kFilter:
      return PlanFilter(op);
    case LogicalOpKind::kProject:
      return PlanProject(op);
    case LogicalOpKind::kJoin:
      return PlanJoin(op);
    case LogicalOpKind::kAggregate:
      return PlanAggregate(op);
    case LogicalOpKind::kDistinct:
      return PlanDistinct(op);
    case LogicalOpKind::kSort:
      return PlanSort(op, kNoLimit);
    case LogicalOpKind::kLimit:
      return PlanLimit(op);
    case LogicalOpKind::kUnion:
      return PlanUnion(op);
    case LogicalOpKind::kIntersect:
    case LogicalOpKind::kExcept:
      return PlanSetOp(op);
    case LogicalOpKind::kValues:
      return PlanValues(op);
    case LogicalOpKind::kApply:
      return PlanApply(op);
    case LogicalOpKind::kWindow:
      return PlanWindow(op);
    case LogicalOpKind::kTableFunction:
      return PlanNew(*ExpandTableFunction(op));  // table_function.h
    case LogicalOpKind::kSeries:
      return PlanSeries(op);
    case LogicalOpKind::kRecursiveUnion:
      return PlanRecursiveUnion(op);
    case LogicalOpKind::kWorkTable:  // replaced by rows before its term is planned
      break;
  }
  throw DbError(sqlstate::kInternalError, "planner: unknown logical operator");
}

Planned Planner::PlanGet(const LogicalOp& get, const std::vector<const Expression*>& extra,
                         const LogicalOp* project, double estimated_rows) {
  const Table& table = catalog_.GetTable(get.table_id);
  ScanSpec spec;
  std::vector<uint32_t> layout = ColumnIds(get.columns);
  for (uint32_t c : get.table_columns) spec.columns.push_back(c);
  if (spec.columns.empty()) {  // nothing read (COUNT(*)): one column as a row carrier
    spec.columns.push_back(0);
    layout = {kNoId};
  }
  std::vector<const Expression*> conds;
  for (const ExprPtr& c : get.conditions) conds.push_back(c.get());
  conds.insert(conds.end(), extra.begin(), extra.end());
  std::stable_sort(conds.begin(), conds.end(), [](const Expression* a, const Expression* b) {
    return EvalCost(*a) < EvalCost(*b);
  });
  spec.filter = Conjunction(conds, layout);
  // A filter with string compares, LIKE or calls runs on the rows the
  // runtime filters keep (TPC-H Q19: 0.2% of lineitem may join the parts).
  spec.runtime_filters_first = !conds.empty() && EvalCost(*conds.back()) >= kCostlyConjunct;
  const std::vector<uint32_t> read_ids = layout;
  std::string detail;
  for (const Expression* c : conds) {
    detail += (detail.empty() ? "filter=[" : " AND ") + Show(*c, {&get});
  }
  if (!detail.empty()) detail += "]";
  if (project != nullptr) {
    for (const ExprPtr& e : project->expressions)
      spec.projections.push_back(Positional(*e, layout));
    layout = ColumnIds(project->columns);
  } else if (!get.condition_only.empty()) {
    // Columns only the filter reads are not output: a frozen block's scan
    // then need not decode them (physical_scan.h).
    std::vector<uint32_t> output;
    for (size_t i = 0; i < layout.size(); i++) {
      const auto& only = get.condition_only;
      if (std::find(only.begin(), only.end(), layout[i]) != only.end()) continue;
      spec.projections.push_back(ColumnRef(static_cast<uint32_t>(i), get.columns[i].type));
      output.push_back(layout[i]);
    }
    layout = std::move(output);
  }
  // Runtime filters from hash builds planned before this scan (the build
  // side of a join is planned before its probe side).
  std::vector<OperatorId> after;
  for (const RuntimeFilterRef& f : get.runtime_filters) {
    auto source = filter_sources_.find(f.join_id);
    auto read = std::find(read_ids.begin(), read_ids.end(), f.probe_column);
    bool wired = false;
    if (source != filter_sources_.end() && read != read_ids.end()) {
      const std::vector<uint32_t>& keys = source->second.right_keys;
      auto key = std::find(keys.begin(), keys.end(), f.build_column);
      if (key != keys.end()) {
        spec.runtime_filters.push_back(
            b_.JoinFilter(source->second.build, static_cast<size_t>(key - keys.begin()),
                          static_cast<uint32_t>(read - read_ids.begin())));
        after.push_back(source->second.build);
        wired = true;
      }
    }
    detail += std::string(detail.empty() ? "" : " ") + "runtime_filter(join " +
              std::to_string(f.join_id) + " on " + ShowIds({f.probe_column}, {&get}) +
              (wired ? ")" : ", not wired)");
  }
  // An index that narrows the read (index_selection.h); the filter stays whole.
  std::string label = "TableScan " + get.table_name;
  auto column_of = [&](const Expression& ref) -> std::optional<ColumnId> {
    for (size_t i = 0; i < get.columns.size() && i < get.table_columns.size(); i++) {
      if (get.columns[i].id == ref.column)
        return ColumnId(static_cast<uint16_t>(get.table_columns[i]));
    }
    return std::nullopt;
  };
  std::optional<IndexChoice> index;
  if (order_hint_ && order_hint_->get == &get) {
    index = ChooseIndexForOrder(conds, table.schema(), column_of, order_hint_->keys,
                                order_hint_->first);
  }
  if (!index) index = ChooseIndex(conds, table.schema(), column_of);
  if (options_.index_only_row_limit > 0) {  // on the transaction thread
    if (!index) throw ReadNeedsSnapshot();
    auto rows = physical::ProbeIndexByBlock(table, index->range, options_.index_only_row_limit);
    if (!rows) throw ReadNeedsSnapshot();
    spec.probed_rows = std::make_shared<const RowsByBlock::element_type>(std::move(*rows));
  }
  if (index) {
    spec.index_range = std::make_shared<IndexRange>(std::move(index->range));
    label = "IndexScan " + get.table_name;
    detail = "index=" + index->name + "[" + index->condition + "]" +
             (detail.empty() ? "" : " " + detail);
  }
  // The probe side of a hash join: an index per build key (physical_scan.h).
  if (index_join_hint_ && index_join_hint_->get == &get && options_.index_only_row_limit == 0) {
    const IndexJoinHint hint = *index_join_hint_;
    index_join_hint_.reset();
    std::vector<std::optional<ColumnId>> join_columns;
    for (uint32_t id : hint.key_ids) {
      const Expression* ref = nullptr;
      ExprPtr plain;
      if (project != nullptr) {
        for (size_t j = 0; j < project->columns.size() && j < project->expressions.size(); j++) {
          if (project->columns[j].id == id) ref = IndexedColumnSide(*project->expressions[j]);
        }
      } else {
        plain = ColumnRef(id, Type::Integer());  // column_of reads the id only
        ref = plain.get();
      }
      join_columns.push_back(ref ? column_of(*ref) : std::nullopt);
    }
    if (auto choice = ChooseIndexForJoin(conds, table.schema(), column_of, join_columns)) {
      auto join = std::make_shared<IndexJoinSpec>();
      const size_t max_keys = TableScanOperator::MaxIndexJoinKeys(table);
      join->slot = b_.JoinKeys(hint.build, max_keys);
      join->pattern = std::move(choice->pattern);
      join->fill = std::move(choice->fill);
      join->types = std::move(choice->types);
      spec.index_join = std::move(join);
      if (std::find(after.begin(), after.end(), hint.build) == after.end()) {
        after.push_back(hint.build);
      }
      label = "IndexScan " + get.table_name;
      detail = "index_join=" + choice->name + "[" + choice->condition + "] (at most " +
               std::to_string(max_keys) + " build keys)" + (detail.empty() ? "" : " " + detail);
    }
  }
  if (!get.alias.empty() && get.alias != get.table_name) label += " " + get.alias;
  Planned out{b_.Scan(table, std::move(spec)), std::move(layout)};
  for (OperatorId build : after) b_.Precede(build, out.id);
  Note(out.id, std::move(label), std::move(detail), estimated_rows, {});
  return out;
}

Planned Planner::PlanFilter(const LogicalOp& op) {
  const LogicalOp& child = *op.children.at(0);
  std::vector<const Expression*> conds;
  for (const ExprPtr& c : op.conditions) conds.push_back(c.get());
  if (child.kind == LogicalOpKind::kGet) return PlanGet(child, conds, nullptr, op.estimated_rows);
  Planned in = PlanOp(child);
  if (conds.empty()) return in;
  std::string detail;
  for (const Expression* c : conds) detail += (detail.empty() ? "" : " AND ") + Show(*c, {&child});
  Planned out{b_.Select(in.id, Conjunction(conds, in.layout)), in.layout};
  Note(out.id, "Select", "filter=[" + detail + "]", op.estimated_rows, {in.id});
  return out;
}

Planned Planner::PlanProject(const LogicalOp& op) {
  const LogicalOp& child = *op.children.at(0);
  if (child.kind == LogicalOpKind::kGet) return PlanGet(child, {}, &op, op.estimated_rows);
  std::vector<const Expression*> conds;
  const LogicalOp* source = &child;
  if (child.kind == LogicalOpKind::kFilter) {
    for (const ExprPtr& c : child.conditions) conds.push_back(c.get());
    source = child.children.at(0).get();
    if (source->kind == LogicalOpKind::kGet) return PlanGet(*source, conds, &op, op.estimated_rows);
  }
  Planned in = PlanOp(*source);
  std::vector<ExprPtr> proj;
  std::string detail;
  for (const ExprPtr& e : op.expressions) {
    proj.push_back(Positional(*e, in.layout));
    detail += (detail.empty() ? "" : ", ") + Show(*e, {source});
  }
  std::string filter;
  for (const Expression* c : conds) filter += (filter.empty() ? "" : " AND ") + Show(*c, {source});
  Planned out{b_.Select(in.id, Conjunction(conds, in.layout), std::move(proj)),
              ColumnIds(op.columns)};
  Note(out.id, "Select", (filter.empty() ? "" : "filter=[" + filter + "] ") + "[" + detail + "]",
       op.estimated_rows, {in.id});
  return out;
}

Planned Planner::PlanAggregate(const LogicalOp& op) {
  const LogicalOp& child = *op.children.at(0);
  Planned in = PlanOp(child);
  std::vector<uint32_t> keys;
  for (uint32_t id : op.group_keys) keys.push_back(Position(in.layout, id));
  std::vector<AggregateSpec> specs;
  std::string detail = "keys=[" + ShowIds(op.group_keys, {&child}) + "] aggs=[";
  for (size_t i = 0; i < op.aggregates.size(); ++i) {
    const LogicalAggregate& a = op.aggregates[i];
    AggregateSpec s;
    s.kind = a.kind;
    if (a.kind != AggKind::kCountStar) s.input = Position(in.layout, a.input);
    s.order = a.order;  // string_agg / array_agg
    s.separator = a.separator;
    specs.push_back(s);
    detail += std::string(i ? ", " : "") + AggKindName(a.kind) + "(" +
              (a.kind == AggKind::kCountStar ? "*" : ShowIds({a.input}, {&child})) + ")";
  }
  detail += "]";
  Planned out{b_.Aggregate(in.id, std::move(keys), std::move(specs)), ColumnIds(op.columns)};
  if (out.layout.size() != b_.types(out.id).size()) {
    throw DbError(sqlstate::kInternalError, "planner: aggregate output columns do not match");
  }
  Note(out.id, op.group_keys.empty() ? "Aggregate (global)" : "Aggregate", std::move(detail),
       op.estimated_rows, {in.id});
  // Groups, and (partitioning methods) buffered input rows.
  AddMemory(std::max(op.estimated_rows, child.estimated_rows),
            32.0 + 16.0 * static_cast<double>(op.columns.size()));
  // Result types the binder expects (AggregateResultType normally agrees).
  std::vector<Type> want;
  for (const LogicalColumn& c : op.columns) want.push_back(c.type);
  return ProjectTo(out, out.layout, &want, op.estimated_rows);
}

Planned Planner::PlanDistinct(const LogicalOp& op) {
  const LogicalOp& child = *op.children.at(0);
  Planned in = PlanOp(child);
  std::vector<uint32_t> keys;
  for (const LogicalColumn& c : op.columns) keys.push_back(Position(in.layout, c.id));
  OperatorId agg = 0;
  Planned out{b_.Distinct(in.id, std::move(keys), &agg), ColumnIds(op.columns)};
  Note(agg, "Aggregate (distinct)", "keys=[" + ShowIds(ColumnIds(op.columns), {&child}) + "]",
       op.estimated_rows, {in.id});
  Note(out.id, "Select", "keys", op.estimated_rows, {agg});
  AddMemory(op.estimated_rows, 32.0 + 16.0 * static_cast<double>(op.columns.size()));
  return out;
}

Planned Planner::PlanSort(const LogicalOp& op, uint64_t k) {
  const LogicalOp& child = *op.children.at(0);
  Planned in = PlanOp(child);
  std::vector<PhysicalSortKey> keys;
  std::string detail;
  for (const SortKeyRef& s : op.sort_keys) {
    keys.push_back({Position(in.layout, s.column), s.descending, s.nulls_first ? 1 : 0});
    detail += (detail.empty() ? "" : ", ") + ShowIds({s.column}, {&child}) +
              (s.descending ? " DESC" : "") + (s.nulls_first ? " NULLS FIRST" : " NULLS LAST");
  }
  Planned out{b_.Sort(in.id, std::move(keys), k), in.layout};
  double rows = child.estimated_rows;
  if (k != kNoLimit && rows > static_cast<double>(k)) rows = static_cast<double>(k);
  Note(out.id, k == kNoLimit ? "Sort" : "Sort (top-" + std::to_string(k) + ")",
       "keys=[" + detail + "]", rows, {in.id});
  AddMemory(rows, 16.0 * static_cast<double>(in.layout.size()) + 16.0);
  return out;
}

Planned Planner::PlanLimit(const LogicalOp& op) {
  const LogicalOp& child = *op.children.at(0);
  const uint64_t limit = op.limit < 0 ? kNoLimit : static_cast<uint64_t>(op.limit);
  const uint64_t offset = op.offset < 0 ? 0 : static_cast<uint64_t>(op.offset);
  Planned in;
  if (child.kind == LogicalOpKind::kSort) {
    const uint64_t k = limit == kNoLimit ? kNoLimit : limit + offset;
    std::optional<TableOrder> saved = std::move(order_hint_);
    order_hint_.reset();
    if (k != kNoLimit) order_hint_ = TableOrderBelow(child, k);
    in = PlanSort(child, k);
    order_hint_ = std::move(saved);
    if (offset == 0) return in;  // the top-k sort already stops at `limit`
  } else {
    in = PlanOp(child);
  }
  Planned out{b_.Limit(in.id, limit, offset), in.layout};
  std::string detail = limit == kNoLimit ? "" : "limit=" + std::to_string(limit);
  if (offset > 0) detail += (detail.empty() ? "" : " ") + ("offset=" + std::to_string(offset));
  Note(out.id, "Limit", std::move(detail), op.estimated_rows, {in.id});
  return out;
}

PhysicalPlan Planner::Run(const LogicalOp& root) {
  Planned top = PlanOp(root);
  std::vector<uint32_t> ids = ColumnIds(root.columns);
  std::vector<Type> types;
  for (const LogicalColumn& c : root.columns) types.push_back(c.type);
  top = ProjectTo(top, ids, &types, root.estimated_rows);
  PhysicalPlan out;
  out.result = b_.Sink(top.id);
  out.root = static_cast<OperatorId>(b_.size() - 1);
  Note(out.root, "ResultSink", "", root.estimated_rows, {top.id});
  for (const LogicalColumn& c : root.columns) {
    out.column_names.push_back(c.name);
    out.column_types.push_back(c.type);
  }
  // Kernel structures charge the query's memory (53200 beyond the
  // estimate), and estimates can be far off: four times the estimate.
  double bytes = std::ceil(memory_ * 4);
  out.memory_estimate = static_cast<size_t>(std::clamp(
      bytes + static_cast<double>(options_.min_memory), static_cast<double>(options_.min_memory),
      static_cast<double>(options_.max_memory)));
  out.nodes = std::move(nodes_);
  out.plan = b_.Build();
  return out;
}

}  // namespace planner

PhysicalPlan Plan(const LogicalOp& root, const Catalog& catalog, const PlanOptions& options) {
  planner::Planner p(catalog, options);
  return p.Run(root);
}

}  // namespace forktail
