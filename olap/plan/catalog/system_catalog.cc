// CatalogView: the relations of a Catalog with their OIDs, the rows of the
// system relations, and what the catalog functions answer about them.
#include <strings.h>

#include <algorithm>
#include <map>

#include "olap/plan/catalog/system_catalog.h"
#include "storage/error.h"

namespace forktail {

namespace {

using namespace catalog_oid;  // NOLINT

// One row under construction: unset columns take PostgreSQL's usual "empty"
// values (0 for OIDs and numbers, false, '' for "char", NULL otherwise).
class RowBuilder {
 public:
  explicit RowBuilder(const SystemRelationDef& def) : def_(def) {
    bool pg = def.schema == "pg_catalog";  // information_schema: NULL by default
    for (const SystemColumn& c : def.columns) {
      if (!pg) {
        row_.push_back(Value::Null(c.type));
      } else if (c.pg_type == 26 || c.pg_type == 23 || c.pg_type == 28) {
        row_.push_back(Value::Integer(0));
      } else if (c.pg_type == 21) {
        row_.push_back(Value::SmallInt(0));
      } else if (c.pg_type == 16) {
        row_.push_back(Value::Boolean(false));
      } else if (c.pg_type == 18) {
        row_.push_back(Value::Text(""));
      } else {
        row_.push_back(Value::Null(c.type));
      }
    }
  }
  RowBuilder& Int(const char* column, int64_t v) {
    const Type& t = def_.columns[def_.Column(column)].type;
    Value x = t.id == TypeId::kSmallInt ? Value::SmallInt(static_cast<int16_t>(v))
              : t.id == TypeId::kBigInt ? Value::BigInt(v)
              : t.id == TypeId::kDouble ? Value::Double(static_cast<double>(v))
                                        : Value::Integer(static_cast<int32_t>(v));
    row_[def_.Column(column)] = x;
    return *this;
  }
  RowBuilder& Bool(const char* column, bool v) {
    row_[def_.Column(column)] = Value::Boolean(v);
    return *this;
  }
  RowBuilder& Str(const char* column, std::string v) {
    const Type& t = def_.columns[def_.Column(column)].type;
    row_[def_.Column(column)] = Value::String(t, std::move(v));
    return *this;
  }
  RowBuilder& Null(const char* column) {
    const Type& t = def_.columns[def_.Column(column)].type;
    row_[def_.Column(column)] = Value::Null(t);
    return *this;
  }
  // Microseconds since 1970-01-01 UTC; 0 is NULL.
  RowBuilder& Time(const char* column, int64_t micros) {
    if (micros == 0) return *this;
    const bool zoned = def_.columns[def_.Column(column)].type.id == TypeId::kTimestampTz;
    row_[def_.Column(column)] = zoned ? Value::TimestampTz(micros) : Value::Timestamp(micros);
    return *this;
  }
  Row Done() { return std::move(row_); }

