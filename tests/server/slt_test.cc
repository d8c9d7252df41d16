// SQL tests as sqllogictest files (tests/server/e2e/slt/*.slt) run by the
// `sqllogictest` runner (crates.io sqllogictest-bin) against the real engine
// behind the wire server, once per engine: `postgres` (simple query, text
// results) and `postgres-extended` (Parse/Bind/Execute asking for binary
// results of every column, which the runner formats itself). Files under
// slt/simple/ run with the simple engine only: the runner's extended engine
// cannot read CHAR(n) results ("Don't support bpchar type"), and go-tpc's
// statements (slt/simple/go_tpc_tpcc.slt) return CHAR columns.
//
// The runner takes minutes to build, so no test builds it:
// scripts/install-client-tools.sh puts it in build/tools/cargo/bin. The test
// looks there, then at $FORKTAIL_SQLLOGICTEST, then on PATH, and skips when
// none has it.
#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/server/e2e_fixture.h"

namespace forktail::test {
namespace {

std::string FindRunner() {
  fs::path cached = kE2eDir.parent_path().parent_path().parent_path() / "build" / "tools" /
                    "cargo" / "bin" / "sqllogictest";
  if (fs::exists(cached)) return cached.string();
  if (const char* env = std::getenv("FORKTAIL_SQLLOGICTEST"); env && fs::exists(env)) return env;
  if (Installed("command -v sqllogictest")) return "sqllogictest";
  return "";
}

class SqlLogicTest : public EndToEnd, public ::testing::WithParamInterface<const char*> {};

TEST_P(SqlLogicTest, Files) {
  std::string runner = FindRunner();
  if (runner.empty()) {
    GTEST_SKIP() << "sqllogictest runner not installed (scripts/install-client-tools.sh)";
  }
  const bool simple = std::string(GetParam()) == "postgres";
  std::string files = "'" + (kE2eDir / "slt").string() + "/*.slt'";
  if (simple) files += " '" + (kE2eDir / "slt" / "simple").string() + "/*.slt'";
  CommandResult r =
      RunCommand(runner + " --color never --engine " + GetParam() + " --host 127.0.0.1 --port " +
                 std::to_string(server_->port()) + " --db db --user tester " + files);
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

INSTANTIATE_TEST_SUITE_P(Engines, SqlLogicTest, ::testing::Values("postgres", "postgres-extended"),
                         [](const auto& info) {
                           return std::string(info.param) == "postgres" ? "Simple" : "Extended";
                         });

}  // namespace
}  // namespace forktail::test
