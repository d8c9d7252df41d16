// Write statements, DDL and parameters: what BoundStatement carries.
#include <gtest/gtest.h>

#include "tests/olap/plan/binder/binder_test_catalog.h"

namespace forktail {
namespace {

using bindertest::BindSql;

class BinderStatementTest : public ::testing::Test {
 protected:
  static Catalog& Cat() {
    static bindertest::TpchCatalog* c = new bindertest::TpchCatalog(1);
    return c->catalog();
  }
};

TEST_F(BinderStatementTest, CreateTableTypes) {
  BoundStatement b = BindSql(
      "create table if not exists t (a int2, b int, c bigint, d real, e double precision, "
      "f numeric(15,2), g numeric, h char(3), i character varying(7), j text, k date, "
      "l timestamp without time zone, m boolean, n varchar, o char, primary key (b, a))",
      Cat());
  ASSERT_EQ(b.kind, BoundStatementKind::kCreateTable);
  EXPECT_TRUE(b.if_not_exists);
  const TableSchema& s = b.schema;
  EXPECT_EQ(s.name, "t");
  std::vector<Type> want = {
      Type::SmallInt(),     Type::Integer(),      Type::BigInt(),  Type::Double(),   Type::Double(),
      Type::Decimal(15, 2), Type::Decimal(18, 4), Type::Char(3),   Type::Varchar(7), Type::Text(),
      Type::Date(),         Type::Timestamp(),    Type::Boolean(), Type::Varchar(0), Type::Char(1)};
  ASSERT_EQ(s.columns.size(), want.size());
  for (size_t i = 0; i < want.size(); i++) EXPECT_EQ(s.columns[i].type, want[i]) << i;
  ASSERT_EQ(s.primary_key.size(), 2u);
  EXPECT_EQ(s.primary_key[0].value(), 1);
  EXPECT_EQ(s.primary_key[1].value(), 0);
  EXPECT_TRUE(s.columns[0].not_null);
  EXPECT_FALSE(s.columns[2].not_null);
}

TEST_F(BinderStatementTest, InsertConstantRows) {
  BoundStatement b =
      BindSql("insert into region (r_name, r_regionkey) values ('X', 7), ('Y', 1 + 1)", Cat());
  ASSERT_EQ(b.kind, BoundStatementKind::kInsert);
  EXPECT_EQ(b.table_name, "region");
  EXPECT_EQ(b.plan, nullptr);
  ASSERT_EQ(b.insert_rows.size(), 2u);
  EXPECT_EQ(b.insert_rows[0][0].GetInt(), 7);
  EXPECT_EQ(b.insert_rows[0][1].ToString(), "X                        ");  // CHAR(25)
  EXPECT_TRUE(b.insert_rows[0][2].is_null());
  EXPECT_EQ(b.insert_rows[1][0].GetInt(), 2);
}

TEST_F(BinderStatementTest, InsertSelect) {
  BoundStatement b = BindSql(
      "insert into region select n_nationkey, n_name from nation where n_regionkey = 1", Cat());
  ASSERT_EQ(b.kind, BoundStatementKind::kInsert);
  ASSERT_NE(b.plan, nullptr);
  ASSERT_EQ(b.plan->columns.size(), 3u);  // every table column, in table order
  EXPECT_EQ(b.plan->columns[1].type, Type::Char(25));
  EXPECT_EQ(bindertest::CheckPlan(*b.plan), "");
}

TEST_F(BinderStatementTest, UpdateAndDeleteUseTablePositions) {
  BoundStatement u = BindSql(
      "update nation set n_comment = n_name, n_regionkey = n_regionkey + 1 "
      "where n_nationkey = 3",
      Cat());
  ASSERT_EQ(u.kind, BoundStatementKind::kUpdate);
  ASSERT_EQ(u.set.size(), 2u);
  EXPECT_EQ(u.set[0].first, 3u);
  EXPECT_EQ(u.set[1].first, 2u);
  EXPECT_EQ(u.set[1].second->type, Type::Integer());
  ASSERT_NE(u.where, nullptr);
  EXPECT_EQ(ExprToString(*u.where), "#0 = 3");
  BoundStatement d = BindSql("delete from nation where n_name like 'A%'", Cat());
  ASSERT_EQ(d.kind, BoundStatementKind::kDelete);
  EXPECT_EQ(ExprToString(*d.where), "#1 LIKE 'A%'");
}

TEST_F(BinderStatementTest, ParameterTypesAreInferred) {
  BoundStatement b =
      BindSql("select n_name from nation where n_nationkey = $1 and n_name <> $2 limit $3", Cat());
  ASSERT_EQ(b.parameter_types.size(), 3u);
  EXPECT_EQ(b.parameter_types[0], Type::Integer());
  EXPECT_EQ(b.parameter_types[1], Type::Char(25));
  EXPECT_EQ(b.parameter_types[2], Type::BigInt());
  BoundStatement i = BindSql("insert into region values ($1, $2, $3)", Cat());
  ASSERT_EQ(i.parameter_types.size(), 3u);
  EXPECT_EQ(i.parameter_types[0], Type::Integer());
  EXPECT_EQ(i.parameter_types[2], Type::Varchar(152));
  // Alone, an unknown parameter is TEXT; a declared type wins.
  BindOptions opt;
  opt.parameter_types = {Type::BigInt()};
  BoundStatement s = BindSql("select $1, $2", Cat(), opt);
  EXPECT_EQ(s.parameter_types, (std::vector<Type>{Type::BigInt(), Type::Text()}));
}

TEST_F(BinderStatementTest, ParameterValuesBecomeConstants) {
  BindOptions opt;
  opt.parameters = {Value::Text("3"), Value::Text("2")};
  BoundStatement b =
      BindSql("select n_name from nation where n_nationkey = $1 limit $2", Cat(), opt);
  std::string plan = PlanToString(*b.plan, false);
  EXPECT_NE(plan.find("= 3"), std::string::npos) << plan;
  EXPECT_NE(plan.find("limit=2"), std::string::npos) << plan;
}

TEST_F(BinderStatementTest, LiteralTyping) {
  BoundStatement b = BindSql(
      "select 1, 3000000000, 1.50, 'x', date '1998-12-01' - interval '90' day, "
      "cast('7' as bigint), -2147483648",
      Cat());
  const auto& c = b.plan->columns;
  ASSERT_EQ(c.size(), 7u);
  EXPECT_EQ(c[0].type, Type::Integer());
  EXPECT_EQ(c[1].type, Type::BigInt());
  EXPECT_EQ(c[2].type, Type::Decimal(3, 2));
  EXPECT_EQ(c[3].type, Type::Text());
  EXPECT_EQ(c[4].type, Type::Timestamp());  // date - interval, as PostgreSQL
  EXPECT_EQ(c[5].type, Type::BigInt());
  EXPECT_EQ(c[6].type, Type::Integer());
  EXPECT_EQ(c[0].name, "?column?");
  EXPECT_EQ(c[5].name, "int8");
}

}  // namespace
}  // namespace forktail
