// BEGIN ... COMMIT blocks of SQL sessions (optimistic_block.h), over a real
// engine with several sessions interleaving their statements:
//   - a block sees its own writes, others see nothing of it before COMMIT;
//   - an idle block holds nothing: other writers run while it waits;
//   - a read whose result changed before COMMIT fails the block with 40001
//     (row versions, and phantoms: a predicate read vs a concurrent insert);
//     blind writes that commute (x = x + 1) do not conflict;
//   - errors, DDL, COPY, prepared statements and now() inside blocks;
//   - idle_in_transaction_session_timeout.
#include <chrono>
#include <thread>

#include "olap/session/block/optimistic_block.h"
#include "tests/olap/session/session_test_util.h"

namespace forktail::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class OptimisticBlockTest : public EngineFixture {
 protected:
  void SetUp() override {
    Open(InProcess());
    other_ = std::make_unique<SqlSession>(*engine_);
    Run("CREATE TABLE acct (id int PRIMARY KEY, balance int, g int)");
    Run("INSERT INTO acct VALUES (1, 100, 1), (2, 100, 1), (3, 100, 2)");
  }
  void TearDown() override {
    other_.reset();
    EngineFixture::TearDown();
  }
  std::vector<std::string> OtherQuery(const std::string& sql) {
    return Lines(other_->Execute(sql).back());
  }
  // Runs `sql` in the fixture's session and expects 40001.
  void ExpectSerializationFailure(const std::string& sql) {
    try {
      session_->Execute(sql);
      ADD_FAILURE() << sql << ": expected 40001";
    } catch (const DbError& e) {
      EXPECT_STREQ(e.sqlstate(), sqlstate::kSerializationFailure) << e.what();
      EXPECT_THAT(e.what(), HasSubstr("could not serialize access"));
    }
  }

  std::unique_ptr<SqlSession> other_;
};

TEST_F(OptimisticBlockTest, BlockSeesItsOwnWritesAndOthersSeeThemOnlyAfterCommit) {
  Run("BEGIN");
  Run("INSERT INTO acct VALUES (4, 5, 2)");
  Run("UPDATE acct SET balance = balance - 50 WHERE id = 1");
  EXPECT_THAT(Query("SELECT id, balance FROM acct WHERE id IN (1, 4) ORDER BY id"),
              ElementsAre("1|50", "4|5"));
  EXPECT_EQ(session_->status(), TxnStatus::kInBlock);
  EXPECT_THAT(OtherQuery("SELECT count(*), sum(balance) FROM acct"), ElementsAre("3|300"));
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  EXPECT_THAT(OtherQuery("SELECT count(*), sum(balance) FROM acct"), ElementsAre("4|255"));
  EXPECT_NE(session_->last_commit_lsn(), 0u);
}

// A block's INSERT runs at its step, again at later steps that reach it,
// and at COMMIT, from the one bound statement it keeps (a run must not
// consume it): rows given, rows of a query, RETURNING.
TEST_F(OptimisticBlockTest, ABlocksInsertsRunAgainFromTheStatementsTheyKeep) {
  Run("CREATE TABLE copy (id int PRIMARY KEY, balance int)");
  Run("BEGIN");
  Run("INSERT INTO acct VALUES (4, 7, 2)");
  Run("INSERT INTO copy SELECT id, balance FROM acct WHERE g = 2");
  EXPECT_THAT(Query("INSERT INTO copy VALUES (10, 1) RETURNING id, balance"), ElementsAre("10|1"));
  EXPECT_THAT(Query("SELECT count(*), sum(balance) FROM copy"), ElementsAre("3|108"));
  Run("UPDATE copy SET balance = balance + 1");
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  EXPECT_THAT(OtherQuery("SELECT id, balance FROM copy ORDER BY id"),
              ElementsAre("3|101", "4|8", "10|2"));
}

