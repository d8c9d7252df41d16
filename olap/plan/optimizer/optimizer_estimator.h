// CardinalityEstimator: row-count estimates from catalog statistics, the
// textbook way (System R's selectivities, independence between conjuncts):
//   col = const         1 / ndv(col)
//   col <> const        1 - 1 / ndv(col)
//   col < const (etc.)  fraction of [min, max] below const (numbers, dates);
//                       1/3 when the range is unknown
//   col IN (k values)   k / ndv(col)
//   col IS NULL         null_count / rows
//   LIKE                0.1 (a literal prefix and no wildcard: 1 / ndv)
//   a OR b              s(a) + s(b) - s(a) s(b);  NOT a: 1 - s(a)
//   l = r (join)        1 / max(ndv(l), ndv(r)), ndv capped by the input rows
//   keys covering a     1 / rows of that table (each row of the other side
//   composite unique    matches at most one of its rows: a foreign key's
//   key of one side     join, whatever the columns' own ndvs say)
//   other multi-key     the most selective pair, the others damped (sqrt)
//   anything else       1/4
// ndv comes from the column's HLL sketch, scaled down when its operator has
// fewer rows than the table (ndv <= rows). Column ids are traced to their
// table columns through the plan (an id names one value everywhere).
#pragma once

#include <map>

#include "olap/plan/logical.h"
#include "storage/table/catalog.h"

namespace forktail {

class CardinalityEstimator {
 public:
  explicit CardinalityEstimator(const Catalog& catalog) : catalog_(catalog) {}

  // Registers the table columns behind the Gets of `plan` (call once per
  // plan before estimating; safe to call again after rewrites).
  void LearnColumns(const LogicalOp& plan);
  // Fills estimated_rows of `op` and its subtree; returns op's estimate.
  double Estimate(LogicalOp& op);
  // Selectivity of one condition over an input of `input_rows` rows.
  double Selectivity(const Expression& e, double input_rows) const;
  // Distinct values of column `id` in an input of `rows` rows.
  double Ndv(uint32_t id, double rows) const;
  // Rows of an equi-join of inputs with the given row counts on key pairs.
  double JoinRows(double left_rows, double right_rows, const std::vector<uint32_t>& left_keys,
                  const std::vector<uint32_t>& right_keys) const;
  // Selectivity of the equi-join of two inputs on all these key pairs
  // together (left_keys[i] = right_keys[i]).
  double KeysSelectivity(double left_rows, double right_rows,
                         const std::vector<uint32_t>& left_keys,
                         const std::vector<uint32_t>& right_keys) const;

  struct Origin {
    const Table* table = nullptr;
    uint32_t column = 0;
  };
  // The table column behind `id` (table null if computed).
  Origin OriginOf(uint32_t id) const;

 private:
  double CompareSelectivity(const Expression& e, double rows) const;
  double RangeFraction(uint32_t id, CompareOp op, const Value& c) const;
  // Rows of the table whose unique key (of two or more columns) `keys` cover;
  // 0 if they cover none.
  double CoveredUniqueKeyRows(const std::vector<uint32_t>& keys) const;

  const Catalog& catalog_;
  std::map<uint32_t, Origin> origins_;
  // A Project's computed column -> the columns it is computed from (a
  // function of them has at most the product of their distinct values: a
  // computed join key, optimizer_pushdown.cc).
  std::map<uint32_t, std::vector<uint32_t>> computed_from_;
};

}  // namespace forktail
