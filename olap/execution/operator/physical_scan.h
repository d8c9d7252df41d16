// TableScan: the leaf operator. One work order per table block: pin the
// block, wrap its stripes as vectors (zero-copy; deleted rows become the
// selection vector), apply the pushed-down filter, then the runtime filters,
// then the projection, and emit one ChunkBlock holding the pin.
//
// Index probes. With ScanSpec::index_range the scan first asks the table's
// index for the rows in the range (Table::ProbeIndex) and reads only those
// (one work order per block holding one), still applying the whole filter.
// When the probe finds more than max(kMinIndexProbeRows, live rows /
// kIndexProbeFraction) rows, reading them one by one would cost more than
// reading the blocks, so the scan reads every block instead. The choice is
// made at execution, when the count is exact, not from estimates.
//
// Runtime filters (LIP Bloom / exact filters from hash-join builds) plug in
// through the RuntimeFilter interface, applied in order after the pushed-down
// filter and before the projection, on the read columns. The hash-join
// build's adapter is JoinRuntimeFilter (join_runtime_filter.h): the build
// fills a shared JoinFilterSlot when it finishes, and the plan must order the
// scan after it (a blocking edge build -> scan, so the build is added to the
// plan first).
//
// Index joins. With ScanSpec::index_join the scan is the probe side of a
// hash join whose build hands over its distinct keys (JoinKeySlot, filled
// by join/join_key_collector.h once the build finished; the same blocking
// edge orders them): when the build had at most max_keys of them, the scan
// reads only the rows one index probe per key finds -- an index nested-loop
// join, with the hash table still doing the matching. A build with more
// keys, or a probe that finds too many rows (as above), falls back to
// index_range or to reading every block.
//
// Frozen blocks (storage/table/block.h) are filtered before they are
// decoded: the filter's conjuncts `column op constant` on an integer-like
// column, merged into one range per column, run on the packed values, and
// each conjunct that reads one string column runs once per distinct string
// of the block's dictionary, keeping rows by code (a block where no string
// passes is skipped); `column [NOT] LIKE '%a%b%'` on an FSST-compressed
// column runs on the codes (fsst::ContainsMatcher). Where they all ran so, the rest of the filter
// runs on the rows they keep (elsewhere the whole filter does). The columns that filter does not
// read are decoded only for the rows it keeps, and a column only the decided conjuncts read is not
// decoded at all.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "olap/execution/operator/physical_operator.h"
#include "olap/execution/operator/physical_projector.h"
#include "olap/execution/operator/physical_table.h"
#include "storage/table/ordered_index.h"

namespace forktail {

class Table;

// Keeps a subset of a chunk's rows (e.g. a LIP Bloom filter probe).
class RuntimeFilter {
 public:
  virtual ~RuntimeFilter() = default;
  // Rows of `rows` that may qualify, into out_sel (may alias rows.sel); returns count.
  virtual uint32_t Select(const DataChunk& chunk, Rows rows, uint32_t* out_sel) const = 0;
  // The chunk columns Select reads (a frozen block's scan decodes the other
  // columns only for the rows the filters keep); nullopt: unknown, any.
  virtual std::optional<std::vector<uint32_t>> ReadColumns() const { return std::nullopt; }
};

// Rows of a table by block: block number -> ascending slot numbers.
using RowsByBlock = std::shared_ptr<const std::map<uint32_t, std::vector<uint32_t>>>;

// The distinct keys of a hash-join build, for an index join. Written by the
// build before the scan starts, read-only afterwards.
struct JoinKeySlot {
  size_t max_keys = 0;                   // a build with more distinct keys publishes none
  bool published = false;                // false: too many keys, or the build never finished
  std::vector<std::vector<Value>> keys;  // distinct, NULL-free, in the build's key order
};

// How a scan turns a build's keys into index probes: `pattern` is the probe
// for one key, with the scan's own `=` constants in pattern.equal; each key
// puts its value for join key `fill[i].second` at pattern.equal[fill[i].first],
// converted exactly to that index column's type `types[i]` (a key that does
// not convert exactly matches no row).
struct IndexJoinSpec {
  std::shared_ptr<const JoinKeySlot> slot;
  IndexRange pattern;
  std::vector<std::pair<size_t, size_t>> fill;
  std::vector<Type> types;
};

struct ScanSpec {
  // Table columns to read, in this order (empty: all). The filter, runtime
  // filters and projections index this list.
  std::vector<uint32_t> columns;
  ExprPtr filter;                    // may be null
  std::vector<ExprPtr> projections;  // empty: the read columns
  std::vector<std::shared_ptr<const RuntimeFilter>> runtime_filters;
  // Whether the runtime filters run before the filter (a planner's choice:
  // before string compares, LIKE or function calls, which then see only the
  // rows that may join) or after it (a cheap filter narrows their input).
  bool runtime_filters_first = false;
  // Rows to read through an index (the filter still decides); null: all.
  std::shared_ptr<const IndexRange> index_range;
  // Or rows an index probe already found (block -> ascending slots): exactly
  // these are read.
  RowsByBlock probed_rows;
  // An index join's probes, taking precedence over index_range once its
  // build published its keys; null: none.
  std::shared_ptr<const IndexJoinSpec> index_join;
};

class TableScanOperator final : public PhysicalOperator {
 public:
  // `table` must outlive the query.
  TableScanOperator(const Table& table, ScanSpec spec, int parallelism);

