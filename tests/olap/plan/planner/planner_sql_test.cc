// End to end: SQL text -> sql::Parse -> Bind -> Optimize -> Plan -> Execute
// over two small tables, against hand-computed results (ORDER BY everywhere,
// so the expected rows are in order), in every scheduler mode; plus EXPLAIN.
#include <gtest/gtest.h>

#include "olap/parser/ast.h"
#include "olap/plan/binder/binder.h"
#include "olap/plan/optimizer/optimizer.h"
#include "tests/olap/plan/planner/planner_testing.h"

namespace forktail {
namespace {

class PlannerSql : public ::testing::Test {
 protected:
  void SetUp() override {
    Table& emp = catalog_.CreateTable({"emp",
                                       {{"id", Type::Integer()},
                                        {"name", Type::Text()},
                                        {"dept", Type::Integer()},
                                        {"salary", Type::BigInt()}},
                                       {ColumnId(0)}});
    auto I = [](int v) { return Value::Integer(v); };
    auto N = Value::Null(Type::Integer());
    physical::InsertRows(emp, {{I(1), Value::Text("ann"), I(10), Value::BigInt(100)},
                               {I(2), Value::Text("bob"), I(10), Value::BigInt(200)},
                               {I(3), Value::Text("cid"), I(20), Value::BigInt(150)},
                               {I(4), Value::Text("dan"), N, Value::BigInt(50)},
                               {I(5), Value::Text("eve"), I(30), Value::BigInt(300)}});
    emp.RefreshStatistics();
    Table& dept =
        catalog_.CreateTable({"dept", {{"id", Type::Integer()}, {"dname", Type::Text()}}, {}});
    physical::InsertRows(
        dept,
        {{I(10), Value::Text("eng")}, {I(20), Value::Text("ops")}, {I(40), Value::Text("hr")}});
    dept.RefreshStatistics();
  }

  LogicalOpPtr Optimized(const std::string& sql) {
    std::vector<sql::StatementPtr> statements = sql::Parse(sql);
    EXPECT_EQ(statements.size(), 1u);
    BoundStatement bound = Bind(*statements.at(0), catalog_);
    return Optimize(std::move(bound.plan), catalog_);
  }

  // The rows rendered "v|v|...;" per row, identical in every mode.
  std::string Query(const std::string& sql) {
    LogicalOpPtr plan = Optimized(sql);
    return plantest::ShownRowsAllModes(*plan, catalog_, sql);
  }

  std::string Error(const std::string& sql) {
    try {
      Query(sql);
    } catch (const DbError& e) {
      return std::string(e.sqlstate()) + " " + e.what();
    }
    return "no error";
  }

