// A library of C++ procedures for `forktail serve --procedures FILE`, built
// as a module and loaded by tests/server/e2e/procedure_library.py: what an
// application's own library looks like (FORKTAIL_PROCEDURE_LIBRARY in
// forktail/database.h). The table is the application's, made with SQL:
//   CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint NOT NULL)
#include <cstdint>

#include "forktail/database.h"

namespace {

using forktail::DbError;
using forktail::Transaction;
using forktail::Type;
using forktail::Value;

int64_t BalanceOf(Transaction& txn, int64_t id) {
  std::optional<forktail::Row> row = txn.Get("accounts", {Value::BigInt(id)});
  if (!row) throw DbError("P0002", "no account " + std::to_string(id));
  return (*row)[1].GetInt();
}

}  // namespace

FORKTAIL_PROCEDURE_LIBRARY(db) {
  // Moves `amount` between two accounts in one transaction, or changes
  // nothing: a missing account is P0002, an overdraft P0001. Returns the
  // balances after it.
  db.RegisterProcedure(
      "transfer",
      [](Transaction& txn, int64_t from, int64_t to, int64_t amount) {
        const int64_t from_balance = BalanceOf(txn, from) - amount;
        const int64_t to_balance = BalanceOf(txn, to) + amount;
        if (from_balance < 0) throw DbError("P0001", "insufficient funds");
        txn.UpdateByKey("accounts", {Value::BigInt(from)},
                        {{"balance", Value::BigInt(from_balance)}});
        txn.UpdateByKey("accounts", {Value::BigInt(to)}, {{"balance", Value::BigInt(to_balance)}});
        txn.Emit({Value::BigInt(from_balance), Value::BigInt(to_balance)});
      },
      {{"from_balance", Type::BigInt()}, {"to_balance", Type::BigInt()}});
  // Opens an account (23505 if the id is taken).
  db.RegisterProcedure("open_account", [](Transaction& txn, int64_t id, int64_t balance) {
    txn.Insert("accounts", {Value::BigInt(id), Value::BigInt(balance)});
  });
}
