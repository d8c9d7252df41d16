// The system relations' columns (PostgreSQL 15's names, order and types) and
// the pg_type entries Forktail knows. See system_catalog.h for the mapping of
// PostgreSQL types to Forktail's.
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "olap/plan/catalog/system_catalog.h"

namespace forktail {

namespace {

// Column specs: "name:k" with k one of
//   o oid (INTEGER, pg oid)      n name (TEXT)        c "char" (TEXT)
//   b bool                       s int2               i int4
//   l int8                       f float4 (DOUBLE)    t text
//   a text[] (TEXT '{..}')       A oid[]              K int2[]
//   x pg_node_tree               v int2vector / oidvector (SMALLINT elements)
//   r regproc (TEXT)             T timestamp          X xid (INTEGER)
//   y character varying (sql_identifier etc. in information_schema)
//   I inet (TEXT)                Z timestamptz
SystemColumn ParseColumn(const std::string& spec) {
  size_t colon = spec.find(':');
  if (colon == std::string::npos || colon + 2 != spec.size()) {
    std::fprintf(stderr, "bad system column spec %s\n", spec.c_str());
    std::abort();
  }
  SystemColumn c;
  c.name = spec.substr(0, colon);
  switch (spec[colon + 1]) {
    case 'o':
      c.type = Type::Integer(), c.pg_type = 26;
      break;
    case 'n':
      c.type = Type::Text(), c.pg_type = 19;
      break;
    case 'c':
      c.type = Type::Text(), c.pg_type = 18;
      break;
    case 'b':
      c.type = Type::Boolean(), c.pg_type = 16;
      break;
    case 's':
      c.type = Type::SmallInt(), c.pg_type = 21;
      break;
    case 'i':
      c.type = Type::Integer(), c.pg_type = 23;
      break;
    case 'l':
      c.type = Type::BigInt(), c.pg_type = 20;
      break;
    case 'f':
      c.type = Type::Double(), c.pg_type = 700;
      break;
    case 't':
      c.type = Type::Text(), c.pg_type = 25;
      break;
    case 'a':
      c.type = Type::ArrayText(Type::Text(), true), c.pg_type = 1009;
      break;
    case 'A':
      c.type = Type::ArrayText(Type::Integer(), true), c.pg_type = 1028;
      break;
    case 'K':  // int2[] (conkey): a true array, as drivers parse it (SQLAlchemy's reflection)
      c.type = Type::ArrayText(Type::SmallInt()), c.pg_type = 1005;
      break;
    case 'x':
      c.type = Type::Text(), c.pg_type = 194;
      break;
    case 'v':
      c.type = Type::ArrayText(Type::SmallInt(), true), c.pg_type = 22;
      break;
    case 'r':
      c.type = Type::Text(), c.pg_type = 24;
      break;
    case 'T':
      c.type = Type::Timestamp(), c.pg_type = 1114;
      break;
    case 'X':
      c.type = Type::Integer(), c.pg_type = 28;
      break;
    case 'y':
      c.type = Type::Varchar(), c.pg_type = 1043;
      break;
    case 'I':
      c.type = Type::Text(), c.pg_type = 869;
      break;
    case 'Z':
      c.type = Type::TimestampTz(), c.pg_type = 1184;
      break;
    default:
      std::fprintf(stderr, "bad system column spec %s\n", spec.c_str());
      std::abort();
  }
  return c;
}

SystemRelationDef Def(const char* schema, const char* name, int32_t oid, const char* columns) {
  SystemRelationDef d;
  d.schema = schema;
  d.name = name;
  d.oid = oid;
  std::istringstream in(columns);
  std::string spec;
  while (in >> spec) d.columns.push_back(ParseColumn(spec));
  return d;
}

std::vector<SystemRelationDef> MakeRelations() {
  const char* pg = "pg_catalog";
  const char* is = "information_schema";
  std::vector<SystemRelationDef> r;
  r.push_back(Def(pg, "pg_namespace", 2615, "oid:o nspname:n nspowner:o nspacl:a"));
  r.push_back(Def(pg, "pg_class", 1259,
                  "oid:o relname:n relnamespace:o reltype:o reloftype:o relowner:o relam:o "
                  "relfilenode:o reltablespace:o relpages:i reltuples:f relallvisible:i "
                  "reltoastrelid:o relhasindex:b relisshared:b relpersistence:c relkind:c "
                  "relnatts:s relchecks:s relhasrules:b relhastriggers:b relhassubclass:b "
                  "relrowsecurity:b relforcerowsecurity:b relispopulated:b relreplident:c "
                  "relispartition:b relrewrite:o relfrozenxid:X relminmxid:X relacl:a "
                  "reloptions:a relpartbound:x"));
  r.push_back(Def(pg, "pg_attribute", 1249,
                  "attrelid:o attname:n atttypid:o attstattarget:i attlen:s attnum:s "
                  "attndims:i attcacheoff:i atttypmod:i attbyval:b attalign:c attstorage:c "
                  "attcompression:c attnotnull:b atthasdef:b atthasmissing:b attidentity:c "
                  "attgenerated:c attisdropped:b attislocal:b attinhcount:i attcollation:o "
                  "attacl:a attoptions:a attfdwoptions:a attmissingval:t"));
  r.push_back(Def(pg, "pg_type", 1247,
                  "oid:o typname:n typnamespace:o typowner:o typlen:s typbyval:b typtype:c "
                  "typcategory:c typispreferred:b typisdefined:b typdelim:c typrelid:o "
                  "typsubscript:r typelem:o typarray:o typinput:r typoutput:r typreceive:r "
                  "typsend:r typmodin:r typmodout:r typanalyze:r typalign:c typstorage:c "
                  "typnotnull:b typbasetype:o typtypmod:i typndims:i typcollation:o "
                  "typdefaultbin:x typdefault:t typacl:a"));
  r.push_back(Def(pg, "pg_index", 2610,
                  "indexrelid:o indrelid:o indnatts:s indnkeyatts:s indisunique:b "
                  "indnullsnotdistinct:b indisprimary:b indisexclusion:b indimmediate:b "
                  "indisclustered:b indisvalid:b indcheckxmin:b indisready:b indislive:b "
                  "indisreplident:b indkey:v indcollation:v indclass:v indoption:v "
                  "indexprs:x indpred:x"));
  r.push_back(Def(pg, "pg_constraint", 2606,
                  "oid:o conname:n connamespace:o contype:c condeferrable:b condeferred:b "
                  "convalidated:b conrelid:o contypid:o conindid:o conparentid:o confrelid:o "
                  "confupdtype:c confdeltype:c confmatchtype:c conislocal:b coninhcount:i "
                  "connoinherit:b conkey:K confkey:K conpfeqop:a conppeqop:a conffeqop:a "
                  "confdelsetcols:K conexclop:a conbin:x"));
  r.push_back(Def(pg, "pg_am", 2601, "oid:o amname:n amhandler:r amtype:c"));
  r.push_back(Def(pg, "pg_opclass", 2616,
                  "oid:o opcmethod:o opcname:n opcnamespace:o opcowner:o opcfamily:o "
                  "opcintype:o opcdefault:b opckeytype:o"));
  r.push_back(Def(pg, "pg_attrdef", 2604, "oid:o adrelid:o adnum:s adbin:x"));
  r.push_back(Def(pg, "pg_collation", 3456,
                  "oid:o collname:n collnamespace:o collowner:o collprovider:c "
                  "collisdeterministic:b collencoding:i collcollate:t collctype:t "
                  "colliculocale:t collversion:t"));
  const char* authid =
      "oid:o rolname:n rolsuper:b rolinherit:b rolcreaterole:b rolcreatedb:b rolcanlogin:b "
      "rolreplication:b rolbypassrls:b rolconnlimit:i rolpassword:t rolvaliduntil:T";
  r.push_back(Def(pg, "pg_authid", 1260, authid));
  r.push_back(Def(pg, "pg_roles", 12001,
                  "rolname:n rolsuper:b rolinherit:b rolcreaterole:b rolcreatedb:b "
                  "rolcanlogin:b rolreplication:b rolconnlimit:i rolpassword:t "
                  "rolvaliduntil:T rolbypassrls:b rolconfig:a oid:o"));
  // No role is a member of another (GRANT role is not there): empty, for
  // psql's \du.
  r.push_back(Def(pg, "pg_auth_members", 1261, "roleid:o member:o grantor:o admin_option:b"));
  // No extension is installed (CREATE EXTENSION is 0A000): empty, for psql's
  // \dx and drivers that look for one (PostGIS, hstore).
  r.push_back(Def(pg, "pg_extension", 3079,
                  "oid:o extname:n extowner:o extnamespace:o extrelocatable:b extversion:t "
                  "extconfig:A extcondition:a"));
  r.push_back(Def(pg, "pg_user", 12002,
                  "usename:n usesysid:o usecreatedb:b usesuper:b userepl:b usebypassrls:b "
                  "passwd:t valuntil:T useconfig:a"));
  r.push_back(Def(pg, "pg_database", 1262,
                  "oid:o datname:n datdba:o encoding:i datlocprovider:c datistemplate:b "
                  "datallowconn:b datconnlimit:i datfrozenxid:X datminmxid:X dattablespace:o "
                  "datcollate:t datctype:t daticulocale:t datcollversion:t datacl:a"));
  r.push_back(Def(pg, "pg_tablespace", 1213, "oid:o spcname:n spcowner:o spcacl:a spcoptions:a"));
  // The views people query for what is there (PostgreSQL 15's columns).
  r.push_back(Def(pg, "pg_tables", 12005,
                  "schemaname:n tablename:n tableowner:n tablespace:n hasindexes:b hasrules:b "
                  "hastriggers:b rowsecurity:b"));
  r.push_back(
      Def(pg, "pg_indexes", 12006, "schemaname:n tablename:n indexname:n tablespace:n indexdef:t"));
  r.push_back(Def(pg, "pg_views", 12007, "schemaname:n viewname:n viewowner:n definition:t"));
  r.push_back(Def(pg, "pg_description", 2609, "objoid:o classoid:o objsubid:i description:t"));
  r.push_back(Def(pg, "pg_inherits", 2611, "inhrelid:o inhparent:o inhseqno:i inhdetachpending:b"));
  r.push_back(Def(pg, "pg_enum", 3501, "oid:o enumtypid:o enumsortorder:f enumlabel:n"));
  r.push_back(Def(pg, "pg_policy", 3256,
                  "oid:o polname:n polrelid:o polcmd:c polpermissive:b polroles:A polqual:x "
                  "polwithcheck:x"));
  r.push_back(Def(pg, "pg_statistic_ext", 3381,
                  "oid:o stxrelid:o stxname:n stxnamespace:o stxowner:o stxstattarget:i "
                  "stxkeys:v stxkind:a stxexprs:x"));
  r.push_back(Def(pg, "pg_publication", 6104,
                  "oid:o pubname:n pubowner:o puballtables:b pubinsert:b pubupdate:b "
                  "pubdelete:b pubtruncate:b pubviaroot:b"));
  r.push_back(Def(pg, "pg_publication_rel", 6106, "oid:o prpubid:o prrelid:o prqual:x prattrs:v"));
  r.push_back(Def(pg, "pg_publication_namespace", 6237, "oid:o pnpubid:o pnnspid:o"));
  r.push_back(Def(pg, "pg_trigger", 2620,
                  "oid:o tgrelid:o tgparentid:o tgname:n tgfoid:o tgtype:s tgenabled:c "
                  "tgisinternal:b tgconstrrelid:o tgconstrindid:o tgconstraint:o "
                  "tgdeferrable:b tginitdeferred:b tgnargs:s tgattr:v tgargs:t tgqual:x "
                  "tgoldtable:n tgnewtable:n"));
  r.push_back(Def(pg, "pg_proc", 1255,
                  "oid:o proname:n pronamespace:o proowner:o prolang:o procost:f prorows:f "
                  "provariadic:o prosupport:r prokind:c prosecdef:b proleakproof:b "
                  "proisstrict:b proretset:b provolatile:c proparallel:c pronargs:s "
                  "pronargdefaults:s prorettype:o proargtypes:v proallargtypes:a "
                  "proargmodes:a proargnames:a proargdefaults:x protrftypes:a prosrc:t "
                  "probin:t prosqlbody:x proconfig:a proacl:a"));
  r.push_back(Def(pg, "pg_stat_activity", 12004,
                  "datid:o datname:n pid:i leader_pid:i usesysid:o usename:n application_name:t "
                  "client_addr:I client_hostname:t client_port:i backend_start:Z xact_start:Z "
                  "query_start:Z state_change:Z wait_event_type:t wait_event:t state:t "
                  "backend_xid:X backend_xmin:X query_id:l query:t backend_type:t"));
  r.push_back(Def(pg, "pg_settings", 12003,
                  "name:t setting:t unit:t category:t short_desc:t extra_desc:t context:t "
                  "vartype:t source:t min_val:t max_val:t enumvals:a boot_val:t reset_val:t "
                  "sourcefile:t sourceline:i pending_restart:b"));
  r.push_back(Def(pg, "pg_sequence", 2224,
                  "seqrelid:o seqtypid:o seqstart:l seqincrement:l seqmax:l seqmin:l seqcache:l "
                  "seqcycle:b"));
  r.push_back(Def(pg, "pg_sequences", 12004,
                  "schemaname:n sequencename:n sequenceowner:n data_type:t start_value:l "
                  "min_value:l max_value:l increment_by:l cycle:b cache_size:l last_value:l"));
  r.push_back(Def(pg, "pg_depend", 2608,
                  "classid:o objid:o objsubid:i refclassid:o refobjid:o refobjsubid:i "
                  "deptype:c"));
  r.push_back(Def(is, "schemata", 13001,
                  "catalog_name:y schema_name:y schema_owner:y default_character_set_catalog:y "
                  "default_character_set_schema:y default_character_set_name:y sql_path:y"));
  r.push_back(Def(is, "tables", 13002,
                  "table_catalog:y table_schema:y table_name:y table_type:y "
                  "self_referencing_column_name:y reference_generation:y "
                  "user_defined_type_catalog:y user_defined_type_schema:y "
                  "user_defined_type_name:y is_insertable_into:y is_typed:y commit_action:y"));
  r.push_back(Def(is, "columns", 13003,
                  "table_catalog:y table_schema:y table_name:y column_name:y "
                  "ordinal_position:i column_default:y is_nullable:y data_type:y "
                  "character_maximum_length:i character_octet_length:i numeric_precision:i "
                  "numeric_precision_radix:i numeric_scale:i datetime_precision:i "
                  "interval_type:y interval_precision:i character_set_catalog:y "
                  "character_set_schema:y character_set_name:y collation_catalog:y "
                  "collation_schema:y collation_name:y domain_catalog:y domain_schema:y "
                  "domain_name:y udt_catalog:y udt_schema:y udt_name:y scope_catalog:y "
                  "scope_schema:y scope_name:y maximum_cardinality:i dtd_identifier:y "
                  "is_self_referencing:y is_identity:y identity_generation:y "
                  "identity_start:y identity_increment:y identity_maximum:y "
                  "identity_minimum:y identity_cycle:y is_generated:y generation_expression:y "
                  "is_updatable:y"));
  r.push_back(Def(is, "sequences", 13004,
                  "sequence_catalog:y sequence_schema:y sequence_name:y data_type:y "
                  "numeric_precision:i numeric_precision_radix:i numeric_scale:i "
                  "start_value:y minimum_value:y maximum_value:y increment:y cycle_option:y"));
  return r;
}

std::vector<PgCatalogType> MakeTypes() {
  // oid, typname, format_type name, typlen, category, element, array, collatable
  return {
      {16, "bool", "boolean", 1, 'B', 0, 1000, false},
      {18, "char", "\"char\"", 1, 'Z', 0, 1002, false},
      {19, "name", "name", 64, 'S', 0, 1003, false},
      {20, "int8", "bigint", 8, 'N', 0, 1016, false},
      {21, "int2", "smallint", 2, 'N', 0, 1005, false},
      {22, "int2vector", "int2vector", -1, 'A', 21, 1006, false},
      {23, "int4", "integer", 4, 'N', 0, 1007, false},
      {24, "regproc", "regproc", 4, 'N', 0, 1008, false},
      {25, "text", "text", -1, 'S', 0, 1009, true},
      {26, "oid", "oid", 4, 'N', 0, 1028, false},
      {28, "xid", "xid", 4, 'U', 0, 1011, false},
      {194, "pg_node_tree", "pg_node_tree", -1, 'Z', 0, 0, true},
      {700, "float4", "real", 4, 'N', 0, 1021, false},
      {701, "float8", "double precision", 8, 'N', 0, 1022, false},
      {705, "unknown", "unknown", -2, 'X', 0, 0, false},
      {1000, "_bool", "boolean[]", -1, 'A', 16, 0, false},
      {1002, "_char", "\"char\"[]", -1, 'A', 18, 0, false},
      {1003, "_name", "name[]", -1, 'A', 19, 0, false},
      {1005, "_int2", "smallint[]", -1, 'A', 21, 0, false},
      {1007, "_int4", "integer[]", -1, 'A', 23, 0, false},
      {1009, "_text", "text[]", -1, 'A', 25, 0, true},
      {1016, "_int8", "bigint[]", -1, 'A', 20, 0, false},
      {1021, "_float4", "real[]", -1, 'A', 700, 0, false},
      {1022, "_float8", "double precision[]", -1, 'A', 701, 0, false},
      {1028, "_oid", "oid[]", -1, 'A', 26, 0, false},
      {1034, "_aclitem", "aclitem[]", -1, 'A', 1033, 0, false},
      {1033, "aclitem", "aclitem", 12, 'U', 0, 1034, false},
      {1042, "bpchar", "character", -1, 'S', 0, 1014, true},
      {1014, "_bpchar", "character[]", -1, 'A', 1042, 0, true},
      {1043, "varchar", "character varying", -1, 'S', 0, 1015, true},
      {1015, "_varchar", "character varying[]", -1, 'A', 1043, 0, true},
      {1082, "date", "date", 4, 'D', 0, 1182, false},
      {1182, "_date", "date[]", -1, 'A', 1082, 0, false},
      {1114, "timestamp", "timestamp without time zone", 8, 'D', 0, 1115, false},
      {1115, "_timestamp", "timestamp without time zone[]", -1, 'A', 1114, 0, false},
      {1184, "timestamptz", "timestamp with time zone", 8, 'D', 0, 1185, false},
      {1185, "_timestamptz", "timestamp with time zone[]", -1, 'A', 1184, 0, false},
      {1700, "numeric", "numeric", -1, 'N', 0, 1231, false},
      {3802, "jsonb", "jsonb", -1, 'U', 0, 3807, false},
      {3807, "_jsonb", "jsonb[]", -1, 'A', 3802, 0, false},
      {2950, "uuid", "uuid", 16, 'U', 0, 2951, false},
      {2951, "_uuid", "uuid[]", -1, 'A', 2950, 0, false},
      {17, "bytea", "bytea", -1, 'U', 0, 1001, false},
      {1001, "_bytea", "bytea[]", -1, 'A', 17, 0, false},
      {1186, "interval", "interval", 16, 'T', 0, 1187, false},
      {1187, "_interval", "interval[]", -1, 'A', 1186, 0, false},
      {1231, "_numeric", "numeric[]", -1, 'A', 1700, 0, false},
      {1083, "time", "time without time zone", 8, 'D', 0, 1183, false},
      {114, "json", "json", -1, 'U', 0, 199, false},
      {199, "_json", "json[]", -1, 'A', 114, 0, false},
      {1183, "_time", "time without time zone[]", -1, 'A', 1083, 0, false},
      {2205, "regclass", "regclass", 4, 'N', 0, 2210, false},
      {2206, "regtype", "regtype", 4, 'N', 0, 2211, false},
      {4089, "regnamespace", "regnamespace", 4, 'N', 0, 4090, false},
  };
}

}  // namespace

Type ArrayTextType(const Type& element) { return Type::ArrayText(element); }

std::optional<Type> ArrayElementType(const Type& t) {
  if (!t.IsArrayText()) return std::nullopt;
  return t.ArrayElement();
}

int SystemRelationDef::Column(const std::string& column) const {
  for (size_t i = 0; i < columns.size(); i++) {
    if (columns[i].name == column) return static_cast<int>(i);
  }
  std::fprintf(stderr, "system relation %s has no column %s\n", name.c_str(), column.c_str());
  std::abort();
}

const std::vector<SystemRelationDef>& SystemRelations() {
  static const std::vector<SystemRelationDef> relations = MakeRelations();
  return relations;
}

const SystemRelationDef* FindSystemRelation(const std::vector<std::string>& names) {
  if (names.empty() || names.size() > 3) return nullptr;
  std::string schema = names.size() >= 2 ? names[names.size() - 2] : "pg_catalog";
  for (const SystemRelationDef& d : SystemRelations()) {
    if (d.schema == schema && d.name == names.back()) return &d;
  }
  return nullptr;
}

const std::vector<PgCatalogType>& PgCatalogTypes() {
  static const std::vector<PgCatalogType> types = MakeTypes();
  return types;
}

const PgCatalogType* FindPgCatalogType(int32_t oid) {
  for (const PgCatalogType& t : PgCatalogTypes()) {
    if (t.oid == oid) return &t;
  }
  return nullptr;
}

const PgCatalogType* FindPgCatalogTypeByName(const std::string& name) {
  for (const PgCatalogType& t : PgCatalogTypes()) {
    if (name == t.name || name == t.display) return &t;
  }
  return nullptr;
}

int32_t PgTypeOid(const Type& type) {
  switch (type.id) {
    case TypeId::kBoolean:
      return 16;
    case TypeId::kSmallInt:
      return 21;
    case TypeId::kInteger:
      return 23;
    case TypeId::kBigInt:
      return 20;
    case TypeId::kDouble:
      return 701;
    case TypeId::kDecimal:
      return 1700;
    case TypeId::kChar:
      return 1042;
    case TypeId::kVarchar:
      return 1043;
    case TypeId::kText:
      if (type.IsArrayText() && !type.IsCatalogArrayText()) {  // an array column: its array type
        const PgCatalogType* element = FindPgCatalogType(PgTypeOid(type.ArrayElement()));
        if (element != nullptr && element->array != 0) return element->array;
      }
      return 25;
    case TypeId::kDate:
      return 1082;
    case TypeId::kTimestamp:
      return 1114;
    case TypeId::kTimestampTz:
      return 1184;
    case TypeId::kJsonb:
      return 3802;
    case TypeId::kUuid:
      return 2950;
    case TypeId::kBytea:
      return 17;
    case TypeId::kInterval:
      return 1186;
    case TypeId::kTime:
      return 1083;
    case TypeId::kJson:
      return 114;
  }
  return 0;
}

int32_t PgTypeModifier(const Type& type) {
  switch (type.id) {
    case TypeId::kDecimal:
      return ((int32_t{type.precision} << 16) | type.scale) + 4;
    case TypeId::kChar:
      return static_cast<int32_t>(type.length) + 4;
    case TypeId::kVarchar:
      return type.length == 0 ? -1 : static_cast<int32_t>(type.length) + 4;
    default:
      return -1;
  }
}

std::string FormatPgType(int32_t oid, int32_t typmod) {
  const PgCatalogType* t = FindPgCatalogType(oid);
  if (t == nullptr) return "???";
  std::string s = t->display;
  if (typmod < 0) return s;
  if (oid == 1042 || oid == 1043) return s + "(" + std::to_string(typmod - 4) + ")";
  if (oid == 1700) {
    int32_t m = typmod - 4;
    return s + "(" + std::to_string((m >> 16) & 0xffff) + "," + std::to_string(m & 0xffff) + ")";
  }
  return s;
}

}  // namespace forktail
