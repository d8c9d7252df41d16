// UPDATE/DELETE whose WHERE fixes the whole primary key read the one row the
// key index names (WriteExecutor::key_lookups counts them) and give the same
// results as the scan path; prepared statements inside a transaction block.
#include <future>

#include "olap/session/statement/write_executor.h"
#include "tests/olap/session/session_test_util.h"

namespace forktail::testing {
namespace {

using ::testing::ElementsAre;

class EnginePointWriteTest : public EngineFixture {
 protected:
  void SetUp() override {
    Open(InProcess());
    Run("CREATE TABLE acc (aid int PRIMARY KEY, bid int, abalance int, filler text)");
    Run("CREATE TABLE acc_nokey (aid int, bid int, abalance int, filler text)");
    Run("CREATE TABLE pair (a bigint, b text, v int, PRIMARY KEY (a, b))");
    for (const char* t : {"acc", "acc_nokey"}) {
      Run(std::string("INSERT INTO ") + t +
          " VALUES (1, 1, 10, 'x'), (2, 1, 20, NULL), (3, 2, 30, 'y'), (4, 2, NULL, 'z')");
    }
    Run("INSERT INTO pair VALUES (1, 'a', 1), (1, 'b', 2), (2, 'a', 3)");
  }
  // Runs the statement on `acc` (index path expected iff `indexed`) and on
  // `acc_nokey` (always the scan), and expects the same tag and table contents.
  void Same(const std::string& statement, bool indexed) {
    auto on = [&](const std::string& table) {
      std::string sql = statement;
      sql.replace(sql.find("$T"), 2, table);
      return sql;
    };
    uint64_t before = WriteExecutor::key_lookups();
    std::string with_key = Run(on("acc")).command_tag;
    EXPECT_EQ(WriteExecutor::key_lookups() - before, indexed ? 1u : 0u) << statement;
    before = WriteExecutor::key_lookups();
    std::string without_key = Run(on("acc_nokey")).command_tag;
    EXPECT_EQ(WriteExecutor::key_lookups(), before) << statement;
    EXPECT_EQ(with_key, without_key) << statement;
    EXPECT_EQ(Query("SELECT * FROM acc ORDER BY aid"),
              Query("SELECT * FROM acc_nokey ORDER BY aid"))
        << statement;
  }
};

TEST_F(EnginePointWriteTest, UpdateByKeyMatchesTheScan) {
  Same("UPDATE $T SET abalance = abalance + 5 WHERE aid = 2", true);
  Same("UPDATE $T SET abalance = abalance + 5 WHERE 3 = aid", true);
  Same("UPDATE $T SET abalance = 0 WHERE aid = 99", true);               // not found
  Same("UPDATE $T SET abalance = 0 WHERE aid = 1 AND bid = 2", true);    // extra false
  Same("UPDATE $T SET abalance = 7 WHERE aid = 1 AND bid = 1", true);    // extra true
  Same("UPDATE $T SET abalance = 7 WHERE bid = 2 AND (aid = 4)", true);  // key second
  Same("UPDATE $T SET abalance = 7 WHERE aid = 1 AND aid = 2", true);    // contradiction
  Same("UPDATE $T SET abalance = 8 WHERE aid = NULL", true);  // NULL key: the lookup finds none
  Same("UPDATE $T SET abalance = 8 WHERE aid = 4000000000", false);    // no int key: scan
  Same("UPDATE $T SET abalance = 8 WHERE aid = 2 OR aid = 3", false);  // not a conjunction
  Same("UPDATE $T SET abalance = 9 WHERE aid > 2", false);
  Same("UPDATE $T SET abalance = 9 WHERE aid = 2.0", true);  // bound as an integer
  Same("UPDATE $T SET aid = 10 WHERE aid = 3", true);        // key change
  EXPECT_THAT(Query("SELECT aid, abalance FROM acc WHERE aid = 10"), ElementsAre("10|9"));
}

TEST_F(EnginePointWriteTest, DeleteByKeyMatchesTheScan) {
  Same("DELETE FROM $T WHERE aid = 99", true);
  Same("DELETE FROM $T WHERE aid = 1 AND filler = 'nope'", true);
  Same("DELETE FROM $T WHERE aid = 1 AND filler = 'x'", true);
  Same("DELETE FROM $T WHERE aid = 1", true);  // already gone
  Same("DELETE FROM $T WHERE aid = 2 AND filler IS NULL", true);
  EXPECT_THAT(Query("SELECT aid FROM acc ORDER BY aid"), ElementsAre("3", "4"));
}

TEST_F(EnginePointWriteTest, CompositeKeyNeedsEveryColumn) {
  uint64_t before = WriteExecutor::key_lookups();
  EXPECT_EQ(Run("UPDATE pair SET v = v + 10 WHERE a = 1").command_tag, "UPDATE 2");
  EXPECT_EQ(WriteExecutor::key_lookups(), before);
  EXPECT_EQ(Run("UPDATE pair SET v = v + 100 WHERE b = 'b' AND a = 1").command_tag, "UPDATE 1");
  EXPECT_EQ(Run("DELETE FROM pair WHERE a = 2 AND b = 'zz'").command_tag, "DELETE 0");
  EXPECT_EQ(WriteExecutor::key_lookups() - before, 2u);
  EXPECT_THAT(Query("SELECT a, b, v FROM pair ORDER BY a, b"),
              ElementsAre("1|a|11", "1|b|112", "2|a|3"));
}

TEST_F(EnginePointWriteTest, PreparedWithParametersUsesTheKey) {
  auto update = session_->Prepare("UPDATE acc SET abalance = abalance + $1 WHERE aid = $2", {});
  uint64_t before = WriteExecutor::key_lookups();
  EXPECT_EQ(
      session_->ExecutePrepared(*update, {Value::Integer(100), Value::Integer(3)}).command_tag,
      "UPDATE 1");
  EXPECT_EQ(session_->ExecutePrepared(*update, {Value::Integer(100), Value::Null(Type::Integer())})
                .command_tag,
            "UPDATE 0");
  EXPECT_EQ(WriteExecutor::key_lookups() - before, 2u);  // a NULL key finds no row
  EXPECT_THAT(Query("SELECT abalance FROM acc WHERE aid = 3"), ElementsAre("130"));
}

TEST_F(EnginePointWriteTest, InsideABlockSeesTheBlocksWrites) {
  Run("BEGIN");
  Run("INSERT INTO acc VALUES (5, 3, 50, 'w')");
  EXPECT_EQ(Run("UPDATE acc SET abalance = abalance + 1 WHERE aid = 5").command_tag, "UPDATE 1");
  EXPECT_EQ(Run("DELETE FROM acc WHERE aid = 2").command_tag, "DELETE 1");
  EXPECT_EQ(Run("UPDATE acc SET abalance = 1 WHERE aid = 2").command_tag, "UPDATE 0");
  Run("COMMIT");
  EXPECT_THAT(Query("SELECT aid, abalance FROM acc ORDER BY aid"),
              ElementsAre("1|10", "3|30", "4|", "5|51"));
}

// Prepare inside a block binds against the published schemas (in the block
// only after the block's own DDL) and never waits for the transaction thread.
class EnginePreparedInBlockTest : public EngineFixture {
 protected:
  void SetUp() override {
    Open(InProcess(/*hold_ms=*/600000));
    Run("CREATE TABLE acc (aid int PRIMARY KEY, abalance int)");
    Run("INSERT INTO acc VALUES (1, 10), (2, 20)");
  }
};

TEST_F(EnginePreparedInBlockTest, PrepareAndExecuteInsideBegin) {
  Run("BEGIN");
  Run("INSERT INTO acc VALUES (3, 30)");
  // A Prepare that waited for the thread would hang the test (the implicit
  // blocks' hold is 10 minutes here); it must return while the block is open.
  auto done = std::async(std::launch::async, [&] {
    auto update = session_->Prepare("UPDATE acc SET abalance = abalance + $1 WHERE aid = $2", {});
    auto select = session_->Prepare("SELECT abalance FROM acc WHERE aid = $1", {});
    EXPECT_EQ(update->parameter_types.size(), 2u);
    EXPECT_EQ(select->columns.size(), 1u);
    EXPECT_EQ(
        session_->ExecutePrepared(*update, {Value::Integer(5), Value::Integer(3)}).command_tag,
        "UPDATE 1");
    EXPECT_THAT(Lines(session_->ExecutePrepared(*select, {Value::Integer(3)})), ElementsAre("35"));
  });
  ASSERT_EQ(done.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  done.get();
  EXPECT_EQ(session_->status(), TxnStatus::kInBlock);
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  EXPECT_EQ(session_->status(), TxnStatus::kIdle);
  EXPECT_THAT(Query("SELECT aid, abalance FROM acc ORDER BY aid"),
              ElementsAre("1|10", "2|20", "3|35"));
}

// Two clients as pgbench -M prepared -c 2 drives them: both prepare inside
// their blocks, and B's whole block runs while A's is open (blocks never hold
// the transaction thread). A's blind increment commutes with B's; A reads
// the balance after B committed, so its COMMIT validates too.
TEST_F(EnginePreparedInBlockTest, TwoSessionsPrepareInsideTheirBlocks) {
  SqlSession other(*engine_);
  Run("BEGIN");
  auto update = session_->Prepare("UPDATE acc SET abalance = abalance + $1 WHERE aid = $2", {});
  EXPECT_EQ(session_->ExecutePrepared(*update, {Value::Integer(5), Value::Integer(1)}).command_tag,
            "UPDATE 1");
  auto b = std::async(std::launch::async, [&] {
    other.Execute("BEGIN");
    auto p = other.Prepare("UPDATE acc SET abalance = abalance + $1 WHERE aid = $2", {});
    other.ExecutePrepared(*p, {Value::Integer(1), Value::Integer(1)});
    other.Execute("COMMIT");
  });
  ASSERT_EQ(b.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  b.get();
  auto select = session_->Prepare("SELECT abalance FROM acc WHERE aid = $1", {});
  EXPECT_THAT(Lines(session_->ExecutePrepared(*select, {Value::Integer(1)})), ElementsAre("16"));
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  EXPECT_THAT(Query("SELECT abalance FROM acc WHERE aid = 1"), ElementsAre("16"));
}

}  // namespace
}  // namespace forktail::testing
