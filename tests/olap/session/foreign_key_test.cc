// FOREIGN KEY constraints through SQL sessions: PostgreSQL 15's messages,
// DETAILs, HINTs, CONTEXTs and SQLSTATEs (each checked against it with the
// same statements), the ON DELETE / ON UPDATE actions and their cascades, a
// failing statement leaving nothing behind, COPY, DDL that depends on a
// foreign key (DROP TABLE / INDEX / CONSTRAINT, TRUNCATE), persistence
// across restarts (log replay and checkpoint), DDL rolled back with its
// transaction, and optimistic blocks that race a parent's delete against a
// child's insert. tests/server/e2e/slt/foreign_keys.slt has more of the
// behaviour, run against PostgreSQL itself.
#include "tests/olap/session/session_test_util.h"

namespace forktail::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class ForeignKeyTest : public EngineFixture {
 protected:
  void SetUp() override {
    Open(InProcess());
    Run("CREATE TABLE p (id int PRIMARY KEY, code varchar(10) UNIQUE)");
    Run("INSERT INTO p VALUES (1, 'a'), (2, 'b')");
  }
  // Closes the engine (no checkpoint) and opens it again from its files.
  void Reopen() {
    session_.reset();
    engine_.reset();
    Open(InProcess());
  }
  // The error a statement throws, with its HINT.
  static std::pair<std::string, std::string> ErrorOf(const std::function<void()>& f) {
    try {
      f();
    } catch (const DbError& e) {
      return {std::string(e.sqlstate()) + " " + e.what(), e.hint()};
    }
    return {"no error", ""};
  }
};

TEST_F(ForeignKeyTest, AReferencingRowMustFindItsKey) {
  Run("CREATE TABLE c (id int PRIMARY KEY, pid int REFERENCES p ON DELETE CASCADE, code text "
      "REFERENCES p (code) ON UPDATE CASCADE)");
  Run("INSERT INTO c VALUES (1, 1, 'a')");
  ExpectDbError([&] { Run("INSERT INTO c VALUES (2, 3, NULL)"); }, "23503",
                "insert or update on table \"c\" violates foreign key constraint \"c_pid_fkey\"\n"
                "DETAIL:  Key (pid)=(3) is not present in table \"p\".");
  ExpectDbError([&] { Run("INSERT INTO c VALUES (2, NULL, 'zz')"); }, "23503",
                "insert or update on table \"c\" violates foreign key constraint \"c_code_fkey\"\n"
                "DETAIL:  Key (code)=(zz) is not present in table \"p\".");
  ExpectDbError([&] { Run("UPDATE c SET pid = 9"); }, "23503",
                "insert or update on table \"c\" violates foreign key constraint \"c_pid_fkey\"\n"
                "DETAIL:  Key (pid)=(9) is not present in table \"p\".");
  // The bad row is the last of three: none of them stays.
  ExpectDbError([&] { Run("INSERT INTO c VALUES (5, 2, 'b'), (6, NULL, NULL), (7, 2, 'x')"); },
                "23503",
                "insert or update on table \"c\" violates foreign key constraint \"c_code_fkey\"\n"
                "DETAIL:  Key (code)=(x) is not present in table \"p\".");
  EXPECT_THAT(Query("SELECT id, pid, code FROM c"), ElementsAre("1|1|a"));

  // Several columns: the key as PostgreSQL shows it; MATCH FULL's rule.
  Run("CREATE TABLE mp (a int, b text, PRIMARY KEY (a, b))");
  Run("CREATE TABLE m (x int, a int, b text, FOREIGN KEY (a, b) REFERENCES mp MATCH FULL)");
  ExpectDbError([&] { Run("INSERT INTO m VALUES (1, 5, 'it''s')"); }, "23503",
                "insert or update on table \"m\" violates foreign key constraint \"m_a_b_fkey\"\n"
                "DETAIL:  Key (a, b)=(5, it's) is not present in table \"mp\".");
  ExpectDbError([&] { Run("INSERT INTO m VALUES (1, 5, NULL)"); }, "23503",
                "insert or update on table \"m\" violates foreign key constraint \"m_a_b_fkey\"\n"
                "DETAIL:  MATCH FULL does not allow mixing of null and nonnull key values.");
  Run("INSERT INTO mp VALUES (5, 'q')");
  Run("INSERT INTO m VALUES (1, 5, 'q'), (2, NULL, NULL)");
  ExpectDbError(
      [&] { Run("DELETE FROM mp"); }, "23503",
      "update or delete on table \"mp\" violates foreign key constraint \"m_a_b_fkey\" on "
      "table \"m\"\nDETAIL:  Key (a, b)=(5, q) is still referenced from table \"m\".");
  ExpectDbError(
      [&] { Run("UPDATE mp SET b = 'r'"); }, "23503",
      "update or delete on table \"mp\" violates foreign key constraint \"m_a_b_fkey\" on "
      "table \"m\"\nDETAIL:  Key (a, b)=(5, q) is still referenced from table \"m\".");
}