  Catalog catalog_;
};

TEST_F(PlannerSql, ScanFilterSort) {
  EXPECT_EQ(Query("SELECT name FROM emp WHERE salary > 120 ORDER BY name"),
            "'bob'|;'cid'|;'eve'|;");
  EXPECT_EQ(Query("SELECT id, salary * 2 AS s FROM emp WHERE name LIKE '%a%' ORDER BY id DESC"),
            "4|100|;1|200|;");
}

TEST_F(PlannerSql, JoinsAndAggregates) {
  EXPECT_EQ(Query("SELECT d.dname, count(*), sum(e.salary) FROM emp e JOIN dept d ON e.dept = "
                  "d.id GROUP BY d.dname ORDER BY d.dname"),
            "'eng'|2|300|;'ops'|1|150|;");
  EXPECT_EQ(Query("SELECT e.name, d.dname FROM emp e LEFT JOIN dept d ON e.dept = d.id ORDER BY "
                  "e.name"),
            "'ann'|'eng'|;'bob'|'eng'|;'cid'|'ops'|;'dan'|NULL|;'eve'|NULL|;");
  EXPECT_EQ(Query("SELECT e.name, d.dname FROM emp e LEFT JOIN dept d ON e.dept = d.id AND "
                  "e.salary > 150 ORDER BY e.name"),
            "'ann'|NULL|;'bob'|'eng'|;'cid'|NULL|;'dan'|NULL|;'eve'|NULL|;");
  EXPECT_EQ(Query("SELECT e.name, d.dname FROM emp e, dept d WHERE e.dept < d.id AND e.salary > "
                  "250 ORDER BY 2"),
            "'eve'|'hr'|;");
  EXPECT_EQ(Query("SELECT dept, count(*) FROM emp GROUP BY dept HAVING count(*) > 1"), "10|2|;");
  EXPECT_EQ(Query("SELECT count(*), count(dept), min(name), max(salary) FROM emp"),
            "5|4|'ann'|300|;");
  EXPECT_EQ(Query("SELECT count(*) FROM emp WHERE salary > 1000"), "0|;");
}

TEST_F(PlannerSql, Subqueries) {
  EXPECT_EQ(Query("SELECT dname FROM dept WHERE id IN (SELECT dept FROM emp) ORDER BY dname"),
            "'eng'|;'ops'|;");
  EXPECT_EQ(Query("SELECT dname FROM dept WHERE NOT EXISTS (SELECT 1 FROM emp WHERE emp.dept = "
                  "dept.id)"),
            "'hr'|;");
  EXPECT_EQ(Query("SELECT name, (SELECT dname FROM dept WHERE dept.id = emp.dept) FROM emp ORDER "
                  "BY id"),
            "'ann'|'eng'|;'bob'|'eng'|;'cid'|'ops'|;'dan'|NULL|;'eve'|NULL|;");
  EXPECT_EQ(
      Query("SELECT name FROM emp WHERE salary > (SELECT avg(salary) FROM emp) ORDER BY name"),
      "'bob'|;'eve'|;");
  EXPECT_EQ(Error("SELECT (SELECT id FROM dept)"),
            "21000 more than one row returned by a subquery used as an expression");
}

// NOT IN: the null-aware anti join (nothing when the subquery yields a NULL).
TEST_F(PlannerSql, NotInSubqueries) {
  EXPECT_EQ(Query("SELECT dname FROM dept WHERE id NOT IN (SELECT dept FROM emp)"), "");
  EXPECT_EQ(Query("SELECT dname FROM dept WHERE id NOT IN (SELECT dept FROM emp WHERE dept IS NOT "
                  "NULL)"),
            "'hr'|;");
}

TEST_F(PlannerSql, SetOperationsDistinctLimit) {
  EXPECT_EQ(Query("SELECT DISTINCT dept FROM emp ORDER BY dept"), "10|;20|;30|;NULL|;");
  EXPECT_EQ(Query("SELECT dept FROM emp UNION SELECT id FROM dept ORDER BY 1"),
            "10|;20|;30|;40|;NULL|;");
  EXPECT_EQ(Query("SELECT count(*) FROM (SELECT id FROM emp UNION ALL SELECT id FROM dept) s"),
            "8|;");
  EXPECT_EQ(Query("SELECT dept FROM emp INTERSECT SELECT id FROM dept ORDER BY 1"), "10|;20|;");
  EXPECT_EQ(Query("SELECT id FROM dept EXCEPT SELECT dept FROM emp"), "40|;");
  EXPECT_EQ(Query("SELECT id FROM emp ORDER BY salary DESC LIMIT 2 OFFSET 1"), "2|;3|;");
  EXPECT_EQ(Query("SELECT id FROM emp ORDER BY id OFFSET 3"), "4|;5|;");
  EXPECT_EQ(Query("SELECT count(*) FROM (SELECT id FROM emp LIMIT 3) s"), "3|;");
}

TEST_F(PlannerSql, ValuesAndNoFrom) {
  EXPECT_EQ(Query("SELECT 1 + 1, 'x'"), "2|'x'|;");
  EXPECT_EQ(Query("VALUES (1, 'a'), (2, 'b') ORDER BY 1 DESC"), "2|'b'|;1|'a'|;");
}

// WITH RECURSIVE in every scheduler mode: a walk down the reporting lines
// (emp.dept as the manager's id), UNION's cycle ending, LIMIT over an
// endless recursion (the rounds stop at the rows the LIMIT needs: EXPLAIN
// says so), and an endless one without LIMIT stopping at the memory budget.
TEST_F(PlannerSql, WithRecursive) {
  EXPECT_EQ(Query("WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 4) "
                  "SELECT n, n * n FROM t ORDER BY n"),
            "1|1|;2|4|;3|9|;4|16|;");
  EXPECT_EQ(Query("WITH RECURSIVE r(id, depth) AS (SELECT id, 0 FROM emp WHERE id = 1 UNION ALL "
                  "SELECT e.id + 1, r.depth + 1 FROM r JOIN emp e ON e.id = r.id WHERE e.id < 5) "
                  "SELECT id, depth FROM r ORDER BY id"),
            "1|0|;2|1|;3|2|;4|3|;5|4|;");
  EXPECT_EQ(Query("WITH RECURSIVE t(n) AS (SELECT 1 UNION SELECT n % 3 + 1 FROM t) "
                  "SELECT n FROM t ORDER BY n"),
            "1|;2|;3|;");
  EXPECT_EQ(Query("WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) "
                  "SELECT n FROM t LIMIT 3"),
            "1|;2|;3|;");
  LogicalOpPtr capped = Optimized(
      "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT n FROM t LIMIT 3");
  SchedulerOptions immediate;
  immediate.immediate = true;
  Scheduler scheduler(immediate);
  std::string text = Explain(*capped, catalog_, false, scheduler);
  EXPECT_NE(text.find("RecursiveUnion UNION ALL, first 3 rows"), std::string::npos) << text;
  EXPECT_NE(text.find("recursive term (per round):"), std::string::npos) << text;
  EXPECT_NE(text.find("WorkTable"), std::string::npos) << text;

  LogicalOpPtr endless = Optimized(
      "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) "
      "SELECT count(*) FROM t");
  ExecuteOptions options;
  options.memory_limit = size_t{4} << 20;
  try {
    ExecuteQuery(scheduler, *endless, catalog_, options);
    ADD_FAILURE() << "no error";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), sqlstate::kOutOfMemory) << e.what();
  }
}

