// Helpers for the engine's end-to-end tests: a temporary data directory with
// an SqlFrontend over it, and assertions on DbError.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "olap/session/sql_session.h"
#include "tests/common/txn_test_util.h"

namespace forktail::testing {

// Runs f, expects a DbError with this SQLSTATE and message (and position, if >= 0).
inline void ExpectDbError(const std::function<void()>& f, const std::string& state,
                          const std::string& message, int position = -1) {
  try {
    f();
    ADD_FAILURE() << "expected " << state << " " << message << ", got no error";
  } catch (const DbError& e) {
    EXPECT_EQ(std::string(e.sqlstate()), state) << e.what();
    EXPECT_EQ(std::string(e.what()), message);
    if (position >= 0) {
      EXPECT_EQ(e.position(), position);
    }
  }
}

// One cell as text ("" for NULL) per row, cells joined with '|'.
inline std::vector<std::string> Lines(const StatementResult& r) {
  std::vector<std::string> out;
  for (const Row& row : r.rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); c++) {
      if (c) line += "|";
      if (!row[c].is_null()) line += row[c].ToString();
    }
    out.push_back(line);
  }
  return out;
}

class EngineFixture : public ::testing::Test {
 protected:
  void Open(SqlFrontendOptions options) {
    engine_ = SqlFrontend::Open(dir_.path(), std::move(options));
    session_ = std::make_unique<SqlSession>(*engine_);
  }
  // The last statement's result.
  StatementResult Run(const std::string& sql) {
    std::vector<StatementResult> results = session_->Execute(sql);
    EXPECT_FALSE(results.empty()) << sql;
    return results.empty() ? StatementResult{} : std::move(results.back());
  }
  std::vector<std::string> Query(const std::string& sql) { return Lines(Run(sql)); }
  void TearDown() override {
    session_.reset();
    engine_.reset();
  }

  TempDir dir_;
  std::unique_ptr<SqlFrontend> engine_;
  std::unique_ptr<SqlSession> session_;
};

// Reads outside blocks on fork()ed snapshot processes (Release builds; skip
// under sanitizers with FORKTAIL_SKIP_FORK_STRESS_UNDER_SANITIZER).
inline SqlFrontendOptions SnapshotRouting() {
  SqlFrontendOptions options;
  options.routing = ReadRouting::kSnapshot;
  return options;
}

inline SqlFrontendOptions InProcess(uint32_t hold_ms = 2000) {
  SqlFrontendOptions options;
  options.routing = ReadRouting::kInProcess;
  options.idle_in_transaction_hold_ms = hold_ms;
  return options;
}

// Two tables with the same rows, `acc` with a primary key and `acc_nokey`
// without: a SELECT written once with $T for the table runs on both, the
// key's fast paths against the general path (point_statement_test.cc,
// point_template_test.cc).
class PointTablesFixture : public EngineFixture {
 protected:
  void SetUp() override {
    Open(InProcess());
    Run("CREATE TABLE acc (aid int PRIMARY KEY, bid int, abalance int, filler text)");
    Run("CREATE TABLE acc_nokey (aid int, bid int, abalance int, filler text)");
    for (const char* t : {"acc", "acc_nokey"}) {
      Run(std::string("INSERT INTO ") + t +
          " VALUES (1, 1, 10, 'x'), (2, 1, 20, NULL), (3, 2, 30, 'y'), (4, 2, NULL, 'z')");
    }
  }
  static std::string On(std::string sql, const std::string& table) {
    sql.replace(sql.find("$T"), 2, table);
    return sql;
  }
};

}  // namespace forktail::testing
