// Sequences through SqlSession: PostgreSQL 15's errors (SQLSTATE, message,
// position), currval and lastval per session, values a failed statement
// drew staying used, optimistic blocks (a step gives its values back so that
// COMMIT draws the same ones; concurrent blocks get distinct values, one of
// them retrying after 40001), COPY filling SERIAL columns, and sequences
// surviving log replay and a checkpoint + restart. The answers are also in
// tests/server/e2e/slt/sequences.slt (checked against PostgreSQL 15).
#include "tests/olap/session/session_test_util.h"

namespace forktail::testing {
namespace {

using ::testing::ElementsAre;

class SequenceTest : public EngineFixture {
 protected:
  void SetUp() override { Open(InProcess()); }
  void Reopen() {
    other_.reset();
    session_.reset();
    engine_.reset();
    Open(InProcess());
  }
  SqlSession& Other() {
    if (!other_) other_ = std::make_unique<SqlSession>(*engine_);
    return *other_;
  }
  std::vector<std::string> OtherQuery(const std::string& sql) {
    return Lines(Other().Execute(sql).back());
  }
  void TearDown() override {
    other_.reset();
    EngineFixture::TearDown();
  }

  std::unique_ptr<SqlSession> other_;
};

TEST_F(SequenceTest, ErrorsArePostgresOnes) {
  Run("CREATE SEQUENCE s MAXVALUE 2");
  Run("CREATE TABLE t (id serial, v text)");
  ExpectDbError([&] { Run("CREATE SEQUENCE s"); }, "42P07", "relation \"s\" already exists");
  EXPECT_EQ(Run("CREATE SEQUENCE IF NOT EXISTS s").notices,
            std::vector<std::string>{"relation \"s\" already exists, skipping"});
  ExpectDbError([&] { Run("CREATE SEQUENCE x INCREMENT 0"); }, "22023",
                "INCREMENT must not be zero");
  ExpectDbError([&] { Run("CREATE SEQUENCE x AS text"); }, "22023",
                "sequence type must be smallint, integer, or bigint");
  ExpectDbError([&] { Run("CREATE SEQUENCE x START 0"); }, "22023",
                "START value (0) cannot be less than MINVALUE (1)");
  ExpectDbError([&] { Run("CREATE SEQUENCE x CYCLE NO CYCLE"); }, "42601",
                "conflicting or redundant options", 25);
  ExpectDbError([&] { Run("CREATE SEQUENCE x START 99999999999999999999"); }, "22003",
                "value \"99999999999999999999\" is out of range for type bigint");
  ExpectDbError([&] { Run("CREATE TEMPORARY SEQUENCE x"); }, "0A000",
                "temporary sequences are not supported");
  EXPECT_THAT(Query("SELECT nextval('s'), nextval('s')"), ElementsAre("1|2"));
  ExpectDbError([&] { Run("SELECT nextval('s')"); }, "2200H",
                "nextval: reached maximum value of sequence \"s\" (2)");
  ExpectDbError([&] { Run("SELECT nextval('nosuch')"); }, "42P01",
                "relation \"nosuch\" does not exist", 16);
  ExpectDbError([&] { Run("SELECT nextval('t')"); }, "42809", "\"t\" is not a sequence");
  ExpectDbError([&] { Run("SELECT nextval(99999)"); }, "XX000",
                "could not open relation with OID 99999");
  ExpectDbError([&] { Run("SELECT setval('s', 3)"); }, "22003",
                "setval: value 3 is out of bounds for sequence \"s\" (1..2)");
  ExpectDbError([&] { Run("SELECT currval('t_id_seq')"); }, "55000",
                "currval of sequence \"t_id_seq\" is not yet defined in this session");
  ExpectDbError([&] { Other().Execute("SELECT lastval()"); }, "55000",
                "lastval is not yet defined in this session");
  ExpectDbError([&] { Run("DROP SEQUENCE t_id_seq"); }, "2BP01",
                "cannot drop sequence t_id_seq because other objects depend on it\nDETAIL:  "
                "default value for column id of table t depends on sequence t_id_seq");
  ExpectDbError([&] { Run("DROP SEQUENCE t"); }, "42809", "\"t\" is not a sequence");
  ExpectDbError([&] { Run("ALTER SEQUENCE s OWNED BY t"); }, "42601", "invalid OWNED BY option");
  ExpectDbError([&] { Run("ALTER SEQUENCE s OWNER TO x"); }, "0A000",
                "ALTER SEQUENCE ... OWNER TO is not supported", 18);
  ExpectDbError([&] { Run("ALTER SEQUENCE s MAXVALUE 1"); }, "22023",
                "MINVALUE (1) must be less than MAXVALUE (1)");
  ExpectDbError([&] { Run("ALTER SEQUENCE s MINVALUE 0 MAXVALUE 1"); }, "22023",
                "RESTART value (2) cannot be greater than MAXVALUE (1)");
  Run("CREATE TABLE i (id int GENERATED ALWAYS AS IDENTITY)");
  ExpectDbError([&] { Run("DROP SEQUENCE i_id_seq CASCADE"); }, "2BP01",
                "cannot drop sequence i_id_seq because column id of table i requires it");
  ExpectDbError([&] { Run("ALTER SEQUENCE i_id_seq OWNED BY NONE"); }, "0A000",
                "cannot change ownership of identity sequence\nDETAIL:  Sequence \"i_id_seq\" is "
                "linked to table \"i\".");
  // CASCADE takes the DEFAULT away, with PostgreSQL's notice.
  Run("CREATE TABLE d (a int DEFAULT nextval('s'), b int DEFAULT nextval('s'))");
  EXPECT_EQ(Run("DROP SEQUENCE s CASCADE").notices,
            std::vector<std::string>{
                "drop cascades to 2 other objects\nDETAIL:  drop cascades to default value for "
                "column a of table d\ndrop cascades to default value for column b of table d"});
  EXPECT_THAT(Query("INSERT INTO d DEFAULT VALUES RETURNING a, b"), ElementsAre("|"));
}

// currval and lastval are the session's; nextval is shared.
TEST_F(SequenceTest, CurrvalIsPerSession) {
  Run("CREATE SEQUENCE s");
  EXPECT_THAT(Query("SELECT nextval('s')"), ElementsAre("1"));
  EXPECT_THAT(OtherQuery("SELECT nextval('s')"), ElementsAre("2"));
  EXPECT_THAT(Query("SELECT currval('s'), lastval()"), ElementsAre("1|1"));
  EXPECT_THAT(OtherQuery("SELECT currval('s'), lastval()"), ElementsAre("2|2"));
  // setval(.., true) sets this session's currval, not lastval's sequence.
  Run("CREATE SEQUENCE u");
  EXPECT_THAT(Query("SELECT setval('u', 40)"), ElementsAre("40"));
  EXPECT_THAT(Query("SELECT currval('u'), lastval()"), ElementsAre("40|1"));
  Run("DISCARD SEQUENCES");
  ExpectDbError([&] { Run("SELECT currval('s')"); }, "55000",
                "currval of sequence \"s\" is not yet defined in this session");
  EXPECT_THAT(OtherQuery("SELECT currval('s')"), ElementsAre("2"));
}

// A value handed out is not given back by a failed statement or a failed
// implicit block (its state change is logged on its own, so also not after
// a restart).
TEST_F(SequenceTest, FailedStatementsKeepTheirValues) {
  Run("CREATE TABLE t (id serial PRIMARY KEY, v text NOT NULL)");
  ExpectDbError([&] { Run("INSERT INTO t (v) VALUES ('a'), (NULL)"); }, "23502",
                "null value in column \"v\" of relation \"t\" violates not-null constraint");
  EXPECT_THAT(Query("SELECT currval('t_id_seq')"), ElementsAre("2"));
  ExpectDbError([&] { session_->Execute("SELECT nextval('t_id_seq'); SELECT 1/0"); }, "22012",
                "division by zero");
  Reopen();
  EXPECT_THAT(Query("INSERT INTO t (v) VALUES ('b') RETURNING id"), ElementsAre("4"));
}

// A block's steps are dry runs: a step gives its values back and COMMIT
// draws them again, so a block that reads what it drew commits.
TEST_F(SequenceTest, BlocksCommitWithTheValuesTheySaw) {
  Run("CREATE TABLE t (id serial PRIMARY KEY, v text)");
  Run("BEGIN");
  EXPECT_THAT(Query("INSERT INTO t (v) VALUES ('a') RETURNING id"), ElementsAre("1"));
  EXPECT_THAT(Query("SELECT currval('t_id_seq'), nextval('t_id_seq')"), ElementsAre("1|2"));
  EXPECT_THAT(Query("INSERT INTO t (v) VALUES ('b') RETURNING id"), ElementsAre("3"));
  EXPECT_THAT(Query("SELECT lastval()"), ElementsAre("3"));
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  EXPECT_THAT(Query("SELECT id, v FROM t ORDER BY id"), ElementsAre("1|a", "3|b"));
  EXPECT_THAT(Query("SELECT currval('t_id_seq')"), ElementsAre("3"));
  EXPECT_THAT(Query("INSERT INTO t (v) VALUES ('c') RETURNING id"), ElementsAre("4"));
  // A block that rolls back took nothing: its values are drawn again (its
  // statements never ran outside dry runs).
  Run("BEGIN");
  EXPECT_THAT(Query("SELECT nextval('t_id_seq')"), ElementsAre("5"));
  Run("ROLLBACK");
  EXPECT_THAT(Query("SELECT nextval('t_id_seq')"), ElementsAre("5"));
}

// Two blocks drawing from one sequence: distinct values. A block that
// showed its value to the client must retry if the other committed first
// (the run at COMMIT draws another value: 40001, and that value stays used,
// as a failed transaction's in PostgreSQL); one that did not show it
// commits with the value drawn at COMMIT.
TEST_F(SequenceTest, ConcurrentBlocksGetDistinctValues) {
  Run("CREATE TABLE t (id serial PRIMARY KEY, v text)");
  SqlSession& b = Other();
  Run("BEGIN");
  b.Execute("BEGIN");
  EXPECT_THAT(Query("INSERT INTO t (v) VALUES ('a') RETURNING id"), ElementsAre("1"));
  EXPECT_THAT(Lines(b.Execute("INSERT INTO t (v) VALUES ('b') RETURNING id").back()),
              ElementsAre("1"));
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  ExpectDbError([&] { b.Execute("COMMIT"); }, "40001",
                "could not serialize access due to a concurrent update: statement 1 of the "
                "transaction now returns a different result than it did (the transaction might "
                "succeed if retried)");
  b.Execute("BEGIN");
  EXPECT_THAT(Lines(b.Execute("INSERT INTO t (v) VALUES ('b') RETURNING id").back()),
              ElementsAre("3"));
  b.Execute("COMMIT");
  // Without RETURNING neither saw its value: both commit, with distinct ids.
  Run("BEGIN");
  b.Execute("BEGIN");
  Run("INSERT INTO t (v) VALUES ('c')");
  b.Execute("INSERT INTO t (v) VALUES ('d')");
  Run("COMMIT");
  b.Execute("COMMIT");
  EXPECT_THAT(Query("SELECT id, v FROM t ORDER BY id"), ElementsAre("1|a", "3|b", "4|c", "5|d"));
}

TEST_F(SequenceTest, CopyFillsSerialAndIdentityColumns) {
  Run("CREATE TABLE t (id serial, n int GENERATED BY DEFAULT AS IDENTITY, v text)");
  EXPECT_EQ(Run("COPY t (v) FROM STDIN").command_tag, "COPY_IN");
  session_->CopyIn("a\nb\n");
  EXPECT_EQ(session_->CopyDone().command_tag, "COPY 2");
  Run("BEGIN");
  Run("COPY t (v) FROM STDIN");
  session_->CopyIn("c\n");
  session_->CopyDone();
  Run("COMMIT");
  EXPECT_THAT(Query("SELECT id, n, v FROM t ORDER BY id"), ElementsAre("1|1|a", "2|2|b", "3|3|c"));
  EXPECT_THAT(Query("SELECT currval('t_id_seq')"), ElementsAre("3"));
}

// A volatile DEFAULT is evaluated for each row, as in PostgreSQL (it was
// once evaluated for the whole COPY: its second row broke the primary key).
TEST_F(SequenceTest, CopyEvaluatesVolatileDefaultsPerRow) {
  Run("CREATE TABLE u (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), "
      "r float8 DEFAULT random(), k text DEFAULT 'k', v text)");
  Run("COPY u (v) FROM STDIN");
  session_->CopyIn("a\nb\nc\n");
  EXPECT_EQ(session_->CopyDone().command_tag, "COPY 3");
  Run("BEGIN");
  Run("COPY u (v) FROM STDIN");
  session_->CopyIn("d\ne\n");
  session_->CopyDone();
  Run("COMMIT");
  EXPECT_THAT(Query("SELECT count(DISTINCT id), count(DISTINCT r), count(DISTINCT k) FROM u"),
              ElementsAre("5|5|1"));
}

TEST_F(SequenceTest, SequencesSurviveReplayAndCheckpoint) {
  Run("CREATE SEQUENCE s INCREMENT 5 START 10 MAXVALUE 1000 CYCLE");
  Run("CREATE TABLE t (id bigserial PRIMARY KEY, k int GENERATED ALWAYS AS IDENTITY, "
      "n int DEFAULT nextval('s'))");
  Run("INSERT INTO t DEFAULT VALUES");
  Run("INSERT INTO t DEFAULT VALUES");
  Run("CREATE SEQUENCE gone");
  Run("SELECT nextval('gone')");
  Run("DROP SEQUENCE gone");
  Run("ALTER SEQUENCE s RENAME TO s2");
  Run("CREATE SEQUENCE owned OWNED BY t.n");
  const std::string state =
      "SELECT sequencename::text, data_type::text, start_value, min_value, max_value, "
      "increment_by, cycle, last_value FROM pg_sequences ORDER BY 1";
  const std::vector<std::string> before = Query(state);
  EXPECT_THAT(before,
              ElementsAre("owned|bigint|1|1|9223372036854775807|1|f|", "s2|bigint|10|1|1000|5|t|15",
                          "t_id_seq|bigint|1|1|9223372036854775807|1|f|2",
                          "t_k_seq|integer|1|1|2147483647|1|f|2"));
  for (int round = 0; round < 2; round++) {
    if (round == 1) engine_->database().Checkpoint();
    Reopen();  // round 0: the log replayed; round 1: the checkpoint loaded
    EXPECT_EQ(Query(state), before) << round;
    EXPECT_THAT(Query("SELECT pg_get_serial_sequence('t', 'n')"), ElementsAre("public.owned"));
    EXPECT_THAT(Query("SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef ORDER BY adnum"),
                ElementsAre("nextval('t_id_seq'::regclass)", "nextval('s2'::regclass)"));
  }
  EXPECT_THAT(Query("INSERT INTO t DEFAULT VALUES RETURNING id, k, n"), ElementsAre("3|3|20"));
}

}  // namespace
}  // namespace forktail::testing
