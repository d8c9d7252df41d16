// Window functions end to end (SQL -> Bind -> Optimize -> Plan -> Execute),
// every scheduler mode (plantest::ShownRowsAllModes), against PostgreSQL
// 15's answers: the expected strings are psql's unaligned output (`\pset
// format unaligned`, `\pset tuples_only on`: fields joined by '|', NULL
// empty, rows by newlines) of the same SQL over the same table, pasted as
// is; where Forktail's types differ from PostgreSQL's (avg of DECIMAL is
// DECIMAL(18,6), not unbounded numeric; avg of INTEGER is DOUBLE) the
// comment says what PostgreSQL printed.
#include <gtest/gtest.h>

#include <charconv>

#include "olap/parser/ast.h"
#include "olap/plan/binder/binder.h"
#include "olap/plan/optimizer/optimizer.h"
#include "olap/plan/planner/explain.h"
#include "tests/olap/plan/planner/planner_testing.h"

namespace forktail {
namespace {

class WindowSql : public ::testing::Test {
 protected:
  // w: partition key g (with NULLs), order key k (ties and NULLs), values v
  // (a NULL) and m DECIMAL(10,2); e: empty.
  void SetUp() override {
    Table& w = catalog_.CreateTable({"w",
                                     {{"id", Type::Integer()},
                                      {"g", Type::Text()},
                                      {"k", Type::Integer()},
                                      {"v", Type::Integer()},
                                      {"m", Type::Decimal(10, 2)}},
                                     {ColumnId(0)}});
    auto I = [](int v) { return Value::Integer(v); };
    auto T = [](const char* s) { return Value::Text(s); };
    auto M = [](int64_t cents) { return Value::Decimal(cents, 10, 2); };
    auto NI = Value::Null(Type::Integer());
    auto NT = Value::Null(Type::Text());
    auto NM = Value::Null(Type::Decimal(10, 2));
    physical::InsertRows(w, {{I(1), T("a"), I(1), I(10), M(150)},
                             {I(2), T("a"), I(2), I(20), M(225)},
                             {I(3), T("a"), I(2), I(30), NM},
                             {I(4), T("a"), NI, I(40), M(400)},
                             {I(5), T("b"), I(5), NI, M(100)},
                             {I(6), T("b"), I(3), I(60), M(610)},
                             {I(7), NT, I(1), I(70), M(700)},
                             {I(8), NT, NI, I(80), NM}});
    w.RefreshStatistics();
    Table& e = catalog_.CreateTable({"e", {{"id", Type::Integer()}, {"v", Type::Integer()}}, {}});
    e.RefreshStatistics();
  }

  LogicalOpPtr Optimized(const std::string& sql) {
    std::vector<sql::StatementPtr> statements = sql::Parse(sql);
    EXPECT_EQ(statements.size(), 1u);
    BoundStatement bound = Bind(*statements.at(0), catalog_);
    return Optimize(std::move(bound.plan), catalog_);
  }

  // The rows as psql prints them unaligned (see the header), after checking
  // every scheduler mode returns the same rows in the same order.
  std::string Pg(const std::string& sql) {
    LogicalOpPtr plan = Optimized(sql);
    plantest::ShownRowsAllModes(*plan, catalog_, sql);
    QueryResult result = plantest::ExecuteInMode(ptest::Mode::kImmediate, *plan, catalog_);
    std::string s;
    for (const Row& r : result.rows) {
      if (!s.empty()) s += "\n";
      for (size_t i = 0; i < r.size(); ++i) {
        if (i > 0) s += "|";
        const Value& v = r[i];
        if (v.is_null()) continue;
        if (v.type().IsString()) {
          s += v.GetString();
        } else if (v.type().id == TypeId::kDouble) {
          char buf[64];
          auto res = std::to_chars(buf, buf + sizeof buf, v.GetDouble());
          s.append(buf, res.ptr);
        } else {
          s += v.ToString();
        }
      }
    }
    return s;
  }

