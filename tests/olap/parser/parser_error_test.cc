// Syntax errors: PostgreSQL 15's exact message and 1-based character
// position. Every expected value below was produced by a real PostgreSQL 15
// server (psycopg's Diagnostic.message_primary / statement_position) from the
// same text; regenerate them the same way when adding cases.
#include <gtest/gtest.h>

#include <string>

#include "olap/parser/parser.h"
#include "storage/error.h"

namespace forktail::sql {
namespace {

struct ErrorCase {
  const char* sql;
  const char* message;
  int position;
};

// clang-format off
const ErrorCase kCases[] = {
      {"SELECT * FORM t", "syntax error at or near \"FORM\"", 10},
      {"INSERT INTO t VALUES (1) ON CONFLICT DO", "syntax error at end of input", 40},
      {"INSERT INTO t VALUES (1) ON CONFLICT DO UPDATE v = 1", "syntax error at or near \"v\"", 48},
      {"SELECT é FORM t", "syntax error at or near \"t\"", 15},
      {"SELECT (1", "syntax error at end of input", 10},
      {"SELECT (1   ", "syntax error at end of input", 13},
      {"SELECT 1 +", "syntax error at end of input", 11},
      {"selec 1", "syntax error at or near \"selec\"", 1},
      {"select 1 2", "syntax error at or near \"2\"", 10},
      {"select 1,,2", "syntax error at or near \",\"", 10},
      {"SELECT 1 as", "syntax error at end of input", 12},
      {"SELECT a b c", "syntax error at or near \"c\"", 12},
      {"select 1 = 1 = true", "syntax error at or near \"=\"", 14},
      {"select 1 < 2 < 3", "syntax error at or near \"<\"", 14},
      {"SELECT 'a' LIKE 'b' LIKE 'c'", "syntax error at or near \"LIKE\"", 21},
      {"SELECT 1 BETWEEN 0 AND 2 BETWEEN true AND true", "syntax error at or near \"BETWEEN\"", 26},
      {"select * from (select 1) x join", "syntax error at end of input", 32},
      {"select count(*) from", "syntax error at end of input", 21},
      {"select 1 union", "syntax error at end of input", 15},
      {"select x from t order", "syntax error at end of input", 22},
      {"SELECT 1 FROM t WINDOW w (ORDER BY 1)", "syntax error at or near \"(\"", 26},
      {"SELECT 1 FROM t WINDOW w AS ORDER BY 1", "syntax error at or near \"ORDER\"", 29},
      {"select 1 where", "syntax error at end of input", 15},
      {"select case when 1 then 2", "syntax error at end of input", 26},
      {"select cast(1 as)", "syntax error at or near \")\"", 17},
      {"create table t (a int", "syntax error at end of input", 22},
      {"create table (a int)", "syntax error at or near \"(\"", 14},
      {"insert into t values (1", "syntax error at end of input", 24},
      {"insert into t values", "syntax error at end of input", 21},
      {"update t set", "syntax error at end of input", 13},
      {"delete t", "syntax error at or near \"t\"", 8},
      {"drop table", "syntax error at end of input", 11},
      {"select * from t where a in ()", "syntax error at or near \")\"", 29},
      {"SELECT * FROM t LIMIT", "syntax error at end of input", 22},
      {"SELECT f(", "syntax error at end of input", 10},
      {"select x::", "syntax error at end of input", 11},
      {"select 'a' || ", "syntax error at end of input", 15},
      {"select (select 1", "syntax error at end of input", 17},
      {"select * from t as", "syntax error at end of input", 19},
      {"select 1 from t group 1", "syntax error at or near \"1\"", 23},
      {"SELECT distinct on 1", "syntax error at or near \"1\"", 20},
      {"with x as select 1 select 2", "syntax error at or near \"select\"", 11},
      {"SELECT abs(-1) over", "syntax error at end of input", 20},
      {"begin isolation level blah", "syntax error at or near \"blah\"", 23},
      {"select array[1,2", "syntax error at end of input", 17},
      {"select extract(year 1)", "syntax error at or near \"1\"", 21},
      {"select 1 from t t2 t3", "syntax error at or near \"t3\"", 20},
      {"copy t from", "syntax error at end of input", 12},
      {"explain", "syntax error at end of input", 8},
      {"vacuum 1", "syntax error at or near \"1\"", 8},
      {"checkpoint now", "syntax error at or near \"now\"", 12},
      {"select 1 from (select 1) ", "subquery in FROM must have an alias", 15},
      {"VALUES (1),(1,2)", "VALUES lists must all be the same length", 13},
      {"VALUES (1,2),(1)", "VALUES lists must all be the same length", 15},
      {"select 1 limit 1, 2", "LIMIT #,# syntax is not supported", 10},
      {"(select 1 order by 1) order by 1", "multiple ORDER BY clauses not allowed", 32},
      {"select 1 order by 1 order by 1", "syntax error at or near \"order\"", 21},
      {"select x from t t1 join t2", "syntax error at end of input", 27},
      {"select 1 from t natural", "syntax error at end of input", 24},
      {"select 1 + ;", "syntax error at or near \";\"", 12},
      {"SELECT 1; SELECT (2", "syntax error at end of input", 20},
      {"SELECT * FROM t WHERE a = 'é' AND b =", "syntax error at end of input", 38},
      {"SELECT 'é' éé FROM t WHERE", "syntax error at end of input", 27},
      {"SELECT * FROM t WHERE x = 1 garbage", "syntax error at or near \"garbage\"", 29},
      {"SELECT select", "syntax error at or near \"select\"", 8},
      {"SELECT * FROM select", "syntax error at or near \"select\"", 15},
      {"CREATE TABLE t (a int, b)", "syntax error at or near \")\"", 25},
      {"SELECT * FROM t JOIN u", "syntax error at end of input", 23},
      {"INSERT INTO t (a, b VALUES (1)", "syntax error at or near \"VALUES\"", 21},
      {"UPDATE t SET a = 1 WHERE", "syntax error at end of input", 25},
      {"SELECT a FROM t WHERE b IS", "syntax error at end of input", 27},
      {"SELECT a FROM t WHERE b IS NOT 5", "syntax error at or near \"5\"", 32},
      {"SELECT CASE END", "syntax error at or near \"END\"", 13},
      {"SELECT 1 FROM t ORDER BY a DESC NULLS", "syntax error at or near \"NULLS\"", 33},
      {"SELECT * FROM t WHERE a NOT 5", "syntax error at or near \"NOT\"", 25},
      {"SELECT $", "syntax error at or near \"$\"", 8},
      {"DROP TABLE t,", "syntax error at end of input", 14},
      {"SET x", "syntax error at end of input", 6},
      {"SHOW", "syntax error at end of input", 5},
      {"SELECT a FROM t GROUP BY", "syntax error at end of input", 25},
      {"SELECT a FROM t HAVING", "syntax error at end of input", 23},
      {"SELECT INTERVAL 'x' YEAR TO", "syntax error at end of input", 28},
      {"SELECT (1, 2", "syntax error at end of input", 13},
      {"SELECT count(* ", "syntax error at end of input", 16},
      {"SELECT 1 FROM t LEFT JOIN u USING a", "syntax error at or near \"a\"", 35},
      {"SELECT * FROM t WHERE a = ANY (", "syntax error at end of input", 32},
      {"TRUNCATE", "syntax error at end of input", 9},
      {"COPY t TO", "syntax error at end of input", 10},
      {"SELECT 1 FOR", "syntax error at end of input", 13},
      {"EXPLAIN ANALYZE", "syntax error at end of input", 16},
      {"CREATE TABLE select (a int)", "syntax error at or near \"select\"", 14},
      {"CREATE TABLE t (select int)", "syntax error at or near \"select\"", 17},
      {"SELECT a AS FROM t", "syntax error at or near \"t\"", 18},
      {"SELECT * FROM t AS where", "syntax error at or near \"where\"", 20},
      {"SELECT * FROM t WHERE order = 1", "syntax error at or near \"order\"", 23},
      {"INSERT INTO from VALUES (1)", "syntax error at or near \"from\"", 13},
      {"UPDATE t SET from = 1", "syntax error at or near \"from\"", 14},
      {"SELECT left FROM t", "syntax error at or near \"FROM\"", 13},
      {"SELECT 1 FROM t AS x(select)", "syntax error at or near \"select\"", 22},
      {"DROP TABLE where", "syntax error at or near \"where\"", 12},
      {"SELECT count(*) FILTER (a > 1) FROM t", "syntax error at or near \"a\"", 25},
      {"SELECT * FROM t LEFT JOIN u", "syntax error at end of input", 28},
      {"SELECT * FROM t NATURAL JOIN u ON true", "syntax error at or near \"ON\"", 32},
      {"SELECT * FROM t CROSS JOIN u ON true", "syntax error at or near \"ON\"", 30},
      {"SELECT a IN 1", "syntax error at or near \"1\"", 13},
      {"SELECT 1 IS 5", "syntax error at or near \"5\"", 13},
      {"SELECT CAST(1 AS int", "syntax error at end of input", 21},
      {"SELECT * FROM t WHERE a = ANY 1", "syntax error at or near \"1\"", 31},
      {"WITH t AS (SELECT 1)", "syntax error at end of input", 21},
      {"BEGIN ISOLATION LEVEL", "syntax error at end of input", 22},
      {"SET", "syntax error at end of input", 4},
      {"SET TIME ZONE", "syntax error at end of input", 14},
      {"COPY t FROM STDIN WITH (FORMAT", "syntax error at end of input", 31},
      {"CREATE INDEX ON t", "syntax error at end of input", 18},
      {"ALTER TABLE t ADD PRIMARY KEY", "syntax error at end of input", 30},
      {"ALTER TABLE t", "syntax error at end of input", 14},
      {"ALTER TABLE t RENAME a", "syntax error at end of input", 23},
      {"ALTER TABLE t ALTER COLUMN a", "syntax error at end of input", 29},
      {"ALTER TABLE t ADD COLUMN a int,", "syntax error at end of input", 32},
      {"VALUES", "syntax error at end of input", 7},
      {"VALUES ()", "syntax error at or near \")\"", 9},
      {"SELECT ARRAY[1, 2", "syntax error at end of input", 18},
      {"SELECT (SELECT 1, 2", "syntax error at end of input", 20},
      {"SELECT CASE WHEN THEN 1 END", "syntax error at or near \"THEN\"", 18},
      {"SELECT 'é' ||| 'x' FROM", "syntax error at end of input", 24},
      {"SELECT * FROM t WHERE a = 1 AND AND b = 2", "syntax error at or near \"AND\"", 33},
      {"SELECT * FROM t GROUP BY ORDER BY 1", "syntax error at or near \"ORDER\"", 26},
      {"SELECT DISTINCT FROM t", "syntax error at or near \"FROM\"", 17},
      {"SELECT 1 LIMIT ALL ALL", "syntax error at or near \"ALL\"", 20},
      {"TRUNCATE TABLE", "syntax error at end of input", 15},
      {"EXPLAIN ANALYZE VACUUM", "syntax error at or near \"VACUUM\"", 17},
      {"EXPLAIN (ANALYZE", "syntax error at end of input", 17},
      {"SELECT INTERVAL '1' DAY TO YEAR", "syntax error at or near \"YEAR\"", 28},
      {"SELECT TIMESTAMP WITH TIME ZONE", "syntax error at end of input", 32},
      {"SELECT x::", "syntax error at end of input", 11},
      {"SELECT x::int(", "syntax error at or near \"(\"", 14},
      {"DEALLOCATE", "syntax error at end of input", 11},
      {"DISCARD", "syntax error at end of input", 8},
      {"SHOW ALL ALL", "syntax error at or near \"ALL\"", 10},
      {"PREPARE", "syntax error at end of input", 8},
      {"PREPARE p", "syntax error at end of input", 10},
      {"PREPARE p AS", "syntax error at end of input", 13},
      {"PREPARE p AS CREATE TABLE t (a int)", "syntax error at or near \"CREATE\"", 14},
      {"PREPARE p (int AS SELECT 1", "syntax error at or near \"AS\"", 16},
      {"EXECUTE", "syntax error at end of input", 8},
      {"EXECUTE p (", "syntax error at end of input", 12},
      {"EXECUTE p (1,", "syntax error at end of input", 14},
      {"CALL", "syntax error at end of input", 5},
      {"CALL p", "syntax error at end of input", 7},
      {"CALL p(1", "syntax error at end of input", 9},
      {"CALL p(1,)", "syntax error at or near \")\"", 10},
      {"CALL p.", "syntax error at end of input", 8},
      {"SELECT * FROM t TABLESAMPLE", "syntax error at end of input", 28},
      {"SELECT * FROM t TABLESAMPLE bernoulli", "syntax error at end of input", 38},
      {"SELECT * FROM t TABLESAMPLE bernoulli ()", "syntax error at or near \")\"", 40},
      {"SELECT * FROM t TABLESAMPLE bernoulli (1) REPEATABLE", "syntax error at end of input", 53},
      {"SELECT 'a' SIMILAR 'b'", "syntax error at or near \"'b'\"", 20},
      {"SELECT 1 FROM t GROUP BY ROLLUP ()", "syntax error at or near \")\"", 34},
      {"SELECT 1 FROM t GROUP BY GROUPING SETS", "syntax error at end of input", 39},
      {"SELECT 1 FROM t GROUP BY GROUPING SETS (a", "syntax error at end of input", 42},
      {"SELECT 1 FROM t GROUP BY CUBE (a, ())", "syntax error at or near \")\"", 36},
      {"SELECT 1 FROM t GROUP BY (", "syntax error at end of input", 27},
      {"SELECT 1 FROM t GROUP BY ROLLUP (a,)", "syntax error at or near \")\"", 36},
      {"SELECT 1 FROM t GROUP BY GROUPING SETS ()", "syntax error at or near \")\"", 41},
      {"CREATE TABLE t AS SELECT 1 WITH NO", "syntax error at end of input", 35},
      {"CREATE TABLE t AS SELECT 1 WITH", "syntax error at end of input", 32},
      {"SELECT 1 INTO", "syntax error at end of input", 14},
      {"SELECT 1 INTO TABLE", "syntax error at end of input", 20},
      {"CREATE TABLE t (a) AS", "syntax error at end of input", 22},
      {"SELECT * FROM f() AS x(a int", "syntax error at end of input", 29},
      {"CREATE TABLE n (LIKE t INCLUDING)", "syntax error at or near \")\"", 33},
      {"CREATE TABLE n (LIKE t EXCLUDING nonsense)", "syntax error at or near \"nonsense\"", 34},
      {"SELECT * FROM f() AS x(a, b int)", "syntax error at or near \"int\"", 29},
      {"SELECT * FROM (VALUES (1)) v(a int)", "syntax error at or near \"int\"", 32},
};
// clang-format on

TEST(ParserErrors, MatchPostgres15) {
  for (const ErrorCase& c : kCases) {
    SCOPED_TRACE(c.sql);
    try {
      Parse(c.sql);
      ADD_FAILURE() << "parsed without error";
    } catch (const DbError& e) {
      EXPECT_STREQ(e.sqlstate(), sqlstate::kSyntaxError);
      EXPECT_EQ(std::string(e.what()), c.message);
      EXPECT_EQ(e.position(), c.position);
    }
  }
}

// Statements and objects PostgreSQL has and Forktail does not: 0A000 naming
// them, not a syntax error; an unknown word stays a syntax error.
TEST(ParserErrors, MissingStatementsAreNotSupportedNotSyntaxErrors) {
  struct Case {
    const char* sql;
    const char* message;
    int position;
  };
  for (const Case& c :
       {Case{"CREATE TEMP VIEW v AS SELECT 1", "CREATE TEMPORARY VIEW is not supported", 13},
        Case{"create view v with (security_barrier) as select 1",
             "CREATE VIEW ... WITH (options) is not supported", 15},
        Case{"CREATE MATERIALIZED VIEW m AS SELECT 1", "CREATE MATERIALIZED VIEW is not supported",
             8},
        Case{"ALTER SEQUENCE s OWNER TO u", "ALTER SEQUENCE ... OWNER TO is not supported", 18},
        Case{"ALTER SEQUENCE s SET SCHEMA x", "ALTER SEQUENCE ... SET SCHEMA is not supported", 18},
        Case{"COPY t TO PROGRAM 'cat'", "COPY ... PROGRAM is not supported", 11},
        Case{"COPY (DELETE FROM t RETURNING a) TO STDOUT",
             "COPY (INSERT / UPDATE / DELETE ... RETURNING) TO is not supported", 7},
        Case{"UPDATE t SET a = 1 WHERE CURRENT OF c", "WHERE CURRENT OF is not supported", 26},
        Case{"DELETE FROM t WHERE CURRENT OF c", "WHERE CURRENT OF is not supported", 21},
        Case{"SELECT 1; LOCK TABLE t", "LOCK is not supported", 11},
        Case{"CREATE TABLE m (a int, b date) PARTITION BY RANGE (b)",
             "CREATE TABLE ... PARTITION BY (partitioned tables) is not supported", 32},
        Case{"create table c (a int) inherits (p)",
             "CREATE TABLE ... INHERITS (table inheritance) is not supported", 24},
        Case{"create table c (a int) with (fillfactor = 70) tablespace fast",
             "CREATE TABLE ... TABLESPACE is not supported", 47},
        Case{"create table c (a int) using heap",
             "CREATE TABLE ... USING (table access methods) is not supported", 24},
        Case{"create temp table c (a int) on commit drop",
             "CREATE TABLE ... ON COMMIT DROP / DELETE ROWS is not supported", 29},
        Case{"create temp table c on commit delete rows as select 1",
             "CREATE TABLE ... ON COMMIT DROP / DELETE ROWS is not supported", 21}}) {
    SCOPED_TRACE(c.sql);
    try {
      Parse(c.sql);
      ADD_FAILURE() << "parsed without error";
    } catch (const DbError& e) {
      EXPECT_STREQ(e.sqlstate(), sqlstate::kFeatureNotSupported);
      EXPECT_EQ(std::string(e.what()), c.message);
      EXPECT_EQ(e.position(), c.position);
    }
  }
  // The one ON COMMIT a temporary table already behaves as; only on one.
  EXPECT_NO_THROW(Parse("create temp table c (a int) on commit preserve rows"));
  EXPECT_NO_THROW(Parse("create temp table c on commit preserve rows as select 1"));
  try {
    Parse("create table c (a int) on commit preserve rows");
    ADD_FAILURE() << "parsed without error";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kInvalidTableDefinition);
  }
  try {
    Parse("CREATE FOO x");
    ADD_FAILURE() << "parsed without error";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kSyntaxError);
  }
}

