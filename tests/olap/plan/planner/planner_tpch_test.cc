// The 22 TPC-H queries (tests/olap/data/tpch) through Parse -> Bind ->
// Optimize -> Plan -> Execute on the binder tests' small deterministic TPC-H
// catalog: every query plans and runs, with the same rows in immediate mode
// and with 2 workers. Prints the physical plans' nested-loop joins and
// unwired runtime filters (planning choices worth a look at scale).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/olap/plan/binder/binder_test_catalog.h"
#include "tests/olap/plan/planner/planner_testing.h"

namespace forktail {
namespace {

std::string ReadQuery(int q) {
  std::string dir = __FILE__;
  dir = dir.substr(0, dir.find_last_of('/') + 1);
  char name[32];
  snprintf(name, sizeof name, "../../data/tpch/q%02d.sql", q);
  std::ifstream in(dir + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(PlannerTpch, EveryQueryPlansAndRuns) {
  bindertest::TpchCatalog tpch(1);
  const Catalog& catalog = tpch.catalog();
  for (int q = 1; q <= 22; ++q) {
    std::string sql = ReadQuery(q);
    if (sql.empty()) GTEST_SKIP() << "TPC-H query texts not found next to " << __FILE__;
    SCOPED_TRACE("Q" + std::to_string(q));
    try {
      std::vector<sql::StatementPtr> statements = sql::Parse(sql);
      ASSERT_EQ(statements.size(), 1u);
      BoundStatement bound = Bind(*statements[0], catalog);
      LogicalOpPtr plan = Optimize(std::move(bound.plan), catalog);
      std::multiset<std::string> first;
      for (bool immediate : {true, false}) {
        SchedulerOptions options;
        options.immediate = immediate;
        options.num_workers = 2;
        options.pin_workers = false;
        Scheduler scheduler(options);
        QueryResult result = ExecuteQuery(scheduler, *plan, catalog);
        if (immediate) {
          first = ptest::Bag(result.rows);
          std::string text = Explain(*plan, catalog, false, scheduler);
          size_t loops = Count(text, "NestedLoopJoin"), unwired = Count(text, "not wired");
          printf("Q%02d: %zu rows, %zu nested-loop joins, %zu unwired runtime filters\n", q,
                 result.rows.size(), loops, unwired);
        } else {
          EXPECT_EQ(ptest::Bag(result.rows), first);
        }
      }
    } catch (const DbError& e) {
      ADD_FAILURE() << "Q" << q << ": " << e.sqlstate() << " " << e.what();
    }
  }
}

}  // namespace
}  // namespace forktail
