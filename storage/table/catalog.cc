#include "storage/table/catalog.h"

#include <cstring>
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

}  // namespace

void Catalog::Validate(const TableSchema& schema) {
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
}

Table& Catalog::CreateTable(TableSchema schema, TableOptions options) {
  if (by_name_.count(schema.name)) {
    throw DbError(sqlstate::kDuplicateTable,
                  fmt::format("relation \"{}\" already exists", schema.name));
  }
  Validate(schema);
  TableId id(next_table_id_);
  auto table = std::make_unique<Table>(id, std::move(schema), options);  // may throw 54000
  next_table_id_++;
  Table& ref = *table;
  by_name_.emplace(ref.schema().name, id);
  tables_.emplace(id, std::move(table));
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
  schema_version_++;
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

std::unique_ptr<Catalog> Catalog::CopySchemas() const {
  auto copy = std::make_unique<Catalog>();
  for (const auto& [id, table] : tables_) {
    auto empty = std::make_unique<Table>(id, table->schema(), table->options());
    copy->by_name_.emplace(empty->schema().name, id);
    copy->tables_.emplace(id, std::move(empty));
  }
  copy->next_table_id_ = next_table_id_;
  copy->schema_version_ = schema_version_;
  return copy;
}

Table* Catalog::FindTable(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : tables_.at(it->second).get();
}

Table& Catalog::GetTable(TableId id) const {
  auto it = tables_.find(id);
  if (it == tables_.end()) {
    throw DbError(sqlstate::kUndefinedTable,
                  fmt::format("relation with OID {} does not exist", id.value()));
  }
  return *it->second;
}

std::vector<TableId> Catalog::ListTables() const {
  std::vector<TableId> ids;
  for (const auto& [id, table] : tables_) ids.push_back(id);
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
    }
    w.Put(static_cast<uint16_t>(s.primary_key.size()));
    for (ColumnId k : s.primary_key) w.Put(k.value());
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
  if (version != kCatalogFormatVersion) {
    return Status::Corruption(fmt::format("catalog image: unsupported format version {}", version));
  }
  r.Get(&next_id);
  r.Get(&count);
  std::vector<std::pair<TableId, std::pair<TableSchema, TableOptions>>> parsed;
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
      if (type_id > static_cast<uint8_t>(TypeId::kTimestamp)) {
        return Status::Corruption(fmt::format("catalog image: unknown type id {}", type_id));
      }
      c.type.id = static_cast<TypeId>(type_id);
      c.not_null = not_null != 0;
      s.columns.push_back(std::move(c));
    }
    r.Get(&nkey);
    for (uint16_t i = 0; i < nkey && r.ok(); i++) {
      uint16_t k = 0;
      r.Get(&k);
      s.primary_key.push_back(ColumnId(k));
    }
    if (id == 0 || id >= next_id) return Status::Corruption("catalog image: bad table id");
    parsed.push_back({TableId(id), {std::move(s), o}});
  }
  if (!r.done()) return Status::Corruption("catalog image: truncated or trailing bytes");
  std::map<TableId, std::unique_ptr<Table>> tables;
  std::map<std::string, TableId, std::less<>> by_name;
  try {
    for (auto& [id, so] : parsed) {
      Validate(so.first);
      if (!by_name.emplace(so.first.name, id).second || tables.count(id)) {
        return Status::Corruption("catalog image: duplicate table");
      }
      tables.emplace(id, std::make_unique<Table>(id, std::move(so.first), so.second));
    }
  } catch (const DbError& e) {
    return Status::Corruption(fmt::format("catalog image: {}", e.what()));
  }
  tables_ = std::move(tables);
  by_name_ = std::move(by_name);
  next_table_id_ = next_id;
  schema_version_++;
  return Status::Ok();
}

}  // namespace forktail
