// COPY ... TO STDOUT through SQL sessions, byte for byte against
// PostgreSQL 15's output for the same table and statement (every expected
// string below is what PostgreSQL sent, captured with psycopg): text, CSV
// and binary, the options, the old WITH CSV HEADER syntax, COPY (query) TO,
// how the data is split into CopyData messages; the errors of options,
// relations and columns in PostgreSQL's order; COPY TO inside a block (a
// recorded read: 40001 when it changed); COPY TO 'file' under the engine's
// policy is in copy_files_test.cc.
#include "tests/common/sanitizer_fork.h"
#include "tests/olap/session/session_test_util.h"

namespace forktail::testing {
namespace {

using ::testing::ElementsAre;

class CopyToTest : public EngineFixture {
 protected:
  void SetUp() override {
    Open(InProcess());
    MakeTable(*session_);
  }
  static void MakeTable(SqlSession& session) {
    session.Execute(
        "CREATE TABLE ct (a int, b text, c numeric(10,2), d date, e double precision, f boolean, "
        "g varchar(5), h timestamp, i bigint, j smallint, k char(3))");
    session.Execute(
        "INSERT INTO ct VALUES (1, 'x', 1.5, '2024-01-02', 1.5, true, 'ab', '2024-01-02 "
        "03:04:05.6', 10, 2, 'a')");
    session.Execute(
        "INSERT INTO ct VALUES (2, null, null, null, null, null, null, null, null, null, null)");
    session.Execute(
        "INSERT INTO ct VALUES (3, E'tab\\there\\nnl\\\\bs,comma\"q\\rcr\\x01ctl caf\u00e9', "
        "-0.01, '1999-12-31', 'NaN', false, '', '2000-01-01', -1, -1, '')");
    session.Execute(
        "INSERT INTO ct VALUES (4, '\\N', 12345678.99, '0001-01-01', -2.5e-10, true, 'N', "
        "'1970-01-01 00:00:00.000001', 9223372036854775807, -32768, 'xyz')");
  }
  // The COPY's data, every CopyData message's bytes back to back.
  std::string Copy(const std::string& sql) {
    StatementResult r = Run(sql);
    EXPECT_TRUE(r.copy_out.has_value()) << sql;
    EXPECT_TRUE(r.columns.empty() && r.rows.empty()) << sql;
    return r.copy_out ? r.copy_out->data : "";
  }
  void ExpectError(const std::string& sql, const std::string& state, const std::string& message,
                   int position = 0, const std::string& hint = "") {
    try {
      Run(sql);
      ADD_FAILURE() << sql << ": expected " << state;
    } catch (const DbError& e) {
      EXPECT_EQ(std::string(e.sqlstate()), state) << sql;
      EXPECT_EQ(std::string(e.what()), message) << sql;
      EXPECT_EQ(e.position(), position) << sql;
      EXPECT_EQ(e.hint(), hint) << sql;
    }
  }
};

struct Expected {
  const char* sql;
  std::string data;
};

// PostgreSQL 15's bytes.
const Expected kPostgres[] = {
    {"COPY ct TO STDOUT",
     std::string(
         "1\tx\t1.50\t2024-01-02\t1.5\tt\tab\t2024-01-02 03:04:05.6\t10\t2\ta  "
         "\n2\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\n3\ttab\\there\\nnl\\\\bs,"
         "comma\"q\\rcr\001ctl caf\303\251\t-0.01\t1999-12-31\tNaN\tf\t\t2000-01-01 "
         "00:00:00\t-1\t-1\t   \n4\t\\\\N\t12345678.99\t0001-01-01\t-2.5e-10\tt\tN\t1970-01-01 "
         "00:00:00.000001\t9223372036854775807\t-32768\txyz\n",
         288)},
    {"COPY ct TO STDOUT (FORMAT csv)",
     std::string("1,x,1.50,2024-01-02,1.5,t,ab,2024-01-02 03:04:05.6,10,2,a  "
                 "\n2,,,,,,,,,,\n3,\"tab\there\nnl\\bs,comma\"\"q\rcr\001ctl "
                 "caf\303\251\",-0.01,1999-12-31,NaN,f,\"\",2000-01-01 00:00:00,-1,-1,   "
                 "\n4,\\N,12345678.99,0001-01-01,-2.5e-10,t,N,1970-01-01 "
                 "00:00:00.000001,9223372036854775807,-32768,xyz\n",
                 268)},
    {"COPY ct TO STDOUT WITH CSV HEADER",
     std::string("a,b,c,d,e,f,g,h,i,j,k\n1,x,1.50,2024-01-02,1.5,t,ab,2024-01-02 03:04:05.6,10,2,a "
                 " \n2,,,,,,,,,,\n3,\"tab\there\nnl\\bs,comma\"\"q\rcr\001ctl "
                 "caf\303\251\",-0.01,1999-12-31,NaN,f,\"\",2000-01-01 00:00:00,-1,-1,   "
                 "\n4,\\N,12345678.99,0001-01-01,-2.5e-10,t,N,1970-01-01 "
                 "00:00:00.000001,9223372036854775807,-32768,xyz\n",
                 290)},
    {"COPY ct (k, b, a) TO STDOUT (FORMAT csv, HEADER, FORCE_QUOTE (b, a))",
     std::string("k,b,a\na  ,\"x\",\"1\"\n,,\"2\"\n   ,\"tab\there\nnl\\bs,comma\"\"q\rcr\001ctl "
                 "caf\303\251\",\"3\"\nxyz,\"\\N\",\"4\"\n",
                 84)},
    {"COPY ct TO STDOUT (FORMAT csv, FORCE_QUOTE *, NULL 'x', QUOTE '''', ESCAPE '\\', DELIMITER "
     "';')",
     std::string("'1';'x';'1.50';'2024-01-02';'1.5';'t';'ab';'2024-01-02 03:04:05.6';'10';'2';'a  "
                 "'\n'2';x;x;x;x;x;x;x;x;x;x\n'3';'tab\there\nnl\\\\bs,comma\"q\rcr\001ctl "
                 "caf\303\251';'-0.01';'1999-12-31';'NaN';'f';'';'2000-01-01 00:00:00';'-1';'-1';' "
                 "  '\n'4';'\\\\N';'12345678.99';'0001-01-01';'-2.5e-10';'t';'N';'1970-01-01 "
                 "00:00:00.000001';'9223372036854775807';'-32768';'xyz'\n",
                 343)},
    {"COPY ct TO STDOUT (NULL 'NUL', DELIMITER '|', HEADER)",
     std::string("a|b|c|d|e|f|g|h|i|j|k\n1|x|1.50|2024-01-02|1.5|t|ab|2024-01-02 03:04:05.6|10|2|a "
                 " \n2|NUL|NUL|NUL|NUL|NUL|NUL|NUL|NUL|NUL|NUL\n3|tab\\there\\nnl\\\\bs,"
                 "comma\"q\\rcr\001ctl caf\303\251|-0.01|1999-12-31|NaN|f||2000-01-01 "
                 "00:00:00|-1|-1|   \n4|\\\\N|12345678.99|0001-01-01|-2.5e-10|t|N|1970-01-01 "
                 "00:00:00.000001|9223372036854775807|-32768|xyz\n",
                 320)},
    {"COPY (SELECT b FROM ct ORDER BY a) TO STDOUT (FORMAT csv, NULL '\\N')",
     std::string("x\n\\N\n\"tab\there\nnl\\bs,comma\"\"q\rcr\001ctl caf\303\251\"\n\"\\N\"\n", 49)},
    {"COPY (SELECT a, b FROM ct WHERE a > 2 ORDER BY a) TO STDOUT (FORMAT csv, ENCODING 'UTF8')",
     std::string("3,\"tab\there\nnl\\bs,comma\"\"q\rcr\001ctl caf\303\251\"\n4,\\N\n", 46)},
    {"COPY ct TO STDOUT (FORMAT binary)",
     std::string(
         "PGCOPY\n\377\r\n\000\000\000\000\000\000\000\000\000\000\013\000\000\000\004\000\000\000"
         "\001\000\000\000\001x\000\000\000\014\000\002\000\000\000\000\000\002\000\001\023\210\000"
         "\000\000\004\000\000\"?\000\000\000\010?"
         "\370\000\000\000\000\000\000\000\000\000\001\001\000\000\000\002ab\000\000\000\010\000"
         "\002\260\354\205\037\033\000\000\000\000\010\000\000\000\000\000\000\000\n\000\000\000"
         "\002\000\002\000\000\000\003a  "
         "\000\013\000\000\000\004\000\000\000\002\377\377\377\377\377\377\377\377\377\377\377\377"
         "\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377"
         "\377\377\377\377\377\377\000\013\000\000\000\004\000\000\000\003\000\000\000#"
         "tab\there\nnl\\bs,comma\"q\rcr\001ctl "
         "caf\303\251\000\000\000\n\000\001\377\377@"
         "\000\000\002\000d\000\000\000\004\377\377\377\377\000\000\000\010\177\370\000\000\000\000"
         "\000\000\000\000\000\001\000\000\000\000\000\000\000\000\010\000\000\000\000\000\000\000"
         "\000\000\000\000\010\377\377\377\377\377\377\377\377\000\000\000\002\377\377\000\000\000"
         "\003   "
         "\000\013\000\000\000\004\000\000\000\004\000\000\000\002\\N\000\000\000\016\000\003\000"
         "\001\000\000\000\002\004\322\026.&"
         "\254\000\000\000\004\377\364\333\371\000\000\000\010\275\361.\013\350&"
         "\326\225\000\000\000\001\001\000\000\000\001N\000\000\000\010\377\374\242\376\304\310 "
         "\001\000\000\000\010\177\377\377\377\377\377\377\377\000\000\000\002\200\000\000\000\000"
         "\003xyz\377\377",
         400)},
    {"COPY (SELECT a, c FROM ct WHERE a < 0) TO STDOUT (FORMAT binary)",
     std::string("PGCOPY\n\377\r\n\000\000\000\000\000\000\000\000\000\377\377", 21)},
    {"COPY (SELECT E'\\\\.' AS x) TO STDOUT (FORMAT csv)", std::string("\"\\.\"\n", 5)},
    {"COPY (SELECT E'a\\x01b|c' AS \"we|rd\\t\") TO STDOUT (DELIMITER E'\\x01', HEADER)",
     std::string("we|rd\\\\t\na\\\001b|c\n", 16)},

};

TEST_F(CopyToTest, BytesArePostgres) {
  for (const Expected& e : kPostgres) {
    SCOPED_TRACE(e.sql);
    EXPECT_EQ(Copy(e.sql), e.data);
  }
}

TEST_F(CopyToTest, CommandTagFormatsAndMessages) {
  StatementResult text = Run("COPY ct (a, b) TO STDOUT WITH CSV HEADER");
  EXPECT_EQ(text.command_tag, "COPY 4");
  ASSERT_TRUE(text.copy_out.has_value());
  EXPECT_FALSE(text.copy_out->binary);
  EXPECT_EQ(text.copy_out->columns, 2);
  // As PostgreSQL sends them: the header line, then one message per row.
  EXPECT_THAT(text.copy_out->message_ends, ElementsAre(4, 8, 11, 52, 57));

  StatementResult binary =
      Run("COPY (SELECT a FROM ct WHERE a < 3 ORDER BY a) TO STDOUT (FORMAT binary)");
  EXPECT_EQ(binary.command_tag, "COPY 2");
  ASSERT_TRUE(binary.copy_out.has_value());
  EXPECT_TRUE(binary.copy_out->binary);
  EXPECT_EQ(binary.copy_out->columns, 1);
  // The header goes with the first row; the trailer alone.
  EXPECT_THAT(binary.copy_out->message_ends, ElementsAre(19 + 10, 19 + 20, 19 + 22));

  EXPECT_EQ(Run("COPY (SELECT 1 WHERE false) TO STDOUT").command_tag, "COPY 0");
  // In a multi-statement string, as in PostgreSQL.
  std::vector<StatementResult> two = session_->Execute("COPY (SELECT 1) TO STDOUT; SELECT 2");
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].copy_out->data, "1\n");
}

