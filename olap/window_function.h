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
//   RANGE with offsets, GROUPS and EXCLUDE are rejected by the binder (0A000).
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
// recompute each row's frame, O(n * frame width).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "olap/data_chunk.h"
#include "olap/group_table.h"

namespace forktail {

enum class WindowFuncKind : uint8_t {
  kRowNumber,
  kRank,
  kDenseRank,
  kPercentRank,
  kCumeDist,
  kNtile,       // args: [n]
  kLag,         // args: [x] or [x, offset] or [x, offset, default]
  kLead,        // same
  kFirstValue,  // args: [x]
  kLastValue,   // args: [x]
  kNthValue,    // args: [x, n]
  kAggregate,   // `agg` over the frame; args: [x] (none for COUNT(*))
};

enum class FrameBound : uint8_t {
  kUnboundedPreceding,
  kPreceding,  // `offset` rows before
  kCurrentRow,
  kFollowing,  // `offset` rows after
  kUnboundedFollowing,
};

struct WindowFrame {
  bool rows = false;  // ROWS; false: RANGE (peers)
  FrameBound start = FrameBound::kUnboundedPreceding;
  int64_t start_offset = 0;
  FrameBound end = FrameBound::kCurrentRow;
  int64_t end_offset = 0;

  friend bool operator==(const WindowFrame&, const WindowFrame&) = default;
};

// One window call. In a logical plan `args` are column ids of the Window
// operator's child; in the physical operator, positions in its input.
struct WindowFunction {
  WindowFuncKind kind = WindowFuncKind::kRowNumber;
  AggKind agg = AggKind::kCountStar;  // kAggregate: kCountStar/kCount/kSum/kAvg/kMin/kMax
  std::vector<uint32_t> args;
  Type type;  // result type
  WindowFrame frame;
};

const char* WindowFuncName(const WindowFunction& f);
// "ROWS BETWEEN 1 PRECEDING AND CURRENT ROW"; "" for the default frame.
std::string FrameToString(const WindowFrame& frame);

// The sorted input of one window operator as one sequence of rows: chunks
// of kVectorSize live rows (the last may be shorter), dense (no selection).
// Evaluates every function and returns, per function, one output column
// split into vectors parallel to `chunks`. `partition` / `order` are column
// positions that delimit partitions / peers.
// Errors: 22014 ntile <= 0, 22016 nth_value <= 0, 22003 sum overflow.
std::vector<std::vector<Vector>> EvaluateWindow(const std::vector<DataChunk>& chunks,
                                                const std::vector<uint32_t>& partition,
                                                const std::vector<uint32_t>& order,
                                                const std::vector<WindowFunction>& functions);

}  // namespace forktail
