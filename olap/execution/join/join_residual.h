// JoinResidual: the non-equi part of a join condition, evaluated over
// candidate (probe row, build row) pairs a batch at a time.
//
// A hash join finds the pairs whose keys are equal; a condition like
//   l1.l_orderkey = l2.l_orderkey AND l1.l_suppkey <> l2.l_suppkey
// (TPC-H Q21) or an outer join's ON (a.x = b.x AND a.y < b.y) also needs the
// rest. The residual is a bound boolean Expression over a "pair row":
//
//   column refs [0, P)     the probe input chunk's columns (P = its column count)
//   column refs [P, P + B) the build side's payload columns, in payload order
//
// A pair matches only when the keys are equal AND the residual is TRUE
// (NULL and FALSE do not match), as SQL's ON clause.
//
// Evaluation is vectorized: the candidate pairs of one probe chunk are
// gathered into a pair chunk of up to kVectorSize rows (only the columns the
// residual references; strings as views into the probe chunk and the hash
// table, no byte copies) and the residual selects the passing pairs once per
// batch. One instance per JoinProbe (per worker thread): it owns the
// executor's scratch vectors. Not thread-safe.
#pragma once

#include <memory>
#include <vector>

#include "olap/execution/join/join_hash_table.h"
#include "olap/expression/expression.h"
#include "olap/expression/expression_executor.h"

namespace forktail {

class JoinResidual {
 public:
  // `residual` must outlive this object.
  JoinResidual(const Expression* residual, const JoinHashTable* table);

  // pass[i] = 1 iff pair i (probe row probe_rows[i] of `chunk`, build row
  // build_rows[i]) satisfies the residual, else 0, for i in [0, n).
  void Evaluate(const DataChunk& chunk, const uint32_t* probe_rows, const uint32_t* build_rows,
                size_t n, uint8_t* pass);

  // Checks that `residual` is boolean and that every column reference lies
  // in [0, P + B) with the type of that pair column; throws DbError XX000
  // (a planner bug) otherwise.
  static void Validate(const Expression& residual, const std::vector<Type>& probe_types,
                       const std::vector<Type>& payload_types);

 private:
  void Prepare(const DataChunk& chunk);

  const Expression* residual_;
  const JoinHashTable* table_;
  ExpressionExecutor executor_;
  std::vector<bool> used_;  // per pair column: referenced by the residual
  bool prepared_ = false;
  uint32_t probe_columns_ = 0;
  DataChunk pairs_;
  SelectionVector sel_;
};

}  // namespace forktail
