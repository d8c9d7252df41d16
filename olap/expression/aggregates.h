// What an aggregate or a window call computes: the kinds, the list
// aggregates' ordering and the window frame. The logical plan (olap/plan)
// describes calls with these and the execution kernels (GroupTable,
// EvaluateWindow) evaluate them, so they live below both.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "storage/value/types.h"

namespace forktail {

enum class AggKind : uint8_t {
  kCountStar,
  kCount,
  kSum,
  kAvg,
  kMin,
  kMax,
  kCountDistinct,
  kSumDistinct,  // SUM(DISTINCT x): the distinct set, summed when emitted
  kAvgDistinct,  // AVG(DISTINCT x)
  kStringAgg,    // string_agg(text, separator) (olap/execution/aggregate/list_agg.h)
  kArrayAgg,     // array_agg(x), x cast to TEXT by the binder (olap/execution/aggregate/list_agg.h)
  kAnyValue,     // x where x has one value per group (a column functionally
                 // dependent on grouped primary keys; the optimizer's, not SQL's)
};

// Ordering of a list aggregate's values: none (arrival order), by the value
// as text (byte order) or as a number, ascending or descending; or kKeyed:
// each input is its sort key's bytes followed by the value
// (olap/execution/aggregate/list_agg.h), ordered by those bytes.
struct ListAggOrder {
  enum class By : uint8_t { kNone, kText, kNumber, kKeyed };
  By by = By::kNone;
  bool descending = false;
  bool nulls_first = false;
  // DISTINCT: once sorted, each value (NULL too) is kept once.
  bool distinct = false;
  // FILTER on an aggregate that keeps NULLs (array_agg; keyed inputs): a
  // NULL input is a row the filter dropped, and unkeyed values arrive
  // wrapped (list_agg.h WrapListAggInput) so that a NULL element is not one.
  bool filtered = false;
};

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

enum class FrameExclude : uint8_t { kNoOthers, kCurrentRow, kGroup, kTies };

struct WindowFrame {
  bool rows = false;    // ROWS; false: RANGE (peers) or GROUPS
  bool groups = false;  // GROUPS (then rows is false)
  FrameBound start = FrameBound::kUnboundedPreceding;
  int64_t start_offset = 0;  // RANGE over integer / DECIMAL: in the key's scale
  FrameBound end = FrameBound::kCurrentRow;
  int64_t end_offset = 0;
  // RANGE with offsets: the single ORDER BY key's direction; over a DOUBLE
  // key the offsets are these; the offsets as written (for EXPLAIN).
  bool descending = false;
  bool double_key = false;
  double start_value = 0, end_value = 0;
  std::string start_text, end_text;
  FrameExclude exclude = FrameExclude::kNoOthers;

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
const char* AggKindName(AggKind k);

}  // namespace forktail