TEST_F(CopyToTest, ErrorsComeInPostgresOrder) {
  // Every message, SQLSTATE and position is PostgreSQL 15's.
  ExpectError("COPY nosuch TO STDOUT", "42P01", "relation \"nosuch\" does not exist");
  Run("CREATE VIEW cv AS SELECT a FROM ct");
  ExpectError("COPY cv TO STDOUT", "42809", "cannot copy from view \"cv\"", 0,
              "Try the COPY (SELECT ...) TO variant.");
  ExpectError("COPY nosuch TO STDOUT (bogus)", "42P01", "relation \"nosuch\" does not exist");
  ExpectError("COPY ct (zz) TO STDOUT", "42703", "column \"zz\" of relation \"ct\" does not exist");
  ExpectError("COPY ct (a, a) TO STDOUT", "42701", "column \"a\" specified more than once");
  // The column list before the options (DoCopy checks its permissions first).
  ExpectError("COPY ct (zz) TO STDOUT (FORMAT 'xml')", "42703",
              "column \"zz\" of relation \"ct\" does not exist");
  ExpectError("COPY (SELECT 1 FROM nosuch) TO STDOUT", "42P01",
              "relation \"nosuch\" does not exist", 21);
  // The options before the query.
  ExpectError("COPY (SELECT 1 FROM nosuch) TO STDOUT (FORMAT 'xml')", "22023",
              "COPY format \"xml\" not recognized", 40);
  ExpectError("COPY ct TO STDOUT (FORMAT binary, HEADER)", "0A000",
              "cannot specify HEADER in BINARY mode");
  ExpectError("COPY ct TO STDOUT (FORMAT binary, DELIMITER ',')", "42601",
              "cannot specify DELIMITER in BINARY mode");
  ExpectError("COPY ct TO STDOUT (FORMAT binary, NULL 'x')", "42601",
              "cannot specify NULL in BINARY mode");
  ExpectError("COPY ct TO STDOUT (FORMAT binary, QUOTE '\"')", "0A000",
              "COPY quote available only in CSV mode");
  ExpectError("COPY ct TO STDOUT (FORMAT binary, ESCAPE '\\')", "0A000",
              "COPY escape available only in CSV mode");
  ExpectError("COPY ct TO STDOUT (FORMAT binary, FORCE_QUOTE *)", "0A000",
              "COPY force quote available only in CSV mode");
  ExpectError("COPY ct TO STDOUT (FORCE_QUOTE *)", "0A000",
              "COPY force quote available only in CSV mode");
  ExpectError("COPY ct TO STDOUT (FORMAT csv, FORCE_QUOTE (a, zz))", "42703",
              "column \"zz\" of relation \"ct\" does not exist");
  ExpectError("COPY ct (b) TO STDOUT (FORMAT csv, FORCE_QUOTE (a))", "42P10",
              "FORCE_QUOTE column \"a\" not referenced by COPY");
  ExpectError("COPY (SELECT a FROM ct) TO STDOUT (FORMAT csv, FORCE_QUOTE (zz))", "42703",
              "column \"zz\" does not exist");
  ExpectError("COPY ct TO STDOUT (FORMAT csv, FORCE_NOT_NULL (a))", "0A000",
              "COPY force not null only available using COPY FROM");
  ExpectError("COPY ct TO STDOUT (FORMAT csv, FORCE_NULL (a))", "0A000",
              "COPY force null only available using COPY FROM");
  ExpectError("COPY ct TO STDOUT (FORMAT csv, HEADER match)", "0A000",
              "cannot use \"match\" with HEADER in COPY TO");
  ExpectError("COPY ct TO STDOUT (HEADER 'maybe')", "42601",
              "header requires a Boolean value or \"match\"");
  ExpectError("COPY ct TO STDOUT (FREEZE 'x')", "42601", "freeze requires a Boolean value");
  ExpectError("COPY ct TO STDOUT (DELIMITER)", "42601", "delimiter requires a parameter");
  ExpectError("COPY ct TO STDOUT (FORMAT binary, FORMAT csv)", "42601",
              "conflicting or redundant options", 35);
  ExpectError("COPY ct TO STDOUT (HEADER true, HEADER false)", "42601",
              "conflicting or redundant options", 33);
  ExpectError("COPY ct TO STDOUT (FORMAT csv, FORCE_QUOTE *, FORCE_QUOTE (a))", "42601",
              "conflicting or redundant options", 47);
  ExpectError("COPY ct TO STDOUT (FORMAT 'CSV')", "22023", "COPY format \"CSV\" not recognized",
              20);
  ExpectError("COPY ct TO STDOUT (FORMAT 'xml')", "22023", "COPY format \"xml\" not recognized",
              20);
  ExpectError("COPY ct TO STDOUT (OIDS)", "42601", "option \"oids\" not recognized", 20);
  ExpectError("COPY ct TO STDOUT (DEFAULT 'x')", "42601", "option \"default\" not recognized", 20);
  ExpectError("COPY ct TO STDOUT (ENCODING 'nonesuch')", "22023",
              "argument to option \"encoding\" must be a valid encoding name", 20);
  ExpectError("COPY ct TO STDOUT (DELIMITER '\\')", "22023", "COPY delimiter cannot be \"\\\"");
  ExpectError("COPY ct TO STDOUT (FORMAT csv, DELIMITER 'ab')", "0A000",
              "COPY delimiter must be a single one-byte character");
  ExpectError("COPY ct TO STDOUT (FORMAT csv, ESCAPE 'xx')", "0A000",
              "COPY escape must be a single one-byte character");
  // What PostgreSQL has and Forktail does not: 0A000 saying so.
  ExpectError("COPY ct TO STDOUT (ENCODING 'latin1')", "0A000",
              "COPY with ENCODING 'latin1' is not supported: Forktail's COPY reads and writes "
              "UTF8 only",
              20);
  // Accepted as PostgreSQL accepts them.
  EXPECT_EQ(Copy("COPY (SELECT 1) TO STDOUT (ENCODING 'UTF-8', FREEZE)"), "1\n");
  EXPECT_EQ(Copy("COPY (SELECT 1) TO STDOUT (ENCODING 'SQL_ASCII', HEADER 0)"), "1\n");
}

