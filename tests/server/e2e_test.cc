// End to end with the real SQL engine: a WireServer over SqlBackend on a
// fresh database in a temporary directory, on a free loopback port, driven by
// real clients: psql running a script and a psycopg 3 pytest (pgbench, which
// takes minutes under ASan, is in e2e_longtest.cc); psycopg's named cursors
// and cursor.copy(), timestamptz as aware datetimes, psql's \copy ... to and
// FETCH_COUNT.
// A test skips when its client is not installed.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/server/e2e_fixture.h"

namespace forktail::test {
namespace {

TEST_F(EndToEnd, PsqlScript) {
  if (!Installed("psql --version")) GTEST_SKIP() << "psql not installed";
  CommandResult r = Psql("-f " + (kE2eDir / "psql_session.sql").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The intentional errors, with PostgreSQL's wording.
  EXPECT_NE(r.output.find("relation \"no_such_table\" does not exist"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("duplicate key value violates unique constraint"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("COPY 2"), std::string::npos) << r.output;
  // Committed block applied, rolled-back block not, COPY rows in.
  EXPECT_EQ(PsqlValue("select count(*), sum(amount) from items"), "5|12.15");
  EXPECT_EQ(PsqlValue("select name from items where amount is null"), "five");
  EXPECT_EQ(PsqlValue("select amount from items where id = 1"), "2.50");
}

TEST_F(EndToEnd, Psycopg) {
  if (!Installed("/usr/bin/python3 -c 'import psycopg, pytest'")) {
    GTEST_SKIP() << "psycopg 3 / pytest not installed";
  }
  CommandResult r = RunCommand("FORKTAIL_PORT=" + std::to_string(server_->port()) +
                               " /usr/bin/python3 -m pytest -q -p no:cacheprovider " +
                               (kE2eDir / "psycopg_roundtrip.py").string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST_F(EndToEnd, PsycopgNamedCursorsAndCopy) {
  if (!Installed("/usr/bin/python3 -c 'import psycopg, pytest'")) {
    GTEST_SKIP() << "psycopg 3 / pytest not installed";
  }
  CommandResult r = RunCommand("FORKTAIL_PORT=" + std::to_string(server_->port()) +
                               " /usr/bin/python3 -m pytest -q -p no:cacheprovider " +
                               (kE2eDir / "psycopg_cursors_copy.py").string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// timestamptz through psycopg: aware datetimes in and out, text and binary,
// as parameters, through COPY, in the session's TimeZone.
TEST_F(EndToEnd, PsycopgTimestampTz) {
  if (!Installed("/usr/bin/python3 -c 'import psycopg, pytest'")) {
    GTEST_SKIP() << "psycopg 3 / pytest not installed";
  }
  CommandResult r = RunCommand("FORKTAIL_PORT=" + std::to_string(server_->port()) +
                               " /usr/bin/python3 -m pytest -q -p no:cacheprovider " +
                               (kE2eDir / "psycopg_types.py").string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// psql's \copy ... to is COPY ... TO STDOUT written by psql into the
// client's file; FETCH_COUNT reads a SELECT through a NO SCROLL cursor.
TEST_F(EndToEnd, PsqlCopyToAndFetchCount) {
  if (!Installed("psql --version")) GTEST_SKIP() << "psql not installed";
  ASSERT_EQ(Psql("-c \"create table pt (a int, b text)\"").exit_code, 0);
  // Row 2 holds a real tab, which COPY's text format writes as backslash-t.
  ASSERT_EQ(Psql("-c \"insert into pt values (1, 'one'), (2, 'tab\there'), (3, null)\"").exit_code,
            0);
  const std::string file = dir_ + "_pt.txt";
  CommandResult to_file = Psql("-c \"\\copy pt to '" + file + "'\"");
  ASSERT_EQ(to_file.exit_code, 0) << to_file.output;
  EXPECT_EQ(to_file.output, "COPY 3\n");
  std::stringstream written;
  written << std::ifstream(file).rdbuf();
  fs::remove(file);
  EXPECT_EQ(written.str(), "1\tone\n2\ttab\\there\n3\t\\N\n");
  CommandResult csv =
      Psql("-c \"\\copy (select a, b from pt where a > 1 order by a) to stdout with csv header\"");
  ASSERT_EQ(csv.exit_code, 0) << csv.output;
  EXPECT_EQ(csv.output, "a,b\n2,tab\there\n3,\n");  // a tab needs no quotes in CSV
  // FETCH_COUNT 2: BEGIN, DECLARE _psql_cursor NO SCROLL CURSOR, FETCH
  // FORWARD 2 until done, CLOSE, COMMIT.
  CommandResult fetched = Psql("-v FETCH_COUNT=2 -A -c \"select a from pt order by a\"");
  ASSERT_EQ(fetched.exit_code, 0) << fetched.output;
  EXPECT_EQ(fetched.output, "a\n1\n2\n3\n(3 rows)\n");
}

}  // namespace
}  // namespace forktail::test
