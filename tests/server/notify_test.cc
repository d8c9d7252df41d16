// LISTEN / NOTIFY / pg_notify end to end (issue 16): psycopg 3 sessions
// notifying each other (tests/server/e2e/notify.py), and psql as a person
// would see a notification.
#include "tests/server/e2e_fixture.h"

namespace forktail::test {
namespace {

class NotifyE2E : public EndToEnd {};

TEST_F(NotifyE2E, PsycopgSessionsNotifyEachOther) {
  if (!Installed("/usr/bin/python3 -c 'import psycopg, pytest'")) {
    GTEST_SKIP() << "psycopg 3 / pytest not installed";
  }
  CommandResult r = RunCommand("FORKTAIL_PORT=" + std::to_string(server_->port()) +
                               " /usr/bin/python3 -m pytest -q -p no:cacheprovider " +
                               (kE2eDir / "notify.py").string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST_F(NotifyE2E, PsqlShowsItsOwnNotification) {
  if (!Installed("psql --version")) GTEST_SKIP() << "psql not installed";
  CommandResult r = Psql("-c \"LISTEN ch\" -c \"NOTIFY ch, 'hello'\"");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Asynchronous notification \"ch\" with payload \"hello\" received"),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace forktail::test
