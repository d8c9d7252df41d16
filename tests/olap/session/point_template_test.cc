// Point templates (olap/session/statement/point_template.h): a simple-query
// SELECT by integer primary key answered, for a text this session bound
// before with other key digits, without the parser or the binder. Every
// answer must equal the general path's (the same query on a table without a
// key), the cache must be taken only where the text means "the row of these
// keys", and a schema or setting change must never leave a stale answer.
#include "olap/session/statement/point_template.h"

#include <chrono>
#include <thread>

#include "tests/olap/session/session_test_util.h"

namespace forktail::testing {
namespace {

using ::testing::ElementsAre;

TEST(PointQueryText, TakesOutTheKeyLiteralsOnly) {
  auto a = PointQueryTextOf("SELECT abalance FROM t WHERE aid = 5");
  auto b = PointQueryTextOf("select  abalance from t where aid=70;");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->key, PointQueryTextOf("SELECT abalance FROM t WHERE aid = 70;")->key);
  EXPECT_THAT(a->literals, ElementsAre(5));
  EXPECT_THAT(b->literals, ElementsAre(70));
  auto two = PointQueryTextOf("SELECT x + 1 FROM t WHERE (a = 1) AND \"B\" = 2");
  ASSERT_TRUE(two);
  EXPECT_THAT(two->literals, ElementsAre(1, 2));
  // The other literals stay in the text: another value is another text.
  EXPECT_NE(two->key, PointQueryTextOf("SELECT x + 2 FROM t WHERE (a = 1) AND \"B\" = 2")->key);
  EXPECT_NE(two->key, PointQueryTextOf("SELECT x + 1 FROM t WHERE (a = 1) AND \"b\" = 2")->key);
  EXPECT_NE(PointQueryTextOf("SELECT 'a' FROM t WHERE k = 1")->key,
            PointQueryTextOf("SELECT a FROM t WHERE k = 1")->key);
}

TEST(PointQueryText, NothingElse) {
  for (const char* sql : {
           "SELECT 5",                                        // no comparison
           "SELECT a FROM t WHERE a = sign(1)",               // an argument
           "SELECT a FROM t WHERE a = 5 + 1",                 // an operand
           "SELECT a FROM t WHERE a = -5",                    // a sign
           "SELECT a FROM t WHERE a = 5::int",                // a cast
           "SELECT a FROM t WHERE a = 1.5",                   // not an integer
           "SELECT a FROM t WHERE a = '5'",                   // a string
           "SELECT a FROM t WHERE a = $1",                    // a parameter
           "SELECT a FROM t WHERE a = 99999999999999999999",  // past int8
           "SELECT a FROM t WHERE a = 1; SELECT 2",           // two statements
           "UPDATE t SET b = 1 WHERE a = 1",                  // not a SELECT
           "WITH x AS (SELECT 1) SELECT a FROM t WHERE a = 1",
           "SELECT a FROM t WHERE a = 1 AND b = 'unterminated",
           // What the binder folds into constants a later statement must not see.
           "SELECT now(), a FROM t WHERE a = 1",
           "SELECT current_timestamp, a FROM t WHERE a = 1",
           "SELECT a, 'now'::timestamp FROM t WHERE a = 1",
           "SELECT a, timestamp 'now' FROM t WHERE a = 1",
           "SELECT random(), a FROM t WHERE a = 1",
           "SELECT a FROM t WHERE a = 1 AND \"f\"(b)",
       }) {
    EXPECT_FALSE(PointQueryTextOf(sql)) << sql;
  }
}

class PointTemplateTest : public PointTablesFixture {
 protected:
  // Runs the SELECT on `acc` outside a block (from a template iff
  // `cached`) and on `acc_nokey` (general path): the same answer.
  void Same(const std::string& select, bool cached) {
    uint64_t before = PointTemplateExecutions();
    StatementResult with_key = Run(On(select, "acc"));
    EXPECT_EQ(PointTemplateExecutions() - before, cached ? 1u : 0u) << select;
    StatementResult without_key = Run(On(select, "acc_nokey"));
    EXPECT_EQ(with_key.columns, without_key.columns) << select;
    EXPECT_EQ(Lines(with_key), Lines(without_key)) << select;
    EXPECT_EQ(with_key.command_tag, without_key.command_tag) << select;
  }
};

TEST_F(PointTemplateTest, AnswersAsTheGeneralPath) {
  Same("SELECT abalance FROM $T WHERE aid = 1", false);  // binds, keeps the template
  Same("SELECT abalance FROM $T WHERE aid = 2", true);
  Same("SELECT abalance FROM $T WHERE aid = 4", true);            // a NULL value
  Same("SELECT abalance FROM $T WHERE aid = 99", true);           // no row
  Same("SELECT abalance FROM $T WHERE aid = 4000000000", false);  // does not fit: general
  Same("SELECT aid + 1 AS next, filler FROM $T t WHERE t.aid = 3", false);
  Same("SELECT aid + 1 AS next, filler FROM $T t WHERE t.aid = 2", true);
  Same("SELECT * FROM $T WHERE (aid = 3)", false);
  Same("SELECT * FROM $T WHERE (aid = 1)", true);
}

TEST_F(PointTemplateTest, OnlyWhereTheTextIsTheKey) {
  // More literals than key columns, another column, a function of the
  // literal: never from a template, however often.
  for (int i = 1; i <= 3; i++) {
    const std::string n = std::to_string(i);
    Same("SELECT abalance FROM $T WHERE aid = " + n + " AND bid = 1", false);
    Same("SELECT abalance FROM $T WHERE bid = " + n, false);
    Same("SELECT abalance FROM $T WHERE aid = abs(" + n + ")", false);
    Same("SELECT abalance FROM $T WHERE aid = " + n + " FOR UPDATE", false);
  }
  // Inside a block the block's own path answers.
  Same("SELECT filler FROM $T WHERE aid = 1", false);
  Run("BEGIN");
  Same("SELECT filler FROM $T WHERE aid = 2", false);
  Run("COMMIT");
}

TEST_F(PointTemplateTest, StatementTimeIsEachStatementsOwn) {
  const std::string first = Query("SELECT now(), abalance FROM acc WHERE aid = 1")[0];
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const std::string second = Query("SELECT now(), abalance FROM acc WHERE aid = 2")[0];
  EXPECT_NE(first.substr(0, first.find('|')), second.substr(0, second.find('|')));
}

TEST_F(PointTemplateTest, SeveralKeyColumnsAndSmallKeys) {
  Run("CREATE TABLE pair (a int, b smallint, v text, PRIMARY KEY (a, b))");
  Run("INSERT INTO pair VALUES (1, 2, 'one-two'), (2, 1, 'two-one'), (3, 3, 'three')");
  EXPECT_THAT(Query("SELECT v FROM pair WHERE a = 1 AND b = 2"), ElementsAre("one-two"));
  uint64_t before = PointTemplateExecutions();
  EXPECT_THAT(Query("SELECT v FROM pair WHERE a = 2 AND b = 1"), ElementsAre("two-one"));
  EXPECT_THAT(Query("SELECT v FROM pair WHERE a = 3 AND b = 3"), ElementsAre("three"));
  EXPECT_EQ(PointTemplateExecutions() - before, 2u);
  // 40000 is no smallint: the general path compares and finds nothing.
  EXPECT_THAT(Query("SELECT v FROM pair WHERE a = 1 AND b = 40000"), ElementsAre());
  EXPECT_EQ(PointTemplateExecutions() - before, 2u);
  // Equal literals in the first text: which key takes which is not known.
  EXPECT_THAT(Query("SELECT v || '!' FROM pair WHERE a = 3 AND b = 3"), ElementsAre("three!"));
  EXPECT_THAT(Query("SELECT v || '!' FROM pair WHERE a = 1 AND b = 2"), ElementsAre("one-two!"));
  EXPECT_EQ(PointTemplateExecutions() - before, 2u);
}

TEST_F(PointTemplateTest, SchemaAndSettingChangesAreSeen) {
  EXPECT_THAT(Query("SELECT filler FROM acc WHERE aid = 1"), ElementsAre("x"));
  EXPECT_THAT(Query("SELECT filler FROM acc WHERE aid = 3"), ElementsAre("y"));
  // Another session re-creates the table with other columns and rows.
  SqlSession other(*engine_);
  other.Execute("DROP TABLE acc");
  other.Execute("CREATE TABLE acc (filler int, aid int PRIMARY KEY)");
  other.Execute("INSERT INTO acc VALUES (7, 3)");
  uint64_t before = PointTemplateExecutions();
  EXPECT_THAT(Query("SELECT filler FROM acc WHERE aid = 3"), ElementsAre("7"));
  EXPECT_THAT(Query("SELECT filler FROM acc WHERE aid = 1"), ElementsAre());
  EXPECT_EQ(PointTemplateExecutions() - before, 1u);  // the second, from a new template
  Run("SET application_name = 'x'");                  // settings changed: bound again
  EXPECT_THAT(Query("SELECT filler FROM acc WHERE aid = 3"), ElementsAre("7"));
  EXPECT_EQ(PointTemplateExecutions() - before, 1u);
}

}  // namespace
}  // namespace forktail::testing
