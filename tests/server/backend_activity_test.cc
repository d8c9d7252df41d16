// pg_backend_pid(), pg_stat_activity, pg_cancel_backend and
// pg_terminate_backend end to end (issue 17): psycopg 3 sessions watching,
// canceling and ending each other (tests/server/e2e/backend_activity.py),
// and psql as a person would use them.
#include "tests/server/e2e_fixture.h"

namespace forktail::test {
namespace {

class BackendActivityE2E : public EndToEnd {};

TEST_F(BackendActivityE2E, PsycopgSessionsSeeCancelAndEndEachOther) {
  if (!Installed("/usr/bin/python3 -c 'import psycopg, pytest'")) {
    GTEST_SKIP() << "psycopg 3 / pytest not installed";
  }
  CommandResult r = RunCommand("FORKTAIL_PORT=" + std::to_string(server_->port()) +
                               " /usr/bin/python3 -m pytest -q -p no:cacheprovider " +
                               (kE2eDir / "backend_activity.py").string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST_F(BackendActivityE2E, PsqlEndsItsOwnSession) {
  if (!Installed("psql --version")) GTEST_SKIP() << "psql not installed";
  EXPECT_NE(PsqlValue("select pg_backend_pid()"), "0");
  CommandResult r = Psql("-c \"select pg_terminate_backend(pg_backend_pid())\" -c \"select 1\"");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("terminating connection due to administrator command"), std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace forktail::test
