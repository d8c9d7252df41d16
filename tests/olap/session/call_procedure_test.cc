// CALL name(arguments): a stored procedure the application registered, run
// as one SQL statement (session_call.cc): arguments cast to the C++
// parameters' types, the rows it emits as the result with the columns it
// declares, PostgreSQL's errors, and the same transaction rules as a write
// (its own transaction; inside a block, run again at COMMIT).
#include "tests/olap/session/session_test_util.h"

namespace forktail::testing {
namespace {

using ::testing::ElementsAre;

class CallProcedureTest : public EngineFixture {
 protected:
  void SetUp() override {
    Open(InProcess());
    other_ = std::make_unique<SqlSession>(*engine_);
    Run("CREATE TABLE acct (id int PRIMARY KEY, balance bigint)");
    Run("INSERT INTO acct VALUES (1, 100), (2, 100)");
    Database& db = engine_->database();
    // Moves money and answers with both balances; refuses an overdraft.
    db.RegisterProcedure(
        "transfer",
        [](Transaction& txn, int32_t from, int32_t to, int64_t amount) {
          std::optional<Row> a = txn.Get("acct", {Value::Integer(from)});
          std::optional<Row> b = txn.Get("acct", {Value::Integer(to)});
          if (!a || !b) txn.Abort("no such account");
          int64_t left = (*a)[1].GetInt() - amount;
          if (left < 0) txn.Abort("insufficient funds");
          txn.UpdateByKey("acct", {Value::Integer(from)}, {{"balance", Value::BigInt(left)}});
          int64_t right = (*b)[1].GetInt() + amount;
          txn.UpdateByKey("acct", {Value::Integer(to)}, {{"balance", Value::BigInt(right)}});
          txn.Emit({Value::Integer(from), Value::BigInt(left)});
          txn.Emit({Value::Integer(to), Value::BigInt(right)});
        },
        {{"id", Type::Integer()}, {"balance", Type::BigInt()}});
    db.RegisterProcedure("touch", [](Transaction& txn, int32_t id) {
      txn.UpdateByKey("acct", {Value::Integer(id)}, {{"balance", Value::BigInt(0)}});
    });
    db.RegisterProcedure("chatty", [](Transaction& txn) { txn.Emit({Value::Integer(1)}); });
    db.RegisterErased(
        "count_args",
        [](Transaction& txn, const std::vector<Value>& args) {
          txn.Emit({Value::BigInt(static_cast<int64_t>(args.size()))});
        },
        ProcedureSignature::AnyArguments({{"n", Type::BigInt()}}));
    // A first argument, then a list: new_order(w, d, c, item, ...)'s shape.
    ProcedureSignature list{{Type::Integer()}, false, {{"sum", Type::BigInt()}}, Type::BigInt()};
    db.RegisterErased(
        "scaled_sum",
        [](Transaction& txn, const std::vector<Value>& args) {
          int64_t sum = 0;
          for (size_t i = 1; i < args.size(); i++) sum += args[i].GetInt();
          txn.Emit({Value::BigInt(sum * args[0].GetInt())});
        },
        list);
  }
  void TearDown() override {
    other_.reset();
    EngineFixture::TearDown();
  }
  std::vector<std::string> Balances() {
    return Lines(other_->Execute("SELECT id, balance FROM acct ORDER BY id").back());
  }

