// Window -> WindowOperator (olap/execution/sort/physical_window.h): positions for the
// partition keys, order keys and function arguments; output layout = the
// input's, then the functions' result ids.
#include "olap/plan/planner/planner_internal.h"

namespace forktail {
namespace planner {

Planned Planner::PlanWindow(const LogicalOp& op) {
  const LogicalOp& child = *op.children.at(0);
  Planned in = PlanOp(child);
  PhysicalWindowSpec spec;
  std::string detail = "partition=[" + ShowIds(op.partition_keys, {&child}) + "] order=[";
  for (uint32_t id : op.partition_keys) spec.partition.push_back(Position(in.layout, id));
  for (size_t i = 0; i < op.sort_keys.size(); ++i) {
    const SortKeyRef& s = op.sort_keys[i];
    spec.order.push_back({Position(in.layout, s.column), s.descending, s.nulls_first ? 1 : 0});
    detail += (i ? ", " : "") + ShowIds({s.column}, {&child}) + (s.descending ? " DESC" : "") +
              (s.nulls_first ? " NULLS FIRST" : " NULLS LAST");
  }
  detail += "] funcs=[";
  Planned out;
  out.layout = in.layout;
  const size_t first = op.columns.size() - op.window_functions.size();
  for (size_t i = 0; i < op.window_functions.size(); ++i) {
    WindowFunction f = op.window_functions[i];
    std::string args = ShowIds(f.args, {&child});
    for (uint32_t& a : f.args) a = Position(in.layout, a);
    if (f.kind == WindowFuncKind::kAggregate && f.agg == AggKind::kCountStar) args = "*";
    std::string frame = FrameToString(f.frame);
    detail += (i ? ", " : "") + std::string(WindowFuncName(f)) + "(" + args + ")" +
              (frame.empty() ? "" : " " + frame);
    spec.functions.push_back(std::move(f));
    out.layout.push_back(op.columns[first + i].id);
  }
  detail += "]";
  const double width = 16.0 * static_cast<double>(out.layout.size()) + 32.0;
  out.id = b_.Window(in.id, std::move(spec));
  Note(out.id, "Window", std::move(detail), op.estimated_rows, {in.id});
  AddMemory(std::max(child.estimated_rows, 1.0), width);
  return out;
}

}  // namespace planner
}  // namespace forktail
