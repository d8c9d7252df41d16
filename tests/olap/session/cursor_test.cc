// Cursors (olap/session/cursor.h) through SQL sessions: FETCH / MOVE
// positions, tags and errors as PostgreSQL 15 gives them (every expected
// answer below was taken from it), WITH HOLD across COMMIT and ROLLBACK,
// cursors in the optimistic block (40001 when a concurrent commit changes
// what DECLARE read), the implicit block of a multi-statement string, and
// Describe of FETCH for the extended protocol.
#include "olap/session/cursor.h"

#include "tests/olap/session/session_test_util.h"

namespace forktail::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class CursorTest : public EngineFixture {
 protected:
  void SetUp() override {
    Open(InProcess());
    Run("CREATE TABLE t (a int PRIMARY KEY, b text)");
    Run("INSERT INTO t VALUES (1, 'v1'), (2, 'v2'), (3, 'v3'), (4, 'v4'), (5, 'v5')");
  }
  // "TAG: row;row" for a FETCH or MOVE.
  std::string Fetch(const std::string& sql) {
    StatementResult r = Run(sql);
    std::string out = r.command_tag + ":";
    for (const std::string& line : Lines(r)) out += " " + line;
    return out;
  }
  void ExpectError(const std::string& sql, const std::string& state, const std::string& message,
                   const std::string& hint = "") {
    try {
      Run(sql);
      ADD_FAILURE() << sql << ": expected " << state;
    } catch (const DbError& e) {
      EXPECT_EQ(std::string(e.sqlstate()), state) << sql;
      EXPECT_EQ(std::string(e.what()), message) << sql;
      EXPECT_EQ(e.hint(), hint) << sql;
      EXPECT_EQ(e.position(), 0) << sql;
    }
  }
};

// The sequences of the PostgreSQL probes, FETCH by FETCH.
TEST_F(CursorTest, FetchAndMoveFollowPostgresPositions) {
  Run("BEGIN");
  EXPECT_EQ(Run("DECLARE d CURSOR FOR SELECT * FROM t ORDER BY a").command_tag, "DECLARE CURSOR");
  EXPECT_EQ(Fetch("FETCH 2 d"), "FETCH 2: 1|v1 2|v2");
  EXPECT_EQ(Fetch("FETCH PRIOR d"), "FETCH 1: 1|v1");
  EXPECT_EQ(Fetch("FETCH FIRST d"), "FETCH 1: 1|v1");
  EXPECT_EQ(Fetch("FETCH LAST d"), "FETCH 1: 5|v5");
  EXPECT_EQ(Fetch("FETCH ABSOLUTE -1 d"), "FETCH 1: 5|v5");
  EXPECT_EQ(Fetch("FETCH RELATIVE 0 d"), "FETCH 1: 5|v5");
  EXPECT_EQ(Fetch("FETCH RELATIVE -2 d"), "FETCH 1: 3|v3");
  EXPECT_EQ(Fetch("MOVE FORWARD ALL IN d"), "MOVE 2:");
  EXPECT_EQ(Fetch("MOVE BACKWARD 2 IN d"), "MOVE 2:");
  EXPECT_EQ(Fetch("FETCH FORWARD 10 d"), "FETCH 1: 5|v5");
  EXPECT_EQ(Fetch("FETCH NEXT FROM d"), "FETCH 0:");
  EXPECT_EQ(Fetch("FETCH BACKWARD ALL FROM d"), "FETCH 5: 5|v5 4|v4 3|v3 2|v2 1|v1");
  EXPECT_EQ(Fetch("FETCH 0 FROM d"), "FETCH 0:");
  EXPECT_EQ(Fetch("FETCH -1 FROM d"), "FETCH 0:");
  EXPECT_EQ(Fetch("FETCH BACKWARD -1 FROM d"), "FETCH 1: 1|v1");
  EXPECT_EQ(Fetch("FETCH FORWARD -2 FROM d"), "FETCH 0:");
  Run("ROLLBACK");

  Run("BEGIN");
  Run("DECLARE c SCROLL CURSOR FOR SELECT a FROM t ORDER BY a");
  EXPECT_EQ(Fetch("FETCH FORWARD c"), "FETCH 1: 1");
  EXPECT_EQ(Fetch("FETCH BACKWARD c"), "FETCH 0:");
  EXPECT_EQ(Fetch("FETCH +2 c"), "FETCH 2: 1 2");
  EXPECT_EQ(Fetch("FETCH ABSOLUTE +2 c"), "FETCH 1: 2");
  EXPECT_EQ(Fetch("MOVE -1 IN c"), "MOVE 1:");
  EXPECT_EQ(Fetch("MOVE 0 c"), "MOVE 1:");
  EXPECT_EQ(Fetch("MOVE ABSOLUTE 0 c"), "MOVE 0:");
  EXPECT_EQ(Fetch("MOVE 0 c"), "MOVE 0:");
  EXPECT_EQ(Fetch("MOVE LAST IN c"), "MOVE 1:");
  EXPECT_EQ(Fetch("MOVE NEXT c"), "MOVE 0:");
  EXPECT_EQ(Fetch("MOVE PRIOR c"), "MOVE 1:");
  EXPECT_EQ(Fetch("MOVE BACKWARD ALL c"), "MOVE 4:");
  EXPECT_EQ(Fetch("FETCH ABSOLUTE 10 c"), "FETCH 0:");
  EXPECT_EQ(Fetch("FETCH ABSOLUTE -10 c"), "FETCH 0:");
  EXPECT_EQ(Fetch("FETCH RELATIVE 1 c"), "FETCH 1: 1");
  EXPECT_EQ(Fetch("MOVE RELATIVE 2 IN c"), "MOVE 1:");
  EXPECT_EQ(Fetch("FETCH ALL c"), "FETCH 2: 4 5");
  Run("ROLLBACK");
}

