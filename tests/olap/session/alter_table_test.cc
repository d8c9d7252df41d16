// ALTER TABLE through SqlSession: PostgreSQL 15's errors (SQLSTATE and
// message), rollback (a block, a failing statement), and the changes
// surviving log replay and a checkpoint + restart. The statements' answers
// are also in tests/server/e2e/slt/alter_table.slt (checked against
// PostgreSQL 15).
#include "tests/olap/session/session_test_util.h"

namespace forktail::testing {
namespace {

class AlterTableTest : public EngineFixture {
 protected:
  void SetUp() override { Open(InProcess()); }
  void Reopen() {
    session_.reset();
    engine_.reset();
    Open(InProcess());
  }
  std::vector<std::string> Columns(const std::string& table) {
    return Query(
        "SELECT attname::text || ' ' || format_type(atttypid, atttypmod) || "
        "CASE WHEN attnotnull THEN ' not null' ELSE '' END FROM pg_attribute WHERE attrelid = '" +
        table + "'::regclass AND attnum > 0 ORDER BY attnum");
  }
};

TEST_F(AlterTableTest, ErrorsArePostgresOnes) {
  Run("CREATE TABLE t (id int PRIMARY KEY, a int, b bool, c varchar(10))");
  Run("INSERT INTO t VALUES (1, NULL, true, 'abc')");
  ExpectDbError([&] { Run("ALTER TABLE nope ADD COLUMN x int"); }, "42P01",
                "relation \"nope\" does not exist", 13);
  EXPECT_EQ(Run("ALTER TABLE IF EXISTS nope ADD COLUMN x int").notices,
            std::vector<std::string>{"relation \"nope\" does not exist, skipping"});
  ExpectDbError([&] { Run("ALTER TABLE t ADD COLUMN a int"); }, "42701",
                "column \"a\" of relation \"t\" already exists");
  EXPECT_EQ(Run("ALTER TABLE t ADD COLUMN IF NOT EXISTS a int").notices,
            std::vector<std::string>{"column \"a\" of relation \"t\" already exists, skipping"});
  ExpectDbError([&] { Run("ALTER TABLE t ADD COLUMN e int NOT NULL"); }, "23502",
                "column \"e\" of relation \"t\" contains null values");
  ExpectDbError([&] { Run("ALTER TABLE t DROP COLUMN zz"); }, "42703",
                "column \"zz\" of relation \"t\" does not exist");
  ExpectDbError([&] { Run("ALTER TABLE t ALTER COLUMN b TYPE int"); }, "42804",
                "column \"b\" cannot be cast automatically to type integer");
  ExpectDbError([&] { Run("ALTER TABLE t ALTER COLUMN c TYPE varchar(2)"); }, "22001",
                "value too long for type character varying(2)");
  ExpectDbError([&] { Run("ALTER TABLE t ALTER COLUMN a SET NOT NULL"); }, "23502",
                "column \"a\" of relation \"t\" contains null values");
  ExpectDbError([&] { Run("ALTER TABLE t ALTER COLUMN id DROP NOT NULL"); }, "42P16",
                "column \"id\" is in a primary key");
  ExpectDbError([&] { Run("ALTER TABLE t RENAME COLUMN zz TO y"); }, "42703",
                "column \"zz\" does not exist");
  ExpectDbError([&] { Run("ALTER TABLE t RENAME COLUMN a TO b"); }, "42701",
                "column \"b\" of relation \"t\" already exists");
  Run("CREATE TABLE u (x int)");
  ExpectDbError([&] { Run("ALTER TABLE t RENAME TO u"); }, "42P07",
                "relation \"u\" already exists");
  ExpectDbError([&] { Run("ALTER TABLE t ADD CHECK (id > 5)"); }, "23514",
                "check constraint \"t_id_check\" of relation \"t\" is violated by some row");
  ExpectDbError([&] { Run("ALTER TABLE t ADD COLUMN p int PRIMARY KEY"); }, "42P16",
                "multiple primary keys for table \"t\" are not allowed", 26);
  ExpectDbError([&] { Run("ALTER TABLE u DROP COLUMN x"); }, "0A000",
                "dropping the only column of a table is not supported (tables without columns "
                "are not)");
  ExpectDbError([&] { Run("ALTER TABLE t ALTER COLUMN a TYPE bigint USING a + 1"); }, "0A000",
                "ALTER COLUMN ... TYPE ... USING an expression other than the column or a cast "
                "of it is not supported");
  ExpectDbError([&] { Run("ALTER TABLE t OWNER TO someone"); }, "0A000",
                "ALTER TABLE ... OWNER is not supported");
  ExpectDbError([&] { Run("ALTER TABLE t DROP CONSTRAINT t_pkey"); }, "0A000",
                "ALTER TABLE ... DROP CONSTRAINT of a primary key is not supported");
  ExpectDbError([&] { Run("ALTER INDEX t_pkey RENAME TO k"); }, "0A000",
                "ALTER INDEX is not supported");
  ExpectDbError([&] { Run("CREATE TABLE nothing ()"); }, "0A000",
                "tables without columns are not supported");
  // Nothing of the failed statements stayed.
  EXPECT_THAT(Columns("t"), ::testing::ElementsAre("id integer not null", "a integer", "b boolean",
                                                   "c character varying(10)"));
}

TEST_F(AlterTableTest, ViewsKeepWhatTheyRead) {
  Run("CREATE TABLE t (id int PRIMARY KEY, a int, b int)");
  Run("INSERT INTO t VALUES (1, 2, 3)");
  Run("CREATE VIEW v AS SELECT * FROM t");
  Run("CREATE VIEW w AS SELECT a FROM v");
  ExpectDbError([&] { Run("ALTER TABLE t ALTER COLUMN a TYPE bigint"); }, "0A000",
                "cannot alter type of a column used by a view or rule\nDETAIL:  rule _RETURN on "
                "view v depends on column \"a\"");
  ExpectDbError([&] { Run("ALTER TABLE t DROP COLUMN b"); }, "2BP01",
                "cannot drop column b of table t because other objects depend on it\nDETAIL:  "
                "view v depends on column b of table t\nview w depends on view v");
  ExpectDbError([&] { Run("ALTER TABLE t RENAME COLUMN b TO bb"); }, "0A000",
                "cannot rename column \"b\" of table \"t\": view v reads it (renaming a column "
                "that a view reads is not supported)");
  ExpectDbError([&] { Run("ALTER TABLE v ADD COLUMN z int"); }, "42809",
                "ALTER action ADD COLUMN cannot be performed on relation \"v\"\nDETAIL:  This "
                "operation is not supported for views.");
  // A column added later is not in the view over *.
  Run("ALTER TABLE t ADD COLUMN c int DEFAULT 4");
  EXPECT_THAT(Query("SELECT * FROM v"), ::testing::ElementsAre("1|2|3"));
  StatementResult dropped = Run("ALTER TABLE t DROP COLUMN b CASCADE");
  EXPECT_THAT(dropped.notices,
              ::testing::ElementsAre("drop cascades to 2 other objects\nDETAIL:  drop cascades to "
                                     "view v\ndrop cascades to view w"));
  EXPECT_THAT(Query("SELECT count(*) FROM pg_class WHERE relname IN ('v', 'w')"),
              ::testing::ElementsAre("0"));
  EXPECT_THAT(Query("SELECT * FROM t"), ::testing::ElementsAre("1|2|4"));
}

TEST_F(AlterTableTest, RollbackAndFailuresLeaveTheTableAsItWas) {
  Run("CREATE TABLE t (id int PRIMARY KEY, a int UNIQUE)");
  Run("INSERT INTO t VALUES (1, 10), (2, 20)");
  Run("BEGIN");
  Run("ALTER TABLE t ADD COLUMN b text DEFAULT 'x', DROP COLUMN a");
  Run("INSERT INTO t VALUES (3, 'y')");
  EXPECT_THAT(Query("SELECT * FROM t ORDER BY id"), ::testing::ElementsAre("1|x", "2|x", "3|y"));
  Run("ROLLBACK");
  EXPECT_THAT(Query("SELECT * FROM t ORDER BY id"), ::testing::ElementsAre("1|10", "2|20"));
  // The second action fails: the first is undone with it.
  ExpectDbError([&] { Run("ALTER TABLE t ADD COLUMN c int DEFAULT 1, ADD COLUMN d int NOT NULL"); },
                "23502", "column \"d\" of relation \"t\" contains null values");
  EXPECT_THAT(Columns("t"), ::testing::ElementsAre("id integer not null", "a integer"));
  // The unique index still holds after a rewrite.
  Run("ALTER TABLE t ALTER COLUMN a TYPE bigint");
  ExpectDbError([&] { Run("INSERT INTO t VALUES (3, 10)"); }, "23505",
                "duplicate key value violates unique constraint \"t_a_key\"\nDETAIL:  Key (a)=(10) "
                "already exists.");
  Run("BEGIN");
  Run("ALTER TABLE t RENAME TO t2");
  Run("ALTER TABLE t2 RENAME COLUMN a TO aa");
  Run("COMMIT");
  EXPECT_THAT(Query("SELECT aa FROM t2 ORDER BY id"), ::testing::ElementsAre("10", "20"));
}

TEST_F(AlterTableTest, ChangesSurviveReplayAndCheckpoint) {
  Run("CREATE TABLE t (id int PRIMARY KEY, a int, b varchar(5) UNIQUE, CHECK (a > 0))");
  Run("INSERT INTO t SELECT g, g * 10, 'v' || g FROM generate_series(1, 3000) g");
  Run("DELETE FROM t WHERE id % 7 = 0");
  Run("ALTER TABLE t ADD COLUMN c int DEFAULT 7, ADD COLUMN s serial");
  Run("ALTER TABLE t DROP COLUMN a, ALTER COLUMN b TYPE varchar(20)");
  Run("ALTER TABLE t RENAME COLUMN c TO cc");
  Run("UPDATE t SET cc = id WHERE id < 10");
  Run("ALTER TABLE t ADD CONSTRAINT cc_positive CHECK (cc > 0), ALTER COLUMN cc SET NOT NULL");
  Run("ALTER TABLE t ALTER COLUMN cc SET DEFAULT 1");
  Run("INSERT INTO t (id, b) VALUES (5000, 'new')");
  const std::string summary = "SELECT count(*), sum(cc), sum(s), max(s) FROM t";
  const std::vector<std::string> rows = Query(summary);
  const std::vector<std::string> columns = Columns("t");
  // 3000 rows less the 428 multiples of 7, plus id 5000: cc is 7 but for
  // ids 1..9 (cc = id, 7 deleted) and 5000 (the new default, 1); s numbers
  // the rows in order.
  EXPECT_THAT(rows, ::testing::ElementsAre("2573|17987|3311451|2573"));
  EXPECT_THAT(columns, ::testing::ElementsAre("id integer not null", "b character varying(20)",
                                              "cc integer not null", "s integer not null"));
  for (int round = 0; round < 2; round++) {
    if (round == 1) engine_->database().Checkpoint();
    Reopen();  // round 0: the log replayed; round 1: the checkpoint loaded
    EXPECT_EQ(Query(summary), rows) << round;
    EXPECT_EQ(Columns("t"), columns) << round;
    ExpectDbError([&] { Run("UPDATE t SET cc = -1 WHERE id = 1"); }, "23514",
                  "new row for relation \"t\" violates check constraint \"cc_positive\"\nDETAIL:  "
                  "Failing row contains (1, v1, -1, 1).");
    ExpectDbError([&] { Run("INSERT INTO t (id, b) VALUES (6000, 'v1')"); }, "23505",
                  "duplicate key value violates unique constraint \"t_b_key\"\nDETAIL:  Key "
                  "(b)=(v1) already exists.");
  }
  // The identity counter moved on: the two failed INSERTs drew 2574 and
  // 2575 (a failed statement does not give a value back, as with sequences).
  EXPECT_THAT(Query("INSERT INTO t (id, b) VALUES (7000, 'x') RETURNING s, cc"),
              ::testing::ElementsAre("2576|1"));
}

TEST_F(AlterTableTest, ForeignKeysFollowMovedColumnsAndRenamesAcrossRestarts) {
  Run("CREATE TABLE p (id int PRIMARY KEY, x int, code int UNIQUE)");
  Run("CREATE TABLE c (id int PRIMARY KEY, pcode int REFERENCES p (code))");
  Run("INSERT INTO p VALUES (1, 10, 100), (2, 20, 200)");
  Run("INSERT INTO c VALUES (1, 100)");
  Run("ALTER TABLE p DROP COLUMN x");  // code moves to the second column
  Run("ALTER TABLE p RENAME TO p2");
  Run("ALTER TABLE c ADD COLUMN q int REFERENCES p2 (id)");
  ExpectDbError([&] { Run("ALTER TABLE p2 DROP COLUMN code"); }, "2BP01",
                "cannot drop column code of table p2 because other objects depend on it\nDETAIL:  "
                "constraint c_pcode_fkey on table c depends on column code of table p2");
  for (int round = 0; round < 3; round++) {
    if (round == 2) engine_->database().Checkpoint();
    if (round > 0) Reopen();  // the log replayed, then the checkpoint loaded
    ExpectDbError([&] { Run("INSERT INTO c VALUES (2, 1, NULL)"); }, "23503",
                  "insert or update on table \"c\" violates foreign key constraint \"c_pcode_fkey\""
                  "\nDETAIL:  Key (pcode)=(1) is not present in table \"p2\".");
    ExpectDbError([&] { Run("DELETE FROM p2 WHERE code = 100"); }, "23503",
                  "update or delete on table \"p2\" violates foreign key constraint "
                  "\"c_pcode_fkey\" on table \"c\"\nDETAIL:  Key (code)=(100) is still "
                  "referenced from table \"c\".");
  }
  Run("INSERT INTO c VALUES (2, 200, 2)");
  EXPECT_THAT(Query("SELECT * FROM c ORDER BY id"), ::testing::ElementsAre("1|100|", "2|200|2"));
}

}  // namespace
}  // namespace forktail::testing
