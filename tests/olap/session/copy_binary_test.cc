// Binary COPY (olap/session/format/copy_binary.h) through SQL sessions:
// COPY TO (FORMAT binary) then COPY FROM (FORMAT binary) gives the same
// table back, in any chunking; PostgreSQL's own binary output loads; and
// every malformed stream fails with PostgreSQL 15's SQLSTATE, message and
// CONTEXT (each case was sent to PostgreSQL 15 as is) and loads nothing.
#include "tests/olap/session/session_test_util.h"

namespace forktail::testing {
namespace {

using ::testing::ElementsAre;

const std::string kSignature("PGCOPY\n\377\r\n\0", 11);

std::string Int(int64_t v, int bytes) {
  std::string out;
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return out;
}
std::string Header() { return kSignature + Int(0, 4) + Int(0, 4); }
std::string Field(const std::string& bytes) {
  return Int(static_cast<int64_t>(bytes.size()), 4) + bytes;
}
const std::string kNull = Int(-1, 4);
const std::string kTrailer = Int(-1, 2);
std::string Tuple(const std::vector<std::string>& fields) {
  std::string out = Int(static_cast<int64_t>(fields.size()), 2);
  for (const std::string& f : fields) out += f;
  return out;
}

class CopyBinaryTest : public EngineFixture {
 protected:
  void SetUp() override {
    Open(InProcess());
    Run("CREATE TABLE bt (a int, b text, c numeric(6,2), d varchar(3))");
  }
  // COPY ... FROM STDIN with `input` fed `chunk` bytes at a time (0: at once).
  StatementResult Load(const std::string& sql, const std::string& input, size_t chunk = 0) {
    EXPECT_EQ(Run(sql).command_tag, "COPY_IN");
    if (chunk == 0) chunk = input.size() + 1;
    for (size_t i = 0; i < input.size(); i += chunk) session_->CopyIn(input.substr(i, chunk));
    return session_->CopyDone();
  }
  // The error of loading `input` into bt ("" if none), and that nothing was loaded.
  std::string LoadError(const std::string& input) {
    std::string error;
    try {
      Load("COPY bt FROM STDIN (FORMAT binary)", input);
    } catch (const DbError& e) {
      error = std::string(e.sqlstate()) + " " + e.what();
    }
    EXPECT_THAT(Query("SELECT count(*) FROM bt"), ElementsAre(error.empty() ? "1" : "0"));
    Run("DELETE FROM bt");
    return error;
  }
};

TEST_F(CopyBinaryTest, RoundTripInAnyChunking) {
  Run("CREATE TABLE src (a int, b text, c numeric(10,2), d date, e double precision, f boolean, "
      "g varchar(5), h timestamp, i bigint, j smallint, k char(3))");
  Run("INSERT INTO src VALUES (1, 'x', 1.5, '2024-01-02', 1.5, true, 'ab', '2024-01-02 "
      "03:04:05.6', 10, 2, 'a'), (2, null, null, null, null, null, null, null, null, null, null), "
      "(3, E'tab\\there\\n\\\\ caf\u00e9', -0.01, '1999-12-31', 'NaN', false, '', '2000-01-01', "
      "-9223372036854775808, -32768, ''), (4, '', 12345678.99, '0001-01-01', -2.5e-10, true, "
      "'N', '1970-01-01 00:00:00.000001', 9223372036854775807, 32767, 'xyz')");
  const std::string binary = Run("COPY src TO STDOUT (FORMAT binary)").copy_out->data;
  const std::string text = Run("COPY src TO STDOUT").copy_out->data;
  Run("CREATE TABLE dst (a int, b text, c numeric(10,2), d date, e double precision, f boolean, "
      "g varchar(5), h timestamp, i bigint, j smallint, k char(3))");
  for (size_t chunk : {size_t{0}, size_t{1}, size_t{3}, size_t{7}, size_t{64}}) {
    SCOPED_TRACE(chunk);
    EXPECT_EQ(Load("COPY dst FROM STDIN (FORMAT binary)", binary, chunk).command_tag, "COPY 4");
    EXPECT_EQ(Run("COPY dst TO STDOUT").copy_out->data, text);
    EXPECT_EQ(Run("COPY dst TO STDOUT (FORMAT binary)").copy_out->data, binary);
    Run("DELETE FROM dst");
  }
  // A column list, the others getting their default; inside a block.
  Run("BEGIN");
  EXPECT_EQ(Load("COPY dst (k, a) FROM STDIN WITH BINARY",
                 Run("COPY src (k, a) TO STDOUT WITH BINARY").copy_out->data)
                .command_tag,
            "COPY 4");
  EXPECT_EQ(Run("COMMIT").command_tag, "COMMIT");
  EXPECT_THAT(Query("SELECT a, k, b FROM dst ORDER BY a"),
              ElementsAre("1|a  |", "2||", "3|   |", "4|xyz|"));
}

TEST_F(CopyBinaryTest, LoadsPostgresOutput) {
  // PostgreSQL 15's COPY (SELECT 7, 'seven'::text, 12.5::numeric,
  // 'sev'::varchar(3) UNION ALL SELECT null, null, 1.2345, null) TO STDOUT
  // (FORMAT binary); 1.2345 (dscale 4) is rounded into numeric(6,2).
  const std::string hex =
      "5047434f50590aff0d0a0000000000000000000004000000040000000700000005736576656e0000000c0002"
      "000000000001000c1388000000037365760004ffffffffffffffff0000000c000200000000000400010929ff"
      "ffffffffff";
  std::string from_postgres;
  for (size_t i = 0; i < hex.size(); i += 2) {
    from_postgres.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  EXPECT_EQ(Load("COPY bt FROM STDIN (FORMAT binary)", from_postgres).command_tag, "COPY 2");
  EXPECT_THAT(Query("SELECT * FROM bt ORDER BY a"), ElementsAre("7|seven|12.50|sev", "||1.23|"));
}

TEST_F(CopyBinaryTest, MalformedInputFailsAsPostgresAndLoadsNothing) {
  const std::string good = Tuple({Field(Int(1, 4)), Field("x"), kNull, Field("ab")});
  struct Case {
    std::string name;
    std::string input;
    std::string error;  // "" when PostgreSQL loads it
  };
  const std::vector<Case> cases = {
      {"good", Header() + good + kTrailer, ""},
      {"no trailer", Header() + good, ""},
      {"flag bits 0-15 are ignored", kSignature + Int(1, 4) + Int(0, 4) + good + kTrailer, ""},
      {"header extension skipped", kSignature + Int(0, 4) + Int(3, 4) + "xyz" + good + kTrailer,
       ""},
      {"half a field count at the end", Header() + good + std::string(1, '\0'), ""},
      {"empty", "", "22P04 COPY file signature not recognized"},
      {"bad signature",
       std::string("PGCOPY\n\377\r\n\1", 11) + Int(0, 4) + Int(0, 4) + good + kTrailer,
       "22P04 COPY file signature not recognized"},
      {"short signature", "PGCOP", "22P04 COPY file signature not recognized"},
      {"missing flags", kSignature + std::string(2, '\0'),
       "22P04 invalid COPY file header (missing flags)"},
      {"oids", kSignature + Int(1 << 16, 4) + Int(0, 4) + good + kTrailer,
       "22P04 invalid COPY file header (WITH OIDS)"},
      {"critical flag", kSignature + Int(1 << 20, 4) + Int(0, 4) + good + kTrailer,
       "22P04 unrecognized critical flags in COPY file header"},
      {"missing extension length", kSignature + Int(0, 4) + std::string(1, '\0'),
       "22P04 invalid COPY file header (missing length)"},
      {"negative extension length", kSignature + Int(0, 4) + Int(-1, 4) + good + kTrailer,
       "22P04 invalid COPY file header (missing length)"},
      {"extension too long", kSignature + Int(0, 4) + Int(100, 4) + "abc",
       "22P04 invalid COPY file header (wrong length)"},
      {"three fields", Header() + Tuple({Field(Int(1, 4)), Field("x"), kNull}) + kTrailer,
       "22P04 row field count is 3, expected 4\nCONTEXT:  COPY bt, line 1"},
      {"five fields",
       Header() + Tuple({Field(Int(1, 4)), Field("x"), kNull, kNull, kNull}) + kTrailer,
       "22P04 row field count is 5, expected 4\nCONTEXT:  COPY bt, line 1"},
      {"no fields", Header() + Int(0, 2) + kTrailer,
       "22P04 row field count is 0, expected 4\nCONTEXT:  COPY bt, line 1"},
      {"truncated field length", Header() + Int(4, 2) + std::string(2, '\0'),
       "22P04 unexpected EOF in COPY data\nCONTEXT:  COPY bt, line 1, column a"},
      {"truncated field data", Header() + Int(4, 2) + Int(4, 4) + Int(1, 2),
       "22P04 unexpected EOF in COPY data\nCONTEXT:  COPY bt, line 1, column a"},
      {"truncated tuple", Header() + Int(4, 2) + Field(Int(1, 4)),
       "22P04 unexpected EOF in COPY data\nCONTEXT:  COPY bt, line 1, column b"},
      {"negative field size", Header() + Int(4, 2) + Int(-2, 4),
       "22P04 invalid field size\nCONTEXT:  COPY bt, line 1, column a"},
      {"int4 of 2 bytes", Header() + Tuple({Field(Int(1, 2)), Field("x"), kNull, kNull}) + kTrailer,
       "08P01 insufficient data left in message\nCONTEXT:  COPY bt, line 1, column a"},
      {"int4 of 5 bytes", Header() + Tuple({Field(Int(1, 5)), Field("x"), kNull, kNull}) + kTrailer,
       "22P03 incorrect binary data format\nCONTEXT:  COPY bt, line 1, column a"},
      {"invalid UTF-8",
       Header() + Tuple({Field(Int(1, 4)), Field("\xff"), kNull, kNull}) + kTrailer,
       "22021 invalid byte sequence for encoding \"UTF8\": 0xff\nCONTEXT:  COPY bt, line 1, "
       "column b"},
      {"NUL in text",
       Header() + Tuple({kNull, Field(std::string("a\0b", 3)), kNull, kNull}) + kTrailer,
       "22021 invalid byte sequence for encoding \"UTF8\": 0x00\nCONTEXT:  COPY bt, line 1, "
       "column b"},
      {"numeric digit",
       Header() +
           Tuple({kNull, kNull,
                  Field(Int(1, 2) + Int(0, 2) + Int(0, 2) + Int(0, 2) + Int(10000, 2)), kNull}) +
           kTrailer,
       "22P03 invalid digit in external \"numeric\" value\nCONTEXT:  COPY bt, line 1, column c"},
      {"numeric sign",
       Header() +
           Tuple({kNull, kNull,
                  Field(Int(1, 2) + Int(0, 2) + Int(0x1234, 2) + Int(0, 2) + Int(1, 2)), kNull}) +
           kTrailer,
       "22P03 invalid sign in external \"numeric\" value\nCONTEXT:  COPY bt, line 1, column c"},
      {"numeric cut short",
       Header() + Tuple({kNull, kNull, Field(Int(1, 2) + Int(0, 2) + Int(0, 2)), kNull}) + kTrailer,
       "08P01 insufficient data left in message\nCONTEXT:  COPY bt, line 1, column c"},
      {"varchar(3) too long", Header() + Tuple({kNull, kNull, kNull, Field("abcd")}) + kTrailer,
       "22001 value too long for type character varying(3)\nCONTEXT:  COPY bt, line 1, column d"},
      {"data after the trailer", Header() + good + kTrailer + "junk",
       "22P04 received copy data after EOF marker\nCONTEXT:  COPY bt, line 2"},
      {"second stream", Header() + good + kTrailer + Header(),
       "22P04 received copy data after EOF marker\nCONTEXT:  COPY bt, line 2"},
      {"second row bad",
       Header() + good + Tuple({Field(Int(1, 2)), kNull, kNull, kNull}) + kTrailer,
       "08P01 insufficient data left in message\nCONTEXT:  COPY bt, line 2, column a"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(LoadError(c.input), c.error);
  }
}

TEST_F(CopyBinaryTest, OptionsOfTheBinaryFormat) {
  // PostgreSQL 15's errors.
  for (const auto& [sql, error] : std::vector<std::pair<std::string, std::string>>{
           {"COPY bt FROM STDIN (FORMAT binary, HEADER)",
            "0A000 cannot specify HEADER in BINARY mode"},
           {"COPY bt FROM STDIN (FORMAT binary, DELIMITER ',')",
            "42601 cannot specify DELIMITER in BINARY mode"},
           {"COPY bt FROM STDIN (FORMAT binary, NULL '')",
            "42601 cannot specify NULL in BINARY mode"},
           {"COPY bt FROM STDIN (FORMAT binary, FORCE_QUOTE *)",
            "0A000 COPY force quote available only in CSV mode"},
       }) {
    try {
      Run(sql);
      ADD_FAILURE() << sql;
    } catch (const DbError& e) {
      EXPECT_EQ(std::string(e.sqlstate()) + " " + e.what(), error) << sql;
    }
  }
  StatementResult start = Run("COPY bt (a, b) FROM STDIN (FORMAT binary)");
  EXPECT_EQ(start.command_tag, "COPY_IN");
  EXPECT_TRUE(start.binary_rows);  // CopyInResponse says binary
  EXPECT_EQ(start.columns.size(), 2u);
  EXPECT_THROW(session_->CopyFail("not this time"), DbError);
}

}  // namespace
}  // namespace forktail::testing
