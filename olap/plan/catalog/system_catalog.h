// System catalog: PostgreSQL's pg_catalog and information_schema relations as
// views over Forktail's Catalog, so clients that read them (psql's \d, \dt,
// \di, \dn, \l; drivers' metadata calls) get true answers.
//
// Nothing is stored. When the binder meets a reference to one of these
// relations (pg_catalog.pg_class, or unqualified pg_class: pg_catalog comes
// first on PostgreSQL's search path), it asks CatalogView for the rows and
// binds the reference as a Values node: the rows are what the Catalog held at
// bind time (a snapshot, as PostgreSQL's catalog reads are).
//
// OIDs. Every object gets a stable OID derived from what names it:
//   namespaces  pg_catalog 11, public 2200, information_schema 13000
//   roles       10 (the one user), 6171 pg_database_owner
//   database    5 (the one database)
//   types       PostgreSQL's own OIDs (bool 16, int4 23, numeric 1700, ...)
//   user table  16384 + 4 * TableId;  its primary key index +1, the primary
//               key constraint +2 (so a table's objects sort together and an
//               OID says which kind of object it is); a sequence's id comes
//               from the same counter, so it is 16384 + 4 * its id
//   system rels PostgreSQL's OIDs where it has fixed ones (pg_class 1259, ...)
// OID columns are INTEGER (int4 on the wire, not PostgreSQL's oid type 26):
// every OID used here is below 2^31.
//
// Types of the other columns: name and "char" columns are TEXT ("char" as a
// one-character string, '' for PostgreSQL's '\0'); arrays (relacl, conkey,
// polroles, ...) are TEXT in PostgreSQL's array text form ('{1,2}') or NULL;
// pg_node_tree, regproc and int2vector columns are TEXT.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "olap/plan/catalog/backend_directory.h"
#include "storage/table/catalog.h"
#include "storage/value/value.h"

