#include "storage/table/catalog.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <set>

#include <fmt/format.h>

#include "storage/crc32c.h"
#include "storage/error.h"

namespace forktail {
namespace {

class Writer {
 public:
  template <typename T>
  void Put(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out_.append(b, sizeof(T));
  }
  void PutString(std::string_view s) {
    Put<uint32_t>(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  std::string& out() { return out_; }

 private:
  std::string out_;
};

// Bounds-checked reads; after the first failure every read fails.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <typename T>
  bool Get(T* v) {
    if (in_.size() - at_ < sizeof(T)) return ok_ = false;
    std::memcpy(v, in_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return ok_;
  }
  bool GetString(std::string* s) {
    uint32_t n = 0;
    if (!Get(&n) || in_.size() - at_ < n) return ok_ = false;
    s->assign(in_.data() + at_, n);
    at_ += n;
    return ok_;
  }
  bool done() const { return ok_ && at_ == in_.size(); }
  bool ok() const { return ok_; }

 private:
  std::string_view in_;
  size_t at_ = 0;
  bool ok_ = true;
};

// PostgreSQL's makeObjectName: "name1[_name2]_label" in at most 63 bytes,
// the longer of name1 and name2 shortened first, each cut at a character
// boundary. name2 joins the column names with '_' (ChooseIndexNameAddition),
// empty when there are none.
std::string MakeObjectName(const std::string& name1, const std::vector<std::string>& columns,
                           const std::string& label) {
  constexpr size_t kMaxName = 63;  // NAMEDATALEN - 1
  std::string name2;
  for (const std::string& c : columns) {
    if (!name2.empty()) name2 += '_';
    name2 += c;
    if (name2.size() > kMaxName) break;
  }
  size_t overhead = label.size() + 1 + (columns.empty() ? 0 : 1);
  size_t avail = kMaxName - std::min(kMaxName, overhead);
  size_t n1 = name1.size(), n2 = name2.size();
  while (n1 + n2 > avail) {
    if (n1 > n2) {
      n1--;
    } else {
      n2--;
    }
  }
  auto clip = [](const std::string& s, size_t n) {
    while (n > 0 && n < s.size() && (static_cast<uint8_t>(s[n]) & 0xC0) == 0x80) n--;
    return s.substr(0, n);
  };
  std::string name = clip(name1, n1);
  if (!columns.empty()) name += "_" + clip(name2, n2);
  return name + "_" + label;
}

// The first of name, name with label+1, label+2, ... that `taken` refuses
// not (PostgreSQL's ChooseRelationName and ChooseConstraintName).
std::string ChooseName(const std::string& table, const std::vector<std::string>& columns,
                       const std::string& suffix,
                       const std::function<bool(const std::string&)>& taken) {
  std::string name = MakeObjectName(table, columns, suffix);
  for (int n = 1; taken(name); n++) {
    name = MakeObjectName(table, columns, suffix + std::to_string(n));
  }
  return name;
}

bool ValidAction(uint8_t action) {
  switch (static_cast<ForeignKeyAction>(action)) {
    case ForeignKeyAction::kNoAction:
    case ForeignKeyAction::kRestrict:
    case ForeignKeyAction::kCascade:
    case ForeignKeyAction::kSetNull:
    case ForeignKeyAction::kSetDefault:
      return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> Catalog::ConstraintNames(const TableSchema& schema) {
  std::vector<std::string> names;
  if (!schema.primary_key.empty()) names.push_back(schema.name + "_pkey");
  for (const IndexDef& index : schema.indexes) {
    if (index.constraint) names.push_back(index.name);
  }
  for (const CheckDef& check : schema.checks) names.push_back(check.name);
  for (const ForeignKeyDef& fk : schema.foreign_keys) names.push_back(fk.name);
  return names;
}

void Catalog::Validate(const TableSchema& schema) {
  if (schema.columns.empty()) {
    // PostgreSQL allows them; scans here need a column to count rows by.
    throw DbError(sqlstate::kFeatureNotSupported, "tables without columns are not supported");
  }
  if (schema.columns.size() > kMaxColumns) {
    throw DbError(sqlstate::kProgramLimitExceeded,
                  fmt::format("tables can have at most {} columns", kMaxColumns));
  }
  std::set<std::string_view> names;
  for (const ColumnDef& c : schema.columns) {
    if (!names.insert(c.name).second) {
      throw DbError(sqlstate::kDuplicateColumn,
                    fmt::format("column \"{}\" specified more than once", c.name));
    }
  }
  std::set<std::string_view> index_names;
  for (const IndexDef& index : schema.indexes) {
    if (!index_names.insert(index.name).second || index.name == schema.name) {
      throw DbError(sqlstate::kDuplicateTable,
                    fmt::format("relation \"{}\" already exists", index.name));
    }
    if (index.columns.empty()) {
      throw DbError(sqlstate::kInvalidTableDefinition,
                    fmt::format("index \"{}\" has no columns", index.name));
    }
    for (ColumnId c : index.columns) {
      if (c.value() >= schema.columns.size()) {
        throw DbError(sqlstate::kInvalidTableDefinition,
                      fmt::format("index \"{}\" names column {}, which does not exist", index.name,
                                  c.value()));
      }
    }
  }
  // Keys are ordered by their bytes (ordered_index.h); an array's order is
  // its elements' (array_text.h), so no key or index holds one.
  auto refuse_array = [&](ColumnId c) {
    if (c.value() < schema.columns.size() && schema.column(c).type.IsArrayText()) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    fmt::format("column \"{}\" is an array: keys and indexes on array columns "
                                "are not supported",
                                schema.column(c).name));
    }
  };
  for (const IndexDef& index : schema.indexes)
    std::for_each(index.columns.begin(), index.columns.end(), refuse_array);
  std::for_each(schema.primary_key.begin(), schema.primary_key.end(), refuse_array);
  std::set<ColumnId> key;
  for (ColumnId c : schema.primary_key) {
    if (c.value() >= schema.columns.size()) {
      throw DbError(sqlstate::kInvalidTableDefinition,
                    fmt::format("primary key of table \"{}\" names column {}, which does not exist",
                                schema.name, c.value()));
    }
    if (!key.insert(c).second) {
      throw DbError(sqlstate::kInvalidTableDefinition,
                    fmt::format("column \"{}\" appears twice in primary key constraint",
                                schema.column(c).name));
    }
  }
  std::vector<std::string> constraint_names = ConstraintNames(schema);
  for (const ForeignKeyDef& fk : schema.foreign_keys) {
    if (std::count(constraint_names.begin(), constraint_names.end(), fk.name) > 1) {
      throw DbError(sqlstate::kDuplicateObject,
                    fmt::format("constraint \"{}\" for relation \"{}\" already exists", fk.name,
                                schema.name));
    }
    if (fk.columns.empty() || fk.columns.size() != fk.referenced_columns.size()) {
      throw DbError(sqlstate::kInvalidForeignKey,
                    "number of referencing and referenced columns for foreign key disagree");
    }
    for (ColumnId c : fk.columns) {
      if (c.value() >= schema.columns.size()) {
        throw DbError(sqlstate::kInvalidTableDefinition,
                      fmt::format("foreign key \"{}\" names column {}, which does not exist",
                                  fk.name, c.value()));
      }
    }
    for (ColumnId c : fk.delete_set_columns) {
      if (std::find(fk.columns.begin(), fk.columns.end(), c) == fk.columns.end()) {
        throw DbError(sqlstate::kInvalidTableDefinition,
                      fmt::format("foreign key \"{}\" sets column {}, which is not one of its "
                                  "columns",
                                  fk.name, c.value()));
      }
    }
  }
}

void Catalog::ValidateReferences(const TableSchema& schema, const ForeignKeyDef& fk) const {
  const Table* table = FindTable(fk.referenced_table);
  const TableSchema* referenced = fk.referenced_table == schema.name ? &schema
                                  : table                            ? &table->schema()
                                                                     : nullptr;
  if (referenced == nullptr) {
    throw DbError(sqlstate::kUndefinedTable,
                  fmt::format("relation \"{}\" does not exist", fk.referenced_table));
  }
  for (ColumnId c : fk.referenced_columns) {
    if (c.value() >= referenced->columns.size()) {
      throw DbError(sqlstate::kInvalidTableDefinition,
                    fmt::format("foreign key \"{}\" references column {} of \"{}\", which does "
                                "not exist",
                                fk.name, c.value(), fk.referenced_table));
    }
  }
  if (!referenced->FindUniqueKey(fk.referenced_columns)) {
    throw DbError(sqlstate::kInvalidForeignKey,
                  fmt::format("there is no unique constraint matching given keys for referenced "
                              "table \"{}\"",
                              fk.referenced_table));
  }
}

void Catalog::RefreshReferences() {
  std::map<TableId, std::vector<ForeignKeyRef>> refs;
  for (const auto& [id, table] : tables_) {
    const std::vector<ForeignKeyDef>& fks = table->schema().foreign_keys;
    for (size_t i = 0; i < fks.size(); i++) {
      auto parent = by_name_.find(fks[i].referenced_table);
      if (parent != by_name_.end()) refs[parent->second].push_back({id, i});
    }
  }
  for (const auto& [id, table] : tables_) table->SetReferencedBy(std::move(refs[id]));
}

void Catalog::CheckRelationNameFree(std::string_view name) const {
  if (by_name_.count(name) || FindIndex(name) || views_.count(name) || FindSequence(name)) {
    throw DbError(sqlstate::kDuplicateTable, fmt::format("relation \"{}\" already exists", name));
  }
}

Table& Catalog::CreateTable(TableSchema schema, TableOptions options, TableId id) {
  CheckRelationNameFree(schema.name);
  for (const IndexDef& index : schema.indexes) CheckRelationNameFree(index.name);
  Validate(schema);
  for (const ForeignKeyDef& fk : schema.foreign_keys) ValidateReferences(schema, fk);
  if (id.value() != 0 && (id.value() < next_table_id_ || id.value() == UINT32_MAX)) {
    throw DbError(sqlstate::kInternalError,
                  fmt::format("table \"{}\" with id {}, but ids up to {} are taken", schema.name,
                              id.value(), next_table_id_ - 1));
  }
  if (id.value() == 0) id = TableId(next_table_id_);
  std::unique_ptr<Table> table = NewTable(id, std::move(schema), options);  // may throw 54000
  next_table_id_ = id.value() + 1;
  Table& ref = *table;
  by_name_.emplace(ref.schema().name, id);
  tables_.emplace(id, std::move(table));
  if (!ref.schema().foreign_keys.empty()) RefreshReferences();
  schema_version_++;
  return ref;
}

void Catalog::DropTable(std::string_view name) {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) {
    throw DbError(sqlstate::kUndefinedTable, fmt::format("table \"{}\" does not exist", name));
  }
  tables_.erase(it->second);
  by_name_.erase(it);
  RefreshReferences();
  schema_version_++;
}

void Catalog::HideTable(TableId id) {
  const std::string& name = GetTable(id).schema().name;
  auto it = by_name_.find(name);
  if (it != by_name_.end() && it->second == id) by_name_.erase(it);
  hidden_.insert(id);
  schema_version_++;
}

void Catalog::UnhideTable(TableId id) {
  hidden_.erase(id);
  by_name_.emplace(GetTable(id).schema().name, id);
  RefreshReferences();
  schema_version_++;
}

void Catalog::DropHidden(TableId id) {
  hidden_.erase(id);
  tables_.erase(id);
  RefreshReferences();
  schema_version_++;
}

namespace {

[[noreturn]] void ThrowContainsNulls(const TableSchema& schema, ColumnId column) {
  throw DbError(sqlstate::kNotNullViolation,
                fmt::format("column \"{}\" of relation \"{}\" contains null values",
                            schema.column(column).name, schema.name));
}

}  // namespace

TableId Catalog::RewriteTable(TableId old_id, TableSchema schema,
                              const std::vector<ColumnSource>& sources, TableId id) {
  const Table& old = GetTable(old_id);
  if (schema.name != old.schema().name || sources.size() != schema.columns.size()) {
    throw DbError(sqlstate::kInternalError,
                  fmt::format("rewrite of table \"{}\": {} sources for {} columns",
                              old.schema().name, sources.size(), schema.columns.size()));
  }
  for (const IndexDef& index : schema.indexes) {
    // The old table's indexes keep their names; new ones must be free.
    if (!old.schema().FindIndex(index.name)) CheckRelationNameFree(index.name);
  }
  Validate(schema);
  for (const ForeignKeyDef& fk : schema.foreign_keys) ValidateReferences(schema, fk);
  if (id.value() != 0 && (id.value() < next_table_id_ || id.value() == UINT32_MAX)) {
    throw DbError(sqlstate::kInternalError,
                  fmt::format("rewrite of table \"{}\" to id {}, but ids up to {} are taken",
                              schema.name, id.value(), next_table_id_ - 1));
  }
  const TableId new_id(id.value() != 0 ? id.value() : next_table_id_);
  for (size_t i = 0; i < sources.size(); i++) {
    const ColumnId c(static_cast<uint16_t>(i));
    const ColumnSource& source = sources[i];
    if (source.kind == ColumnSource::Kind::kColumn &&
        source.column.value() >= old.schema().column_count()) {
      throw DbError(sqlstate::kInternalError, "rewrite source names a column that does not exist");
    }
    // NOT NULL first, with ALTER TABLE's message (Insert would blame a row).
    if (!schema.columns[i].not_null && !schema.IsKeyColumn(c)) continue;
    if (old.live_row_count() == 0 || source.kind == ColumnSource::Kind::kIdentity) continue;
    if (source.kind == ColumnSource::Kind::kConstant ? source.constant.is_null()
                                                     : old.HasNull(source.column)) {
      ThrowContainsNulls(schema, c);
    }
  }
  std::unique_ptr<Table> fresh = NewTable(new_id, schema, old.options());  // may throw 54000
  int64_t identity = 0;
  Row row(sources.size());
  old.ForEachLiveRow([&](TupleId, const Row& old_row) {
    identity++;
    for (size_t i = 0; i < sources.size(); i++) {
      const ColumnSource& source = sources[i];
      switch (source.kind) {
        case ColumnSource::Kind::kColumn:
          row[i] = old_row[source.column.value()].CastTo(schema.columns[i].type);
          break;
        case ColumnSource::Kind::kConstant:
          row[i] = source.constant;
          break;
        case ColumnSource::Kind::kIdentity:
          row[i] = Value::BigInt(identity);
          break;
      }
    }
    fresh->Insert(row);
  });
  // Identity counters: a kept column keeps its own, a new one continues
  // from the rows it numbered.
  for (size_t i = 0; i < sources.size(); i++) {
    if (schema.columns[i].identity == ColumnIdentity::kNone) continue;
    const ColumnId c(static_cast<uint16_t>(i));
    const ColumnSource& source = sources[i];
    if (source.kind == ColumnSource::Kind::kIdentity) {
      fresh->SetIdentityValue(c, identity);
    } else if (source.kind == ColumnSource::Kind::kColumn) {
      fresh->SetIdentityValue(c, old.identity_value(source.column));
    }
  }
  next_table_id_ = new_id.value() + 1;
  for (auto& [sid, sequence] : sequences_) {
    if (sequence.def.owner_table != old_id) continue;
    if (schema.FindColumn(sequence.def.owner_column)) {
      sequence.def.owner_table = new_id;
    } else {  // its column is gone (the caller should have dropped it)
      sequence.def.owner_table = TableId(0);
      sequence.def.owner_column.clear();
    }
  }
  auto it = tables_.find(old_id);
  rewritten_[old_id] = std::move(it->second);
  tables_.erase(it);
  by_name_[schema.name] = new_id;
  tables_.emplace(new_id, std::move(fresh));
  RefreshReferences();
  schema_version_++;
  return new_id;
}

void Catalog::UndoRewrite(TableId new_id, TableId old_id) {
  auto it = rewritten_.find(old_id);
  if (it == rewritten_.end() || !tables_.count(new_id)) {
    throw DbError(sqlstate::kInternalError, "undo of a table rewrite that did not happen");
  }
  tables_.erase(new_id);
  for (auto& [sid, sequence] : sequences_) {
    if (sequence.def.owner_table == new_id) sequence.def.owner_table = old_id;
  }
  by_name_[it->second->schema().name] = old_id;
  tables_.emplace(old_id, std::move(it->second));
  rewritten_.erase(it);
  RefreshReferences();
  schema_version_++;
}

void Catalog::FinishRewrite(TableId old_id) { rewritten_.erase(old_id); }

TableSchema Catalog::ReplaceSchema(TableId id, TableSchema schema) {
  Table& table = GetTable(id);
  TableSchema old = table.schema();
  if (schema.name != old.name) CheckRelationNameFree(schema.name);
  Validate(schema);
  for (const ForeignKeyDef& fk : schema.foreign_keys) ValidateReferences(schema, fk);
  for (size_t i = 0; i < schema.columns.size() && i < old.columns.size(); i++) {
    const ColumnId c(static_cast<uint16_t>(i));
    if (schema.columns[i].not_null && !old.columns[i].not_null && table.HasNull(c)) {
      ThrowContainsNulls(schema, c);
    }
  }
  table.ReplaceSchema(std::move(schema));  // checks the types, key and indexes
  for (auto& [sid, sequence] : sequences_) {
    if (sequence.def.owner_table != id) continue;
    std::optional<ColumnId> c = old.FindColumn(sequence.def.owner_column);
    if (c) sequence.def.owner_column = table.schema().column(*c).name;
  }
  if (table.schema().name != old.name) {
    by_name_.erase(old.name);
    by_name_.emplace(table.schema().name, id);
  }
  RefreshReferences();
  schema_version_++;
  return old;
}

void Catalog::AddPrimaryKey(TableId id, const std::vector<ColumnId>& key) {
  Table& table = GetTable(id);
  if (!table.schema().primary_key.empty()) {
    throw DbError(
        sqlstate::kInvalidTableDefinition,
        fmt::format("multiple primary keys for table \"{}\" are not allowed", table.schema().name));
  }
  if (key.empty()) {
    throw DbError(sqlstate::kInvalidTableDefinition, "a primary key needs at least one column");
  }
  TableSchema keyed = table.schema();
  keyed.primary_key = key;
  Validate(keyed);
  table.AddPrimaryKey(key);
  schema_version_++;
}

void Catalog::RemovePrimaryKey(TableId id, const std::vector<bool>& not_null_before) {
  GetTable(id).RemovePrimaryKey(not_null_before);
  schema_version_++;
}

void Catalog::AddIndex(TableId id, IndexDef def) {
  Table& table = GetTable(id);
  CheckRelationNameFree(def.name);
  TableSchema indexed = table.schema();
  indexed.indexes.push_back(def);
  Validate(indexed);
  table.AddIndex(std::move(def));
  schema_version_++;
}

IndexDef Catalog::DropIndex(TableId id, size_t position) {
  IndexDef def = GetTable(id).DropIndex(position);
  schema_version_++;
  return def;
}

void Catalog::RestoreIndex(TableId id, size_t position, IndexDef def) {
  GetTable(id).RestoreIndex(position, std::move(def));
  schema_version_++;
}

void Catalog::AddForeignKey(TableId id, ForeignKeyDef def) {
  Table& table = GetTable(id);
  TableSchema changed = table.schema();
  changed.foreign_keys.push_back(def);
  Validate(changed);
  ValidateReferences(changed, def);
  table.SetForeignKeys(std::move(changed.foreign_keys));
  RefreshReferences();
  schema_version_++;
}

ForeignKeyDef Catalog::DropForeignKey(TableId id, size_t position) {
  Table& table = GetTable(id);
  std::vector<ForeignKeyDef> fks = table.schema().foreign_keys;
  ForeignKeyDef def = std::move(fks.at(position));
  fks.erase(fks.begin() + static_cast<std::ptrdiff_t>(position));
  table.SetForeignKeys(std::move(fks));
  RefreshReferences();
  schema_version_++;
  return def;
}

void Catalog::RestoreForeignKey(TableId id, size_t position, ForeignKeyDef def) {
  Table& table = GetTable(id);
  std::vector<ForeignKeyDef> fks = table.schema().foreign_keys;
  fks.insert(fks.begin() + static_cast<std::ptrdiff_t>(position), std::move(def));
  table.SetForeignKeys(std::move(fks));
  RefreshReferences();
  schema_version_++;
}

CheckDef Catalog::DropCheck(TableId id, size_t position) {
  Table& table = GetTable(id);
  std::vector<CheckDef> checks = table.schema().checks;
  CheckDef def = std::move(checks.at(position));
  checks.erase(checks.begin() + static_cast<std::ptrdiff_t>(position));
  table.SetChecks(std::move(checks));
  schema_version_++;
  return def;
}

void Catalog::RestoreCheck(TableId id, size_t position, CheckDef def) {
  Table& table = GetTable(id);
  std::vector<CheckDef> checks = table.schema().checks;
  checks.insert(checks.begin() + static_cast<std::ptrdiff_t>(position), std::move(def));
  table.SetChecks(std::move(checks));
  schema_version_++;
}

void Catalog::CreateView(ViewDef view) {
  CheckRelationNameFree(view.name);
  std::string name = view.name;
  views_.emplace(std::move(name), std::move(view));
  schema_version_++;
}

ViewDef Catalog::DropView(std::string_view name) {
  auto it = views_.find(name);
  if (it == views_.end()) {
    throw DbError(sqlstate::kUndefinedTable, fmt::format("view \"{}\" does not exist", name));
  }
  ViewDef view = std::move(it->second);
  views_.erase(it);
  schema_version_++;
  return view;
}

const ViewDef* Catalog::FindView(std::string_view name) const {
  auto it = views_.find(name);
  return it == views_.end() ? nullptr : &it->second;
}

std::vector<std::string> Catalog::DependentViews(std::string_view relation) const {
  std::vector<std::string> out;
  for (const auto& [name, view] : views_) {
    if (std::find(view.depends_on.begin(), view.depends_on.end(), relation) !=
        view.depends_on.end()) {
      out.push_back(name);
    }
  }
  return out;
}

TableId Catalog::CreateSequence(SequenceDef def, SequenceState state, TableId id) {
  CheckRelationNameFree(def.name);
  if (def.owned() && !tables_.count(def.owner_table)) {
    throw DbError(sqlstate::kInternalError,
                  fmt::format("sequence \"{}\" owned by table {}, which does not exist", def.name,
                              def.owner_table.value()));
  }
  if (id.value() != 0 && (id.value() < next_table_id_ || id.value() == UINT32_MAX)) {
    throw DbError(sqlstate::kInternalError,
                  fmt::format("sequence \"{}\" with id {}, but ids up to {} are taken", def.name,
                              id.value(), next_table_id_ - 1));
  }
  const TableId new_id(id.value() != 0 ? id.value() : next_table_id_);
  next_table_id_ = new_id.value() + 1;
  sequences_.emplace(new_id, Sequence{new_id, std::move(def), state});
  schema_version_++;
  return new_id;
}

Sequence Catalog::DropSequence(TableId id) {
  auto it = sequences_.find(id);
  if (it == sequences_.end()) {
    throw DbError(sqlstate::kUndefinedTable,
                  fmt::format("sequence with OID {} does not exist", id.value()));
  }
  Sequence sequence = std::move(it->second);
  sequences_.erase(it);
  schema_version_++;
  return sequence;
}

void Catalog::RestoreSequence(Sequence sequence) {
  CheckRelationNameFree(sequence.def.name);
  const TableId id = sequence.id;
  sequences_.emplace(id, std::move(sequence));
  schema_version_++;
}

Sequence Catalog::ReplaceSequence(TableId id, SequenceDef def, SequenceState state) {
  auto it = sequences_.find(id);
  if (it == sequences_.end()) {
    throw DbError(sqlstate::kUndefinedTable,
                  fmt::format("sequence with OID {} does not exist", id.value()));
  }
  if (def.name != it->second.def.name) CheckRelationNameFree(def.name);
  Sequence old = it->second;
  it->second.def = std::move(def);
  it->second.state = state;
  schema_version_++;
  return old;
}

void Catalog::SetSequenceState(TableId id, SequenceState state) {
  auto it = sequences_.find(id);
  if (it == sequences_.end()) {
    throw DbError(sqlstate::kUndefinedTable,
                  fmt::format("sequence with OID {} does not exist", id.value()));
  }
  it->second.state = state;
}

const Sequence* Catalog::FindSequence(std::string_view name) const {
  for (const auto& [id, sequence] : sequences_) {
    if (sequence.def.name == name) return &sequence;
  }
  return nullptr;
}

const Sequence* Catalog::GetSequence(TableId id) const {
  auto it = sequences_.find(id);
  return it == sequences_.end() ? nullptr : &it->second;
}

std::vector<TableId> Catalog::OwnedSequences(TableId table, std::string_view column) const {
  std::vector<TableId> out;
  for (const auto& [id, sequence] : sequences_) {
    if (sequence.def.owner_table == table &&
        (column.empty() || sequence.def.owner_column == column)) {
      out.push_back(id);
    }
  }
  return out;
}

const Sequence* Catalog::IdentitySequence(TableId table, std::string_view column) const {
  for (const auto& [id, sequence] : sequences_) {
    if (sequence.def.identity && sequence.def.owner_table == table &&
        sequence.def.owner_column == column) {
      return &sequence;
    }
  }
  return nullptr;
}

std::string Catalog::ChooseIndexName(const std::string& table,
                                     const std::vector<std::string>& columns,
                                     const std::string& suffix,
                                     const std::vector<std::string>& taken) const {
  return ChooseName(table, columns, suffix, [&](const std::string& name) {
    return by_name_.count(name) || FindIndex(name) || views_.count(name) || FindSequence(name) ||
           std::find(taken.begin(), taken.end(), name) != taken.end();
  });
}

std::string Catalog::ChooseConstraintName(const std::string& table,
                                          const std::vector<std::string>& columns,
                                          const std::string& suffix,
                                          const std::vector<std::string>& taken) const {
  return ChooseName(table, columns, suffix, [&](const std::string& name) {
    return ConstraintNameExists(name) || std::find(taken.begin(), taken.end(), name) != taken.end();
  });
}

bool Catalog::ConstraintNameExists(std::string_view name) const {
  for (const auto& [id, table] : tables_) {
    for (const std::string& n : ConstraintNames(table->schema())) {
      if (n == name) return true;
    }
  }
  return false;
}

std::vector<ForeignKeyRef> Catalog::ForeignKeysUsingIndex(TableId table, size_t position) const {
  const Table& t = GetTable(table);
  TableSchema without = t.schema();
  without.indexes.erase(without.indexes.begin() + static_cast<std::ptrdiff_t>(position));
  std::vector<ForeignKeyRef> out;
  for (const ForeignKeyRef& ref : t.referenced_by()) {
    const ForeignKeyDef& fk = GetTable(ref.table).schema().foreign_keys[ref.position];
    if (!without.FindUniqueKey(fk.referenced_columns)) out.push_back(ref);
  }
  return out;
}

std::optional<std::pair<TableId, size_t>> Catalog::FindIndex(std::string_view name) const {
  for (const auto& [id, table] : tables_) {
    if (hidden_.count(id)) continue;
    if (std::optional<size_t> position = table->schema().FindIndex(name)) {
      return std::make_pair(id, *position);
    }
  }
  return std::nullopt;
}

std::unique_ptr<Table> Catalog::NewTable(TableId id, TableSchema schema,
                                         TableOptions options) const {
  auto table = std::make_unique<Table>(id, std::move(schema), options);
  table->AttachPool(pool_);
  return table;
}

void Catalog::SetBlockImageReader(BlockImageReader* reader) const { pool_->reader = reader; }

Table* Catalog::FindTableById(TableId id) const {
  auto it = tables_.find(id);
  return it == tables_.end() ? nullptr : it->second.get();
}

std::unique_ptr<Catalog> Catalog::CopySchemas() const {
  auto copy = std::make_unique<Catalog>();
  for (const auto& [id, table] : tables_) {
    auto empty = std::make_unique<Table>(id, table->schema(), table->options());
    copy->by_name_.emplace(empty->schema().name, id);
    copy->tables_.emplace(id, std::move(empty));
  }
  copy->views_ = views_;
  copy->sequences_ = sequences_;
  copy->RefreshReferences();
  copy->next_table_id_ = next_table_id_;
  copy->schema_version_ = schema_version_;
  return copy;
}

thread_local std::vector<TableId>* TableLookupRecorder::current_ = nullptr;

Table* Catalog::FindTable(std::string_view name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return nullptr;
  TableLookupRecorder::Note(it->second);
  return tables_.at(it->second).get();
}

Table& Catalog::GetTable(TableId id) const {
  auto it = tables_.find(id);
  if (it == tables_.end()) {
    throw DbError(sqlstate::kUndefinedTable,
                  fmt::format("relation with OID {} does not exist", id.value()));
  }
  TableLookupRecorder::Note(id);
  return *it->second;
}

std::vector<TableId> Catalog::ListTables() const {
  std::vector<TableId> ids;
  for (const auto& [id, table] : tables_) {
    if (!hidden_.count(id)) ids.push_back(id);
  }
  return ids;
}

std::string Catalog::Serialize() const {
  Writer w;
  w.Put(kCatalogMagic);
  w.Put(kCatalogFormatVersion);
  w.Put(next_table_id_);
  w.Put(static_cast<uint32_t>(tables_.size()));
  for (const auto& [id, table] : tables_) {
    const TableSchema& s = table->schema();
    w.Put(id.value());
    w.PutString(s.name);
    w.Put(table->options().max_rows_per_block);
    w.Put(static_cast<uint16_t>(s.columns.size()));
    for (const ColumnDef& c : s.columns) {
      w.PutString(c.name);
      w.Put(static_cast<uint8_t>(c.type.id));
      w.Put(c.type.precision);
      w.Put(c.type.scale);
      w.Put(c.type.length);
      w.Put(static_cast<uint8_t>(c.not_null));
      w.PutString(c.default_sql);
      w.Put(static_cast<uint8_t>(c.identity));
    }
    w.Put(static_cast<uint16_t>(s.primary_key.size()));
    for (ColumnId k : s.primary_key) w.Put(k.value());
    w.Put(static_cast<uint16_t>(s.indexes.size()));
    for (const IndexDef& index : s.indexes) {
      w.PutString(index.name);
      w.Put(static_cast<uint8_t>((index.unique ? 1 : 0) | (index.constraint ? 2 : 0)));
      w.Put(static_cast<uint16_t>(index.columns.size()));
      for (ColumnId c : index.columns) w.Put(c.value());
    }
    // Identity columns' last values and CHECK constraints (version 3 and later).
    for (size_t i = 0; i < s.columns.size(); i++) {
      if (s.columns[i].identity != ColumnIdentity::kNone) {
        w.Put(table->identity_value(ColumnId(static_cast<uint16_t>(i))));
      }
    }
    w.Put(static_cast<uint16_t>(s.checks.size()));
    for (const CheckDef& c : s.checks) {
      w.PutString(c.name);
      w.PutString(c.sql);
    }
    w.Put(static_cast<uint16_t>(s.foreign_keys.size()));  // version 4 and later
    for (const ForeignKeyDef& fk : s.foreign_keys) {
      w.PutString(fk.name);
      w.PutString(fk.referenced_table);
      w.Put(static_cast<uint16_t>(fk.columns.size()));
      for (size_t i = 0; i < fk.columns.size(); i++) {
        w.Put(fk.columns[i].value());
        w.Put(fk.referenced_columns[i].value());
      }
      w.Put(static_cast<uint8_t>(fk.on_delete));
      w.Put(static_cast<uint8_t>(fk.on_update));
      w.Put(static_cast<uint8_t>(fk.match_full ? 1 : 0));
      w.Put(static_cast<uint16_t>(fk.delete_set_columns.size()));
      for (ColumnId c : fk.delete_set_columns) w.Put(c.value());
    }
  }
  w.Put(static_cast<uint32_t>(views_.size()));
  for (const auto& [name, v] : views_) {
    w.PutString(v.name);
    w.PutString(v.sql);
    w.Put(static_cast<uint16_t>(v.column_names.size()));
    for (size_t i = 0; i < v.column_names.size(); i++) {
      w.PutString(v.column_names[i]);
      w.Put(static_cast<uint8_t>(v.column_types[i].id));
      w.Put(v.column_types[i].precision);
      w.Put(v.column_types[i].scale);
      w.Put(v.column_types[i].length);
    }
    w.Put(static_cast<uint16_t>(v.depends_on.size()));
    for (const std::string& d : v.depends_on) w.PutString(d);
  }
  w.Put(static_cast<uint32_t>(sequences_.size()));
  for (const auto& [id, sequence] : sequences_) {
    const SequenceDef& d = sequence.def;
    w.Put(id.value());
    w.PutString(d.name);
    w.Put(static_cast<uint8_t>(d.type));
    for (int64_t v : {d.start, d.increment, d.min, d.max, d.cache}) w.Put(v);
    w.Put(static_cast<uint8_t>(d.cycle));
    w.Put(d.owner_table.value());
    w.PutString(d.owner_column);
    w.Put(static_cast<uint8_t>(d.identity));
    w.Put(sequence.state.last_value);
    w.Put(static_cast<uint8_t>(sequence.state.is_called));
  }
  // COMMENT ON TABLE / COLUMN (version 6 and later): per table that has one.
  uint32_t commented = 0;
  for (const auto& [id, table] : tables_) {
    const TableSchema& s = table->schema();
    bool any = !s.comment.empty();
    for (const ColumnDef& c : s.columns) any = any || !c.comment.empty();
    commented += any;
  }
  w.Put(commented);
  for (const auto& [id, table] : tables_) {
    const TableSchema& s = table->schema();
    uint16_t columns = 0;
    for (const ColumnDef& c : s.columns) columns += !c.comment.empty();
    if (s.comment.empty() && columns == 0) continue;
    w.Put(id.value());
    w.PutString(s.comment);
    w.Put(columns);
    for (size_t i = 0; i < s.columns.size(); i++) {
      if (s.columns[i].comment.empty()) continue;
      w.Put(static_cast<uint16_t>(i));
      w.PutString(s.columns[i].comment);
    }
  }
  w.Put(crc32c::Mask(crc32c::Value(w.out().data(), w.out().size())));
  return std::move(w.out());
}

Status Catalog::Deserialize(std::string_view bytes) {
  if (!tables_.empty())
    return Status::InvalidArgument("catalog: Deserialize into a non-empty catalog");
  if (bytes.size() < 20) return Status::Corruption("catalog image is truncated");
  uint32_t stored;
  std::memcpy(&stored, bytes.data() + bytes.size() - 4, 4);
  if (crc32c::Mask(crc32c::Value(bytes.data(), bytes.size() - 4)) != stored) {
    return Status::Corruption("catalog image: checksum mismatch");
  }
  Reader r(bytes.substr(0, bytes.size() - 4));
  uint32_t magic = 0, version = 0, next_id = 0, count = 0;
  r.Get(&magic);
  r.Get(&version);
  if (magic != kCatalogMagic) return Status::Corruption("catalog image: bad magic");
  // Version 1 images (before secondary indexes) have no index lists,
  // versions 1 and 2 no column defaults, versions before 4 no foreign keys,
  // versions before 5 no sequences.
  if (version < 1 || version > kCatalogFormatVersion) {
    return Status::Corruption(fmt::format("catalog image: unsupported format version {}", version));
  }
  r.Get(&next_id);
  r.Get(&count);
  std::vector<std::pair<TableId, std::pair<TableSchema, TableOptions>>> parsed;
  std::vector<std::vector<std::pair<ColumnId, int64_t>>> identities;  // parallel to parsed
  for (uint32_t t = 0; t < count && r.ok(); t++) {
    uint32_t id = 0;
    TableSchema s;
    TableOptions o;
    uint16_t ncols = 0, nkey = 0;
    r.Get(&id);
    r.GetString(&s.name);
    r.Get(&o.max_rows_per_block);
    r.Get(&ncols);
    for (uint16_t i = 0; i < ncols && r.ok(); i++) {
      ColumnDef c;
      uint8_t type_id = 0, not_null = 0;
      r.GetString(&c.name);
      r.Get(&type_id);
      r.Get(&c.type.precision);
      r.Get(&c.type.scale);
      r.Get(&c.type.length);
      r.Get(&not_null);
      uint8_t identity = 0;
      if (version >= 3) {
        r.GetString(&c.default_sql);
        r.Get(&identity);
      }
      if (identity > static_cast<uint8_t>(ColumnIdentity::kAlways)) {
        return Status::Corruption("catalog image: unknown identity kind");
      }
      c.identity = static_cast<ColumnIdentity>(identity);
      if (!IsKnownTypeId(type_id)) {
        return Status::Corruption(fmt::format("catalog image: unknown type id {}", type_id));
      }
      c.type.id = static_cast<TypeId>(type_id);
      if (c.type.IsArrayText() &&
          !IsKnownTypeId(static_cast<uint8_t>((c.type.precision & ~Type::kCatalogArray) - 1))) {
        return Status::Corruption("catalog image: unknown array element type");
      }
      c.not_null = not_null != 0;
      s.columns.push_back(std::move(c));
    }
    r.Get(&nkey);
    for (uint16_t i = 0; i < nkey && r.ok(); i++) {
      uint16_t k = 0;
      r.Get(&k);
      s.primary_key.push_back(ColumnId(k));
    }
    uint16_t nindexes = 0;
    if (version >= 2) r.Get(&nindexes);
    for (uint16_t i = 0; i < nindexes && r.ok(); i++) {
      IndexDef index;
      uint8_t unique = 0;
      uint16_t ncolumns = 0;
      r.GetString(&index.name);
      r.Get(&unique);
      r.Get(&ncolumns);
      for (uint16_t j = 0; j < ncolumns && r.ok(); j++) {
        uint16_t c = 0;
        r.Get(&c);
        index.columns.push_back(ColumnId(c));
      }
      index.unique = (unique & 1) != 0;
      index.constraint = (unique & 2) != 0;
      s.indexes.push_back(std::move(index));
    }
    std::vector<std::pair<ColumnId, int64_t>> identity_values;
    for (size_t i = 0; i < s.columns.size() && r.ok(); i++) {
      if (s.columns[i].identity == ColumnIdentity::kNone) continue;
      int64_t value = 0;
      r.Get(&value);
      identity_values.push_back({ColumnId(static_cast<uint16_t>(i)), value});
    }
    identities.push_back(std::move(identity_values));
    uint16_t nchecks = 0;
    if (version >= 3) r.Get(&nchecks);
    for (uint16_t i = 0; i < nchecks && r.ok(); i++) {
      CheckDef c;
      r.GetString(&c.name);
      r.GetString(&c.sql);
      s.checks.push_back(std::move(c));
    }
    uint16_t nfks = 0;
    if (version >= 4) r.Get(&nfks);
    for (uint16_t i = 0; i < nfks && r.ok(); i++) {
      ForeignKeyDef fk;
      uint16_t ncolumns = 0, nset = 0;
      uint8_t on_delete = 0, on_update = 0, flags = 0;
      r.GetString(&fk.name);
      r.GetString(&fk.referenced_table);
      r.Get(&ncolumns);
      for (uint16_t j = 0; j < ncolumns && r.ok(); j++) {
        uint16_t c = 0, referenced = 0;
        r.Get(&c);
        r.Get(&referenced);
        fk.columns.push_back(ColumnId(c));
        fk.referenced_columns.push_back(ColumnId(referenced));
      }
      r.Get(&on_delete);
      r.Get(&on_update);
      r.Get(&flags);
      r.Get(&nset);
      for (uint16_t j = 0; j < nset && r.ok(); j++) {
        uint16_t c = 0;
        r.Get(&c);
        fk.delete_set_columns.push_back(ColumnId(c));
      }
      if (r.ok() && (!ValidAction(on_delete) || !ValidAction(on_update))) {
        return Status::Corruption("catalog image: unknown foreign key action");
      }
      fk.on_delete = static_cast<ForeignKeyAction>(on_delete);
      fk.on_update = static_cast<ForeignKeyAction>(on_update);
      fk.match_full = (flags & 1) != 0;
      s.foreign_keys.push_back(std::move(fk));
    }
    if (id == 0 || id >= next_id) return Status::Corruption("catalog image: bad table id");
    parsed.push_back({TableId(id), {std::move(s), o}});
  }
  std::map<std::string, ViewDef, std::less<>> views;
  uint32_t view_count = 0;
  if (version >= 3) r.Get(&view_count);
  for (uint32_t i = 0; i < view_count && r.ok(); i++) {
    ViewDef v;
    uint16_t ncols = 0, ndeps = 0;
    r.GetString(&v.name);
    r.GetString(&v.sql);
    r.Get(&ncols);
    for (uint16_t c = 0; c < ncols && r.ok(); c++) {
      std::string column;
      Type t;
      uint8_t type_id = 0;
      r.GetString(&column);
      r.Get(&type_id);
      r.Get(&t.precision);
      r.Get(&t.scale);
      r.Get(&t.length);
      if (!IsKnownTypeId(type_id)) {
        return Status::Corruption("catalog image: unknown view column type");
      }
      t.id = static_cast<TypeId>(type_id);
      v.column_names.push_back(std::move(column));
      v.column_types.push_back(t);
    }
    r.Get(&ndeps);
    for (uint16_t d = 0; d < ndeps && r.ok(); d++) {
      std::string dep;
      r.GetString(&dep);
      v.depends_on.push_back(std::move(dep));
    }
    std::string name = v.name;
    views.emplace(std::move(name), std::move(v));
  }
  std::map<TableId, Sequence> sequences;
  uint32_t sequence_count = 0;
  if (version >= 5) r.Get(&sequence_count);
  for (uint32_t i = 0; i < sequence_count && r.ok(); i++) {
    Sequence q;
    uint32_t id = 0, owner = 0;
    uint8_t type = 0, cycle = 0, identity = 0, is_called = 0;
    r.Get(&id);
    r.GetString(&q.def.name);
    r.Get(&type);
    for (int64_t* v : {&q.def.start, &q.def.increment, &q.def.min, &q.def.max, &q.def.cache}) {
      r.Get(v);
    }
    r.Get(&cycle);
    r.Get(&owner);
    r.GetString(&q.def.owner_column);
    r.Get(&identity);
    r.Get(&q.state.last_value);
    r.Get(&is_called);
    const auto t = static_cast<TypeId>(type);
    if (t != TypeId::kSmallInt && t != TypeId::kInteger && t != TypeId::kBigInt) {
      return Status::Corruption("catalog image: bad sequence type");
    }
    if (id == 0 || id >= next_id || sequences.count(TableId(id))) {
      return Status::Corruption("catalog image: bad sequence id");
    }
    q.id = TableId(id);
    q.def.type = t;
    q.def.cycle = cycle != 0;
    q.def.owner_table = TableId(owner);
    q.def.identity = identity != 0;
    q.state.is_called = is_called != 0;
    sequences.emplace(q.id, std::move(q));
  }
  uint32_t commented = 0;
  if (version >= 6) r.Get(&commented);
  for (uint32_t i = 0; i < commented && r.ok(); i++) {
    uint32_t id = 0;
    uint16_t columns = 0;
    std::string comment;
    r.Get(&id);
    r.GetString(&comment);
    r.Get(&columns);
    auto it = std::find_if(parsed.begin(), parsed.end(),
                           [&](const auto& p) { return p.first == TableId(id); });
    if (it == parsed.end()) return Status::Corruption("catalog image: comment of no table");
    TableSchema& schema = it->second.first;
    schema.comment = std::move(comment);
    for (uint16_t c = 0; c < columns && r.ok(); c++) {
      uint16_t column = 0;
      r.Get(&column);
      if (column >= schema.columns.size()) {
        return Status::Corruption("catalog image: comment of no column");
      }
      r.GetString(&schema.columns[column].comment);
    }
  }
  if (!r.done()) return Status::Corruption("catalog image: truncated or trailing bytes");
  std::map<TableId, std::unique_ptr<Table>> tables;
  std::map<std::string, TableId, std::less<>> by_name;
  try {
    for (size_t t = 0; t < parsed.size(); t++) {
      auto& [id, so] = parsed[t];
      Validate(so.first);
      if (!by_name.emplace(so.first.name, id).second || tables.count(id)) {
        return Status::Corruption("catalog image: duplicate table");
      }
      std::unique_ptr<Table> table = NewTable(id, std::move(so.first), so.second);
      for (const auto& [column, value] : identities[t]) table->SetIdentityValue(column, value);
      tables.emplace(id, std::move(table));
    }
  } catch (const DbError& e) {
    return Status::Corruption(fmt::format("catalog image: {}", e.what()));
  }
  for (const auto& [id, sequence] : sequences) {
    if (tables.count(id) || by_name.count(sequence.def.name) || views.count(sequence.def.name)) {
      return Status::Corruption("catalog image: a sequence shares a table's id or name");
    }
  }
  tables_ = std::move(tables);
  by_name_ = std::move(by_name);
  // Foreign keys name their referenced tables: checked once all are known.
  try {
    for (const auto& [id, table] : tables_) {
      for (const ForeignKeyDef& fk : table->schema().foreign_keys) {
        ValidateReferences(table->schema(), fk);
      }
    }
  } catch (const DbError& e) {
    tables_.clear();
    by_name_.clear();
    return Status::Corruption(fmt::format("catalog image: {}", e.what()));
  }
  RefreshReferences();
  views_ = std::move(views);
  sequences_ = std::move(sequences);
  next_table_id_ = next_id;
  schema_version_++;
  return Status::Ok();
}

}  // namespace forktail
