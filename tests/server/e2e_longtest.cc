// pgbench as the issue asks (label "long": minutes under ASan): `pgbench -i
// -s 10` unchanged, then 30-second runs in simple, extended and prepared
// modes with 4 clients, then the TPC-B invariant. The short version is
// pgbench_test.cc.
#include "tests/server/e2e/pgbench_fixture.h"

namespace forktail::test {
namespace {

TEST_F(PgbenchEndToEnd, InitScale10AndThirtySecondRunsKeepTheInvariant) {
  if (!Installed("pgbench --version")) GTEST_SKIP() << "pgbench not installed";
  Init(10);
  for (const std::string mode : {"simple", "extended", "prepared"}) {
    std::string out = RunPgbench("-M " + mode + " -c 4 -j 4 -T 30");
    EXPECT_NE(out.find("tps = "), std::string::npos) << out;
  }
  ExpectInvariant();
}

}  // namespace
}  // namespace forktail::test