TEST_F(CursorTest, NoScrollCursorsOnlyMoveForward) {
  const std::string hint = "Declare it with SCROLL option to enable backward scan.";
  Run("BEGIN");
  Run("DECLARE c NO SCROLL CURSOR FOR SELECT a FROM t ORDER BY a");
  EXPECT_EQ(Fetch("FETCH ABSOLUTE 1 c"), "FETCH 1: 1");
  EXPECT_EQ(Fetch("FETCH ABSOLUTE 2 c"), "FETCH 1: 2");  // forward from where it is
  ExpectError("FETCH ABSOLUTE 1 c", "55000", "cursor can only scan forward", hint);
  EXPECT_EQ(session_->status(), TxnStatus::kFailed);
  Run("ROLLBACK");

  Run("BEGIN");
  Run("DECLARE c NO SCROLL CURSOR FOR SELECT a FROM t ORDER BY a");
  EXPECT_EQ(Fetch("MOVE ABSOLUTE 0 c"), "MOVE 0:");  // it never moved: no rewind needed
  EXPECT_EQ(Fetch("FETCH RELATIVE 0 c"), "FETCH 0:");
  EXPECT_EQ(Fetch("FETCH 1 c"), "FETCH 1: 1");
  ExpectError("FETCH 0 c", "55000", "cursor can only scan forward", hint);  // backs up one
  Run("ROLLBACK");

  Run("BEGIN");
  Run("DECLARE c NO SCROLL CURSOR FOR SELECT a FROM t ORDER BY a");
  EXPECT_EQ(Fetch("MOVE BACKWARD ALL c"), "MOVE 0:");
  EXPECT_EQ(Fetch("MOVE FORWARD ALL c"), "MOVE 5:");
  EXPECT_EQ(Fetch("MOVE BACKWARD 0 c"), "MOVE 0:");
  ExpectError("FETCH ABSOLUTE 0 c", "55000", "cursor can only scan forward", hint);
  Run("ROLLBACK");

  // Neither SCROLL nor NO SCROLL: PostgreSQL's plan decides; an aggregate
  // or a join cannot scan backward, a sort or a plain scan can.
  Run("BEGIN");
  Run("DECLARE agg CURSOR FOR SELECT count(*) FROM t");
  Run("DECLARE j CURSOR FOR SELECT t.a FROM t JOIN t u ON t.a = u.a");
  Run("DECLARE one CURSOR FOR SELECT 1 AS x");
  Run("DECLARE sorted CURSOR FOR SELECT a FROM t ORDER BY a DESC");
  Run("DECLARE scan CURSOR FOR SELECT a, b FROM t WHERE a > 3");
  Run("DECLARE vals CURSOR FOR VALUES (1), (2)");
  EXPECT_EQ(Fetch("FETCH agg"), "FETCH 1: 5");
  EXPECT_EQ(Fetch("FETCH 2 sorted"), "FETCH 2: 5 4");
  EXPECT_EQ(Fetch("FETCH PRIOR sorted"), "FETCH 1: 5");
  EXPECT_EQ(Fetch("FETCH 2 vals"), "FETCH 2: 1 2");
  EXPECT_EQ(Fetch("FETCH PRIOR vals"), "FETCH 1: 1");
  EXPECT_EQ(Fetch("MOVE 2 scan"), "MOVE 2:");
  EXPECT_EQ(Fetch("MOVE PRIOR scan"), "MOVE 1:");
  ExpectError("FETCH PRIOR agg", "55000", "cursor can only scan forward", hint);
  Run("ROLLBACK");
  for (const char* query : {"SELECT t.a FROM t JOIN t u ON t.a = u.a", "SELECT 1 AS x",
                            "SELECT a FROM t ORDER BY a FOR UPDATE"}) {
    Run("BEGIN");
    Run(std::string("DECLARE c CURSOR FOR ") + query);
    Run("FETCH c");
    ExpectError("FETCH PRIOR c", "55000", "cursor can only scan forward", hint);
    Run("ROLLBACK");
  }
}

