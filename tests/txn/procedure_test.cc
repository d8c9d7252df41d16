// Typed stored procedures: argument conversion and its errors.
#include <gtest/gtest.h>

#include "tests/common/txn_test_util.h"

namespace forktail {
namespace {

using testing::ExpectOk;
using testing::TempDir;

class ProcedureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = Database::Open(dir_.path());
    db_->RegisterProcedure("echo", [](Transaction& txn, int64_t a, int32_t b, double c,
                                      std::string d, bool e, std::optional<int64_t> f, Value g) {
      txn.Emit({Value::BigInt(a), Value::Integer(b), Value::Double(c), Value::Text(d),
                Value::Boolean(e), f ? Value::BigInt(*f) : Value::Null(Type::BigInt()), g});
    });
    db_->RegisterProcedure("small", [](Transaction&, int16_t) {});
  }
  TempDir dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(ProcedureTest, ConvertsArguments) {
  TxnResult r = db_->Execute(
      "echo", {Value::BigInt(1), Value::Integer(2), Value::Integer(3), Value::Text("x"),
               Value::Boolean(true), Value::Null(Type::BigInt()), Value::Date(5)});
  ExpectOk(r);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0][2], Value::Double(3));
  EXPECT_TRUE(r.rows[0][5].is_null());
  EXPECT_EQ(r.rows[0][6], Value::Date(5));
}

TEST_F(ProcedureTest, ReportsArityTypeNullAndRangeErrors) {
  TxnResult arity = db_->Execute("echo", {Value::BigInt(1)});
  EXPECT_EQ(arity.sqlstate, "42883");
  EXPECT_EQ(arity.message,
            "procedure echo(bigint, integer, double precision, text, boolean, bigint, any) "
            "expects 7 arguments, got 1");
  TxnResult type =
      db_->Execute("echo", {Value::BigInt(1), Value::Text("2"), Value::Integer(3), Value::Text("x"),
                            Value::Boolean(true), Value::BigInt(1), Value::Date(5)});
  EXPECT_EQ(type.sqlstate, "42804");
  EXPECT_EQ(type.message, "argument 2 of procedure echo must be integer, got text");
  TxnResult null = db_->Execute("small", {Value::Null(Type::SmallInt())});
  EXPECT_EQ(null.sqlstate, "22004");
  EXPECT_EQ(null.message, "argument 1 of procedure small must not be NULL");
  TxnResult range = db_->Execute("small", {Value::BigInt(1 << 20)});
  EXPECT_EQ(range.sqlstate, "22003");
  TxnResult missing = db_->Execute("nope", {});
  EXPECT_EQ(missing.sqlstate, "42883");
  EXPECT_EQ(missing.message, "procedure \"nope\" does not exist");
}

void PlainFunction(Transaction& txn, int64_t x) { txn.Emit({Value::BigInt(x * 2)}); }

TEST_F(ProcedureTest, PlainFunctionsAndAsyncExecution) {
  db_->RegisterProcedure("twice", &PlainFunction);
  auto f = db_->ExecuteAsync("twice", {Value::BigInt(21)});
  TxnResult r = f.get();
  ExpectOk(r);
  EXPECT_EQ(r.rows[0][0], Value::BigInt(42));
  std::promise<TxnResult> p;
  db_->ExecuteAsync("twice", {Value::BigInt(1)}, [&](TxnResult r) { p.set_value(std::move(r)); });
  EXPECT_EQ(p.get_future().get().rows[0][0], Value::BigInt(2));
}

TEST(AsyncCommitTest, AcknowledgesBeforeSyncAndSurvivesCleanClose) {
  TempDir dir;
  DatabaseOptions o;
  o.synchronous_commit = false;
  {
    auto db = Database::Open(dir.path(), o);
    ExpectOk(db->Run([](Transaction& txn) { txn.CreateTable(testing::AccountSchema()); }));
    for (int i = 0; i < 50; i++) {
      ExpectOk(
          db->Run([&](Transaction& txn) { txn.Insert("account", testing::Account(i, "a", i)); }));
    }
  }
  auto db = Database::Open(dir.path(), o);
  EXPECT_EQ(testing::Dump(*db, "account").size(), 50u);
}

}  // namespace
}  // namespace forktail