// A statement that returns random values draws the same ones at every run
// of the block (random_source.h), so what the client saw is what commits:
// INSERT ... RETURNING a gen_random_uuid() key (psycopg's executemany with
// returning=True) used to fail every COMMIT with 40001.
TEST_F(OptimisticBlockTest, RandomValuesABlockReturnedAreTheOnesItCommits) {
  Run("CREATE TABLE doc (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), r float8, v text)");
  Run("BEGIN");
  std::vector<std::string> ids;
  for (const char* v : {"a", "b", "c"}) {
    std::vector<std::string> id =
        Query(std::string("INSERT INTO doc (r, v) VALUES (random(), '") + v + "') RETURNING id, r");
    ASSERT_EQ(id.size(), 1u);
    ids.push_back(id[0]);
  }
  std::vector<std::string> drawn = Query("SELECT random() < 1, gen_random_uuid() IS NOT NULL");
  EXPECT_THAT(drawn, ElementsAre("t|t"));
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  EXPECT_EQ(OtherQuery("SELECT id, r FROM doc ORDER BY v"), ids);
  // Each statement has its own draws: three distinct keys.
  EXPECT_THAT(OtherQuery("SELECT count(DISTINCT id), count(DISTINCT r) FROM doc"),
              ElementsAre("3|3"));
}

TEST_F(OptimisticBlockTest, RollbackAndEmptyBlocksChangeNothing) {
  Run("BEGIN");
  Run("DELETE FROM acct");
  EXPECT_THAT(Query("SELECT count(*) FROM acct"), ElementsAre("0"));
  EXPECT_EQ(Run("ROLLBACK").command_tag, "ROLLBACK");
  EXPECT_THAT(Query("SELECT count(*) FROM acct"), ElementsAre("3"));
  Run("BEGIN");
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  EXPECT_EQ(session_->status(), TxnStatus::kIdle);
}

TEST_F(OptimisticBlockTest, AnIdleBlockDoesNotHoldTheTransactionThread) {
  Run("BEGIN");
  Run("UPDATE acct SET balance = balance + 1 WHERE id = 1");
  // The block is idle: other sessions write and read at once, again and
  // again, for longer than the old 200 ms hold time.
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 20; i++) {
    other_->Execute("UPDATE acct SET balance = balance + 1 WHERE id = 3");
    std::this_thread::sleep_for(std::chrono::milliseconds(15));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  EXPECT_THAT(Query("SELECT balance FROM acct ORDER BY id"), ElementsAre("101", "100", "120"));
}

TEST_F(OptimisticBlockTest, AReadThatChangedBeforeCommitFailsTheBlock) {
  Run("BEGIN");
  EXPECT_THAT(Query("SELECT balance FROM acct WHERE id = 1"), ElementsAre("100"));
  other_->Execute("UPDATE acct SET balance = 0 WHERE id = 1");
  // The client decided on 100; the value is now 0.
  Run("UPDATE acct SET balance = 100 - 30 WHERE id = 1");
  ExpectSerializationFailure("COMMIT");
  EXPECT_EQ(session_->status(), TxnStatus::kIdle);
  EXPECT_THAT(Query("SELECT balance FROM acct WHERE id = 1"), ElementsAre("0"));
}

// FOR UPDATE / FOR SHARE lock rows against other lockers only (RowLocksTest
// in row_locks_test.cc); a writer that takes no lock changes the row at
// once, and the rows the block read are validated at COMMIT, so the change
// fails the block with 40001 instead of a lost update, as under
// PostgreSQL's SERIALIZABLE.
TEST_F(OptimisticBlockTest, RowsReadForUpdateAreValidatedAtCommit) {
  Run("BEGIN");
  EXPECT_THAT(Query("SELECT balance FROM acct WHERE id = 1 FOR UPDATE"), ElementsAre("100"));
  EXPECT_THAT(Query("SELECT balance FROM acct WHERE id = 2 FOR SHARE"), ElementsAre("100"));
  other_->Execute("UPDATE acct SET balance = balance + 1 WHERE id = 1");
  Run("UPDATE acct SET balance = 99 WHERE id = 1");
  ExpectSerializationFailure("COMMIT");
  EXPECT_THAT(Query("SELECT balance FROM acct WHERE id = 1"), ElementsAre("101"));
  // Without a concurrent change it commits.
  Run("BEGIN");
  EXPECT_THAT(Query("SELECT balance FROM acct WHERE id = 1 FOR UPDATE NOWAIT"), ElementsAre("101"));
  Run("UPDATE acct SET balance = 102 WHERE id = 1");
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
}