 private:
  const SystemRelationDef& def_;
  Row row_;
};

bool IsViewOid(int32_t oid) { return oid >= 12000; }

const Table* FindTableById(const Catalog& catalog, TableId id) {
  for (TableId t : catalog.ListTables()) {
    if (t == id) return &catalog.GetTable(id);
  }
  return nullptr;
}

// The columns of an index relation ('i'): its primary key or secondary index.
const std::vector<ColumnId>& IndexColumns(const CatalogRelation& r) {
  const TableSchema& s = r.table->schema();
  return r.index_position < 0 ? s.primary_key
                              : s.indexes[static_cast<size_t>(r.index_position)].columns;
}

std::string KeyColumns(const TableSchema& schema, const std::vector<ColumnId>& columns) {
  std::string s;
  for (ColumnId k : columns) {
    if (!s.empty()) s += ", ";
    s += QuoteIdent(schema.column(k).name);
  }
  return s;
}

struct AttributeInfo {
  std::string name;
  int32_t type_oid;
  int32_t typmod;
  bool not_null;
  std::string default_sql;  // empty: none
  ColumnIdentity identity = ColumnIdentity::kNone;
};

std::vector<AttributeInfo> Attributes(const CatalogRelation& rel) {
  std::vector<AttributeInfo> out;
  if (rel.system != nullptr) {
    for (const SystemColumn& c : rel.system->columns) {
      out.push_back({c.name, c.pg_type, -1, false});
    }
  } else if (rel.view != nullptr) {
    for (size_t i = 0; i < rel.view->column_names.size(); i++) {
      const Type& t = rel.view->column_types[i];
      out.push_back({rel.view->column_names[i], PgTypeOid(t), PgTypeModifier(t), false, "",
                     ColumnIdentity::kNone});
    }
  } else if (rel.sequence != nullptr) {
    // A sequence reads as one row of these (FROM s).
    out.push_back({"last_value", 20, -1, true, ""});
    out.push_back({"log_cnt", 20, -1, true, ""});
    out.push_back({"is_called", 16, -1, true, ""});
  } else if (rel.kind == 'r') {
    for (const ColumnDef& c : rel.table->schema().columns) {
      out.push_back({c.name, PgTypeOid(c.type), PgTypeModifier(c.type), c.not_null, c.default_sql,
                     c.identity});
    }
  } else {
    const TableSchema& s = rel.table->schema();
    for (ColumnId k : IndexColumns(rel)) {
      const ColumnDef& c = s.column(k);
      out.push_back({c.name, PgTypeOid(c.type), PgTypeModifier(c.type), false});
    }
  }
  return out;
}

const char* InfoSchemaDataType(int32_t oid) {
  const PgCatalogType* t = FindPgCatalogType(oid);
  if (t == nullptr) return "USER-DEFINED";
  if (t->category == 'A') return "ARRAY";
  return t->display;
}

}  // namespace

CatalogView::CatalogView(const Catalog& catalog, CatalogSession session)
    : catalog_(catalog), session_(std::move(session)) {
  for (const SystemRelationDef& d : SystemRelations()) {
    CatalogRelation r;
    r.oid = d.oid;
    r.name = d.name;
    r.namespace_oid = d.schema == "pg_catalog" ? kPgCatalogNamespace : kInformationSchemaNamespace;
    r.kind = IsViewOid(d.oid) ? 'v' : 'r';
    r.system = &d;
    relations_.push_back(r);
  }
  for (TableId id : catalog_.ListTables()) {
    const Table& t = catalog_.GetTable(id);
    CatalogRelation r;
    r.oid = TableOid(id);
    r.name = t.schema().name;
    r.table = &t;
    relations_.push_back(r);
    if (!t.schema().primary_key.empty()) {
      r.oid = IndexOid(id);
      r.name = t.schema().name + "_pkey";
      r.kind = 'i';
      relations_.push_back(r);
    }
    for (size_t i = 0; i < t.schema().indexes.size(); i++) {
      r.oid = SecondaryIndexOid(id, i);
      r.name = t.schema().indexes[i].name;
      r.kind = 'i';
      r.index_position = static_cast<int>(i);
      relations_.push_back(r);
    }
  }
  for (const auto& [name, view] : catalog_.views()) {
    CatalogRelation r;
    r.oid = UserViewOid(name);
    r.name = name;
    r.kind = 'v';
    r.view = &view;
    relations_.push_back(r);
  }
  for (const auto& [id, sequence] : catalog_.sequences()) {
    CatalogRelation r;
    r.oid = TableOid(id);
    r.name = sequence.def.name;
    r.kind = 'S';
    r.sequence = &sequence;
    relations_.push_back(r);
  }
}

const CatalogRelation* CatalogView::FindRelation(int32_t oid) const {
  for (const CatalogRelation& r : relations_) {
    if (r.oid == oid) return &r;
  }
  return nullptr;
}

const CatalogRelation* CatalogView::FindRelationByName(const std::string& name) const {
  std::string schema;
  std::string rel = name;
  size_t dot = name.find('.');
  if (dot != std::string::npos) {
    schema = name.substr(0, dot);
    rel = name.substr(dot + 1);
  }
  const CatalogRelation* found = nullptr;
  for (const CatalogRelation& r : relations_) {
    if (r.name != rel) continue;
    std::optional<std::string> nsp = NamespaceName(r.namespace_oid);
    if (!schema.empty() ? nsp == schema : r.namespace_oid != kInformationSchemaNamespace) {
      // pg_catalog comes first on the search path.
      if (found == nullptr || r.namespace_oid == kPgCatalogNamespace) found = &r;
    }
  }
  return found;
}

const CatalogRelation& CatalogView::ResolveRegclass(const std::vector<std::string>& names) const {
  if (names.size() > 2) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  "cross-database references are not implemented: " + names[0] + "." + names[1] +
                      "." + names[2]);
  }
  const CatalogRelation* found = nullptr;
  for (const CatalogRelation& r : relations_) {
    if (r.name != names.back()) continue;
    if (names.size() == 2) {
      if (NamespaceName(r.namespace_oid) != names[0]) continue;
    } else if (r.namespace_oid == kInformationSchemaNamespace) {
      continue;
    }
    // pg_catalog comes first on the search path.
    if (found == nullptr || r.namespace_oid == kPgCatalogNamespace) found = &r;
  }
  if (found != nullptr) return *found;
  if (names.size() == 2 && names[0] != "public" && names[0] != "pg_catalog" &&
      names[0] != "information_schema") {
    throw DbError("3F000", "schema \"" + names[0] + "\" does not exist");
  }
  throw DbError(sqlstate::kUndefinedTable, "relation \"" +
                                               (names.size() == 2 ? names[0] + "." : "") +
                                               names.back() + "\" does not exist");
}

std::optional<std::string> CatalogView::SerialSequence(const Table& table,
                                                       const std::string& column) const {
  for (TableId id : catalog_.OwnedSequences(table.id(), column)) {
    return "public." + QuoteIdent(catalog_.GetSequence(id)->def.name);
  }
  return std::nullopt;
}

std::string CatalogView::RegclassName(int32_t oid) const {
  const CatalogRelation* r = FindRelation(oid);
  if (r == nullptr) return std::to_string(oid);
  if (r->namespace_oid == kInformationSchemaNamespace)
    return "information_schema." + QuoteIdent(r->name);
  if (r->namespace_oid == kPublicNamespace && FindRelationByName(r->name) != r) {
    return "public." + QuoteIdent(r->name);
  }
  return QuoteIdent(r->name);
}

std::optional<std::string> CatalogView::IndexDef(int32_t index_oid) const {
  const CatalogRelation* r = FindRelation(index_oid);
  if (r == nullptr || r->kind != 'i') return std::nullopt;
  const bool unique = r->index_position < 0 || r->table->schema().indexes[r->index_position].unique;
  return std::string(unique ? "CREATE UNIQUE INDEX " : "CREATE INDEX ") + QuoteIdent(r->name) +
         " ON public." + QuoteIdent(r->table->schema().name) + " USING btree (" +
         KeyColumns(r->table->schema(), IndexColumns(*r)) + ")";
}

