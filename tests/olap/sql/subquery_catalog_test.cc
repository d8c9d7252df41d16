// psql's \d TABLE queries (/work/shared/clients/psql2.trace) lean on
// correlated scalar subqueries the join rewrites cannot express: an
// outer-only conjunct and a non-equality correlation over pg_catalog views.
// End to end through the engine.
#include "tests/olap/session/session_test_util.h"

namespace forktail {
namespace {

using forktail::testing::EngineFixture;
using forktail::testing::InProcess;

class SubqueryCatalog : public EngineFixture {};

TEST_F(SubqueryCatalog, PsqlDescribeColumns) {
  Open(InProcess());
  Run("CREATE TABLE dt (id INTEGER NOT NULL, name VARCHAR(20), PRIMARY KEY (id))");
  std::vector<std::string> rows = Query(
      "SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), "
      "(SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid, true) FROM pg_catalog.pg_attrdef d "
      "WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND a.atthasdef), a.attnotnull, "
      "(SELECT c.collname FROM pg_catalog.pg_collation c, pg_catalog.pg_type t "
      "WHERE c.oid = a.attcollation AND t.oid = a.atttypid AND a.attcollation <> t.typcollation) "
      "AS attcollation "
      "FROM pg_catalog.pg_attribute a WHERE a.attrelid = 'dt'::regclass AND a.attnum > 0 "
      "AND NOT a.attisdropped ORDER BY a.attnum");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], "id|integer||t|");
  EXPECT_EQ(rows[1], "name|character varying(20)||f|");
}

}  // namespace
}  // namespace forktail