TEST_F(CursorTest, ErrorsArePostgresOnes) {
  ExpectError("DECLARE c CURSOR FOR SELECT * FROM t", "25P01",
              "DECLARE CURSOR can only be used in transaction blocks");
  // The query is analyzed first.
  try {
    Run("DECLARE c CURSOR FOR SELECT nosuch FROM t");
    ADD_FAILURE();
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), "42703");
    EXPECT_EQ(e.position(), 29);
  }
  ExpectError("FETCH c", "34000", "cursor \"c\" does not exist");
  ExpectError("CLOSE c", "34000", "cursor \"c\" does not exist");
  ExpectError("MOVE c", "34000", "cursor \"c\" does not exist");
  EXPECT_EQ(Run("CLOSE ALL").command_tag, "CLOSE CURSOR ALL");

  Run("BEGIN");
  Run("DECLARE d CURSOR FOR SELECT * FROM t ORDER BY a");
  ExpectError("DECLARE d CURSOR FOR SELECT 1", "42P03", "cursor \"d\" already exists");
  EXPECT_EQ(session_->status(), TxnStatus::kFailed);
  ExpectError("FETCH d", "25P02",
              "current transaction is aborted, commands ignored until end of transaction block");
  Run("ROLLBACK");

  Run("BEGIN");
  Run("DECLARE \"MiXed\" CURSOR FOR SELECT 1 AS x");
  EXPECT_EQ(Fetch("FETCH \"MiXed\""), "FETCH 1: 1");
  ExpectError("FETCH mixed", "34000", "cursor \"mixed\" does not exist");
  Run("ROLLBACK");

  struct Locked {
    const char* declare;
    const char* state;
    const char* message;
  };
  for (const Locked& c : {
           Locked{"DECLARE c CURSOR WITH HOLD FOR SELECT a FROM t FOR UPDATE", "0A000",
                  "DECLARE CURSOR WITH HOLD ... FOR UPDATE is not supported\nDETAIL:  Holdable "
                  "cursors must be READ ONLY."},
           Locked{"DECLARE c SCROLL CURSOR FOR SELECT a FROM t FOR NO KEY UPDATE", "0A000",
                  "DECLARE SCROLL CURSOR ... FOR NO KEY UPDATE is not supported\nDETAIL:  "
                  "Scrollable cursors must be READ ONLY."},
           Locked{"DECLARE c INSENSITIVE CURSOR FOR SELECT a FROM t FOR SHARE", "42P11",
                  "DECLARE INSENSITIVE CURSOR ... FOR SHARE is not valid\nDETAIL:  Insensitive "
                  "cursors must be READ ONLY."},
       }) {
    Run("BEGIN");
    ExpectError(c.declare, c.state, c.message);
    Run("ROLLBACK");
  }
  // FOR UPDATE of no table locks nothing: PostgreSQL holds it.
  Run("BEGIN");
  Run("DECLARE c CURSOR WITH HOLD FOR SELECT 1 AS x FOR UPDATE");
  Run("ROLLBACK");
}

