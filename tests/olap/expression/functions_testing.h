// Fixture for the scalar-function tests: SQL text through parse, bind,
// optimize, plan and execute over a small table `t` with a row of NULLs.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "olap/parser/ast.h"
#include "olap/plan/binder/binder.h"
#include "olap/plan/optimizer/optimizer.h"
#include "tests/olap/plan/planner/planner_testing.h"

namespace forktail {

class FunctionsSql : public ::testing::Test {
 protected:
  void SetUp() override {
    Table& t = catalog_.CreateTable({"t",
                                     {{"id", Type::Integer()},
                                      {"i", Type::Integer()},
                                      {"s", Type::Text()},
                                      {"d", Type::Date()},
                                      {"n", Type::Decimal(10, 2)},
                                      {"f", Type::Double()},
                                      {"c", Type::Char(5)}},
                                     {ColumnId(0)}});
    physical::InsertRows(
        t, {{Value::Integer(1), Value::Integer(5), Value::Text("Hello"),
             Value::Parse(Type::Date(), "2024-01-31"), Value::Parse(Type::Decimal(10, 2), "12.35"),
             Value::Double(2.5), Value::String(Type::Char(5), "ab")},
            {Value::Integer(2), Value::Null(Type::Integer()), Value::Null(Type::Text()),
             Value::Null(Type::Date()), Value::Null(Type::Decimal(10, 2)),
             Value::Null(Type::Double()), Value::Null(Type::Char(5))},
            {Value::Integer(3), Value::Integer(-7), Value::Text("w\xc3\xb6rld  "),
             Value::Parse(Type::Date(), "2000-02-29"), Value::Parse(Type::Decimal(10, 2), "-0.50"),
             Value::Double(-1.5), Value::String(Type::Char(5), "x")}});
    t.RefreshStatistics();
  }

  BoundStatement BindSql(const std::string& sql) {
    std::vector<sql::StatementPtr> statements = sql::Parse(sql);
    EXPECT_EQ(statements.size(), 1u);
    return Bind(*statements.at(0), catalog_);
  }

  // Rows as "v|v;v|v;" (Value::ToString, NULL as NULL).
  std::string Query(const std::string& sql) { return plantest::QueryRowsText(sql, catalog_); }

  // One value: SELECT <expr> (";" stripped).
  std::string Eval(const std::string& expr) {
    std::string s = Query("SELECT " + expr);
    if (!s.empty() && s.back() == ';') s.pop_back();
    return s;
  }

  // The result type of SELECT <expr>.
  std::string TypeOf(const std::string& expr) {
    BoundStatement bound = BindSql("SELECT " + expr);
    return bound.plan->columns.at(0).type.ToString();
  }

  // "SQLSTATE message" of the error the statement raises.
  std::string Error(const std::string& sql) {
    return plantest::ErrorText([&] { Query(sql); });
  }

  Catalog catalog_;
};

}  // namespace forktail
