// pgJDBC 42.7.4 against the real engine behind the wire server
// (tests/server/e2e/jdbc: a Maven project with a plain main). The driver
// switches each PreparedStatement to a named server-side statement at its 5th
// execution and asks for binary int4/int8/float8/numeric/date/timestamp
// results from then on; the client runs every check 10+ times so both the text
// and the binary phase are covered, plus batches, transactions, SQLSTATEs and
// DatabaseMetaData.
//
// Maven writes only under this binary's directory (jdbc_e2e/) and ~/.m2; it
// runs again only when the pom or the Java source changed, so later runs start
// java at once and need no network (the first needs Maven Central, or a ~/.m2
// filled by scripts/install-client-tools.sh). Skips when java or mvn is missing.
#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/server/e2e_fixture.h"

namespace forktail::test {
namespace {

fs::path ThisBinaryDir() { return fs::read_symlink("/proc/self/exe").parent_path(); }

// The newest modification time under `root` (the Maven project's inputs).
fs::file_time_type NewestInput(const fs::path& root) {
  fs::file_time_type newest = fs::last_write_time(root / "pom.xml");
  for (const auto& entry : fs::recursive_directory_iterator(root / "src")) {
    if (entry.is_regular_file()) newest = std::max(newest, entry.last_write_time());
  }
  return newest;
}

TEST_F(EndToEnd, Jdbc) {
  if (!Installed("java -version") || !Installed("mvn -v")) {
    GTEST_SKIP() << "java / maven not installed (scripts/install-deps.sh)";
  }
  const fs::path project = kE2eDir / "jdbc";
  const fs::path out = ThisBinaryDir() / "jdbc_e2e";
  const fs::path classpath = out / "classpath.txt";
  if (!fs::exists(classpath) || fs::last_write_time(classpath) < NewestInput(project)) {
    fs::remove(classpath);
    CommandResult build = RunCommand(
        "mvn -B -q -f " + (project / "pom.xml").string() + " -Dforktail.build.dir=" + out.string() +
        " -Dmdep.outputFile=" + classpath.string() + " compile dependency:build-classpath");
    ASSERT_EQ(build.exit_code, 0) << build.output;
  }
  CommandResult r =
      RunCommand("java -cp " + (out / "classes").string() + ":$(cat " + classpath.string() +
                 ") forktail.JdbcRoundTrip " + std::to_string(server_->port()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(" passed, 0 failed"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace forktail::test
