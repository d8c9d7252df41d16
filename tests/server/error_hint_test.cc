// PostgreSQL's HINT on errors (DbError::hint, ErrorResponse 'H'): the
// LATERAL 42P01 error's hint end to end over the wire with the real engine,
// and the hint surviving the snapshot process boundary (the error travels
// in its message text, olap/session/format/row_codec.h).
#include <gtest/gtest.h>

#include "olap/session/format/row_codec.h"
#include "tests/server/e2e_fixture.h"
#include "tests/server/test_client.h"

namespace forktail::test {
namespace {

TEST_F(EndToEnd, ErrorResponseCarriesHint) {
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  ASSERT_FALSE(c.Startup().empty());
  ASSERT_EQ(c.Query("CREATE TABLE t (id int)").back().type, 'Z');
  auto ms = c.Query("SELECT * FROM t, (SELECT t.id) s");
  ASSERT_EQ(Types(ms), "EZ");
  EXPECT_EQ(ErrorField(ms[0], 'C'), "42P01");
  EXPECT_EQ(ErrorField(ms[0], 'M'), "invalid reference to FROM-clause entry for table \"t\"");
  EXPECT_EQ(ErrorField(ms[0], 'P'), "26");
  EXPECT_EQ(ErrorField(ms[0], 'H'),
            "There is an entry for table \"t\", but it cannot be referenced from this part of "
            "the query.");
  // Errors without a hint send no 'H' field.
  ms = c.Query("SELECT * FROM no_such_table");
  ASSERT_EQ(Types(ms), "EZ");
  EXPECT_EQ(ErrorField(ms[0], 'C'), "42P01");
  EXPECT_EQ(ErrorField(ms[0], 'H'), "");
}

TEST(ErrorHint, SurvivesTheSnapshotBoundary) {
  DbError e = DbError(sqlstate::kUndefinedTable, "msg", 7).WithHint("do this");
  DbError back = WithPositionFromMessage(DbError(WithPositionInMessage(e)));
  EXPECT_STREQ(back.what(), "msg");
  EXPECT_EQ(back.position(), 7);
  EXPECT_EQ(back.hint(), "do this");
  DbError no_position = WithPositionFromMessage(
      WithPositionInMessage(DbError(sqlstate::kUndefinedTable, "m").WithHint("h")));
  EXPECT_STREQ(no_position.what(), "m");
  EXPECT_EQ(no_position.position(), 0);
  EXPECT_EQ(no_position.hint(), "h");
  DbError plain = WithPositionFromMessage(WithPositionInMessage(DbError("42601", "x", 3)));
  EXPECT_STREQ(plain.what(), "x");
  EXPECT_EQ(plain.position(), 3);
  EXPECT_EQ(plain.hint(), "");
}

}  // namespace
}  // namespace forktail::test
