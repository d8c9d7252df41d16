// Statement round trips: every statement kind parses into the expected tree
// (checked through the printer, plus direct field checks where the printer
// hides a distinction), statement splitting and text spans.
#include <gtest/gtest.h>

#include <string>

#include "olap/parser/parser.h"
#include "storage/error.h"

namespace forktail::sql {
namespace {

std::string S(std::string_view sql) {
  std::vector<StatementPtr> stmts = Parse(sql);
  EXPECT_EQ(stmts.size(), 1u) << sql;
  return stmts.empty() ? "" : ToString(*stmts[0]);
}

StatementPtr One(std::string_view sql) {
  std::vector<StatementPtr> stmts = Parse(sql);
  EXPECT_EQ(stmts.size(), 1u) << sql;
  return std::move(stmts.at(0));
}

TEST(ParserSelect, Clauses) {
  EXPECT_EQ(S("select a, b + 1 AS c, d e FROM t WHERE x > 1 GROUP BY a, 2 HAVING sum(b) > 3 "
              "ORDER BY 1 DESC NULLS FIRST, c ASC, e NULLS LAST LIMIT 10 OFFSET 5"),
            "SELECT a, (b + 1) AS c, d AS e FROM t WHERE (x > 1) GROUP BY a, 2 HAVING (sum(b) > 3) "
            "ORDER BY 1 DESC NULLS FIRST, c, e NULLS LAST LIMIT 10 OFFSET 5");
  EXPECT_EQ(
      S("SELECT rank() OVER w FROM t GROUP BY a HAVING count(*) > 1 WINDOW w AS (ORDER BY "
        "a), v AS (w ROWS 1 PRECEDING) ORDER BY 1"),
      "SELECT rank() OVER w FROM t GROUP BY a HAVING (count(*) > 1) WINDOW w AS (ORDER BY a), "
      "v AS (w ROWS 1 PRECEDING) ORDER BY 1");
  EXPECT_EQ(S("SELECT DISTINCT a FROM t"), "SELECT DISTINCT a FROM t");
  // Grouping sets: plain items (a parenthesized list too) are in every set;
  // (a, b) inside ROLLUP / CUBE / GROUPING SETS is one element; (a) + 1 is
  // an expression.
  EXPECT_EQ(S("SELECT 1 FROM t GROUP BY (a, b), ROLLUP (c, (d, e)), CUBE (f), ()"),
            "SELECT 1 FROM t GROUP BY a, b, ROLLUP ((c), (d, e)), CUBE ((f)), ()");
  EXPECT_EQ(S("SELECT 1 FROM t GROUP BY DISTINCT GROUPING SETS ((a), b, (), ROLLUP (a), "
              "GROUPING SETS (c)), (a) + 1"),
            "SELECT 1 FROM t GROUP BY DISTINCT (a + 1), GROUPING SETS ((a), (b), (), ROLLUP "
            "((a)), GROUPING SETS ((c)))");
  EXPECT_EQ(S("SELECT rollup(a) FROM t GROUP BY row(a, b)"),
            "SELECT rollup(a) FROM t GROUP BY ROW(a, b)");
  // CREATE TABLE (LIKE t ...): INCLUDING / EXCLUDING in order, ALL as all.
  EXPECT_EQ(S("CREATE TABLE n (a int, LIKE s.t INCLUDING ALL EXCLUDING INDEXES, b text)"),
            "CREATE TABLE n (a int4, LIKE s.t INCLUDING COMMENTS INCLUDING COMPRESSION INCLUDING "
            "CONSTRAINTS INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING IDENTITY INCLUDING "
            "STATISTICS INCLUDING STORAGE, b text)");
  EXPECT_EQ(S("CREATE TABLE n (LIKE t INCLUDING DEFAULTS INCLUDING ALL)"),
            "CREATE TABLE n (LIKE t INCLUDING ALL)");
  // A function's column definition list, with or without an alias.
  EXPECT_EQ(S("SELECT * FROM jsonb_to_record(j) AS x(a int, \"B\" varchar(3))"),
            "SELECT * FROM jsonb_to_record(j) AS x(a int4, B varchar(3))");
  EXPECT_EQ(S("SELECT * FROM jsonb_to_recordset(j) AS (a int)"),
            "SELECT * FROM jsonb_to_recordset(j) AS (a int4)");
  EXPECT_EQ(S("SELECT * FROM f(1) x(a, b)"), "SELECT * FROM f(1) AS x(a, b)");
  // CREATE TABLE AS, and SELECT .. INTO as one (INTO in the first SELECT).
  EXPECT_EQ(S("CREATE TABLE n (x, \"Y\") AS SELECT a, b FROM t WITH NO DATA"),
            "CREATE TABLE n (x, Y) AS SELECT a, b FROM t WITH NO DATA");
  EXPECT_EQ(S("CREATE TABLE n AS SELECT 1 WITH DATA"), "CREATE TABLE n AS SELECT 1");
  EXPECT_EQ(S("SELECT a INTO TABLE n FROM t UNION SELECT 2"),
            "CREATE TABLE n AS (SELECT a FROM t) UNION (SELECT 2)");
  EXPECT_EQ(S("SELECT * INTO TEMP n FROM t"), "CREATE TEMPORARY TABLE n AS SELECT * FROM t");
  EXPECT_EQ(S("SELECT DISTINCT ON (a, b) a, c FROM t"), "SELECT DISTINCT ON (a, b) a, c FROM t");
  EXPECT_EQ(S("SELECT ALL a FROM t"), "SELECT a FROM t");
  EXPECT_EQ(S("SELECT *, t.* FROM t"), "SELECT *, t.* FROM t");
  EXPECT_EQ(S("SELECT 1"), "SELECT 1");
  EXPECT_EQ(S("SELECT FROM t"), "SELECT FROM t");
  EXPECT_EQ(S("SELECT a \"Quoted Alias\", b AS select FROM t"),
            "SELECT a AS Quoted Alias, b AS select FROM t");
  EXPECT_EQ(S("SELECT a FROM t LIMIT ALL"), "SELECT a FROM t");
  EXPECT_EQ(S("SELECT a FROM t OFFSET 5 ROWS FETCH FIRST 3 ROWS ONLY"),
            "SELECT a FROM t LIMIT 3 OFFSET 5");
  EXPECT_EQ(S("SELECT a FROM t FETCH NEXT ROW ONLY"), "SELECT a FROM t LIMIT 1");
  EXPECT_EQ(S("SELECT a FROM t LIMIT $1"), "SELECT a FROM t LIMIT $1");
  EXPECT_EQ(S("SELECT a FROM t ORDER BY a LIMIT 1 FOR UPDATE"),
            "SELECT a FROM t ORDER BY a LIMIT 1 FOR update");
  EXPECT_EQ(S("TABLE t"), "SELECT * FROM t");
  // Keyword operators with nothing after them are bare column labels, as in
  // PostgreSQL (checked against it); elsewhere they stay operators.
  EXPECT_EQ(S("SELECT 'a' LIKE, 1 AND FROM t"), "SELECT 'a' AS like, 1 AS and FROM t");
  EXPECT_EQ(S("SELECT 1 + 2 is"), "SELECT (1 + 2) AS is");
  EXPECT_EQ(S("SELECT 1 ISNULL, 2 NOTNULL"), "SELECT (1 IS NULL), (2 IS NOT NULL)");
}

TEST(ParserSelect, FromAndJoins) {
  EXPECT_EQ(S("SELECT * FROM a, b AS x, c y"), "SELECT * FROM a, b AS x, c AS y");
  EXPECT_EQ(S("SELECT * FROM a JOIN b ON a.x = b.x LEFT OUTER JOIN c USING (y, z)"),
            "SELECT * FROM ((a JOIN b ON (a.x = b.x)) LEFT JOIN c USING (y, z))");
  EXPECT_EQ(S("SELECT * FROM a INNER JOIN b ON TRUE RIGHT JOIN c ON TRUE FULL JOIN d ON TRUE"),
            "SELECT * FROM (((a JOIN b ON TRUE) RIGHT JOIN c ON TRUE) FULL JOIN d ON TRUE)");
  EXPECT_EQ(S("SELECT * FROM a CROSS JOIN b NATURAL JOIN c NATURAL LEFT JOIN d"),
            "SELECT * FROM (((a CROSS JOIN b) NATURAL JOIN c) NATURAL LEFT JOIN d)");
  EXPECT_EQ(S("SELECT * FROM (SELECT 1) AS s(a), (SELECT 2) u"),
            "SELECT * FROM (SELECT 1) AS s(a), (SELECT 2) AS u");
  EXPECT_EQ(S("SELECT * FROM (a JOIN b ON TRUE) j"), "SELECT * FROM (a JOIN b ON TRUE) AS j");
  EXPECT_EQ(S("SELECT * FROM public.t, s.u AS v"), "SELECT * FROM public.t, s.u AS v");
  EXPECT_EQ(S("SELECT * FROM generate_series(1, 10) AS g(i)"),
            "SELECT * FROM generate_series(1, 10) AS g(i)");
  EXPECT_EQ(S("SELECT * FROM f(t.x) WITH ORDINALITY AS a(relid, depth)"),
            "SELECT * FROM f(t.x) WITH ORDINALITY AS a(relid, depth)");
  EXPECT_EQ(S("SELECT * FROM t CROSS JOIN LATERAL (SELECT t.a) AS o(n)"),
            "SELECT * FROM (t CROSS JOIN LATERAL (SELECT t.a) AS o(n))");

  StatementPtr st = One("SELECT * FROM a LEFT JOIN b ON a.x = b.y");
  const TableRef& join = *st->query->from.at(0);
  EXPECT_EQ(join.kind, TableRefKind::kJoin);
  EXPECT_EQ(join.join_kind, JoinKind::kLeft);
  EXPECT_EQ(join.left->names, QualifiedName{"a"});
  EXPECT_EQ(join.right->position, 27);
}

TEST(ParserSelect, SetOperations) {
  EXPECT_EQ(S("SELECT 1 UNION SELECT 2 UNION ALL SELECT 3"),
            "((SELECT 1) UNION (SELECT 2)) UNION ALL (SELECT 3)");
  EXPECT_EQ(S("SELECT 1 UNION SELECT 2 INTERSECT SELECT 3"),
            "(SELECT 1) UNION ((SELECT 2) INTERSECT (SELECT 3))");
  EXPECT_EQ(S("SELECT 1 EXCEPT SELECT 2 ORDER BY 1 LIMIT 1"),
            "(SELECT 1) EXCEPT (SELECT 2) ORDER BY 1 LIMIT 1");
  EXPECT_EQ(S("(SELECT 1 UNION SELECT 2) INTERSECT (SELECT 3 ORDER BY 1 LIMIT 1)"),
            "((SELECT 1) UNION (SELECT 2)) INTERSECT (SELECT 3 ORDER BY 1 LIMIT 1)");
  EXPECT_EQ(S("((SELECT 1))"), "SELECT 1");
  EXPECT_EQ(S("SELECT 1 UNION DISTINCT SELECT 2"), "(SELECT 1) UNION (SELECT 2)");
}

TEST(ParserSelect, WithAndValues) {
  EXPECT_EQ(S("WITH a AS (SELECT 1), b(x, y) AS (SELECT 2, 3) SELECT * FROM a, b"),
            "WITH a AS (SELECT 1), b(x, y) AS (SELECT 2, 3) SELECT * FROM a, b");
  EXPECT_EQ(S("WITH RECURSIVE r AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT * FROM r"),
            "WITH RECURSIVE r AS ((SELECT 1) UNION ALL (SELECT (n + 1) FROM r)) SELECT * FROM r");
  EXPECT_EQ(S("VALUES (1, 'a'), (2, 'b') ORDER BY 1"), "VALUES (1, 'a'), (2, 'b') ORDER BY 1");
  EXPECT_EQ(S("SELECT * FROM (VALUES (1), (2)) AS v(x)"),
            "SELECT * FROM (VALUES (1), (2)) AS v(x)");
  StatementPtr st = One("WITH c AS (SELECT 1) SELECT 1 UNION SELECT 2");
  EXPECT_EQ(st->query->kind, QueryKind::kSetOp);
  EXPECT_EQ(st->query->with.size(), 1u);
}

TEST(ParserDml, Insert) {
  EXPECT_EQ(S("INSERT INTO t VALUES (1, 'x'), (2, DEFAULT)"),
            "INSERT INTO t VALUES (1, 'x'), (2, DEFAULT)");
  EXPECT_EQ(S("insert into s.t (a, b) select x, y from u where z returning a, b + 1 as c"),
            "INSERT INTO s.t (a, b) SELECT x, y FROM u WHERE z RETURNING a, (b + 1) AS c");
  EXPECT_EQ(S("INSERT INTO t DEFAULT VALUES"), "INSERT INTO t DEFAULT VALUES");
  EXPECT_EQ(S("INSERT INTO t (SELECT 1)"), "INSERT INTO t SELECT 1");
  EXPECT_EQ(S("INSERT INTO t (a) VALUES ($1) RETURNING *"),
            "INSERT INTO t (a) VALUES ($1) RETURNING *");
  StatementPtr st = One("INSERT INTO t (a, b) VALUES (1, 2)");
  ASSERT_EQ(st->kind, StatementKind::kInsert);
  EXPECT_EQ(st->insert->columns, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(st->insert->source->kind, QueryKind::kValues);
  EXPECT_EQ(st->insert->table_position, 13);
}

TEST(ParserDml, InsertOnConflict) {
  EXPECT_EQ(S("insert into t values (1) on conflict do nothing"),
            "INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING");
  EXPECT_EQ(S("insert into t as x values (1, 2) on conflict (a, b) do update set v = excluded.v, "
              "(c, d) = (1, 2) where x.n > 0 returning *"),
            "INSERT INTO t AS x VALUES (1, 2) ON CONFLICT (a, b) DO UPDATE SET v = excluded.v, "
            "c = 1, d = 2 WHERE (x.n > 0) RETURNING *");
  EXPECT_EQ(S("INSERT INTO t SELECT 1 ON CONFLICT ON CONSTRAINT t_pkey DO NOTHING"),
            "INSERT INTO t SELECT 1 ON CONFLICT ON CONSTRAINT t_pkey DO NOTHING");
  StatementPtr st = One("INSERT INTO t VALUES (1) ON CONFLICT (a,  b) DO NOTHING");
  ASSERT_TRUE(st->insert->on_conflict);
  EXPECT_EQ(st->insert->on_conflict->position, 26);
  EXPECT_EQ(st->insert->on_conflict->target_positions, (std::vector<int>{38, 38}));
  EXPECT_FALSE(st->insert->on_conflict->do_update);
}

TEST(ParserDml, UpdateAndDelete) {
  EXPECT_EQ(S("UPDATE t SET a = a + 1, b = DEFAULT WHERE c = $1"),
            "UPDATE t SET a = (a + 1), b = DEFAULT WHERE (c = $1)");
  EXPECT_EQ(S("UPDATE t AS x SET a = y.b FROM y WHERE x.id = y.id RETURNING a"),
            "UPDATE t AS x SET a = y.b FROM y WHERE (x.id = y.id) RETURNING a");
  EXPECT_EQ(S("UPDATE t SET (a, b) = (1, 2)"), "UPDATE t SET a = 1, b = 2");
  EXPECT_EQ(S("DELETE FROM t"), "DELETE FROM t");
  EXPECT_EQ(S("DELETE FROM t x USING u WHERE x.a = u.a RETURNING x.a"),
            "DELETE FROM t AS x USING u WHERE (x.a = u.a) RETURNING x.a");
  StatementPtr st = One("UPDATE t SET a = 1");
  EXPECT_EQ(st->update->set[0].position, 14);
}

TEST(ParserDdl, CreateTable) {
  EXPECT_EQ(S("CREATE TABLE IF NOT EXISTS t (a int PRIMARY KEY, b varchar(25) NOT NULL DEFAULT "
              "'x', c numeric(15,2) NULL, d char, e double precision, f timestamp, g text "
              "UNIQUE, PRIMARY KEY (a, b), UNIQUE (c)) WITH (fillfactor=100)"),
            "CREATE TABLE IF NOT EXISTS t (a int4 PRIMARY KEY, b varchar(25) NOT NULL DEFAULT "
            "'x', c numeric(15,2) NULL, d bpchar(1), e float8, f timestamp, g text UNIQUE, "
            "PRIMARY KEY (a, b), UNIQUE (c)) WITH (fillfactor '100')");
  EXPECT_EQ(S("create table pgbench_accounts(aid    int not null,bid int,abalance int,filler "
              "char(84)) with (fillfactor=100)"),
            "CREATE TABLE pgbench_accounts (aid int4 NOT NULL, bid int4, abalance int4, filler "
            "bpchar(84)) WITH (fillfactor '100')");
  EXPECT_EQ(S("CREATE TABLE t (a int DEFAULT -1, b int CHECK (b > 0) REFERENCES u (x))"),
            "CREATE TABLE t (a int4 DEFAULT -1, b int4)");
  StatementPtr st = One("CREATE TABLE t (a int, b bigint NOT NULL, CONSTRAINT pk PRIMARY KEY (a))");
  const CreateTableStmt& c = *st->create_table;
  ASSERT_EQ(c.columns.size(), 2u);
  EXPECT_EQ(c.columns[1].type.name, "int8");
  EXPECT_TRUE(c.columns[1].not_null);
  EXPECT_EQ(c.columns[1].position, 24);
  ASSERT_EQ(c.constraints.size(), 1u);
  EXPECT_EQ(c.constraints[0].name, "pk");
  EXPECT_EQ(c.constraints[0].columns, std::vector<std::string>{"a"});
}

TEST(ParserDdl, DropIndexAlterTruncate) {
  EXPECT_EQ(S("DROP TABLE IF EXISTS a, b CASCADE"), "DROP TABLE IF EXISTS a, b CASCADE");
  EXPECT_EQ(S("drop table t1"), "DROP TABLE t1");
  EXPECT_EQ(S("DROP INDEX i"), "DROP INDEX i");
  EXPECT_EQ(S("CREATE UNIQUE INDEX i ON t (a, b DESC)"), "CREATE UNIQUE INDEX i ON t (a, b DESC)");
  EXPECT_EQ(S("CREATE INDEX ON t USING hash (a)"), "CREATE INDEX ON t USING hash (a)");
  EXPECT_EQ(S("ALTER TABLE t ADD PRIMARY KEY (a, b)"), "ALTER TABLE t ADD PRIMARY KEY (a, b)");
  EXPECT_EQ(S("alter table h add constraint h_fk foreign key (bid) references b"),
            "ALTER TABLE h ADD CONSTRAINT h_fk FOREIGN KEY (bid) REFERENCES b");
  EXPECT_EQ(S("ALTER TABLE t ADD COLUMN c int NOT NULL"),
            "ALTER TABLE t ADD COLUMN c int4 NOT NULL");
  EXPECT_EQ(S("alter table if exists only t add if not exists c int default 1, drop column if "
              "exists d cascade, alter e set data type bigint using e::bigint, alter column f "
              "set default 2, alter f drop default, alter g set not null, alter g drop not null"),
            "ALTER TABLE IF EXISTS t ADD COLUMN IF NOT EXISTS c int4 DEFAULT 1, DROP COLUMN IF "
            "EXISTS d CASCADE, ALTER COLUMN e TYPE int8 USING CAST(e AS int8), ALTER COLUMN f SET "
            "DEFAULT 2, ALTER COLUMN f DROP DEFAULT, ALTER COLUMN g SET NOT NULL, ALTER COLUMN g "
            "DROP NOT NULL");
  EXPECT_EQ(S("alter table t rename column a to b"), "ALTER TABLE t RENAME COLUMN a TO b");
  EXPECT_EQ(S("alter table t rename a to b"), "ALTER TABLE t RENAME COLUMN a TO b");
  EXPECT_EQ(S("alter table t rename to u"), "ALTER TABLE t RENAME TO u");
  EXPECT_EQ(S("TRUNCATE t"), "TRUNCATE t");
  EXPECT_EQ(S("truncate table a, b, c"), "TRUNCATE a, b, c");
}

TEST(ParserDdl, Sequences) {
  EXPECT_EQ(S("create sequence if not exists public.s as smallint increment by -2 minvalue -9 "
              "no maxvalue start with -1 cache 5 no cycle owned by t.c"),
            "CREATE SEQUENCE IF NOT EXISTS public.s AS int2 INCREMENT -2 MINVALUE -9 NO MAXVALUE "
            "START -1 CACHE 5 NO CYCLE OWNED BY t.c");
  EXPECT_EQ(S("CREATE TEMP SEQUENCE s"), "CREATE TEMPORARY SEQUENCE s");
  EXPECT_EQ(S("create unlogged sequence s cycle"), "CREATE UNLOGGED SEQUENCE s CYCLE");
  EXPECT_EQ(S("alter sequence if exists s restart"), "ALTER SEQUENCE IF EXISTS s RESTART");
  EXPECT_EQ(S("alter sequence s restart with 5 increment 3 owned by none"),
            "ALTER SEQUENCE s RESTART 5 INCREMENT 3 OWNED BY none");
  EXPECT_EQ(S("alter sequence s rename to u"), "ALTER SEQUENCE s RENAME TO u");
  EXPECT_EQ(S("drop sequence if exists a, b cascade"), "DROP SEQUENCE IF EXISTS a, b CASCADE");
  EXPECT_EQ(S("create table t (id int generated by default as identity (start 10 sequence name "
              "q))"),
            "CREATE TABLE t (id int4 GENERATED BY DEFAULT AS IDENTITY (START 10 SEQUENCE NAME "
            "q))");
  EXPECT_EQ(S("alter table t alter column id restart with 5 set increment by 2, alter id set "
              "generated always, alter id set default 1"),
            "ALTER TABLE t ALTER COLUMN id RESTART 5 SET INCREMENT 2, ALTER COLUMN id SET "
            "GENERATED ALWAYS, ALTER COLUMN id SET DEFAULT 1");
  StatementPtr st = One("CREATE SEQUENCE s START 1 START 2");
  ASSERT_EQ(st->create_sequence->options.size(), 2u);
  EXPECT_EQ(st->create_sequence->options[1].position, 27);  // where 42601 points
  // ALTER SEQUENCE needs an option; an identity's parentheses need one.
  for (const char* bad :
       {"ALTER SEQUENCE s", "CREATE TABLE t (a int GENERATED ALWAYS AS IDENTITY ())",
        "CREATE SEQUENCE s INCREMENT x"}) {
    EXPECT_THROW(Parse(bad), DbError) << bad;
  }
}

TEST(ParserUtility, Transactions) {
  EXPECT_EQ(S("BEGIN"), "BEGIN");
  EXPECT_EQ(S("begin transaction isolation level repeatable read, read only"),
            "BEGIN ISOLATION LEVEL repeatable read READ ONLY");
  EXPECT_EQ(S("START TRANSACTION ISOLATION LEVEL SERIALIZABLE"),
            "BEGIN ISOLATION LEVEL serializable");
  EXPECT_EQ(S("COMMIT"), "COMMIT");
  EXPECT_EQ(S("END"), "COMMIT");
  EXPECT_EQ(S("commit work"), "COMMIT");
  EXPECT_EQ(S("ROLLBACK"), "ROLLBACK");
  EXPECT_EQ(S("ABORT TRANSACTION"), "ROLLBACK");
  StatementPtr st = One("BEGIN ISOLATION LEVEL READ COMMITTED");
  EXPECT_EQ(st->transaction->kind, TransactionKind::kBegin);
  EXPECT_EQ(st->transaction->isolation_level, "read committed");
  // Savepoints: names are identifiers (folded unless quoted).
  EXPECT_EQ(S("SAVEPOINT S1"), "SAVEPOINT s1");
  EXPECT_EQ(S("savepoint \"_pg3_1\""), "SAVEPOINT _pg3_1");
  EXPECT_EQ(S("RELEASE SAVEPOINT a"), "RELEASE SAVEPOINT a");
  EXPECT_EQ(S("release a"), "RELEASE SAVEPOINT a");
  EXPECT_EQ(S("ROLLBACK TO SAVEPOINT a"), "ROLLBACK TO SAVEPOINT a");
  EXPECT_EQ(S("rollback work to a"), "ROLLBACK TO SAVEPOINT a");
  EXPECT_EQ(S("ROLLBACK TRANSACTION TO SAVEPOINT \"Mixed\""), "ROLLBACK TO SAVEPOINT Mixed");
  EXPECT_EQ(One("ROLLBACK TO a")->transaction->kind, TransactionKind::kRollbackTo);
  for (const char* bad : {"SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO", "ABORT TO a"}) {
    EXPECT_THROW(One(bad), DbError) << bad;
  }
}

TEST(ParserUtility, SetShowReset) {
  EXPECT_EQ(S("SET search_path = public, \"$user\""), "SET search_path = 'public', '$user'");
  EXPECT_EQ(S("SET SESSION extra_float_digits TO 3"), "SET extra_float_digits = '3'");
  EXPECT_EQ(S("SET LOCAL work_mem = '64MB'"), "SET LOCAL work_mem = '64MB'");
  EXPECT_EQ(S("SET datestyle TO DEFAULT"), "SET datestyle = DEFAULT");
  EXPECT_EQ(S("SET TIME ZONE 'UTC'"), "SET timezone = 'UTC'");
  EXPECT_EQ(S("SET NAMES 'UTF8'"), "SET client_encoding = 'UTF8'");
  EXPECT_EQ(S("SET x = -1.5"), "SET x = '-1.5'");
  EXPECT_EQ(S("SET application_name = on"), "SET application_name = 'on'");
  EXPECT_EQ(S("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE"),
            "SET default_transaction_isolation = 'serializable'");
  EXPECT_EQ(S("SET TRANSACTION READ ONLY"), "SET transaction_isolation READ ONLY");
  EXPECT_EQ(S("SET CONSTRAINTS ALL IMMEDIATE"), "SET CONSTRAINTS ALL IMMEDIATE");
  EXPECT_EQ(S("set constraints a, public.B deferred"), "SET CONSTRAINTS a, public.b DEFERRED");
  EXPECT_EQ(S("SET constraints = 1"), "SET constraints = '1'");  // a parameter of that name
  EXPECT_EQ(S("SHOW server_version"), "SHOW server_version");
  EXPECT_EQ(S("SHOW ALL"), "SHOW all");
  EXPECT_EQ(S("SHOW TRANSACTION ISOLATION LEVEL"), "SHOW transaction_isolation");
  EXPECT_EQ(S("RESET ALL"), "RESET all");
  EXPECT_EQ(S("RESET search_path"), "RESET search_path");
}

TEST(ParserUtility, VacuumAnalyzeDiscardDeallocate) {
  EXPECT_EQ(S("VACUUM"), "VACUUM");
  EXPECT_EQ(S("vacuum analyze pgbench_accounts"), "VACUUM ANALYZE pgbench_accounts");
  EXPECT_EQ(S("VACUUM FULL a, b"), "VACUUM FULL a, b");
  EXPECT_EQ(S("VACUUM (ANALYZE, VERBOSE) t"), "VACUUM VERBOSE ANALYZE t");
  EXPECT_EQ(S("ANALYZE"), "ANALYZE");
  EXPECT_EQ(S("ANALYZE t (a, b)"), "ANALYZE t");
  EXPECT_EQ(S("DISCARD ALL"), "DISCARD all");
  EXPECT_EQ(S("DEALLOCATE ALL"), "DEALLOCATE ALL");
  EXPECT_EQ(S("DEALLOCATE PREPARE s1"), "DEALLOCATE s1");
  EXPECT_EQ(S("PREPARE p (int, text) AS SELECT $1, $2"), "PREPARE p");
  EXPECT_EQ(S("EXECUTE p (1, 'x')"), "EXECUTE p");
  {
    // The prepared statement is its own: its text span and its parameters;
    // the PREPARE has none.
    const std::string sql = "PREPARE p (int) AS UPDATE t SET a = $2 WHERE b = $1";
    StatementPtr st = One(sql);
    ASSERT_EQ(st->kind, StatementKind::kPrepare);
    EXPECT_EQ(st->max_parameter, 0);
    ASSERT_EQ(st->prepare->types.size(), 1u);
    const Statement& inner = *st->prepare->statement;
    EXPECT_EQ(inner.kind, StatementKind::kUpdate);
    EXPECT_EQ(inner.max_parameter, 2);
    EXPECT_EQ(sql.substr(inner.begin, inner.end - inner.begin), "UPDATE t SET a = $2 WHERE b = $1");
    StatementPtr execute = One("EXECUTE p (1, 2 + 3)");
    EXPECT_EQ(execute->execute->arguments.size(), 2u);
  }
  EXPECT_EQ(S("call Transfer(1, $2, 'x' || 'y')"), "CALL transfer(1, $2, ('x' || 'y'))");
  EXPECT_EQ(S("CALL public.touch()"), "CALL touch()");
  EXPECT_EQ(One("CALL p($3)")->max_parameter, 3);
  EXPECT_EQ(S("CHECKPOINT"), "CHECKPOINT");
  EXPECT_EQ(One("checkpoint;")->kind, StatementKind::kCheckpoint);
  EXPECT_EQ(S("listen Jobs"), "LISTEN jobs");
  EXPECT_EQ(S("LISTEN \"Jobs\""), "LISTEN Jobs");
  EXPECT_EQ(S("unlisten *"), "UNLISTEN *");
  EXPECT_EQ(S("UNLISTEN jobs"), "UNLISTEN jobs");
  EXPECT_EQ(S("notify jobs"), "NOTIFY jobs");
  EXPECT_EQ(S("NOTIFY jobs, 'a payload'"), "NOTIFY jobs, 'a payload'");
  EXPECT_EQ(S("comment on table public.t is 'x'"), "COMMENT ON TABLE public.t IS 'x'");
  EXPECT_EQ(S("COMMENT ON COLUMN t.c IS NULL"), "COMMENT ON COLUMN t.c IS NULL");
  EXPECT_EQ(S("create schema if not exists \"public\""), "CREATE SCHEMA IF NOT EXISTS public");
  EXPECT_EQ(S("CREATE SCHEMA s AUTHORIZATION Bob"), "CREATE SCHEMA s AUTHORIZATION bob");
  EXPECT_EQ(S("CREATE SCHEMA AUTHORIZATION CURRENT_USER"),
            "CREATE SCHEMA AUTHORIZATION current_user");
  {
    StatementPtr st = One("CREATE SCHEMA s CREATE TABLE t (a int) CREATE VIEW v AS SELECT 1");
    ASSERT_EQ(st->kind, StatementKind::kCreateSchema);
    EXPECT_EQ(st->create_schema->elements_position, 17);
    EXPECT_EQ(Parse("CREATE SCHEMA s CREATE TABLE t (a int); SELECT 1").size(), 2u);
  }
  for (const char* bad :
       {"CREATE SCHEMA", "CREATE SCHEMA IF EXISTS s", "CREATE SCHEMA s AUTHORIZATION", "LISTEN",
        "NOTIFY jobs, 1", "NOTIFY jobs 'x'", "UNLISTEN jobs, 'x'", "COMMENT ON TABLE t IS 1",
        "COMMENT ON COLUMN c IS 'x'", "COMMENT ON INDEX i IS 'x'", "COMMENT ON TABLE t"}) {
    EXPECT_THROW(Parse(bad), DbError) << bad;
  }
}

TEST(ParserUtility, Copy) {
  EXPECT_EQ(S("copy pgbench_history (tid,bid,aid,delta) from stdin"),
            "COPY pgbench_history (tid, bid, aid, delta) FROM STDIN");
  EXPECT_EQ(S("COPY t FROM '/tmp/x.tbl' WITH (FORMAT csv, DELIMITER '|', HEADER, NULL '', "
              "QUOTE '\"', ESCAPE '\\', FREEZE on)"),
            "COPY t FROM '/tmp/x.tbl' (format 'csv', delimiter '|', header, null '', quote "
            "'\"', escape '\\', freeze 'on')");
  EXPECT_EQ(S("COPY t FROM STDIN WITH CSV DELIMITER ',' NULL AS 'x' HEADER"),
            "COPY t FROM STDIN (format 'csv', delimiter ',', null 'x', header)");
  EXPECT_EQ(S("COPY t FROM STDIN CSV FORCE NOT NULL a, b"),
            "COPY t FROM STDIN (format 'csv', force_not_null 'a,b')");
  EXPECT_EQ(S("COPY t TO STDOUT (FORMAT binary)"), "COPY t TO STDOUT (format 'binary')");
  EXPECT_EQ(S("COPY (SELECT a FROM t) TO STDOUT"), "COPY (SELECT a FROM t) TO STDOUT");
  StatementPtr st = One("COPY lineitem FROM '/d/lineitem.tbl' (DELIMITER '|')");
  EXPECT_TRUE(st->copy->from);
  EXPECT_FALSE(st->copy->std_stream);
  EXPECT_EQ(st->copy->file, "/d/lineitem.tbl");
  ASSERT_EQ(st->copy->options.size(), 1u);
  EXPECT_EQ(st->copy->options[0].name, "delimiter");
  EXPECT_EQ(st->copy->options[0].value, "|");
}

TEST(ParserUtility, CopyQuerySpansItsText) {
  const std::string sql = "COPY (SELECT a FROM t WHERE a > $1) TO STDOUT (FORMAT csv)";
  StatementPtr st = One(sql);
  ASSERT_NE(st->copy->query, nullptr);
  const Statement& inner = *st->copy->query;
  EXPECT_EQ(inner.kind, StatementKind::kSelect);
  EXPECT_EQ(sql.substr(inner.begin, inner.end - inner.begin), "SELECT a FROM t WHERE a > $1");
  EXPECT_EQ(inner.position, 7);
  EXPECT_EQ(inner.max_parameter, 1);
  EXPECT_FALSE(st->copy->from);
}

TEST(ParserCursor, Declare) {
  EXPECT_EQ(S("declare c cursor for select 1"), "DECLARE c CURSOR FOR SELECT 1");
  EXPECT_EQ(S("DECLARE \"Mixed\" BINARY INSENSITIVE NO SCROLL CURSOR WITH HOLD FOR VALUES (1)"),
            "DECLARE Mixed BINARY INSENSITIVE NO SCROLL CURSOR WITH HOLD FOR VALUES (1)");
  EXPECT_EQ(S("DECLARE c ASENSITIVE SCROLL CURSOR WITHOUT HOLD FOR (SELECT a FROM t)"),
            "DECLARE c SCROLL CURSOR FOR SELECT a FROM t");
  const std::string sql = "DECLARE c CURSOR FOR SELECT a FROM t WHERE a = $2 ORDER BY a";
  StatementPtr st = One(sql);
  const DeclareStmt& d = *st->declare;
  EXPECT_EQ(d.name, "c");
  EXPECT_EQ(d.scroll, -1);
  EXPECT_FALSE(d.hold);
  EXPECT_EQ(sql.substr(d.query->begin, d.query->end - d.query->begin),
            "SELECT a FROM t WHERE a = $2 ORDER BY a");
  EXPECT_EQ(d.query->position, 22);
  EXPECT_EQ(d.query->max_parameter, 2);
  EXPECT_EQ(st->max_parameter, 2);
}

TEST(ParserCursor, FetchAndMoveNormalizeTheirDirection) {
  struct Case {
    const char* sql;
    const char* printed;
  };
  for (const Case& c : {
           Case{"FETCH c", "FETCH FORWARD 1 FROM c"},
           Case{"fetch from c", "FETCH FORWARD 1 FROM c"},
           Case{"FETCH NEXT c", "FETCH FORWARD 1 FROM c"},
           Case{"FETCH PRIOR FROM c", "FETCH BACKWARD 1 FROM c"},
           Case{"FETCH FIRST IN c", "FETCH ABSOLUTE 1 FROM c"},
           Case{"FETCH LAST c", "FETCH ABSOLUTE -1 FROM c"},
           Case{"FETCH ABSOLUTE -3 c", "FETCH ABSOLUTE -3 FROM c"},
           Case{"FETCH RELATIVE +2 FROM c", "FETCH RELATIVE 2 FROM c"},
           Case{"FETCH 5 c", "FETCH FORWARD 5 FROM c"},
           Case{"FETCH -5 IN c", "FETCH FORWARD -5 FROM c"},
           Case{"FETCH ALL c", "FETCH FORWARD ALL FROM c"},
           Case{"FETCH FORWARD c", "FETCH FORWARD 1 FROM c"},
           Case{"FETCH FORWARD 2147483647 FROM c", "FETCH FORWARD 2147483647 FROM c"},
           Case{"FETCH FORWARD ALL c", "FETCH FORWARD ALL FROM c"},
           Case{"FETCH BACKWARD FROM c", "FETCH BACKWARD 1 FROM c"},
           Case{"FETCH BACKWARD 3 c", "FETCH BACKWARD 3 FROM c"},
           Case{"FETCH BACKWARD ALL FROM c", "FETCH BACKWARD ALL FROM c"},
           Case{"MOVE LAST IN c", "MOVE ABSOLUTE -1 FROM c"},
           Case{"move 0 \"C\"", "MOVE FORWARD 0 FROM C"},
           // A direction word alone names the cursor, as in PostgreSQL.
           Case{"FETCH next", "FETCH FORWARD 1 FROM next"},
           Case{"FETCH forward", "FETCH FORWARD 1 FROM forward"},
       }) {
    EXPECT_EQ(S(c.sql), c.printed) << c.sql;
  }
  EXPECT_TRUE(One("MOVE c")->fetch->move);
  EXPECT_FALSE(One("FETCH c")->fetch->move);
  EXPECT_EQ(S("CLOSE c"), "CLOSE c");
  EXPECT_EQ(S("CLOSE ALL"), "CLOSE ALL");
}

TEST(ParserCursor, Errors) {
  struct Case {
    const char* sql;
    const char* sqlstate;
    const char* message;
    int position;
  };
  for (const Case& c : {
           // PostgreSQL 15's answers.
           Case{"fetch 1", "42601", "syntax error at end of input", 8},
           Case{"fetch from", "42601", "syntax error at end of input", 11},
           Case{"fetch 3000000000 c", "42601", "syntax error at or near \"3000000000\"", 7},
           Case{"fetch absolute c", "42601", "syntax error at or near \"c\"", 16},
           Case{"fetch 1 from", "42601", "syntax error at end of input", 13},
           Case{"fetch all", "42601", "syntax error at end of input", 10},
           Case{"declare c cursor for insert into t values (1)", "42601",
                "syntax error at or near \"insert\"", 22},
           Case{"declare c scroll no scroll cursor for select 1", "42P11",
                "cannot specify both SCROLL and NO SCROLL", 0},
           Case{"declare c asensitive insensitive cursor for select 1", "42P11",
                "cannot specify both ASENSITIVE and INSENSITIVE", 0},
           Case{"copy (select 1) from stdin", "42601", "syntax error at or near \"from\"", 17},
       }) {
    SCOPED_TRACE(c.sql);
    try {
      Parse(c.sql);
      ADD_FAILURE() << "parsed without error";
    } catch (const DbError& e) {
      EXPECT_STREQ(e.sqlstate(), c.sqlstate);
      EXPECT_EQ(std::string(e.what()), c.message);
      EXPECT_EQ(e.position(), c.position);
    }
  }
}

TEST(ParserUtility, Explain) {
  EXPECT_EQ(S("EXPLAIN SELECT 1"), "EXPLAIN SELECT 1");
  EXPECT_EQ(S("EXPLAIN ANALYZE VERBOSE SELECT * FROM t"),
            "EXPLAIN ANALYZE VERBOSE SELECT * FROM t");
  EXPECT_EQ(S("EXPLAIN (ANALYZE, COSTS off) SELECT 1"), "EXPLAIN (analyze, costs 'off') SELECT 1");
  StatementPtr st = One("EXPLAIN (ANALYZE true) UPDATE t SET a = 1");
  EXPECT_TRUE(st->explain->analyze);
  EXPECT_EQ(st->explain->statement->kind, StatementKind::kUpdate);
  EXPECT_EQ(st->explain->statement->position, 24);
}

TEST(ParserStatements, SplittingAndSpans) {
  EXPECT_TRUE(Parse("").empty());
  EXPECT_TRUE(Parse(";").empty());
  EXPECT_TRUE(Parse("  ;; -- only a comment\n /* x */ ").empty());
  std::string text = "SELECT 1; /* c */ INSERT INTO t VALUES ('é;') ;\n select 'x' -- end";
  std::vector<StatementPtr> stmts = Parse(text);
  ASSERT_EQ(stmts.size(), 3u);
  EXPECT_EQ(stmts[0]->kind, StatementKind::kSelect);
  EXPECT_EQ(text.substr(stmts[0]->begin, stmts[0]->end - stmts[0]->begin), "SELECT 1");
  EXPECT_EQ(stmts[1]->kind, StatementKind::kInsert);
  EXPECT_EQ(text.substr(stmts[1]->begin, stmts[1]->end - stmts[1]->begin),
            "INSERT INTO t VALUES ('é;')");
  EXPECT_EQ(stmts[1]->position, 19);
  EXPECT_EQ(text.substr(stmts[2]->begin, stmts[2]->end - stmts[2]->begin), "select 'x'");
  EXPECT_EQ(stmts[2]->position, 50);  // characters, not bytes ("é" is 2 bytes)
}

}  // namespace
}  // namespace forktail::sql
