// pg_catalog / information_schema views over the Catalog, OID alias casts and
// the catalog functions: SQL text -> Parse -> Bind -> Optimize -> Execute, on
// a catalog with pgbench_accounts (primary key) and a table of every type.
// Expected texts are what PostgreSQL 15 answers for the same tables, with
// Forktail's OIDs (catalog_oid: table 16384 + 4 * id).
#include <gtest/gtest.h>

#include "olap/parser/ast.h"
#include "olap/plan/binder/binder.h"
#include "olap/plan/catalog/system_catalog.h"
#include "olap/plan/optimizer/optimizer.h"
#include "tests/olap/plan/planner/planner_testing.h"

namespace forktail {
namespace {

class CatalogViews : public ::testing::Test {
 protected:
  void SetUp() override {
    catalog_.CreateTable({"pgbench_accounts",
                          {{"aid", Type::Integer(), true},
                           {"bid", Type::Integer()},
                           {"abalance", Type::Integer()},
                           {"filler", Type::Char(84)}},
                          {ColumnId(0)}});
    catalog_.CreateTable({"items",
                          {{"id", Type::BigInt(), true},
                           {"name", Type::Varchar(20), true},
                           {"price", Type::Decimal(15, 2)},
                           {"born", Type::Date()},
                           {"seen", Type::Timestamp()},
                           {"ok", Type::Boolean()},
                           {"score", Type::Double()},
                           {"qty", Type::SmallInt()},
                           {"note", Type::Text()}},
                          {ColumnId(0), ColumnId(1)}});
    catalog_.CreateTable({"nokey", {{"x", Type::Integer()}}, {}});
  }

  // Rows as "v|v;" (NULL as "NULL").
  std::string Query(const std::string& sql) { return plantest::QueryRowsText(sql, catalog_); }

  std::string Error(const std::string& sql) {
    return plantest::ErrorText([&] { Query(sql); });
  }

