#include "scheduler/progress_monitor.h"

#include <fmt/format.h>

namespace forktail {

uint64_t QueryProgress::TotalExecNanos() const {
  uint64_t sum = 0;
  for (const auto& op : operators) sum += op.exec_nanos;
  return sum;
}

uint64_t QueryProgress::TotalDone() const {
  uint64_t sum = 0;
  for (const auto& op : operators) sum += op.work_orders_done;
  return sum;
}

void ProgressMonitor::AddQuery(QueryId query, int priority,
                               std::vector<std::string> operator_names) {
  QueryProgress& progress = queries_[query];
  progress.query = query;
  progress.priority = priority;
  for (auto& name : operator_names) progress.operators.push_back({.name = std::move(name)});
}

void ProgressMonitor::Produced(QueryId query, OperatorId op, uint64_t count) {
  queries_.at(query).operators.at(op).work_orders_total += count;
}

void ProgressMonitor::Finished(QueryId query, OperatorId op, uint64_t nanos) {
  OperatorProgress& progress = queries_.at(query).operators.at(op);
  ++progress.work_orders_done;
  progress.exec_nanos += nanos;
}

void ProgressMonitor::OperatorDone(QueryId query, OperatorId op) {
  queries_.at(query).operators.at(op).finished = true;
}

QueryProgress ProgressMonitor::Remove(QueryId query) {
  auto it = queries_.find(query);
  if (it == queries_.end()) return QueryProgress{.query = query};
  QueryProgress last = std::move(it->second);
  queries_.erase(it);
  return last;
}

QueryProgress ProgressMonitor::Get(QueryId query) const {
  auto it = queries_.find(query);
  return it == queries_.end() ? QueryProgress{.query = query} : it->second;
}

std::vector<QueryProgress> ProgressMonitor::Snapshot() const {
  std::vector<QueryProgress> out;
  out.reserve(queries_.size());
  for (const auto& [id, progress] : queries_) out.push_back(progress);
  return out;
}

std::string ProgressMonitor::Format(const std::vector<QueryProgress>& snapshot) {
  std::string out;
  for (const auto& query : snapshot) {
    out += fmt::format("query {} (priority {}, memory {}/{} bytes)\n", query.query, query.priority,
                       query.memory_used, query.memory_limit);
    for (size_t i = 0; i < query.operators.size(); ++i) {
      const OperatorProgress& op = query.operators[i];
      const double avg_us = op.work_orders_done == 0
                                ? 0.0
                                : op.exec_nanos / 1e3 / static_cast<double>(op.work_orders_done);
      out += fmt::format("  [{}] {:<28} {:>8}/{:<8} work orders  {:>10.3f} ms  avg {:.1f} us{}\n",
                         i, op.name, op.work_orders_done, op.work_orders_total, op.exec_nanos / 1e6,
                         avg_us, op.finished ? "  done" : "");
    }
  }
  return out;
}

}  // namespace forktail
