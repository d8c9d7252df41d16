// Runtime join filters: a hash-join build publishes a filter over one of its
// key columns, and the scan on the probe side drops rows that cannot match
// before they reach the join (LIP, Zhu et al., VLDB 2017; the exact filter is
// a semi-join bitvector over a dense key range).
//
//   build input -pipelining-> HashJoinBuild ---blocking---> HashJoinProbe
//                                   |  fills at Finish           ^
//                                   v                            |
//                             JoinFilterSlot                     |
//                                   |  read by                   |
//                                   v                            |
//   probe table ---> TableScan(runtime_filters) --pipelining-----+
//              (plan edge HashJoinBuild -> TableScan, blocking: the scan
//               starts only after the filter is complete)
//
// Wiring (the planner's part; PlanBuilder does not do it yet):
//   auto slot = std::make_shared<JoinFilterSlot>();
//   build_op->PublishFilter(/*key index*/ 0, slot);           // before Submit
//   spec.runtime_filters.push_back(
//       std::make_shared<JoinRuntimeFilter>(slot, /*scan read column*/ 3));
//   scan id = plan.AddOperator(TableScanOperator(table, spec, ...));
//   plan.AddEdge(build id, scan id, /*pipelining=*/false);    // build id < scan id
// so the build (and its input) must be added to the plan before the probe-side
// scan. The scan column must hold exactly the values the probe compares to
// that key (a column of the scan's read list, not a computed projection).
//
// Only for joins that drop probe rows without a match: inner and semi (and a
// chain of inner joins above the same scan, e.g. a star join's fact scan
// filtered by every dimension build). NEVER for left outer, anti or NOT IN,
// which must see the unmatched rows.
//
// Kinds: kExact when the key is integer-represented (integers, DATE,
// DECIMAL, TIMESTAMP) and its build values span at most kExactBitsPerRow
// bits per build row (or kExactMinBits), else a blocked Bloom filter over
// the key column's hash (join_filter.h). NULL keys never pass (they never
// match an equi-join).
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "olap/execution/join/join_filter.h"
#include "olap/execution/operator/physical_scan.h"

namespace forktail {

enum class JoinFilterKind : uint8_t { kAuto, kBloom, kExact };

// Filled once, by the build, before the scans that hold it start (the plan's
// blocking edge orders them); read-only afterwards.
struct JoinFilterSlot {
  static constexpr uint64_t kExactBitsPerRow = 64;
  static constexpr uint64_t kExactMinBits = uint64_t{1} << 16;

  Type key_type;
  std::unique_ptr<KeyEncoder> encoder;  // one column of key_type (Bloom hashes)
  std::unique_ptr<BloomFilter> bloom;
  std::unique_ptr<ExactFilter> exact;
  uint64_t build_keys = 0;                           // non-NULL build keys inserted
  bool published = false;                            // false: the build never finished (passes all)
  std::atomic<uint64_t> rows_in{0}, rows_passed{0};  // scan-side counts
};

// The scan side: a RuntimeFilter over one read column of the scan.
class JoinRuntimeFilter final : public RuntimeFilter {
 public:
  JoinRuntimeFilter(std::shared_ptr<JoinFilterSlot> slot, uint32_t column);
  uint32_t Select(const DataChunk& chunk, Rows rows, uint32_t* out_sel) const override;
  std::optional<std::vector<uint32_t>> ReadColumns() const override {
    return std::vector<uint32_t>{column_};
  }

 private:
  std::shared_ptr<JoinFilterSlot> slot_;
  uint32_t column_;
};

// The build side: collects one key column's hashes (and integer values)
// per worker slot while the build consumes its input, then sizes and fills
// the slot's filter. Used by HashJoinBuildOperator (PublishFilter).
class JoinFilterBuilder {
 public:
  JoinFilterBuilder(std::shared_ptr<JoinFilterSlot> slot, uint32_t key_column, Type key_type,
                    JoinFilterKind kind, int threads);

  // Thread `thread` collects the key column of chunk's live rows.
  void Collect(int thread, const DataChunk& chunk);
  // Once all Collect calls returned (one thread): picks the kind and sizes it.
  void Allocate();
  // After Allocate, per thread (concurrently): inserts that thread's keys.
  void Insert(int thread);
  // After every Insert returned: marks the slot published.
  void Publish() { slot_->published = true; }

  // Bytes collected by `thread` (for the query's memory charge).
  size_t ThreadBytes(int thread) const;
  size_t FilterBytes() const;

 private:
  struct Part {
    std::vector<uint64_t> hashes;
    std::vector<int64_t> values;  // integer keys only
    int64_t min = INT64_MAX, max = INT64_MIN;
  };
  std::shared_ptr<JoinFilterSlot> slot_;
  uint32_t key_column_;
  JoinFilterKind kind_;
  bool integer_;
  std::vector<Part> parts_;
  size_t filter_bytes_ = 0;
};

}  // namespace forktail
