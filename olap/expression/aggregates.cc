#include "olap/expression/aggregates.h"

namespace forktail {

const char* AggKindName(AggKind k) {
  switch (k) {
    case AggKind::kCountStar:
      return "count_star";
    case AggKind::kCount:
      return "count";
    case AggKind::kSum:
      return "sum";
    case AggKind::kAvg:
      return "avg";
    case AggKind::kMin:
      return "min";
    case AggKind::kMax:
      return "max";
    case AggKind::kStringAgg:
      return "string_agg";
    case AggKind::kArrayAgg:
      return "array_agg";
    case AggKind::kCountDistinct:
      return "count_distinct";
    case AggKind::kSumDistinct:
      return "sum_distinct";
    case AggKind::kAvgDistinct:
      return "avg_distinct";
    case AggKind::kAnyValue:
      return "any_value";
  }
  return "?";
}

const char* WindowFuncName(const WindowFunction& f) {
  switch (f.kind) {
    case WindowFuncKind::kRowNumber:
      return "row_number";
    case WindowFuncKind::kRank:
      return "rank";
    case WindowFuncKind::kDenseRank:
      return "dense_rank";
    case WindowFuncKind::kPercentRank:
      return "percent_rank";
    case WindowFuncKind::kCumeDist:
      return "cume_dist";
    case WindowFuncKind::kNtile:
      return "ntile";
    case WindowFuncKind::kLag:
      return "lag";
    case WindowFuncKind::kLead:
      return "lead";
    case WindowFuncKind::kFirstValue:
      return "first_value";
    case WindowFuncKind::kLastValue:
      return "last_value";
    case WindowFuncKind::kNthValue:
      return "nth_value";
    case WindowFuncKind::kAggregate:
      switch (f.agg) {
        case AggKind::kCountStar:
        case AggKind::kCount:
          return "count";
        case AggKind::kSum:
          return "sum";
        case AggKind::kAvg:
          return "avg";
        case AggKind::kMin:
          return "min";
        case AggKind::kMax:
          return "max";
        default:
          return "?";
      }
  }
  return "?";
}

std::string FrameToString(const WindowFrame& f) {
  if (f == WindowFrame{}) return "";
  auto bound = [](FrameBound k, int64_t off, const std::string& text) -> std::string {
    std::string o = text.empty() ? std::to_string(off) : text;  // RANGE: as written
    switch (k) {
      case FrameBound::kUnboundedPreceding:
        return "UNBOUNDED PRECEDING";
      case FrameBound::kPreceding:
        return o + " PRECEDING";
      case FrameBound::kCurrentRow:
        return "CURRENT ROW";
      case FrameBound::kFollowing:
        return o + " FOLLOWING";
      case FrameBound::kUnboundedFollowing:
        return "UNBOUNDED FOLLOWING";
    }
    return "?";
  };
  static const char* const kExclude[] = {"", " EXCLUDE CURRENT ROW", " EXCLUDE GROUP",
                                         " EXCLUDE TIES"};
  return std::string(f.rows ? "ROWS" : (f.groups ? "GROUPS" : "RANGE")) + " BETWEEN " +
         bound(f.start, f.start_offset, f.start_text) + " AND " +
         bound(f.end, f.end_offset, f.end_text) + kExclude[static_cast<int>(f.exclude)];
}

}  // namespace forktail