std::optional<std::string> CatalogView::ViewDefinition(int32_t view_oid) const {
  const CatalogRelation* r = FindRelation(view_oid);
  if (r == nullptr || r->view == nullptr) return std::nullopt;
  return " " + r->view->sql + ";";  // PostgreSQL's pg_get_viewdef shape
}

namespace {

// "(a > 0)" -> "a > 0" when the parentheses enclose the whole text.
std::string WithoutOuterParentheses(const std::string& text) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') return text;
  int depth = 0;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); i++) {
    if (text[i] == '\'') quoted = !quoted;
    if (quoted) continue;
    depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
    if (depth == 0 && i + 1 < text.size()) return text;  // closes before the end
  }
  return text.substr(1, text.size() - 2);
}

// pg_get_constraintdef of a foreign key: "FOREIGN KEY (a) REFERENCES p(id)
// MATCH FULL ON UPDATE ... ON DELETE ... (cols)", as ruleutils.c prints it.
std::string ForeignKeyText(const TableSchema& schema, const ForeignKeyDef& fk,
                           const TableSchema& referenced) {
  auto action = [](ForeignKeyAction a) -> std::string {
    switch (a) {
      case ForeignKeyAction::kNoAction:
        return "";
      case ForeignKeyAction::kRestrict:
        return "RESTRICT";
      case ForeignKeyAction::kCascade:
        return "CASCADE";
      case ForeignKeyAction::kSetNull:
        return "SET NULL";
      case ForeignKeyAction::kSetDefault:
        return "SET DEFAULT";
    }
    return "";
  };
  std::string text = "FOREIGN KEY (" + KeyColumns(schema, fk.columns) + ") REFERENCES " +
                     QuoteIdent(referenced.name) + "(" +
                     KeyColumns(referenced, fk.referenced_columns) + ")";
  if (fk.match_full) text += " MATCH FULL";
  if (!action(fk.on_update).empty()) text += " ON UPDATE " + action(fk.on_update);
  if (!action(fk.on_delete).empty()) text += " ON DELETE " + action(fk.on_delete);
  if (!fk.delete_set_columns.empty())
    text += " (" + KeyColumns(schema, fk.delete_set_columns) + ")";
  return text;
}

}  // namespace

std::optional<std::string> CatalogView::ConstraintDef(int32_t constraint_oid) const {
  if (constraint_oid >= kFirstForeignKeyOid) {
    for (const CatalogRelation& t : relations_) {
      if (t.kind != 'r' || t.table == nullptr) continue;
      const std::vector<ForeignKeyDef>& fks = t.table->schema().foreign_keys;
      for (size_t k = 0; k < fks.size(); k++) {
        const Table* referenced = catalog_.FindTable(fks[k].referenced_table);
        if (ForeignKeyOid(t.table->id(), k) == constraint_oid && referenced != nullptr) {
          return ForeignKeyText(t.table->schema(), fks[k], referenced->schema());
        }
      }
    }
    return std::nullopt;
  }
  if (constraint_oid >= kFirstCheckOid) {  // a CHECK constraint
    for (const CatalogRelation& t : relations_) {
      if (t.kind != 'r' || t.table == nullptr) continue;
      const std::vector<CheckDef>& checks = t.table->schema().checks;
      for (size_t k = 0; k < checks.size(); k++) {
        if (CheckOid(t.table->id(), k) == constraint_oid) {
          return "CHECK (" + WithoutOuterParentheses(checks[k].sql) + ")";
        }
      }
    }
    return std::nullopt;
  }
  const CatalogRelation* r = FindRelation(constraint_oid - 1);
  if (r == nullptr || r->kind != 'i' || r->system != nullptr) return std::nullopt;
  if (r->index_position >= 0) {
    if (!r->table->schema().indexes[r->index_position].constraint) return std::nullopt;
    return "UNIQUE (" + KeyColumns(r->table->schema(), IndexColumns(*r)) + ")";
  }
  return "PRIMARY KEY (" + KeyColumns(r->table->schema(), IndexColumns(*r)) + ")";
}

std::optional<std::string> CatalogView::UserName(int32_t role_oid) const {
  if (role_oid == kSuperuserRole) return session_.user;
  if (role_oid == kDatabaseOwnerRole) return std::string("pg_database_owner");
  return std::nullopt;
}

std::optional<std::string> CatalogView::NamespaceName(int32_t namespace_oid) const {
  if (namespace_oid == kPgCatalogNamespace) return std::string("pg_catalog");
  if (namespace_oid == kPublicNamespace) return std::string("public");
  if (namespace_oid == kInformationSchemaNamespace) return std::string("information_schema");
  return std::nullopt;
}

