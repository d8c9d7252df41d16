// Helpers for the planner tests: hand-built logical plans (ids handed out by
// a counter, as the binder would), a Catalog of random test tables, and
// running a plan under a real Scheduler (immediate, 1 worker, 2 workers).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "olap/parser/ast.h"
#include "olap/plan/binder/binder.h"
#include "olap/plan/optimizer/optimizer.h"
#include "olap/plan/planner/executor.h"
#include "olap/plan/planner/explain.h"
#include "olap/plan/planner/planner.h"
#include "storage/table/catalog.h"
#include "tests/olap/execution/physical_testing.h"

namespace forktail::plantest {

// Builds logical operators with fresh column ids.
class LogicalBuilder {
 public:
  LogicalOpPtr Get(const Table& table, const std::vector<uint32_t>& cols) {
    auto op = std::make_unique<LogicalOp>();
    op->kind = LogicalOpKind::kGet;
    op->table_id = table.id();
    op->table_name = table.schema().name;
    op->alias = table.schema().name;
    for (uint32_t c : cols) {
      const ColumnDef& def = table.schema().columns[c];
      op->columns.push_back({next_++, def.name, def.type});
      op->table_columns.push_back(c);
    }
    return op;
  }
  static LogicalOpPtr Filter(LogicalOpPtr child, ExprPtr cond) {
    auto op = Unary(LogicalOpKind::kFilter, std::move(child));
    op->conditions.push_back(std::move(cond));
    return op;
  }
  LogicalOpPtr Project(LogicalOpPtr child, std::vector<ExprPtr> exprs) {
    auto op = std::make_unique<LogicalOp>();
    op->kind = LogicalOpKind::kProject;
    for (ExprPtr& e : exprs) {
      uint32_t id = e->kind == ExprKind::kColumnRef ? e->column : next_++;
      op->columns.push_back({id, "p" + std::to_string(op->columns.size()), e->type});
      op->expressions.push_back(std::move(e));
    }
    op->children.push_back(std::move(child));
    return op;
  }
  static LogicalOpPtr Join(LogicalJoinKind kind, LogicalOpPtr left, LogicalOpPtr right,
                           std::vector<uint32_t> lk, std::vector<uint32_t> rk,
                           ExprPtr residual = nullptr) {
    auto op = std::make_unique<LogicalOp>();
    op->kind = LogicalOpKind::kJoin;
    op->join_kind = kind;
    op->columns = left->columns;
    if (kind != LogicalJoinKind::kSemi && kind != LogicalJoinKind::kAnti &&
        kind != LogicalJoinKind::kNullAwareAnti) {
      op->columns.insert(op->columns.end(), right->columns.begin(), right->columns.end());
    }
    op->left_keys = std::move(lk);
    op->right_keys = std::move(rk);
    if (residual) op->conditions.push_back(std::move(residual));
    op->children.push_back(std::move(left));
    op->children.push_back(std::move(right));
    return op;
  }
  LogicalOpPtr Aggregate(LogicalOpPtr child, std::vector<uint32_t> keys,
                         std::vector<LogicalAggregate> aggs) {
    auto op = std::make_unique<LogicalOp>();
    op->kind = LogicalOpKind::kAggregate;
    for (uint32_t k : keys) op->columns.push_back(child->columns[child->FindColumn(k)]);
    for (const LogicalAggregate& a : aggs) {
      AggregateSpec s{a.kind, 0, {}};
      if (a.kind != AggKind::kCountStar)
        s.input_type = child->columns[child->FindColumn(a.input)].type;
      op->columns.push_back({next_++, AggKindName(a.kind), AggregateResultType(s)});
    }
    op->group_keys = std::move(keys);
    op->aggregates = std::move(aggs);
    op->children.push_back(std::move(child));
    return op;
  }
  static LogicalOpPtr Distinct(LogicalOpPtr child) {
    return Unary(LogicalOpKind::kDistinct, std::move(child));
  }
  static LogicalOpPtr Sort(LogicalOpPtr child, std::vector<SortKeyRef> keys) {
    auto op = Unary(LogicalOpKind::kSort, std::move(child));
    op->sort_keys = std::move(keys);
    return op;
  }
  static LogicalOpPtr Limit(LogicalOpPtr child, int64_t limit, int64_t offset) {
    auto op = Unary(LogicalOpKind::kLimit, std::move(child));
    op->limit = limit;
    op->offset = offset;
    return op;
  }
  // UNION / INTERSECT / EXCEPT: fresh output ids, the first input's types
  // unless `types` is given.
  LogicalOpPtr SetOp(LogicalOpKind kind, bool distinct, std::vector<LogicalOpPtr> inputs,
                     std::vector<Type> types = {}) {
    auto op = std::make_unique<LogicalOp>();
    op->kind = kind;
    op->set_distinct = distinct;
    for (size_t i = 0; i < inputs[0]->columns.size(); ++i) {
      op->columns.push_back({next_++, inputs[0]->columns[i].name,
                             types.empty() ? inputs[0]->columns[i].type : types[i]});
    }
    op->children = std::move(inputs);
    return op;
  }
  LogicalOpPtr Values(std::vector<Type> types, std::vector<std::vector<ExprPtr>> rows) {
    auto op = std::make_unique<LogicalOp>();
    op->kind = LogicalOpKind::kValues;
    for (const Type& t : types)
      op->columns.push_back({next_++, "column" + std::to_string(op->columns.size() + 1), t});
    op->rows = std::move(rows);
    return op;
  }