  std::unique_ptr<SqlSession> other_;
};

TEST_F(CallProcedureTest, RunsAProcedureAsItsOwnTransactionAndReturnsItsRows) {
  StatementResult r = Run("CALL transfer(1, 2, 30)");
  EXPECT_EQ(r.command_tag, "CALL");
  ASSERT_EQ(r.columns.size(), 2u);
  EXPECT_EQ(r.columns[0], (ResultColumn{"id", Type::Integer()}));
  EXPECT_EQ(r.columns[1], (ResultColumn{"balance", Type::BigInt()}));
  EXPECT_THAT(Lines(r), ElementsAre("1|70", "2|130"));
  EXPECT_THAT(Balances(), ElementsAre("1|70", "2|130"));
  EXPECT_NE(session_->last_commit_lsn(), 0u);
  // No result columns: the command tag alone. A qualified name, arguments
  // that are expressions.
  StatementResult touched = Run("CALL public.touch(1 + 1)");
  EXPECT_EQ(touched.command_tag, "CALL");
  EXPECT_TRUE(touched.columns.empty());
  EXPECT_THAT(Balances(), ElementsAre("1|70", "2|0"));
  // Untyped: the arguments as they are.
  EXPECT_THAT(Query("CALL count_args()"), ElementsAre("0"));
  EXPECT_THAT(Query("CALL count_args(1, 'x', NULL)"), ElementsAre("3"));
}

TEST_F(CallProcedureTest, AFailingProcedureChangesNothing) {
  ExpectDbError([&] { Run("CALL transfer(1, 2, 500)"); }, "40000", "insufficient funds");
  EXPECT_THAT(Balances(), ElementsAre("1|100", "2|100"));
  // The session goes on.
  EXPECT_THAT(Query("CALL transfer(2, 1, 1)"), ElementsAre("2|99", "1|101"));
}

TEST_F(CallProcedureTest, ErrorsAreThoseOfPostgres) {
  ExpectDbError([&] { Run("CALL nosuch(1, 'a')"); }, "42883",
                "procedure nosuch(integer, text) does not exist");
  ExpectDbError([&] { Run("CALL transfer(1, 2)"); }, "42883",
                "procedure transfer(integer, integer) does not exist");
  ExpectDbError([&] { Run("CALL transfer(1, 2, 'ten')"); }, "22P02",
                "invalid input syntax for type bigint: \"ten\"");
  ExpectDbError([&] { Run("CALL transfer(1, 2, true)"); }, "42804",
                "argument 3 of procedure transfer must be bigint, got boolean");
  ExpectDbError([&] { Run("CALL transfer(1, 2, 3000000000000000000000)"); }, "22003",
                "bigint out of range");
  ExpectDbError([&] { Run("CALL transfer(id, 2, 1)"); }, "42703", "column \"id\" does not exist");
  ExpectDbError([&] { Run("CALL transfer((SELECT 1), 2, 1)"); }, "0A000",
                "cannot use subquery in CALL argument");
  ExpectDbError([&] { Run("CALL other.transfer(1, 2, 1)"); }, "3F000",
                "schema \"other\" does not exist");
  ExpectDbError([&] { Run("CALL transfer"); }, "42601", "syntax error at end of input");
  // A procedure that emits rows it did not declare: refused, rolled back.
  ExpectDbError([&] { Run("CALL chatty()"); }, "42P13",
                "procedure chatty emitted rows, but declares no result columns");
  ExpectDbError([&] { Run("SET TRANSACTION READ ONLY; CALL touch(1)"); }, "25006",
                "cannot execute CALL in a read-only transaction");
  EXPECT_THAT(Balances(), ElementsAre("1|100", "2|100"));
}

// In BEGIN ... COMMIT the call is a step of the optimistic block: its
// writes are the block's, seen by the block only, and COMMIT runs it again.
TEST_F(CallProcedureTest, InABlockItCommitsWithTheBlock) {
  Run("BEGIN");
  EXPECT_THAT(Query("CALL transfer(1, 2, 10)"), ElementsAre("1|90", "2|110"));
  Run("INSERT INTO acct VALUES (3, 5)");
  EXPECT_THAT(Query("SELECT sum(balance) FROM acct"), ElementsAre("205"));
  EXPECT_THAT(Balances(), ElementsAre("1|100", "2|100"));
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  EXPECT_THAT(Balances(), ElementsAre("1|90", "2|110", "3|5"));

  Run("BEGIN");
  Run("CALL transfer(1, 2, 10)");
  Run("ROLLBACK");
  EXPECT_THAT(Balances(), ElementsAre("1|90", "2|110", "3|5"));
}

// Several statements in one query string are one transaction: a call that
// fails takes the calls before it back with it.
TEST_F(CallProcedureTest, CallsInOneQueryStringCommitOrFailTogether) {
  std::vector<StatementResult> results =
      session_->Execute("CALL transfer(1, 2, 10); CALL transfer(2, 1, 5)");
  ASSERT_EQ(results.size(), 2u);
  EXPECT_THAT(Lines(results[1]), ElementsAre("2|105", "1|95"));
  ExpectDbError([&] { session_->Execute("CALL transfer(1, 2, 10); CALL transfer(1, 2, 500)"); },
                "40000", "insufficient funds");
  EXPECT_THAT(Balances(), ElementsAre("1|95", "2|105"));
}

// What the client saw must be what commits: a concurrent change of the
// balances the call returned fails the block with 40001.
TEST_F(CallProcedureTest, ABlockWhoseCallWouldAnswerDifferentlyAtCommitFails) {
  Run("BEGIN");
  EXPECT_THAT(Query("CALL transfer(1, 2, 10)"), ElementsAre("1|90", "2|110"));
  other_->Execute("UPDATE acct SET balance = balance + 1 WHERE id = 2");
  ExpectDbError([&] { Run("COMMIT"); }, "40001",
                "could not serialize access due to a concurrent update: statement 1 of the "
                "transaction now returns a different result than it did (the transaction might "
                "succeed if retried)");
  EXPECT_THAT(Balances(), ElementsAre("1|100", "2|101"));
}

TEST_F(CallProcedureTest, AListOfArgumentsTakesItsDeclaredType) {
  EXPECT_THAT(Query("CALL scaled_sum(2, 1, '20', 300)"), ElementsAre("642"));
  EXPECT_THAT(Query("CALL scaled_sum(2)"), ElementsAre("0"));
  ExpectDbError([&] { Run("CALL scaled_sum()"); }, "42883",
                "procedure scaled_sum() does not exist");
  std::shared_ptr<const PreparedStatement> p = session_->Prepare("CALL scaled_sum($1, $2, $3)");
  EXPECT_THAT(p->parameter_types, ElementsAre(Type::Integer(), Type::BigInt(), Type::BigInt()));
  // As text, the way libpq sends parameters.
  EXPECT_THAT(
      Lines(session_->ExecutePrepared(*p, {Value::Text("3"), Value::Text("4"), Value::Text("5")})),
      ElementsAre("27"));
}

// The extended protocol: Describe knows the result columns and the types
// of parameters passed straight to the procedure.
TEST_F(CallProcedureTest, PreparedCallsDescribeColumnsAndParameterTypes) {
  std::shared_ptr<const PreparedStatement> p = session_->Prepare("CALL transfer($1, $2, $3)");
  EXPECT_THAT(p->parameter_types, ElementsAre(Type::Integer(), Type::Integer(), Type::BigInt()));
  ASSERT_EQ(p->columns.size(), 2u);
  EXPECT_EQ(p->columns[1].name, "balance");
  StatementResult r =
      session_->ExecutePrepared(*p, {Value::Integer(2), Value::Integer(1), Value::BigInt(5)});
  EXPECT_THAT(Lines(r), ElementsAre("2|95", "1|105"));
  // A type the client gives is kept (and cast at the call).
  std::shared_ptr<const PreparedStatement> typed =
      session_->Prepare("CALL touch($1)", {Type::BigInt()});
  EXPECT_THAT(typed->parameter_types, ElementsAre(Type::BigInt()));
  EXPECT_TRUE(typed->columns.empty());
  session_->ExecutePrepared(*typed, {Value::BigInt(1)});
  EXPECT_THAT(Balances(), ElementsAre("1|0", "2|95"));
}

}  // namespace
}  // namespace forktail::testing
