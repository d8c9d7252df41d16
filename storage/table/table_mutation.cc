// Table's in-place mutations and their exact inverses (see table.h).
#include <cassert>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "storage/error.h"
#include "storage/table/cell.h"
#include "storage/table/table.h"

namespace forktail {
namespace {

void RequireLive(const Table& table, TupleId tid, const char* op) {
  if (!table.IsLive(tid)) {
    std::fprintf(stderr, "forktail: %s of tuple %s that is not live\n", op, tid.ToString().c_str());
    std::abort();
  }
}

bool SameKey(const std::vector<Value>& a, const std::vector<Value>& b) {
  for (size_t i = 0; i < a.size(); i++) {
    if (CompareCell(a[i], b[i]) != 0) return false;
  }
  return true;
}

}  // namespace

TupleId Table::Update(TupleId tid, const ColumnUpdates& updates) {
  return UpdateImpl(tid, updates, nullptr);
}

void Table::RedoUpdate(TupleId tid, const ColumnUpdates& updates, TupleId result) {
  UpdateImpl(tid, updates, &result);
}

TupleId Table::UpdateImpl(TupleId tid, const ColumnUpdates& updates, const TupleId* redo_result) {
  RequireLive(*this, tid, "Update");
  // 1. Checks: casts, NOT NULL, key uniqueness, row size. Nothing changes yet.
  // new_row holds the updated columns' new values; the others are read in
  // (Materialize) only when the whole row is needed: a key or an indexed
  // column changes, or the row moves. Most updates, e.g. of a balance or a
  // stock count, need neither, and reading every column of a wide row
  // (strings included) cost them more than the update itself.
  Row new_row(schema_.column_count());
  std::vector<bool> touched(schema_.column_count(), false);
  bool key_touched = false;
  uint64_t new_string_bytes = 0;
  for (const auto& [c, v] : updates) {
    // Checked, not asserted: RedoUpdate's columns come from the log, and a
    // record past the CRC may still be wrong (found by fuzz/wal_log).
    if (c.value() >= schema_.column_count()) {
      throw DbError(sqlstate::kInternalError,
                    fmt::format("update of column {} of table \"{}\", which has {} columns",
                                c.value(), schema_.name, schema_.column_count()));
    }
    new_row[c.value()] = CastValue(c, v);
    touched[c.value()] = true;
    key_touched |= schema_.IsKeyColumn(c);
  }
  bool whole_row = false;
  auto materialize = [&] {
    if (whole_row) return;
    Row row = *Read(tid);
    for (size_t i = 0; i < touched.size(); i++) {
      if (touched[i]) row[i] = std::move(new_row[i]);
    }
    new_row = std::move(row);
    whole_row = true;
  };
  for (size_t i = 0; i < touched.size(); i++) {
    if (touched[i] && schema_.columns[i].type.StoredAsString() && !new_row[i].is_null()) {
      new_string_bytes += new_row[i].GetString().size();
    }
  }
  // The key index's hashes: of the stored key, and of the new one when the
  // update sets a key column (else the same; computed only if the row moves).
  uint64_t old_hash = 0, new_hash = 0;
  bool key_changed = false;
  if (has_key() && key_touched) {
    materialize();
    std::vector<Value> old_key = StoredKey(tid);
    std::vector<Value> new_key = KeyOf(new_row);
    old_hash = KeyHash(old_key);
    new_hash = KeyHash(new_key);
    key_changed = !SameKey(old_key, new_key);
    if (key_changed && FindKey(new_key, new_hash)) ThrowDuplicateKey(new_key);
  }
  // Ordered-index keys only when an update touches an indexed column (most
  // updates, e.g. of a balance, touch none).
  bool index_touched = false;
  for (size_t i = 0; i < secondary_.size() && !index_touched; i++) {
    for (ColumnId c : IndexColumns(i)) index_touched |= touched[c.value()];
  }
  IndexKeys old_index_keys, new_index_keys;
  std::vector<bool> index_changed(secondary_.size(), false);
  if (index_touched) {
    materialize();
    old_index_keys = StoredIndexKeys(tid);
    new_index_keys = IndexKeysOf(new_row);
    for (size_t i = 0; i < secondary_.size(); i++) {
      index_changed[i] = old_index_keys[i] != new_index_keys[i];
    }
    CheckUniqueIndexes(new_index_keys, new_row, tid, &index_changed);
  }
  // A frozen block takes no new value: the row moves (block.h), unless
  // replay repeats an update that stayed in place (the block was plain then).
  if (redo_result && *redo_result == tid && directory_.Pin(tid.block)->frozen()) {
    ThawBlock(tid.block);
  }
  BlockRef block = directory_.Pin(tid.block);
  const bool frozen = block->frozen();
  bool fits = !frozen && new_string_bytes <= block->heap_free();
  bool in_place = redo_result ? *redo_result == tid : fits;
  if (in_place && !fits) {
    if (new_string_bytes > block->HeapFreeAfterCompaction(tid.slot, touched)) {
      // Only reachable in redo: the logged update stayed in place here.
      assert(redo_result != nullptr);
      std::fprintf(stderr, "forktail: redo of the update of %s does not fit its block\n",
                   tid.ToString().c_str());
      std::abort();
    }
    block->CompactHeap(tid.slot, touched);
  } else if (!in_place && !redo_result && !frozen &&
             new_string_bytes <= block->HeapFreeAfterCompaction(tid.slot, touched)) {
    block->CompactHeap(tid.slot, touched);
    in_place = true;
  }
  if (!in_place) {
    materialize();
    CheckRowSize(StringBytes(new_row));
    if (has_key() && !key_touched && key_index_built_) new_hash = old_hash = StoredKeyHash(tid);
  }

  // 2. Changes.
  for (const auto& [c, v] : updates) stats_.OnUpdate(c, new_row[c.value()]);
  if (in_place) {
    if (key_changed && key_index_built_) index_.Erase(old_hash, tid);
    for (size_t i = 0; i < touched.size(); i++) {
      if (touched[i]) block->SetCell(ColumnId(static_cast<uint16_t>(i)), tid.slot, new_row[i]);
    }
    if (key_changed && key_index_built_) index_.Insert(new_hash, tid);
    for (size_t i = 0; i < secondary_.size(); i++) {
      if (!index_changed[i]) continue;
      secondary_[i].Erase(old_index_keys[i], tid);
      secondary_[i].Insert(new_index_keys[i], tid);
    }
    KeepKeyIndexRoom();
    return tid;
  }
  // Relocation: the old slot keeps the old values (undo: Undelete), the row
  // moves to the tail.
  if (has_key() && key_index_built_) index_.Erase(old_hash, tid);
  if (!index_touched && !secondary_.empty()) {
    old_index_keys = StoredIndexKeys(tid);
    new_index_keys = old_index_keys;
  }
  UnindexRow(old_index_keys, tid);
  block->SetDeleted(tid.slot, true);
  block = BlockRef();
  TupleId moved = redo_result ? *redo_result : AppendRow(new_row);
  if (redo_result) PlaceRow(moved, new_row);
  if (has_key() && key_index_built_) index_.Insert(new_hash, moved);
  IndexRow(new_index_keys, moved);
  KeepKeyIndexRoom();
  return moved;
}

void Table::Delete(TupleId tid) {
  RequireLive(*this, tid, "Delete");
  if (has_key() && key_index_built_) {
    bool erased = index_.Erase(StoredKeyHash(tid), tid);
    assert(erased);
    (void)erased;
  }
  if (!secondary_.empty()) UnindexRow(StoredIndexKeys(tid), tid);
  directory_.Pin(tid.block)->SetDeleted(tid.slot, true);
  stats_.OnDelete();
}

void Table::Undelete(TupleId tid) {
  assert(directory_.Contains(tid.block));
  {
    BlockRef block = directory_.Pin(tid.block);
    assert(tid.slot.value() < block->row_count() && block->IsDeleted(tid.slot));
    if (has_key()) {
      std::vector<Value> key = StoredKey(tid);
      uint64_t hash = KeyHash(key);
      // Undo runs in reverse order, so the key cannot be taken by now.
      assert(!FindKey(key, hash));
      if (key_index_built_) index_.Insert(hash, tid);
    }
    if (!secondary_.empty()) IndexRow(StoredIndexKeys(tid), tid);
    block->SetDeleted(tid.slot, false);
  }
  KeepKeyIndexRoom();
  stats_.OnUndelete();
}

void Table::RemoveInserted(TupleId tid) {
  assert(directory_.Contains(tid.block));
  BlockRef block = directory_.Pin(tid.block);
  assert(tid.slot.value() < block->row_count());
  if (!block->IsDeleted(tid.slot)) {
    if (has_key() && key_index_built_) index_.Erase(StoredKeyHash(tid), tid);
    if (!secondary_.empty()) UnindexRow(StoredIndexKeys(tid), tid);
    stats_.OnDelete();
  }
  bool newest =
      tid.block.value() + 1 == directory_.size() && tid.slot.value() + 1 == block->row_count();
  if (!newest) {
    block->SetDeleted(tid.slot, true);
    return;
  }
  block->TruncateLastSlot();
  bool now_empty = block->row_count() == 0 && tid.block.value() > 0;
  block = BlockRef();
  if (now_empty) directory_.RemoveLast();
}

}  // namespace forktail
