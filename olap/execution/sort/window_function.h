// Window functions: what one `f(...) OVER (...)` call computes, and the
// evaluation of a list of them over rows already sorted by (partition keys,
// order keys).
//
// Terms (PostgreSQL's): a partition is a maximal run of rows with equal
// partition keys (NULL equals NULL); peers are rows of a partition with
// equal order keys (without ORDER BY every row of the partition is a peer of
// every other). The frame of a row is the range of partition rows that
// frame-aware functions (first_value, last_value, nth_value, aggregates) see:
//
//   RANGE (default: UNBOUNDED PRECEDING .. CURRENT ROW): CURRENT ROW as a
//     start is the first peer, as an end the last peer, so peers share one
//     value; without ORDER BY the default frame is the whole partition.
//   ROWS: offsets count rows; the frame is clipped to the partition.
//   RANGE with offsets (one numeric ORDER BY key): the rows whose key lies
//     within [key - offset, key + offset] (the side by PRECEDING /
//     FOLLOWING; DESC flips the direction); a NULL (or NaN) current key's
//     offset bounds are its peers', and NULL keys are never within an offset
//     of a non-NULL key. Integer / DECIMAL keys compare exactly: the offset is
//     held in the key's scale, truncated (exact, as keys are multiples of
//     10^-scale); DOUBLE keys use `start_value` / `end_value`.
//   GROUPS: offsets count peer groups.
//   EXCLUDE CURRENT ROW / GROUP (its peers) / TIES (its peers but itself)
//     removes rows from the frame, leaving up to three row ranges.
//
// Result types: row_number, rank, dense_rank, ntile, count -> BIGINT;
// percent_rank, cume_dist -> DOUBLE; sum / avg / min / max ->
// AggregateResultType (the engine's GROUP BY rules: sum(int) BIGINT, avg(int)
// DOUBLE, sum(decimal) DECIMAL(38,s), avg(decimal) DECIMAL(18 or 38, s')); lag / lead / first_value
// / last_value / nth_value -> the argument's type (lag/lead's default is cast to it by the binder).
//
// Evaluation cost: ranking and offset functions are O(n) per partition;
// aggregates over frames whose start is UNBOUNDED PRECEDING (or whose end is
// UNBOUNDED FOLLOWING) are incremental, O(n); frames bounded on both sides
// recompute each row's frame, O(n * frame width); frames with an EXCLUDE
// fold up to three row ranges from a segment tree of aggregate states,
// O(n log n) (2n states of memory). Frame bounds themselves are O(1) per
// row (RANGE offsets: two pointers moving forward through the partition;
// GROUPS: peer group starts).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "olap/common/data_chunk.h"
#include "olap/execution/aggregate/group_table.h"
#include "olap/expression/aggregates.h"

namespace forktail {

// The sorted input of one window operator as one sequence of rows: chunks
// of kVectorSize live rows (the last may be shorter), dense (no selection).
// Evaluates every function and returns, per function, one output column
// split into vectors parallel to `chunks`. `partition` / `order` are column
// positions that delimit partitions / peers; RANGE offsets compare order[0].
// Errors: 22014 ntile <= 0, 22016 nth_value <= 0, 22003 sum overflow.
std::vector<std::vector<Vector>> EvaluateWindow(const std::vector<DataChunk>& chunks,
                                                const std::vector<uint32_t>& partition,
                                                const std::vector<uint32_t>& order,
                                                const std::vector<WindowFunction>& functions);

}  // namespace forktail