TEST_F(PlannerSql, ExplainAndAnalyze) {
  LogicalOpPtr plan = Optimized(
      "SELECT d.dname, count(*) FROM emp e JOIN dept d ON e.dept = d.id GROUP BY d.dname");
  SchedulerOptions options;
  options.immediate = true;
  Scheduler scheduler(options);
  std::string text = Explain(*plan, catalog_, false, scheduler);
  EXPECT_NE(text.find("HashJoinProbe inner"), std::string::npos) << text;
  EXPECT_NE(text.find("HashJoinBuild"), std::string::npos) << text;
  EXPECT_NE(text.find("TableScan emp"), std::string::npos) << text;
  std::string analyzed = Explain(*plan, catalog_, true, scheduler);
  EXPECT_NE(analyzed.find("TableScan emp"), std::string::npos);
  EXPECT_NE(analyzed.find("actual rows=5 "), std::string::npos) << analyzed;
  EXPECT_NE(analyzed.find("Execution Time"), std::string::npos);
}

// A CTE referenced twice (TPC-H Q15's shape) runs once: both references
// read the one operator's output. References that differ (another filter,
// a volatile call) are planned apart.
TEST_F(PlannerSql, SubplansComputingTheSameAreShared) {
  auto explain = [&](const std::string& sql) {
    LogicalOpPtr plan = Optimized(sql);
    SchedulerOptions options;
    options.immediate = true;
    Scheduler scheduler(options);
    return Explain(*plan, catalog_, false, scheduler);
  };
  auto shared = [](const std::string& text) {
    size_t n = 0;
    for (size_t at = text.find("(shared"); at != std::string::npos;
         at = text.find("(shared", at + 1)) {
      ++n;
    }
    return n;
  };
  const std::string q15 =
      "WITH s AS (SELECT dept, sum(salary) AS total FROM emp GROUP BY dept) "
      "SELECT dept, total FROM s WHERE total = (SELECT max(total) FROM s) ORDER BY 1";
  EXPECT_EQ(Query(q15), "10|300|;30|300|;");
  std::string text = explain(q15);
  EXPECT_EQ(shared(text), 1u) << text;
  EXPECT_EQ(text.find("TableScan emp"), text.rfind("TableScan emp")) << text;  // one scan

  // The same join and aggregate written twice as derived tables.
  const std::string twice =
      "SELECT a.dname, a.n, b.n FROM "
      "(SELECT d.dname, count(*) AS n FROM emp e JOIN dept d ON e.dept = d.id GROUP BY d.dname) a "
      "JOIN "
      "(SELECT d.dname, count(*) AS n FROM emp e JOIN dept d ON e.dept = d.id GROUP BY d.dname) b "
      "ON a.dname = b.dname ORDER BY 1";
  EXPECT_EQ(Query(twice), "'eng'|2|2|;'ops'|1|1|;");
  EXPECT_EQ(shared(explain(twice)), 1u) << explain(twice);

  // Different filters: two computations.
  const std::string differ =
      "WITH s AS (SELECT dept, sum(salary) AS total FROM emp GROUP BY dept) "
      "SELECT x.dept, x.total, y.total FROM s x JOIN s y ON x.dept = y.dept "
      "WHERE x.total > 200 ORDER BY 1";
  EXPECT_EQ(Query(differ), "10|300|300|;30|300|300|;");
  const std::string cross =
      "SELECT a.dept, a.total, b.total FROM "
      "(SELECT dept, sum(salary) AS total FROM emp WHERE salary > 100 GROUP BY dept) a, "
      "(SELECT dept, sum(salary) AS total FROM emp WHERE salary > 150 GROUP BY dept) b "
      "WHERE a.dept = b.dept ORDER BY 1";
  EXPECT_EQ(Query(cross), "10|200|200|;30|300|300|;");
  EXPECT_EQ(shared(explain(cross)), 0u) << explain(cross);

  // clock_timestamp() may answer differently in each reference: not shared.
  const std::string rnd =
      "SELECT count(*) FROM (SELECT dept, max(clock_timestamp()) AS m FROM emp GROUP BY dept) a "
      "JOIN (SELECT dept, max(clock_timestamp()) AS m FROM emp GROUP BY dept) b "
      "ON a.dept = b.dept";
  EXPECT_EQ(shared(explain(rnd)), 0u) << explain(rnd);
}

}  // namespace
}  // namespace forktail