TEST_F(ForeignKeyTest, ActionsCascadeAndACascadeThatMeetsRestrictFailsWhole) {
  Run("CREATE TABLE c (id int PRIMARY KEY, pid int REFERENCES p ON DELETE CASCADE, code text "
      "REFERENCES p (code) ON UPDATE CASCADE)");
  Run("CREATE TABLE gc (cid int REFERENCES c ON DELETE RESTRICT)");
  Run("INSERT INTO c VALUES (1, 1, 'a'), (2, 2, 'a')");
  Run("INSERT INTO gc VALUES (1)");
  // p's row 1: c_pid_fkey's cascade (made first) deletes c's row 1, then
  // c_code_fkey finds row 2 still using 'a', before the cascade's own check.
  ExpectDbError(
      [&] { Run("DELETE FROM p WHERE id = 1"); }, "23503",
      "update or delete on table \"p\" violates foreign key constraint \"c_code_fkey\" on "
      "table \"c\"\nDETAIL:  Key (code)=(a) is still referenced from table \"c\".");
  Run("UPDATE c SET code = 'b' WHERE id = 2");
  ExpectDbError(
      [&] { Run("DELETE FROM p WHERE id = 1"); }, "23503",
      "update or delete on table \"c\" violates foreign key constraint \"gc_cid_fkey\" on "
      "table \"gc\"\nDETAIL:  Key (id)=(1) is still referenced from table \"gc\".");
  EXPECT_THAT(Query("SELECT count(*) FROM p"), ElementsAre("2"));
  EXPECT_THAT(Query("SELECT count(*) FROM c"), ElementsAre("2"));
  EXPECT_EQ(Run("UPDATE p SET code = 'A' WHERE id = 1").command_tag, "UPDATE 1");
  EXPECT_THAT(Query("SELECT id, pid, code FROM c ORDER BY id"), ElementsAre("1|1|A", "2|2|b"));
  Run("DELETE FROM gc");
  EXPECT_EQ(Run("DELETE FROM p WHERE id = 2").command_tag, "DELETE 1");
  EXPECT_THAT(Query("SELECT id FROM c"), ElementsAre("1"));
}

TEST_F(ForeignKeyTest, ErrorsInsideAnActionCarryItsStatementAsContext) {
  Run("CREATE TABLE chk (id int, pid int REFERENCES p ON UPDATE CASCADE CHECK (pid < 10))");
  Run("INSERT INTO chk VALUES (5, 2)");
  ExpectDbError(
      [&] { Run("UPDATE p SET id = 20 WHERE id = 2"); }, "23514",
      "new row for relation \"chk\" violates check constraint \"chk_pid_check\"\n"
      "DETAIL:  Failing row contains (5, 20).\n"
      "CONTEXT:  SQL statement \"UPDATE ONLY \"public\".\"chk\" SET \"pid\" = $1 WHERE $2 "
      "OPERATOR(pg_catalog.=) \"pid\"\"");
  Run("CREATE TABLE sn (id int, pid int NOT NULL REFERENCES p ON DELETE SET NULL)");
  Run("INSERT INTO sn VALUES (7, 1)");
  auto [error, hint] = ErrorOf([&] { Run("DELETE FROM p WHERE id = 1"); });
  EXPECT_THAT(error, HasSubstr("23502 null value in column \"pid\" of relation \"sn\" violates "
                               "not-null constraint"));
  EXPECT_THAT(error, HasSubstr("\nCONTEXT:  SQL statement \"UPDATE ONLY \"public\".\"sn\" SET "
                               "\"pid\" = NULL WHERE $1 OPERATOR(pg_catalog.=) \"pid\"\""));
  EXPECT_THAT(Query("SELECT id, pid FROM chk"), ElementsAre("5|2"));
}

