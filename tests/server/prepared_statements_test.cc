// SQL PREPARE / EXECUTE / DEALLOCATE end to end (issue 16): psycopg 3 beside
// its own protocol-level named statements, which share their namespace
// (tests/server/e2e/prepared_statements.py), and psql.
#include "tests/server/e2e_fixture.h"

namespace forktail::test {
namespace {

class PreparedStatementsE2E : public EndToEnd {};

TEST_F(PreparedStatementsE2E, Psycopg) {
  if (!Installed("/usr/bin/python3 -c 'import psycopg, pytest'")) {
    GTEST_SKIP() << "psycopg 3 / pytest not installed";
  }
  CommandResult r = RunCommand("FORKTAIL_PORT=" + std::to_string(server_->port()) +
                               " /usr/bin/python3 -m pytest -q -p no:cacheprovider " +
                               (kE2eDir / "prepared_statements.py").string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST_F(PreparedStatementsE2E, PsqlExecuteShowsTheStatementsResult) {
  if (!Installed("psql --version")) GTEST_SKIP() << "psql not installed";
  CommandResult r = Psql(
      "-c 'PREPARE twice(int) AS SELECT $1 * 2 AS doubled' -c 'EXECUTE twice(21)' "
      "-c 'EXECUTE twice(1, 2)'");
  EXPECT_NE(r.output.find("doubled"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("      42\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("wrong number of parameters for prepared statement \"twice\""),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace forktail::test
