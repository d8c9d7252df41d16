// What `pgbench -i` and pgbench's runs need from the session layer, in one
// process: ALTER TABLE ADD PRIMARY KEY over loaded rows (errors as
// PostgreSQL's, rollback in a block), COPY ... WITH (FREEZE ON), Parse of a
// second session while a first one's block holds the transaction thread
// (pgbench -M prepared -j 1), and prepared statements across DROP/CREATE.
#include <chrono>

#include "tests/olap/session/session_test_util.h"

namespace forktail::testing {
namespace {

using ::testing::ElementsAre;

class EnginePgbenchTest : public EngineFixture {
 protected:
  void SetUp() override {
    Open(InProcess(/*hold_ms=*/2000));
    Run("create table pgbench_accounts(aid int not null,bid int,abalance int,filler char(84)) "
        "with (fillfactor=100)");
  }
};

TEST_F(EnginePgbenchTest, CopyFreezeThenAddPrimaryKey) {
  Run("begin");
  Run("truncate table pgbench_accounts");
  EXPECT_EQ(Run("copy pgbench_accounts from stdin with (freeze on)").command_tag, "COPY_IN");
  std::string data;
  for (int a = 1; a <= 2000; a++) data += std::to_string(a) + "\t1\t0\t\n";
  session_->CopyIn(data);
  EXPECT_EQ(session_->CopyDone().command_tag, "COPY 2000");
  Run("commit");
  EXPECT_EQ(Run("vacuum analyze pgbench_accounts").command_tag, "VACUUM");
  EXPECT_EQ(Run("alter table pgbench_accounts add primary key (aid)").command_tag, "ALTER TABLE");
  EXPECT_EQ(Run("update pgbench_accounts set abalance = abalance + 5 where aid = 1234").command_tag,
            "UPDATE 1");
  EXPECT_THAT(Query("select abalance from pgbench_accounts where aid = 1234"), ElementsAre("5"));
  ExpectDbError([&] { Run("insert into pgbench_accounts values (7, 1, 0, '')"); }, "23505",
                "duplicate key value violates unique constraint \"pgbench_accounts_pkey\"\nDETAIL: "
                " Key (aid)=(7) already exists.");
  ExpectDbError([&] { Run("alter table pgbench_accounts add primary key (bid)"); }, "42P16",
                "multiple primary keys for table \"pgbench_accounts\" are not allowed");
  ExpectDbError([&] { Run("copy pgbench_accounts from stdin with (freeze maybe)"); }, "42601",
                "freeze requires a Boolean value");
}

TEST_F(EnginePgbenchTest, AddPrimaryKeyErrorsAndRollback) {
  Run("insert into pgbench_accounts values (5, 1, 0, ''), (6, 1, 0, ''), (5, 2, 0, '')");
  ExpectDbError([&] { Run("alter table pgbench_accounts add primary key (aid)"); }, "23505",
                "could not create unique index \"pgbench_accounts_pkey\"\nDETAIL:  Key (aid)=(5) "
                "is duplicated.");
  Run("insert into pgbench_accounts values (8, null, 0, '')");
  ExpectDbError([&] { Run("alter table pgbench_accounts add primary key (bid)"); }, "23502",
                "column \"bid\" of relation \"pgbench_accounts\" contains null values");
  ExpectDbError([&] { Run("alter table pgbench_accounts add primary key (nope)"); }, "42703",
                "column \"nope\" of relation \"pgbench_accounts\" does not exist");
  ExpectDbError([&] { Run("alter table pgbench_accounts add primary key (aid, aid)"); }, "42701",
                "column \"aid\" appears twice in primary key constraint");
  Run("delete from pgbench_accounts where bid = 2");
  // In a rolled-back block the key goes away again.
  Run("begin");
  Run("alter table pgbench_accounts add primary key (aid)");
  ExpectDbError([&] { Run("insert into pgbench_accounts values (5, 1, 0, '')"); }, "23505",
                "duplicate key value violates unique constraint \"pgbench_accounts_pkey\"\nDETAIL: "
                " Key (aid)=(5) already exists.");
  Run("rollback");
  EXPECT_EQ(Run("insert into pgbench_accounts values (5, 1, 0, '')").command_tag, "INSERT 0 1");
  Run("delete from pgbench_accounts where aid = 5 and bid = 1");
  Run("begin");
  Run("alter table pgbench_accounts add primary key (aid)");
  Run("commit");
  ExpectDbError([&] { Run("insert into pgbench_accounts values (6, 1, 0, '')"); }, "23505",
                "duplicate key value violates unique constraint \"pgbench_accounts_pkey\"\nDETAIL: "
                " Key (aid)=(6) already exists.");
}

// pgbench -M prepared -c 2 -j 1: client B's first Parse arrives while client
// A's block is open, and pgbench's one thread waits for
// B's answer before it sends A's next statement. Parse must not queue behind
// the block (the holding blocks of before issue 15 timed out with 25P03).
TEST_F(EnginePgbenchTest, PrepareDoesNotWaitForAnotherSessionsBlock) {
  Run("insert into pgbench_accounts values (1, 1, 0, ''), (2, 1, 0, '')");
  Run("alter table pgbench_accounts add primary key (aid)");
  SqlSession other(*engine_);
  Run("begin");
  auto update =
      session_->Prepare("UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2;", {});
  session_->ExecutePrepared(*update, {Value::Integer(3), Value::Integer(1)});
  auto start = std::chrono::steady_clock::now();
  auto select = other.Prepare("SELECT abalance FROM pgbench_accounts WHERE aid = $1;", {});
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(select->parameter_types, std::vector<Type>{Type::Integer()});
  ASSERT_EQ(select->columns.size(), 1u);
  EXPECT_EQ(select->columns[0].name, "abalance");
  session_->ExecutePrepared(*update, {Value::Integer(4), Value::Integer(2)});
  EXPECT_EQ(Run("commit").command_tag, "COMMIT");  // not 25P03
  EXPECT_LT(waited, 1.5) << "Parse waited for the other session's block";
  EXPECT_THAT(Lines(other.ExecutePrepared(*select, {Value::Integer(2)})), ElementsAre("4"));
}

TEST_F(EnginePgbenchTest, PreparedStatementsAcrossDropAndCreate) {
  Run("create table t (a int, b text)");
  Run("insert into t values (1, 'x')");
  SqlSession other(*engine_);
  auto same = other.Prepare("select a from t", {});
  auto star = other.Prepare("select * from t", {});
  // Another session's CREATE TABLE is visible to Parse once committed.
  Run("create table u (c int)");
  EXPECT_EQ(other.Prepare("select c from u", {})->columns.size(), 1u);
  Run("drop table t");
  ExpectDbError([&] { other.ExecutePrepared(*same, {}); }, "42P01", "relation \"t\" does not exist",
                15);
  Run("create table t (a int, b int, c int)");
  Run("insert into t values (2, 3, 4)");
  // Re-bound: same result shape works, a different one is 0A000.
  EXPECT_THAT(Lines(other.ExecutePrepared(*same, {})), ElementsAre("2"));
  ExpectDbError([&] { other.ExecutePrepared(*star, {}); }, "0A000",
                "cached plan must not change result type");
  EXPECT_EQ(other.status(), TxnStatus::kIdle);
  // DDL inside the session's own block is visible to its own Parse.
  Run("begin");
  Run("create table v (d int)");
  EXPECT_EQ(session_->Prepare("select d from v", {})->columns.size(), 1u);
  ExpectDbError([&] { other.Prepare("select d from v", {}); }, "42P01",
                "relation \"v\" does not exist", 15);
  Run("rollback");
}

}  // namespace
}  // namespace forktail::testing
