// Real SQL corpora parse: the 22 TPC-H queries (DuckDB's text, copied from
// /work/tpch/queries into tests/olap/data/tpch/) and every SQL text the
// recorded client traces sent (psql \d, pgbench, psycopg, JDBC incl.
// metadata calls, sqllogictest, a TPC-C driver), extracted by
// tests/olap/data/extract_trace_sql.py into tests/olap/data/parser_traces.sql.
// Also a 1 MB, 10k-row INSERT (the parser must stay linear).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "olap/parser/parser.h"
#include "storage/error.h"

namespace forktail::sql {
namespace {

std::filesystem::path DataDir() {
  return std::filesystem::path(__FILE__).parent_path().parent_path() / "data";
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// parser_traces.sql holds one statement string per line with \n \r \t \\ escaped.
std::string Unescape(const std::string& line) {
  std::string out;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '\\' || i + 1 == line.size()) {
      out += line[i];
      continue;
    }
    char c = line[++i];
    out += c == 'n' ? '\n' : c == 'r' ? '\r' : c == 't' ? '\t' : c;
  }
  return out;
}

TEST(ParserCorpus, TpchQueries) {
  for (int q = 1; q <= 22; ++q) {
    char name[16];
    std::snprintf(name, sizeof(name), "q%02d.sql", q);
    std::string text = ReadFile(DataDir() / "tpch" / name);
    SCOPED_TRACE(name);
    std::vector<StatementPtr> stmts;
    try {
      stmts = Parse(text);
    } catch (const DbError& e) {
      FAIL() << e.what() << " at " << e.position();
    }
    ASSERT_EQ(stmts.size(), 1u);
    EXPECT_EQ(stmts[0]->kind, StatementKind::kSelect);
    // The printed form parses again to the same tree.
    std::string printed = ToString(*stmts[0]);
    EXPECT_EQ(ToString(*Parse(printed).at(0)), printed);
  }
}

TEST(ParserCorpus, TpchShapes) {
  std::vector<StatementPtr> q1 = Parse(ReadFile(DataDir() / "tpch" / "q01.sql"));
  const Query& query = *q1[0]->query;
  EXPECT_EQ(query.select_list.size(), 10u);
  EXPECT_EQ(query.select_list[9].alias, "count_order");
  EXPECT_TRUE(query.select_list[9].expr->star);
  EXPECT_EQ(query.group_by.size(), 2u);
  EXPECT_EQ(query.order_by.size(), 2u);
  EXPECT_EQ(query.from.at(0)->names, QualifiedName{"lineitem"});

  std::vector<StatementPtr> q15 = Parse(ReadFile(DataDir() / "tpch" / "q15.sql"));
  EXPECT_EQ(q15[0]->query->with.size(), 1u);
}

TEST(ParserCorpus, ClientTraceStatements) {
  std::ifstream in(DataDir() / "parser_traces.sql");
  ASSERT_TRUE(in);
  std::string line;
  int texts = 0;
  int statements = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::string text = Unescape(line);
    SCOPED_TRACE(text);
    try {
      statements += static_cast<int>(Parse(text).size());
    } catch (const DbError& e) {
      ADD_FAILURE() << e.what() << " at " << e.position();
    }
    ++texts;
  }
  EXPECT_GE(texts, 150);
  EXPECT_GE(statements, texts - 5);  // a few texts are ';' alone
}

TEST(ParserCorpus, LargeInsertIsLinear) {
  std::string sql = "INSERT INTO t (a, b, c, d) VALUES ";
  for (int i = 0; i < 10000; ++i) {
    if (i > 0) sql += ",\n";
    sql += "(" + std::to_string(i) + ", 'name " + std::to_string(i) +
           " with some padding text to reach about one hundred bytes per row', " +
           std::to_string(i * 1.5) + ", DATE '2024-01-02')";
  }
  ASSERT_GT(sql.size(), 1000000u);
  std::vector<StatementPtr> stmts = Parse(sql);
  ASSERT_EQ(stmts.size(), 1u);
  const Query& values = *stmts[0]->insert->source;
  ASSERT_EQ(values.values.size(), 10000u);
  EXPECT_EQ(values.values[9999][0]->text, "9999");
  EXPECT_EQ(stmts[0]->end, sql.size());
}

}  // namespace
}  // namespace forktail::sql