namespace forktail {

// The PostgreSQL release Forktail answers as: server_version,
// server_version_num and version() say the same.
inline constexpr const char* kPostgresVersion = "15.8";
inline constexpr const char* kPostgresVersionNum = "150008";

namespace catalog_oid {
inline constexpr int32_t kPgCatalogNamespace = 11;
inline constexpr int32_t kPublicNamespace = 2200;
inline constexpr int32_t kInformationSchemaNamespace = 13000;
inline constexpr int32_t kSuperuserRole = 10;
inline constexpr int32_t kDatabaseOwnerRole = 6171;
inline constexpr int32_t kDatabase = 5;
inline constexpr int32_t kHeapAm = 2;
inline constexpr int32_t kBtreeAm = 403;
inline constexpr int32_t kDefaultCollation = 100;
inline constexpr int32_t kDefaultTablespace = 1663;
inline constexpr int32_t kFirstUserOid = 16384;

inline int32_t TableOid(TableId id) { return kFirstUserOid + 4 * static_cast<int32_t>(id.value()); }
inline int32_t IndexOid(TableId id) { return TableOid(id) + 1; }
inline int32_t ConstraintOid(TableId id) { return TableOid(id) + 2; }
// The table or sequence id an OID of TableOid's names (0 for any other OID).
inline TableId RelationIdOfOid(int64_t oid) {
  if (oid < kFirstUserOid || oid >= (int64_t{1} << 24) || (oid - kFirstUserOid) % 4 != 0) {
    return TableId(0);
  }
  return TableId(static_cast<uint32_t>((oid - kFirstUserOid) / 4));
}
// Secondary indexes (and their UNIQUE constraint, at +1) in a range of their
// own, by table and position; a DROP INDEX renumbers the ones after it.
inline constexpr int32_t kFirstSecondaryIndexOid = 1 << 24;
// 20 bits of a name's FNV-1a hash: the OIDs of objects that have a name
// but no id.
inline int32_t NameHash20(const std::string& name) {
  uint32_t h = 2166136261u;
  for (char c : name) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  return static_cast<int32_t>(h & 0xFFFFF);
}
// A user view, by a hash of its name (views have no id; a name names one view).
inline int32_t UserViewOid(const std::string& name) { return (1 << 26) + NameHash20(name); }
// A CHECK constraint (pg_constraint), by table and position in schema.checks.
inline constexpr int32_t kFirstCheckOid = 1 << 27;
inline int32_t CheckOid(TableId id, size_t position) {
  return kFirstCheckOid + 2048 * static_cast<int32_t>(id.value()) + static_cast<int32_t>(position);
}
// A FOREIGN KEY constraint (pg_constraint), by table and position in
// schema.foreign_keys.
inline constexpr int32_t kFirstForeignKeyOid = 3 << 27;
inline int32_t ForeignKeyOid(TableId id, size_t position) {
  return kFirstForeignKeyOid + 2048 * static_cast<int32_t>(id.value()) +
         static_cast<int32_t>(position);
}
// A column's DEFAULT (pg_attrdef), by table and column.
inline int32_t AttrDefOid(TableId id, size_t column) {
  return (1 << 25) + 2048 * static_cast<int32_t>(id.value()) + static_cast<int32_t>(column);
}
inline int32_t SecondaryIndexOid(TableId id, size_t position) {
  return kFirstSecondaryIndexOid + 2048 * static_cast<int32_t>(id.value()) +
         2 * static_cast<int32_t>(position);
}
// A procedure CALL runs (pg_proc), by a hash of its name, as views are.
inline int32_t ProcedureOid(const std::string& name) {
  return (1 << 26) + (1 << 21) + NameHash20(name);
}
}  // namespace catalog_oid

// A procedure that CALL runs (registered in C++: Database::RegisterProcedure,
// forktail serve --procedures), as pg_proc shows it: a procedure of the
// public schema whose arguments are its parameters' types (std::nullopt:
// any value, PostgreSQL's "any"), then `variadic` ones if set; any_arguments:
// it takes whatever it is given. The rows it returns are not OUT parameters
// (a CALL passes none), so they are not listed.
struct CatalogProcedure {
  std::string name;
  std::vector<std::optional<Type>> parameters;
  std::optional<Type> variadic;
  bool any_arguments = false;
  bool returns_rows = false;
};
// What pg_get_function_arguments shows: "bigint, text",
// "bigint, VARIADIC bigint[]", "VARIADIC \"any\"".
std::string ProcedureArguments(const CatalogProcedure& procedure);

// Who is asking: the session's user and database (what current_user and
// current_database() answer, and the owner / name the views show), its
// backend's pid and the server's backends (null where there are none to
// show: an embedded session, a snapshot process).
struct CatalogSession {
  std::string user = "forktail";
  std::string database = "forktail";
  int32_t backend_pid = 0;
  BackendDirectory* backends = nullptr;
  StatementNotices* notices = nullptr;  // null: notices raised while running are dropped
  // The session's settings as they are now, as SHOW ALL shows them: (name,
  // value, description), sorted by name. For current_setting() and
  // pg_settings; null (no session): their defaults are not known here.
  std::function<std::vector<std::vector<std::string>>()> settings;
  // The procedures CALL can run, for pg_proc (null: none).
  std::function<std::vector<CatalogProcedure>()> procedures;
};

// A relation as pg_class shows it: a user table, its primary key index, or
// one of the system relations below.
struct CatalogRelation {
  int32_t oid = 0;
  std::string name;
  int32_t namespace_oid = catalog_oid::kPublicNamespace;
  char kind = 'r';  // 'r' table, 'i' index, 'v' view (the system relations), 'S' sequence
  const Table* table = nullptr;        // user tables and their indexes
  int index_position = -1;             // kind 'i': -1 the primary key, else in schema.indexes
  const ViewDef* view = nullptr;       // a user view (kind 'v')
  const Sequence* sequence = nullptr;  // kind 'S'
  const struct SystemRelationDef* system = nullptr;
};

// A column of a system relation: PostgreSQL's name, Forktail's type, and the
// PostgreSQL type it stands for (pg_attribute.atttypid).
struct SystemColumn {
  std::string name;
  Type type;
  int32_t pg_type = 0;
};

struct SystemRelationDef {
  std::string schema;  // "pg_catalog" or "information_schema"
  std::string name;
  int32_t oid = 0;
  std::vector<SystemColumn> columns;
  int Column(const std::string& name) const;  // position; aborts if absent
};

// The system relations Forktail serves, in a fixed order.
const std::vector<SystemRelationDef>& SystemRelations();
// The relation a FROM item names: [pg_catalog.]name or information_schema.name
// (a user table never hides a pg_catalog one, as on PostgreSQL's default
// search path); nullptr if it names none.
const SystemRelationDef* FindSystemRelation(const std::vector<std::string>& names);

// Arrays are TEXT in PostgreSQL's array text form ('{1,2}'); an array-valued
// expression's Type is TEXT tagged with its element type (the otherwise unused
// `precision` holds the element's TypeId + 1), so the binder knows what
// a[i] yields (binder_catalog_array.cc).
Type ArrayTextType(const Type& element);
std::optional<Type> ArrayElementType(const Type& t);  // nullopt: not an array

// A PostgreSQL type as pg_type lists it.
struct PgCatalogType {
  int32_t oid = 0;
  const char* name = "";     // typname
  const char* display = "";  // format_type() without modifiers
  int16_t length = -1;       // typlen
  char category = 'U';       // typcategory
  int32_t element = 0;       // arrays: the element type
  int32_t array = 0;         // the array type of this one
  bool collatable = false;   // typcollation = 100
};
const std::vector<PgCatalogType>& PgCatalogTypes();
const PgCatalogType* FindPgCatalogType(int32_t oid);
const PgCatalogType* FindPgCatalogTypeByName(const std::string& name);
// pg_type OID and typmod of a Forktail column type (server/pg_types.h's).
int32_t PgTypeOid(const Type& type);
int32_t PgTypeModifier(const Type& type);
// format_type(oid, typmod) as PostgreSQL prints it: "integer",
// "character varying(20)", "numeric(15,2)", "timestamp without time zone",
// "smallint[]"; "???" for an unknown OID.
std::string FormatPgType(int32_t oid, int32_t typmod);

// A read of the Catalog at one moment: every relation with its OID, and the
// rows of each system relation.
class CatalogView {
 public:
  CatalogView(const Catalog& catalog, CatalogSession session);

