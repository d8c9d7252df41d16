// Table's ordered indexes (the secondary ones and the primary key's):
// building, dropping, maintenance and lookups (see table.h and
// ordered_index.h). Every write path keeps them exact: Insert and
// InsertAt (FinishInsert), Update and RedoUpdate (table_mutation.cc), Delete,
// and the undo primitives; RebuildIndex rebuilds them after a load, so
// checkpoint images need not carry them.
#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "storage/error.h"
#include "storage/table/table.h"

namespace forktail {

OrderedIndex Table::MakeIndex(const std::vector<ColumnId>& columns) const {
  std::vector<Type> types;
  for (ColumnId c : columns) types.push_back(schema_.column(c).type);
  return OrderedIndex(types);
}

Table::IndexKeys Table::IndexKeysOf(const Row& row) const {
  IndexKeys keys;
  keys.reserve(secondary_.size());
  std::vector<Value> values;
  for (size_t i = 0; i < secondary_.size(); i++) {
    values.clear();
    for (ColumnId c : IndexColumns(i)) values.push_back(row[c.value()]);
    keys.push_back(secondary_[i].EncodeKey(values));
  }
  return keys;
}

Table::IndexKeys Table::StoredIndexKeys(TupleId tid) const {
  BlockRef block = directory_.Pin(tid.block);
  IndexKeys keys;
  keys.reserve(secondary_.size());
  std::vector<Value> values;
  for (size_t i = 0; i < secondary_.size(); i++) {
    values.clear();
    for (ColumnId c : IndexColumns(i)) values.push_back(block->GetCell(c, tid.slot));
    keys.push_back(secondary_[i].EncodeKey(values));
  }
  return keys;
}

void Table::CheckUniqueIndexes(const IndexKeys& keys, const Row& row, TupleId self,
                               const std::vector<bool>* only_changed) const {
  // The primary key's ordered index is not checked: its hash index is.
  for (size_t i = 0; i < schema_.indexes.size(); i++) {
    if (!schema_.indexes[i].unique) continue;
    if (only_changed != nullptr && !(*only_changed)[i]) continue;
    if (secondary_[i].FindOther(keys[i], self)) {
      std::vector<Value> values;
      for (ColumnId c : schema_.indexes[i].columns) values.push_back(row[c.value()]);
      throw DbError(
          sqlstate::kUniqueViolation,
          fmt::format("duplicate key value violates unique constraint \"{}\"\nDETAIL:  "
                      "Key {} already exists.",
                      schema_.indexes[i].name, KeyText(schema_.indexes[i].columns, values)))
          .WithObject(schema_.name, schema_.indexes[i].name);
    }
  }
}

void Table::IndexRow(const IndexKeys& keys, TupleId tid) {
  for (size_t i = 0; i < keys.size(); i++) secondary_[i].Insert(keys[i], tid);
}

void Table::UnindexRow(const IndexKeys& keys, TupleId tid) {
  for (size_t i = 0; i < keys.size(); i++) secondary_[i].Erase(keys[i], tid);
}

void Table::IndexRows(const BlockRef& block, const BlockReadView& view) {
  // One index at a time, the cells read from the pinned block and encoded
  // into one buffer: a restart indexes every row this way.
  std::vector<Value> values;
  std::string entry;
  for (size_t i = 0; i < secondary_.size(); i++) {
    const std::vector<ColumnId>& columns = IndexColumns(i);
    for (uint32_t r = 0; r < view.row_count(); r++) {
      if (view.is_deleted(r)) continue;
      const TupleId tid{block->block_no(), SlotNo(r)};
      values.clear();
      for (ColumnId c : columns) values.push_back(block->GetCell(c, tid.slot));
      secondary_[i].InsertRow(values, tid, &entry);
    }
  }
}

void Table::RebuildSecondaryIndexes() {
  if (secondary_.empty()) return;
  for (OrderedIndex& index : secondary_) index.Clear();
  ForEachBlock([&](const BlockRef& block, const BlockReadView& view) { IndexRows(block, view); });
}

void Table::AddIndex(IndexDef def) {
  OrderedIndex built = MakeIndex(def.columns);
  std::optional<std::vector<Value>> duplicate;
  std::vector<Value> values;
  ForEachBlock([&](const BlockRef& block, const BlockReadView& view) {
    for (uint32_t r = 0; r < view.row_count() && !duplicate; r++) {
      if (view.is_deleted(r)) continue;
      TupleId tid{block->block_no(), SlotNo(r)};
      values.clear();
      for (ColumnId c : def.columns) values.push_back(block->GetCell(c, tid.slot));
      OrderedIndex::Key key = built.EncodeKey(values);
      if (def.unique && built.FindOther(key, tid)) {
        duplicate = values;
      } else {
        built.Insert(key, tid);
      }
    }
  });
  if (duplicate) {
    // PostgreSQL's DETAIL line travels in the message, as COPY's CONTEXT does.
    throw DbError(
        sqlstate::kUniqueViolation,
        fmt::format("could not create unique index \"{}\"\nDETAIL:  Key {} is duplicated.",
                    def.name, KeyText(def.columns, *duplicate)));
  }
  // Before the primary key's ordered index, which stays last.
  secondary_.insert(secondary_.begin() + static_cast<std::ptrdiff_t>(schema_.indexes.size()),
                    std::move(built));
  schema_.indexes.push_back(std::move(def));
}

IndexDef Table::DropIndex(size_t position) {
  IndexDef def = std::move(schema_.indexes.at(position));
  schema_.indexes.erase(schema_.indexes.begin() + static_cast<std::ptrdiff_t>(position));
  secondary_.erase(secondary_.begin() + static_cast<std::ptrdiff_t>(position));
  return def;
}

void Table::RestoreIndex(size_t position, IndexDef def) {
  OrderedIndex index = MakeIndex(def.columns);
  schema_.indexes.insert(schema_.indexes.begin() + static_cast<std::ptrdiff_t>(position),
                         std::move(def));
  secondary_.insert(secondary_.begin() + static_cast<std::ptrdiff_t>(position), std::move(index));
  // Rebuilding all is simplest and runs only when a DROP INDEX is rolled back.
  RebuildSecondaryIndexes();
}

int64_t Table::identity_value(ColumnId column) const {
  auto it = identity_values_.find(column.value());
  return it == identity_values_.end() ? 0 : it->second;
}

void Table::SetIdentityValue(ColumnId column, int64_t value) {
  identity_values_[column.value()] = value;
}

std::optional<std::vector<TupleId>> Table::ProbeIndex(const IndexRange& range, size_t limit) const {
  if (!range.any_of.empty()) {
    std::vector<TupleId> all;
    for (const IndexRange& branch : range.any_of) {
      std::optional<std::vector<TupleId>> found = ProbeIndex(branch, limit);
      if (!found) return std::nullopt;
      all.insert(all.end(), found->begin(), found->end());
      if (all.size() > 2 * limit + 16) {  // duplicates aside, past the limit
        std::sort(all.begin(), all.end());
        all.erase(std::unique(all.begin(), all.end()), all.end());
        if (all.size() > limit) return std::nullopt;
      }
    }
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    if (all.size() > limit) return std::nullopt;
    return all;
  }
  if (range.index == IndexRange::kPrimaryKey) {
    std::optional<TupleId> tid = LookupKey(range.equal);
    if (tid) {
      if (limit == 0) return std::nullopt;
      return std::vector<TupleId>{*tid};
    }
    return std::vector<TupleId>{};
  }
  if (range.index == IndexRange::kPrimaryKeyOrder) {
    const OrderedIndex* order = key_order_index();
    if (order == nullptr) throw std::logic_error("ProbeIndex: the table has no primary key");
    return order->Probe(range, limit);
  }
  return secondary_.at(static_cast<size_t>(range.index)).Probe(range, limit);
}

}  // namespace forktail