  std::string Error(const std::string& sql) {
    return plantest::ErrorText([&] { Pg(sql); });
  }
  // The error's position (1-based character offset; 0: none).
  int ErrorPosition(const std::string& sql) {
    try {
      Pg(sql);
    } catch (const DbError& e) {
      return e.position();
    }
    return -1;
  }

  Catalog catalog_;
};

TEST_F(WindowSql, RankingWithPeersAndNullKeys) {
  // NULL g is its own partition; NULL k sorts last (ASC) and peers share ranks.
  EXPECT_EQ(Pg("SELECT id, row_number() OVER (PARTITION BY g ORDER BY k, id), rank() OVER "
               "(PARTITION BY g ORDER BY k), dense_rank() OVER (PARTITION BY g ORDER BY k) FROM w "
               "ORDER BY id"),
            "1|1|1|1\n2|2|2|2\n3|3|2|2\n4|4|4|3\n5|2|2|2\n6|1|1|1\n7|1|1|1\n8|2|2|2");
  EXPECT_EQ(Pg("SELECT id, percent_rank() OVER (PARTITION BY g ORDER BY k), cume_dist() OVER "
               "(PARTITION BY g ORDER BY k) FROM w ORDER BY id"),
            "1|0|0.25\n2|0.3333333333333333|0.75\n3|0.3333333333333333|0.75\n4|1|1\n5|1|1\n6|0|"
            "0.5\n7|0|0.5\n8|1|1");
  EXPECT_EQ(Pg("SELECT id, k, row_number() OVER (ORDER BY k DESC NULLS LAST, id), row_number() "
               "OVER (ORDER BY k NULLS FIRST, id) FROM w ORDER BY 3"),
            "5|5|1|8\n6|3|2|7\n2|2|3|5\n3|2|4|6\n1|1|5|3\n7|1|6|4\n4||7|1\n8||8|2");
  EXPECT_EQ(Pg("SELECT id, ntile(3) OVER (ORDER BY id), ntile(5) OVER (PARTITION BY g ORDER BY "
               "id) FROM w ORDER BY id"),
            "1|1|1\n2|1|2\n3|1|3\n4|2|4\n5|2|1\n6|2|2\n7|3|1\n8|3|2");
}

TEST_F(WindowSql, AggregatesDefaultFrame) {
  // With ORDER BY: RANGE UNBOUNDED PRECEDING .. CURRENT ROW (peers included);
  // without: the whole partition.
  EXPECT_EQ(Pg("SELECT id, sum(v) OVER (PARTITION BY g ORDER BY k), count(*) OVER (PARTITION BY "
               "g ORDER BY k), count(v) OVER (PARTITION BY g) FROM w ORDER BY id"),
            "1|10|1|4\n2|60|3|4\n3|60|3|4\n4|100|4|4\n5|60|2|1\n6|60|1|1\n7|70|1|2\n8|150|2|2");
  // PostgreSQL prints avg(m) as 2.5833333333333333, 3.5500000000000000,
  // 7.0000000000000000 (numeric); Forktail's avg(DECIMAL(10,2)) is DECIMAL(18,6).
  EXPECT_EQ(Pg("SELECT id, sum(m) OVER (PARTITION BY g), avg(m) OVER (PARTITION BY g), min(g) "
               "OVER (), max(g) OVER (ORDER BY id ROWS 1 PRECEDING) FROM w ORDER BY id"),
            "1|7.75|2.583333|a|a\n2|7.75|2.583333|a|a\n3|7.75|2.583333|a|a\n4|7.75|2.583333|a|a\n"
            "5|7.10|3.550000|a|b\n6|7.10|3.550000|a|b\n7|7.00|7.000000|a|b\n8|7.00|7.000000|a|");
  // PostgreSQL: avg(v) 25.0000000000000000 etc. (numeric); here DOUBLE.
  EXPECT_EQ(Pg("SELECT id, avg(v) OVER (PARTITION BY g), sum(v) FILTER (WHERE v > 20) OVER "
               "(PARTITION BY g) FROM w ORDER BY id"),
            "1|25|70\n2|25|70\n3|25|70\n4|25|70\n5|60|60\n6|60|60\n7|75|150\n8|75|150");
}

TEST_F(WindowSql, RowsFrames) {
  EXPECT_EQ(Pg("SELECT id, sum(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), "
               "min(v) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), max(v) OVER "
               "(ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM w ORDER BY id"),
            "1|30|10|80\n2|60|10|80\n3|90|10|80\n4|70|20|80\n5|100|30|80\n6|130|40|80\n7|210|60|"
            "80\n8|150|60|80");
  // Empty frames: NULL sums, zero counts.
  EXPECT_EQ(Pg("SELECT id, sum(v) OVER (ORDER BY id ROWS BETWEEN 2 FOLLOWING AND 3 FOLLOWING), "
               "count(*) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 2 PRECEDING), "
               "sum(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND UNBOUNDED FOLLOWING) FROM w "
               "ORDER BY id"),
            "1|70|0|310\n2|40|0|310\n3|60|1|300\n4|130|2|280\n5|150|3|250\n6|80|4|210\n7||5|210\n"
            "8||6|150");
}

TEST_F(WindowSql, OffsetAndValueFunctions) {
  EXPECT_EQ(Pg("SELECT id, lag(v) OVER (ORDER BY id), lead(v, 2) OVER (ORDER BY id), lag(v, 1, "
               "-1) OVER (PARTITION BY g ORDER BY id) FROM w ORDER BY id"),
            "1||30|-1\n2|10|40|10\n3|20||20\n4|30|60|30\n5|40|70|-1\n6||80|\n7|60||-1\n8|70||70");
  // last_value's default frame ends at the last peer (k ties in partition a).
  EXPECT_EQ(
      Pg("SELECT id, first_value(k) OVER (PARTITION BY g ORDER BY k DESC), last_value(k) "
         "OVER (PARTITION BY g ORDER BY k DESC), nth_value(v, 2) OVER (PARTITION BY g ORDER "
         "BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM w ORDER BY id"),
      "1||1|20\n2||2|20\n3||2|20\n4|||20\n5|5|5|60\n6|5|3|60\n7||1|80\n8|||80");
  EXPECT_EQ(Pg("SELECT id, first_value(g) OVER (ORDER BY id DESC), last_value(g) OVER (ORDER BY "
               "id ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM w ORDER BY id LIMIT 3"),
            "1||a\n2||a\n3||a");
}

TEST_F(WindowSql, WithGroupingDistinctLimitAndSubqueries) {
  EXPECT_EQ(Pg("SELECT g, sum(v), sum(sum(v)) OVER (), rank() OVER (ORDER BY count(*) DESC) FROM "
               "w GROUP BY g ORDER BY g"),
            "a|100|310|1\nb|60|310|2\n|150|310|2");
  EXPECT_EQ(Pg("SELECT * FROM (SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY v DESC) "
               "AS rn FROM w) s WHERE rn <= 1 ORDER BY id"),
            "4|a|1\n5|b|1\n8||1");
  EXPECT_EQ(Pg("SELECT DISTINCT count(*) OVER (PARTITION BY g) FROM w ORDER BY 1"), "2\n4");
  EXPECT_EQ(Pg("SELECT id, row_number() OVER (ORDER BY id DESC) FROM w ORDER BY id LIMIT 2"),
            "1|8\n2|7");
  EXPECT_EQ(Pg("SELECT id FROM w ORDER BY row_number() OVER (ORDER BY v DESC NULLS LAST) LIMIT 3"),
            "8\n7\n6");
  EXPECT_EQ(Pg("SELECT row_number() OVER (), count(*) OVER () FROM e"), "");
  EXPECT_EQ(Pg("SELECT count(*) OVER () FROM w WHERE id < 0"), "");
}

TEST_F(WindowSql, NamedWindows) {
  // OVER w takes the definition whole (frame too); OVER (w ORDER BY ...) adds
  // an ORDER BY to w's PARTITION BY; a definition may build on an earlier one.
  EXPECT_EQ(Pg("SELECT id, sum(v) OVER pw, rank() OVER (pw ORDER BY k), count(*) OVER o FROM w "
               "WINDOW pw AS (PARTITION BY g), o AS (ORDER BY k, id ROWS BETWEEN 1 PRECEDING AND "
               "CURRENT ROW) ORDER BY id"),
            "1|100|1|1\n2|100|2|2\n3|100|2|2\n4|100|4|2\n5|60|2|2\n6|60|1|2\n7|150|1|2\n8|150|2|2");
  EXPECT_EQ(Pg("SELECT id, row_number() OVER w2, sum(v) OVER (w2 ROWS UNBOUNDED PRECEDING) FROM w "
               "WINDOW w1 AS (PARTITION BY g), w2 AS (w1 ORDER BY id) ORDER BY id"),
            "1|1|10\n2|2|30\n3|3|60\n4|4|100\n5|1|\n6|2|60\n7|1|70\n8|2|150");
  EXPECT_EQ(Pg("SELECT g, sum(v), rank() OVER s FROM w GROUP BY g WINDOW s AS (ORDER BY sum(v) "
               "DESC) ORDER BY 3"),
            "|150|1\na|100|2\nb|60|3");
  EXPECT_EQ(Pg("SELECT id FROM w WINDOW unused AS (ORDER BY k) ORDER BY id LIMIT 2"), "1\n2");
}

TEST_F(WindowSql, NamedWindowErrors) {
  // PostgreSQL 15's errors; the position is the OVER clause's "(" (or the
  // definition's name for a duplicate, the name for an unknown OVER w).
  const std::string over_w = "SELECT sum(v) OVER ";
  EXPECT_EQ(Error(over_w + "(p PARTITION BY k) FROM w WINDOW p AS (PARTITION BY g)"),
            "42P20 cannot override PARTITION BY clause of window \"p\"");
  EXPECT_EQ(ErrorPosition(over_w + "(p PARTITION BY k) FROM w WINDOW p AS (PARTITION BY g)"), 20);
  EXPECT_EQ(Error(over_w + "(p ORDER BY id) FROM w WINDOW p AS (ORDER BY k)"),
            "42P20 cannot override ORDER BY clause of window \"p\"");
  EXPECT_EQ(Error(over_w + "(p) FROM w WINDOW p AS (ORDER BY k ROWS 1 PRECEDING)"),
            "42P20 cannot copy window \"p\" because it has a frame clause");
  try {
    Pg(over_w + "(p) FROM w WINDOW p AS (ORDER BY k ROWS 1 PRECEDING)");
    ADD_FAILURE() << "no error";
  } catch (const DbError& e) {
    EXPECT_EQ(e.hint(), "Omit the parentheses in this OVER clause.");
  }
  EXPECT_EQ(Error(over_w + "p FROM w WINDOW p AS (ORDER BY k), p AS (ORDER BY id)"),
            "42P20 window \"p\" is already defined");
  EXPECT_EQ(ErrorPosition(over_w + "p FROM w WINDOW p AS (ORDER BY k), p AS (ORDER BY id)"), 55);
  EXPECT_EQ(Error(over_w + "x FROM w WINDOW p AS (ORDER BY k)"),
            "42704 window \"x\" does not exist");
  EXPECT_EQ(ErrorPosition(over_w + "x FROM w WINDOW p AS (ORDER BY k)"), 20);
  // A definition sees only the ones before it.
  EXPECT_EQ(Error(over_w + "p FROM w WINDOW p AS (q), q AS (ORDER BY k)"),
            "42704 window \"q\" does not exist");
  EXPECT_EQ(ErrorPosition(over_w + "p FROM w WINDOW p AS (q), q AS (ORDER BY k)"), 41);
}

TEST_F(WindowSql, Errors) {
  EXPECT_EQ(Error("SELECT id FROM w WHERE row_number() OVER () > 1"),
            "42P20 window functions are not allowed in WHERE");
  EXPECT_EQ(ErrorPosition("SELECT id FROM w WHERE row_number() OVER () > 1"), 24);
  EXPECT_EQ(Error("SELECT count(*) FROM w GROUP BY rank() OVER ()"),
            "42P20 window functions are not allowed in GROUP BY");
  EXPECT_EQ(Error("SELECT g FROM w GROUP BY g HAVING sum(v) OVER () > 1"),
            "42P20 window functions are not allowed in HAVING");
  EXPECT_EQ(Error("SELECT sum(row_number() OVER ()) FROM w"),
            "42803 aggregate function calls cannot contain window function calls");
  EXPECT_EQ(ErrorPosition("SELECT sum(row_number() OVER ()) FROM w"), 12);
  EXPECT_EQ(Error("SELECT sum(v) OVER (ORDER BY rank() OVER ()) FROM w"),
            "42P20 window functions are not allowed in window definitions");
  EXPECT_EQ(Error("SELECT sum(row_number() OVER ()) OVER () FROM w"),
            "42P20 window function calls cannot be nested");
  EXPECT_EQ(Error("SELECT rank() FROM w"), "42809 window function rank requires an OVER clause");
  EXPECT_EQ(Error("SELECT abs(v) OVER () FROM w"),
            "42809 OVER specified, but abs is not a window function nor an aggregate function");
  // FILTER on a plain function is refused, never dropped; an unknown one is 42883.
  EXPECT_EQ(Error("SELECT abs(v) FILTER (WHERE v > 1) FROM w"),
            "42809 FILTER specified, but abs is not an aggregate function");
  EXPECT_EQ(Error("SELECT no_such_fn(v) FILTER (WHERE v > 1) FROM w").substr(0, 6), "42883 ");
  EXPECT_EQ(Error("SELECT ntile(0) OVER () FROM w"),
            "22014 argument of ntile must be greater than zero");
  EXPECT_EQ(Error("SELECT nth_value(v, 0) OVER () FROM w"),
            "22016 argument of nth_value must be greater than zero");
  EXPECT_EQ(Error("SELECT sum(v) OVER (ROWS BETWEEN UNBOUNDED FOLLOWING AND CURRENT ROW) FROM w"),
            "42P20 frame start cannot be UNBOUNDED FOLLOWING");
  EXPECT_EQ(Error("SELECT sum(v) OVER (ROWS BETWEEN CURRENT ROW AND 1 PRECEDING) FROM w"),
            "42P20 frame starting from current row cannot have preceding rows");
  EXPECT_EQ(Error("SELECT sum(v) OVER (ROWS -1 PRECEDING) FROM w"),
            "22013 frame starting offset must not be negative");
  EXPECT_EQ(Error("SELECT g, sum(v) OVER (PARTITION BY k) FROM w GROUP BY g"),
            "42803 column \"w.v\" must appear in the GROUP BY clause or be used in an aggregate "
            "function");
  EXPECT_EQ(Error("SELECT rank() OVER x FROM w"), "42704 window \"x\" does not exist");
  EXPECT_EQ(Error("SELECT count(DISTINCT v) OVER () FROM w"),
            "0A000 DISTINCT is not implemented for window functions");
  EXPECT_EQ(Error("SELECT * FROM w JOIN w w2 ON row_number() OVER () = 1"),
            "42P20 window functions are not allowed in JOIN conditions");
  // Frame errors (PostgreSQL 15's; it points 0A000 at the offset, Forktail at the frame).
  EXPECT_EQ(Error("SELECT sum(v) OVER (ORDER BY k GROUPS -1 PRECEDING) FROM w"),
            "22013 frame starting offset must not be negative");
  EXPECT_EQ(Error("SELECT sum(v) OVER (ORDER BY k RANGE BETWEEN 1 PRECEDING AND -1 FOLLOWING) "
                  "FROM w"),
            "22013 invalid preceding or following size in window function");
  EXPECT_EQ(Error("SELECT sum(v) OVER (ORDER BY k RANGE BETWEEN CURRENT ROW AND NULL FOLLOWING) "
                  "FROM w"),
            "22004 frame ending offset must not be null");
  EXPECT_EQ(Error("SELECT sum(v) OVER (ORDER BY k, id RANGE 1 PRECEDING) FROM w"),
            "42P20 RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column");
  EXPECT_EQ(ErrorPosition("SELECT sum(v) OVER (ORDER BY k, id RANGE 1 PRECEDING) FROM w"), 20);
  EXPECT_EQ(Error("SELECT sum(v) OVER (RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM w"),
            "42P20 RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column");
  EXPECT_EQ(Error("SELECT sum(v) OVER (ORDER BY k RANGE 1.5 PRECEDING) FROM w"),
            "0A000 RANGE with offset PRECEDING/FOLLOWING is not supported for column type "
            "integer and offset type numeric");
  EXPECT_EQ(Error("SELECT sum(v) OVER (ORDER BY g RANGE 1 PRECEDING) FROM w"),
            "0A000 RANGE with offset PRECEDING/FOLLOWING is not supported for column type text");
  EXPECT_EQ(Error("SELECT sum(v) OVER (GROUPS 1 PRECEDING) FROM w"),
            "42P20 GROUPS mode requires an ORDER BY clause");
  EXPECT_EQ(ErrorPosition("SELECT sum(v) OVER (GROUPS 1 PRECEDING) FROM w"), 20);
}

// RANGE with offsets, GROUPS and EXCLUDE: PostgreSQL 15's answers over w
// (Q3's second column ordered by m::float8 there).
TEST_F(WindowSql, RangeOffsetsGroupsAndExclude) {
  EXPECT_EQ(Pg("SELECT id, sum(v) OVER (PARTITION BY g ORDER BY k RANGE BETWEEN 1 PRECEDING AND "
               "CURRENT ROW), count(*) OVER (ORDER BY k RANGE BETWEEN 1 PRECEDING AND 2 "
               "FOLLOWING) FROM w ORDER BY id"),
            "1|10|5\n2|60|5\n3|60|5\n4|40|2\n5||1\n6|60|4\n7|70|5\n8|80|2");
  EXPECT_EQ(Pg("SELECT id, sum(v) OVER (ORDER BY k DESC RANGE BETWEEN 1 PRECEDING AND 1 "
               "FOLLOWING), min(id) OVER (ORDER BY k DESC NULLS LAST RANGE BETWEEN "
               "CURRENT ROW AND 2 FOLLOWING) FROM w ORDER BY id"),
            "1|130|1\n2|190|1\n3|190|1\n4|120|4\n5||5\n6|110|1\n7|130|1\n8|120|4");
  EXPECT_EQ(Pg("SELECT id, sum(v) OVER (ORDER BY m RANGE BETWEEN 0.75 PRECEDING AND 0.5 "
               "FOLLOWING), max(id) OVER (ORDER BY CAST(m AS DOUBLE PRECISION) RANGE BETWEEN 1.5 "
               "PRECEDING AND CURRENT ROW) FROM w ORDER BY id"),
            "1|10|5\n2|30|5\n3|110|8\n4|40|4\n5|10|5\n6|60|6\n7|70|7\n8|110|8");
  EXPECT_EQ(Pg("SELECT id, sum(v) OVER (ORDER BY k RANGE BETWEEN 1 FOLLOWING AND 3 FOLLOWING), "
               "sum(v) OVER (ORDER BY k NULLS FIRST RANGE BETWEEN 2 PRECEDING AND 1 PRECEDING) "
               "FROM w ORDER BY id"),
            "1|110|\n2|60|80\n3|60|80\n4|120|120\n5||60\n6||130\n7|110|\n8|120|120");
  EXPECT_EQ(Pg("SELECT id, sum(v) OVER (PARTITION BY g ORDER BY k GROUPS BETWEEN 1 PRECEDING AND "
               "CURRENT ROW), count(*) OVER (ORDER BY k GROUPS BETWEEN CURRENT ROW AND 1 "
               "FOLLOWING), last_value(id) OVER (ORDER BY k, id GROUPS 2 PRECEDING) FROM w ORDER "
               "BY id"),
            "1|10|4|1\n2|60|3|2\n3|60|3|3\n4|90|2|4\n5|60|3|5\n6|60|2|6\n7|70|4|7\n8|150|2|8");
  EXPECT_EQ(
      Pg("SELECT id, sum(v) OVER (ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED "
         "FOLLOWING EXCLUDE CURRENT ROW), count(*) OVER (ORDER BY k RANGE BETWEEN UNBOUNDED "
         "PRECEDING AND CURRENT ROW EXCLUDE GROUP), sum(v) OVER (ORDER BY k GROUPS BETWEEN 1 "
         "PRECEDING AND 1 FOLLOWING EXCLUDE TIES), first_value(id) OVER (ORDER BY k RANGE "
         "BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING EXCLUDE CURRENT ROW) FROM w ORDER BY id"),
      "1|300|0|60|7\n2|290|2|160|3\n3|280|2|170|2\n4|270|6|40|8\n5|310|5|180|4\n6|250|4|"
      "110|5\n7|240|0|120|1\n8|230|6|80|4");
}

// More frames: a DECIMAL offset finer than the key's scale, a DOUBLE key
// DESC (PostgreSQL: m::float8), a BIGINT offset over an INTEGER key, and
// exclusions with GROUPS / RANGE offsets / ROWS (PostgreSQL 15's answers).
TEST_F(WindowSql, MoreRangeOffsetsAndExclusions) {
  EXPECT_EQ(Pg("SELECT id, sum(v) OVER (ORDER BY m RANGE BETWEEN 0.759 PRECEDING AND CURRENT "
               "ROW), max(id) OVER (ORDER BY CAST(m AS DOUBLE PRECISION) DESC RANGE BETWEEN 1 "
               "PRECEDING AND 0.5 FOLLOWING), count(*) OVER (ORDER BY k RANGE BETWEEN 3000000000 "
               "PRECEDING AND 0 FOLLOWING) FROM w ORDER BY id"),
            "1|10|5|2\n2|30|2|4\n3|110|8|4\n4|40|4|2\n5||5|6\n6|60|7|5\n7|70|7|2\n8|110|8|2");
  EXPECT_EQ(Pg("SELECT id, nth_value(id, 2) OVER (ORDER BY k, id GROUPS BETWEEN 1 PRECEDING AND 1 "
               "FOLLOWING EXCLUDE GROUP), sum(v) OVER (ORDER BY k DESC RANGE BETWEEN 2 PRECEDING "
               "AND 1 PRECEDING EXCLUDE TIES), last_value(id) OVER (ORDER BY id ROWS BETWEEN 2 "
               "PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW) FROM w ORDER BY id"),
            "1||110|3\n2|3|60|4\n3|6|60|5\n4|8|40|6\n5|4||7\n6|5||8\n7|2|110|8\n8||80|7");
  // NULL keys lie beyond every offset: in the frame only by an UNBOUNDED side.
  EXPECT_EQ(Pg("SELECT id, count(*) OVER (ORDER BY k NULLS FIRST RANGE BETWEEN UNBOUNDED "
               "PRECEDING AND 0 FOLLOWING), count(*) OVER (ORDER BY k RANGE BETWEEN 1 PRECEDING "
               "AND UNBOUNDED FOLLOWING), count(*) OVER (ORDER BY k DESC RANGE BETWEEN 1 "
               "FOLLOWING AND UNBOUNDED FOLLOWING) FROM w ORDER BY id"),
            "1|4|8|0\n2|6|8|2\n3|6|8|2\n4|2|2|8\n5|8|3|5\n6|7|6|4\n7|4|8|0\n8|2|2|8");
}

TEST_F(WindowSql, ExplainShowsWindow) {
  LogicalOpPtr plan = Optimized(
      "SELECT id, rank() OVER (PARTITION BY g ORDER BY k), lag(v) OVER (ORDER BY id) FROM w");
  std::string logical = PlanToString(*plan, false);
  EXPECT_NE(logical.find("Window partition=[g#"), std::string::npos) << logical;
  SchedulerOptions options;
  options.immediate = true;
  Scheduler scheduler(options);
  std::string text = Explain(*plan, catalog_, false, scheduler);
  EXPECT_NE(text.find("Window"), std::string::npos) << text;
  EXPECT_NE(text.find("rank()"), std::string::npos) << text;
  EXPECT_NE(text.find("lag(v#"), std::string::npos) << text;
}

}  // namespace
}  // namespace forktail
