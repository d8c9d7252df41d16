// Helpers shared by the transaction tests: a temporary data directory and a
// small schema.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "txn/txn.h"

namespace forktail::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "forktail_txn_XXXXXX").string();
    char* p = mkdtemp(tmpl.data());
    EXPECT_NE(p, nullptr);
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// account(id BIGINT PRIMARY KEY, owner VARCHAR(40) NOT NULL, balance BIGINT)
inline TableSchema AccountSchema(std::string name = "account") {
  return TableSchema{std::move(name),
                     {{"id", Type::BigInt(), true},
                      {"owner", Type::Varchar(40), true},
                      {"balance", Type::BigInt(), false}},
                     {ColumnId(0)}};
}

inline Row Account(int64_t id, std::string owner, int64_t balance) {
  return {Value::BigInt(id), Value::String(Type::Varchar(40), std::move(owner)),
          Value::BigInt(balance)};
}

inline void ExpectOk(const TxnResult& r) { EXPECT_TRUE(r.ok) << r.sqlstate << ": " << r.message; }

// Every live row of a table, in tuple-id order.
inline std::vector<Row> Dump(Database& db, const std::string& table) {
  std::vector<Row> rows;
  TxnResult r = db.Run([&](Transaction& txn) {
    txn.Scan(table, [&](TupleId, const Row& row) {
      rows.push_back(row);
      return true;
    });
  });
  ExpectOk(r);
  return rows;
}

}  // namespace forktail::testing
