// psql's catalog commands (\dt, \d, \di, \dn, \l, \df, \d TABLE) against `forktail
// serve`: psql sends its plain SQL over pg_catalog and prints what it gets;
// the output must equal e2e/psql_catalog.expected, which is what PostgreSQL
// 15 prints for the same tables (e2e/psql_catalog.sql) when user "tester"
// created them in database "db" (Forktail's one role and one database take
// the names the client logged in with; see olap/plan/catalog/system_catalog.h),
// except for \l (Forktail has one database, no templates, collation C). Tables with foreign keys:
// e2e/psql_foreign_keys.sql.
#include <fstream>
#include <initializer_list>
#include <sstream>

#include "tests/server/e2e_fixture.h"

namespace forktail::test {
namespace {

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class PsqlCatalog : public EndToEnd {
 protected:
  // Runs backslash commands in one psql session after a `set` (a fresh
  // session must see the tables just created).
  std::string RunCommands(std::initializer_list<const char*> commands) {
    std::string args = "-c 'set forktail.max_snapshot_age_ms = 1'";
    for (const char* c : commands) args += std::string(" -c '") + c + "'";
    CommandResult r = Psql(args);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return r.output;
  }
};

TEST_F(PsqlCatalog, ListCommands) {
  if (!Installed("psql --version")) GTEST_SKIP() << "psql is not installed";
  CommandResult setup = Psql("-q -f " + (kE2eDir / "psql_catalog.sql").string());
  ASSERT_EQ(setup.exit_code, 0) << setup.output;
  EXPECT_EQ(RunCommands({"\\dt", "\\d", "\\di", "\\dn", "\\l", "\\df"}),
            ReadText(kE2eDir / "psql_catalog.expected"));
}

// \du and \dx: the one role, with the attributes PostgreSQL's bootstrap
// superuser shows, and no extensions (pg_auth_members and pg_extension are
// empty, as Forktail has neither role memberships nor extensions).
TEST_F(PsqlCatalog, RolesAndExtensions) {
  if (!Installed("psql --version")) GTEST_SKIP() << "psql is not installed";
  EXPECT_EQ(RunCommands({"\\du", "\\dx"}),
            "SET\n"
            "                                   List of roles\n"
            " Role name |                         Attributes                         | Member of \n"
            "-----------+------------------------------------------------------------+-----------\n"
            " tester    | Superuser, Create role, Create DB, Replication, Bypass RLS | {}\n"
            "\n"
            "     List of installed extensions\n"
            " Name | Version | Schema | Description \n"
            "------+---------+--------+-------------\n"
            "(0 rows)\n"
            "\n");
}

// \d TABLE: psql sends 12 queries and prints nothing if one fails (the
// publications query runs generate_series over a correlated argument:
// olap/plan/binder/table_function.h).
TEST_F(PsqlCatalog, DescribeTable) {
  if (!Installed("psql --version")) GTEST_SKIP() << "psql is not installed";
  CommandResult setup = Psql("-q -f " + (kE2eDir / "psql_catalog.sql").string());
  ASSERT_EQ(setup.exit_code, 0) << setup.output;
  EXPECT_EQ(RunCommands({"\\d pgbench_accounts", "\\d items", "\\d nokey"}),
            "SET\n" + ReadText(kE2eDir / "psql_describe.expected"));
}

// \d of tables with foreign keys: "Foreign-key constraints:" and "Referenced
// by:" (pg_constraint rows of contype 'f', pg_get_constraintdef,
// relhastriggers), as PostgreSQL 15 prints them for e2e/psql_foreign_keys.sql.
TEST_F(PsqlCatalog, DescribeForeignKeys) {
  if (!Installed("psql --version")) GTEST_SKIP() << "psql is not installed";
  CommandResult setup = Psql("-q -f " + (kE2eDir / "psql_foreign_keys.sql").string());
  ASSERT_EQ(setup.exit_code, 0) << setup.output;
  EXPECT_EQ(RunCommands({"\\d fk_child", "\\d fk_parent", "\\d fk_tree"}),
            "SET\n" + ReadText(kE2eDir / "psql_describe_foreign_keys.expected"));
}

// Ten of the twelve queries of \d items (see the file) run and answer as
// PostgreSQL does.
TEST_F(PsqlCatalog, DescribeTableQueries) {
  if (!Installed("psql --version")) GTEST_SKIP() << "psql is not installed";
  CommandResult setup = Psql("-q -f " + (kE2eDir / "psql_catalog.sql").string());
  ASSERT_EQ(setup.exit_code, 0) << setup.output;
  CommandResult r = Psql("-At -c 'set forktail.max_snapshot_age_ms = 1' -f " +
                         (kE2eDir / "psql_describe_queries.sql").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("16392|public|items\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("name|character varying(20)||t|||\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("items_pkey|t|t|f|t|CREATE UNIQUE INDEX items_pkey ON public.items USING "
                          "btree (id, name)|PRIMARY KEY (id, name)|p|f|f|f|0\n"),
            std::string::npos)
      << r.output;
}

// Sequences: \ds, \d of tables with SERIAL, identity and nextval columns
// (their Default column), and \d of a sequence (psql's query of
// pg_sequence, and of pg_depend for "Owned by" / "Sequence for identity
// column"), as PostgreSQL 15 prints them for e2e/psql_sequences.sql.
TEST_F(PsqlCatalog, DescribeSequences) {
  if (!Installed("psql --version")) GTEST_SKIP() << "psql is not installed";
  CommandResult setup = Psql("-q -f " + (kE2eDir / "psql_sequences.sql").string());
  ASSERT_EQ(setup.exit_code, 0) << setup.output;
  EXPECT_EQ(RunCommands({"\\ds", "\\d orders", "\\d big", "\\d invoice_no", "\\d orders_id_seq",
                         "\\d orders_qty_seq"}),
            "SET\n" + ReadText(kE2eDir / "psql_sequences.expected"));
}

TEST_F(PsqlCatalog, CatalogQueries) {
  if (!Installed("psql --version")) GTEST_SKIP() << "psql is not installed";
  CommandResult setup = Psql("-q -f " + (kE2eDir / "psql_catalog.sql").string());
  ASSERT_EQ(setup.exit_code, 0) << setup.output;
  EXPECT_EQ(PsqlValue("SELECT 'items'::regclass::oid, 'items'::regclass::oid::regclass, "
                      "current_database(), current_user"),
            "16392|items|db|tester");
  EXPECT_EQ(PsqlValue("SELECT count(*) FROM information_schema.columns WHERE table_name = "
                      "'items'"),
            "9");
  CommandResult write = Psql("-c 'DELETE FROM pg_class'");
  EXPECT_NE(write.exit_code, 0);
  EXPECT_NE(write.output.find("permission denied for table pg_class"), std::string::npos)
      << write.output;
}

}  // namespace
}  // namespace forktail::test
