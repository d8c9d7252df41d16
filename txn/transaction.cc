// Transaction: changes applied in place, with undo entries and buffered redo
// records (see include/forktail/transaction.h).
#include "forktail/transaction.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstdlib>

#include "recovery/redo_codec.h"
#include "recovery/wal/wal_format.h"

namespace forktail {

Table& Transaction::Writable(std::string_view name) const {
  Table* t = catalog_->FindTable(name);
  if (t == nullptr || dropped_.count(t->id())) {
    throw DbError(sqlstate::kUndefinedTable, fmt::format("relation \"{}\" does not exist", name));
  }
  return *t;
}

const Table& Transaction::GetTable(std::string_view name) const { return Writable(name); }

void Transaction::CheckLive(const Table& t, TupleId tid) const {
  if (!t.IsLive(tid)) {
    throw DbError(
        sqlstate::kInvalidParameterValue,
        fmt::format("row {} of table \"{}\" does not exist", tid.ToString(), t.schema().name));
  }
}

TupleId Transaction::Insert(std::string_view table, const Row& row) {
  Table& t = Writable(table);
  const bool checked = !t.schema().foreign_keys.empty();
  const size_t undo_mark = undo_.size(), redo_mark = redo_.size();
  if (checked && statement_depth_ == 0) undo_floor_ = undo_mark;
  TupleId tid = t.Insert(row);  // checks everything before changing anything
  redo_.push_back({wal::RecordType::kInsert, redo::EncodeInsert(t.id(), tid, row)});
  // Consecutive inserts into one block share one undo entry: slots tid ..
  // new_tid (a bulk load keeps a few entries per block, not one per row).
  Undo* last = undo_.size() > undo_floor_ ? &undo_.back() : nullptr;
  if (last != nullptr && last->kind == UndoKind::kInsert && last->table == t.id() &&
      last->new_tid.block == tid.block && last->new_tid.slot.value() + 1 == tid.slot.value()) {
    last->new_tid = tid;
  } else {
    undo_.push_back({UndoKind::kInsert, t.id(), tid, tid, {}});
  }
  if (checked) {
    NoteInsert(t, tid);
    FinishWrite(undo_mark, redo_mark);
  }
  return tid;
}

std::optional<TupleId> Transaction::Find(std::string_view table, const Key& key) const {
  return Writable(table).LookupKey(key);
}

std::optional<Row> Transaction::Get(std::string_view table, const Key& key) const {
  const Table& t = Writable(table);
  std::optional<TupleId> tid = t.LookupKey(key);
  if (!tid) return std::nullopt;
  return t.Read(*tid);
}

std::optional<Row> Transaction::Read(std::string_view table, TupleId tid) const {
  return Writable(table).Read(tid);
}

Table::ColumnUpdates Transaction::Resolve(const Table& t, const NamedUpdates& updates) const {
  Table::ColumnUpdates out;
  for (const auto& [name, value] : updates) {
    std::optional<ColumnId> c = t.schema().FindColumn(name);
    if (!c) {
      throw DbError(
          sqlstate::kUndefinedColumn,
          fmt::format("column \"{}\" of relation \"{}\" does not exist", name, t.schema().name));
    }
    out.emplace_back(*c, value);
  }
  return out;
}

TupleId Transaction::Update(std::string_view table, TupleId tid,
                            const Table::ColumnUpdates& updates) {
  Table& t = Writable(table);
  CheckLive(t, tid);
  Table::ColumnUpdates old_values;
  for (const auto& [c, v] : updates) {
    if (c.value() >= t.schema().column_count()) {
      throw DbError(
          sqlstate::kUndefinedColumn,
          fmt::format("column {} of relation \"{}\" does not exist", c.value(), t.schema().name));
    }
    old_values.emplace_back(c, *t.ReadColumn(tid, c));
  }
  const bool checked = InForeignKey(t);
  std::optional<Row> before;
  if (checked) before = t.Read(tid);
  const size_t undo_mark = undo_.size(), redo_mark = redo_.size();
  TupleId new_tid = t.Update(tid, updates);
  undo_.push_back({new_tid == tid ? UndoKind::kUpdateInPlace : UndoKind::kUpdateMoved, t.id(), tid,
                   new_tid, std::move(old_values)});
  redo_.push_back({wal::RecordType::kUpdate, redo::EncodeUpdate(t.id(), tid, new_tid, updates)});
  if (checked) {
    NoteUpdate(t, *before, new_tid);
    FinishWrite(undo_mark, redo_mark);
  }
  return new_tid;
}

TupleId Transaction::Update(std::string_view table, TupleId tid, const NamedUpdates& updates) {
  return Update(table, tid, Resolve(Writable(table), updates));
}

bool Transaction::UpdateByKey(std::string_view table, const Key& key, const NamedUpdates& updates) {
  std::optional<TupleId> tid = Find(table, key);
  if (!tid) return false;
  Update(table, *tid, updates);
  return true;
}

void Transaction::Delete(std::string_view table, TupleId tid) {
  Table& t = Writable(table);
  CheckLive(t, tid);
  const bool referenced = !t.referenced_by().empty();
  std::optional<Row> before;
  if (referenced) before = t.Read(tid);
  const size_t undo_mark = undo_.size(), redo_mark = redo_.size();
  DeleteRow(t, tid);
  if (referenced) {
    NoteDelete(t, *before);
    FinishWrite(undo_mark, redo_mark);
  }
}

void Transaction::DeleteRow(Table& t, TupleId tid) {
  t.Delete(tid);
  undo_.push_back({UndoKind::kDelete, t.id(), tid, tid, {}});
  redo_.push_back({wal::RecordType::kDelete, redo::EncodeDelete(t.id(), tid)});
}

void Transaction::Truncate(std::string_view table) {
  Table& t = Writable(table);
  std::vector<TupleId> tids;
  Scan(table, [&](TupleId tid, const Row&) {
    tids.push_back(tid);
    return true;
  });
  for (TupleId tid : tids) DeleteRow(t, tid);
}

bool Transaction::DeleteByKey(std::string_view table, const Key& key) {
  std::optional<TupleId> tid = Find(table, key);
  if (!tid) return false;
  Delete(table, *tid);
  return true;
}

void Transaction::Scan(std::string_view table, const ScanFn& fn) const {
  const Table& t = Writable(table);
  // Bounds fixed at the start: rows the callback inserts are not visited.
  std::vector<uint32_t> rows(t.block_count());
  for (size_t b = 0; b < rows.size(); b++) {
    rows[b] = t.directory().row_count(BlockNo(static_cast<uint32_t>(b)));
  }
  for (size_t b = 0; b < rows.size(); b++) {
    for (uint32_t s = 0; s < rows[b]; s++) {
      TupleId tid{BlockNo(static_cast<uint32_t>(b)), SlotNo(s)};
      std::optional<Row> row = t.Read(tid);
      if (row && !fn(tid, *row)) return;
    }
  }
}

TableId Transaction::CreateTable(TableSchema schema, TableOptions options) {
  for (const ForeignKeyDef& fk : schema.foreign_keys) {
    if (fk.referenced_table != schema.name && LiveTable(fk.referenced_table) == nullptr) {
      throw DbError(sqlstate::kUndefinedTable,
                    fmt::format("relation \"{}\" does not exist", fk.referenced_table));
    }
  }
  Table& t = catalog_->CreateTable(schema, options);
  undo_.push_back({UndoKind::kCreateTable, t.id(), kInvalidTupleId, kInvalidTupleId, {}});
  redo_.push_back(
      {wal::RecordType::kCreateTable, redo::EncodeCreateTable(t.id(), options, t.schema())});
  return t.id();
}

void Transaction::DropTable(std::string_view name) {
  Table& t = Writable(name);
  // A foreign key of a table that stays would name a table that is gone.
  for (const ForeignKeyRef& ref : t.referenced_by()) {
    const Table* referencing = LiveTable(ref.table);
    if (referencing == nullptr || referencing == &t) continue;
    throw DbError(sqlstate::kDependentObjectsStillExist,
                  fmt::format("cannot drop table {} because other objects depend on it\nDETAIL:  "
                              "constraint {} on table {} depends on table {}",
                              name, referencing->schema().foreign_keys[ref.position].name,
                              referencing->schema().name, name))
        .WithHint("Use DROP ... CASCADE to drop the dependent objects too.");
  }
  dropped_.insert(t.id());
  catalog_->HideTable(t.id());  // its name is free for the rest of the transaction
  undo_.push_back({UndoKind::kDropTable, t.id(), kInvalidTupleId, kInvalidTupleId, {}});
  redo_.push_back({wal::RecordType::kDropTable, redo::EncodeDropTable(t.id())});
}

void Transaction::RewriteTable(std::string_view table, TableSchema schema,
                               const std::vector<ColumnSource>& sources) {
  Table& t = Writable(table);
  const TableId old_id = t.id();
  const uint32_t max_rows = t.options().max_rows_per_block;
  TableId new_id = catalog_->RewriteTable(old_id, std::move(schema), sources);  // or throws
  Undo undo{UndoKind::kRewriteTable, old_id, kInvalidTupleId, kInvalidTupleId, {}};
  undo.change().new_table = new_id;
  undo_.push_back(std::move(undo));
  const Table& fresh = catalog_->GetTable(new_id);
  redo_.push_back({wal::RecordType::kAlterTable,
                   redo::EncodeRewriteTable(old_id, new_id, max_rows, fresh.schema(), sources)});
}

void Transaction::ReplaceSchema(std::string_view table, TableSchema schema) {
  Table& t = Writable(table);
  auto before =
      std::make_shared<const TableSchema>(catalog_->ReplaceSchema(t.id(), std::move(schema)));
  Undo undo{UndoKind::kReplaceSchema, t.id(), kInvalidTupleId, kInvalidTupleId, {}};
  undo.change().schema_before = std::move(before);
  undo_.push_back(std::move(undo));
  redo_.push_back({wal::RecordType::kAlterTable,
                   redo::EncodeReplaceSchema(t.id(), catalog_->GetTable(t.id()).schema())});
}

void Transaction::AddPrimaryKey(std::string_view table, const std::vector<ColumnId>& key) {
  Table& t = Writable(table);
  std::vector<bool> not_null_before;
  for (const ColumnDef& c : t.schema().columns) not_null_before.push_back(c.not_null);
  catalog_->AddPrimaryKey(t.id(), key);  // checks everything before changing anything
  Undo undo{UndoKind::kAddPrimaryKey, t.id(), kInvalidTupleId, kInvalidTupleId, {}, {}};
  undo.change().not_null_before = std::move(not_null_before);
  undo_.push_back(std::move(undo));
  redo_.push_back({wal::RecordType::kCreateIndex, redo::EncodeAddPrimaryKey(t.id(), key)});
}

void Transaction::CreateIndex(std::string_view table, IndexDef index) {
  Table& t = Writable(table);
  IndexDef logged = index;
  catalog_->AddIndex(t.id(), std::move(index));  // checks everything before changing anything
  Undo undo{UndoKind::kCreateIndex, t.id(), kInvalidTupleId, kInvalidTupleId, {}, {}};
  undo.change().index_position = t.schema().indexes.size() - 1;
  undo_.push_back(std::move(undo));
  redo_.push_back(
      {wal::RecordType::kCreateSecondaryIndex, redo::EncodeCreateSecondaryIndex(t.id(), logged)});
}

void Transaction::DropIndex(std::string_view index_name) {
  std::optional<std::pair<TableId, size_t>> found = catalog_->FindIndex(index_name);
  if (!found || dropped_.count(found->first)) {
    throw DbError(sqlstate::kUndefinedObject,
                  "index \"" + std::string(index_name) + "\" does not exist");
  }
  auto [table, position] = *found;
  for (const ForeignKeyRef& ref : catalog_->ForeignKeysUsingIndex(table, position)) {
    const Table* referencing = LiveTable(ref.table);
    if (referencing == nullptr) continue;
    throw DbError(sqlstate::kDependentObjectsStillExist,
                  fmt::format("cannot drop index {} because other objects depend on it\nDETAIL:  "
                              "constraint {} on table {} depends on index {}",
                              index_name, referencing->schema().foreign_keys[ref.position].name,
                              referencing->schema().name, index_name))
        .WithHint("Use DROP ... CASCADE to drop the dependent objects too.");
  }
  Undo undo{UndoKind::kDropIndex, table, kInvalidTupleId, kInvalidTupleId, {}, {}};
  undo.change().index_position = position;
  undo.change().index = catalog_->DropIndex(table, position);
  undo_.push_back(std::move(undo));
  redo_.push_back({wal::RecordType::kDropIndex, redo::EncodeDropIndex(table, index_name)});
}

const Sequence& Transaction::GetSequence(TableId id) const {
  const Sequence* sequence = catalog_->GetSequence(id);
  if (sequence == nullptr) {
    throw DbError(sqlstate::kUndefinedTable,
                  fmt::format("sequence with OID {} does not exist", id.value()));
  }
  return *sequence;
}

TableId Transaction::CreateSequence(SequenceDef def, SequenceState state) {
  const TableId id = catalog_->CreateSequence(std::move(def), state);
  Undo undo{UndoKind::kCreateSequence, id, kInvalidTupleId, kInvalidTupleId, {}};
  undo_.push_back(std::move(undo));
  redo_.push_back({wal::RecordType::kCreateSequence, redo::EncodeSequence(GetSequence(id))});
  return id;
}

void Transaction::DropSequence(TableId id) {
  Undo undo{UndoKind::kDropSequence, id, kInvalidTupleId, kInvalidTupleId, {}};
  undo.change().sequence = std::make_shared<const Sequence>(catalog_->DropSequence(id));
  undo_.push_back(std::move(undo));
  redo_.push_back({wal::RecordType::kDropSequence, redo::EncodeDropTable(id)});
}

void Transaction::AlterSequence(TableId id, SequenceDef def, SequenceState state) {
  Undo undo{UndoKind::kAlterSequence, id, kInvalidTupleId, kInvalidTupleId, {}};
  undo.change().sequence =
      std::make_shared<const Sequence>(catalog_->ReplaceSequence(id, std::move(def), state));
  undo_.push_back(std::move(undo));
  redo_.push_back({wal::RecordType::kAlterSequence, redo::EncodeSequence(GetSequence(id))});
}

int64_t Transaction::NextVal(TableId id) {
  const Sequence& sequence = GetSequence(id);
  SequenceState state = sequence.state;
  const int64_t value = NextSequenceValue(sequence.def, &state);  // or throws 2200H
  Undo undo{UndoKind::kSequenceState, id, kInvalidTupleId, kInvalidTupleId, {}};
  undo.change().state_before = sequence.state;
  undo_.push_back(std::move(undo));
  catalog_->SetSequenceState(id, state);
  moved_sequences_.push_back(id);
  redo_.push_back({wal::RecordType::kSetSequence, redo::EncodeSetSequence(id, state)});
  return value;
}

void Transaction::SetVal(TableId id, int64_t value, bool is_called) {
  const Sequence& sequence = GetSequence(id);
  const SequenceState state = CheckedSequenceValue(sequence.def, value, is_called);
  Undo undo{UndoKind::kSequenceState, id, kInvalidTupleId, kInvalidTupleId, {}};
  undo.change().state_before = sequence.state;
  undo_.push_back(std::move(undo));
  catalog_->SetSequenceState(id, state);
  moved_sequences_.push_back(id);
  redo_.push_back({wal::RecordType::kSetSequence, redo::EncodeSetSequence(id, state)});
}

void Transaction::CreateView(ViewDef view) {
  std::string payload = redo::EncodeCreateView(view);
  Undo undo{UndoKind::kCreateView, TableId(0), kInvalidTupleId, kInvalidTupleId, {}, {}};
  undo.change().view.name = view.name;
  catalog_->CreateView(std::move(view));
  undo_.push_back(std::move(undo));
  redo_.push_back({wal::RecordType::kCreateView, std::move(payload)});
}

void Transaction::DropView(std::string_view name) {
  Undo undo{UndoKind::kDropView, TableId(0), kInvalidTupleId, kInvalidTupleId, {}, {}};
  undo.change().view = catalog_->DropView(name);
  undo_.push_back(std::move(undo));
  redo_.push_back({wal::RecordType::kDropView, redo::EncodeDropView(name)});
}

void Transaction::Abort(std::string reason) { throw TransactionAborted(std::move(reason)); }

void Transaction::Rollback() noexcept {
  UndoTo(0, 0);
  // Nothing of the transaction is logged but the states it left the
  // sequences it moved in (UndoTo's records are replaced by these): the
  // engine logs kept_redo on its own, so a value nextval handed out stays
  // used after a restart.
  redo_.clear();
  if (!discard_on_return_) {
    std::set<TableId> logged;
    for (TableId id : moved_sequences_) {
      const Sequence* sequence = catalog_->GetSequence(id);
      if (sequence == nullptr || !logged.insert(id).second) continue;
      kept_redo_.push_back(
          {wal::RecordType::kSetSequence, redo::EncodeSetSequence(id, sequence->state)});
    }
  }
  moved_sequences_.clear();
  output_.clear();
  dropped_.clear();
  fk_events_.clear();
  statement_depth_ = 0;
  hooks_ = nullptr;
  statement_undo_ = statement_redo_ = undo_floor_ = 0;
}

Transaction::Savepoint Transaction::SetSavepoint() {
  assert(statement_depth_ == 0);
  undo_floor_ = undo_.size();  // the next insert starts an entry of its own
  return {undo_.size(), redo_.size()};
}

void Transaction::RollbackToSavepoint(const Savepoint& savepoint) noexcept {
  assert(statement_depth_ == 0);
  UndoTo(savepoint.undo, savepoint.redo);
}

void Transaction::UndoTo(size_t undo_size, size_t redo_size) noexcept {
  std::vector<TableId> kept_sequences;  // moved by the undone part, and kept so
  try {
    while (undo_.size() > undo_size) {
      const Undo u = std::move(undo_.back());
      undo_.pop_back();
      switch (u.kind) {
        case UndoKind::kInsert: {
          Table& t = catalog_->GetTable(u.table);
          for (uint32_t s = u.new_tid.slot.value() + 1; s-- > u.tid.slot.value();) {
            t.RemoveInserted({u.tid.block, SlotNo(s)});
          }
          break;
        }
        case UndoKind::kUpdateInPlace: {
          TupleId back = catalog_->GetTable(u.table).Update(u.tid, u.old_values);
          if (back != u.tid) throw DbError(sqlstate::kInternalError, "undo of update moved a row");
          break;
        }
        case UndoKind::kUpdateMoved: {
          Table& t = catalog_->GetTable(u.table);
          t.RemoveInserted(u.new_tid);
          t.Undelete(u.tid);
          break;
        }
        case UndoKind::kDelete:
          catalog_->GetTable(u.table).Undelete(u.tid);
          break;
        case UndoKind::kCreateTable:
          catalog_->DropTable(catalog_->GetTable(u.table).schema().name);
          break;
        case UndoKind::kDropTable:
          dropped_.erase(u.table);
          catalog_->UnhideTable(u.table);
          break;
        case UndoKind::kAddPrimaryKey:
          catalog_->RemovePrimaryKey(u.table, u.schema_change->not_null_before);
          break;
        case UndoKind::kCreateIndex:
          catalog_->DropIndex(u.table, u.schema_change->index_position);
          break;
        case UndoKind::kDropIndex:
          catalog_->RestoreIndex(u.table, u.schema_change->index_position, u.schema_change->index);
          break;
        case UndoKind::kCreateView:
          catalog_->DropView(u.schema_change->view.name);
          break;
        case UndoKind::kDropView:
          catalog_->CreateView(u.schema_change->view);
          break;
        case UndoKind::kRewriteTable:
          catalog_->UndoRewrite(u.schema_change->new_table, u.table);
          break;
        case UndoKind::kReplaceSchema:
          catalog_->ReplaceSchema(u.table, *u.schema_change->schema_before);
          break;
        case UndoKind::kAddForeignKey:
          catalog_->DropForeignKey(u.table, u.schema_change->index_position);
          break;
        case UndoKind::kDropForeignKey:
          catalog_->RestoreForeignKey(u.table, u.schema_change->index_position,
                                      std::move(dropped_foreign_keys_.back()));
          dropped_foreign_keys_.pop_back();
          break;
        case UndoKind::kDropCheck:
          catalog_->RestoreCheck(u.table, u.schema_change->index_position,
                                 std::move(dropped_checks_.back()));
          dropped_checks_.pop_back();
          break;
        case UndoKind::kCreateSequence:
          catalog_->DropSequence(u.table);
          break;
        case UndoKind::kDropSequence:
          catalog_->RestoreSequence(*u.schema_change->sequence);
          break;
        case UndoKind::kAlterSequence:
          catalog_->ReplaceSequence(u.table, u.schema_change->sequence->def,
                                    u.schema_change->sequence->state);
          break;
        case UndoKind::kSequenceState:
          // A value handed out stays used when the transaction rolls back,
          // as in PostgreSQL. Only a dry run (an optimistic block's step,
          // run again at COMMIT) gives it back, so that the run at COMMIT
          // draws the same value.
          if (discard_on_return_) {
            catalog_->SetSequenceState(u.table, u.schema_change->state_before);
          } else {
            kept_sequences.push_back(u.table);
          }
          break;
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "forktail: FATAL: rollback of transaction %llu failed: %s\n",
                 static_cast<unsigned long long>(id_), e.what());
    std::abort();
  }
  redo_.resize(std::min(redo_.size(), redo_size));
  undo_floor_ = std::min(undo_floor_, undo_.size());
  // A value handed out stays used (PostgreSQL's nextval), also when a failed
  // statement is undone and its transaction goes on: the states the undo
  // left those sequences in (an ALTER SEQUENCE undone with them may have
  // moved them back) are logged again after the redo that is kept.
  std::set<TableId> logged;
  for (TableId id : kept_sequences) {
    const Sequence* sequence = catalog_->GetSequence(id);
    if (sequence == nullptr || !logged.insert(id).second) continue;
    redo_.push_back({wal::RecordType::kSetSequence, redo::EncodeSetSequence(id, sequence->state)});
  }
}

void Transaction::FinishCommit() {
  for (const Undo& u : undo_) {
    if (u.kind == UndoKind::kRewriteTable) catalog_->FinishRewrite(u.table);
  }
  for (TableId id : dropped_) catalog_->DropHidden(id);
  dropped_.clear();
  undo_.clear();
  dropped_foreign_keys_.clear();
  dropped_checks_.clear();
  moved_sequences_.clear();
  undo_floor_ = 0;
}

std::vector<TableId> Transaction::TablesChangedSince(size_t mark) const {
  std::vector<TableId> tables;
  auto note = [&](TableId id) {
    if (id.value() != 0 && std::find(tables.begin(), tables.end(), id) == tables.end()) {
      tables.push_back(id);
    }
  };
  for (size_t i = mark; i < undo_.size(); i++) {
    note(undo_[i].table);
    if (undo_[i].schema_change) note(undo_[i].schema_change->new_table);
  }
  return tables;
}

}  // namespace forktail
