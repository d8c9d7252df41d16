// The storage side of the physical layer, kept in its own translation unit.
//
// Keeping it in one translation unit keeps storage's headers out of every
// operator header: they mention Table only by a forward declaration.
//
// Zero-copy contract of WrapTableBlock: the chunks' fixed-width vectors point
// straight into the block's stripes and null bitmaps, string vectors hold
// views into the block heap (one pass builds the views; no byte is copied).
// They stay valid while the returned pin is held; the scan operator stores
// the pin in the ChunkBlock it emits. The Table itself must outlive the query
// (a snapshot's tables do).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "olap/common/data_chunk.h"
#include "storage/table/cell.h"
#include "storage/table/schema.h"
#include "storage/value/value.h"

namespace forktail {

class Table;
struct IndexRange;

namespace physical {

std::vector<Type> ColumnTypes(const Table& table);
size_t BlockCount(const Table& table);

// Pins block `block_no` of `table` and appends one chunk per kVectorSize rows
// of the block to *out, with vectors for `columns` (table column numbers, in
// that order) and a selection of the rows not deleted (no selection when no
// row of the slice is deleted; slices without live rows are skipped).
// Returns the pin (nullptr when the block has no live row, or none that
// `frozen`'s string predicates keep).
// With `slots` (ascending slot numbers), only those rows are selected.
//
// A frozen block (storage/table/block.h) is decoded, not wrapped; `frozen`
// says how (a plain block's columns are always all wrapped).

// When a frozen block's scan decodes a read column.
enum class ColumnDecode : uint8_t {
  kFirst,     // at once: the filters read it
  kDeferred,  // after the filters, for the rows they keep (DecodeDeferred)
  kNever,     // not at all: nothing after the filters reads it (the chunk's vector stays empty)
};
// Integer-like conjuncts of a scan's filter, evaluated on a frozen block's
// packed values before any column is decoded.
struct PackedPredicate {
  uint32_t column;  // into `columns`
  // The values kept (of the column's type, as a stripe cell holds them):
  // [lo, hi], none when lo > hi; with not_equal, every value but lo.
  int64_t lo = 0;
  int64_t hi = 0;
  bool not_equal = false;
};
// Conjuncts that each read one string column. A frozen block whose column
// is dictionary-encoded evaluates such a conjunct once per distinct string,
// then keeps the rows by code (a block where no string passes is skipped
// whole). One whose column is FSST-compressed evaluates `column [NOT] LIKE
// '%a%b%'` on the codes.
struct ContainsPattern {
  std::vector<std::string> literals;
  bool negated = false;  // NOT LIKE
};
struct StringPredicates {
  const std::vector<uint32_t>* columns = nullptr;  // per conjunct: its column, into `columns`
  // Per conjunct: its pattern when it is `column [NOT] LIKE '%a%b%'`.
  const std::vector<std::optional<ContainsPattern>>* contains = nullptr;
  // Conjunct i on `strings`, a chunk whose column (*columns)[i] holds a
  // dictionary's strings and NULL as its last row (the other columns are
  // empty): the rows where it is TRUE into sel, returning how many. A
  // DbError it throws (a string no live row may hold) leaves the block's
  // rows to the filter.
  std::function<uint32_t(size_t i, const DataChunk& strings, uint32_t* sel)> select;
};
// How a scan reads frozen blocks. The predicates narrow a block's chunks
// before any column is decoded; they must be conjuncts of the scan's
// filter, which still runs on what they keep unless they decided it.
struct FrozenScan {
  // Per entry of `columns`; null: every column kFirst.
  const std::vector<ColumnDecode>* decode = nullptr;
  // Instead of `decode` on a block whose predicates all decided their
  // conjuncts (the filter that runs after them reads fewer columns).
  const std::vector<ColumnDecode>* decided_decode = nullptr;
  const std::vector<PackedPredicate>* predicates = nullptr;
  const StringPredicates* strings = nullptr;

  // Filled by WrapTableBlock for a frozen block: each chunk's first row,
  // and whether every packed and string predicate was evaluated exactly
  // on the block (its columns are encoded so), so that the filter need not
  // run them again on what they keep.
  std::vector<uint32_t> firsts;
  bool decided = false;
  // The decode plan the block's chunks follow (for DecodeDeferred); null
  // for a plain block.
  const std::vector<ColumnDecode>* plan = nullptr;
};
std::shared_ptr<const void> WrapTableBlock(const Table& table, uint32_t block_no,
                                           const std::vector<uint32_t>& columns,
                                           std::vector<DataChunk>* out,
                                           const std::vector<uint32_t>* slots = nullptr,
                                           FrozenScan* frozen = nullptr);
// Fills the kDeferred columns of `plan` in a chunk WrapTableBlock made from
// the frozen block `pin` holds, whose first row is `first`: only the
// selected rows.
void DecodeDeferred(const std::shared_ptr<const void>& pin, const std::vector<uint32_t>& columns,
                    const std::vector<ColumnDecode>& plan, uint32_t first, DataChunk* chunk);
// A pin of the same block without the frozen columns WrapTableBlock decoded
// (the pin itself when the block is plain): for chunks that no longer point
// into them, only into the block (strings of a frozen block are views into
// its dictionaries).
std::shared_ptr<const void> WithoutDecoded(const std::shared_ptr<const void>& pin);

// Table::ProbeIndex grouped for a scan: block number -> ascending slots of
// the rows found; nullopt when the probe finds more than `limit` rows.
std::optional<std::map<uint32_t, std::vector<uint32_t>>> ProbeIndexByBlock(const Table& table,
                                                                           const IndexRange& range,
                                                                           size_t limit);
// The live rows among those `by_block` names, their `columns`, copied into
// one chunk (at most kVectorSize rows): a probe's few rows are scattered over
// many blocks, and one chunk is far cheaper downstream than a chunk per block.
DataChunk GatherTableRows(const Table& table,
                          const std::map<uint32_t, std::vector<uint32_t>>& by_block,
                          const std::vector<uint32_t>& columns);
// Live rows of the table (statistics), to size an index probe against a scan.
uint64_t LiveRowCount(const Table& table);

// Helpers for tests and benchmarks, which cannot include storage/table/table.h next
// to the scheduler either.
std::shared_ptr<Table> CreateTable(TableSchema schema, uint32_t max_rows_per_block = 0);
void InsertRows(Table& table, const std::vector<Row>& rows);
// Deletes every live row for which pred(row) is true; returns how many.
size_t DeleteRows(Table& table, const std::function<bool(const Row&)>& pred);
// The live rows in block/slot order, read row by row with Table::Read.
std::vector<Row> ReadLiveRows(const Table& table);
// True if p points into one of the table's blocks (tests check zero-copy).
bool PointsIntoTable(const Table& table, const void* p);

}  // namespace physical
}  // namespace forktail