TEST_F(ForeignKeyTest, SetDefaultNeedsTheDefaultsKey) {
  Run("CREATE TABLE sd (pid int DEFAULT 0 REFERENCES p ON DELETE SET DEFAULT)");
  Run("INSERT INTO sd VALUES (2)");
  ExpectDbError([&] { Run("DELETE FROM p WHERE id = 2"); }, "23503",
                "insert or update on table \"sd\" violates foreign key constraint \"sd_pid_fkey\"\n"
                "DETAIL:  Key (pid)=(0) is not present in table \"p\".");
  Run("INSERT INTO p VALUES (0, 'zero')");
  Run("DELETE FROM p WHERE id = 2");
  EXPECT_THAT(Query("SELECT pid FROM sd"), ElementsAre("0"));
  // Deleting the default's own row writes the same key again: still referenced.
  ExpectDbError(
      [&] { Run("DELETE FROM p WHERE id = 0"); }, "23503",
      "update or delete on table \"p\" violates foreign key constraint \"sd_pid_fkey\" on "
      "table \"sd\"\nDETAIL:  Key (id)=(0) is still referenced from table \"sd\".");
}

TEST_F(ForeignKeyTest, NoActionLetsAKeyGoThatTheStatementPutsBackRestrictDoesNot) {
  Run("CREATE TABLE n (code text REFERENCES p (code) ON UPDATE NO ACTION)");
  Run("INSERT INTO n VALUES ('a')");
  Run("INSERT INTO p VALUES (1, 'x'), (9, 'a') ON CONFLICT (id) DO UPDATE SET code = 'z'");
  EXPECT_THAT(Query("SELECT id, code FROM p ORDER BY id"), ElementsAre("1|z", "2|b", "9|a"));
  Run("CREATE TABLE r (code text REFERENCES p (code) ON UPDATE RESTRICT)");
  Run("INSERT INTO r VALUES ('a')");
  ExpectDbError(
      [&] {
        Run("INSERT INTO p VALUES (9, 'x'), (3, 'a') ON CONFLICT (id) DO UPDATE SET code = 'y'");
      },
      "23503",
      "update or delete on table \"p\" violates foreign key constraint \"r_code_fkey\" on table "
      "\"r\"\nDETAIL:  Key (code)=(a) is still referenced from table \"r\".");
}

TEST_F(ForeignKeyTest, NamesAsPostgresChoosesThem) {
  Run("CREATE TABLE c (pid int REFERENCES p, pid2 int REFERENCES p, CONSTRAINT c_pid_fkey1 CHECK "
      "(pid > 0))");
  Run("CREATE TABLE q (a int, b int, PRIMARY KEY (a, b))");
  Run("CREATE TABLE d (a int, b int, FOREIGN KEY (a) REFERENCES p, FOREIGN KEY (a) REFERENCES p, "
      "FOREIGN KEY (a, b) REFERENCES q)");
  ExpectDbError(
      [&] {
        Run("CREATE TABLE e (x int CONSTRAINT named REFERENCES p, CONSTRAINT named "
            "CHECK (x > 0))");
      },
      "42710", "constraint \"named\" for relation \"e\" already exists");
  Run("CREATE TABLE tttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt "
      "(cccccccccccccccccccccccccccccccccccccccccccc int REFERENCES p)");
  EXPECT_THAT(Query("SELECT conname FROM pg_constraint WHERE contype = 'f' ORDER BY conname"),
              ElementsAre("c_pid2_fkey", "c_pid_fkey", "d_a_b_fkey", "d_a_fkey", "d_a_fkey1",
                          "ttttttttttttttttttttttttttttt_cccccccccccccccccccccccccccc_fkey"));
}