// Inside BEGIN ... COMMIT the COPY's read is a step COMMIT validates.
TEST_F(CopyToTest, InABlockTheReadIsValidatedAtCommit) {
  Run("BEGIN");
  Run("INSERT INTO ct (a) VALUES (5)");
  EXPECT_EQ(Copy("COPY (SELECT a FROM ct WHERE a > 3 ORDER BY a) TO STDOUT"), "4\n5\n");
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");

  SqlSession other(*engine_);
  Run("BEGIN");
  EXPECT_EQ(Copy("COPY ct (a) TO STDOUT"), "1\n2\n3\n4\n5\n");
  other.Execute("DELETE FROM ct WHERE a = 5");
  try {
    Run("COMMIT");
    ADD_FAILURE() << "COMMIT succeeded";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kSerializationFailure) << e.what();
  }
}

// Outside a block a COPY TO on a real snapshot sees every commit
// acknowledged before it arrived (make release-test).
class CopyToSnapshotTest : public EngineFixture {};

TEST_F(CopyToSnapshotTest, SeesEveryAcknowledgedCommit) {
  FORKTAIL_SKIP_FORK_STRESS_UNDER_SANITIZER();
  Open(SnapshotRouting());
  Run("CREATE TABLE f (a int)");
  SqlSession writer(*engine_);
  std::string expected;
  for (int i = 1; i <= 10; i++) {
    writer.Execute("INSERT INTO f VALUES (" + std::to_string(i) + ")");
    expected += std::to_string(i) + "\n";
    ASSERT_EQ(Run("COPY (SELECT a FROM f ORDER BY a) TO STDOUT").copy_out->data, expected);
    ASSERT_EQ(Run("COPY f TO STDOUT").command_tag, "COPY " + std::to_string(i));
  }
}

}  // namespace
}  // namespace forktail::testing