TEST(ParserErrors, ErrorInLaterStatementFailsTheWholeString) {
  // PostgreSQL parses a multi-statement string completely before running any
  // of it; the position is relative to the whole string.
  try {
    Parse("SELECT 1; SELECT 2; SELEC 3");
    ADD_FAILURE() << "parsed without error";
  } catch (const DbError& e) {
    EXPECT_EQ(std::string(e.what()), "syntax error at or near \"SELEC\"");
    EXPECT_EQ(e.position(), 21);
  }
}

TEST(ParserErrors, NestingIsBounded) {
  // Deep but reasonable nesting parses; absurd nesting is a clean error, not a
  // stack overflow in the parser, the printer or the tree's destructor.
  std::string ok = "SELECT " + std::string(300, '(') + "1" + std::string(300, ')');
  EXPECT_EQ(Parse(ok).size(), 1u);
  std::string conjuncts = "SELECT 1 WHERE a = 0";
  for (int i = 1; i < 5000; ++i) conjuncts += " AND a = " + std::to_string(i);
  std::vector<StatementPtr> flat = Parse(conjuncts);
  EXPECT_EQ(flat[0]->query->where->children.size(), 5000u);

  std::string parens = "SELECT " + std::string(20000, '(') + "1" + std::string(20000, ')');
  std::string chain = "SELECT 1";
  for (int i = 0; i < 20000; ++i) chain += "+1";
  std::string nots = "SELECT ";
  for (int i = 0; i < 20000; ++i) nots += "NOT ";
  nots += "TRUE";
  for (const std::string* sql : {&parens, &chain, &nots}) {
    try {
      Parse(*sql);
      ADD_FAILURE() << "parsed without error";
    } catch (const DbError& e) {
      EXPECT_STREQ(e.sqlstate(), sqlstate::kProgramLimitExceeded);
      EXPECT_EQ(std::string(e.what()), "stack depth limit exceeded");
    }
  }
}

}  // namespace
}  // namespace forktail::sql