TEST_F(OptimisticBlockTest, TwoConflictingBlocksOneCommitsTheOtherGets40001) {
  // Both read both balances and move money if the sum allows (write skew).
  Run("BEGIN");
  other_->Execute("BEGIN");
  EXPECT_THAT(Query("SELECT sum(balance) FROM acct WHERE g = 1"), ElementsAre("200"));
  EXPECT_THAT(OtherQuery("SELECT sum(balance) FROM acct WHERE g = 1"), ElementsAre("200"));
  Run("UPDATE acct SET balance = balance - 150 WHERE id = 1");
  other_->Execute("UPDATE acct SET balance = balance - 150 WHERE id = 2");
  other_->Execute("COMMIT");
  ExpectSerializationFailure("COMMIT");
  EXPECT_THAT(Query("SELECT sum(balance) FROM acct WHERE g = 1"), ElementsAre("50"));
}

TEST_F(OptimisticBlockTest, APhantomInsertFailsAPredicateRead) {
  Run("BEGIN");
  EXPECT_THAT(Query("SELECT count(*) FROM acct WHERE g = 2"), ElementsAre("1"));
  other_->Execute("INSERT INTO acct VALUES (9, 1, 2)");
  Run("INSERT INTO acct VALUES (10, 1, 2)");
  ExpectSerializationFailure("COMMIT");
  EXPECT_THAT(Query("SELECT id FROM acct WHERE g = 2 ORDER BY id"), ElementsAre("3", "9"));
}

TEST_F(OptimisticBlockTest, CommutingBlindIncrementsDoNotConflict) {
  Run("BEGIN");
  other_->Execute("BEGIN");
  Run("UPDATE acct SET balance = balance + 1 WHERE id = 1");
  other_->Execute("UPDATE acct SET balance = balance + 10 WHERE id = 1");
  other_->Execute("COMMIT");
  Run("UPDATE acct SET balance = balance + 1 WHERE id = 2");
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  EXPECT_THAT(Query("SELECT balance FROM acct WHERE id <= 2 ORDER BY id"),
              ElementsAre("111", "101"));
}

TEST_F(OptimisticBlockTest, AConflictSeenAtALaterStepFailsThatStep) {
  Run("BEGIN");
  Run("INSERT INTO acct VALUES (7, 0, 3)");
  other_->Execute("INSERT INTO acct VALUES (7, 1, 3)");  // commits first
  // The block's INSERT no longer succeeds when re-applied.
  ExpectSerializationFailure("SELECT count(*) FROM acct");
  EXPECT_EQ(session_->status(), TxnStatus::kFailed);
  ExpectDbError([&] { Run("SELECT 1"); }, "25P02",
                "current transaction is aborted, commands ignored until end of transaction block");
  EXPECT_EQ(Run("COMMIT").command_tag, "ROLLBACK");
  EXPECT_THAT(Query("SELECT balance FROM acct WHERE id = 7"), ElementsAre("1"));
}

// TPC-C's New-Order in two blocks at once: both read the district's next
// order number, both bump it (a blind write, no conflict by itself), and
// the second's INSERT of that order number hits the row the first
// committed. A serial run never gives 23505 there: the step reports the
// conflict it raced with, 40001, which drivers retry.
TEST_F(OptimisticBlockTest, AnErrorCausedByAConcurrentCommitIs40001) {
  Run("CREATE TABLE district (id int PRIMARY KEY, next_o_id int)");
  Run("CREATE TABLE orders (id int PRIMARY KEY, d int)");
  Run("INSERT INTO district VALUES (1, 3001)");
  Run("BEGIN");
  other_->Execute("BEGIN");
  // Without FOR UPDATE: with it, the second would wait for the first
  // (RowLocksTest below).
  EXPECT_THAT(Query("SELECT next_o_id FROM district WHERE id = 1"), ElementsAre("3001"));
  EXPECT_THAT(OtherQuery("SELECT next_o_id FROM district WHERE id = 1"), ElementsAre("3001"));
  other_->Execute("UPDATE district SET next_o_id = next_o_id + 1 WHERE id = 1");
  other_->Execute("INSERT INTO orders VALUES (3001, 1)");
  other_->Execute("COMMIT");
  Run("UPDATE district SET next_o_id = next_o_id + 1 WHERE id = 1");
  ExpectSerializationFailure("INSERT INTO orders VALUES (3001, 1)");
  EXPECT_EQ(session_->status(), TxnStatus::kFailed);
  Run("ROLLBACK");
  EXPECT_THAT(Query("SELECT next_o_id FROM district"), ElementsAre("3002"));
  EXPECT_THAT(Query("SELECT count(*) FROM orders"), ElementsAre("1"));
}

