// psql's aligned output format (forktail sql).
#include <gtest/gtest.h>

#include "olap/session/format/aligned_format.h"

namespace forktail {
namespace {

TEST(EngineAlignedFormatTest, LikePsql) {
  StatementResult r;
  r.columns = {{"id", Type::Integer()}, {"name", Type::Text()}, {"price", Type::Decimal(10, 2)}};
  r.rows = {{Value::Integer(1), Value::Text("apple"), Value::Decimal(150, 10, 2)},
            {Value::Integer(22), Value::Null(Type::Text()), Value::Null(Type::Decimal(10, 2))}};
  EXPECT_EQ(FormatAligned(r),
            " id | name  | price \n"
            "----+-------+-------\n"
            "  1 | apple |  1.50\n"
            " 22 |       |\n"
            "(2 rows)\n");
  r.rows.pop_back();
  r.rows[0][1] = Value::Text("a\nbc");
  EXPECT_EQ(FormatAligned(r),
            " id | name | price \n"
            "----+------+-------\n"
            "  1 | a   +|  1.50\n"
            "    | bc   |\n"
            "(1 row)\n");
  StatementResult tag;
  tag.command_tag = "INSERT 0 3";
  EXPECT_EQ(FormatAligned(tag), "INSERT 0 3\n");
}

}  // namespace
}  // namespace forktail
