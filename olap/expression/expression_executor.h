// ExpressionExecutor: evaluates one bound expression a vector at a time.
//
// Built once per (operator, worker thread): it owns a scratch Vector per
// tree node, so evaluating a chunk allocates nothing. Evaluation visits the
// tree once per chunk (one switch per node per vector); the per-value loops
// are type-specialized kernels (olap/expression/kernels.h).
//
// Contract: Execute(chunk, rows) computes the expression for exactly the
// rows listed in `rows`, at their physical positions; other slots of the
// result are unspecified. Select() returns the rows of `rows` where a
// boolean expression is TRUE (NULL and FALSE drop out) as a new selection:
// filters never copy column data. AND narrows the selection step by step,
// so later conjuncts run only on survivors; OR and CASE split selections.
// Errors (22003, 22012, ...) are thrown only for rows actually evaluated:
// CASE WHEN x <> 0 THEN 1 / x END never divides by zero.
#pragma once

#include <memory>
#include <vector>

#include "olap/common/data_chunk.h"
#include "olap/expression/expression.h"

namespace forktail {

class ExpressionExecutor {
 public:
  explicit ExpressionExecutor(const Expression& expr);
  ~ExpressionExecutor();

  // The result for `rows` of `chunk`; valid until the next call. A column
  // reference returns the chunk's own vector (no copy).
  const Vector& Execute(const DataChunk& chunk, Rows rows);
  const Vector& Execute(const DataChunk& chunk) { return Execute(chunk, chunk.rows()); }

  // Rows of `rows` where the predicate is TRUE, into out_sel; returns count.
  // out_sel may alias rows.sel.
  uint32_t Select(const DataChunk& chunk, Rows rows, uint32_t* out_sel);
  // Narrows chunk's selection to the rows where the predicate is TRUE.
  void Filter(DataChunk* chunk);

  struct Node;  // per-node state; defined in the .cc

 private:
  const Vector& Eval(Node& n, const DataChunk& chunk, Rows rows);
  uint32_t SelectNode(Node& n, const DataChunk& chunk, Rows rows, uint32_t* out_sel);
  void EvalCase(Node& n, const DataChunk& chunk, Rows rows);
  void EvalCoalesce(Node& n, const DataChunk& chunk, Rows rows);

  std::unique_ptr<Node> root_;
};

}  // namespace forktail
