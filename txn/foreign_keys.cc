// Foreign keys on the transaction thread: what each write notes, how the
// notes are handled when the statement ends, and the foreign-key DDL
// (include/forktail/transaction.h explains the model).
//
// The notes are PostgreSQL's RI trigger events: one per row and constraint,
// in the order the rows were written; for one row the referenced side's
// ("RI_ConstraintTrigger_a_*") before the referencing side's ("_c_*"), as
// PostgreSQL fires triggers in name order. Like PostgreSQL, a check of a
// referencing row skips a row that is gone by then (a later version of it
// has its own note), an update notes only key changes, and NO ACTION lets a
// referenced key go when a row with that key exists again at the check.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "forktail/transaction.h"
#include "recovery/redo_codec.h"
#include "recovery/wal/wal_format.h"

namespace forktail {
namespace {

// `v` as a value of `type` that compares equal to it; nullopt if `type`
// cannot hold it (a bigint past int's range, 1.5 as an integer, a
// timestamp with a time of day as a date): then no row of that type equals
// it, as under PostgreSQL's cross-type equality.
std::optional<Value> Exactly(const Value& v, const Type& type) {
  if (v.type() == type) return v;
  try {
    Value cast = v.CastTo(type);
    if (cast.Compare(v) != 0) return std::nullopt;
    return cast;
  } catch (const DbError&) {
    return std::nullopt;
  }
}

std::vector<Value> ValuesOf(const Row& row, const std::vector<ColumnId>& columns) {
  std::vector<Value> out;
  out.reserve(columns.size());
  for (ColumnId c : columns) out.push_back(row[c.value()]);
  return out;
}

bool SameKey(const std::vector<Value>& a, const std::vector<Value>& b) {
  for (size_t i = 0; i < a.size(); i++) {
    if (a[i].is_null() != b[i].is_null()) return false;
    if (!a[i].is_null() && a[i].Compare(b[i]) != 0) return false;
  }
  return true;
}

bool AnyNull(const std::vector<Value>& key) {
  return std::any_of(key.begin(), key.end(), [](const Value& v) { return v.is_null(); });
}

// "Key (a, b)=(1, x)", as ri_ReportViolation shows a key.
std::string ShowKey(const TableSchema& schema, const std::vector<ColumnId>& columns,
                    const std::vector<Value>& key) {
  std::string names, values;
  for (size_t i = 0; i < columns.size(); i++) {
    names += (i ? ", " : "") + schema.column(columns[i]).name;
    values += (i ? ", " : "") + (key[i].is_null() ? std::string("null") : key[i].ToString());
  }
  return "Key (" + names + ")=(" + values + ")";
}

DbError ReferenceMissing(const TableSchema& referencing, const ForeignKeyDef& fk,
                         const std::string& detail) {
  return DbError(sqlstate::kForeignKeyViolation,
                 fmt::format("insert or update on table \"{}\" violates foreign key constraint "
                             "\"{}\"\nDETAIL:  {}",
                             referencing.name, fk.name, detail))
      .WithObject(referencing.name, fk.name);
}

// The referenced row with `key` (values of fk.referenced_columns, in that
// order), through the referenced table's primary key or unique index.
std::optional<TupleId> FindReferenced(const Table& referenced, const ForeignKeyDef& fk,
                                      const std::vector<Value>& key) {
  const TableSchema& schema = referenced.schema();
  std::optional<int> unique = schema.FindUniqueKey(fk.referenced_columns);
  if (!unique) {
    throw DbError(
        sqlstate::kInternalError,
        fmt::format("foreign key \"{}\" lost the unique key of \"{}\"", fk.name, schema.name));
  }
  const std::vector<ColumnId>& key_columns =
      *unique == IndexRange::kPrimaryKey ? schema.primary_key
                                         : schema.indexes[static_cast<size_t>(*unique)].columns;
  IndexRange range;
  range.index = *unique;
  for (ColumnId k : key_columns) {
    size_t at = static_cast<size_t>(
        std::find(fk.referenced_columns.begin(), fk.referenced_columns.end(), k) -
        fk.referenced_columns.begin());
    std::optional<Value> v = Exactly(key[at], schema.column(k).type);
    if (!v) return std::nullopt;
    range.equal.push_back(std::move(*v));
  }
  std::optional<std::vector<TupleId>> found = referenced.ProbeIndex(range, 1);
  if (!found || found->empty()) return std::nullopt;
  return found->front();
}

// The live rows of `referencing` whose foreign key `fk` holds `key` (values
// of the referenced columns), in tuple-id order: through its primary key or
// an index whose leading columns are the foreign key's, else by a scan.
std::vector<TupleId> FindReferencing(const Table& referencing, const ForeignKeyDef& fk,
                                     const std::vector<Value>& key) {
  const TableSchema& schema = referencing.schema();
  std::vector<Value> values;  // parallel to fk.columns, of their types
  for (size_t i = 0; i < fk.columns.size(); i++) {
    if (key[i].is_null()) return {};
    std::optional<Value> v = Exactly(key[i], schema.column(fk.columns[i]).type);
    if (!v) return {};
    values.push_back(std::move(*v));
  }
  // An index whose first fk.columns.size() columns are the foreign key's.
  auto leading = [&](const std::vector<ColumnId>& index_columns) -> std::optional<IndexRange> {
    if (index_columns.size() < fk.columns.size()) return std::nullopt;
    IndexRange range;
    for (size_t i = 0; i < fk.columns.size(); i++) {
      auto at = std::find(fk.columns.begin(), fk.columns.end(), index_columns[i]);
      if (at == fk.columns.end()) return std::nullopt;
      range.equal.push_back(values[static_cast<size_t>(at - fk.columns.begin())]);
    }
    return range;
  };
  std::optional<IndexRange> range;
  if (!schema.primary_key.empty()) {
    range = leading(schema.primary_key);  // the whole key: its hash index
    if (range && schema.primary_key.size() > fk.columns.size()) {
      range->index = IndexRange::kPrimaryKeyOrder;  // a prefix: its ordered index
    }
  }
  for (size_t i = 0; !range && i < schema.indexes.size(); i++) {
    range = leading(schema.indexes[i].columns);
    if (range) range->index = static_cast<int>(i);
  }
  std::vector<TupleId> out;
  if (range) {
    out = *referencing.ProbeIndex(*range, SIZE_MAX);
    std::sort(out.begin(), out.end());
    return out;
  }
  referencing.ForEachBlock([&](const BlockRef& block, const BlockReadView& view) {
    for (uint32_t r = 0; r < view.row_count(); r++) {
      if (view.is_deleted(r)) continue;
      bool match = true;
      for (size_t i = 0; match && i < fk.columns.size(); i++) {
        Value v = block->GetCell(fk.columns[i], SlotNo(r));
        match = !v.is_null() && v.Compare(values[i]) == 0;
      }
      if (match) out.push_back({block->block_no(), SlotNo(r)});
    }
  });
  return out;
}

// PostgreSQL's text of the statement an action runs, for the CONTEXT line of
// an error it meets ("UPDATE ONLY "public"."c" SET "p" = NULL WHERE $1
// OPERATOR(pg_catalog.=) "p"").
std::string ActionStatement(const TableSchema& referencing, const ForeignKeyDef& fk,
                            ForeignKeyAction action, bool deleted,
                            const std::vector<ColumnId>& set_columns) {
  auto quoted = [](const std::string& name) {
    std::string q = "\"";
    for (char c : name) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  const std::string table = "ONLY \"public\"." + quoted(referencing.name);
  int parameter = 1;
  std::string text;
  if (action == ForeignKeyAction::kCascade && deleted) {
    text = "DELETE FROM " + table;
  } else {
    text = "UPDATE " + table + " SET ";
    const std::vector<ColumnId>& set =
        action == ForeignKeyAction::kCascade ? fk.columns : set_columns;
    for (size_t i = 0; i < set.size(); i++) {
      text += (i ? ", " : "") + quoted(referencing.column(set[i]).name) + " = ";
      text += action == ForeignKeyAction::kCascade   ? "$" + std::to_string(parameter++)
              : action == ForeignKeyAction::kSetNull ? "NULL"
                                                     : "DEFAULT";
    }
  }
  for (size_t i = 0; i < fk.columns.size(); i++) {
    text += (i ? " AND $" : " WHERE $") + std::to_string(parameter++) + " OPERATOR(pg_catalog.=) " +
            quoted(referencing.column(fk.columns[i]).name);
  }
  return text;
}

}  // namespace

bool Transaction::InForeignKey(const Table& t) {
  return !t.schema().foreign_keys.empty() || !t.referenced_by().empty();
}

Table* Transaction::LiveTable(TableId id) const {
  if (dropped_.count(id)) return nullptr;
  try {
    return &catalog_->GetTable(id);
  } catch (const DbError&) {
    return nullptr;
  }
}

Table* Transaction::LiveTable(std::string_view name) const {
  Table* t = catalog_->FindTable(name);
  return t == nullptr || dropped_.count(t->id()) ? nullptr : t;
}

void Transaction::NoteInsert(const Table& t, TupleId tid) {
  for (size_t i = 0; i < t.schema().foreign_keys.size(); i++) {
    fk_events_.push_back({ForeignKeyEvent::Kind::kCheckReference, t.id(), t.id(), i, tid, {}, {}});
  }
}

void Transaction::NoteUpdate(const Table& t, const Row& before, TupleId new_tid) {
  std::optional<Row> after;
  // The referenced side first: keys this row gave up.
  for (const ForeignKeyRef& ref : t.referenced_by()) {
    const Table* referencing = LiveTable(ref.table);
    if (referencing == nullptr) continue;
    const ForeignKeyDef& fk = referencing->schema().foreign_keys[ref.position];
    std::vector<Value> old_key = ValuesOf(before, fk.referenced_columns);
    if (AnyNull(old_key)) continue;  // nothing could reference it
    if (!after) after = t.Read(new_tid);
    std::vector<Value> new_key = ValuesOf(*after, fk.referenced_columns);
    if (SameKey(old_key, new_key)) continue;
    fk_events_.push_back({ForeignKeyEvent::Kind::kReferencedUpdated, t.id(), ref.table,
                          ref.position, new_tid, std::move(old_key), std::move(new_key)});
  }
  // The referencing side: keys this row now holds.
  for (size_t i = 0; i < t.schema().foreign_keys.size(); i++) {
    const ForeignKeyDef& fk = t.schema().foreign_keys[i];
    if (!after) after = t.Read(new_tid);
    if (SameKey(ValuesOf(before, fk.columns), ValuesOf(*after, fk.columns))) continue;
    fk_events_.push_back(
        {ForeignKeyEvent::Kind::kCheckReference, t.id(), t.id(), i, new_tid, {}, {}});
  }
}

void Transaction::NoteDelete(const Table& t, const Row& before) {
  for (const ForeignKeyRef& ref : t.referenced_by()) {
    const Table* referencing = LiveTable(ref.table);
    if (referencing == nullptr) continue;
    const ForeignKeyDef& fk = referencing->schema().foreign_keys[ref.position];
    std::vector<Value> old_key = ValuesOf(before, fk.referenced_columns);
    if (AnyNull(old_key)) continue;
    fk_events_.push_back({ForeignKeyEvent::Kind::kReferencedDeleted,
                          t.id(),
                          ref.table,
                          ref.position,
                          kInvalidTupleId,
                          std::move(old_key),
                          {}});
  }
}

void Transaction::BeginStatement(StatementHooks* hooks) {
  if (statement_depth_++ > 0) return;
  hooks_ = hooks;
  statement_undo_ = undo_.size();
  statement_redo_ = redo_.size();
  undo_floor_ = undo_.size();
}

void Transaction::EndStatement() {
  if (statement_depth_ > 1) {
    statement_depth_--;
    return;
  }
  try {
    RunForeignKeyChecks();
  } catch (...) {
    AbandonStatement();
    throw;
  }
  statement_depth_ = 0;
  hooks_ = nullptr;
}

void Transaction::AbandonStatement() {
  if (--statement_depth_ > 0) return;
  statement_depth_ = 0;
  fk_events_.clear();
  hooks_ = nullptr;
  UndoTo(statement_undo_, statement_redo_);
}

void Transaction::FinishWrite(size_t undo_size, size_t redo_size) {
  if (statement_depth_ > 0) return;
  try {
    RunForeignKeyChecks();
  } catch (...) {
    UndoTo(undo_size, redo_size);
    throw;
  }
}

void Transaction::RunForeignKeyChecks() {
  if (fk_events_.empty()) return;
  // Writes of the actions below note their checks, which this loop reaches
  // after the ones noted before them.
  statement_depth_++;
  try {
    for (size_t i = 0; i < fk_events_.size(); i++) {
      ForeignKeyEvent e = std::move(fk_events_[i]);
      if (e.kind == ForeignKeyEvent::Kind::kCheckReference) {
        CheckReference(e);
      } else {
        ReferencedKeyGone(e);
      }
    }
  } catch (...) {
    fk_events_.clear();
    statement_depth_--;
    throw;
  }
  fk_events_.clear();
  statement_depth_--;
}

void Transaction::CheckReference(const ForeignKeyEvent& e) {
  const Table* t = LiveTable(e.table);
  if (t == nullptr || !t->IsLive(e.tid)) return;  // gone since: a later version has its own note
  const ForeignKeyDef& fk = t->schema().foreign_keys[e.position];
  std::vector<Value> key;
  size_t nulls = 0;
  for (ColumnId c : fk.columns) {
    key.push_back(*t->ReadColumn(e.tid, c));
    nulls += key.back().is_null();
  }
  if (nulls == key.size()) return;
  if (nulls > 0) {
    if (!fk.match_full) return;  // MATCH SIMPLE: a NULL anywhere passes
    throw ReferenceMissing(t->schema(), fk,
                           "MATCH FULL does not allow mixing of null and nonnull key values.");
  }
  const Table* referenced = LiveTable(fk.referenced_table);
  if (referenced != nullptr && FindReferenced(*referenced, fk, key)) return;
  throw ReferenceMissing(t->schema(), fk,
                         ShowKey(t->schema(), fk.columns, key) + " is not present in table \"" +
                             fk.referenced_table + "\".");
}

void Transaction::ReferencedKeyGone(const ForeignKeyEvent& e) {
  const Table* referenced = LiveTable(e.table);
  Table* referencing = LiveTable(e.referencing);
  if (referenced == nullptr || referencing == nullptr) return;
  const ForeignKeyDef& fk = referencing->schema().foreign_keys[e.position];
  const bool deleted = e.kind == ForeignKeyEvent::Kind::kReferencedDeleted;
  const ForeignKeyAction action = deleted ? fk.on_delete : fk.on_update;
  auto still_referenced = [&] {
    return DbError(sqlstate::kForeignKeyViolation,
                   fmt::format("update or delete on table \"{}\" violates foreign key constraint "
                               "\"{}\" on table \"{}\"\nDETAIL:  {} is still referenced from "
                               "table \"{}\".",
                               referenced->schema().name, fk.name, referencing->schema().name,
                               ShowKey(referenced->schema(), fk.referenced_columns, e.old_key),
                               referencing->schema().name))
        .WithObject(referencing->schema().name, fk.name);
  };
  // NO ACTION: another row holds the key now (the statement put it back).
  if (action == ForeignKeyAction::kNoAction && FindReferenced(*referenced, fk, e.old_key)) return;
  std::vector<TupleId> rows = FindReferencing(*referencing, fk, e.old_key);
  if (action == ForeignKeyAction::kNoAction || action == ForeignKeyAction::kRestrict) {
    if (!rows.empty()) throw still_referenced();
    return;
  }
  if (rows.empty()) return;
  const std::string name = referencing->schema().name;
  const std::vector<ColumnId>& set_columns =
      deleted && !fk.delete_set_columns.empty() ? fk.delete_set_columns : fk.columns;
  try {
    for (TupleId tid : rows) {
      if (!referencing->IsLive(tid)) continue;
      if (action == ForeignKeyAction::kCascade && deleted) {
        Delete(name, tid);
        continue;
      }
      Table::ColumnUpdates updates;
      if (action == ForeignKeyAction::kCascade) {
        for (size_t i = 0; i < fk.columns.size(); i++) {
          updates.emplace_back(fk.columns[i], e.new_key[i]);
        }
      } else {
        for (ColumnId c : set_columns) {
          const ColumnDef& column = referencing->schema().column(c);
          Value v = Value::Null(column.type);
          if (action == ForeignKeyAction::kSetDefault) {
            const Sequence* identity =
                column.identity != ColumnIdentity::kNone
                    ? catalog_->IdentitySequence(referencing->id(), column.name)
                    : nullptr;
            if (identity != nullptr) {
              v = Value::BigInt(NextVal(identity->id));  // the column's own sequence
            } else if (!column.default_sql.empty()) {
              if (hooks_ == nullptr) {
                throw DbError(sqlstate::kFeatureNotSupported,
                              "ON DELETE / ON UPDATE SET DEFAULT of column \"" + column.name +
                                  "\", whose DEFAULT is an expression, outside an SQL statement "
                                  "is not supported");
              }
              v = hooks_->ColumnDefault(*referencing, c);
            }
          }
          updates.emplace_back(c, std::move(v));
        }
      }
      if (hooks_ != nullptr) {
        Row after = *referencing->Read(tid);
        for (const auto& [c, v] : updates) {
          after[c.value()] = v.CastTo(referencing->schema().column(c).type);
        }
        hooks_->CheckUpdatedRow(*referencing, after);
      }
      Update(name, tid, updates);
    }
  } catch (const DbError& error) {
    std::string message = error.what();
    if (message.find("\nCONTEXT:  ") == std::string::npos) {
      message += "\nCONTEXT:  SQL statement \"" +
                 ActionStatement(referencing->schema(), fk, action, deleted, set_columns) + "\"";
    }
    DbError with_context(error.sqlstate(), message, error.position());
    throw with_context.WithHint(error.hint());
  }
  // SET DEFAULT may have written the very key that went away (the default
  // equals it): then the rows still reference it, as PostgreSQL's recheck
  // finds.
  if (action == ForeignKeyAction::kSetDefault && !FindReferenced(*referenced, fk, e.old_key) &&
      !FindReferencing(*referencing, fk, e.old_key).empty()) {
    throw still_referenced();
  }
}

void Transaction::AddForeignKey(std::string_view table, ForeignKeyDef fk) {
  Table& t = Writable(table);
  if (LiveTable(fk.referenced_table) == nullptr && fk.referenced_table != t.schema().name) {
    throw DbError(sqlstate::kUndefinedTable,
                  fmt::format("relation \"{}\" does not exist", fk.referenced_table));
  }
  ForeignKeyDef logged = fk;
  catalog_->AddForeignKey(t.id(), std::move(fk));  // checks the definition
  const size_t position = t.schema().foreign_keys.size() - 1;
  try {
    // Every row, as an insert would be checked, before anything is logged.
    Scan(table, [&](TupleId tid, const Row&) {
      CheckReference(
          {ForeignKeyEvent::Kind::kCheckReference, t.id(), t.id(), position, tid, {}, {}});
      return true;
    });
  } catch (...) {
    catalog_->DropForeignKey(t.id(), position);
    throw;
  }
  Undo undo{UndoKind::kAddForeignKey, t.id(), kInvalidTupleId, kInvalidTupleId, {}, {}};
  undo.change().index_position = position;
  undo_.push_back(std::move(undo));
  redo_.push_back({wal::RecordType::kAddForeignKey, redo::EncodeAddForeignKey(t.id(), logged)});
}

void Transaction::DropConstraint(std::string_view table, std::string_view name) {
  Table& t = Writable(table);
  const TableSchema& schema = t.schema();
  Undo undo{UndoKind::kDropForeignKey, t.id(), kInvalidTupleId, kInvalidTupleId, {}, {}};
  if (std::optional<size_t> fk = schema.FindForeignKey(name)) {
    undo.change().index_position = *fk;
    dropped_foreign_keys_.push_back(catalog_->DropForeignKey(t.id(), *fk));
  } else {
    auto check = std::find_if(schema.checks.begin(), schema.checks.end(),
                              [&](const CheckDef& c) { return c.name == name; });
    if (check == schema.checks.end()) {
      throw DbError(
          sqlstate::kUndefinedObject,
          fmt::format("constraint \"{}\" of relation \"{}\" does not exist", name, schema.name));
    }
    undo.kind = UndoKind::kDropCheck;
    undo.change().index_position = static_cast<size_t>(check - schema.checks.begin());
    dropped_checks_.push_back(catalog_->DropCheck(t.id(), undo.change().index_position));
  }
  undo_.push_back(std::move(undo));
  redo_.push_back({wal::RecordType::kDropConstraint, redo::EncodeDropConstraint(t.id(), name)});
}

}  // namespace forktail
