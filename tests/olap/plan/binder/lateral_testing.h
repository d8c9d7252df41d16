// The tables the LATERAL (lateral_test.cc) and select-list set-returning
// function (srf_select_test.cc) tests query: an outer table t with a count
// n and an array s per row, and a table u of several y per x.
#pragma once

#include <optional>

#include "tests/olap/plan/planner/planner_testing.h"

namespace forktail::plantest {

class LateralTables : public SqlQueryTest {
 protected:
  using Opt = std::optional<int>;

  // t(id, n, s)                   u(x, y)
  //   1  2     '{1,2}'              1  5      2  25
  //   2  0     '{}'                 1  15     3  NULL
  //   3  3     NULL                 1  10
  //   4  NULL  '{7,NULL}'
  void SetUp() override {
    catalog_ = std::make_unique<Catalog>();
    auto V = [](Opt v) { return v ? Value::Integer(*v) : Value::Null(Type::Integer()); };
    auto S = [](const char* v) {
      return v ? Value::String(Type::Text(), v) : Value::Null(Type::Text());
    };
    Table& tt = catalog_->CreateTable(
        {"t", {{"id", Type::Integer()}, {"n", Type::Integer()}, {"s", Type::Text()}}, {}});
    physical::InsertRows(tt, {{V(1), V(2), S("{1,2}")},
                              {V(2), V(0), S("{}")},
                              {V(3), V(3), S(nullptr)},
                              {V(4), V({}), S("{7,NULL}")}});
    tt.RefreshStatistics();
    Table& ut = catalog_->CreateTable({"u", {{"x", Type::Integer()}, {"y", Type::Integer()}}, {}});
    physical::InsertRows(
        ut, {{V(1), V(5)}, {V(1), V(15)}, {V(1), V(10)}, {V(2), V(25)}, {V(3), V({})}});
    ut.RefreshStatistics();
  }
};

}  // namespace forktail::plantest
