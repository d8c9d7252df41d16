// Set-returning functions in FROM whose arguments are not known at bind
// time: generate_series(a, b [, step]) and unnest(array) over columns of an
// enclosing query (psql's `\d TABLE` publications query) or of an earlier
// FROM item (LATERAL, olap/plan/binder/binder_lateral.h).
//
// Why a kTableFunction node expanded per binding, and not a physical
// set-returning operator: such a function always sits in an Apply's subplan
// (its arguments read outer columns, so the binder must make its query a
// dependent join), and the Apply substitutes every outer column by a
// constant before it optimizes and plans the subplan (apply_runner.h). At
// that point the arguments are constants, so the node becomes the same
// kValues node a constant call binds to, and nothing downstream (optimizer
// rules, estimates, the planner, the scheduler) has to know about it. The
// cost is a re-plan per distinct binding, which the Apply pays anyway.
//
// The node (logical.h): function_name; `expressions` = the bound arguments;
// `columns` = the value column, then `ordinality` (BIGINT) for WITH
// ORDINALITY. The output row count depends only on the arguments:
//   generate_series(a, b [, s])  a, a+s, ... up to b (s < 0: down to b);
//                                a NULL argument: no rows; s = 0: 22023;
//                                over integers and more than
//                                kSeriesValuesRows values: a kSeries node;
//                                else more than kMaxSeriesRows rows: 0A000
//   unnest(arr)                  one row per element (NULL array: none)
//   _pg_expandarray(arr)         columns x (element), n (INTEGER, 1-based)
//
// Zipped (the set-returning functions of a select list, binder_srf.h):
// function_name = "ROWS FROM:" then "name/argc" per call, comma-separated;
// `expressions` = the calls' arguments in order; `columns` = each call's
// value columns in order. Rows: as many as the longest call returns,
// shorter calls padded with NULLs (PostgreSQL's ROWS FROM / lockstep SRFs).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "olap/plan/logical.h"

namespace forktail {

inline constexpr int64_t kMaxSeriesRows = 1'000'000;
// Integer series longer than this become a kSeries node (produced in
// parallel, any length) instead of Values rows (ordered, at most
// kMaxSeriesRows: timestamps, WITH ORDINALITY, zipped calls).
inline constexpr int64_t kSeriesValuesRows = 10'000;
inline constexpr const char* kZipPrefix = "ROWS FROM:";

// function_name of a zipped node of calls (name, argument count).
std::string ZipFunctionName(const std::vector<std::pair<std::string, size_t>>& calls);

// The kValues (or kSeries) node of a kTableFunction whose arguments fold to
// constants (same column ids). Throws the function's DbError (22023 zero step, 0A000
// too many rows or arguments that are not constant).
LogicalOpPtr ExpandTableFunction(const LogicalOp& op);

// Replaces every kTableFunction of `plan` (not those inside Apply subplans:
// their arguments may still read the Apply's input) by its expansion.
void ExpandTableFunctions(LogicalOpPtr* plan);

}  // namespace forktail
