// The extended protocol's implicit transaction at the message level, with the
// real engine: the statements executed before a Sync commit together at the
// Sync, and an error anywhere in the group -- in a statement, or in a Bind
// the server cannot decode -- rolls back every statement of the group, as in
// PostgreSQL 15. Replies wait for the Sync.
// (tests/server/e2e/pipeline_transaction.py does the same through psycopg.)
#include <gtest/gtest.h>

#include "server/messages.h"
#include "tests/server/e2e_fixture.h"
#include "tests/server/test_client.h"

namespace forktail::test {
namespace {

// Bind of the unnamed portal to statement "ins" with one text parameter.
std::string BindText(const std::string& value) { return Bind({"", "ins", {0}, {value}, {}}); }

class PipelineGroupTest : public EndToEnd {
 protected:
  void SetUp() override {
    EndToEnd::SetUp();
    ASSERT_TRUE(c_.Connect(server_->port()));
    ASSERT_FALSE(c_.Startup().empty());
    ASSERT_EQ(c_.Query("CREATE TABLE g (id int PRIMARY KEY)").back().type, 'Z');
    c_.Send(Parse("ins", "INSERT INTO g VALUES ($1)", {23}) + Sync());
    ASSERT_EQ(Types(c_.ReadUntilReady()), "1Z");
  }
  std::string Count() {
    auto ms = c_.Query("SELECT count(*) FROM g");
    const BackendMessage* row = FindMessage(ms, 'D');
    return row ? DataRowValues(*row)[0].value_or("NULL") : "none";
  }
  TestClient c_;
};

TEST_F(PipelineGroupTest, TheGroupCommitsAtItsSync) {
  c_.Send(BindText("1") + Execute() + BindText("2") + Execute() + BindText("3") + Execute() +
          Sync());
  auto ms = c_.ReadUntilReady();
  EXPECT_EQ(Types(ms), "2C2C2CZ");
  EXPECT_EQ(Count(), "3");
}

TEST_F(PipelineGroupTest, AFailingStatementRollsBackTheGroup) {
  c_.Send(BindText("1") + Execute() + BindText("2") + Execute() + BindText("2") + Execute() +
          BindText("3") + Execute() + Sync());
  auto ms = c_.ReadUntilReady();
  ASSERT_EQ(Types(ms), "2C2C2EZ");  // the rest skipped to the Sync
  EXPECT_EQ(ErrorField(ms[5], 'C'), "23505");
  EXPECT_EQ(Count(), "0");
  // The session is idle and works on.
  c_.Send(BindText("4") + Execute() + Sync());
  EXPECT_EQ(Types(c_.ReadUntilReady()), "2CZ");
  EXPECT_EQ(Count(), "1");
}

TEST_F(PipelineGroupTest, ABindErrorRollsBackTheGroup) {
  // The second Bind's parameter is binary with 3 bytes for an int4: 22P03
  // before any statement of it runs.
  c_.Send(BindText("1") + Execute() + Bind({"", "ins", {1}, {std::string("abc")}, {}}) + Execute() +
          BindText("3") + Execute() + Sync());
  auto ms = c_.ReadUntilReady();
  ASSERT_EQ(Types(ms), "2CEZ");
  EXPECT_EQ(ErrorField(ms[2], 'C'), "22P03");
  EXPECT_EQ(Count(), "0");
}

TEST_F(PipelineGroupTest, ASyncAfterEachStatementCommitsEach) {
  c_.Send(BindText("1") + Execute() + Sync() + BindText("1") + Execute() + Sync() + BindText("2") +
          Execute() + Sync());
  auto first = c_.ReadUntilReady();
  auto second = c_.ReadUntilReady();
  auto third = c_.ReadUntilReady();
  EXPECT_EQ(Types(first), "2CZ");
  EXPECT_EQ(Types(second), "2EZ");
  EXPECT_EQ(Types(third), "2CZ");
  EXPECT_EQ(Count(), "2");
}

}  // namespace
}  // namespace forktail::test
