// SAVEPOINT / ROLLBACK TO / RELEASE end to end (issue 16): psycopg 3's
// nested transactions and get-or-create (tests/server/e2e/savepoints.py),
// and psql's ON_ERROR_ROLLBACK, which wraps every statement of a block in a
// savepoint so that a typo does not lose the block.
#include "tests/server/e2e_fixture.h"

namespace forktail::test {
namespace {

class SavepointsE2E : public EndToEnd {};

TEST_F(SavepointsE2E, PsycopgNestedTransactions) {
  if (!Installed("/usr/bin/python3 -c 'import psycopg, pytest'")) {
    GTEST_SKIP() << "psycopg 3 / pytest not installed";
  }
  CommandResult r = RunCommand("FORKTAIL_PORT=" + std::to_string(server_->port()) +
                               " /usr/bin/python3 -m pytest -q -p no:cacheprovider " +
                               (kE2eDir / "savepoints.py").string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST_F(SavepointsE2E, PsqlOnErrorRollbackKeepsTheBlock) {
  if (!Installed("psql --version")) GTEST_SKIP() << "psql not installed";
  CommandResult r = Psql(
      "-v ON_ERROR_STOP=0 -v ON_ERROR_ROLLBACK=on -c 'CREATE TABLE t (a int PRIMARY KEY)' "
      "-c 'BEGIN' -c 'INSERT INTO t VALUES (1)' -c 'INSERT INTO t VALUES (1)' "
      "-c 'SELEC 1' -c 'INSERT INTO t VALUES (2)' -c 'COMMIT' -c 'SELECT count(*) FROM t'");
  EXPECT_NE(r.output.find("duplicate key value"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("COMMIT"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("     2\n"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace forktail::test