  const std::vector<CatalogRelation>& relations() const { return relations_; }
  const CatalogRelation* FindRelation(int32_t oid) const;
  // By name as regclass input resolves it ("t", "public.t", "pg_class").
  const CatalogRelation* FindRelationByName(const std::string& name) const;
  // By the names of ParseRegclassText ({"t"}, {"public", "t"}); 3F000
  // `schema "x" does not exist` for another schema, 0A000 for a database
  // name, 42P01 `relation "t" does not exist` when none has the name.
  const CatalogRelation& ResolveRegclass(const std::vector<std::string>& names) const;
  const CatalogSession& session() const { return session_; }

  // The rows of `def`, one Value per column, of the column types.
  std::vector<Row> Rows(const SystemRelationDef& def) const;

  // What the catalog functions answer (nullopt: NULL).
  std::string RegclassName(int32_t oid) const;  // the name, or the number if unknown
  std::optional<std::string> IndexDef(int32_t index_oid) const;
  std::optional<std::string> ConstraintDef(int32_t constraint_oid) const;
  // pg_get_viewdef of a user view; nullopt for anything else.
  std::optional<std::string> ViewDefinition(int32_t view_oid) const;
  std::optional<std::string> UserName(int32_t role_oid) const;
  std::optional<std::string> NamespaceName(int32_t namespace_oid) const;
  // pg_get_serial_sequence: "public.t_id_seq" for the sequence a column owns
  // (SERIAL, identity, OWNED BY), nullopt when none.
  std::optional<std::string> SerialSequence(const Table& table, const std::string& column) const;

 private:
  const Catalog& catalog_;
  CatalogSession session_;
  std::vector<CatalogRelation> relations_;
};

}  // namespace forktail
