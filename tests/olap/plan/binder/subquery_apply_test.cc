// End to end (SQL -> Bind -> Optimize -> Plan -> Execute, every scheduler
// mode) for the subqueries the binder cannot turn into joins and binds as an
// Apply (olap/plan/binder/binder_apply.cc): correlated scalar subqueries with
// ORDER BY / LIMIT or non-equality correlation, ANY / ALL / IN / EXISTS as
// values (select list, CASE, OR) with SQL's three-valued results, correlated
// NOT IN, set operations inside, two levels of correlation. Expected rows are
// computed by hand (fixed tables below) and, for the randomized part, by a
// naive nested loop over random tables.
#include <gtest/gtest.h>

#include <optional>
#include <random>

#include "olap/parser/ast.h"
#include "olap/plan/binder/binder.h"
#include "olap/plan/optimizer/optimizer.h"
#include "tests/olap/plan/planner/planner_testing.h"

namespace forktail {
namespace {

using Opt = std::optional<int>;

class SubqueryApply : public plantest::SqlQueryTest {
 protected:
  // t(id, a, b)           u(x, y)
  //   1  10  1              1  5      NULL 7
  //   2  20  NULL           1  15     4    30
  //   3  NULL 2             2  25     4    30
  //   4  30  3              3  NULL
  //   5  NULL NULL
  void SetUp() override {
    Fill({{1, 10, 1}, {2, 20, {}}, {3, {}, 2}, {4, 30, 3}, {5, {}, {}}},
         {{1, 5}, {1, 15}, {2, 25}, {3, {}}, {{}, 7}, {4, 30}, {4, 30}});
  }