std::vector<Row> CatalogView::Rows(const SystemRelationDef& def) const {
  std::vector<Row> rows;
  const std::string& n = def.name;
  auto add = [&](RowBuilder& b) { rows.push_back(b.Done()); };
  if (def.schema == "information_schema") {
    std::vector<std::string> schemas = {"pg_catalog", "public", "information_schema"};
    if (n == "schemata") {
      for (const std::string& s : schemas) {
        RowBuilder b(def);
        b.Str("catalog_name", session_.database).Str("schema_name", s);
        b.Str("schema_owner", s == "public" ? "pg_database_owner" : session_.user);
        add(b);
      }
    }
    if (n == "sequences") {
      // As PostgreSQL's view: identity columns' sequences are left out.
      for (const auto& [id, q] : catalog_.sequences()) {
        if (q.def.identity) continue;
        RowBuilder b(def);
        b.Str("sequence_catalog", session_.database).Str("sequence_schema", "public");
        b.Str("sequence_name", q.def.name).Str("data_type", SequenceTypeName(q.def.type));
        b.Int("numeric_precision", q.def.type == TypeId::kSmallInt  ? 16
                                   : q.def.type == TypeId::kInteger ? 32
                                                                    : 64);
        b.Int("numeric_precision_radix", 2).Int("numeric_scale", 0);
        b.Str("start_value", std::to_string(q.def.start));
        b.Str("minimum_value", std::to_string(q.def.min));
        b.Str("maximum_value", std::to_string(q.def.max));
        b.Str("increment", std::to_string(q.def.increment));
        b.Str("cycle_option", q.def.cycle ? "YES" : "NO");
        add(b);
      }
    }
    for (const CatalogRelation& r : relations_) {
      if (r.kind == 'i' || r.kind == 'S') continue;
      std::string schema = *NamespaceName(r.namespace_oid);
      if (n == "tables") {
        RowBuilder b(def);
        b.Str("table_catalog", session_.database).Str("table_schema", schema);
        b.Str("table_name", r.name).Str("table_type", r.kind == 'v' ? "VIEW" : "BASE TABLE");
        b.Str("is_insertable_into", r.system == nullptr && r.view == nullptr ? "YES" : "NO");
        b.Str("is_typed", "NO");
        add(b);
      } else if (n == "columns") {
        std::vector<AttributeInfo> attrs = Attributes(r);
        for (size_t i = 0; i < attrs.size(); i++) {
          const AttributeInfo& a = attrs[i];
          const PgCatalogType* t = FindPgCatalogType(a.type_oid);
          RowBuilder b(def);
          b.Str("table_catalog", session_.database).Str("table_schema", schema);
          b.Str("table_name", r.name).Str("column_name", a.name);
          b.Int("ordinal_position", static_cast<int64_t>(i + 1));
          b.Str("is_nullable", a.not_null ? "NO" : "YES");
          b.Str("data_type", InfoSchemaDataType(a.type_oid));
          if ((a.type_oid == 1042 || a.type_oid == 1043) && a.typmod >= 0) {
            b.Int("character_maximum_length", a.typmod - 4);
            b.Int("character_octet_length", 4 * (a.typmod - 4));
          }
          if (a.type_oid == 1700 && a.typmod >= 0) {
            b.Int("numeric_precision", ((a.typmod - 4) >> 16) & 0xffff);
            b.Int("numeric_precision_radix", 10).Int("numeric_scale", (a.typmod - 4) & 0xffff);
          }
          int bits = a.type_oid == 21 ? 16 : a.type_oid == 23 ? 32 : a.type_oid == 20 ? 64 : 0;
          if (bits != 0) {
            b.Int("numeric_precision", bits).Int("numeric_precision_radix", 2);
            b.Int("numeric_scale", 0);
          }
          if (a.type_oid == 701) b.Int("numeric_precision", 53).Int("numeric_precision_radix", 2);
          if (a.type_oid == 1082) b.Int("datetime_precision", 0);
          if (a.type_oid == 1114 || a.type_oid == 1184) b.Int("datetime_precision", 6);
          b.Str("udt_catalog", session_.database).Str("udt_schema", "pg_catalog");
          b.Str("udt_name", t != nullptr ? t->name : "???");
          b.Str("dtd_identifier", std::to_string(i + 1)).Str("is_self_referencing", "NO");
          const bool identity =
              a.identity == ColumnIdentity::kByDefault || a.identity == ColumnIdentity::kAlways;
          if (!a.default_sql.empty()) b.Str("column_default", a.default_sql);
          b.Str("is_identity", identity ? "YES" : "NO").Str("is_generated", "NEVER");
          if (identity) {
            b.Str("identity_generation",
                  a.identity == ColumnIdentity::kAlways ? "ALWAYS" : "BY DEFAULT");
          }
          const Sequence* q = identity && r.table != nullptr
                                  ? catalog_.IdentitySequence(r.table->id(), a.name)
                                  : nullptr;
          if (q != nullptr) {
            b.Str("identity_start", std::to_string(q->def.start));
            b.Str("identity_increment", std::to_string(q->def.increment));
            b.Str("identity_maximum", std::to_string(q->def.max));
            b.Str("identity_minimum", std::to_string(q->def.min));
            b.Str("identity_cycle", q->def.cycle ? "YES" : "NO");
          }
          b.Str("is_updatable", r.system == nullptr ? "YES" : "NO");
          add(b);
        }
      }
    }
    return rows;
  }
  if (n == "pg_namespace") {
    for (int32_t oid : {kPgCatalogNamespace, kPublicNamespace, kInformationSchemaNamespace}) {
      RowBuilder b(def);
      b.Int("oid", oid).Str("nspname", *NamespaceName(oid));
      b.Int("nspowner", oid == kPublicNamespace ? kDatabaseOwnerRole : kSuperuserRole);
      add(b);
    }
  } else if (n == "pg_class") {
    for (const CatalogRelation& r : relations_) {
      RowBuilder b(def);
      // PostgreSQL enforces foreign keys with triggers on both tables; psql
      // looks for the constraints only where relhastriggers is set.
      b.Bool("relhastriggers",
             r.kind == 'r' && r.table != nullptr &&
                 (!r.table->schema().foreign_keys.empty() || !r.table->referenced_by().empty()));
      b.Int("oid", r.oid).Str("relname", r.name).Int("relnamespace", r.namespace_oid);
      b.Int("relowner", kSuperuserRole);
      b.Int("relam", r.kind == 'r' ? kHeapAm : r.kind == 'i' ? kBtreeAm : 0);
      b.Int("relfilenode", r.kind == 'v' ? 0 : r.oid).Int("reltuples", r.kind == 'S' ? 1 : -1);
      if (r.kind == 'S') b.Int("relpages", 1);
      b.Bool("relhasindex",
             r.kind == 'r' && r.table != nullptr &&
                 (!r.table->schema().primary_key.empty() || !r.table->schema().indexes.empty()));
      b.Str("relpersistence", "p").Str("relkind", std::string(1, r.kind));
      if (r.kind == 'r' && r.table != nullptr) {
        b.Int("relchecks", static_cast<int64_t>(r.table->schema().checks.size()));
      }
      b.Int("relnatts", static_cast<int64_t>(Attributes(r).size()));
      b.Bool("relispopulated", true).Str("relreplident", r.kind == 'r' ? "d" : "n");
      add(b);
    }
  } else if (n == "pg_attribute") {
    for (const CatalogRelation& r : relations_) {
      std::vector<AttributeInfo> attrs = Attributes(r);
      for (size_t i = 0; i < attrs.size(); i++) {
        const AttributeInfo& a = attrs[i];
        const PgCatalogType* t = FindPgCatalogType(a.type_oid);
        int16_t len = t != nullptr ? t->length : -1;
        RowBuilder b(def);
        b.Int("attrelid", r.oid).Str("attname", a.name).Int("atttypid", a.type_oid);
        b.Int("attstattarget", -1).Int("attlen", len).Int("attnum", static_cast<int64_t>(i + 1));
        b.Int("attcacheoff", -1).Int("atttypmod", a.typmod);
        b.Bool("attbyval", len > 0 && len <= 8 && a.type_oid != 19);
        b.Str("attalign", len == 8 ? "d" : len == 2 ? "s" : len == 1 ? "c" : "i");
        b.Str("attstorage", len > 0 ? "p" : a.type_oid == 1700 ? "m" : "x");
        b.Bool("attnotnull", a.not_null).Bool("attislocal", true);
        b.Bool("atthasdef", !a.default_sql.empty());
        b.Str("attidentity", a.identity == ColumnIdentity::kByDefault ? "d"
                             : a.identity == ColumnIdentity::kAlways  ? "a"
                                                                      : "");
        b.Int("attcollation", t != nullptr && t->collatable ? kDefaultCollation : 0);
        add(b);
      }
    }
  } else if (n == "pg_type") {
    for (const PgCatalogType& t : PgCatalogTypes()) {
      RowBuilder b(def);
      b.Int("oid", t.oid).Str("typname", t.name).Int("typnamespace", kPgCatalogNamespace);
      b.Int("typowner", kSuperuserRole).Int("typlen", t.length);
      b.Bool("typbyval", t.length > 0 && t.length <= 8 && t.oid != 19);
      b.Str("typtype", "b").Str("typcategory", std::string(1, t.category));
      b.Bool("typisdefined", true).Str("typdelim", ",").Int("typelem", t.element);
      b.Int("typarray", t.array).Str("typalign", t.length == 8 ? "d" : "i");
      b.Str("typstorage", t.length > 0 ? "p" : "x").Int("typtypmod", -1);
      b.Int("typcollation", t.collatable ? kDefaultCollation : 0);
      add(b);
    }
  } else if (n == "pg_index" || n == "pg_constraint") {
    if (n == "pg_constraint") {  // CHECK and FOREIGN KEY constraints
      for (const CatalogRelation& r : relations_) {
        if (r.kind != 'r' || r.table == nullptr) continue;
        const std::vector<CheckDef>& checks = r.table->schema().checks;
        for (size_t k = 0; k < checks.size(); k++) {
          RowBuilder b(def);
          b.Int("oid", CheckOid(r.table->id(), k)).Str("conname", checks[k].name);
          b.Int("connamespace", kPublicNamespace).Str("contype", "c");
          b.Bool("convalidated", true).Int("conrelid", r.oid).Int("conindid", 0);
          b.Str("confupdtype", " ").Str("confdeltype", " ").Str("confmatchtype", " ");
          b.Bool("conislocal", true).Bool("connoinherit", false);
          add(b);
        }
        const std::vector<ForeignKeyDef>& fks = r.table->schema().foreign_keys;
        for (size_t k = 0; k < fks.size(); k++) {
          const ForeignKeyDef& fk = fks[k];
          const Table* referenced = catalog_.FindTable(fk.referenced_table);
          if (referenced == nullptr) continue;
          auto positions = [](const std::vector<ColumnId>& columns) {
            std::string s;
            for (ColumnId c : columns) s += (s.empty() ? "" : ",") + std::to_string(c.value() + 1);
            return "{" + s + "}";
          };
          const int unique = *referenced->schema().FindUniqueKey(fk.referenced_columns);
          RowBuilder b(def);
          b.Int("oid", ForeignKeyOid(r.table->id(), k)).Str("conname", fk.name);
          b.Int("connamespace", kPublicNamespace).Str("contype", "f");
          b.Bool("convalidated", true).Int("conrelid", r.oid);
          b.Int("conindid", unique < 0
                                ? IndexOid(referenced->id())
                                : SecondaryIndexOid(referenced->id(), static_cast<size_t>(unique)));
          b.Int("confrelid", TableOid(referenced->id()));
          b.Str("confupdtype", std::string(1, static_cast<char>(fk.on_update)));
          b.Str("confdeltype", std::string(1, static_cast<char>(fk.on_delete)));
          b.Str("confmatchtype", fk.match_full ? "f" : "s");
          b.Bool("conislocal", true).Bool("connoinherit", true);
          b.Str("conkey", positions(fk.columns)).Str("confkey", positions(fk.referenced_columns));
          if (!fk.delete_set_columns.empty()) {
            b.Str("confdelsetcols", positions(fk.delete_set_columns));
          }
          add(b);
        }
      }
    }
    for (const CatalogRelation& r : relations_) {
      if (r.kind != 'i') continue;
      const TableSchema& s = r.table->schema();
      const forktail::IndexDef* secondary =
          r.index_position < 0 ? nullptr : &s.indexes[static_cast<size_t>(r.index_position)];
      if (n == "pg_constraint" && secondary != nullptr && !secondary->constraint) continue;
      const std::vector<ColumnId>& columns = IndexColumns(r);
      const int32_t table_oid = TableOid(r.table->id());
      std::string key_list;
      std::string zeros;
      for (ColumnId k : columns) {
        key_list += (key_list.empty() ? "" : " ") + std::to_string(k.value() + 1);
        zeros += zeros.empty() ? "0" : " 0";
      }
      RowBuilder b(def);
      if (n == "pg_index") {
        b.Int("indexrelid", r.oid).Int("indrelid", table_oid);
        b.Int("indnatts", static_cast<int64_t>(columns.size()));
        b.Int("indnkeyatts", static_cast<int64_t>(columns.size()));
        b.Bool("indisunique", secondary == nullptr || secondary->unique);
        b.Bool("indisprimary", secondary == nullptr).Bool("indimmediate", true);
        b.Bool("indisvalid", true).Bool("indisready", true).Bool("indislive", true);
        b.Str("indkey", key_list).Str("indcollation", zeros).Str("indclass", zeros);
        b.Str("indoption", zeros);
      } else {
        std::string conkey = key_list;
        for (char& c : conkey) c = c == ' ' ? ',' : c;
        b.Int("oid", r.oid + 1).Str("conname", r.name).Int("connamespace", kPublicNamespace);
        b.Str("contype", secondary == nullptr ? "p" : "u").Bool("convalidated", true);
        b.Int("conrelid", table_oid);
        b.Int("conindid", r.oid).Str("confupdtype", " ").Str("confdeltype", " ");
        b.Str("confmatchtype", " ").Bool("conislocal", true).Bool("connoinherit", true);
        b.Str("conkey", "{" + conkey + "}");
      }
      add(b);
    }
  } else if (n == "pg_am") {
    RowBuilder heap(def);
    heap.Int("oid", kHeapAm).Str("amname", "heap").Str("amhandler", "heap_tableam_handler");
    heap.Str("amtype", "t");
    add(heap);
    RowBuilder btree(def);
    btree.Int("oid", kBtreeAm).Str("amname", "btree").Str("amhandler", "bthandler");
    btree.Str("amtype", "i");
    add(btree);
  } else if (n == "pg_opclass") {
    // The btree operator classes of the types Forktail stores, each its
    // type's default (PostgreSQL 15's OIDs); indexes use no other.
    struct Opclass {
      int32_t oid;
      const char* name;
      int32_t family, type, key_type;
    };
    static const Opclass kOpclasses[] = {
        {1978, "int4_ops", 1976, 23, 0},         {1979, "int2_ops", 1976, 21, 0},
        {1981, "oid_ops", 1989, 26, 0},          {3122, "date_ops", 434, 1082, 0},
        {3123, "float8_ops", 1970, 701, 0},      {3124, "int8_ops", 1976, 20, 0},
        {3125, "numeric_ops", 1988, 1700, 0},    {3126, "text_ops", 1994, 25, 0},
        {3127, "timestamptz_ops", 434, 1184, 0}, {3128, "timestamp_ops", 434, 1114, 0},
        {10003, "bool_ops", 424, 16, 0},         {10004, "bpchar_ops", 426, 1042, 0},
        {10006, "bytea_ops", 428, 17, 0},        {10012, "float4_ops", 1970, 700, 0},
        {10022, "interval_ops", 1982, 1186, 0},  {10028, "name_ops", 1994, 19, 2275},
        {10038, "time_ops", 1996, 1083, 0},      {10065, "uuid_ops", 2968, 2950, 0},
        {10088, "jsonb_ops", 4033, 3802, 0},
    };
    for (const Opclass& o : kOpclasses) {
      RowBuilder b(def);
      b.Int("oid", o.oid).Int("opcmethod", kBtreeAm).Str("opcname", o.name);
      b.Int("opcnamespace", kPgCatalogNamespace).Int("opcowner", kSuperuserRole);
      b.Int("opcfamily", o.family).Int("opcintype", o.type).Bool("opcdefault", true);
      b.Int("opckeytype", o.key_type);
      add(b);
    }
  } else if (n == "pg_collation") {
    const std::pair<int32_t, const char*> colls[] = {{100, "default"}, {950, "C"}, {951, "POSIX"}};
    for (const auto& [oid, name] : colls) {
      RowBuilder b(def);
      b.Int("oid", oid).Str("collname", name).Int("collnamespace", kPgCatalogNamespace);
      b.Int("collowner", kSuperuserRole).Str("collprovider", oid == 100 ? "d" : "c");
      b.Bool("collisdeterministic", true).Int("collencoding", oid == 100 ? -1 : -1);
      if (oid != 100) b.Str("collcollate", name).Str("collctype", name);
      add(b);
    }
  } else if (n == "pg_authid" || n == "pg_roles" || n == "pg_user") {
    for (int32_t oid : {kSuperuserRole, kDatabaseOwnerRole}) {
      bool super = oid == kSuperuserRole;
      if (n == "pg_user" && !super) continue;
      RowBuilder b(def);
      if (n == "pg_user") {
        b.Str("usename", session_.user).Int("usesysid", oid).Bool("usecreatedb", true);
        b.Bool("usesuper", true).Bool("userepl", true).Bool("usebypassrls", true);
        b.Str("passwd", "********");
      } else {
        b.Int("oid", oid).Str("rolname", *UserName(oid)).Bool("rolsuper", super);
        b.Bool("rolinherit", true).Bool("rolcreaterole", super).Bool("rolcreatedb", super);
        b.Bool("rolcanlogin", super).Bool("rolreplication", super);
        b.Bool("rolbypassrls", super).Int("rolconnlimit", -1);
        if (n == "pg_roles") b.Str("rolpassword", "********");
      }
      add(b);
    }
  } else if (n == "pg_tables" || n == "pg_indexes" || n == "pg_views") {
    for (const CatalogRelation& r : relations_) {
      RowBuilder b(def);
      b.Str("schemaname", "public");
      if (n == "pg_tables" && r.kind == 'r' && r.table != nullptr) {
        b.Str("tablename", r.name).Str("tableowner", session_.user);
        b.Bool("hasindexes",
               !r.table->schema().primary_key.empty() || !r.table->schema().indexes.empty());
        // (PostgreSQL's foreign keys are triggers on both tables.)
        b.Bool("hasrules", false);
        b.Bool("hastriggers",
               !r.table->schema().foreign_keys.empty() || !r.table->referenced_by().empty());
        b.Bool("rowsecurity", false);
      } else if (n == "pg_indexes" && r.kind == 'i') {
        b.Str("tablename", r.table->schema().name).Str("indexname", r.name);
        if (std::optional<std::string> d = IndexDef(r.oid)) b.Str("indexdef", *d);
      } else if (n == "pg_views" && r.view != nullptr) {
        b.Str("viewname", r.name).Str("viewowner", session_.user);
        if (std::optional<std::string> d = ViewDefinition(r.oid)) b.Str("definition", *d);
      } else {
        continue;
      }
      add(b);
    }
  } else if (n == "pg_database") {
    RowBuilder b(def);
    b.Int("oid", kDatabase).Str("datname", session_.database).Int("datdba", kSuperuserRole);
    b.Int("encoding", 6).Str("datlocprovider", "c").Bool("datallowconn", true);
    b.Int("datconnlimit", -1).Int("dattablespace", kDefaultTablespace);
    b.Str("datcollate", "C").Str("datctype", "C");
    add(b);
  } else if (n == "pg_tablespace") {
    for (int32_t oid : {kDefaultTablespace, kDefaultTablespace + 1}) {
      RowBuilder b(def);
      b.Int("oid", oid).Str("spcname", oid == kDefaultTablespace ? "pg_default" : "pg_global");
      b.Int("spcowner", kSuperuserRole);
      add(b);
    }
  } else if (n == "pg_stat_activity") {
    if (session_.backends != nullptr) {
      for (const BackendActivity& a : session_.backends->List()) {
        RowBuilder b(def);
        b.Int("datid", kDatabase).Str("datname", a.database).Int("pid", a.pid);
        b.Null("leader_pid").Int("usesysid", kSuperuserRole).Str("usename", a.user);
        b.Str("application_name", a.application_name);
        if (!a.client_addr.empty()) b.Str("client_addr", a.client_addr);
        b.Int("client_port", a.client_port);
        b.Time("backend_start", a.backend_start).Time("xact_start", a.xact_start);
        b.Time("query_start", a.query_start).Time("state_change", a.state_change);
        if (a.state.empty()) {
          b.Null("state");
        } else {
          b.Str("state", a.state);
        }
        b.Null("backend_xid").Null("backend_xmin").Str("query", a.query);
        b.Str("backend_type", "client backend");
        add(b);
      }
    }
  } else if (n == "pg_settings") {
    // The session's values (what SHOW says), and max_index_keys, which
    // pgJDBC's getImportedKeys reads.
    std::vector<std::vector<std::string>> settings = {{"max_index_keys", "32", ""}};
    if (session_.settings) {
      for (std::vector<std::string>& row : session_.settings()) settings.push_back(std::move(row));
    }
    std::sort(settings.begin(), settings.end(), [](const auto& a, const auto& b) {
      return strcasecmp(a[0].c_str(), b[0].c_str()) < 0;
    });
    for (const std::vector<std::string>& row : settings) {
      RowBuilder b(def);
      b.Str("name", row[0]).Str("setting", row[1]).Str("short_desc", row[2]);
      b.Str("context", "user").Str("vartype", "string");
      b.Str("source", "session").Str("boot_val", row[1]).Str("reset_val", row[1]);
      b.Bool("pending_restart", false);
      add(b);
    }
  }
  if (n == "pg_description") {  // COMMENT ON TABLE (objsubid 0) / COLUMN (its attnum)
    for (const CatalogRelation& r : relations_) {
      if (r.kind != 'r' || r.table == nullptr) continue;
      const TableSchema& schema = r.table->schema();
      auto row = [&](int64_t subid, const std::string& text) {
        RowBuilder b(def);
        b.Int("objoid", r.oid).Int("classoid", 1259).Int("objsubid", subid);
        b.Str("description", text);
        add(b);
      };
      if (!schema.comment.empty()) row(0, schema.comment);
      for (size_t i = 0; i < schema.columns.size(); i++) {
        if (!schema.columns[i].comment.empty())
          row(static_cast<int64_t>(i + 1), schema.columns[i].comment);
      }
    }
  }
  if (n == "pg_attrdef") {  // adbin holds the DEFAULT's text (pg_get_expr returns it)
    for (const CatalogRelation& r : relations_) {
      if (r.kind != 'r' || r.table == nullptr) continue;
      const std::vector<ColumnDef>& columns = r.table->schema().columns;
      for (size_t i = 0; i < columns.size(); i++) {
        if (columns[i].default_sql.empty()) continue;
        RowBuilder b(def);
        b.Int("oid", AttrDefOid(r.table->id(), i));
        b.Int("adrelid", r.oid).Int("adnum", static_cast<int64_t>(i + 1));
        b.Str("adbin", columns[i].default_sql);
        add(b);
      }
    }
  }
  if (n == "pg_sequence" || n == "pg_sequences" || n == "pg_depend") {
    for (const auto& [id, q] : catalog_.sequences()) {
      const SequenceDef& d = q.def;
      RowBuilder b(def);
      if (n == "pg_sequence") {
        b.Int("seqrelid", TableOid(id)).Int("seqtypid", PgTypeOid(Type{d.type}));
        b.Int("seqstart", d.start).Int("seqincrement", d.increment).Int("seqmax", d.max);
        b.Int("seqmin", d.min).Int("seqcache", d.cache).Bool("seqcycle", d.cycle);
      } else if (n == "pg_sequences") {
        b.Str("schemaname", "public").Str("sequencename", d.name);
        b.Str("sequenceowner", session_.user).Str("data_type", SequenceTypeName(d.type));
        b.Int("start_value", d.start).Int("min_value", d.min).Int("max_value", d.max);
        b.Int("increment_by", d.increment).Bool("cycle", d.cycle).Int("cache_size", d.cache);
        // pg_sequence_last_value: NULL until the first nextval (or after RESTART).
        if (q.state.is_called) b.Int("last_value", q.state.last_value);
      } else {
        // Only what OWNED BY and identity columns record (psql's "Owned
        // by" / "Sequence for identity column"); the other dependencies
        // PostgreSQL records (a DEFAULT on its sequence) are not listed.
        if (!d.owned()) continue;
        const Table* owner = FindTableById(catalog_, d.owner_table);
        std::optional<ColumnId> column =
            owner != nullptr ? owner->schema().FindColumn(d.owner_column) : std::nullopt;
        if (!column) continue;
        b.Int("classid", 1259).Int("objid", TableOid(id)).Int("objsubid", 0);
        b.Int("refclassid", 1259).Int("refobjid", TableOid(d.owner_table));
        b.Int("refobjsubid", column->value() + 1).Str("deptype", d.identity ? "i" : "a");
      }
      add(b);
    }
  }
  if (n == "pg_proc" && session_.procedures) {
    // The procedures CALL runs (C++, loaded with the server: prolang C, no
    // source); PostgreSQL's own functions are not listed.
    constexpr int32_t kAny = 2276, kAnyArray = 2277, kRecord = 2249, kVoid = 2278;
    constexpr int32_t kCLanguage = 13;
    for (const CatalogProcedure& p : session_.procedures()) {
      std::vector<int32_t> types;
      for (const std::optional<Type>& t : p.parameters) types.push_back(t ? PgTypeOid(*t) : kAny);
      int32_t variadic = 0;
      if (p.any_arguments) {  // VARIADIC "any"
        variadic = kAny;
        types.push_back(kAny);
      } else if (p.variadic) {  // VARIADIC element[]
        variadic = PgTypeOid(*p.variadic);
        const PgCatalogType* element = FindPgCatalogType(variadic);
        types.push_back(element != nullptr && element->array != 0 ? element->array : kAnyArray);
      }
      std::string argtypes;
      for (int32_t t : types) argtypes += (argtypes.empty() ? "" : " ") + std::to_string(t);
      RowBuilder b(def);
      b.Int("oid", ProcedureOid(p.name)).Str("proname", p.name);
      b.Int("pronamespace", kPublicNamespace).Int("proowner", kSuperuserRole);
      b.Int("prolang", kCLanguage).Int("procost", 1).Str("prokind", "p");
      b.Str("provolatile", "v").Str("proparallel", "u").Int("provariadic", variadic);
      b.Int("pronargs", static_cast<int64_t>(types.size()));
      b.Int("prorettype", p.returns_rows ? kRecord : kVoid);
      b.Str("proargtypes", argtypes).Str("prosrc", p.name);
      add(b);
    }
  }
  // pg_inherits, pg_policy, pg_statistic_ext, pg_enum (no CREATE TYPE),
  // pg_publication*, pg_trigger: Forktail has none of these objects.
  return rows;
}

std::string ProcedureArguments(const CatalogProcedure& procedure) {
  if (procedure.any_arguments) return "VARIADIC \"any\"";
  std::string out;
  auto add = [&out](const std::string& text) { out += (out.empty() ? "" : ", ") + text; };
  for (const std::optional<Type>& t : procedure.parameters) {
    add(t ? FormatPgType(PgTypeOid(*t), -1) : "\"any\"");
  }
  if (procedure.variadic)
    add("VARIADIC " + FormatPgType(PgTypeOid(*procedure.variadic), -1) + "[]");
  return out;
}

}  // namespace forktail
