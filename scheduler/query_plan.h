// QueryPlan: the DAG of operators of one query plus the query's memory.
//
// Operators are added first, edges after; an edge goes from an earlier-added
// producer to a later-added consumer, so ids are a topological order and a
// cycle cannot be built. An edge is pipelining (the consumer may run on the
// producer's blocks as they stream) or blocking (the consumer starts only after
// the producer has finished, e.g. hash-join probe after build).
//
// The plan owns its QueryMemory from construction, so operators can allocate
// their hash tables and buffers from it while the plan is being built;
// Scheduler::Submit sets its limit to the query's declared memory estimate.
#pragma once

#include <memory>
#include <vector>

#include "scheduler/query_memory.h"
#include "scheduler/relational_operator.h"

namespace forktail {

class QueryPlan {
 public:
  struct Edge {
    OperatorId producer;
    OperatorId consumer;
    bool pipelining;
    size_t input_index;  // the consumer's input number for this edge
  };

  QueryPlan();

  OperatorId AddOperator(std::unique_ptr<RelationalOperator> op);
  // Requires producer < consumer (both already added); aborts otherwise.
  void AddEdge(OperatorId producer, OperatorId consumer, bool pipelining);

  size_t size() const { return operators_.size(); }
  RelationalOperator& op(OperatorId id) const { return *operators_[id]; }
  const std::vector<Edge>& edges() const { return edges_; }
  const std::vector<size_t>& out_edges(OperatorId id) const { return out_edges_[id]; }
  const std::vector<size_t>& in_edges(OperatorId id) const { return in_edges_[id]; }

  const std::shared_ptr<QueryMemory>& memory() const { return memory_; }
  // Hard cap of the query's memory when it should be above the admission
  // estimate (0, the default: the estimate is the cap). Estimates from
  // cardinality guesses can be far too low; a caller that admits by the
  // estimate but tolerates more sets the cap here before Submit.
  void set_memory_limit(size_t bytes) { memory_limit_ = bytes; }
  size_t memory_limit() const { return memory_limit_; }

  // Destroys the operators (and whatever they hold in query memory).
  void DestroyOperators();

 private:
  std::shared_ptr<QueryMemory> memory_;
  size_t memory_limit_ = 0;
  std::vector<std::unique_ptr<RelationalOperator>> operators_;
  std::vector<Edge> edges_;
  std::vector<std::vector<size_t>> out_edges_;  // indexes into edges_
  std::vector<std::vector<size_t>> in_edges_;
};

}  // namespace forktail