TEST_F(OptimisticBlockTest, AnErrorFailsTheBlockAndNothingIsApplied) {
  Run("BEGIN");
  Run("UPDATE acct SET balance = 0 WHERE id = 1");
  ExpectDbError([&] { Run("INSERT INTO acct VALUES (1, 0, 0)"); }, "23505",
                "duplicate key value violates unique constraint \"acct_pkey\"\nDETAIL:  Key "
                "(id)=(1) already exists.");
  EXPECT_EQ(session_->status(), TxnStatus::kFailed);
  EXPECT_EQ(Run("ROLLBACK").command_tag, "ROLLBACK");
  EXPECT_THAT(Query("SELECT balance FROM acct WHERE id = 1"), ElementsAre("100"));
}

// Savepoints (optimistic_block.h, "Savepoints"): what a ROLLBACK TO takes
// back is gone from the block's writes, but what the client saw of it, rows
// or an error, is still checked at COMMIT.
TEST_F(OptimisticBlockTest, RollbackToSavepointUndoesWritesAndTheBlockGoesOn) {
  Run("BEGIN");
  Run("UPDATE acct SET balance = 90 WHERE id = 1");
  Run("SAVEPOINT a");
  Run("DELETE FROM acct WHERE id = 2");
  Run("CREATE TABLE scratch (x int)");
  ExpectDbError([&] { Run("INSERT INTO acct VALUES (1, 0, 0)"); }, "23505",
                "duplicate key value violates unique constraint \"acct_pkey\"\nDETAIL:  Key "
                "(id)=(1) already exists.");
  EXPECT_EQ(session_->status(), TxnStatus::kFailed);
  EXPECT_EQ(Run("ROLLBACK TO SAVEPOINT a").command_tag, "ROLLBACK");
  EXPECT_EQ(session_->status(), TxnStatus::kInBlock);
  EXPECT_THAT(Query("SELECT id, balance FROM acct ORDER BY id"),
              ElementsAre("1|90", "2|100", "3|100"));
  Run("INSERT INTO acct VALUES (4, 4, 2)");
  EXPECT_EQ(Run("RELEASE a").command_tag, "RELEASE");
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  EXPECT_THAT(OtherQuery("SELECT id, balance FROM acct ORDER BY id"),
              ElementsAre("1|90", "2|100", "3|100", "4|4"));
  ExpectDbError([&] { OtherQuery("SELECT * FROM scratch"); }, "42P01",
                "relation \"scratch\" does not exist");
}

TEST_F(OptimisticBlockTest, AReadTakenBackByRollbackToIsStillValidated) {
  Run("BEGIN");
  Run("SAVEPOINT a");
  EXPECT_THAT(Query("SELECT balance FROM acct WHERE id = 1"), ElementsAre("100"));
  Run("ROLLBACK TO a");
  other_->Execute("UPDATE acct SET balance = 0 WHERE id = 1");
  // The client decided on 100, even though it rolled the read back.
  Run("UPDATE acct SET balance = balance - 50 WHERE id = 2");
  ExpectSerializationFailure("COMMIT");
  EXPECT_THAT(Query("SELECT balance FROM acct WHERE id = 2"), ElementsAre("100"));
}

TEST_F(OptimisticBlockTest, AFailureThatNoLongerHappensFailsTheCommit) {
  // get_or_create: INSERT, and on 23505 read the row that is there instead.
  Run("BEGIN");
  Run("SAVEPOINT a");
  EXPECT_THROW(Run("INSERT INTO acct VALUES (3, 0, 0)"), DbError);
  Run("ROLLBACK TO a");
  EXPECT_THAT(Query("SELECT balance FROM acct WHERE id = 2"), ElementsAre("100"));
  other_->Execute("DELETE FROM acct WHERE id = 3");
  // The client learned that row 3 exists; a serial run at COMMIT would insert it.
  ExpectSerializationFailure("COMMIT");
  // Unchanged, the same block commits.
  Run("BEGIN");
  Run("SAVEPOINT a");
  EXPECT_THROW(Run("INSERT INTO acct VALUES (2, 0, 0)"), DbError);
  Run("ROLLBACK TO a");
  Run("UPDATE acct SET balance = 1 WHERE id = 2");
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  EXPECT_THAT(OtherQuery("SELECT id, balance FROM acct ORDER BY id"), ElementsAre("1|100", "2|1"));
}

