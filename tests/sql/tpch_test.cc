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
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "forktail/database.h"
#include "olap/engine/copy_reader.h"
#include "olap/engine/sql_engine.h"
#include "olap/engine/sql_session.h"

namespace forktail {
namespace {

namespace fs = std::filesystem;

using TextRow = std::vector<std::optional<std::string>>;

struct Answer {
  std::vector<std::string> names;
  std::vector<std::string> types;  // DuckDB's
  std::vector<TextRow> rows;
};

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

// The answer files are COPY text format: parse them with the COPY parser.
Answer ReadAnswer(const fs::path& path) {
  Answer answer;
  int line = 0;
  CopyParser parser({}, path.filename().string(), [&](const CopyRow& row) {
    TextRow r;
    for (const CopyField& f : row.fields) {
      r.push_back(f.is_null ? std::nullopt : std::optional<std::string>(std::string(f.text)));
    }
    if (line == 0) {
      for (auto& v : r) answer.names.push_back(v.value_or(""));
    } else if (line == 1) {
      for (auto& v : r) answer.types.push_back(v.value_or(""));
    } else {
      answer.rows.push_back(std::move(r));
    }
    line++;
  });
  parser.Feed(ReadFile(path));
  parser.Finish();
  return answer;
}

// The source tree: from __FILE__ when the compiler saw an absolute path (CMake
// does), else from the build tree's CMakeCache.txt above the test binary.
fs::path SourceDir() {
  fs::path file(__FILE__);
  if (file.is_absolute()) return file.parent_path().parent_path().parent_path();
  for (fs::path dir = fs::read_symlink("/proc/self/exe").parent_path(); !dir.empty();
       dir = dir.parent_path()) {
    std::ifstream cache(dir / "CMakeCache.txt");
    for (std::string line; std::getline(cache, line);) {
      const std::string key = "CMAKE_HOME_DIRECTORY:INTERNAL=";
      if (line.rfind(key, 0) == 0) return line.substr(key.size());
    }
    if (dir == dir.root_path()) break;
  }
  return fs::current_path();
}

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
    if (!db_dir_.empty()) fs::remove_all(db_dir_);
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
    db_dir_ = fs::temp_directory_path() / ("forktail_tpch_" + std::to_string(::getpid()));
    fs::remove_all(db_dir_);
    DatabaseOptions db_options;
    db_options.synchronous_commit = false;
    db_ = Database::Open(db_dir_.string(), db_options);
    SqlEngineOptions options;
    options.routing = ReadRouting::kInProcess;  // no fork under sanitizers
    options.copy_batch_rows = 16384;
    engine_ = std::make_unique<SqlEngine>(db_.get(), options);
    session_ = std::make_unique<SqlSession>(*engine_);
    session_->Execute(ReadFile(data_ / "schema.sql"));
    session_->Execute(ReadFile(data_ / "load.sql"));
  }

  static void RunQuery(int number);

  static inline fs::path data_;
  static inline fs::path db_dir_;
  static inline std::unique_ptr<Database> db_;
  static inline std::unique_ptr<SqlEngine> engine_;
  static inline std::unique_ptr<SqlSession> session_;
  static inline std::string* setup_error_ = nullptr;
};

// How a column's values compare: as text (CHAR padding ignored), as decimals
// (within half a unit of the coarser printed scale: DuckDB's SUM of
// DECIMAL(15,2) products may print more digits than Forktail's type), or
// approximately (a DOUBLE on either side: also within a relative 1e-6).
enum class Compare { kText, kDecimal, kApprox };

Compare CompareFor(const std::string& duck, const Type& ours) {
  const bool duck_double = duck == "DOUBLE" || duck == "FLOAT";
  const bool duck_decimal = duck.rfind("DECIMAL", 0) == 0;
  if (duck_double || ours.id == TypeId::kDouble) return Compare::kApprox;
  if (duck_decimal || ours.id == TypeId::kDecimal) return Compare::kDecimal;
  return Compare::kText;
}

std::optional<long double> ParseNumber(const std::string& s, int* decimals) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  long double v = std::strtold(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  size_t dot = s.find('.');
  *decimals = dot == std::string::npos || s.find_first_of("eE") != std::string::npos
                  ? (dot == std::string::npos ? 0 : 17)
                  : static_cast<int>(s.size() - dot - 1);
  return v;
}

std::string RTrim(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

bool CellsEqual(const std::optional<std::string>& expected,
                const std::optional<std::string>& actual, Compare how) {
  if (!expected || !actual) return !expected && !actual;
  if (how != Compare::kText) {
    int de = 0, da = 0;
    auto e = ParseNumber(*expected, &de);
    auto a = ParseNumber(*actual, &da);
    if (e && a) {
      long double diff = std::fabs(*e - *a);
      long double scale = std::max(std::fabs(*e), std::fabs(*a));
      if (how == Compare::kApprox && diff <= 1e-6L * scale) return true;
      return diff <= 0.5L * std::pow(10.0L, -std::min(de, da)) * (1 + 1e-9L);
    }
  }
  return RTrim(*expected) == RTrim(*actual);
}

std::string Show(const TextRow& row) {
  std::string s;
  for (size_t i = 0; i < row.size(); i++) {
    if (i) s += " | ";
    s += row[i].value_or("NULL");
  }
  return s;
}

void TpchTest::RunQuery(int number) {
  if (setup_error_ != nullptr) FAIL() << *setup_error_;
  char name[8];
  std::snprintf(name, sizeof name, "q%02d", number);
  const std::string sql = ReadFile(data_ / "queries" / (std::string(name) + ".sql"));
  const Answer expected = ReadAnswer(data_ / "answers" / (std::string(name) + ".tsv"));
  std::vector<StatementResult> results;
  try {
    results = session_->Execute(sql);
  } catch (const DbError& e) {
    FAIL() << name << " failed: " << e.sqlstate() << " " << e.what() << " (position "
           << e.position() << ")";
  }
  ASSERT_EQ(results.size(), 1u);
  const StatementResult& result = results[0];
  ASSERT_EQ(result.columns.size(), expected.names.size()) << name << ": column count";
  std::vector<Compare> how(expected.types.size());
  for (size_t c = 0; c < how.size(); c++) {
    how[c] = CompareFor(expected.types[c], result.columns[c].type);
  }
  std::vector<TextRow> actual;
  for (const Row& row : result.rows) {
    TextRow r;
    for (const Value& v : row) {
      r.push_back(v.is_null() ? std::nullopt : std::optional<std::string>(v.ToString()));
    }
    actual.push_back(std::move(r));
  }
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
  int mismatches = 0;
  for (size_t r = 0; r < want.size() && mismatches < 5; r++) {
    ASSERT_EQ(actual[r].size(), want[r].size());
    for (size_t c = 0; c < want[r].size(); c++) {
      if (!CellsEqual(want[r][c], actual[r][c], how[c])) {
        ADD_FAILURE() << name << " row " << r << " column " << expected.names[c]
                      << ":\n  DuckDB:   " << Show(want[r]) << "\n  Forktail: " << Show(actual[r]);
        mismatches++;
        break;
      }
    }
  }
}

// The tables hold exactly the generated rows.
TEST_F(TpchTest, Load) {
  if (setup_error_ != nullptr) FAIL() << *setup_error_;
  for (const char* table :
       {"nation", "region", "part", "supplier", "partsupp", "customer", "orders", "lineitem"}) {
    std::string text = ReadFile(data_ / (std::string(table) + ".tbl"));
    uint64_t lines = static_cast<uint64_t>(std::count(text.begin(), text.end(), '\n'));
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