  void Fill(const std::vector<std::vector<Opt>>& t, const std::vector<std::vector<Opt>>& u) {
    catalog_ = std::make_unique<Catalog>();
    auto V = [](Opt v) { return v ? Value::Integer(*v) : Value::Null(Type::Integer()); };
    Table& tt = catalog_->CreateTable(
        {"t", {{"id", Type::Integer()}, {"a", Type::Integer()}, {"b", Type::Integer()}}, {}});
    std::vector<Row> rows;
    for (const auto& r : t) rows.push_back({V(r[0]), V(r[1]), V(r[2])});
    physical::InsertRows(tt, rows);
    tt.RefreshStatistics();
    Table& ut = catalog_->CreateTable({"u", {{"x", Type::Integer()}, {"y", Type::Integer()}}, {}});
    rows.clear();
    for (const auto& r : u) rows.push_back({V(r[0]), V(r[1])});
    physical::InsertRows(ut, rows);
    ut.RefreshStatistics();
  }
};

TEST_F(SubqueryApply, ScalarWithOrderByLimit) {
  // DESC puts NULLs first (PostgreSQL's default): id 3's only y is NULL.
  EXPECT_EQ(ApplyQuery("SELECT id, (SELECT y FROM u WHERE u.x = t.id ORDER BY y DESC LIMIT 1) "
                       "FROM t ORDER BY id"),
            "1|15|;2|25|;3|NULL|;4|30|;5|NULL|;");
  EXPECT_EQ(ApplyQuery("SELECT id FROM t WHERE a < (SELECT y FROM u WHERE u.x = t.id ORDER BY y "
                       "LIMIT 1 OFFSET 1) ORDER BY id"),
            "1|;");
}

TEST_F(SubqueryApply, ScalarNonEquiCorrelationIsSingleJoinResidual) {
  // Not aggregated: the extra correlated conjuncts become the single join's
  // residual (no Apply), over inner and outer columns or outer ones only.
  const std::string q1 =
      "SELECT id, (SELECT y FROM u WHERE u.x = t.id AND u.y > t.a) FROM t ORDER BY id";
  const std::string q2 =
      "SELECT id, (SELECT y FROM u WHERE u.x = t.id AND t.b IS NULL) FROM t ORDER BY id";
  EXPECT_FALSE(HasApply(*Optimized(q1)));
  EXPECT_FALSE(HasApply(*Optimized(q2)));
  EXPECT_EQ(Query(q1), "1|15|;2|25|;3|NULL|;4|NULL|;5|NULL|;");
  EXPECT_EQ(Query(q2), "1|NULL|;2|25|;3|NULL|;4|NULL|;5|NULL|;");
}

TEST_F(SubqueryApply, ScalarMoreThanOneRowIs21000) {
  EXPECT_EQ(Error("SELECT id, (SELECT y FROM u WHERE u.x = t.id OR u.x = t.b) FROM t"),
            "21000 more than one row returned by a subquery used as an expression");
}

TEST_F(SubqueryApply, AggregateWithNonEquiCorrelation) {
  // COUNT over no row is 0, SUM NULL; a NULL binding matches nothing.
  EXPECT_EQ(ApplyQuery("SELECT id, (SELECT count(*) FROM u WHERE u.x = t.id AND u.y > t.a), "
                       "(SELECT sum(y) FROM u WHERE u.x = t.id AND u.y > t.a) FROM t ORDER BY id"),
            "1|1|15|;2|1|25|;3|0|NULL|;4|0|NULL|;5|0|NULL|;");
}

TEST_F(SubqueryApply, QuantifiedAsValues) {
  // id 5 (a NULL, no rows): ANY over nothing is false, ALL true.
  EXPECT_EQ(ApplyQuery("SELECT id, a < ANY (SELECT y FROM u WHERE u.x = t.id), a >= ALL (SELECT "
                       "y FROM u WHERE u.x = t.id) FROM t ORDER BY id"),
            "1|1|0|;2|1|0|;3|NULL|NULL|;4|0|1|;5|0|1|;");
  // u.y holds a NULL: IN is never false, NOT IN never true, unless a match.
  EXPECT_EQ(ApplyQuery("SELECT id, a IN (SELECT y FROM u), a NOT IN (SELECT y FROM u) FROM t "
                       "ORDER BY id"),
            "1|NULL|NULL|;2|NULL|NULL|;3|NULL|NULL|;4|1|0|;5|NULL|NULL|;");
  EXPECT_EQ(ApplyQuery("SELECT id, a = ANY (SELECT y FROM u WHERE y IS NOT NULL), a <> ALL "
                       "(SELECT y FROM u WHERE y IS NOT NULL) FROM t ORDER BY id"),
            "1|0|1|;2|0|1|;3|NULL|NULL|;4|1|0|;5|NULL|NULL|;");
}

TEST_F(SubqueryApply, ExistsUnderOrAndCase) {
  EXPECT_EQ(ApplyQuery("SELECT id FROM t WHERE a > 25 OR EXISTS (SELECT 1 FROM u WHERE u.x = "
                       "t.id AND u.y IS NULL) ORDER BY id"),
            "3|;4|;");
  EXPECT_EQ(ApplyQuery("SELECT id, CASE WHEN EXISTS (SELECT 1 FROM u WHERE u.x = t.b) THEN 'y' "
                       "ELSE 'n' END, NOT EXISTS (SELECT 1 FROM u WHERE u.x = t.id) FROM t "
                       "ORDER BY id"),
            "1|'y'|0|;2|'n'|0|;3|'y'|0|;4|'y'|0|;5|'n'|1|;");
}

TEST_F(SubqueryApply, CorrelatedNotIn) {
  // id 3: u has (3, NULL): unknown, dropped; id 5: no rows: kept.
  EXPECT_EQ(ApplyQuery("SELECT id FROM t WHERE a NOT IN (SELECT y FROM u WHERE u.x = t.id) "
                       "ORDER BY id"),
            "1|;2|;5|;");
}

TEST_F(SubqueryApply, TwoLevelCorrelation) {
  // The innermost subquery reads t.b, two levels out.
  EXPECT_EQ(ApplyQuery("SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.x = t.id AND "
                       "u.y > (SELECT count(*) FROM u u2 WHERE u2.x = t.b) * 10) ORDER BY id"),
            "2|;4|;");
  EXPECT_EQ(ApplyQuery("SELECT id, (SELECT max(y) FROM u WHERE u.x = t.id AND EXISTS (SELECT 1 "
                       "FROM u u2 WHERE u2.x = t.b AND u2.y < u.y)) FROM t ORDER BY id"),
            "1|15|;2|NULL|;3|NULL|;4|NULL|;5|NULL|;");
}

TEST_F(SubqueryApply, SetOperationInside) {
  EXPECT_EQ(ApplyQuery("SELECT id FROM t WHERE id IN (SELECT x FROM u WHERE u.y = t.a + 5 UNION "
                       "SELECT x FROM u WHERE u.y = t.b * 25) ORDER BY id"),
            "1|;2|;");
}

TEST_F(SubqueryApply, FastRewritesStay) {
  // Equality-correlated shapes keep their joins.
  EXPECT_FALSE(HasApply(
      *Optimized("SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.x = t.id AND u.y > 10)")));
  EXPECT_FALSE(HasApply(*Optimized("SELECT id, (SELECT sum(y) FROM u WHERE u.x = t.id) FROM t")));
  EXPECT_FALSE(HasApply(*Optimized("SELECT id FROM t WHERE a IN (SELECT y FROM u)")));
}

// Random tables: the Apply's answers against a naive nested loop.
TEST_F(SubqueryApply, RandomAgainstNaive) {
  const uint32_t seed = 20261122;
  std::mt19937 rng(seed);
  auto maybe = [&](int hi) -> Opt {
    if (rng() % 5 == 0) return std::nullopt;
    return static_cast<int>(rng() % static_cast<uint32_t>(hi));
  };
  for (int round = 0; round < 3; round++) {
    std::vector<std::vector<Opt>> t, u;
    for (int i = 0; i < 12; i++) t.push_back({i, maybe(10), maybe(6)});
    for (int i = 0; i < 20; i++) u.push_back({maybe(12), maybe(10)});
    Fill(t, u);
    std::string want_any, want_scalar, want_count;
    for (const auto& r : t) {
      // a < ANY (SELECT y FROM u WHERE x = id OR x = b)
      bool any_true = false, any_null = false;
      std::vector<Opt> ys;
      int count = 0;
      for (const auto& s : u) {
        bool match = (s[0] && *s[0] == *r[0]) || (s[0] && r[2] && *s[0] == *r[2]);
        if (!match) continue;
        ys.push_back(s[1]);
        if (!r[1] || !s[1]) {
          any_null = true;
        } else if (*r[1] < *s[1]) {
          any_true = true;
        }
        if (s[1] && r[1] && *s[1] > *r[1]) count++;
      }
      std::string any = any_true ? "1" : any_null ? "NULL" : "0";  // booleans show as 1/0
      want_any += std::to_string(*r[0]) + "|" + any + "|;";
      // min(y) by ORDER BY y LIMIT 1 (NULLs last)
      Opt best;
      bool any_row = !ys.empty();
      for (const Opt& y : ys) {
        if (y && (!best || *y < *best)) best = y;
      }
      want_scalar += std::to_string(*r[0]) + "|" +
                     (any_row && best ? std::to_string(*best) : std::string("NULL")) + "|;";
      want_count += std::to_string(*r[0]) + "|" + std::to_string(count) + "|;";
    }
    EXPECT_EQ(ApplyQuery("SELECT id, a < ANY (SELECT y FROM u WHERE u.x = t.id OR u.x = t.b) "
                         "FROM t ORDER BY id"),
              want_any)
        << "seed " << seed << " round " << round;
    EXPECT_EQ(ApplyQuery("SELECT id, (SELECT y FROM u WHERE u.x = t.id OR u.x = t.b ORDER BY y "
                         "LIMIT 1) FROM t ORDER BY id"),
              want_scalar)
        << "seed " << seed << " round " << round;
    EXPECT_EQ(ApplyQuery("SELECT id, (SELECT count(*) FROM u WHERE (u.x = t.id OR u.x = t.b) AND "
                         "u.y > t.a) FROM t ORDER BY id"),
              want_count)
        << "seed " << seed << " round " << round;
  }
}

}  // namespace
}  // namespace forktail
