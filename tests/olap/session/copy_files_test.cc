// Which server files COPY ... FROM 'file' may read (SqlFrontendOptions::
// copy_from_files): `forktail serve` refuses every file unless started with
// --copy-from-dir DIR, and then reads only the files under DIR, whatever the
// name says ('..', absolute paths, symbolic links). 42501 with PostgreSQL's
// hint otherwise; COPY FROM STDIN always works.
#include <fstream>

#include "tests/olap/session/session_test_util.h"

namespace forktail::testing {
namespace {

using ::testing::ElementsAre;

class EngineCopyFilesTest : public EngineFixture {
 protected:
  void OpenWith(SqlFrontendOptions::ServerFiles files, const std::string& dir = "") {
    SqlFrontendOptions options = InProcess();
    options.copy_from_files = files;
    options.copy_from_dir = dir;
    Open(options);
    Run("CREATE TABLE t (line text)");
  }
  static void Write(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
  }
  void ExpectRefused(const std::string& sql) {
    try {
      Run(sql);
      ADD_FAILURE() << sql << ": read a server file";
    } catch (const DbError& e) {
      EXPECT_STREQ(e.sqlstate(), sqlstate::kInsufficientPrivilege) << e.what();
      EXPECT_EQ(e.hint(),
                "Anyone can COPY from stdin. psql's \\copy command also works for anyone.");
    }
    EXPECT_THAT(Query("SELECT count(*) FROM t"), ElementsAre("0"));
  }

  TempDir files_;
};

TEST_F(EngineCopyFilesTest, NoServerFileByDefaultOfTheServer) {
  OpenWith(SqlFrontendOptions::ServerFiles::kNever);
  ExpectRefused("COPY t FROM '/etc/passwd'");
  ExpectRefused("COPY t FROM '../../../../etc/passwd'");
  EXPECT_EQ(Run("COPY t FROM STDIN").command_tag, "COPY_IN");
  session_->CopyIn("from the client\n");
  EXPECT_EQ(session_->CopyDone().command_tag, "COPY 1");
}

TEST_F(EngineCopyFilesTest, OnlyFilesUnderTheDirectory) {
  const std::string dir = files_.path() + "/load";
  std::filesystem::create_directory(dir);
  Write(dir + "/a.txt", "one\ntwo\n");
  Write(files_.path() + "/secret.txt", "secret\n");
  std::filesystem::create_symlink(files_.path() + "/secret.txt", dir + "/link.txt");
  OpenWith(SqlFrontendOptions::ServerFiles::kUnderDir, dir);
  ExpectRefused("COPY t FROM '" + files_.path() + "/secret.txt'");
  ExpectRefused("COPY t FROM '../secret.txt'");
  ExpectRefused("COPY t FROM 'link.txt'");  // a link out of the directory
  ExpectRefused("COPY t FROM '/etc/passwd'");
  EXPECT_EQ(Run("COPY t FROM 'a.txt'").command_tag, "COPY 2");
  EXPECT_EQ(Run("COPY t FROM '" + dir + "/a.txt'").command_tag, "COPY 2");
  EXPECT_EQ(Run("BEGIN; COPY t FROM 'a.txt'; COMMIT").command_tag, "COMMIT");
  EXPECT_THAT(Query("SELECT count(*) FROM t"), ElementsAre("6"));
}

}  // namespace
}  // namespace forktail::testing