TEST_F(ForeignKeyTest, DropAndTruncateOfAReferencedTable) {
  Run("CREATE TABLE c (id int PRIMARY KEY, pid int REFERENCES p)");
  Run("CREATE TABLE gc (cid int REFERENCES c)");
  Run("INSERT INTO c VALUES (1, 1)");
  Run("INSERT INTO gc VALUES (1)");
  Run("CREATE VIEW pv AS SELECT id FROM p");
  auto [drop, drop_hint] = ErrorOf([&] { Run("DROP TABLE p"); });
  EXPECT_EQ(drop,
            "2BP01 cannot drop table p because other objects depend on it\nDETAIL:  constraint "
            "c_pid_fkey on table c depends on table p\nview pv depends on table p");
  EXPECT_EQ(drop_hint, "Use DROP ... CASCADE to drop the dependent objects too.");
  auto [truncate, truncate_hint] = ErrorOf([&] { Run("TRUNCATE p"); });
  EXPECT_EQ(truncate,
            "0A000 cannot truncate a table referenced in a foreign key constraint\nDETAIL:  Table "
            "\"c\" references \"p\".");
  EXPECT_EQ(truncate_hint, "Truncate table \"c\" at the same time, or use TRUNCATE ... CASCADE.");
  ExpectDbError([&] { Run("TRUNCATE p, c"); }, "0A000",
                "cannot truncate a table referenced in a foreign key constraint\nDETAIL:  Table "
                "\"gc\" references \"c\".");
  StatementResult cascade = Run("TRUNCATE p CASCADE");
  EXPECT_THAT(cascade.notices,
              ElementsAre("truncate cascades to table \"c\"", "truncate cascades to table \"gc\""));
  EXPECT_THAT(Query("SELECT (SELECT count(*) FROM p), (SELECT count(*) FROM c), (SELECT count(*) "
                    "FROM gc)"),
              ElementsAre("0|0|0"));
  EXPECT_THAT(Run("DROP TABLE p CASCADE").notices,
              ElementsAre("drop cascades to 2 other objects\nDETAIL:  drop cascades to constraint "
                          "c_pid_fkey on table c\ndrop cascades to view pv"));
  Run("INSERT INTO c VALUES (2, 99)");  // its foreign key went with p
  // Tables that reference each other go together.
  EXPECT_EQ(Run("DROP TABLE c, gc").command_tag, "DROP TABLE");
}

TEST_F(ForeignKeyTest, DropIndexAndConstraintThatAForeignKeyNeeds) {
  Run("CREATE TABLE u (id int, k int, CONSTRAINT u_k UNIQUE (k))");
  Run("CREATE UNIQUE INDEX u_id_idx ON u (id)");
  Run("CREATE TABLE v (k int REFERENCES u (k), id int REFERENCES u (id))");
  auto [index, index_hint] = ErrorOf([&] { Run("DROP INDEX u_id_idx"); });
  EXPECT_EQ(index,
            "2BP01 cannot drop index u_id_idx because other objects depend on it\nDETAIL:  "
            "constraint v_id_fkey on table v depends on index u_id_idx");
  EXPECT_EQ(index_hint, "Use DROP ... CASCADE to drop the dependent objects too.");
  ExpectDbError([&] { Run("ALTER TABLE u DROP CONSTRAINT u_k"); }, "2BP01",
                "cannot drop constraint u_k on table u because other objects depend on it\n"
                "DETAIL:  constraint v_k_fkey on table v depends on index u_k");
  EXPECT_THAT(Run("DROP INDEX u_id_idx CASCADE").notices,
              ElementsAre("drop cascades to constraint v_id_fkey on table v"));
  EXPECT_THAT(Run("ALTER TABLE u DROP CONSTRAINT u_k CASCADE").notices,
              ElementsAre("drop cascades to constraint v_k_fkey on table v"));
  Run("INSERT INTO v VALUES (1, 1)");
}