  static constexpr size_t kMinIndexProbeRows = 4096;
  static constexpr size_t kIndexProbeFraction = 16;
  // An index join probes at most live rows / kIndexJoinKeyFraction keys,
  // within [kMinIndexJoinKeys, kMaxIndexJoinKeys]: the probes run one after
  // the other before the scan's work orders, where a parallel scan with the
  // build's runtime filter reads a big table's blocks at memory speed
  // (TPC-H Q04's 57,000 orders against lineitem: the scan wins).
  static constexpr size_t kMinIndexJoinKeys = 1024;
  static constexpr size_t kMaxIndexJoinKeys = 4096;
  static constexpr size_t kIndexJoinKeyFraction = 64;
  // A block's output is packed when at most 1 / kSparseOutput of the rows
  // read survive the filters.
  static constexpr uint64_t kSparseOutput = 4;
  static size_t MaxIndexJoinKeys(const Table& table);

  bool GetNextWorkOrders(WorkOrderSink& sink) override;

 protected:
  void ProcessBlock(WorkOrderContext&, int, size_t, const StreamBlockPtr&) override {}

 private:
  void ScanBlock(WorkOrderContext& context, int slot, uint32_t block_no,
                 const std::vector<uint32_t>* rows = nullptr);
  // Filter, runtime filters and projection; emits what is left (with `pin`
  // keeping zero-copy vectors valid). `frozen`: how WrapTableBlock read the
  // chunks (a frozen block's may have columns still to decode, and its
  // predicates may have decided their conjuncts: residual_ then filters).
  void ProcessChunks(WorkOrderContext& context, int slot, std::vector<DataChunk> chunks,
                     std::shared_ptr<const void> pin, const physical::FrozenScan* frozen = nullptr);

  const Table& table_;
  std::vector<uint32_t> columns_;
  // When a frozen block decodes each read column: the filter and runtime
  // filters' columns at once, the projections' after them, for the rows
  // they keep, the others never. Empty (all at once) when the scan has no
  // filter (nothing to gain). decided_decode_ is the plan for blocks where
  // residual_ replaces the filter.
  std::vector<physical::ColumnDecode> decode_;
  std::vector<physical::ColumnDecode> decided_decode_;
  // Conjuncts of the filter that a frozen block evaluates on its packed
  // values before it decodes anything (the filter still runs after them).
  std::vector<physical::PackedPredicate> packed_predicates_;
  // Conjuncts of the filter that each read one string column (into
  // columns_): a frozen block whose column is a dictionary evaluates them on
  // its distinct strings, with the slot's executors (made on first use);
  // one whose column is FSST-compressed, those string_contains_ gives a
  // pattern for, on the codes.
  std::vector<const Expression*> string_conjuncts_;
  std::vector<uint32_t> string_columns_;
  std::vector<std::optional<physical::ContainsPattern>> string_contains_;
  std::vector<std::vector<std::unique_ptr<ExpressionExecutor>>> string_executors_;
  // The filter without the conjuncts above, for the blocks where they all
  // ran on encoded values (null when the filter has none of them).
  std::unique_ptr<Projector> residual_;
  std::vector<std::shared_ptr<const RuntimeFilter>> runtime_filters_;
  bool runtime_filters_first_ = false;
  // The index probe to make now: the index join's once its keys are there.
  std::shared_ptr<const IndexRange> ProbeRange() const;

  std::shared_ptr<const IndexRange> index_range_;
  RowsByBlock probed_rows_;
  std::shared_ptr<const IndexJoinSpec> index_join_;
  std::unique_ptr<Projector> projector_;
};

}  // namespace forktail
