// Point statements (olap/session/statement/point_statement.h): statements bound off the
// transaction thread against Database::schemas() and executed on it directly.
// A SELECT that fixes the whole primary key reads the one row the key index
// names and answers exactly as the general path (the same query on a table
// without a key); a schema change (another session's or the block's own)
// makes the pre-bound statement stale and the on-thread path binds again.
#include "olap/session/statement/point_statement.h"
#include "tests/olap/session/session_test_util.h"

namespace forktail::testing {
namespace {

using ::testing::ElementsAre;

class EnginePointStatementTest : public PointTablesFixture {
 protected:
  // Runs the SELECT on `acc` (point path expected iff `point`) and on
  // `acc_nokey` (general path), inside a block (where reads run on the
  // transaction thread), and expects the same columns, rows and tag.
  void Same(const std::string& select, bool point) {
    Run("BEGIN");
    uint64_t before = PreBoundExecutions();
    StatementResult with_key = Run(On(select, "acc"));
    EXPECT_EQ(PreBoundExecutions() - before, point ? 1u : 0u) << select;
    before = PreBoundExecutions();
    StatementResult without_key = Run(On(select, "acc_nokey"));
    EXPECT_EQ(PreBoundExecutions(), before) << select;
    Run("COMMIT");
    EXPECT_EQ(with_key.columns, without_key.columns) << select;
    EXPECT_EQ(Lines(with_key), Lines(without_key)) << select;
    EXPECT_EQ(with_key.command_tag, without_key.command_tag) << select;
  }
};

TEST_F(EnginePointStatementTest, PointSelectMatchesTheGeneralPath) {
  Same("SELECT abalance FROM $T WHERE aid = 2", true);
  Same("SELECT * FROM $T WHERE aid = 3", true);
  Same("SELECT * FROM $T WHERE 3 = aid", true);
  Same("SELECT aid, abalance + 1 AS x, filler FROM $T WHERE aid = 4 AND bid = 2", true);
  Same("SELECT t.abalance, t.filler IS NULL FROM $T t WHERE t.aid = 2", true);
  Same("SELECT abalance FROM $T WHERE aid = 1 AND bid = 2", true);  // extra conjunct false
  Same("SELECT abalance FROM $T WHERE aid = 99", true);             // not found
  Same("SELECT abalance FROM $T WHERE aid = NULL", true);           // finds nothing
  Same("SELECT abalance FROM $T WHERE aid = 4000000000", false);    // no int key: general path
  Same("SELECT abalance FROM $T WHERE aid = 2 OR aid = 3", false);
  Same("SELECT abalance FROM $T WHERE aid > 2 ORDER BY abalance", false);
  Same("SELECT count(*) FROM $T WHERE aid = 2", false);
  Same("SELECT abalance FROM $T WHERE aid = 2 ORDER BY 1 LIMIT 1", false);
  Same("SELECT DISTINCT bid FROM $T WHERE aid = 2", false);
}

TEST_F(EnginePointStatementTest, LockingPointSelectMatchesTheGeneralPath) {
  // FOR UPDATE appends the key columns to lock the rows it returns
  // (session_locking.cc); by the whole key it still reads one row directly.
  Same("SELECT abalance FROM $T WHERE aid = 2 FOR UPDATE", true);
  Same("SELECT * FROM $T WHERE aid = 3 FOR SHARE", true);
  Same("SELECT t.abalance FROM $T t WHERE t.aid = 1 AND t.bid = 2 FOR UPDATE", true);
  Same("SELECT abalance FROM $T WHERE aid = 99 FOR UPDATE", true);
  Same("SELECT abalance FROM $T WHERE aid > 1 ORDER BY aid LIMIT 2 FOR UPDATE", false);
}

TEST_F(EnginePointStatementTest, LockingPointSelectRunsAgainWithoutBinding) {
  auto lock = session_->Prepare("SELECT abalance FROM acc WHERE aid = $1 FOR UPDATE", {});
  Run("BEGIN");
  uint64_t before = PreBoundExecutions();
  EXPECT_THAT(Lines(session_->ExecutePrepared(*lock, {Value::Integer(3)})), ElementsAre("30"));
  Run("UPDATE acc SET abalance = abalance + 1 WHERE aid = 3");
  EXPECT_THAT(Lines(session_->ExecutePrepared(*lock, {Value::Integer(3)})), ElementsAre("31"));
  EXPECT_EQ(PreBoundExecutions() - before, 4u);  // the UPDATE again at step 3
  Run("COMMIT");
  EXPECT_EQ(PreBoundExecutions() - before, 7u);  // COMMIT runs all three again
  EXPECT_THAT(Query("SELECT abalance FROM acc WHERE aid = 3"), ElementsAre("31"));
}

TEST_F(EnginePointStatementTest, PreparedPointStatementsInABlock) {
  auto update = session_->Prepare("UPDATE acc SET abalance = abalance + $1 WHERE aid = $2", {});
  auto select = session_->Prepare("SELECT abalance FROM acc WHERE aid = $1", {});
  auto insert = session_->Prepare("INSERT INTO acc VALUES ($1, $2, $3, 'new')", {});
  Run("BEGIN");
  uint64_t before = PreBoundExecutions();
  EXPECT_EQ(session_->ExecutePrepared(*update, {Value::Integer(5), Value::Integer(3)}).command_tag,
            "UPDATE 1");
  EXPECT_THAT(Lines(session_->ExecutePrepared(*select, {Value::Integer(3)})), ElementsAre("35"));
  EXPECT_EQ(
      session_->ExecutePrepared(*insert, {Value::Integer(7), Value::Integer(1), Value::Integer(70)})
          .command_tag,
      "INSERT 0 1");
  EXPECT_THAT(Lines(session_->ExecutePrepared(*select, {Value::Integer(7)})), ElementsAre("70"));
  EXPECT_THAT(Lines(session_->ExecutePrepared(*select, {Value::Null(Type::Integer())})),
              ElementsAre());
  // Five statements, and the writes again at the later steps that can see
  // them (optimistic_block.h): the UPDATE of row 3 at step 2 (row 3), the
  // INSERT of row 7 at step 4 (row 7), both at step 5 (a NULL key names no
  // row: every write).
  EXPECT_EQ(PreBoundExecutions() - before, 9u);
  Run("COMMIT");
  EXPECT_EQ(PreBoundExecutions() - before, 14u);  // COMMIT runs all five again
  EXPECT_THAT(Query("SELECT aid, abalance FROM acc WHERE aid IN (3, 7) ORDER BY aid"),
              ElementsAre("3|35", "7|70"));
}

TEST_F(EnginePointStatementTest, InsertValuesWithNowRunsWithoutAPlan) {
  Run("CREATE TABLE hist (aid int, delta int, mtime timestamp)");
  uint64_t before = PreBoundExecutions();
  EXPECT_EQ(Run("INSERT INTO hist VALUES (1, 5, CURRENT_TIMESTAMP), (2, 6, now())").command_tag,
            "INSERT 0 2");
  EXPECT_EQ(PreBoundExecutions() - before, 1u);
  EXPECT_THAT(Query("SELECT aid, delta, mtime IS NOT NULL, mtime > '2020-01-01' FROM hist "
                    "ORDER BY aid"),
              ElementsAre("1|5|t|t", "2|6|t|t"));
  ExpectDbError([&] { Run("INSERT INTO hist VALUES (3, 1 / 0, now())"); }, "22012",
                "division by zero");
  EXPECT_THAT(Query("SELECT count(*) FROM hist"), ElementsAre("2"));
}

TEST_F(EnginePointStatementTest, DdlInTheBlockBindsInTheBlock) {
  Run("BEGIN");
  Run("CREATE TABLE fresh (k int PRIMARY KEY, v text)");
  // Not in Database::schemas() yet: the pre-bind fails or is stale, and the
  // statements bind in the block.
  EXPECT_EQ(Run("INSERT INTO fresh VALUES (1, 'one'), (2, 'two')").command_tag, "INSERT 0 2");
  EXPECT_THAT(Query("SELECT v FROM fresh WHERE k = 2"), ElementsAre("two"));
  auto select = session_->Prepare("SELECT v FROM fresh WHERE k = $1", {});
  EXPECT_THAT(Lines(session_->ExecutePrepared(*select, {Value::Integer(1)})), ElementsAre("one"));
  Run("UPDATE acc SET abalance = 11 WHERE aid = 1");
  EXPECT_THAT(Query("SELECT abalance FROM acc WHERE aid = 1"), ElementsAre("11"));
  Run("ROLLBACK");
  EXPECT_THAT(Query("SELECT abalance FROM acc WHERE aid = 1"), ElementsAre("10"));
  ExpectDbError([&] { Run("SELECT v FROM fresh WHERE k = 1"); }, "42P01",
                "relation \"fresh\" does not exist");
}

TEST_F(EnginePointStatementTest, AnotherSessionsDdlIsSeen) {
  SqlSession other(*engine_);
  auto select = session_->Prepare("SELECT * FROM acc WHERE aid = $1", {});
  other.Execute("DROP TABLE acc");
  other.Execute("CREATE TABLE acc (aid int PRIMARY KEY, note text)");
  other.Execute("INSERT INTO acc VALUES (1, 'other')");
  Run("BEGIN");
  EXPECT_THAT(Query("SELECT * FROM acc WHERE aid = 1"), ElementsAre("1|other"));
  ExpectDbError([&] { session_->ExecutePrepared(*select, {Value::Integer(1)}); }, "0A000",
                "cached plan must not change result type");
  Run("ROLLBACK");
}

}  // namespace
}  // namespace forktail::testing