TEST_F(ForeignKeyTest, AlterTableAddChecksTheRowsAndDropConstraint) {
  Run("CREATE TABLE c (id int, pid int)");
  Run("INSERT INTO c VALUES (1, 1), (2, 5), (3, NULL)");
  ExpectDbError([&] { Run("ALTER TABLE c ADD FOREIGN KEY (pid) REFERENCES p"); }, "23503",
                "insert or update on table \"c\" violates foreign key constraint \"c_pid_fkey\"\n"
                "DETAIL:  Key (pid)=(5) is not present in table \"p\".");
  Run("DELETE FROM c WHERE id = 2");
  Run("ALTER TABLE c ADD CONSTRAINT cp FOREIGN KEY (pid) REFERENCES p ON DELETE CASCADE");
  ExpectDbError([&] { Run("ALTER TABLE c ADD CONSTRAINT cp FOREIGN KEY (pid) REFERENCES p"); },
                "42710", "constraint \"cp\" for relation \"c\" already exists");
  Run("DELETE FROM p WHERE id = 1");
  EXPECT_THAT(Query("SELECT id FROM c"), ElementsAre("3"));
  ExpectDbError([&] { Run("ALTER TABLE c DROP CONSTRAINT nosuch"); }, "42704",
                "constraint \"nosuch\" of relation \"c\" does not exist");
  EXPECT_THAT(Run("ALTER TABLE c DROP CONSTRAINT IF EXISTS nosuch").notices,
              ElementsAre("constraint \"nosuch\" of relation \"c\" does not exist, skipping"));
  Run("ALTER TABLE c DROP CONSTRAINT cp");
  Run("INSERT INTO c VALUES (4, 44)");
  ExpectDbError([&] { Run("CREATE TABLE d (x int REFERENCES p DEFERRABLE INITIALLY DEFERRED)"); },
                "0A000",
                "DEFERRABLE foreign keys are not supported: Forktail checks every foreign key when "
                "its statement ends");
}

TEST_F(ForeignKeyTest, CopyChecksWhenItEnds) {
  Run("CREATE TABLE c (id int, pid int REFERENCES p)");
  Run("COPY c FROM STDIN");
  session_->CopyIn("1\t1\n2\t9\n");
  ExpectDbError([&] { session_->CopyDone(); }, "23503",
                "insert or update on table \"c\" violates foreign key constraint \"c_pid_fkey\"\n"
                "DETAIL:  Key (pid)=(9) is not present in table \"p\".");
  EXPECT_THAT(Query("SELECT count(*) FROM c"), ElementsAre("0"));
  // A row may reference one later in the input.
  Run("CREATE TABLE s (id int PRIMARY KEY, parent int REFERENCES s)");
  Run("COPY s FROM STDIN");
  session_->CopyIn("1\t2\n2\t\\N\n");
  EXPECT_EQ(session_->CopyDone().command_tag, "COPY 2");
}

TEST_F(ForeignKeyTest, SurvivesRestartsFromTheLogAndFromACheckpoint) {
  Run("CREATE TABLE c (id int, pid int REFERENCES p ON DELETE CASCADE, code varchar(10))");
  Run("ALTER TABLE c ADD CONSTRAINT c_code FOREIGN KEY (code) REFERENCES p (code) MATCH FULL");
  Run("CREATE TABLE gone (pid int CONSTRAINT gone_fk REFERENCES p)");
  Run("ALTER TABLE gone DROP CONSTRAINT gone_fk");
  Run("INSERT INTO c VALUES (1, 1, 'a'), (2, 2, 'b')");
  const std::vector<std::string> defs = {
      "c_code|FOREIGN KEY (code) REFERENCES p(code) MATCH FULL",
      "c_pid_fkey|FOREIGN KEY (pid) REFERENCES p(id) ON DELETE CASCADE"};
  const std::string query =
      "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE contype = 'f' ORDER BY 1";
  auto enforced = [&] {
    ExpectDbError([&] { Run("INSERT INTO c VALUES (3, 7, NULL)"); }, "23503",
                  "insert or update on table \"c\" violates foreign key constraint \"c_pid_fkey\"\n"
                  "DETAIL:  Key (pid)=(7) is not present in table \"p\".");
    Run("INSERT INTO gone VALUES (42)");
  };
  Reopen();  // replays the log
  EXPECT_FALSE(engine_->database().recovery_report().has_checkpoint);
  EXPECT_EQ(Query(query), defs);
  enforced();
  Run("DELETE FROM p WHERE id = 2");
  EXPECT_THAT(Query("SELECT id FROM c"), ElementsAre("1"));
  engine_->database().Checkpoint();
  Reopen();  // loads the checkpoint
  EXPECT_TRUE(engine_->database().recovery_report().has_checkpoint);
  EXPECT_EQ(Query(query), defs);
  enforced();
  // c_pid_fkey's cascade goes first (it was made first), then c_code's check
  // finds the row that references 'a' by code alone.
  Run("INSERT INTO c VALUES (3, NULL, 'a')");
  ExpectDbError([&] { Run("DELETE FROM p"); }, "23503",
                "update or delete on table \"p\" violates foreign key constraint \"c_code\" on "
                "table \"c\"\nDETAIL:  Key (code)=(a) is still referenced from table \"c\".");
}

