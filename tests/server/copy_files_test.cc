// COPY FROM / TO a server file through the wire, as `forktail serve`
// configures the engine: refused (42501) for every client unless
// --copy-from-dir / --copy-to-dir names a directory, and then only files
// under it. COPY FROM STDIN and COPY TO STDOUT (psql's \copy) use the
// client's own file.
#include <fstream>
#include <sstream>

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
    options.copy_to_files = SqlFrontendOptions::ServerFiles::kUnderDir;
    options.copy_to_dir = load_dir_;
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

TEST_F(CopyFilesE2E, CopyToWritesOnlyUnderTheConfiguredDirectory) {
  if (!Installed("psql --version")) GTEST_SKIP() << "psql not installed";
  ASSERT_EQ(
      Psql("-c \"create table ot (l text)\" -c \"insert into ot values ('x'), ('y')\"").exit_code,
      0);
  for (const std::string& file : {dir_ + "_outside.txt", std::string("../outside.txt")}) {
    CommandResult r = Psql("-c \"copy ot to '" + file + "'\"");
    EXPECT_NE(r.exit_code, 0) << file;
    EXPECT_NE(r.output.find("only files under the server's --copy-to-dir"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("HINT:  Anyone can COPY to stdout or from stdin."), std::string::npos)
        << r.output;
  }
  EXPECT_FALSE(fs::exists(dir_ + "_outside.txt"));
  CommandResult ok = Psql("-c \"copy ot to 'out.csv' (format csv, header)\"");
  ASSERT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_EQ(ok.output, "COPY 2\n");
  std::stringstream written;
  written << std::ifstream(load_dir_ + "/out.csv").rdbuf();
  EXPECT_EQ(written.str(), "l\nx\ny\n");
}

// `forktail serve` without --copy-to-dir: no server file is ever written.
class CopyToRefusedE2E : public EndToEnd {
 protected:
  void Configure(SqlFrontendOptions& options) override {
    options.copy_to_files = SqlFrontendOptions::ServerFiles::kNever;
  }
};

TEST_F(CopyToRefusedE2E, CopyToAFileIs42501) {
  if (!Installed("psql --version")) GTEST_SKIP() << "psql not installed";
  const std::string file = dir_ + "_refused.txt";
  CommandResult r = Psql("-v VERBOSITY=verbose -c \"copy (select 1) to '" + file + "'\"");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("ERROR:  42501: COPY to a file is disabled on this server"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(file));
  // COPY TO STDOUT and psql's \copy still work.
  CommandResult out = Psql("-c \"copy (select 1) to stdout\"");
  EXPECT_EQ(out.output, "1\n");
  ASSERT_EQ(Psql("-c \"\\copy (select 2) to '" + file + "'\"").exit_code, 0);
  std::stringstream written;
  written << std::ifstream(file).rdbuf();
  fs::remove(file);
  EXPECT_EQ(written.str(), "2\n");
}

}  // namespace
}  // namespace forktail::test