TEST_F(OptimisticBlockTest, SavepointErrors) {
  ExpectDbError([&] { Run("SAVEPOINT a"); }, "25P01",
                "SAVEPOINT can only be used in transaction blocks");
  // An implicit block (one query string) is no transaction block either.
  ExpectDbError([&] { session_->Execute("SELECT 1; SAVEPOINT a; SELECT 2"); }, "25P01",
                "SAVEPOINT can only be used in transaction blocks");
  Run("BEGIN");
  ExpectDbError([&] { Run("ROLLBACK TO b"); }, "3B001", "savepoint \"b\" does not exist");
  EXPECT_EQ(session_->status(), TxnStatus::kFailed);
  Run("ROLLBACK");
  EXPECT_EQ(session_->status(), TxnStatus::kIdle);
}

TEST_F(OptimisticBlockTest, DdlCopyAndPreparedStatementsInsideABlock) {
  Run("BEGIN");
  Run("CREATE TABLE t (a int PRIMARY KEY, b text)");
  Run("INSERT INTO t VALUES (1, 'one')");
  EXPECT_EQ(Run("COPY t FROM STDIN").command_tag, "COPY_IN");
  session_->CopyIn("2\ttwo\n3\tthree\n");
  EXPECT_EQ(session_->CopyDone().command_tag, "COPY 2");
  // Described in the block, which created the table.
  auto select = session_->Prepare("SELECT b FROM t WHERE a = $1", {});
  ASSERT_EQ(select->columns.size(), 1u);
  EXPECT_THAT(Lines(session_->ExecutePrepared(*select, {Value::Integer(3)})), ElementsAre("three"));
  EXPECT_THAT(OtherQuery("SELECT count(*) FROM pg_catalog.pg_class WHERE relname = 't'"),
              ElementsAre("0"));
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  EXPECT_THAT(OtherQuery("SELECT a, b FROM t ORDER BY a"),
              ElementsAre("1|one", "2|two", "3|three"));
}

TEST_F(OptimisticBlockTest, ExplainAnalyzeInABlockIsNotValidated) {
  Run("BEGIN");
  Run("INSERT INTO acct VALUES (4, 1, 1)");
  // Its timings differ at every run; it shows the block's own row.
  const std::vector<std::string> plan = Query("EXPLAIN ANALYZE SELECT * FROM acct WHERE g = 1");
  ASSERT_FALSE(plan.empty());
  EXPECT_THAT(Query("EXPLAIN SELECT * FROM acct"), ::testing::Not(::testing::IsEmpty()));
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  EXPECT_THAT(Query("SELECT count(*) FROM acct"), ElementsAre("4"));
}

TEST_F(OptimisticBlockTest, NowIsTheBlocksStartTime) {
  Run("BEGIN");
  const std::vector<std::string> first = Query("SELECT now()");
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(Query("SELECT now()"), first);
  // Returned to the client and run again at COMMIT: still equal.
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  EXPECT_NE(Query("SELECT now()"), first);
}

TEST_F(OptimisticBlockTest, IdleInTransactionSessionTimeout) {
  Run("SET idle_in_transaction_session_timeout = '50ms'");
  EXPECT_THAT(Query("SHOW idle_in_transaction_session_timeout"), ElementsAre("50ms"));
  Run("BEGIN");
  Run("UPDATE acct SET balance = 0 WHERE id = 1");
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  try {
    Run("UPDATE acct SET balance = 0 WHERE id = 2");
    ADD_FAILURE() << "expected 25P03";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), "25P03");
  }
  EXPECT_EQ(session_->status(), TxnStatus::kIdle);
  EXPECT_THAT(Query("SELECT sum(balance) FROM acct"), ElementsAre("300"));
  // 0 (the default): a block may stay idle as long as it likes.
  Run("SET idle_in_transaction_session_timeout = 0");
  Run("BEGIN");
  Run("UPDATE acct SET balance = 0 WHERE id = 1");
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  ExpectDbError([&] { Run("SET idle_in_transaction_session_timeout = '5 weeks'"); }, "22023",
                "invalid value for parameter \"idle_in_transaction_session_timeout\": \"5 weeks\"");
}

