// Differential SQL test beyond TPC-H: hand-written queries over NULLs, outer
// joins, NOT IN / ALL / ANY, FILTER, set operations, HAVING, intervals,
// decimal arithmetic and casts, run on Forktail and compared with DuckDB's
// answers on the same data.
//
// The schema and the queries live in tests/olap/data/sql_diff (queries.sql:
// one query per `-- name: NAME` section, each ordered by all its output
// columns). scripts/sql_diff/make-answers.sh generates the tables' rows
// (fixed seed) as CSV and DuckDB's answer to each query into
// <test binary dir>/sql_diff (or FORKTAIL_SQL_DIFF_DATA), with DuckDB from
// the TPC-H test's venv (FORKTAIL_TPCH_VENV, default <binary dir>/tpch/
// tpch-venv). A failure to make them fails every test.
//
// Every query is one test, SqlDiff/SqlDiffQuery.Run/NAME. Comparison as in
// tpch_test.cc: same columns and rows in order; values as text, except
// numbers: decimals within half a unit of the coarser printed scale and,
// where either side is a DOUBLE, also within a relative 1e-6 (DuckDB divides
// decimals in DOUBLE; Forktail, like PostgreSQL, in NUMERIC).
//
// Queries where Forktail is known to be wrong are listed in kKnownBugs with
// the bug; they run only as DISABLED_SqlDiffKnownBugs/... (with
// --gtest_also_run_disabled_tests).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
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

// Query name -> the bug that makes Forktail's answer differ (reported; each
// checked against PostgreSQL 15, which agrees with DuckDB on all of them).
const std::map<std::string, std::string> kKnownBugs = {};

using namespace duckdb_answers;  // NOLINT: the test's vocabulary

fs::path SpecDir() { return SourceDir() / "tests" / "olap" / "data" / "sql_diff"; }

// queries.sql's sections, in file order (same parse as sql_diff_duckdb.py).
std::vector<std::pair<std::string, std::string>> ReadQueries() {
  std::vector<std::pair<std::string, std::string>> queries;
  std::istringstream in(ReadFile(SpecDir() / "queries.sql"));
  const std::string marker = "-- name:";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(marker, 0) == 0) {
      std::string name = line.substr(marker.size());
      name.erase(0, name.find_first_not_of(' '));
      name.erase(name.find_last_not_of(" \r") + 1);
      queries.emplace_back(name, "");
    } else if (!queries.empty()) {
      queries.back().second += line + "\n";
    }
  }
  return queries;
}

std::vector<std::string> QueryNames(bool known_bugs) {
  std::vector<std::string> names;
  for (const auto& [name, sql] : ReadQueries()) {
    if (kKnownBugs.contains(name) == known_bugs) names.push_back(name);
  }
  return names;
}

class SqlDiffQuery : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    if (session_ != nullptr || setup_error_ != nullptr) return;
    try {
      PrepareDatabase();
    } catch (const std::exception& e) {
      setup_error_ = new std::string(e.what());
    }
  }

  static void PrepareDatabase() {
    const fs::path exe_dir = fs::read_symlink("/proc/self/exe").parent_path();
    data_ = EnvOr("FORKTAIL_SQL_DIFF_DATA", (exe_dir / "sql_diff").string());
    const fs::path script = SourceDir() / "scripts" / "sql_diff" / "make-answers.sh";
    const std::string command = "'" + script.string() + "' '" + SpecDir().string() + "' '" +
                                data_.string() + "' '" + (exe_dir / "tpch").string() + "'";
    int rc = std::system(command.c_str());
    if (rc != 0 || !fs::exists(data_ / "COMPLETE")) {
      rc = WIFEXITED(rc) ? WEXITSTATUS(rc) : rc;
      throw std::runtime_error("DuckDB answers failed (exit status " + std::to_string(rc) +
                               "): " + command +
                               "\n(it needs python3-venv and PyPI, or FORKTAIL_TPCH_VENV set to "
                               "a venv with duckdb==1.5.5)");
    }
    db_dir_ = fs::temp_directory_path() / ("forktail_sql_diff_" + std::to_string(::getpid()));
    fs::remove_all(db_dir_);
    DatabaseOptions db_options;
    db_options.synchronous_commit = false;
    db_ = Database::Open(db_dir_.string(), db_options);
    SqlFrontendOptions options;
    options.routing = ReadRouting::kInProcess;  // no fork under sanitizers
    engine_ = std::make_unique<SqlFrontend>(db_.get(), options);
    session_ = std::make_unique<SqlSession>(*engine_);
    session_->Execute(ReadFile(SpecDir() / "schema.sql"));
    session_->Execute(ReadFile(data_ / "load.sql"));
    // The database lives until the process ends (both instantiations share it).
    std::atexit([] {
      session_.reset();
      engine_.reset();
      db_.reset();
      fs::remove_all(db_dir_);
    });
  }

  void Run(const std::string& name);

  static inline fs::path data_;
  static inline fs::path db_dir_;
  static inline std::unique_ptr<Database> db_;
  static inline std::unique_ptr<SqlFrontend> engine_;
  static inline std::unique_ptr<SqlSession> session_;
  static inline std::string* setup_error_ = nullptr;
};

void SqlDiffQuery::Run(const std::string& name) {
  if (setup_error_ != nullptr) FAIL() << *setup_error_;
  std::string sql;
  for (const auto& [n, text] : ReadQueries()) {
    if (n == name) sql = text;
  }
  ASSERT_FALSE(sql.empty()) << name;
  const Answer expected = ReadAnswer(data_ / "answers" / (name + ".tsv"));
  std::vector<StatementResult> results;
  try {
    results = session_->Execute(sql);
  } catch (const DbError& e) {
    FAIL() << name << " failed: " << e.sqlstate() << " " << e.what() << " (position "
           << e.position() << ")\n"
           << sql;
  }
  ASSERT_EQ(results.size(), 1u);
  const StatementResult& result = results[0];
  ASSERT_EQ(result.columns.size(), expected.names.size()) << name << ": column count";
  const std::vector<TextRow> actual = ToTextRows(result);
  auto dump = [&] {
    std::string s = "\n" + sql + "DuckDB (" + std::to_string(expected.rows.size()) + " rows):\n";
    for (size_t r = 0; r < expected.rows.size() && r < 8; r++)
      s += "  " + Show(expected.rows[r]) + "\n";
    s += "Forktail (" + std::to_string(actual.size()) + " rows):\n";
    for (size_t r = 0; r < actual.size() && r < 8; r++) s += "  " + Show(actual[r]) + "\n";
    return s;
  };
  ASSERT_EQ(actual.size(), expected.rows.size()) << name << ": row count" << dump();
  ExpectRowsEqual(name, expected, expected.rows, result, actual,
                  /*ignore_trailing_blanks=*/false);
}

TEST_P(SqlDiffQuery, Run) { Run(GetParam()); }

std::string ParamName(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

INSTANTIATE_TEST_SUITE_P(SqlDiff, SqlDiffQuery, ::testing::ValuesIn(QueryNames(false)), ParamName);
INSTANTIATE_TEST_SUITE_P(DISABLED_SqlDiffKnownBugs, SqlDiffQuery,
                         ::testing::ValuesIn(QueryNames(true)), ParamName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SqlDiffQuery);

}  // namespace
}  // namespace forktail