TEST_F(CursorTest, WithHoldSurvivesCommitNotRollback) {
  Run("BEGIN");
  Run("DECLARE w CURSOR WITH HOLD FOR SELECT a FROM t ORDER BY a");
  Run("DECLARE plain CURSOR FOR SELECT a FROM t");
  EXPECT_EQ(Fetch("FETCH w"), "FETCH 1: 1");
  Run("COMMIT");
  Run("DELETE FROM t WHERE a = 2");  // the held rows are those it read
  EXPECT_EQ(Fetch("FETCH 2 w"), "FETCH 2: 2 3");
  ExpectError("FETCH plain", "34000", "cursor \"plain\" does not exist");

  // Used and closed in a block that rolls back: closing is not undone.
  Run("BEGIN");
  EXPECT_EQ(Fetch("FETCH w"), "FETCH 1: 4");
  EXPECT_EQ(Run("CLOSE w").command_tag, "CLOSE CURSOR");
  Run("ROLLBACK");
  ExpectError("FETCH w", "34000", "cursor \"w\" does not exist");

  // Declared in a block that rolls back (or fails): gone.
  Run("BEGIN");
  Run("DECLARE gone CURSOR WITH HOLD FOR SELECT 1 AS x");
  Run("ROLLBACK");
  ExpectError("FETCH gone", "34000", "cursor \"gone\" does not exist");
  Run("BEGIN");
  Run("DECLARE gone CURSOR WITH HOLD FOR SELECT 1 AS x");
  EXPECT_THROW(Run("SELECT 1/0"), DbError);
  EXPECT_EQ(Run("COMMIT").command_tag, "ROLLBACK");
  ExpectError("FETCH gone", "34000", "cursor \"gone\" does not exist");

  // Outside a block a WITH HOLD cursor is declared at once; an earlier one
  // survives a later block's rollback.
  Run("DECLARE outside CURSOR WITH HOLD FOR SELECT a FROM t WHERE a >= 4 ORDER BY a");
  Run("BEGIN");
  Run("ROLLBACK");
  EXPECT_EQ(Fetch("FETCH ALL outside"), "FETCH 2: 4 5");
  EXPECT_EQ(Run("CLOSE outside").command_tag, "CLOSE CURSOR");
}

// DECLARE is a recorded read of the block: COMMIT runs it again, and a
// concurrent commit that changes its result fails the block with 40001,
// whether or not the client fetched the rows that changed.
TEST_F(CursorTest, ConcurrentChangeToTheCursorsRowsFailsCommit) {
  SqlSession other(*engine_);
  for (const char* change : {"UPDATE t SET b = 'x' WHERE a = 1", "UPDATE t SET b = 'y' WHERE a = 5",
                             "INSERT INTO t VALUES (6, 'v6')"}) {
    SCOPED_TRACE(change);
    Run("BEGIN");
    Run("DECLARE c CURSOR WITH HOLD FOR SELECT a, b FROM t ORDER BY a");
    EXPECT_EQ(Fetch("FETCH 2 c"), "FETCH 2: 1|v1 2|v2");
    Run("UPDATE t SET b = b WHERE a = 3");  // the block writes too
    other.Execute(change);
    try {
      Run("COMMIT");
      ADD_FAILURE() << "COMMIT succeeded";
    } catch (const DbError& e) {
      EXPECT_STREQ(e.sqlstate(), sqlstate::kSerializationFailure) << e.what();
    }
    EXPECT_EQ(session_->status(), TxnStatus::kIdle);
    ExpectError("FETCH c", "34000", "cursor \"c\" does not exist");  // its block failed
    other.Execute("DELETE FROM t WHERE a = 6");
    other.Execute("UPDATE t SET b = 'v' || a");
  }
  // Unchanged: COMMIT succeeds and the held cursor goes on where it was.
  Run("BEGIN");
  Run("DECLARE c CURSOR WITH HOLD FOR SELECT a, b FROM t ORDER BY a");
  EXPECT_EQ(Fetch("FETCH 2 c"), "FETCH 2: 1|v1 2|v2");
  other.Execute("UPDATE t SET b = 'z' WHERE a = 99");
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  EXPECT_EQ(Fetch("FETCH c"), "FETCH 1: 3|v3");
}

