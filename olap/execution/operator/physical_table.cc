// Storage-facing half of the physical layer (see physical_table.h for why it
// is a separate translation unit). Includes storage/table/table.h and must never
// include a scheduler header.
#include "olap/execution/operator/physical_table.h"

#include <algorithm>

#include "storage/table/table.h"

namespace forktail::physical {

std::vector<Type> ColumnTypes(const Table& table) {
  std::vector<Type> types;
  for (const ColumnDef& c : table.schema().columns) types.push_back(c.type);
  return types;
}

size_t BlockCount(const Table& table) { return table.block_count(); }

std::shared_ptr<const void> WrapTableBlock(const Table& table, uint32_t block_no,
                                           const std::vector<uint32_t>& columns,
                                           std::vector<DataChunk>* out,
                                           const std::vector<uint32_t>* slots) {
  auto pin = std::make_shared<BlockRef>(table.PinBlock(BlockNo(block_no)));
  const Block& block = **pin;
  if (block.live_count() == 0) return nullptr;
  const BlockReadView view = block.View();
  const BlockLayout& layout = table.layout();
  // String refs are offsets from the block's first byte, where the header sits.
  const auto* base = reinterpret_cast<const uint8_t*>(&block.header());
  const uint32_t rows = view.row_count();
  const uint64_t* deleted = view.delete_bitmap();
  size_t next_slot = 0;  // into *slots
  for (uint32_t first = 0; first < rows; first += kVectorSize) {
    const uint32_t count = std::min(kVectorSize, rows - first);
    if (slots != nullptr) {
      while (next_slot < slots->size() && (*slots)[next_slot] < first) next_slot++;
      if (next_slot == slots->size() || (*slots)[next_slot] >= first + count) continue;
    }
    DataChunk chunk;
    for (uint32_t c : columns) {
      const ColumnId id(static_cast<uint16_t>(c));
      const ColumnLayout& col = layout.column(id);
      Vector v;
      if (col.type.StoredAsString()) {
        v.WrapStringRefs(col.type, view.stripe<StringRef>(id), reinterpret_cast<const char*>(base),
                         view.null_bitmap(id), first, count);
      } else {
        v.WrapStripe(col.type, view.stripe<uint8_t>(id), view.null_bitmap(id), first, count);
      }
      chunk.AddColumn(std::move(v));
    }
    chunk.set_size(count);
    if (slots != nullptr) {
      uint32_t* sel = chunk.selection().data();
      uint32_t n = 0;
      for (; next_slot < slots->size() && (*slots)[next_slot] < first + count; next_slot++) {
        uint32_t slot = (*slots)[next_slot];
        if (!TestBit(deleted, slot)) sel[n++] = slot - first;
      }
      if (n == 0) continue;
      chunk.SetSelectionCount(n);
      out->push_back(std::move(chunk));
      continue;
    }
    // Deleted rows -> selection vector (word at a time; most words are 0).
    bool any_deleted = false;
    for (uint32_t w = first / 64; w < (first + count + 63) / 64; ++w)
      any_deleted |= deleted[w] != 0;
    if (any_deleted) {
      uint32_t* sel = chunk.selection().data();
      uint32_t n = 0;
      for (uint32_t i = 0; i < count; ++i) {
        sel[n] = i;
        n += !TestBit(deleted, first + i);
      }
      if (n == 0) continue;
      chunk.SetSelectionCount(n);
    }
    out->push_back(std::move(chunk));
  }
  return pin;
}

std::optional<std::map<uint32_t, std::vector<uint32_t>>> ProbeIndexByBlock(const Table& table,
                                                                           const IndexRange& range,
                                                                           size_t limit) {
  std::optional<std::vector<TupleId>> tids = table.ProbeIndex(range, limit);
  if (!tids) return std::nullopt;
  std::map<uint32_t, std::vector<uint32_t>> by_block;
  for (TupleId tid : *tids) by_block[tid.block.value()].push_back(tid.slot.value());
  for (auto& [block, slots] : by_block) std::sort(slots.begin(), slots.end());
  return by_block;
}

uint64_t LiveRowCount(const Table& table) { return table.live_row_count(); }

DataChunk GatherTableRows(const Table& table,
                          const std::map<uint32_t, std::vector<uint32_t>>& by_block,
                          const std::vector<uint32_t>& columns) {
  std::vector<Type> all = ColumnTypes(table), types;
  for (uint32_t c : columns) types.push_back(all[c]);
  DataChunk chunk(types);
  uint32_t n = 0;  // the caller keeps the rows within kVectorSize
  for (const auto& [block_no, slots] : by_block) {
    BlockRef block = table.PinBlock(BlockNo(block_no));
    for (uint32_t slot : slots) {
      if (block->IsDeleted(SlotNo(slot))) continue;
      for (size_t i = 0; i < columns.size(); i++) {
        SetVectorValue(chunk.column(i), n,
                       block->GetCell(ColumnId(static_cast<uint16_t>(columns[i])), SlotNo(slot)));
      }
      n++;
    }
  }
  chunk.set_size(n);
  return chunk;
}

std::shared_ptr<Table> CreateTable(TableSchema schema, uint32_t max_rows_per_block) {
  TableOptions options;
  options.max_rows_per_block = max_rows_per_block;
  return std::make_shared<Table>(TableId(1), std::move(schema), options);
}

void InsertRows(Table& table, const std::vector<Row>& rows) {
  for (const Row& r : rows) table.Insert(r);
}

size_t DeleteRows(Table& table, const std::function<bool(const Row&)>& pred) {
  std::vector<TupleId> doomed;
  for (size_t b = 0; b < table.block_count(); ++b) {
    uint32_t n = table.PinBlock(BlockNo(static_cast<uint32_t>(b)))->row_count();
    for (uint32_t s = 0; s < n; ++s) {
      TupleId tid{BlockNo(static_cast<uint32_t>(b)), SlotNo(s)};
      std::optional<Row> row = table.Read(tid);
      if (row && pred(*row)) doomed.push_back(tid);
    }
  }
  for (TupleId tid : doomed) table.Delete(tid);
  return doomed.size();
}

std::vector<Row> ReadLiveRows(const Table& table) {
  std::vector<Row> rows;
  table.ForEachBlock([&](const BlockRef& ref, const BlockReadView& view) {
    for (uint32_t s = 0; s < view.row_count(); ++s) {
      std::optional<Row> row = table.Read(TupleId{ref->block_no(), SlotNo(s)});
      if (row) rows.push_back(std::move(*row));
    }
  });
  return rows;
}

bool PointsIntoTable(const Table& table, const void* p) {
  const auto* q = static_cast<const uint8_t*>(p);
  for (size_t b = 0; b < table.block_count(); ++b) {
    BlockRef ref = table.PinBlock(BlockNo(static_cast<uint32_t>(b)));
    const auto* base = reinterpret_cast<const uint8_t*>(&ref->header());
    if (q >= base && q < base + kBlockSize) return true;
  }
  return false;
}

}  // namespace forktail::physical
