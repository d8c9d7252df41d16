// SqlSession end to end in one process (ReadRouting::kInProcess, so it runs
// under ASan): DDL, INSERT VALUES / SELECT, UPDATE/DELETE with WHERE,
// constraint violations that leave nothing behind, transaction blocks,
// prepared statements with parameters, SET/SHOW, COPY.
#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "tests/olap/session/session_test_util.h"

namespace forktail::testing {
namespace {

using ::testing::ElementsAre;

class EngineSessionTest : public EngineFixture {
 protected:
  void SetUp() override {
    Open(InProcess());
    Run("CREATE TABLE item (id int PRIMARY KEY, name varchar(20), price numeric(10,2))");
    EXPECT_EQ(Run("INSERT INTO item VALUES (1, 'apple', 1.50), (2, 'pear', 2.25), (3, NULL, NULL)")
                  .command_tag,
              "INSERT 0 3");
  }
  std::vector<std::string> Items() { return Query("SELECT id, name, price FROM item ORDER BY id"); }
  // big (a int) with 2,000 rows: a triple self-join runs for minutes.
  void MakeBigTable() {
    Run("CREATE TABLE big (a int)");
    Run("COPY big FROM STDIN");
    std::string data;
    for (int i = 0; i < 2000; i++) data += std::to_string(i) + "\n";
    session_->CopyIn(data);
    session_->CopyDone();
  }
};

TEST_F(EngineSessionTest, SelectReturnsColumnsRowsAndTag) {
  StatementResult r = Run("SELECT id, name AS n, price FROM item WHERE id <= 2 ORDER BY id DESC");
  EXPECT_EQ(r.command_tag, "SELECT 2");
  ASSERT_EQ(r.columns.size(), 3u);
  EXPECT_EQ(r.columns[0].name, "id");
  EXPECT_EQ(r.columns[0].type, Type::Integer());
  EXPECT_EQ(r.columns[1].name, "n");
  EXPECT_EQ(r.columns[2].type, Type::Decimal(10, 2));
  EXPECT_THAT(Lines(r), ElementsAre("2|pear|2.25", "1|apple|1.50"));
  EXPECT_THAT(Query("SELECT count(*), sum(price) FROM item"), ElementsAre("3|3.75"));
}

TEST_F(EngineSessionTest, InsertSelectUpdateDelete) {
  Run("CREATE TABLE cheap (id bigint, name text)");
  EXPECT_EQ(Run("INSERT INTO cheap SELECT id, name FROM item WHERE price < 2").command_tag,
            "INSERT 0 1");
  EXPECT_THAT(Query("SELECT id, name FROM cheap"), ElementsAre("1|apple"));
  EXPECT_EQ(Run("UPDATE item SET price = price + 1, name = 'PEAR' WHERE id >= 2").command_tag,
            "UPDATE 2");
  EXPECT_THAT(Items(), ElementsAre("1|apple|1.50", "2|PEAR|3.25", "3|PEAR|"));
  EXPECT_EQ(Run("DELETE FROM item WHERE price IS NULL").command_tag, "DELETE 1");
  EXPECT_EQ(Run("DELETE FROM item WHERE id > 100").command_tag, "DELETE 0");
  EXPECT_EQ(Run("UPDATE item SET price = 0").command_tag, "UPDATE 2");
  EXPECT_THAT(Items(), ElementsAre("1|apple|0.00", "2|PEAR|0.00"));
}

TEST_F(EngineSessionTest, ConstraintViolationsLeaveNothingBehind) {
  ExpectDbError([&] { Run("INSERT INTO item VALUES (10, 'x', 0), (1, 'dup', 0)"); }, "23505",
                "duplicate key value violates unique constraint \"item_pkey\"\nDETAIL:  Key "
                "(id)=(1) already exists.");
  ExpectDbError([&] { Run("UPDATE item SET id = 1 WHERE id = 2"); }, "23505",
                "duplicate key value violates unique constraint \"item_pkey\"\nDETAIL:  Key "
                "(id)=(1) already exists.");
  ExpectDbError([&] { Run("INSERT INTO item VALUES (NULL, 'x', 0)"); }, "23502",
                "null value in column \"id\" of relation \"item\" violates not-null constraint");
  // A multi-statement string is one implicit transaction.
  ExpectDbError(
      [&] { Run("INSERT INTO item VALUES (20, 'y', 0); INSERT INTO item VALUES (2, 'dup', 0)"); },
      "23505",
      "duplicate key value violates unique constraint \"item_pkey\"\nDETAIL:  Key (id)=(2) already "
      "exists.");
  EXPECT_THAT(Items(), ElementsAre("1|apple|1.50", "2|pear|2.25", "3||"));
  EXPECT_EQ(session_->status(), TxnStatus::kIdle);
}

TEST_F(EngineSessionTest, TransactionBlockCommitAndRollback) {
  EXPECT_EQ(Run("BEGIN").command_tag, "BEGIN");
  EXPECT_EQ(session_->status(), TxnStatus::kInBlock);
  Run("INSERT INTO item VALUES (4, 'plum', 3)");
  EXPECT_THAT(Query("SELECT count(*) FROM item"), ElementsAre("4"));  // sees its own write
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  EXPECT_EQ(session_->status(), TxnStatus::kIdle);
  EXPECT_THAT(Query("SELECT count(*) FROM item"), ElementsAre("4"));

  Run("BEGIN");
  Run("DELETE FROM item");
  EXPECT_THAT(Query("SELECT count(*) FROM item"), ElementsAre("0"));
  EXPECT_EQ(Run("ROLLBACK").command_tag, "ROLLBACK");
  EXPECT_THAT(Query("SELECT count(*) FROM item"), ElementsAre("4"));

  StatementResult r = Run("COMMIT");
  EXPECT_EQ(r.command_tag, "COMMIT");
  EXPECT_THAT(r.notices, ElementsAre("there is no transaction in progress"));
  // BEGIN ... COMMIT in one string.
  Run("BEGIN; INSERT INTO item VALUES (5, 'fig', 1); COMMIT");
  EXPECT_THAT(Query("SELECT count(*) FROM item"), ElementsAre("5"));
}

TEST_F(EngineSessionTest, ErrorInBlockAbortsUntilRollback) {
  Run("BEGIN");
  Run("INSERT INTO item VALUES (4, 'plum', 3)");
  ExpectDbError([&] { Run("SELECT nope FROM item"); }, "42703", "column \"nope\" does not exist",
                8);
  EXPECT_EQ(session_->status(), TxnStatus::kFailed);
  ExpectDbError([&] { Run("SELECT 1"); }, "25P02",
                "current transaction is aborted, commands ignored until end of transaction "
                "block");
  EXPECT_EQ(Run("ROLLBACK").command_tag, "ROLLBACK");
  EXPECT_EQ(session_->status(), TxnStatus::kIdle);
  EXPECT_THAT(Query("SELECT count(*) FROM item"), ElementsAre("3"));
  // COMMIT of a failed block answers ROLLBACK.
  Run("BEGIN");
  ExpectDbError([&] { Run("INSERT INTO item VALUES (1, 'dup', 0)"); }, "23505",
                "duplicate key value violates unique constraint \"item_pkey\"\nDETAIL:  Key "
                "(id)=(1) already exists.");
  EXPECT_EQ(Run("COMMIT").command_tag, "ROLLBACK");
  EXPECT_THAT(Query("SELECT count(*) FROM item"), ElementsAre("3"));
}

TEST_F(EngineSessionTest, PreparedStatementsWithParameters) {
  auto select = session_->Prepare("SELECT name, price FROM item WHERE id = $1", {});
  ASSERT_EQ(select->parameter_types.size(), 1u);
  EXPECT_EQ(select->parameter_types[0], Type::Integer());
  ASSERT_EQ(select->columns.size(), 2u);
  EXPECT_EQ(select->columns[0].name, "name");
  EXPECT_THAT(Lines(session_->ExecutePrepared(*select, {Value::Integer(2)})),
              ElementsAre("pear|2.25"));
  EXPECT_THAT(Lines(session_->ExecutePrepared(*select, {Value::Text("1")})),
              ElementsAre("apple|1.50"));

  auto insert = session_->Prepare("INSERT INTO item VALUES ($1, $2, $3)", {Type::BigInt()});
  ASSERT_EQ(insert->parameter_types.size(), 3u);
  EXPECT_EQ(insert->parameter_types[0], Type::BigInt());
  EXPECT_TRUE(insert->columns.empty());
  EXPECT_EQ(session_
                ->ExecutePrepared(*insert, {Value::BigInt(7), Value::Text("kiwi"),
                                            Value::Null(insert->parameter_types[2])})
                .command_tag,
            "INSERT 0 1");
  EXPECT_THAT(Query("SELECT name FROM item WHERE id = 7"), ElementsAre("kiwi"));

  ExpectDbError([&] { session_->ExecutePrepared(*select, {}); }, "08P01",
                "bind message supplies 0 parameters, but prepared statement requires 1");
  ExpectDbError([&] { session_->Prepare("SELECT 1; SELECT 2", {}); }, "42601",
                "cannot insert multiple commands into a prepared statement");
  EXPECT_EQ(session_->Prepare("", {})->statement, nullptr);
}

TEST_F(EngineSessionTest, SetShowReset) {
  EXPECT_THAT(Query("SHOW server_version"), ElementsAre("15.8"));
  // Tools that read the version from version() find the same one.
  EXPECT_THAT(Query("SELECT split_part(version(), ' ', 2) = current_setting('server_version')"),
              ElementsAre("t"));
  StatementResult r = Run("SHOW DateStyle");
  ASSERT_EQ(r.columns.size(), 1u);
  EXPECT_EQ(r.columns[0].name, "DateStyle");
  EXPECT_THAT(Lines(r), ElementsAre("ISO, MDY"));
  EXPECT_EQ(Run("SET extra_float_digits = 3").command_tag, "SET");
  EXPECT_EQ(session_->GetParameter("extra_float_digits"), "3");
  Run("SET application_name TO 'tests'");
  EXPECT_EQ(session_->GetParameter("application_name"), "tests");
  Run("RESET extra_float_digits");
  EXPECT_THAT(Query("SHOW extra_float_digits"), ElementsAre("1"));
  Run("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED");
  EXPECT_THAT(Query("SHOW transaction_isolation"), ElementsAre("serializable"));
  EXPECT_GT(Run("SHOW ALL").rows.size(), 10u);
  EXPECT_THAT(Query("select current_schema()"), ElementsAre("public"));
  ExpectDbError([&] { Run("SET TimeZone = 'Foo/Bar'"); }, "22023",
                "invalid value for parameter \"TimeZone\": \"Foo/Bar\"");
  // Zones as PostgreSQL names them: the tz database's spelling, hours as a POSIX zone.
  Run("SET TIME ZONE 'europe/paris'");
  EXPECT_THAT(Query("SHOW TimeZone"), ElementsAre("Europe/Paris"));
  EXPECT_THAT(Query("SELECT (timestamptz '2024-07-01 12:00+00')::text"),
              ElementsAre("2024-07-01 14:00:00+02"));
  Run("SET TIME ZONE 5.5");
  EXPECT_THAT(Query("SHOW TimeZone"), ElementsAre("<+05:30>-05:30"));
  EXPECT_THAT(Query("SELECT (timestamptz '2024-07-01 12:00+00')::text"),
              ElementsAre("2024-07-01 17:30:00+05:30"));
  Run("SET TIME ZONE LOCAL");
  EXPECT_THAT(Query("SHOW TimeZone"), ElementsAre("UTC"));
  ExpectDbError([&] { Run("SHOW nope"); }, "42704",
                "unrecognized configuration parameter \"nope\"");
  EXPECT_EQ(Run("DISCARD ALL").command_tag, "DISCARD ALL");
  EXPECT_EQ(session_->GetParameter("application_name"), "");
}

TEST_F(EngineSessionTest, DdlAndMaintenance) {
  StatementResult r = Run("CREATE TABLE IF NOT EXISTS item (x int)");
  EXPECT_THAT(r.notices, ElementsAre("relation \"item\" already exists, skipping"));
  r = Run("CREATE INDEX item_name ON item (name)");
  EXPECT_EQ(r.command_tag, "CREATE INDEX");
  EXPECT_TRUE(r.notices.empty());
  EXPECT_THAT(Run("CREATE INDEX IF NOT EXISTS item_name ON item (id)").notices,
              ElementsAre("relation \"item_name\" already exists, skipping"));
  EXPECT_EQ(Run("DROP INDEX item_name").command_tag, "DROP INDEX");
  EXPECT_EQ(Run("VACUUM").command_tag, "VACUUM");
  EXPECT_EQ(Run("ANALYZE item").command_tag, "ANALYZE");
  EXPECT_EQ(Run("TRUNCATE item").command_tag, "TRUNCATE TABLE");
  EXPECT_THAT(Query("SELECT count(*) FROM item"), ElementsAre("0"));
  EXPECT_THAT(Run("DROP TABLE IF EXISTS nope").notices,
              ElementsAre("table \"nope\" does not exist, skipping"));
  EXPECT_EQ(Run("DROP TABLE item").command_tag, "DROP TABLE");
  ExpectDbError([&] { Run("SELECT * FROM item"); }, "42P01", "relation \"item\" does not exist",
                15);
}

TEST_F(EngineSessionTest, NegativePaths) {
  ExpectDbError([&] { Run("SELEC 1"); }, "42601", "syntax error at or near \"SELEC\"", 1);
  ExpectDbError([&] { Run("SELECT 1; SELECT * FROM nope"); }, "42P01",
                "relation \"nope\" does not exist", 25);
  ExpectDbError([&] { Run("DROP TABLE nope"); }, "42P01", "table \"nope\" does not exist");
  ExpectDbError([&] { Run("DROP INDEX nope"); }, "42704", "index \"nope\" does not exist");
  ExpectDbError([&] { Run("ALTER TABLE item ADD PRIMARY KEY (id)"); }, "42P16",
                "multiple primary keys for table \"item\" are not allowed");
  Run("CREATE TABLE nokey (a int)");
  ExpectDbError([&] { Run("ALTER TABLE nokey ALTER COLUMN a SET STATISTICS 10"); }, "0A000",
                "ALTER TABLE ... ALTER COLUMN ... SET STATISTICS is not supported");
  ExpectDbError([&] { Run("COPY item TO PROGRAM 'cat'"); }, "0A000",
                "COPY ... PROGRAM is not supported");
  ExpectDbError([&] { Run("CREATE TABLE other.t (a int)"); }, "3F000",
                "schema \"other\" does not exist");
  ExpectDbError([&] { session_->CopyIn("x"); }, "08P01", "no COPY FROM STDIN is in progress");
  Run("CREATE TABLE ckc (a int CHECK (a > 0), id serial)");
  ExpectDbError([&] { Run("COPY ckc (a, id) FROM STDIN"); }, "0A000",
                "COPY into a table with CHECK constraints (\"ckc\") is not supported: use INSERT");
  for (const char* all_columns : {"COPY ckc FROM STDIN", "COPY ckc FROM STDIN (FORMAT binary)"}) {
    ExpectDbError([&] { Run(all_columns); }, "0A000",
                  "COPY into a table with CHECK constraints (\"ckc\") is not supported: use "
                  "INSERT");
  }
  ExpectDbError([&] { Run("CREATE INDEX item_p ON item (name) WHERE id > 1"); }, "0A000",
                "partial indexes are not supported");
  ExpectDbError([&] { Run("CREATE INDEX item_h ON item USING brin (name)"); }, "0A000",
                "access method \"brin\" is not supported: Forktail's indexes are ordered (btree)");
  EXPECT_EQ(Run("CREATE UNIQUE INDEX item_id ON item (id)").command_tag, "CREATE INDEX");
  ExpectDbError([&] { Run("UPDATE nokey SET a = 1 FROM item WHERE item.id = nokey.a"); }, "0A000",
                "UPDATE ... FROM on a table without a primary key is not supported");
  ExpectDbError(
      [&] { Run("DELETE FROM item USING nokey WHERE nokey.a = item.id RETURNING nokey.a"); },
      "0A000",
      "RETURNING of a column not in the target table with DELETE ... USING is not supported");
  EXPECT_THAT(Items(), ElementsAre("1|apple|1.50", "2|pear|2.25", "3||"));
}

TEST_F(EngineSessionTest, ReturningGivesTheRowsWritten) {
  StatementResult r = Run("INSERT INTO item VALUES (9, 'fig', 0.5) RETURNING id, upper(name) AS n");
  EXPECT_EQ(r.command_tag, "INSERT 0 1");
  ASSERT_EQ(r.columns.size(), 2u);
  EXPECT_EQ(r.columns[0].name, "id");
  EXPECT_EQ(r.columns[1].name, "n");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0][1].ToString(), "FIG");
  r = Run("UPDATE item SET price = price * 2 WHERE id = 9 RETURNING price");
  EXPECT_EQ(r.command_tag, "UPDATE 1");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0][0].ToString(), "1.00");  // the new value
  r = Run("DELETE FROM item WHERE id = 9 RETURNING *");
  EXPECT_EQ(r.command_tag, "DELETE 1");
  EXPECT_EQ(r.columns.size(), 3u);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0][2].ToString(), "1.00");  // the removed row
  // A statement that fails returns nothing and writes nothing.
  ExpectDbError([&] { Run("INSERT INTO item VALUES (10, 'a', 1), (1, 'b', 1) RETURNING id"); },
                "23505",
                "duplicate key value violates unique constraint \"item_pkey\"\nDETAIL:  Key "
                "(id)=(1) already exists.");
  EXPECT_THAT(Items(), ElementsAre("1|apple|1.50", "2|pear|2.25", "3||"));
}

