// The transaction contract with network clients (issue 15), end to end with
// real clients: psql processes that each open a new connection, a psql block
// that pauses 2 s between statements while another connection writes,
// psycopg 3 (tests/server/e2e/txn_contract.py: conflicting blocks and 40001,
// retry loops), and pgbench -i followed by pgbench.
//
// The suite's name carries "Snapshot": in the Release build (`make
// release-test`) reads outside blocks go to forked snapshot processes, so
// freshness is tested there for real; under sanitizers they run in-process.
#include <chrono>
#include <thread>

#include "tests/server/e2e/pgbench_fixture.h"

namespace forktail::test {
namespace {

class ContractSnapshotE2E : public PgbenchEndToEnd {};

TEST_F(ContractSnapshotE2E, EachPsqlConnectionReadsWhatTheOthersCommitted) {
  if (!Installed("psql --version")) GTEST_SKIP() << "psql not installed";
  ASSERT_EQ(Psql("-c \"create table a (id int primary key, v int)\"").exit_code, 0);
  ASSERT_EQ(Psql("-c \"insert into a values (1, 1)\"").exit_code, 0);
  EXPECT_EQ(PsqlValue("select count(*) from a"), "1");
  for (int i = 2; i <= 10; i++) {
    ASSERT_EQ(Psql("-c \"insert into a values (" + std::to_string(i) + ", 1)\"").exit_code, 0);
    EXPECT_EQ(PsqlValue("select count(*), sum(v) from a"),
              std::to_string(i) + "|" + std::to_string(i));
    EXPECT_EQ(PsqlValue("select v from a where id = " + std::to_string(i)), "1");
  }
}

TEST_F(ContractSnapshotE2E, APsqlBlockPausingTwoSecondsCommitsWhileOthersWrite) {
  if (!Installed("psql --version")) GTEST_SKIP() << "psql not installed";
  ASSERT_EQ(Psql("-c \"create table a (id int primary key, v int)\"").exit_code, 0);
  std::thread others([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    for (int i = 100; i < 105; i++) {
      CommandResult r = Psql("-c \"insert into a values (" + std::to_string(i) + ", 0)\"");
      EXPECT_EQ(r.exit_code, 0) << r.output;
    }
  });
  CommandResult r = Psql(
      "-c \"begin\" -c \"insert into a values (1, 10)\" -c \"\\! sleep 2\" "
      "-c \"update a set v = v + 1 where id = 1\" -c \"select v from a where id = 1\" "
      "-c \"commit\"");
  others.join();
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("COMMIT"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("ERROR"), std::string::npos) << r.output;
  EXPECT_EQ(PsqlValue("select count(*), sum(v) from a"), "6|11");
}

// As PostgreSQL's: a block idle longer than idle_in_transaction_session_timeout
// loses its connection (FATAL 25P03) and is rolled back; idle_session_timeout
// does the same outside blocks (57P05). Unset (0), a block may idle as long
// as it likes (the 2 s test above).
TEST_F(ContractSnapshotE2E, IdleTimeoutsCloseTheConnection) {
  if (!Installed("psql --version")) GTEST_SKIP() << "psql not installed";
  ASSERT_EQ(Psql("-c \"create table a (id int primary key)\"").exit_code, 0);
  CommandResult r = Psql(
      "-c \"set idle_in_transaction_session_timeout = '300ms'\" -c \"begin\" "
      "-c \"insert into a values (1)\" -c \"\\! sleep 1\" -c \"commit\"");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("terminating connection due to idle-in-transaction timeout"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(PsqlValue("select count(*) from a"), "0");
  r = Psql("-c \"set idle_session_timeout = '300ms'\" -c \"\\! sleep 1\" -c \"select 1\"");
  EXPECT_NE(r.output.find("terminating connection due to idle-session timeout"), std::string::npos)
      << r.output;
}

TEST_F(ContractSnapshotE2E, PsycopgConflictsRetriesAndFreshReads) {
  if (!Installed("/usr/bin/python3 -c 'import psycopg, pytest'")) {
    GTEST_SKIP() << "psycopg 3 / pytest not installed";
  }
  CommandResult r = RunCommand("FORKTAIL_PORT=" + std::to_string(server_->port()) +
                               " /usr/bin/python3 -m pytest -q -p no:cacheprovider " +
                               (kE2eDir / "txn_contract.py").string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST_F(ContractSnapshotE2E, PgbenchInitThenPgbenchReadsTheLoadedData) {
  if (!Installed("pgbench --version")) GTEST_SKIP() << "pgbench not installed";
  Init(1);  // its own check reads the count from a new connection
  std::string out = RunPgbench("-M prepared -c 4 -j 2 -t 50");
  EXPECT_NE(out.find("number of transactions actually processed: 200/200"), std::string::npos)
      << out;
  EXPECT_EQ(PsqlValue("select count(*) from pgbench_history"), "200");
  ExpectInvariant();
  // Select-only (point lookups outside blocks) sees the updated balances.
  CommandResult s = RunCommand("pgbench -n -S -c 2 -t 100 " + conninfo_ + " db");
  EXPECT_EQ(s.exit_code, 0) << s.output;
  EXPECT_NE(s.output.find("number of failed transactions: 0"), std::string::npos) << s.output;
}

}  // namespace
}  // namespace forktail::test
