// COPY's text and CSV input formats (olap/session/format/copy_reader.h): parsing in
// arbitrary chunks, PostgreSQL's escapes/quoting/NULL rules, its error
// messages with CONTEXT lines, and loading through a Database.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "forktail/database.h"
#include "olap/session/format/copy_reader.h"

namespace forktail {
namespace {

using ::testing::HasSubstr;

// A parsed row as strings, NULL shown as "<null>".
using Rows = std::vector<std::vector<std::string>>;

Rows ParseWhole(const CopyOptions& options, std::string_view input, size_t chunk = 0,
                std::vector<uint64_t>* lines = nullptr) {
  Rows rows;
  CopyParser parser(options, "t", [&](const CopyRow& row) {
    std::vector<std::string> r;
    for (const CopyField& f : row.fields) r.push_back(f.is_null ? "<null>" : std::string(f.text));
    rows.push_back(r);
    if (lines) lines->push_back(row.line);
  });
  if (chunk == 0) chunk = input.size() + 1;
  for (size_t i = 0; i < input.size(); i += chunk) parser.Feed(input.substr(i, chunk));
  parser.Finish();
  return rows;
}

// Every chunk size gives the same rows as one Feed.
Rows ParseAllChunkings(const CopyOptions& options, std::string_view input) {
  Rows whole = ParseWhole(options, input);
  for (size_t chunk = 1; chunk <= input.size(); chunk++) {
    EXPECT_EQ(ParseWhole(options, input, chunk), whole) << "chunk size " << chunk;
  }
  return whole;
}

CopyOptions Csv() {
  CopyOptions o;
  o.format = CopyFormat::kCsv;
  return o;
}

std::string ErrorOf(const CopyOptions& options, std::string_view input, std::string* state) {
  try {
    ParseWhole(options, input);
  } catch (const DbError& e) {
    *state = e.sqlstate();
    return e.what();
  }
  return "no error";
}

TEST(CopyReader, TextFieldsNullsAndEscapes) {
  Rows rows = ParseAllChunkings(
      {}, "1\tabc\t\\N\n2\ta\\tb\\\\c\\nd\t\n3\t\\x41\\101\\q\\\tx\t\\\\N\n\\.\nignored\n");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"1", "abc", "<null>"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"2", "a\tb\\c\nd", ""}));
  // \x41 and \101 are 'A'; \q is q; \<tab> is a tab; \\N is the text "\N", not NULL.
  EXPECT_EQ(rows[2], (std::vector<std::string>{"3", "AAq\tx", "\\N"}));
}

TEST(CopyReader, TextEscapedNewlineCrLfAndLastLineWithoutNewline) {
  std::vector<uint64_t> lines;
  Rows rows = ParseWhole({}, "a\\\nb\tc\r\nd\te", 0, &lines);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"a\nb", "c"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"d", "e"}));
  EXPECT_EQ(lines, (std::vector<uint64_t>{1, 3}));
  EXPECT_EQ(ParseAllChunkings({}, "x\r\ny\r\n").size(), 2u);
}

TEST(CopyReader, TextCustomDelimiterAndNull) {
  CopyOptions o;
  o.delimiter = '|';
  o.null_string = "";
  o.header = true;
  Rows rows = ParseAllChunkings(o, "h1|h2\n1||x\\|y\n");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"1", "<null>", "x|y"}));
}

TEST(CopyReader, CsvQuotingNullsAndHeader) {
  CopyOptions o = Csv();
  o.header = true;
  Rows rows = ParseAllChunkings(
      o, "a,b,c\n1,\"x,y\",\"\"\n2,,\"multi\nline \"\"q\"\"\"\n3,ab\"c,d\"e,\" \"\n\\.\n4,5,6\n");
  ASSERT_EQ(rows.size(), 3u);
  // A quoted empty string is not NULL; an unquoted empty field is.
  EXPECT_EQ(rows[0], (std::vector<std::string>{"1", "x,y", ""}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"2", "<null>", "multi\nline \"q\""}));
  // A quote may start in the middle of a field.
  EXPECT_EQ(rows[2], (std::vector<std::string>{"3", "abc,de", " "}));
}