  Catalog catalog_;
};

TEST_F(CatalogViews, OidsAreStable) {
  EXPECT_EQ(Query("SELECT c.oid, c.relname, c.relkind FROM pg_catalog.pg_class c "
                  "WHERE c.relnamespace = 2200 ORDER BY 1"),
            "16388|pgbench_accounts|r;16389|pgbench_accounts_pkey|i;16392|items|r;"
            "16393|items_pkey|i;16396|nokey|r;");
  EXPECT_EQ(Query("SELECT relname FROM pg_class WHERE oid = '16392'"), "items;");
  EXPECT_EQ(Query("SELECT 'items'::regclass, 'public.items'::pg_catalog.regclass, "
                  "16392::regclass, 'pg_class'::regclass, 99999::regclass"),
            "16392|16392|items|1259|99999;");
}

// psql's \dt (recorded from psql 15, minus the regex condition, FUNCS's).
TEST_F(CatalogViews, ListTables) {
  EXPECT_EQ(Query("SELECT n.nspname as \"Schema\", c.relname as \"Name\", CASE c.relkind WHEN 'r' "
                  "THEN 'table' WHEN 'v' THEN 'view' WHEN 'i' THEN 'index' END as \"Type\", "
                  "pg_catalog.pg_get_userbyid(c.relowner) as \"Owner\" FROM pg_catalog.pg_class c "
                  "LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace LEFT JOIN "
                  "pg_catalog.pg_am am ON am.oid = c.relam WHERE c.relkind IN ('r','p','') AND "
                  "n.nspname <> 'pg_catalog' AND n.nspname <> 'information_schema' AND "
                  "pg_catalog.pg_table_is_visible(c.oid) ORDER BY 1,2;"),
            "public|items|table|forktail;public|nokey|table|forktail;"
            "public|pgbench_accounts|table|forktail;");
}

// psql's \d TABLE: columns, then indexes.
TEST_F(CatalogViews, DescribeTable) {
  EXPECT_EQ(Query("SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), "
                  "a.attnotnull, a.attidentity, a.attgenerated FROM pg_catalog.pg_attribute a "
                  "WHERE a.attrelid = '16392' AND a.attnum > 0 AND NOT a.attisdropped "
                  "ORDER BY a.attnum;"),
            "id|bigint|t||;name|character varying(20)|t||;price|numeric(15,2)|f||;"
            "born|date|f||;seen|timestamp without time zone|f||;ok|boolean|f||;"
            "score|double precision|f||;qty|smallint|f||;note|text|f||;");
  EXPECT_EQ(Query("SELECT c2.relname, i.indisprimary, i.indisunique, "
                  "pg_catalog.pg_get_indexdef(i.indexrelid, 0, true), "
                  "pg_catalog.pg_get_constraintdef(con.oid, true), contype "
                  "FROM pg_catalog.pg_class c, pg_catalog.pg_class c2, pg_catalog.pg_index i "
                  "LEFT JOIN pg_catalog.pg_constraint con ON (conrelid = i.indrelid AND "
                  "conindid = i.indexrelid AND contype IN ('p','u','x')) "
                  "WHERE c.oid = '16392' AND c.oid = i.indrelid AND i.indexrelid = c2.oid "
                  "ORDER BY i.indisprimary DESC, c2.relname;"),
            "items_pkey|t|t|CREATE UNIQUE INDEX items_pkey ON public.items USING btree "
            "(id, name)|PRIMARY KEY (id, name)|p;");
  EXPECT_EQ(Query("SELECT c.relchecks, c.relkind, c.relhasindex, false AS relhasoids, '', "
                  "CASE WHEN c.reloftype = 0 THEN '' ELSE "
                  "c.reloftype::pg_catalog.regtype::pg_catalog.text END, c.relpersistence, "
                  "am.amname FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_class tc ON "
                  "(c.reltoastrelid = tc.oid) LEFT JOIN pg_catalog.pg_am am ON (c.relam = "
                  "am.oid) WHERE c.oid = '16388';"),
            "0|r|t|f|||p|heap;");
}

TEST_F(CatalogViews, OtherViews) {
  EXPECT_EQ(Query("SELECT n.nspname, pg_catalog.pg_get_userbyid(n.nspowner) FROM "
                  "pg_catalog.pg_namespace n WHERE n.nspname <> 'information_schema' "
                  "ORDER BY 1"),
            "pg_catalog|forktail;public|pg_database_owner;");
  EXPECT_EQ(Query("SELECT d.datname, pg_catalog.pg_get_userbyid(d.datdba), "
                  "pg_catalog.pg_encoding_to_char(d.encoding), d.datcollate FROM "
                  "pg_catalog.pg_database d"),
            "forktail|forktail|UTF8|C;");
  EXPECT_EQ(Query("SELECT table_name, column_name, data_type, character_maximum_length, "
                  "numeric_precision, is_nullable FROM information_schema.columns WHERE "
                  "table_schema = 'public' AND table_name = 'items' AND ordinal_position < 4 "
                  "ORDER BY ordinal_position"),
            "items|id|bigint|NULL|64|NO;items|name|character varying|20|NULL|NO;"
            "items|price|numeric|NULL|15|YES;");
  EXPECT_EQ(Query("SELECT table_name, table_type FROM information_schema.tables WHERE "
                  "table_schema = 'public' ORDER BY 1"),
            "items|BASE TABLE;nokey|BASE TABLE;pgbench_accounts|BASE TABLE;");
  EXPECT_EQ(Query("SELECT count(*) FROM pg_policy"), "0;");
  EXPECT_EQ(Query("SELECT typname, pg_catalog.format_type(oid, NULL) FROM pg_type WHERE oid "
                  "IN (23, 1043, 1114, 1005) ORDER BY oid"),
            "int4|integer;_int2|smallint[];varchar|character varying;"
            "timestamp|timestamp without time zone;");
}

TEST_F(CatalogViews, Functions) {
  EXPECT_EQ(Query("SELECT current_database(), current_schema(), current_user, "
                  "pg_catalog.pg_table_is_visible(16388), "
                  "pg_catalog.pg_table_is_visible(13002), format_type(1700, 983046), "
                  "format_type(1043, 54), format_type(1043, NULL), format_type(1, -1)"),
            "forktail|public|forktail|t|f|numeric(15,2)|character varying(50)|"
            "character varying|???;");
  EXPECT_EQ(Query("SELECT c.oid::pg_catalog.regclass, "
                  "c.relnamespace::pg_catalog.regnamespace::pg_catalog.text FROM pg_class c "
                  "WHERE c.oid IN (16389, 13003) ORDER BY 1"),
            "information_schema.columns|information_schema;pgbench_accounts_pkey|public;");
}

TEST_F(CatalogViews, Arrays) {
  EXPECT_EQ(Query("SELECT array_to_string(ARRAY[1, 2, NULL], ','), ARRAY['a b', 'c'], "
                  "array_upper('{1,2,3}'::int[], 1), ('{10,20,30}'::int2[])[2] + 1, "
                  "cardinality(ARRAY[4, 5])"),
            "1,2|{\"a b\",c}|3|21|2;");
  EXPECT_EQ(Query("SELECT 2 = ANY('{1,2}'::int4[]), 5 = ANY('{1,2}'::int4[]), "
                  "5 = ANY('{1,NULL}'::int4[]), 'x' <> ALL(ARRAY['y', 'z']), "
                  "NULL::int = ANY('{}'::int[])"),
            "t|f|NULL|t|f;");
  EXPECT_EQ(Query("SELECT conname, conkey, conkey[2] FROM pg_constraint WHERE 2 = ANY(conkey)"),
            "items_pkey|{1,2}|2;");
  EXPECT_EQ(Query("SELECT count(*) FROM pg_policy pol WHERE pol.polroles = '{0}'"), "0;");
  EXPECT_EQ(Query("SELECT oid, 'd' = any(stxkind) AS ndist_enabled FROM "
                  "pg_catalog.pg_statistic_ext WHERE stxrelid = '16392'"),
            "");
  EXPECT_EQ(Query("SELECT (ARRAY[1, 2, 3])[2:], (ARRAY[1, 2])[5:6]"), "{2,3}|{};");
  EXPECT_EQ(Error("SELECT 1 < ANY(ARRAY[1])"),
            "0A000 operator < ANY over an array is not supported");
}

TEST_F(CatalogViews, FunctionsInFrom) {
  EXPECT_EQ(Query("SELECT * FROM generate_series(2, 6, 2) s"), "2;4;6;");
  EXPECT_EQ(Query("SELECT s.x, s.n FROM generate_series(3, 1, -1) WITH ORDINALITY AS s(x, n)"),
            "3|1;2|2;1|3;");
  EXPECT_EQ(Query("SELECT a.relid::regclass, a.depth FROM "
                  "pg_catalog.pg_partition_ancestors('16392') WITH ORDINALITY AS a(relid, depth)"),
            "items|1;");
  EXPECT_EQ(Query("SELECT u FROM unnest('{5,NULL}'::int[]) u"), "5;NULL;");
  EXPECT_EQ(Error("SELECT * FROM generate_series(1, 0, 0)"), "22023 step size cannot equal zero");
}

// string_agg / array_agg (olap/execution/aggregate/list_agg.h) and ARRAY(subquery), as
// PostgreSQL 15 answers them.
TEST_F(CatalogViews, ListAggregates) {
  EXPECT_EQ(Query("SELECT string_agg(attname, ', ' ORDER BY attname) FROM pg_attribute "
                  "WHERE attrelid = 'items'::regclass AND attnum > 0"),
            "born, id, name, note, ok, price, qty, score, seen;");
  EXPECT_EQ(Query("SELECT array_agg(x ORDER BY x DESC), array_agg(x ORDER BY x) "
                  "FROM generate_series(8, 11) x"),
            "{11,10,9,8}|{8,9,10,11};");
  EXPECT_EQ(Query("SELECT array_agg(v), string_agg(v, NULL), array_agg(v ORDER BY v NULLS FIRST) "
                  "FROM (VALUES ('b c'), (NULL), ('a')) t(v)"),
            "{\"b c\",NULL,a}|b ca|{NULL,a,\"b c\"};");
  EXPECT_EQ(Query("SELECT x % 2, string_agg(x::text, ',' ORDER BY x::text DESC) "
                  "FROM generate_series(1, 5) x GROUP BY 1 ORDER BY 1"),
            "0|4,2;1|5,3,1;");
  EXPECT_EQ(Query("SELECT string_agg(attname, ','), array_agg(attnum) FROM pg_attribute "
                  "WHERE attrelid = 0"),
            "NULL|NULL;");
  EXPECT_EQ(Query("SELECT ARRAY(SELECT attname FROM pg_attribute WHERE attrelid = 0), "
                  "ARRAY(SELECT x FROM generate_series(3, 1, -1) x)"),
            "{}|{3,2,1};");
  // Correlated, as psql's \d TABLE asks for a policy's roles.
  EXPECT_EQ(Query("SELECT relname, array_to_string(ARRAY(SELECT attname FROM pg_attribute a "
                  "WHERE a.attrelid = c.oid AND attnum > 0 ORDER BY 1), ',') "
                  "FROM pg_class c WHERE relname IN ('nokey', 'pgbench_accounts') ORDER BY 1"),
            "nokey|x;pgbench_accounts|abalance,aid,bid,filler;");
  EXPECT_EQ(Query("SELECT array_to_string(ARRAY(SELECT rolname FROM pg_catalog.pg_roles "
                  "WHERE oid = ANY (ARRAY[r.oid]) ORDER BY 1), ',') = r.rolname FROM pg_roles r"),
            "t;t;");  // two roles
  // psql's policies query of \\d TABLE (Forktail has no policies).
  EXPECT_EQ(Query("SELECT pol.polname, pol.polpermissive, CASE WHEN pol.polroles = '{0}' THEN "
                  "NULL ELSE pg_catalog.array_to_string(array(select rolname from "
                  "pg_catalog.pg_roles where oid = any (pol.polroles) order by 1),',') END, "
                  "pg_catalog.pg_get_expr(pol.polqual, pol.polrelid), "
                  "pg_catalog.pg_get_expr(pol.polwithcheck, pol.polrelid), CASE pol.polcmd WHEN "
                  "'r' THEN 'SELECT' WHEN 'a' THEN 'INSERT' WHEN 'w' THEN 'UPDATE' WHEN 'd' THEN "
                  "'DELETE' END AS cmd FROM pg_catalog.pg_policy pol WHERE pol.polrelid = '16392' "
                  "ORDER BY 1"),
            "");
  EXPECT_EQ(Error("SELECT string_agg(attname, attname) FROM pg_attribute"),
            "0A000 a non-constant string_agg separator is not supported");
  EXPECT_EQ(Error("SELECT array_agg(attname ORDER BY '{}'::jsonb) FROM pg_attribute"),
            "0A000 array_agg(... ORDER BY a jsonb value) is not supported");
  EXPECT_EQ(Error("SELECT string_agg(1, ',')"),
            "42883 function string_agg(integer, text) does not exist");
}

TEST_F(CatalogViews, Errors) {
  EXPECT_EQ(Error("SELECT 'nosuch'::regclass"), "42P01 relation \"nosuch\" does not exist");
  EXPECT_EQ(Error("SELECT 'nosuch'::regtype"), "42704 type \"nosuch\" does not exist");
  EXPECT_EQ(Error("INSERT INTO pg_class (oid) VALUES (1)"),
            "42501 permission denied for table pg_class");
  EXPECT_EQ(Error("DELETE FROM pg_catalog.pg_attribute"),
            "42501 permission denied for table pg_attribute");
}

}  // namespace
}  // namespace forktail
