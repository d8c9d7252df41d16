// TPC-H differential test: the 22 queries on Forktail against DuckDB's
// answers on the same data (scripts/tpch/make-data.sh).
//
// Each test process (CTest runs every TEST alone) makes sure the data exists
// (the script is idempotent and serializes concurrent callers), opens a fresh
// Database, creates the schema and loads every table with COPY through a
// SqlSession, then runs its query and compares:
//   - the same number of columns and rows;
//   - rows in order (every TPC-H query ends with ORDER BY; a query without one
//     would be compared as a multiset);
//   - values as text, except that numbers compare numerically: decimals
//     within half a unit of the last digit the coarser side printed, and
//     where either side is a DOUBLE (DuckDB's AVG) also within a relative
//     1e-6; CHAR(n)'s blank padding is ignored (DuckDB has no CHAR type).
// A query the SQL pipeline cannot run yet FAILS with its error.
//
// Scale factor: FORKTAIL_TPCH_SF (default 0.01); data directory:
// FORKTAIL_TPCH_DATA (default <test binary dir>/tpch/sf<SF>); the DuckDB venv:
// FORKTAIL_TPCH_VENV (default <data dir>/../tpch-venv, created with pip).
// FORKTAIL_TPCH_DB=DIR keeps the loaded database in DIR (checkpointed after
// the load) and reopens it on later runs instead of loading again: at SF10
// the COPY load takes minutes, reopening a checkpoint far less.
// Every block but each table's tail is frozen after the load or reopen
// (storage/table/block.h, "Frozen blocks"), so the queries scan frozen and
// plain blocks side by side; FORKTAIL_TPCH_FREEZE=0 keeps them all plain.
// FORKTAIL_TPCH_MEMORY_BUDGET=MiB gives the database that memory budget
// (tiering/buffer_pool.h) and evicts down to it after a checkpoint, so the
// queries read most blocks back from the cold store as they scan.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "forktail/database.h"
#include "olap/session/sql_frontend.h"
#include "olap/session/sql_session.h"
#include "tests/olap/sql/duckdb_answers.h"

namespace forktail {
namespace {

namespace fs = std::filesystem;

using namespace duckdb_answers;  // NOLINT: the test's vocabulary

class TpchTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    try {
      PrepareDatabase();
    } catch (const std::exception& e) {
      setup_error_ = new std::string(e.what());
    }
  }
  static void TearDownTestSuite() {
    session_.reset();
    engine_.reset();
    db_.reset();
    if (!db_dir_.empty() && !keep_db_) fs::remove_all(db_dir_);
  }

  static void PrepareDatabase() {
    const fs::path source = SourceDir();
    const std::string sf = EnvOr("FORKTAIL_TPCH_SF", "0.01");
    const fs::path exe_dir = fs::read_symlink("/proc/self/exe").parent_path();
    data_ = EnvOr("FORKTAIL_TPCH_DATA", (exe_dir / "tpch" / ("sf" + sf)).string());
    const fs::path script = source / "scripts" / "tpch" / "make-data.sh";
    const std::string command = "'" + script.string() + "' " + sf + " '" + data_.string() + "'";
    int rc = std::system(command.c_str());
    if (rc != 0 || !fs::exists(data_ / "COMPLETE")) {
      rc = WIFEXITED(rc) ? WEXITSTATUS(rc) : rc;
      throw std::runtime_error("TPC-H data generation failed (exit status " + std::to_string(rc) +
                               "): " + command +
                               "\n(it needs python3-venv and PyPI, or FORKTAIL_TPCH_VENV set to "
                               "a venv with duckdb==1.5.5 and duckdb-extension-tpch==1.5.5)");
    }
    const std::string kept = EnvOr("FORKTAIL_TPCH_DB", "");
    keep_db_ = !kept.empty();
    db_dir_ = keep_db_
                  ? fs::path(kept)
                  : fs::temp_directory_path() / ("forktail_tpch_" + std::to_string(::getpid()));
    const bool reuse = keep_db_ && fs::exists(db_dir_ / "loaded");
    if (!reuse) fs::remove_all(db_dir_);
    DatabaseOptions db_options;
    db_options.synchronous_commit = false;
    const uint64_t budget_mib = std::stoull(EnvOr("FORKTAIL_TPCH_MEMORY_BUDGET", "0"));
    db_options.memory_budget = budget_mib << 20;
    db_ = Database::Open(db_dir_.string(), db_options);
    SqlFrontendOptions options;
    options.routing = ReadRouting::kInProcess;  // no fork under sanitizers
    options.copy_batch_rows = 16384;
    engine_ = std::make_unique<SqlFrontend>(db_.get(), options);
    session_ = std::make_unique<SqlSession>(*engine_);
    if (!reuse) Load();
    if (EnvOr("FORKTAIL_TPCH_FREEZE", "1") != "0") db_->FreezeBlocks(Database::FreezeScope::kAll);
    if (budget_mib > 0) {
      db_->Checkpoint();  // every block clean: all but the budget's worth leave
      db_->TrimToBudget();
    }
  }

