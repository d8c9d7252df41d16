// physical — the door of the physical layer: olap's kernels wired into
// scheduler operators over table scans. Other modules (the planner, the
// server, tests, benchmarks) include only this header.
//
//   ChunkBlock            the batch of DataChunks on plan edges
//   TableScanOperator     per table block: zero-copy wrap, filter, runtime filters, project
//   SelectOperator        filter + project over a stream
//   HashJoinBuild/Probe   kernels' join hash table and probe; compaction policy option
//   AggregateOperator     consume per block, merge per worker slot, finalize
//   SortOperator          per-block sort runs + k-way merge (top-k with a limit)
//   LimitOperator (LIMIT/OFFSET), ResultSinkOperator (rows as forktail::Value)
//   UnionAllOperator      several inputs, blocks passed through
//   ValuesOperator        constant rows (VALUES, SELECT without FROM)
//   NestedLoopJoin        small materialized build side: cross/theta joins,
//                         residual conditions, the scalar-subquery single join
//   ApplyOperator         dependent join: a correlated subquery's folded result
//                         per distinct binding, appended as a column
//   PlanBuilder           short DAG construction
//   physical::*           the storage side (physical_table.h): table access
//                         behind a forward-declared Table
// See docs/operators.md.
#pragma once

#include "olap/execution/aggregate/physical_aggregate.h"
#include "olap/execution/join/physical_hash_join.h"
#include "olap/execution/join/physical_nested_loop_join.h"
#include "olap/execution/operator/physical_apply.h"
#include "olap/execution/operator/physical_chunk_block.h"
#include "olap/execution/operator/physical_operator.h"
#include "olap/execution/operator/physical_scan.h"
#include "olap/execution/operator/physical_select.h"
#include "olap/execution/operator/physical_series.h"
#include "olap/execution/operator/physical_sink.h"
#include "olap/execution/operator/physical_table.h"
#include "olap/execution/operator/physical_union.h"
#include "olap/execution/operator/physical_values.h"
#include "olap/execution/physical_plan_builder.h"
#include "olap/execution/sort/physical_sort.h"
#include "olap/execution/sort/physical_window.h"
