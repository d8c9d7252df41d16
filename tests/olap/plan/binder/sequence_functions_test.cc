// The binder's side of sequences (olap/plan/binder/sequence_functions.h):
// regclass text, stored DEFAULT texts that name sequences, nextval bound
// without a SequenceAccess, and a sequence read in FROM.
#include <gtest/gtest.h>

#include "olap/parser/parser.h"
#include "olap/plan/binder/binder.h"
#include "olap/plan/binder/sequence_functions.h"
#include "storage/error.h"

namespace forktail {
namespace {

std::string ErrorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const DbError& e) {
    return std::string(e.sqlstate()) + " " + e.what();
  }
  return "no error";
}

TEST(SequenceFunctions, RegclassTextFoldsUnlessQuoted) {
  EXPECT_EQ(ParseRegclassText("Seq"), std::vector<std::string>{"seq"});
  EXPECT_EQ(ParseRegclassText("public.\"My.Seq\""), (std::vector<std::string>{"public", "My.Seq"}));
  EXPECT_EQ(ParseRegclassText(" a . \"b\"\"c\" "), (std::vector<std::string>{"a", "b\"c"}));
  for (const char* bad : {"", "a.", ".a", "\"\"", "\"open", "a b"}) {
    EXPECT_EQ(ErrorOf([&] { ParseRegclassText(bad); }), "42602 invalid name syntax") << bad;
  }
}

sql::StatementPtr ParseDefault(const std::string& text) {
  return std::move(sql::Parser("SELECT " + text).ParseAll().at(0));
}

TEST(SequenceFunctions, StoredDefaultsNameTheirSequence) {
  Catalog catalog;
  SequenceDef def;
  def.name = "Mixed Seq";
  catalog.CreateSequence(def, {});
  def.name = "s";
  catalog.CreateSequence(def, {});
  auto stored = [&](const std::string& text) {
    sql::StatementPtr parsed = ParseDefault(text);
    return StoredDefaultText(*parsed->query->select_list[0].expr, catalog);
  };
  EXPECT_EQ(stored("nextval('S')"), "nextval('s'::regclass)");
  EXPECT_EQ(stored("nextval('public.s'::regclass)"), "nextval('s'::regclass)");
  EXPECT_EQ(stored("nextval('\"Mixed Seq\"')"), "nextval('\"Mixed Seq\"'::regclass)");
  EXPECT_EQ(stored("nextval('s') * 10"), "(nextval('s') * 10)");
  EXPECT_EQ(ErrorOf([&] { stored("nextval('nosuch')"); }),
            "42P01 relation \"nosuch\" does not exist");
  EXPECT_TRUE(DefaultUsesSequence("nextval('s'::regclass)", "s"));
  EXPECT_TRUE(DefaultUsesSequence("(nextval('s') * 10)", "s"));
  EXPECT_FALSE(DefaultUsesSequence("nextval('s'::regclass)", "t"));
  EXPECT_FALSE(DefaultUsesSequence("'s'", "s"));
  EXPECT_EQ(RenameSequenceInDefault("nextval('s'::regclass)", "s", "New"),
            "nextval('\"New\"'::regclass)");
  EXPECT_EQ(RenameSequenceInDefault("(nextval('s') * 10)", "s", "u"), "(nextval('u') * 10)");
  EXPECT_TRUE(CallsSequenceFunctions("(lastval() + 1)"));
  EXPECT_TRUE(CallsSequenceFunctions("pg_catalog.nextval('s'::regclass)"));
  EXPECT_FALSE(CallsSequenceFunctions("now()"));
  EXPECT_FALSE(CallsSequenceFunctions(""));
}

// Bound without a SequenceAccess (Describe, a snapshot process): the call
// is not folded to a constant, and fails only when it runs. A sequence in
// FROM is its one row.
TEST(SequenceFunctions, BoundWithoutAccessAndReadInFrom) {
  Catalog catalog;
  SequenceDef def;
  def.name = "s";
  catalog.CreateSequence(def, {7, true});
  BoundStatement nextval = Bind(*sql::Parse("SELECT nextval('s')").at(0), catalog);
  EXPECT_EQ(nextval.sequence_use, SequenceUse::kWrites);
  EXPECT_EQ(nextval.plan->columns.at(0).type, Type::BigInt());
  EXPECT_EQ(Bind(*sql::Parse("SELECT currval('s'), lastval()").at(0), catalog).sequence_use,
            SequenceUse::kReads);
  EXPECT_EQ(Bind(*sql::Parse("SELECT last_value FROM s").at(0), catalog).sequence_use,
            SequenceUse::kNone);
  EXPECT_EQ(ErrorOf([&] { Bind(*sql::Parse("SELECT nextval('t')").at(0), catalog); }),
            "42P01 relation \"t\" does not exist");
  EXPECT_EQ(ErrorOf([&] { Bind(*sql::Parse("INSERT INTO s VALUES (1, 0, true)").at(0), catalog); }),
            "42809 cannot change sequence \"s\"");
}

}  // namespace
}  // namespace forktail
