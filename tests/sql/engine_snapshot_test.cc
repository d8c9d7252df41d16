// SELECTs routed to real fork()ed snapshot processes (ReadRouting::kSnapshot).
// They fork a multi-threaded parent many times, so they skip under
// sanitizers and run in the Release build (`make release-test`):
//   - read-your-writes: a SELECT after a commit always sees it;
//   - a SELECT during concurrent transfers sees a consistent state (the sum
//     of balances never changes), with snapshots refreshed by age and by the
//     session's max snapshot age;
//   - a killed snapshot process fails the running query with a clear error
//     and the next query works; Cancel() stops a query in the child;
//   - parameters and error positions survive the trip to the child.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "tests/snapshot/sanitizer_fork.h"
#include "tests/sql/engine_test_util.h"

namespace forktail::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

SqlEngineOptions Snapshots() {
  SqlEngineOptions options;
  options.routing = ReadRouting::kSnapshot;
  return options;
}

class EngineSnapshotTest : public EngineFixture {
 protected:
  void SetUp() override { FORKTAIL_SKIP_FORK_STRESS_UNDER_SANITIZER(); }

  // A table big enough that a triple self-join never finishes in a test.
  void MakeBigTable() {
    Run("CREATE TABLE big (a int)");
    Run("COPY big FROM STDIN");
    std::string data;
    for (int i = 0; i < 3000; i++) data += std::to_string(i) + "\n";
    session_->CopyIn(data);
    session_->CopyDone();
  }
  // Waits until some snapshot process runs a request; returns its pid.
  pid_t WaitForRunningSnapshot() {
    for (int i = 0; i < 2000; i++) {
      for (const SnapshotInfo& info : engine_->snapshots()->List()) {
        if (info.running > 0) return info.pid;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ADD_FAILURE() << "no snapshot ever ran the query";
    return 0;
  }
};

TEST_F(EngineSnapshotTest, ReadYourWritesAfterEveryCommit) {
  Open(Snapshots());
  Run("CREATE TABLE t (a int PRIMARY KEY)");
  for (int i = 1; i <= 15; i++) {
    Run("INSERT INTO t VALUES (" + std::to_string(i) + ")");
    ASSERT_THAT(Query("SELECT count(*), max(a) FROM t"),
                ElementsAre(std::to_string(i) + "|" + std::to_string(i)));
  }
  SqlSession other(*engine_);
  other.Execute("BEGIN; DELETE FROM t WHERE a > 10; COMMIT");
  EXPECT_THAT(Lines(other.Execute("SELECT count(*) FROM t").back()), ElementsAre("10"));
}

TEST_F(EngineSnapshotTest, SelectsDuringConcurrentTransfersSeeConsistentStates) {
  SqlEngineOptions options = Snapshots();
  options.snapshot.refresh_interval_ms = 20;
  Open(options);
  Run("CREATE TABLE acct (id int PRIMARY KEY, balance bigint)");
  std::string values;
  for (int i = 0; i < 100; i++) values += (i ? ", (" : "(") + std::to_string(i) + ", 1000)";
  Run("INSERT INTO acct VALUES " + values);

  std::atomic<bool> stop{false};
  std::thread writer([&] {
    SqlSession w(*engine_);
    for (int k = 0; !stop.load(); k++) {
      int from = k % 100, to = (k * 7 + 3) % 100;
      w.Execute("UPDATE acct SET balance = balance - 5 WHERE id = " + std::to_string(from) +
                "; UPDATE acct SET balance = balance + 5 WHERE id = " + std::to_string(to));
    }
  });
  SqlSession fresh(*engine_);
  fresh.Execute("SET forktail.max_snapshot_age_ms = 5");
  for (int i = 0; i < 40; i++) {
    SqlSession& s = i % 2 ? fresh : *session_;
    std::vector<StatementResult> r = s.Execute("SELECT sum(balance), count(*) FROM acct");
    ASSERT_THAT(Lines(r.back()), ElementsAre("100000|100")) << "query " << i;
  }
  stop.store(true);
  writer.join();
  EXPECT_GT(engine_->snapshots()->stats().created, 1u);
}

TEST_F(EngineSnapshotTest, KilledSnapshotFailsTheQueryAndTheNextOneWorks) {
  Open(Snapshots());
  MakeBigTable();
  std::string error;
  std::thread query([&] {
    try {
      Run("SELECT count(*) FROM big x, big y, big z");
    } catch (const DbError& e) {
      error = std::string(e.sqlstate()) + " " + e.what();
    }
  });
  pid_t pid = WaitForRunningSnapshot();
  ASSERT_GT(pid, 0);
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  query.join();
  EXPECT_THAT(error, HasSubstr("57P02 snapshot process " + std::to_string(pid)));
  EXPECT_THAT(error, HasSubstr("died: killed by signal 9"));
  EXPECT_THAT(Query("SELECT count(*) FROM big"), ElementsAre("3000"));
}

TEST_F(EngineSnapshotTest, CancelStopsTheQueryInTheChild) {
  Open(Snapshots());
  MakeBigTable();
  std::string error;
  std::thread query([&] {
    try {
      Run("SELECT count(*) FROM big x, big y, big z");
    } catch (const DbError& e) {
      error = std::string(e.sqlstate()) + " " + e.what();
    }
  });
  WaitForRunningSnapshot();
  session_->Cancel();
  query.join();
  EXPECT_EQ(error, "57014 canceling statement due to user request");
  EXPECT_THAT(Query("SELECT count(*) FROM big WHERE a < 10"), ElementsAre("10"));
}

TEST_F(EngineSnapshotTest, ParametersAndErrorPositionsSurviveTheTrip) {
  Open(Snapshots());
  Run("CREATE TABLE t (a int PRIMARY KEY, b text)");
  Run("INSERT INTO t VALUES (1, 'one'), (2, 'two')");
  auto p = session_->Prepare("SELECT b FROM t WHERE a = $1", {});
  EXPECT_THAT(Lines(session_->ExecutePrepared(*p, {Value::Integer(2)})), ElementsAre("two"));
  ExpectDbError([&] { session_->Execute("  SELECT nope FROM t"); }, "42703",
                "column \"nope\" does not exist", 10);
  ExpectDbError([&] { session_->Execute("SELECT 1/0"); }, "22012", "division by zero");
  EXPECT_THAT(Query("SELECT current_schema()"), ElementsAre("public"));
}

}  // namespace
}  // namespace forktail::testing