  static ExprPtr Ref(const LogicalOp& op, size_t i) {
    return ColumnRef(op.columns[i].id, op.columns[i].type);
  }

 private:
  static LogicalOpPtr Unary(LogicalOpKind kind, LogicalOpPtr child) {
    auto op = std::make_unique<LogicalOp>();
    op->kind = kind;
    op->columns = child->columns;
    op->children.push_back(std::move(child));
    return op;
  }
  uint32_t next_ = 1;
};

// A catalog table of the physical tests' schema (a INTEGER, b BIGINT,
// c TEXT, d DOUBLE, e DECIMAL(12,2)) with random rows; `live` in row order.
struct CatalogTable {
  Table* table = nullptr;
  std::vector<Row> live;
};

inline CatalogTable AddTable(Catalog& catalog, const std::string& name, size_t n, uint64_t seed,
                             int64_t domain, uint32_t max_rows = 256) {
  TableOptions options;
  options.max_rows_per_block = max_rows;
  CatalogTable t;
  t.table = &catalog.CreateTable(ptest::TestSchema(name), options);
  physical::InsertRows(*t.table, ptest::RandomRows(n, seed, domain, 0.5));
  t.live = physical::ReadLiveRows(*t.table);
  return t;
}

// Executes `root` on a fresh, unpinned scheduler in `mode` (immediate: no
// threads; one or two workers).
inline QueryResult ExecuteInMode(ptest::Mode mode, const LogicalOp& root, const Catalog& catalog) {
  SchedulerOptions options;
  options.immediate = mode == ptest::Mode::kImmediate;
  options.num_workers = mode == ptest::Mode::kTwoWorkers ? 2 : 1;
  options.pin_workers = false;
  Scheduler scheduler(options);
  return ExecuteQuery(scheduler, root, catalog);
}

// Plans and runs `root` in every scheduler mode; the rows of each run must
// be the same bag; returns them (of the last mode).
inline std::vector<Row> RunAllModes(const LogicalOp& root, const Catalog& catalog) {
  std::vector<Row> last;
  std::multiset<std::string> first;
  bool have = false;
  for (ptest::Mode mode : ptest::kModes) {
    QueryResult result = ExecuteInMode(mode, root, catalog);
    auto bag = ptest::Bag(result.rows);
    if (have) {
      EXPECT_EQ(bag, first) << ptest::ModeName(mode);
    }
    first = std::move(bag);
    have = true;
    last = std::move(result.rows);
  }
  return last;
}

// Runs `root` in every scheduler mode and returns its rows in order, rendered
// "v|v|...;" by ptest::ShowRow; every mode must give the same text (`what`
// names the query in the failure message).
inline std::string ShownRowsAllModes(const LogicalOp& root, const Catalog& catalog,
                                     const std::string& what) {
  std::string first;
  for (ptest::Mode mode : ptest::kModes) {
    QueryResult result = ExecuteInMode(mode, root, catalog);
    std::string s;
    for (const Row& r : result.rows) s += ptest::ShowRow(r) + ";";
    if (mode == ptest::Mode::kImmediate) {
      first = s;
    } else {
      EXPECT_EQ(s, first) << ptest::ModeName(mode) << ": " << what;
    }
  }
  return first;
}

// SQL text -> Parse -> Bind -> Optimize -> Execute on an immediate scheduler;
// the rows as "v|v;v|v;" (Value::ToString, NULL as NULL). Errors propagate.
inline std::string QueryRowsText(const std::string& sql, const Catalog& catalog) {
  std::vector<sql::StatementPtr> statements = sql::Parse(sql);
  EXPECT_EQ(statements.size(), 1u) << sql;
  BoundStatement bound = Bind(*statements.at(0), catalog);
  LogicalOpPtr plan = Optimize(std::move(bound.plan), catalog);
  QueryResult result = ExecuteInMode(ptest::Mode::kImmediate, *plan, catalog);
  std::string s;
  for (const Row& r : result.rows) {
    for (size_t i = 0; i < r.size(); i++) {
      if (i > 0) s += "|";
      s += r[i].is_null() ? "NULL" : r[i].ToString();
    }
    s += ";";
  }
  return s;
}

// "SQLSTATE message" of the DbError `run` throws, or "no error".
template <typename Fn>
std::string ErrorText(Fn&& run) {
  try {
    run();
  } catch (const DbError& e) {
    return std::string(e.sqlstate()) + " " + e.what();
  }
  return "no error";
}

// A fixture for end-to-end SQL tests over a catalog the test fills
// (catalog_): parse, bind, optimize, then run in every scheduler mode.
class SqlQueryTest : public ::testing::Test {
 protected:
  LogicalOpPtr Optimized(const std::string& sql) {
    std::vector<sql::StatementPtr> statements = sql::Parse(sql);
    EXPECT_EQ(statements.size(), 1u);
    BoundStatement bound = Bind(*statements.at(0), *catalog_);
    return Optimize(std::move(bound.plan), *catalog_);
  }

