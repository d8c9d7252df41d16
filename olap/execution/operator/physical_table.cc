// Storage-facing half of the physical layer (see physical_table.h for why it
// is a separate translation unit). Includes storage/table/table.h and must never
// include a scheduler header.
#include "olap/execution/operator/physical_table.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <optional>

#include "storage/error.h"
#include "storage/table/fsst.h"
#include "storage/table/table.h"

namespace forktail::physical {

std::vector<Type> ColumnTypes(const Table& table) {
  std::vector<Type> types;
  for (const ColumnDef& c : table.schema().columns) types.push_back(c.type);
  return types;
}

size_t BlockCount(const Table& table) { return table.block_count(); }

namespace {

// What a scan's chunks of one block point into, kept alive with them: the
// pinned block, and for a frozen block the fixed-width columns decoded into
// one buffer, each a stripe of the block's rows (vectors wrap slices of it,
// as they wrap a plain block's stripes).
struct ScanPin {
  std::shared_ptr<const BlockRef> ref;  // shared with WithoutDecoded's pin
  std::unique_ptr<uint64_t[]> decoded;
  std::vector<size_t> stripe_at;  // per read column: its stripe's offset in `decoded` (bytes)
};

// The block pinned for a scan's chunks. A block the scan had to load (it was
// not in memory: buffer pool) goes again once the last chunk lets go of it,
// if memory is over the budget: a scan of a table larger than the budget
// stays within it (a snapshot process's own memory too).
std::shared_ptr<const BlockRef> PinForScan(const Table& table, BlockNo no) {
  const bool loaded = !table.directory().resident(no);
  auto* ref = new BlockRef(table.PinBlock(no));
  if (!loaded) return std::shared_ptr<const BlockRef>(ref);
  return std::shared_ptr<const BlockRef>(ref, [&table, no](const BlockRef* r) {
    delete r;  // unpins
    if (table.OverBlockBudget()) table.directory().EvictIfClean(no);
  });
}

bool FrozenStripe(const Block& block, ColumnId c) {
  return !block.layout().column(c).type.StoredAsString();
}

// A frozen block's column `c` for rows [first, first + count) as a vector:
// fixed-width values wrapped in the pin's buffer, strings as views.
void DecodeFrozen(const ScanPin& pin, size_t i, ColumnId c, uint32_t first, uint32_t count,
                  const Rows* rows, Vector* v) {
  const Block& block = **pin.ref;
  const Type& type = block.layout().column(c).type;
  const uint64_t* nulls = block.FrozenNullBitmap(c);
  const uint32_t* sel = rows != nullptr ? rows->sel : nullptr;
  const uint32_t n = rows != nullptr ? rows->count : count;
  if (FrozenStripe(block, c)) {
    auto* stripe = reinterpret_cast<uint8_t*>(pin.decoded.get()) + pin.stripe_at[i];
    const uint32_t width = block.layout().column(c).width;
    block.DecodeColumn(c, first, count, stripe + uint64_t{first} * width, sel, n);
    v->WrapStripe(type, stripe, nulls, first, count);
    return;
  }
  v->Reset(type);
  // Compressed strings are decoded into the vector's arena, which lives as
  // long as the vector and whatever shares its strings.
  const StringSpace space = [v](size_t bytes) { return v->arena()->Allocate(bytes); };
  block.DecodeColumn(c, first, count, v->mutable_data<uint8_t>(), sel, n, &space);
  if (nulls != nullptr) {
    uint64_t* out = v->mutable_nulls();
    std::memcpy(out, nulls + first / 64, (count + 63) / 64 * sizeof(uint64_t));
  }
}

// A string predicate evaluated on one frozen block's dictionary.
struct CodeFilter {
  ColumnId column;
  std::vector<uint64_t> codes;  // a bit per dictionary string: the conjunct is TRUE for it
  bool keep_null = false;
};
// A LIKE '%a%b%' evaluated on one frozen block's FSST codes.
struct ContainsFilter {
  ColumnId column;
  std::unique_ptr<fsst::ContainsMatcher> matcher;
  bool negated = false;
};
struct StringFilters {
  std::vector<CodeFilter> codes;
  std::vector<ContainsFilter> contains;
  bool empty() const { return codes.empty() && contains.empty(); }
};

// The filters of string `predicates` for a frozen block, into *out; false
// when one keeps no string, so that no row of the block passes. Left out:
// predicates on columns encoded otherwise here, dictionary predicates that
// keep every string, and those that threw; *decided becomes false when one
// of them was not evaluated (encoded otherwise, or it threw).
bool BlockStringFilters(const Block& block, const std::vector<uint32_t>& columns,
                        const StringPredicates& predicates, StringFilters* out, bool* decided) {
  std::vector<std::string_view> strings;
  uint32_t sel[kVectorSize];
  for (size_t i = 0; i < predicates.columns->size(); i++) {
    const uint32_t column = (*predicates.columns)[i];
    const ColumnId id(static_cast<uint16_t>(columns[column]));
    if (!block.FrozenDictionary(id, &strings)) {
      const std::optional<ContainsPattern>* pattern =
          predicates.contains != nullptr ? &(*predicates.contains)[i] : nullptr;
      std::unique_ptr<fsst::ContainsMatcher> matcher;
      if (pattern != nullptr && pattern->has_value() &&
          fsst::ContainsMatcher::Supports((*pattern)->literals)) {
        matcher = block.FsstContains(id, (*pattern)->literals);
      }
      if (matcher == nullptr) {
        *decided = false;
      } else {
        out->contains.push_back({id, std::move(matcher), (*pattern)->negated});
      }
      continue;
    }
    CodeFilter filter{id, std::vector<uint64_t>(strings.size() / 64 + 1, 0)};
    const size_t entries = strings.size() + 1;  // NULL last
    size_t kept = 0;
    bool threw = false;
    for (size_t base = 0; base < entries && !threw; base += kVectorSize) {
      const auto n = static_cast<uint32_t>(std::min<size_t>(kVectorSize, entries - base));
      DataChunk chunk;
      for (size_t c = 0; c < columns.size(); c++) {
        Vector v;
        if (c == column) {
          v.Reset(block.layout().column(id).type);
          auto* data = v.mutable_data<std::string_view>();
          for (uint32_t j = 0; j < n; j++) {
            if (base + j < strings.size()) {
              data[j] = strings[base + j];
            } else {
              v.SetNull(j, true);
            }
          }
        }
        chunk.AddColumn(std::move(v));
      }
      chunk.set_size(n);
      uint32_t m = 0;
      try {
        m = predicates.select(i, chunk, sel);
      } catch (const DbError&) {
        threw = true;
      }
      for (uint32_t k = 0; k < m && !threw; k++) {
        const size_t e = base + sel[k];
        if (e == strings.size()) {
          filter.keep_null = true;
        } else {
          filter.codes[e / 64] |= uint64_t{1} << (e % 64);
        }
      }
      kept += m;
    }
    *decided &= !threw;
    if (threw || kept == entries) continue;
    if (kept == 0) return false;
    out->codes.push_back(std::move(filter));
  }
  return true;
}

}  // namespace

std::shared_ptr<const void> WrapTableBlock(const Table& table, uint32_t block_no,
                                           const std::vector<uint32_t>& columns,
                                           std::vector<DataChunk>* out,
                                           const std::vector<uint32_t>* slots, FrozenScan* scan) {
  auto pin = std::make_shared<ScanPin>();
  pin->ref = PinForScan(table, BlockNo(block_no));
  const Block& block = **pin->ref;
  if (block.live_count() == 0) return nullptr;
  const BlockLayout& layout = block.layout();
  const uint32_t rows = block.row_count();
  const bool frozen = block.frozen();
  const std::vector<PackedPredicate>* predicates = nullptr;
  const std::vector<ColumnDecode>* plan = nullptr;
  StringFilters string_filters;
  if (frozen && scan != nullptr) {
    bool decided = true;
    if (scan->strings != nullptr &&
        !BlockStringFilters(block, columns, *scan->strings, &string_filters, &decided)) {
      return nullptr;
    }
    predicates = scan->predicates;
    if (predicates != nullptr) {
      for (const PackedPredicate& p : *predicates) {
        decided &= block.ComparesEncoded(ColumnId(static_cast<uint16_t>(columns[p.column])));
      }
    }
    scan->decided = decided;
    plan = decided && scan->decided_decode != nullptr ? scan->decided_decode : scan->decode;
    scan->plan = plan;
  }
  const bool narrow =
      frozen && ((predicates != nullptr && !predicates->empty()) || !string_filters.empty());
  std::optional<BlockReadView> view;
  if (frozen) {
    size_t bytes = 0;
    for (uint32_t c : columns) {
      const ColumnId id(static_cast<uint16_t>(c));
      pin->stripe_at.push_back(bytes);
      if (FrozenStripe(block, id))
        bytes += (uint64_t{rows} * layout.column(id).width + 63) / 64 * 64;
    }
    pin->decoded.reset(new uint64_t[bytes / 8 + 1]);
  } else {
    view = block.View();
  }
  // String refs are offsets from the block's first byte, where the header sits.
  const auto* base = reinterpret_cast<const char*>(&block.header());
  const uint64_t* deleted = reinterpret_cast<const uint64_t*>(base + layout.delete_offset());
  size_t next_slot = 0;  // into *slots
  uint32_t sel[kVectorSize];
  for (uint32_t first = 0; first < rows; first += kVectorSize) {
    const uint32_t count = std::min(kVectorSize, rows - first);
    // The rows to read: the given slots, else those not deleted (no
    // selection when every row is live), narrowed by the packed predicates.
    bool has_sel = false;
    uint32_t n = 0;
    if (slots != nullptr) {
      while (next_slot < slots->size() && (*slots)[next_slot] < first) next_slot++;
      for (; next_slot < slots->size() && (*slots)[next_slot] < first + count; next_slot++) {
        uint32_t slot = (*slots)[next_slot];
        if (!TestBit(deleted, slot)) sel[n++] = slot - first;
      }
      has_sel = true;
    } else {
      bool any_deleted = false;  // word at a time; most words are 0
      for (uint32_t w = first / 64; w < (first + count + 63) / 64; ++w)
        any_deleted |= deleted[w] != 0;
      if (any_deleted) {
        for (uint32_t i = 0; i < count; ++i) {
          sel[n] = i;
          n += !TestBit(deleted, first + i);
        }
        has_sel = true;
      }
    }
    if (narrow) {
      if (!has_sel) {
        for (uint32_t i = 0; i < count; ++i) sel[i] = i;
        n = count;
        has_sel = true;
      }
      if (predicates != nullptr) {
        for (const PackedPredicate& p : *predicates) {
          if (n == 0) break;
          const ColumnId id(static_cast<uint16_t>(columns[p.column]));
          n = p.not_equal ? block.SelectWhere(id, CellCompare::kNe, p.lo, first, count, sel, n, sel)
                          : block.SelectBetween(id, p.lo, p.hi, first, count, sel, n, sel);
        }
      }
      for (const CodeFilter& f : string_filters.codes) {
        if (n == 0) break;
        n = block.SelectCodes(f.column, f.codes.data(), f.keep_null, first, count, sel, n, sel);
      }
      for (const ContainsFilter& f : string_filters.contains) {
        if (n == 0) break;
        n = block.SelectContaining(f.column, *f.matcher, f.negated, first, sel, n, sel);
      }
    }
    if (has_sel && n == 0) continue;
    const Rows selected{has_sel ? sel : nullptr, has_sel ? n : count};
    DataChunk chunk;
    for (size_t i = 0; i < columns.size(); i++) {
      const ColumnId id(static_cast<uint16_t>(columns[i]));
      const ColumnLayout& col = layout.column(id);
      Vector v;
      if (frozen && plan != nullptr && (*plan)[i] != ColumnDecode::kFirst) {
        // DecodeDeferred fills it once the filters ran, or nothing reads it.
      } else if (frozen) {
        DecodeFrozen(*pin, i, id, first, count, &selected, &v);
      } else if (col.type.StoredAsString()) {
        v.WrapStringRefs(col.type, view->stripe<StringRef>(id), base, view->null_bitmap(id), first,
                         count);
      } else {
        v.WrapStripe(col.type, view->stripe<uint8_t>(id), view->null_bitmap(id), first, count);
      }
      chunk.AddColumn(std::move(v));
    }
    chunk.set_size(count);
    if (has_sel) chunk.SetSelection(sel, n);
    out->push_back(std::move(chunk));
    if (frozen && scan != nullptr) scan->firsts.push_back(first);
  }
  return pin;
}

void DecodeDeferred(const std::shared_ptr<const void>& pin, const std::vector<uint32_t>& columns,
                    const std::vector<ColumnDecode>& plan, uint32_t first, DataChunk* chunk) {
  const auto& scan = *static_cast<const ScanPin*>(pin.get());
  assert((*scan.ref)->frozen());
  const Rows rows = chunk->rows();  // sel null: every row
  for (size_t i = 0; i < columns.size(); i++) {
    if (plan[i] != ColumnDecode::kDeferred) continue;
    DecodeFrozen(scan, i, ColumnId(static_cast<uint16_t>(columns[i])), first, chunk->size(), &rows,
                 &chunk->column(i));
  }
}

std::shared_ptr<const void> WithoutDecoded(const std::shared_ptr<const void>& pin) {
  const auto& scan = *static_cast<const ScanPin*>(pin.get());
  if (scan.decoded == nullptr) return pin;
  auto block_only = std::make_shared<ScanPin>();
  block_only->ref = scan.ref;
  return block_only;
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
