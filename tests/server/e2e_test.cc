// End to end with the real SQL engine: a WireServer over SqlBackend on a
// fresh database in a temporary directory, on a free loopback port, driven by
// real clients: psql running a script and a psycopg 3 pytest (pgbench, which
// takes minutes under ASan, is in e2e_longtest.cc).
// A test skips when its client is not installed.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace forktail::test