TEST_F(OptimisticBlockTest, StatsCountCommitsAndFailures) {
  const OptimisticBlockStats before = OptimisticBlock::GlobalStats();
  Run("BEGIN");
  Query("SELECT balance FROM acct WHERE id = 1");
  Run("UPDATE acct SET balance = 1 WHERE id = 2");
  Run("COMMIT");
  const OptimisticBlockStats after = OptimisticBlock::GlobalStats();
  EXPECT_EQ(after.commits - before.commits, 1u);
  EXPECT_EQ(after.steps - before.steps, 2u);
  EXPECT_EQ(after.reruns - before.reruns, 2u);  // both statements at COMMIT
  EXPECT_THAT(Query("SHOW forktail.txn_block_stats")[0], HasSubstr("optimistic_commits="));
}

// A step runs again only the earlier writes it can see (the forecast in
// optimistic_block.h): updates of other rows by key are not run again, an
// insert runs again the updates of the table its foreign key reads, a scan
// of a table all the writes to it, a read by key the write of its row.
// What every step shows is still what the block did.
TEST_F(OptimisticBlockTest, AStepRunsAgainOnlyTheWritesItCanSee) {
  Run("CREATE TABLE stock (item int PRIMARY KEY, qty int)");
  Run("CREATE TABLE orders (id int PRIMARY KEY, item int REFERENCES stock (item))");
  Run("INSERT INTO stock VALUES (1, 10), (2, 10), (3, 10)");
  const OptimisticBlockStats before = OptimisticBlock::GlobalStats();
  Run("BEGIN");
  Run("UPDATE acct SET balance = balance - 5 WHERE id = 1");            // step 1
  Run("UPDATE stock SET qty = qty - 1 WHERE item = 1");                 // 2: re-runs none
  Run("UPDATE stock SET qty = qty - 1 WHERE item = 2");                 // 3: none (another row)
  Run("INSERT INTO orders VALUES (7, 2)");                              // 4: 2, 3 (its key's table)
  EXPECT_THAT(Query("SELECT sum(qty) FROM stock"), ElementsAre("28"));  // 5: 2, 3
  EXPECT_THAT(Query("SELECT balance FROM acct WHERE id = 1"), ElementsAre("95"));  // 6: 1
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");                                  // all 6
  const OptimisticBlockStats after = OptimisticBlock::GlobalStats();
  EXPECT_EQ(after.reruns - before.reruns, 0u + 0 + 0 + 2 + 2 + 1 + 6);
  EXPECT_THAT(Query("SELECT item, qty FROM stock ORDER BY item"),
              ElementsAre("1|9", "2|9", "3|10"));
  EXPECT_THAT(OtherQuery("SELECT * FROM orders"), ElementsAre("7|2"));
}

// A read that fixes a prefix of the primary key (TPC-C Delivery's SUM over
// one order's lines) runs again only the earlier writes of rows with that
// prefix: not those of other orders, nor of a key that merely starts with
// the same digits (12 is not 1). A read whose filter sits above a LIMIT, and
// a read of the whole table, still run every earlier write of the table.
TEST_F(OptimisticBlockTest, AReadOfAKeyPrefixRunsAgainOnlyTheWritesOfItsRows) {
  Run("CREATE TABLE lines (o int, n int, amount int, PRIMARY KEY (o, n))");
  Run("INSERT INTO lines SELECT o, n, 10 FROM generate_series(1, 3) AS a(o), "
      "generate_series(1, 3) AS b(n)");
  const OptimisticBlockStats before = OptimisticBlock::GlobalStats();
  Run("BEGIN");
  Run("UPDATE lines SET amount = 11 WHERE o = 1 AND n = 1");  // 1: re-runs none
  Run("UPDATE lines SET amount = 12 WHERE o = 1 AND n = 2");  // 2: none
  Run("INSERT INTO lines VALUES (12, 1, 7)");                 // 3: none
  EXPECT_THAT(Query("SELECT sum(amount) FROM lines WHERE o = 1"), ElementsAre("33"));  // 4: 1, 2
  Run("UPDATE lines SET amount = 20 WHERE o = 2 AND n = 1");                           // 5: none
  EXPECT_THAT(Query("SELECT n FROM lines WHERE o = 2 ORDER BY amount DESC LIMIT 1"),
              ElementsAre("1"));                                                       // 6: 5
  EXPECT_THAT(Query("SELECT sum(amount) FROM lines WHERE o = 12"), ElementsAre("7"));  // 7: 3
  EXPECT_THAT(Query("SELECT sum(amount) FROM lines WHERE 3 = o"), ElementsAre("30"));  // 8: none
  EXPECT_THAT(Query("SELECT count(*) FROM (SELECT * FROM lines ORDER BY o, n LIMIT 4) AS s "
                    "WHERE o = 1"),
              ElementsAre("3"));                                            // 9: 1, 2, 3, 5
  EXPECT_THAT(Query("SELECT sum(amount) FROM lines"), ElementsAre("110"));  // 10: 1, 2, 3, 5
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");                           // all 10
  const OptimisticBlockStats after = OptimisticBlock::GlobalStats();
  EXPECT_EQ(after.reruns - before.reruns, 0u + 0 + 0 + 2 + 0 + 1 + 1 + 0 + 4 + 4 + 10);
  EXPECT_THAT(OtherQuery("SELECT o, sum(amount) FROM lines GROUP BY o ORDER BY o"),
              ElementsAre("1|33", "2|40", "3|30", "12|7"));
}