TEST(CopyReader, CsvEscapeNullStringAndCrLf) {
  CopyOptions o = Csv();
  o.escape = '\\';
  o.null_string = "NULL";
  o.delimiter = '|';
  std::vector<uint64_t> lines;
  Rows rows = ParseWhole(o, "\"a\\\"b\\\\\"|NULL|\"NULL\"\r\n\"x\ny\"|1|2\r\n3|4|5\r\n", 0, &lines);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"a\"b\\", "<null>", "NULL"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"x\ny", "1", "2"}));
  EXPECT_EQ(lines, (std::vector<uint64_t>{1, 2, 4}));
  EXPECT_EQ(ParseAllChunkings(o, "\"a\\\"b\\\\\"|NULL|\"NULL\"\r\n\"x\ny\"|1|2\r\n"),
            Rows(rows.begin(), rows.begin() + 2));
}

TEST(CopyReader, FormatErrorsHavePostgresWordingAndContext) {
  std::string state;
  EXPECT_EQ(ErrorOf(Csv(), "1,2\n3,\"abc\n", &state),
            "unterminated CSV quoted field\nCONTEXT:  COPY t, line 2: \"3,\"abc\n\"");
  EXPECT_EQ(state, "22P04");
  EXPECT_EQ(ErrorOf({}, "a\rb\n", &state),
            "literal carriage return found in data\nCONTEXT:  COPY t, line 1: \"a\rb\"");
  EXPECT_EQ(state, "22P04");
  EXPECT_EQ(ErrorOf({}, "a\r\nb\n", &state),
            "literal newline found in data\nCONTEXT:  COPY t, line 2: \"b\"");
  std::string long_line(150, 'x');
  EXPECT_THAT(ErrorOf({}, "ok\n" + long_line + "\r\n", &state),
              HasSubstr("line 2: \"" + std::string(100, 'x') + "...\""));
}

TEST(CopyReader, InvalidUtf8IsRefusedWithContext) {
  std::string state;
  EXPECT_EQ(ErrorOf({},
                    "ok\na\xff\xfe"
                    "b\n",
                    &state),
            "invalid byte sequence for encoding \"UTF8\": 0xff\nCONTEXT:  COPY t, line 2: "
            "\"a\xff\xfe"
            "b\"");
  EXPECT_EQ(state, "22021");
  // Spelled by an escape of the text format.
  EXPECT_THAT(ErrorOf({}, "a\\xffb\n", &state), HasSubstr("0xff"));
  EXPECT_EQ(state, "22021");
  EXPECT_THAT(ErrorOf(Csv(), "1,\"\xc3\"\n", &state), HasSubstr("0xc3"));
  EXPECT_EQ(ErrorOf({},
                    "caf\xc3\xa9"
                    "\n",
                    &state),
            "no error");
}

TEST(CopyReader, OptionsFollowPostgres) {
  CopyOptions o =
      ParseCopyOptions({{"format", "csv"}, {"delimiter", "|"}, {"header", std::nullopt}});
  EXPECT_EQ(o.format, CopyFormat::kCsv);
  EXPECT_EQ(o.EffectiveDelimiter(), '|');
  EXPECT_TRUE(o.header);
  EXPECT_EQ(o.EffectiveNull(), "");
  auto error = [](std::vector<CopyOptionItem> g) {
    try {
      ParseCopyOptions(g);
    } catch (const DbError& e) {
      return std::string(e.sqlstate()) + " " + e.what();
    }
    return std::string("no error");
  };
  EXPECT_EQ(error({{"delimiter", "||"}}),
            "0A000 COPY delimiter must be a single one-byte character");
  EXPECT_EQ(error({{"format", "xml"}}), "22023 COPY format \"xml\" not recognized");
  EXPECT_EQ(error({{"quote", "'"}}), "0A000 COPY quote available only in CSV mode");
  EXPECT_EQ(error({{"format", "csv"}, {"delimiter", "\""}}),
            "22023 COPY delimiter and quote must be different");
  EXPECT_EQ(error({{"bogus", "1"}}), "42601 option \"bogus\" not recognized");
  EXPECT_EQ(error({{"header", "1"}, {"header", "0"}}), "42601 conflicting or redundant options");
}