TEST_F(EngineSessionTest, CopyFromStdin) {
  StatementResult r = Run("COPY item (id, name) FROM STDIN");
  EXPECT_EQ(r.command_tag, "COPY_IN");
  EXPECT_EQ(r.columns.size(), 2u);
  EXPECT_TRUE(session_->in_copy());
  session_->CopyIn("10\tfig\n11\t");
  session_->CopyIn("\\N\n");
  EXPECT_EQ(session_->CopyDone().command_tag, "COPY 2");
  EXPECT_THAT(Query("SELECT count(*) FROM item WHERE id >= 10"), ElementsAre("2"));

  // A bad line: nothing of the COPY stays (one transaction by default).
  Run("COPY item FROM STDIN WITH (FORMAT csv)");
  session_->CopyIn("20,a,1\n");
  ExpectDbError([&] { session_->CopyIn("21,b,x\n"); }, "22P02",
                "invalid input syntax for type numeric: \"x\"\nCONTEXT:  COPY item, line 2, "
                "column price: \"x\"");
  EXPECT_FALSE(session_->in_copy());
  ExpectDbError([&] { session_->CopyDone(); }, "08P01", "no COPY FROM STDIN is in progress");
  EXPECT_THAT(Query("SELECT count(*) FROM item WHERE id >= 20"), ElementsAre("0"));

  Run("COPY item FROM STDIN");
  session_->CopyIn("30\tz\t1\n");
  ExpectDbError([&] { session_->CopyFail("client gave up"); }, "57014",
                "COPY from stdin failed: client gave up");
  EXPECT_THAT(Query("SELECT count(*) FROM item WHERE id >= 30"), ElementsAre("0"));
}