TEST_F(CursorTest, RowsAreTheQuerysWhenDeclared) {
  Run("BEGIN");
  Run("INSERT INTO t VALUES (6, 'v6')");
  Run("DECLARE c CURSOR FOR SELECT a FROM t WHERE a > 4 ORDER BY a");
  Run("DELETE FROM t WHERE a = 5");
  EXPECT_EQ(Fetch("FETCH ALL c"), "FETCH 2: 5 6");  // sees the block's insert, not its delete
  EXPECT_THAT(Query("SELECT a FROM t WHERE a > 4"), ElementsAre("6"));
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
}

TEST_F(CursorTest, ImplicitBlockOfAMultiStatementString) {
  std::vector<StatementResult> r =
      session_->Execute("DECLARE c CURSOR FOR SELECT a FROM t ORDER BY a; FETCH 2 c; FETCH c");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].command_tag, "DECLARE CURSOR");
  EXPECT_THAT(Lines(r[1]), ElementsAre("1", "2"));
  EXPECT_THAT(Lines(r[2]), ElementsAre("3"));
  ExpectError("FETCH c", "34000", "cursor \"c\" does not exist");  // ended with the string
  // psql's FETCH_COUNT, all in one string.
  r = session_->Execute(
      "BEGIN; DECLARE _psql_cursor NO SCROLL CURSOR FOR SELECT a FROM t ORDER BY a; FETCH FORWARD "
      "3 FROM _psql_cursor; FETCH FORWARD 3 FROM _psql_cursor; CLOSE _psql_cursor; COMMIT");
  ASSERT_EQ(r.size(), 6u);
  EXPECT_EQ(r[2].command_tag, "FETCH 3");
  EXPECT_EQ(r[3].command_tag, "FETCH 2");
  EXPECT_EQ(r[4].command_tag, "CLOSE CURSOR");
}

TEST_F(CursorTest, BinaryCursorAndExtendedProtocol) {
  Run("BEGIN");
  Run("DECLARE b BINARY CURSOR FOR SELECT a, b FROM t ORDER BY a");
  StatementResult fetched = Run("FETCH 1 b");
  EXPECT_TRUE(fetched.binary_rows);
  EXPECT_THAT(Lines(fetched), ElementsAre("1|v1"));
  EXPECT_FALSE(Run("MOVE 1 b").binary_rows);
  // Describe of a FETCH answers the cursor's columns; of a MOVE, none.
  std::shared_ptr<const PreparedStatement> p = session_->Prepare("FETCH FORWARD 2 FROM b");
  ASSERT_EQ(p->columns.size(), 2u);
  EXPECT_EQ(p->columns[0].name, "a");
  EXPECT_EQ(p->columns[1].type, Type::Text());
  EXPECT_THAT(Lines(session_->ExecutePrepared(*p, {})), ElementsAre("3|v3", "4|v4"));
  EXPECT_THAT(session_->Prepare("MOVE 1 b")->columns, IsEmpty());
  EXPECT_THAT(session_->Prepare("FETCH nosuch")->columns, IsEmpty());
  ASSERT_TRUE(session_->CursorColumns("b").has_value());
  EXPECT_FALSE(session_->CursorColumns("nosuch").has_value());
  session_->CloseCursorPortal("b");
  EXPECT_FALSE(session_->CursorColumns("b").has_value());
  // A DECLARE with parameters, prepared: no result columns, the query's
  // parameter types.
  p = session_->Prepare("DECLARE p CURSOR FOR SELECT b FROM t WHERE a > $1 ORDER BY a");
  EXPECT_THAT(p->columns, IsEmpty());
  ASSERT_EQ(p->parameter_types.size(), 1u);
  EXPECT_EQ(p->parameter_types[0], Type::Integer());
  EXPECT_EQ(session_->ExecutePrepared(*p, {Value::Integer(3)}).command_tag, "DECLARE CURSOR");
  EXPECT_EQ(Fetch("FETCH ALL p"), "FETCH 2: v4 v5");
  Run("COMMIT");
}

}  // namespace
}  // namespace forktail::testing