TEST_F(ForeignKeyTest, DdlRollsBackWithItsTransaction) {
  Run("CREATE TABLE c (id int, pid int REFERENCES p)");
  Run("BEGIN");
  Run("ALTER TABLE c DROP CONSTRAINT c_pid_fkey");
  Run("INSERT INTO c VALUES (1, 99)");
  Run("ROLLBACK");
  ExpectDbError([&] { Run("INSERT INTO c VALUES (1, 99)"); }, "23503",
                "insert or update on table \"c\" violates foreign key constraint \"c_pid_fkey\"\n"
                "DETAIL:  Key (pid)=(99) is not present in table \"p\".");
  // One implicit transaction: the failing INSERT takes the constraint back.
  ExpectDbError(
      [&] {
        Run("ALTER TABLE c ADD CONSTRAINT two FOREIGN KEY (pid) REFERENCES p; INSERT INTO c "
            "VALUES (2, 98)");
      },
      "23503",
      "insert or update on table \"c\" violates foreign key constraint \"c_pid_fkey\"\n"
      "DETAIL:  Key (pid)=(98) is not present in table \"p\".");
  EXPECT_THAT(Query("SELECT conname FROM pg_constraint WHERE contype = 'f'"),
              ElementsAre("c_pid_fkey"));
  // DROP TABLE ... CASCADE rolled back gives the constraint back.
  Run("BEGIN");
  Run("DROP TABLE p CASCADE");
  Run("ROLLBACK");
  EXPECT_THAT(Query("SELECT conname FROM pg_constraint WHERE contype = 'f'"),
              ElementsAre("c_pid_fkey"));
}

TEST_F(ForeignKeyTest, ConcurrentBlocksCannotBothCommitAnOrphan) {
  Run("CREATE TABLE c (id int, pid int REFERENCES p)");
  SqlSession other(*engine_);
  // One block deletes the parent while another inserts its child; each
  // alone is fine, so both steps pass, but the second COMMIT runs its block
  // again after the first and the child no longer finds its parent.
  Run("BEGIN");
  other.Execute("BEGIN");
  EXPECT_EQ(Run("DELETE FROM p WHERE id = 2").command_tag, "DELETE 1");
  EXPECT_EQ(other.Execute("INSERT INTO c VALUES (1, 2)").back().command_tag, "INSERT 0 1");
  Run("COMMIT");
  auto [error, hint] = ErrorOf([&] { other.Execute("COMMIT"); });
  EXPECT_THAT(error, HasSubstr("40001 could not serialize access due to a concurrent update"));
  EXPECT_THAT(error, HasSubstr("Key (pid)=(2) is not present in table \"p\""));
  EXPECT_THAT(Query("SELECT count(*) FROM c"), ElementsAre("0"));
  // And the other order: the child commits first, the parent's delete fails.
  Run("BEGIN");
  other.Execute("BEGIN");
  Run("DELETE FROM p WHERE id = 1");
  other.Execute("INSERT INTO c VALUES (1, 1)");
  other.Execute("COMMIT");
  auto [error2, hint2] = ErrorOf([&] { Run("COMMIT"); });
  EXPECT_THAT(error2, HasSubstr("40001 could not serialize access due to a concurrent update"));
  EXPECT_THAT(Query("SELECT id FROM p"), ElementsAre("1"));
  EXPECT_THAT(Query("SELECT pid FROM c"), ElementsAre("1"));
}

}  // namespace
}  // namespace forktail::testing
