#include "scheduler/query_plan.h"

#include <cstdio>
#include <cstdlib>

namespace forktail {

QueryPlan::QueryPlan() : memory_(std::make_shared<QueryMemory>()) {}

OperatorId QueryPlan::AddOperator(std::unique_ptr<RelationalOperator> op) {
  operators_.push_back(std::move(op));
  out_edges_.emplace_back();
  in_edges_.emplace_back();
  return static_cast<OperatorId>(operators_.size() - 1);
}

void QueryPlan::AddEdge(OperatorId producer, OperatorId consumer, bool pipelining) {
  if (producer >= consumer || consumer >= operators_.size()) {
    std::fprintf(stderr, "QueryPlan::AddEdge(%u, %u): producer must be added before consumer\n",
                 producer, consumer);
    std::abort();
  }
  edges_.push_back(Edge{producer, consumer, pipelining, in_edges_[consumer].size()});
  out_edges_[producer].push_back(edges_.size() - 1);
  in_edges_[consumer].push_back(edges_.size() - 1);
}

void QueryPlan::DestroyOperators() { operators_.clear(); }

}  // namespace forktail