TEST_F(EngineSessionTest, CopyFromFileAndInsideBlock) {
  std::string path = dir_.path() + "/items.csv";
  {
    std::ofstream out(path);
    out << "id,name,price\n40,a,1.00\n41,b,2.00\n";
  }
  EXPECT_EQ(Run("COPY item FROM '" + path + "' WITH (FORMAT csv, HEADER)").command_tag, "COPY 2");
  Run("BEGIN");
  Run("COPY item FROM STDIN");
  session_->CopyIn("50\tq\t1\n");
  EXPECT_EQ(session_->CopyDone().command_tag, "COPY 1");
  EXPECT_THAT(Query("SELECT count(*) FROM item"), ElementsAre("6"));
  Run("ROLLBACK");
  EXPECT_THAT(Query("SELECT count(*) FROM item"), ElementsAre("5"));
}

TEST_F(EngineSessionTest, CancelStopsAnInProcessQuery) {
  MakeBigTable();
  std::atomic<bool> done{false};
  std::string error;
  std::thread query([&] {
    try {
      Run("SELECT count(*) FROM big x, big y, big z");
    } catch (const DbError& e) {
      error = std::string(e.sqlstate()) + " " + e.what();
    }
    done.store(true);
  });
  // Cancel only affects a running statement: repeat until it lands.
  while (!done.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    session_->Cancel();
  }
  query.join();
  EXPECT_EQ(error, "57014 canceling statement due to user request");
  EXPECT_THAT(Query("SELECT count(*) FROM big"), ElementsAre("2000"));
}