TableSchema TestSchema() {
  return {"items",
          {{"id", Type::Integer()},
           {"price", Type::Decimal(15, 2)},
           {"name", Type::Char(4)},
           {"day", Type::Date()}},
          {ColumnId(0)}};
}

Row BuildOne(const CopyRowBuilder& builder, std::string_view input, const CopyOptions& o = {}) {
  Row out;
  CopyParser parser(o, "items", [&](const CopyRow& row) { out = builder.Build(row); });
  parser.Feed(input);
  parser.Finish();
  return out;
}

TEST(CopyReader, RowBuilderConvertsWithColumnTypes) {
  CopyRowBuilder all(TestSchema(), {});
  Row r = BuildOne(all, "7\t12.5\tab\t1998-12-01\n");
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].GetInt(), 7);
  EXPECT_EQ(r[1].ToString(), "12.50");
  EXPECT_EQ(r[2].ToString(), "ab  ");
  EXPECT_EQ(r[3].ToString(), "1998-12-01");

  CopyRowBuilder some(TestSchema(), {"name", "id"});
  r = BuildOne(some, "xy\t3\n");
  EXPECT_EQ(r[0].GetInt(), 3);
  EXPECT_TRUE(r[1].is_null());
  EXPECT_EQ(r[2].ToString(), "xy  ");
  EXPECT_TRUE(r[3].is_null());

  try {
    CopyRowBuilder(TestSchema(), {"id", "nope"});
    ADD_FAILURE();
  } catch (const DbError& e) {
    EXPECT_STREQ(e.what(), "column \"nope\" of relation \"items\" does not exist");
  }
}

TEST(CopyReader, RowBuilderErrorsNameLineAndColumn) {
  CopyRowBuilder all(TestSchema(), {});
  auto error = [&](std::string_view input) {
    try {
      BuildOne(all, input);
    } catch (const DbError& e) {
      return std::string(e.sqlstate()) + " " + e.what();
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("1\t2\tx\t2000-01-01\n2\tabc\tx\t2000-01-01\n"),
            "22P02 invalid input syntax for type numeric: \"abc\"\n"
            "CONTEXT:  COPY items, line 2, column price: \"abc\"");
  EXPECT_EQ(error("1\t2\n"),
            "22P04 missing data for column \"name\"\nCONTEXT:  COPY items, line 1: \"1\t2\"");
  EXPECT_EQ(error("1\t2\tx\t2000-01-01\t9\n"),
            "22P04 extra data after last expected column\n"
            "CONTEXT:  COPY items, line 1: \"1\t2\tx\t2000-01-01\t9\"");
  EXPECT_THAT(error("1\t2\ttoolong\t2000-01-01\n"),
              HasSubstr("CONTEXT:  COPY items, line 1, column name: \"toolong\""));
}

class CopyLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("forktail_copy_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    db_ = Database::Open(dir_.string());
    db_->Run([](Transaction& txn) { txn.CreateTable(TestSchema()); }).ThrowIfError();
  }
  void TearDown() override {
    db_.reset();
    std::filesystem::remove_all(dir_);
  }
  uint64_t Count() {
    uint64_t n = 0;
    db_->Run([&](Transaction& txn) {
         txn.Scan("items", [&](TupleId, const Row&) { return ++n, true; });
       })
        .ThrowIfError();
    return n;
  }
  std::filesystem::path dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(CopyLoaderTest, LoadsInBatchesFromChunks) {
  std::string input;
  for (int i = 0; i < 1000; i++)
    input += std::to_string(i) + "," + std::to_string(i) + ".25,\"n\",2024-01-01\n";
  CopyLoader loader(*db_, "items", {}, Csv(), CopyLoadOptions{.batch_rows = 64});
  for (size_t i = 0; i < input.size(); i += 777)
    loader.Feed(std::string_view(input).substr(i, 777));
  EXPECT_EQ(loader.Finish(), 1000u);
  EXPECT_EQ(Count(), 1000u);
  auto row = db_->Run([](Transaction& txn) { txn.Emit(*txn.Get("items", {Value::Integer(999)})); });
  ASSERT_TRUE(row.ok);
  EXPECT_EQ(row.rows[0][1].ToString(), "999.25");
}

TEST_F(CopyLoaderTest, InsertErrorsCarryTheLineAndKeepTheSqlstate) {
  CopyLoader loader(*db_, "items", {"id"}, {}, CopyLoadOptions{.batch_rows = 0});
  loader.Feed("1\n2\n1\n");
  try {
    loader.Finish();
    ADD_FAILURE();
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), "23505");
    EXPECT_THAT(e.what(), HasSubstr("\nCONTEXT:  COPY items, line 3"));
  }
  EXPECT_EQ(Count(), 0u);  // batch_rows 0: all or nothing
}

