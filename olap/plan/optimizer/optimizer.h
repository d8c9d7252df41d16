// Optimizer: rule-based rewrites plus statistics-based join ordering over
// the logical plan (olap/plan/logical.h). Passes, in order:
//
//   1. constant folding: constant-only subexpressions (casts of literals,
//      date + interval, 1 + 2) become constants; TRUE conjuncts vanish;
//   2. predicate push-down: Filter conjuncts travel down through Project,
//      Sort, Distinct, Aggregate (conditions on group keys only) and joins
//      (left/right side only, both sides of an inner join; the preserved side
//      of a left join; semi/anti joins' left side) into the Get's conditions;
//      conjuncts over both sides of an inner/cross join become its equi keys
//      (column = column with KeyCompatible types) or residual;
//      disjunctions are pushed partially (Quickstep's rule): from
//      (a1 AND b1) OR (a2 AND b2) the implied (a1 OR a2), using only one
//      side's columns, is pushed to that side and the original kept above;
//   3. join ordering: each maximal tree of inner/cross joins becomes a set of
//      relations plus predicates; dynamic programming over connected subsets
//      (<= 10 relations; greedy beyond) minimizing the sum of intermediate
//      result sizes estimated from catalog statistics (row counts, HLL
//      distinct counts, min/max range selectivity, NULL counts); cross
//      products only when the graph is disconnected;
//   4. physical hints: build side = the smaller estimated input (the right
//      child; children swapped if needed); build_unique when the build keys
//      cover a primary key (or the group keys of an Aggregate); exact_filter
//      when the build key is a single integer primary key whose min/max
//      range is about its row count (dense); LIP filters: each inner/semi
//      join's build feeds a Bloom (or exact) filter to the Get that produces
//      its probe key column, when that Get is reachable through the probe side
//      without crossing a left/anti/single join's build side or an
//      aggregation not grouped on that column; a semi/anti/left join built on
//      its small preserved side (BuildsOnPreservedSide) filters its other side;
//   5. removing projections that forward their input unchanged and pruning
//      Get columns nobody above uses;
//   6. an Aggregate whose aggregates are all DISTINCT ones over one column x
//      becomes the plain aggregates over an Aggregate grouping by its keys
//      and x; then group keys that are other columns of a Get whose whole
//      primary key is grouped on become ANY_VALUE aggregates (as
//      PostgreSQL's remove_useless_groupby_columns), before the estimates
//      and hints.
// Every operator gets estimated_rows.
#pragma once

#include "olap/plan/logical.h"
#include "storage/table/catalog.h"

namespace forktail {

struct OptimizerOptions {
  // Relations up to which join order is chosen by DP (greedy above).
  int dp_max_relations = 10;
  bool push_down = true;
  bool reorder_joins = true;
  bool runtime_filters = true;
};

LogicalOpPtr Optimize(LogicalOpPtr plan, const Catalog& catalog,
                      const OptimizerOptions& options = {});

}  // namespace forktail
