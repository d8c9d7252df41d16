// olap — the public door of the analytical module: the vectorized kernels the
// physical operators are made of. Scheduler operators wrap them thinly: one
// work order = one input block, sliced into DataChunks of kVectorSize rows
// (Vector::WrapStripe borrows the block's stripes without copying).
//
//   vector.h, data_chunk.h      Vector, DataChunk, selection vectors
//   expression.h                bound expression trees and typing rules
//   expression_executor.h       vector-at-a-time evaluation and filtering
//   scalar_function.h           scalar functions (abs, upper, now, ...) and
//                               the FunctionRegistry other modules extend
//   join_hash_table.h           hash join build (multi-threaded)
//   join_probe.h                probe: inner/left/semi/anti/NOT IN + compaction
//   join_residual.h             non-equi join conditions over candidate pairs
//   compaction_policy.h         off / fixed / learned (bandit) thresholds
//   join_filter.h               LIP Bloom filter, exact range filter
//   aggregator.h, group_table.h parallel hash aggregation, five methods
//   sorter.h                    sort runs, k-way merge, top-k, limit/offset
//   physical.h                  the kernels wired into scheduler operators
#pragma once

#include "olap/common/data_chunk.h"
#include "olap/common/key_encoder.h"
#include "olap/common/vector.h"
#include "olap/execution/aggregate/aggregator.h"
#include "olap/execution/aggregate/group_table.h"
#include "olap/execution/join/compaction_policy.h"
#include "olap/execution/join/join_filter.h"
#include "olap/execution/join/join_hash_table.h"
#include "olap/execution/join/join_probe.h"
#include "olap/execution/join/join_residual.h"
#include "olap/execution/physical.h"
#include "olap/execution/sort/sorter.h"
#include "olap/execution/sort/window_function.h"
#include "olap/expression/expression.h"
#include "olap/expression/expression_executor.h"
#include "olap/expression/scalar_function.h"
