// COPY FROM a server file through the wire, as `forktail serve` configures
// the engine: refused (42501) for every client unless --copy-from-dir names a
// directory, and then only files under it. COPY FROM STDIN (psql's \copy)
// reads the client's own file.
#include <fstream>

#include "tests/server/e2e_fixture.h"

namespace forktail::test {
namespace {

class CopyFilesE2E : public EndToEnd {
 protected:
  void Configure(SqlFrontendOptions& options) override {
    load_dir_ = dir_ + "_load";
    fs::create_directories(load_dir_);
    std::ofstream(load_dir_ + "/rows.txt") << "a\nb\n";
    options.copy_from_files = SqlFrontendOptions::ServerFiles::kUnderDir;
    options.copy_from_dir = load_dir_;
  }
  void TearDown() override {
    EndToEnd::TearDown();
    fs::remove_all(load_dir_);
  }
  std::string load_dir_;
};

TEST_F(CopyFilesE2E, OnlyTheConfiguredDirectoryIsReadable) {
  if (!Installed("psql --version")) GTEST_SKIP() << "psql not installed";
  ASSERT_EQ(Psql("-c \"create table sh (l text)\"").exit_code, 0);
  for (const std::string& file : {std::string("/etc/passwd"), std::string("../../../../etc/passwd"),
                                  dir_ + "/wal/../../../etc/hostname"}) {
    CommandResult r = Psql("-c \"copy sh from '" + file + "'\"");
    EXPECT_NE(r.exit_code, 0) << file;
    EXPECT_NE(r.output.find("only files under the server's --copy-from-dir"), std::string::npos)
        << r.output;
  }
  EXPECT_EQ(PsqlValue("select count(*) from sh"), "0");
  CommandResult ok = Psql("-c \"copy sh from 'rows.txt'\"");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  CommandResult client = Psql("-c \"\\copy sh from '" + load_dir_ + "/rows.txt'\"");
  EXPECT_EQ(client.exit_code, 0) << client.output;
  EXPECT_EQ(PsqlValue("select count(*) from sh"), "4");
}

}  // namespace
}  // namespace forktail::test
