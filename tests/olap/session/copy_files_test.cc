// Which server files COPY ... FROM 'file' may read and COPY ... TO 'file'
// may write (SqlFrontendOptions::copy_from_files, copy_to_files): `forktail
// serve` refuses every file unless started with --copy-from-dir DIR /
// --copy-to-dir DIR, and then touches only the files under DIR, whatever the
// name says ('..', absolute paths, symbolic links). 42501 with PostgreSQL's
// hint otherwise; COPY FROM STDIN and COPY TO STDOUT always work.
#include <fstream>
#include <sstream>

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
    options.copy_to_files = files;
    options.copy_to_dir = dir;
    Open(options);
    Run("CREATE TABLE t (line text)");
  }
  static void Write(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
  }
  static std::string Read(const std::string& path) {
    std::stringstream s;
    s << std::ifstream(path).rdbuf();
    return s.str();
  }
  void ExpectWriteRefused(const std::string& sql) {
    try {
      Run(sql);
      ADD_FAILURE() << sql << ": wrote a server file";
    } catch (const DbError& e) {
      EXPECT_STREQ(e.sqlstate(), sqlstate::kInsufficientPrivilege) << e.what();
      EXPECT_EQ(e.hint(),
                "Anyone can COPY to stdout or from stdin. psql's \\copy command also works for "
                "anyone.");
    }
  }
  void ExpectRefused(const std::string& sql) {
    try {
      Run(sql);
      ADD_FAILURE() << sql << ": read a server file";
    } catch (const DbError& e) {
      EXPECT_STREQ(e.sqlstate(), sqlstate::kInsufficientPrivilege) << e.what();
      EXPECT_EQ(e.hint(),
                "Anyone can COPY to stdout or from stdin. psql's \\copy command also works for "
                "anyone.");
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

TEST_F(EngineCopyFilesTest, CopyToNoServerFileByDefaultOfTheServer) {
  OpenWith(SqlFrontendOptions::ServerFiles::kNever);
  Run("INSERT INTO t VALUES ('one')");
  const std::string target = files_.path() + "/out.txt";
  ExpectWriteRefused("COPY t TO '" + target + "'");
  ExpectWriteRefused("COPY (SELECT 1) TO 'relative.txt' (FORMAT csv)");
  EXPECT_FALSE(std::filesystem::exists(target));
  EXPECT_EQ(Run("COPY t TO STDOUT").copy_out->data, "one\n");
}

TEST_F(EngineCopyFilesTest, CopyToWritesOnlyUnderTheDirectory) {
  const std::string dir = files_.path() + "/out";
  std::filesystem::create_directory(dir);
  std::filesystem::create_directory(dir + "/sub");
  Write(files_.path() + "/secret.txt", "secret\n");
  std::filesystem::create_symlink(files_.path() + "/secret.txt", dir + "/link.txt");
  OpenWith(SqlFrontendOptions::ServerFiles::kUnderDir, dir);
  Run("INSERT INTO t VALUES ('one'), ('two')");
  ExpectWriteRefused("COPY t TO '../secret.txt'");
  ExpectWriteRefused("COPY t TO 'link.txt'");  // a link out of the directory
  ExpectWriteRefused("COPY t TO '" + files_.path() + "/secret.txt'");
  ExpectWriteRefused("COPY t TO 'sub/../../secret.txt'");
  ExpectWriteRefused("COPY t TO '/etc/hostname'");
  EXPECT_EQ(Read(files_.path() + "/secret.txt"), "secret\n");
  EXPECT_FALSE(std::filesystem::exists(files_.path() + "/out.txt"));

  StatementResult r = Run("COPY t TO 'a.txt'");
  EXPECT_EQ(r.command_tag, "COPY 2");
  EXPECT_FALSE(r.copy_out.has_value());
  EXPECT_EQ(Read(dir + "/a.txt"), "one\ntwo\n");
  // An existing file under the directory is overwritten; an absolute name
  // under it is fine; the options apply.
  EXPECT_EQ(Run("COPY (SELECT line FROM t WHERE line = 'two') TO '" + dir +
                "/a.txt' (FORMAT csv, HEADER)")
                .command_tag,
            "COPY 1");
  EXPECT_EQ(Read(dir + "/a.txt"), "line\ntwo\n");
  EXPECT_EQ(Run("COPY t TO 'sub/b.bin' (FORMAT binary)").command_tag, "COPY 2");
  EXPECT_EQ(Read(dir + "/sub/b.bin").substr(0, 6), "PGCOPY");
  try {
    Run("COPY t TO 'sub'");
    ADD_FAILURE() << "wrote to a directory";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kWrongObjectType);
    EXPECT_EQ(std::string(e.what()), "could not open file \"" +
                                         std::filesystem::canonical(dir).string() +
                                         "/sub\" for writing: Is a directory");
  }
  // Inside a block the file is written at the statement, once.
  Run("BEGIN");
  Run("INSERT INTO t VALUES ('three')");
  EXPECT_EQ(Run("COPY t TO 'c.txt'").command_tag, "COPY 3");
  EXPECT_EQ(Read(dir + "/c.txt"), "one\ntwo\nthree\n");
  std::filesystem::remove(dir + "/c.txt");
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  EXPECT_FALSE(std::filesystem::exists(dir + "/c.txt"));
}

TEST_F(EngineCopyFilesTest, CopyToAnywhereTakesAbsolutePathsOnly) {
  OpenWith(SqlFrontendOptions::ServerFiles::kAnywhere);
  Run("INSERT INTO t VALUES ('one')");
  ExpectDbError([&] { Run("COPY t TO 'relative.txt'"); }, "42602",
                "relative path not allowed for COPY to file");
  const std::string target = files_.path() + "/abs.txt";
  EXPECT_EQ(Run("COPY t TO '" + target + "'").command_tag, "COPY 1");
  EXPECT_EQ(Read(target), "one\n");
  ExpectDbError([&] { Run("COPY t TO '" + files_.path() + "/no/such/dir.txt'"); }, "58P01",
                "could not open file \"" + files_.path() +
                    "/no/such/dir.txt\" for writing: No such file or directory");
}

}  // namespace
}  // namespace forktail::testing
