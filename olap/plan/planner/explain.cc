#include "olap/plan/planner/explain.h"

#include <cinttypes>
#include <cstdio>

namespace forktail {
namespace {

std::string Fixed3(double v) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

// `shown`: operators already printed. A shared subplan (a CTE referenced
// twice) feeds several consumers but runs once: its subtree is printed under
// the first, the others show one line naming it.
void Format(const PhysicalPlan& plan, const ExecutionProfile* profile, OperatorId id, int depth,
            std::vector<bool>* shown, std::vector<std::string>* out) {
  const PlanNode& node = plan.nodes.at(id);
  std::string line(static_cast<size_t>(depth) * 2, ' ');
  line += node.label;
  if (shown->at(id)) {
    out->push_back(line + " (shared: computed once, shown above)");
    return;
  }
  (*shown)[id] = true;
  if (!node.detail.empty()) line += " " + node.detail;
  if (node.estimated_rows >= 0) {
    line += "  (rows=" + std::to_string(static_cast<uint64_t>(node.estimated_rows + 0.5)) + ")";
  }
  if (profile != nullptr) {
    line += " (actual rows=" + std::to_string(node.stats ? node.stats->rows_out.load() : 0);
    if (id < profile->progress.operators.size()) {
      const OperatorProgress& p = profile->progress.operators[id];
      line += " time=" + Fixed3(static_cast<double>(p.exec_nanos) / 1e6) + " ms" +
              " work_orders=" + std::to_string(p.work_orders_done) + "/" +
              std::to_string(p.work_orders_total);
    }
    line += ")";
  }
  out->push_back(std::move(line));
  for (const std::string& nested : node.nested) {
    out->push_back(std::string(static_cast<size_t>(depth + 1) * 2, ' ') + nested);
  }
  for (OperatorId in : node.inputs) Format(plan, profile, in, depth + 1, shown, out);
}

}  // namespace

std::vector<std::string> FormatPlan(const PhysicalPlan& plan, const ExecutionProfile* profile) {
  std::vector<std::string> lines;
  // The result sink is not shown: the tree starts at what it collects.
  const PlanNode& sink = plan.nodes.at(plan.root);
  std::vector<bool> shown(plan.nodes.size(), false);
  for (OperatorId in : sink.inputs) Format(plan, profile, in, 0, &shown, &lines);
  if (profile != nullptr) {
    lines.push_back("Execution Time: " + Fixed3(profile->elapsed_ms) + " ms");
  }
  return lines;
}

std::vector<std::string> ExplainLines(const LogicalOp& root, const Catalog& catalog, bool analyze,
                                      Scheduler& scheduler, const ExecuteOptions& options) {
  PhysicalPlan plan = Plan(root, catalog, PlanOptionsFor(scheduler, options));
  if (!analyze) return FormatPlan(plan, nullptr);
  ExecutionProfile profile = RunPhysicalPlan(scheduler, plan, options);
  return FormatPlan(plan, &profile);
}

std::string Explain(const LogicalOp& root, const Catalog& catalog, bool analyze,
                    Scheduler& scheduler, const ExecuteOptions& options) {
  std::string s;
  for (const std::string& line : ExplainLines(root, catalog, analyze, scheduler, options)) {
    if (!s.empty()) s += "\n";
    s += line;
  }
  return s;
}

}  // namespace forktail