// statement_timeout cancels a statement that runs too long, with
// PostgreSQL's message; shorter ones, and the session afterwards, are
// unaffected; inside a block the timed-out statement fails the block.
TEST_F(EngineSessionTest, StatementTimeoutCancelsLongStatements) {
  MakeBigTable();
  Run("SET statement_timeout = '200ms'");
  EXPECT_THAT(Query("SHOW statement_timeout"), ElementsAre("200ms"));
  const auto start = std::chrono::steady_clock::now();
  ExpectDbError([&] { Run("SELECT count(*) FROM big x, big y, big z"); }, "57014",
                "canceling statement due to statement timeout");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_THAT(Query("SELECT count(*) FROM big"), ElementsAre("2000"));
  Run("BEGIN");
  Run("INSERT INTO big VALUES (-1)");
  ExpectDbError([&] { Run("SELECT count(*) FROM big x, big y, big z"); }, "57014",
                "canceling statement due to statement timeout");
  EXPECT_EQ(session_->status(), TxnStatus::kFailed);
  Run("ROLLBACK");
  Run("SET statement_timeout = 0");
  EXPECT_THAT(Query("SELECT count(*) FROM big WHERE a < 0"), ElementsAre("0"));
  ExpectDbError([&] { Run("SET statement_timeout = 'soon'"); }, "22023",
                "invalid value for parameter \"statement_timeout\": \"soon\"");
}

}  // namespace
}  // namespace forktail::testing