  static bool HasApply(const LogicalOp& op) {
    if (op.kind == LogicalOpKind::kApply) return true;
    for (const LogicalOpPtr& c : op.children) {
      if (HasApply(*c)) return true;
    }
    return false;
  }

  // The rows rendered "v|v|...;" per row, identical in every mode.
  std::string Query(const std::string& sql) {
    LogicalOpPtr plan = Optimized(sql);
    return ShownRowsAllModes(*plan, *catalog_, sql);
  }

  // Query() of a query that must be planned with an Apply.
  std::string ApplyQuery(const std::string& sql) {
    LogicalOpPtr plan = Optimized(sql);
    EXPECT_TRUE(HasApply(*plan)) << sql << "\n" << PlanToString(*plan);
    return Query(sql);
  }

  // "SQLSTATE message" of the query's error, or "no error".
  std::string Error(const std::string& sql) {
    return ErrorText([&] { Query(sql); });
  }

  // "SQLSTATE message @position" of the query's error, or "no error".
  std::string ErrorAt(const std::string& sql) {
    try {
      Query(sql);
    } catch (const DbError& e) {
      return std::string(e.sqlstate()) + " " + e.what() + " @" + std::to_string(e.position());
    }
    return "no error";
  }

  std::unique_ptr<Catalog> catalog_;
};

}  // namespace forktail::plantest
