// A commit that was not made durable is never visible (issue 17, item 4):
// after fdatasync fails, the commit's client gets 58030, and every later
// read and write of any session is refused with 58030 until a restart
// recovers from the log; a snapshot read answers only once its snapshot's
// commits are durable. The *Snapshot suite reads through real snapshot
// processes (Release build only).
#include "recovery/wal/fault_injection_log_file.h"
#include "tests/common/sanitizer_fork.h"
#include "tests/olap/session/session_test_util.h"

namespace forktail::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class LogFailureTest : public ::testing::Test {
 protected:
  virtual SqlFrontendOptions Options() { return InProcess(); }
  void SetUp() override {
    DatabaseOptions db;
    db.wal_file_system = &fs_;
    engine_ = SqlFrontend::Open(dir_.path(), Options(), db);
  }
  void TearDown() override { engine_.reset(); }
  void ExpectRefused(SqlSession& s, const std::string& sql) {
    try {
      s.Execute(sql);
      ADD_FAILURE() << sql << ": answered after the log failed";
    } catch (const DbError& e) {
      EXPECT_STREQ(e.sqlstate(), sqlstate::kIoError) << sql << ": " << e.what();
    }
  }
  void Run() {
    SqlSession writer(*engine_);
    SqlSession reader(*engine_);
    writer.Execute("CREATE TABLE t (id int PRIMARY KEY, v int)");
    writer.Execute("INSERT INTO t VALUES (1, 10)");
    EXPECT_THAT(Lines(reader.Execute("SELECT count(*) FROM t").back()), ElementsAre("1"));
    fs_.FailSyncAt(1);
    try {
      writer.Execute("INSERT INTO t VALUES (2, 20)");
      ADD_FAILURE() << "the commit was acknowledged";
    } catch (const DbError& e) {
      EXPECT_STREQ(e.sqlstate(), sqlstate::kIoError);
    }
    // Row 2 is in memory and not durable: no read may return it.
    ExpectRefused(reader, "SELECT count(*) FROM t");
    ExpectRefused(reader, "SELECT v FROM t WHERE id = 2");
    SqlSession fresh(*engine_);
    ExpectRefused(fresh, "SELECT * FROM t");
    ExpectRefused(fresh, "INSERT INTO t VALUES (3, 30)");
    fresh.Execute("BEGIN");
    ExpectRefused(fresh, "SELECT 1");
    fresh.Execute("ROLLBACK");
    EXPECT_THAT(Lines(fresh.Execute("SHOW server_version").back())[0], HasSubstr("15"));
    try {
      fresh.Execute("SELECT 1");
    } catch (const DbError& e) {
      EXPECT_THAT(e.what(), HasSubstr("restart the server"));
    }
  }

  TempDir dir_;
  wal::FaultInjectionLogFileSystem fs_;
  std::unique_ptr<SqlFrontend> engine_;
};

TEST_F(LogFailureTest, AFailedCommitIsNeverVisible) { Run(); }

// Pipelined statements return before their commit is durable and share the
// flush; WaitDurable, which the server calls before any result leaves,
// reports the failed flush (the server then sends none of them).
TEST_F(LogFailureTest, PipelinedCommitsAreReportedOnlyThroughWaitDurable) {
  SqlSession writer(*engine_);
  writer.Execute("CREATE TABLE t (id int PRIMARY KEY)");
  writer.SetPipelined(true);
  for (int i = 0; i < 20; i++) writer.Execute("INSERT INTO t VALUES (" + std::to_string(i) + ")");
  writer.WaitDurable();  // all durable: nothing thrown
  writer.WaitDurable();  // nothing pending
  fs_.FailSyncAt(1);
  writer.Execute("INSERT INTO t VALUES (100)");  // applied; its fsync fails
  try {
    writer.WaitDurable();
    ADD_FAILURE() << "a commit whose fsync failed was reported durable";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kIoError) << e.what();
  }
  SqlSession reader(*engine_);
  ExpectRefused(reader, "SELECT count(*) FROM t");
}

class LogFailureSnapshotTest : public LogFailureTest {
 protected:
  SqlFrontendOptions Options() override { return SnapshotRouting(); }
  void SetUp() override {
    FORKTAIL_SKIP_FORK_STRESS_UNDER_SANITIZER();
    LogFailureTest::SetUp();
  }
};

TEST_F(LogFailureSnapshotTest, AFailedCommitIsNeverVisibleOnSnapshots) { Run(); }

}  // namespace
}  // namespace forktail::testing