// A step's forecast of a prefix read still sees another block's commit:
// COMMIT runs every statement again and fails when a result changed.
TEST_F(OptimisticBlockTest, AKeyPrefixReadThatChangedFailsAtCommit) {
  Run("CREATE TABLE lines (o int, n int, amount int, PRIMARY KEY (o, n))");
  Run("INSERT INTO lines VALUES (1, 1, 10), (1, 2, 10), (2, 1, 10)");
  Run("BEGIN");
  Run("UPDATE lines SET amount = 11 WHERE o = 2 AND n = 1");
  EXPECT_THAT(Query("SELECT sum(amount) FROM lines WHERE o = 1"), ElementsAre("20"));
  OtherQuery("INSERT INTO lines VALUES (1, 3, 5)");
  ExpectSerializationFailure("COMMIT");
}

// A long block of inserts by key (psycopg's executemany inside a
// transaction): each step runs none of the earlier inserts again, a read of
// the whole table runs them all, a read of one row only that row's, and a
// second insert of a key the block inserted still fails as the run at
// COMMIT would.
TEST_F(OptimisticBlockTest, ALongBlockOfInsertsRunsAgainOnlyWhatAStepReaches) {
  Run("CREATE TABLE em (id int PRIMARY KEY, v text)");
  constexpr int kRows = 3000;
  const OptimisticBlockStats before = OptimisticBlock::GlobalStats();
  Run("BEGIN");
  for (int i = 0; i < kRows; i++) {
    Run("INSERT INTO em VALUES (" + std::to_string(i) + ", 'v')");
  }
  const OptimisticBlockStats inserted = OptimisticBlock::GlobalStats();
  EXPECT_EQ(inserted.reruns - before.reruns, 0u);
  EXPECT_THAT(Query("SELECT v FROM em WHERE id = 1234"), ElementsAre("v"));
  const OptimisticBlockStats point = OptimisticBlock::GlobalStats();
  EXPECT_EQ(point.reruns - inserted.reruns, 1u);
  EXPECT_THAT(Query("SELECT count(*) FROM em"), ElementsAre(std::to_string(kRows)));
  const OptimisticBlockStats counted = OptimisticBlock::GlobalStats();
  EXPECT_EQ(counted.reruns - point.reruns, static_cast<uint64_t>(kRows));
  Run("SAVEPOINT s");
  ExpectDbError([&] { Run("INSERT INTO em VALUES (2999, 'again')"); }, "23505",
                "duplicate key value violates unique constraint \"em_pkey\"\nDETAIL:  Key "
                "(id)=(2999) already exists.");
  Run("ROLLBACK TO SAVEPOINT s");
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  EXPECT_THAT(OtherQuery("SELECT count(*), sum(id) FROM em"),
              ElementsAre(std::to_string(kRows) + "|" + std::to_string(kRows * (kRows - 1) / 2)));
}

