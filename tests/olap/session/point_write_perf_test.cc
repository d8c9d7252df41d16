// Timing driver (disabled by default; not a unit test): UPDATE by primary key
// on a table of FORKTAIL_POINT_ROWS rows (default 1,000,000), through the key
// index and, for comparison, through the scan (aid + 0 = $2 defeats the
// index). Run in Release:
//   build/wal-rel/tests/sql_tests --gtest_also_run_disabled_tests
//     --gtest_filter='*DISABLED_PointUpdateTiming*'
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "olap/session/statement/write_executor.h"
#include "tests/olap/session/session_test_util.h"

namespace forktail::testing {
namespace {

class EnginePointWritePerfTest : public EngineFixture {};

TEST_F(EnginePointWritePerfTest, DISABLED_PointUpdateTiming) {
  const char* env = std::getenv("FORKTAIL_POINT_ROWS");
  const int64_t rows = env != nullptr ? std::atoll(env) : 1000000;
  Open(InProcess());
  Run("CREATE TABLE pgbench_accounts (aid int PRIMARY KEY, bid int, abalance int, "
      "filler char(84))");
  engine_->database()
      .Run([&](Transaction& txn) {
        for (int64_t i = 1; i <= rows; i++) {
          txn.Insert("pgbench_accounts", {Value::Integer(static_cast<int32_t>(i)),
                                          Value::Integer(static_cast<int32_t>(i / 100000 + 1)),
                                          Value::Integer(0), Value::Text("")});
        }
      })
      .ThrowIfError();
  auto time_updates = [&](const char* sql, int count, bool in_block = false) {
    if (in_block) Run("BEGIN");
    auto prepared = session_->Prepare(sql, {});
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < count; i++) {
      int32_t aid = static_cast<int32_t>((static_cast<int64_t>(i) * 7919) % rows + 1);
      StatementResult r =
          session_->ExecutePrepared(*prepared, {Value::Integer(1), Value::Integer(aid)});
      EXPECT_EQ(r.command_tag, "UPDATE 1");
    }
    double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
                    .count() /
                count;
    if (in_block) Run("COMMIT");
    std::printf("%-70s rows=%lld  %.1f us/UPDATE (%d %s)\n", sql, static_cast<long long>(rows), us,
                count, in_block ? "statements in one block" : "autocommit statements");
  };
  uint64_t before = WriteExecutor::key_lookups();
  time_updates("UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2", 2000);
  time_updates("UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2", 20000, true);
  EXPECT_EQ(WriteExecutor::key_lookups() - before, 22000u);
  time_updates("UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid + 0 = $2", 5);
}

}  // namespace
}  // namespace forktail::testing
