// pgbench, short (in `make test`): `pgbench -i -s 1` unchanged, then 50
// transactions per client in simple, extended and prepared modes with 4
// clients, and prepared with one pgbench thread for the 4 clients (-j 1: the
// case where one client's Parse must not wait for another's open block).
#include "tests/server/e2e/pgbench_fixture.h"

namespace forktail::test {
namespace {

TEST_F(PgbenchEndToEnd, InitThenEveryModeKeepsTheInvariant) {
  if (!Installed("pgbench --version")) GTEST_SKIP() << "pgbench not installed";
  Init(1);
  const std::vector<std::string> runs = {"-M simple -c 4 -j 2 -t 50", "-M extended -c 4 -j 2 -t 50",
                                         "-M prepared -c 4 -j 2 -t 50",
                                         "-M prepared -c 4 -j 1 -t 50"};
  for (const std::string& run : runs) {
    std::string out = RunPgbench(run);
    EXPECT_NE(out.find("number of transactions actually processed: 200/200"), std::string::npos)
        << run << "\n"
        << out;
  }
  EXPECT_EQ(PsqlValue("select count(*) from pgbench_history"), std::to_string(200 * runs.size()));
  ExpectInvariant();
}

}  // namespace
}  // namespace forktail::test