// Foreign keys reach other tables: a step's forecast includes them, and an
// error a step reports is always what the run with every write gives.
TEST_F(OptimisticBlockTest, AnErrorOfAStepIsTheFullRunsError) {
  Run("CREATE TABLE parent (id int PRIMARY KEY)");
  Run("CREATE TABLE child (id int PRIMARY KEY, p int REFERENCES parent (id))");
  Run("BEGIN");
  Run("INSERT INTO parent VALUES (1)");
  Run("INSERT INTO child VALUES (1, 1)");  // needs the parent row of step 1
  ExpectDbError([&] { Run("INSERT INTO child VALUES (2, 2)"); }, "23503",
                "insert or update on table \"child\" violates foreign key constraint "
                "\"child_p_fkey\"\nDETAIL:  Key (p)=(2) is not present in table \"parent\".");
  Run("ROLLBACK");
  Run("BEGIN");
  Run("INSERT INTO parent VALUES (1)");
  Run("INSERT INTO child VALUES (1, 1)");
  Run("DELETE FROM child WHERE id = 1");
  Run("DELETE FROM parent WHERE id = 1");  // sees the child's delete: no 23503
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
}

// What COMMIT compares: the digest of each result the client saw. It must
// tell apart every result a client could tell apart.
// A read without ORDER BY of a table of several blocks: the scan's workers
// may hand its rows over in another order at COMMIT than at the step; the
// block still commits (its rows are compared as a multiset), whether the
// read is a SELECT, a cursor or a COPY TO.
TEST_F(OptimisticBlockTest, UnorderedReadsOfABigTableCommit) {
  Run("CREATE TABLE big (id int PRIMARY KEY, pad text)");
  Run("INSERT INTO big SELECT i, repeat('x', 40) FROM generate_series(1, 120000) AS g(i)");
  for (int i = 0; i < 8; i++) {
    SCOPED_TRACE(i);
    Run("BEGIN");
    EXPECT_EQ(Run("SELECT id, pad FROM big").rows.size(), 120000u);
    Run("DECLARE c CURSOR FOR SELECT id FROM big");
    EXPECT_EQ(Run("COPY big (id) TO STDOUT").command_tag, "COPY 120000");
    EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  }
  // And a change is still seen.
  Run("BEGIN");
  Run("SELECT id, pad FROM big");
  OtherQuery("UPDATE big SET pad = 'y' WHERE id = 60000");
  ExpectSerializationFailure("COMMIT");
}

TEST(ResultDigestTest, DistinguishesWhatTheClientCouldSee) {
  auto result = [](std::vector<Row> rows, std::string column = "v") {
    StatementResult r;
    r.command_tag = "SELECT " + std::to_string(rows.size());
    r.columns = {{std::move(column), Type::Decimal(18, 2)}};
    r.rows = std::move(rows);
    return r;
  };
  auto dec = [](int64_t unscaled) { return Value::Decimal(unscaled, 18, 2); };
  const StatementResult base = result({{dec(123456789012345678)}, {dec(1)}});
  EXPECT_EQ(ResultDigest(base), ResultDigest(result({{dec(123456789012345678)}, {dec(1)}})));
  // 18 significant digits, one cent apart: the same as doubles.
  EXPECT_NE(ResultDigest(base), ResultDigest(result({{dec(123456789012345679)}, {dec(1)}})));
  EXPECT_NE(ResultDigest(base), ResultDigest(result({{dec(1)}, {dec(123456789012345678)}})));
  EXPECT_NE(ResultDigest(base), ResultDigest(result({{dec(123456789012345678)}})));
  EXPECT_NE(ResultDigest(base),
            ResultDigest(result({{dec(123456789012345678)}, {Value::Null(Type::Decimal(18, 2))}})));
  EXPECT_NE(ResultDigest(base), ResultDigest(result({{dec(123456789012345678)}, {dec(1)}}, "w")));
  // Without ORDER BY the rows are a multiset: a parallel scan may return
  // them in another order at COMMIT.
  EXPECT_NE(ResultDigest(base, true),
            ResultDigest(result({{dec(1)}, {dec(123456789012345678)}}), true));
  EXPECT_EQ(ResultDigest(base, false),
            ResultDigest(result({{dec(1)}, {dec(123456789012345678)}}), false));
  EXPECT_NE(ResultDigest(base, false),
            ResultDigest(result({{dec(1)}, {dec(123456789012345679)}}), false));
  EXPECT_NE(ResultDigest(result({{dec(1)}, {dec(1)}, {dec(2)}}), false),
            ResultDigest(result({{dec(1)}, {dec(2)}, {dec(2)}}), false));
  StatementResult update;
  update.command_tag = "UPDATE 1";
  StatementResult none;
  none.command_tag = "UPDATE 0";
  EXPECT_NE(ResultDigest(update), ResultDigest(none));
}

}  // namespace
}  // namespace forktail::testing