  static void Load() {
    session_->Execute(ReadFile(data_ / "schema.sql"));
    // One COPY per Execute: a string of several statements is one implicit
    // transaction (as in PostgreSQL), which would hold the whole load's redo
    // in memory until its commit; alone, each COPY commits every
    // copy_batch_rows rows.
    std::istringstream load(ReadFile(data_ / "load.sql"));
    for (std::string statement; std::getline(load, statement);) {
      if (!statement.empty()) session_->Execute(statement);
    }
    if (keep_db_) {
      db_->Checkpoint();
      std::ofstream(db_dir_ / "loaded") << "1\n";
    }
  }

  static void RunQuery(int number);

  static inline fs::path data_;
  static inline fs::path db_dir_;
  static inline bool keep_db_ = false;
  static inline std::unique_ptr<Database> db_;
  static inline std::unique_ptr<SqlFrontend> engine_;
  static inline std::unique_ptr<SqlSession> session_;
  static inline std::string* setup_error_ = nullptr;
};

// VmHWM / VmRSS of this process in MiB (0 where /proc is missing): printed
// per query, since at SF10 the loaded data leaves little room for a query.
double ProcStatusMiB(const char* field) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field, 0) == 0)
      return std::strtod(line.c_str() + std::strlen(field), nullptr) / 1024;
  }
  return 0;
}

void TpchTest::RunQuery(int number) {
  if (setup_error_ != nullptr) FAIL() << *setup_error_;
  char name[8];
  std::snprintf(name, sizeof name, "q%02d", number);
  const std::string sql = ReadFile(data_ / "queries" / (std::string(name) + ".sql"));
  const Answer expected = ReadAnswer(data_ / "answers" / (std::string(name) + ".tsv"));
  std::vector<StatementResult> results;
  const double rss_before = ProcStatusMiB("VmRSS:");
  std::ofstream("/proc/self/clear_refs") << "5";  // resets VmHWM
  try {
    results = session_->Execute(sql);
  } catch (const DbError& e) {
    FAIL() << name << " failed: " << e.sqlstate() << " " << e.what() << " (position "
           << e.position() << ")";
  }
  std::printf("%s: RSS %.0f MiB before, peak %.0f, after %.0f\n", name, rss_before,
              ProcStatusMiB("VmHWM:"), ProcStatusMiB("VmRSS:"));
  ASSERT_EQ(results.size(), 1u);
  const StatementResult& result = results[0];
  ASSERT_EQ(result.columns.size(), expected.names.size()) << name << ": column count";
  std::vector<TextRow> actual = ToTextRows(result);
  ASSERT_EQ(actual.size(), expected.rows.size()) << name << ": row count";
  std::vector<TextRow> want = expected.rows;
  std::string lower = sql;
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  if (lower.find("order by") == std::string::npos) {
    auto key = [](const TextRow& r) { return Show(r); };
    auto less = [&](const TextRow& a, const TextRow& b) { return key(a) < key(b); };
    std::sort(want.begin(), want.end(), less);
    std::sort(actual.begin(), actual.end(), less);
  }
  ExpectRowsEqual(name, expected, want, result, actual, /*ignore_trailing_blanks=*/true);
}

// The tables hold exactly the generated rows.
// Lines of a data file, read in pieces: SF10's lineitem.tbl is ~7.7 GB,
// which must not sit in memory beside the loaded database.
uint64_t CountLines(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::vector<char> buffer(1 << 20);
  uint64_t lines = 0;
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    lines += static_cast<uint64_t>(std::count(buffer.data(), buffer.data() + in.gcount(), '\n'));
  }
  return lines;
}

TEST_F(TpchTest, Load) {
  if (setup_error_ != nullptr) FAIL() << *setup_error_;
  for (const char* table :
       {"nation", "region", "part", "supplier", "partsupp", "customer", "orders", "lineitem"}) {
    const uint64_t lines = CountLines(data_ / (std::string(table) + ".tbl"));
    auto r = db_->Run([&](Transaction& txn) {
      txn.Emit({Value::BigInt(static_cast<int64_t>(txn.GetTable(table).live_row_count()))});
    });
    ASSERT_TRUE(r.ok) << r.message;
    EXPECT_EQ(static_cast<uint64_t>(r.rows[0][0].GetInt()), lines) << table;
  }
}

#define TPCH_QUERY(n, name) \
  TEST_F(TpchTest, name) { RunQuery(n); }
TPCH_QUERY(1, Q01)
TPCH_QUERY(2, Q02)
TPCH_QUERY(3, Q03)
TPCH_QUERY(4, Q04)
TPCH_QUERY(5, Q05)
TPCH_QUERY(6, Q06)
TPCH_QUERY(7, Q07)
TPCH_QUERY(8, Q08)
TPCH_QUERY(9, Q09)
TPCH_QUERY(10, Q10)
TPCH_QUERY(11, Q11)
TPCH_QUERY(12, Q12)
TPCH_QUERY(13, Q13)
TPCH_QUERY(14, Q14)
TPCH_QUERY(15, Q15)
TPCH_QUERY(16, Q16)
TPCH_QUERY(17, Q17)
TPCH_QUERY(18, Q18)
TPCH_QUERY(19, Q19)
TPCH_QUERY(20, Q20)
TPCH_QUERY(21, Q21)
TPCH_QUERY(22, Q22)
#undef TPCH_QUERY

}  // namespace
}  // namespace forktail
