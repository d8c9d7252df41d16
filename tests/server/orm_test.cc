// An ORM against the server (issue 16): SQLAlchemy over psycopg2 runs an
// application's first hour (tests/server/e2e/sqlalchemy_orm.py): DDL from
// models, catalog reflection, the unit of work, savepoints, cascades.
#include "tests/server/e2e_fixture.h"

namespace forktail::test {
namespace {

class OrmE2E : public EndToEnd {};

TEST_F(OrmE2E, SqlalchemyOverPsycopg2) {
  if (!Installed("/usr/bin/python3 -c 'import sqlalchemy, psycopg2, pytest'")) {
    GTEST_SKIP() << "SQLAlchemy / psycopg2 / pytest not installed";
  }
  CommandResult r = RunCommand("FORKTAIL_PORT=" + std::to_string(server_->port()) +
                               " /usr/bin/python3 -m pytest -q -p no:cacheprovider " +
                               (kE2eDir / "sqlalchemy_orm.py").string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

}  // namespace
}  // namespace forktail::test