TEST_F(CopyLoaderTest, IntoATransactionAndFromAFile) {
  auto result = db_->Run([](Transaction& txn) {
    CopyLoader loader(txn, "items", {"id", "price"}, {});
    loader.Feed("1\t1.5\n2\t\\N\n");
    txn.Emit({Value::BigInt(static_cast<int64_t>(loader.Finish()))});
  });
  ASSERT_TRUE(result.ok) << result.message;
  EXPECT_EQ(result.rows[0][0].GetInt(), 2);

  std::string path = (dir_ / "in.csv").string();
  FILE* f = fopen(path.c_str(), "w");
  fputs("id|price|name|day\n3|0.5|ab|2020-02-29\n4|1|cd|2020-03-01\n", f);
  fclose(f);
  CopyOptions o = ParseCopyOptions({{"format", "csv"}, {"delimiter", "|"}, {"header", "true"}});
  EXPECT_EQ(CopyIntoTable(*db_, "items", {}, o, FileByteSource(path)), 2u);
  EXPECT_EQ(Count(), 4u);
  try {
    FileByteSource((dir_ / "missing").string());
    ADD_FAILURE();
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), "58P01");
    EXPECT_THAT(e.what(), HasSubstr("for reading: No such file or directory"));
  }
}

// batch_rows 0 from a file: one transaction that reads the file itself; a bad
// last line of a large load leaves nothing (rows, blocks, index entries).
TEST_F(CopyLoaderTest, LargeFileInOneTransactionIsAllOrNothing) {
  std::string path = (dir_ / "big.csv").string();
  std::string input;
  for (int i = 0; i < 30000; i++)
    input += std::to_string(i) + "," + std::to_string(i) + ".5,\"n" + std::to_string(i % 1000) +
             "\",2024-01-01\n";
  FILE* f = fopen(path.c_str(), "w");
  fputs((input + "7,1,x,2024-01-01\n").c_str(), f);  // duplicate key on the last line
  fclose(f);
  try {
    CopyIntoTable(*db_, "items", {}, Csv(), FileByteSource(path), {.batch_rows = 0});
    ADD_FAILURE();
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), "23505");
    EXPECT_THAT(e.what(), HasSubstr("\nCONTEXT:  COPY items, line 30001"));
  }
  EXPECT_EQ(Count(), 0u);
  db_->Run([](Transaction& txn) {
       EXPECT_LE(txn.GetTable("items").block_count(), 1u);
       EXPECT_EQ(txn.GetTable("items").index().size(), 0u);
       EXPECT_EQ(txn.GetTable("items").key_order_index()->size(), 0u);
     })
      .ThrowIfError();
  f = fopen(path.c_str(), "w");
  fputs(input.c_str(), f);
  fclose(f);
  EXPECT_EQ(CopyIntoTable(*db_, "items", {}, Csv(), FileByteSource(path), {.batch_rows = 0}),
            30000u);
  EXPECT_EQ(Count(), 30000u);
}

}  // namespace
}  // namespace forktail
