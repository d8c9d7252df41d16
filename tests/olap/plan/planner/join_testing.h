// Fixture of the FULL / NATURAL join and DISTINCT aggregate tests: SQL ->
// Bind -> Optimize -> Plan -> Execute in every scheduler mode
// (plantest::ShownRowsAllModes) over small fixed tables whose expected
// results were taken from PostgreSQL 15 (same rows, same queries):
//
//   a(k INT, x INT, s TEXT)          b(k INT, y INT, s TEXT)
//     1    10  'a1'                    2     200  'b2'
//     2    20  'a2'                    2     201  'b2b'
//     2    21  'a2b'                   3     300  'b3'
//     NULL 30  'anull'                 NULL  400  'bnull'
//     4    40  'a4'                    5     500  'b5'
//
//   c(k BIGINT, w INT): (2, 7) (3, 8) (NULL, 9)      e(k INT, z INT): empty
//   d(g INT, x INT, f DOUBLE, m DECIMAL(10,2)):
//     (1, 1, 1.5, 2.25) (1, 1, 1.5, 2.25) (1, 2, -0.0, 1.00) (1, NULL, 0.0, NULL)
//     (2, 5, 2.5, 3.10) (2, 5, NULL, 3.10) (2, 6, 2.5, 0) (3, NULL, NULL, NULL)
#pragma once

#include <gtest/gtest.h>

#include <optional>

#include "olap/parser/ast.h"
#include "olap/plan/binder/binder.h"
#include "olap/plan/optimizer/optimizer.h"
#include "tests/olap/plan/planner/planner_testing.h"

namespace forktail::jointest {

class JoinSqlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    catalog_ = std::make_unique<Catalog>();
    const Type i = Type::Integer(), t = Type::Text();
    auto I = [](std::optional<int> v) {
      return v ? Value::Integer(*v) : Value::Null(Type::Integer());
    };
    auto T = [](const char* s) { return s ? Value::Text(s) : Value::Null(Type::Text()); };
    Add({"a", {{"k", i}, {"x", i}, {"s", t}}, {}}, {{I(1), I(10), T("a1")},
                                                    {I(2), I(20), T("a2")},
                                                    {I(2), I(21), T("a2b")},
                                                    {I({}), I(30), T("anull")},
                                                    {I(4), I(40), T("a4")}});
    Add({"b", {{"k", i}, {"y", i}, {"s", t}}, {}}, {{I(2), I(200), T("b2")},
                                                    {I(2), I(201), T("b2b")},
                                                    {I(3), I(300), T("b3")},
                                                    {I({}), I(400), T("bnull")},
                                                    {I(5), I(500), T("b5")}});
    Add({"c", {{"k", Type::BigInt()}, {"w", i}}, {}},
        {{Value::BigInt(2), I(7)}, {Value::BigInt(3), I(8)}, {Value::Null(Type::BigInt()), I(9)}});
    Add({"e", {{"k", i}, {"z", i}}, {}}, {});
    const Type m = Type::Decimal(10, 2);
    auto F = [](std::optional<double> v) {
      return v ? Value::Double(*v) : Value::Null(Type::Double());
    };
    auto M = [&](std::optional<int64_t> cents) {
      return cents ? Value::Decimal(*cents, 10, 2) : Value::Null(m);
    };
    Add({"d", {{"g", i}, {"x", i}, {"f", Type::Double()}, {"m", m}}, {}},
        {{I(1), I(1), F(1.5), M(225)},
         {I(1), I(1), F(1.5), M(225)},
         {I(1), I(2), F(-0.0), M(100)},
         {I(1), I({}), F(0.0), M({})},
         {I(2), I(5), F(2.5), M(310)},
         {I(2), I(5), F({}), M(310)},
         {I(2), I(6), F(2.5), M(0)},
         {I(3), I({}), F({}), M({})}});
  }

  void Add(TableSchema schema, const std::vector<Row>& rows) {
    Table& table = catalog_->CreateTable(std::move(schema));
    if (!rows.empty()) physical::InsertRows(table, rows);
    table.RefreshStatistics();
  }

  LogicalOpPtr Optimized(const std::string& sql) {
    std::vector<sql::StatementPtr> statements = sql::Parse(sql);
    EXPECT_EQ(statements.size(), 1u);
    BoundStatement bound = Bind(*statements.at(0), *catalog_);
    return Optimize(std::move(bound.plan), *catalog_);
  }

  // The rows rendered "v|v|...;" per row, identical in every mode.
  std::string Query(const std::string& sql) {
    LogicalOpPtr plan = Optimized(sql);
    return plantest::ShownRowsAllModes(*plan, *catalog_, sql);
  }

  // "SQLSTATE message" (and " @position" when it has one) of the error.
  std::string Error(const std::string& sql) {
    try {
      Query(sql);
    } catch (const DbError& e) {
      std::string s = std::string(e.sqlstate()) + " " + e.what();
      if (e.position() != 0) s += " @" + std::to_string(e.position());
      return s;
    }
    return "no error";
  }

  // Join kinds of the optimized plan, preorder ("full", "left", ...).
  std::string JoinKinds(const std::string& sql) {
    LogicalOpPtr plan = Optimized(sql);
    std::string out;
    Collect(*plan, &out);
    return out;
  }

  static void Collect(const LogicalOp& op, std::string* out) {
    if (op.kind == LogicalOpKind::kJoin) {
      static const char* kNames[] = {"inner", "left", "right",           "full",  "cross",
                                     "semi",  "anti", "null-aware anti", "single"};
      *out += std::string(out->empty() ? "" : " ") + kNames[static_cast<int>(op.join_kind)];
    }
    for (const LogicalOpPtr& c : op.children) Collect(*c, out);
  }

  std::unique_ptr<Catalog> catalog_;
};

}  // namespace forktail::jointest
