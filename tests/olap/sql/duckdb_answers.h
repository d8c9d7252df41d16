// Shared by the differential tests against DuckDB (tpch_test.cc,
// sql_diff_test.cc): reading DuckDB's answer files and comparing Forktail's
// rows with them.
//
// Answer files are COPY text format (parsed with the COPY parser): line 1 the
// column names, line 2 DuckDB's column types, then the rows.
//
// Values compare as text, except numbers: decimals within half a unit of the
// last digit the coarser side printed (DuckDB's SUM of DECIMAL(15,2)
// products may print more digits than Forktail's type), and where either
// side is a DOUBLE also within a relative 1e-6.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "olap/session/format/copy_reader.h"
#include "olap/session/sql_session.h"

namespace forktail::duckdb_answers {

namespace fs = std::filesystem;

using TextRow = std::vector<std::optional<std::string>>;

struct Answer {
  std::vector<std::string> names;
  std::vector<std::string> types;  // DuckDB's
  std::vector<TextRow> rows;
};

inline std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

inline Answer ReadAnswer(const fs::path& path) {
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
inline fs::path SourceDir() {
  fs::path file(__FILE__);
  if (file.is_absolute()) return file.parent_path().parent_path().parent_path().parent_path();
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

enum class Compare { kText, kDecimal, kApprox };

inline Compare CompareFor(const std::string& duck, const Type& ours) {
  const bool duck_double = duck == "DOUBLE" || duck == "FLOAT";
  const bool duck_decimal = duck.rfind("DECIMAL", 0) == 0;
  if (duck_double || ours.id == TypeId::kDouble) return Compare::kApprox;
  if (duck_decimal || ours.id == TypeId::kDecimal) return Compare::kDecimal;
  return Compare::kText;
}

inline std::optional<long double> ParseNumber(const std::string& s, int* decimals) {
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

inline std::string RTrim(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// `ignore_trailing_blanks`: CHAR(n)'s padding (DuckDB has no CHAR type).
inline bool CellsEqual(const std::optional<std::string>& expected,
                       const std::optional<std::string>& actual, Compare how,
                       bool ignore_trailing_blanks) {
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
  if (ignore_trailing_blanks) return RTrim(*expected) == RTrim(*actual);
  return *expected == *actual;
}

inline std::string Show(const TextRow& row) {
  std::string s;
  for (size_t i = 0; i < row.size(); i++) {
    if (i) s += " | ";
    s += row[i].value_or("NULL");
  }
  return s;
}

// Forktail's rows as text, as the answer files hold DuckDB's.
inline std::vector<TextRow> ToTextRows(const StatementResult& result) {
  std::vector<TextRow> rows;
  for (const Row& row : result.rows) {
    TextRow r;
    for (const Value& v : row) {
      r.push_back(v.is_null() ? std::nullopt : std::optional<std::string>(v.ToString()));
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

// Adds a failure for each of the first five rows that differ (same row count
// and order are the caller's assertions).
inline void ExpectRowsEqual(const std::string& name, const Answer& expected,
                            const std::vector<TextRow>& want, const StatementResult& result,
                            const std::vector<TextRow>& actual, bool ignore_trailing_blanks) {
  std::vector<Compare> how(expected.types.size());
  for (size_t c = 0; c < how.size(); c++) {
    how[c] = CompareFor(expected.types[c], result.columns[c].type);
  }
  int mismatches = 0;
  for (size_t r = 0; r < want.size() && mismatches < 5; r++) {
    ASSERT_EQ(actual[r].size(), want[r].size());
    for (size_t c = 0; c < want[r].size(); c++) {
      if (!CellsEqual(want[r][c], actual[r][c], how[c], ignore_trailing_blanks)) {
        ADD_FAILURE() << name << " row " << r << " column " << expected.names[c]
                      << ":\n  DuckDB:   " << Show(want[r]) << "\n  Forktail: " << Show(actual[r]);
        mismatches++;
        break;
      }
    }
  }
}

}  // namespace forktail::duckdb_answers
