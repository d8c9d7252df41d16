// Test fixture for the binder and optimizer tests: the TPC-H schema, created
// through Parse + Bind (CREATE TABLE), filled with a small deterministic data
// set so that the tables have statistics (row counts, HLL distinct counts,
// min/max), plus helpers that bind / optimize SQL text and print the plan.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "olap/parser/ast.h"
#include "olap/plan/binder/binder.h"
#include "olap/plan/logical.h"
#include "olap/plan/optimizer/optimizer.h"
#include "storage/error.h"
#include "storage/table/catalog.h"

namespace forktail::bindertest {

inline const char* kTpchSchema = R"(
CREATE TABLE region (r_regionkey INTEGER NOT NULL, r_name CHAR(25) NOT NULL,
  r_comment VARCHAR(152), PRIMARY KEY (r_regionkey));
CREATE TABLE nation (n_nationkey INTEGER NOT NULL, n_name CHAR(25) NOT NULL,
  n_regionkey INTEGER NOT NULL, n_comment VARCHAR(152), PRIMARY KEY (n_nationkey));
CREATE TABLE part (p_partkey INTEGER NOT NULL, p_name VARCHAR(55), p_mfgr CHAR(25),
  p_brand CHAR(10), p_type VARCHAR(25), p_size INTEGER, p_container CHAR(10),
  p_retailprice DECIMAL(15,2), p_comment VARCHAR(23), PRIMARY KEY (p_partkey));
CREATE TABLE supplier (s_suppkey INTEGER NOT NULL, s_name CHAR(25), s_address VARCHAR(40),
  s_nationkey INTEGER, s_phone CHAR(15), s_acctbal DECIMAL(15,2), s_comment VARCHAR(101),
  PRIMARY KEY (s_suppkey));
CREATE TABLE partsupp (ps_partkey INTEGER NOT NULL, ps_suppkey INTEGER NOT NULL,
  ps_availqty INTEGER, ps_supplycost DECIMAL(15,2), ps_comment VARCHAR(199),
  PRIMARY KEY (ps_partkey, ps_suppkey));
CREATE TABLE customer (c_custkey INTEGER NOT NULL, c_name VARCHAR(25), c_address VARCHAR(40),
  c_nationkey INTEGER, c_phone CHAR(15), c_acctbal DECIMAL(15,2), c_mktsegment CHAR(10),
  c_comment VARCHAR(117), PRIMARY KEY (c_custkey));
CREATE TABLE orders (o_orderkey INTEGER NOT NULL, o_custkey INTEGER, o_orderstatus CHAR(1),
  o_totalprice DECIMAL(15,2), o_orderdate DATE, o_orderpriority CHAR(15), o_clerk CHAR(15),
  o_shippriority INTEGER, o_comment VARCHAR(79), PRIMARY KEY (o_orderkey));
CREATE TABLE lineitem (l_orderkey INTEGER NOT NULL, l_partkey INTEGER, l_suppkey INTEGER,
  l_linenumber INTEGER NOT NULL, l_quantity DECIMAL(15,2), l_extendedprice DECIMAL(15,2),
  l_discount DECIMAL(15,2), l_tax DECIMAL(15,2), l_returnflag CHAR(1), l_linestatus CHAR(1),
  l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE, l_shipinstruct CHAR(25),
  l_shipmode CHAR(10), l_comment VARCHAR(44), PRIMARY KEY (l_orderkey, l_linenumber));
)";

// Rows per table at "scale 1" of this fixture (TPC-H's proportions / 1000).
inline int64_t TpchRows(const std::string& table, int64_t scale) {
  if (table == "region") return 5;
  if (table == "nation") return 25;
  if (table == "supplier") return 10 * scale;
  if (table == "part") return 200 * scale;
  if (table == "partsupp") return 800 * scale;
  if (table == "customer") return 150 * scale;
  if (table == "orders") return 1500 * scale;
  return 6000 * scale;  // lineitem
}

// A deterministic value for column `name` of row i: keys dense from 1 (0 for
// nation/region), foreign keys spread over the parent's keys.
inline Value TpchValue(const std::string& /*table*/, const ColumnDef& col, int64_t i,
                       int64_t scale) {
  const std::string& n = col.name;
  auto key = [&](const std::string& parent) {
    return Value::Integer(static_cast<int32_t>(i % TpchRows(parent, scale) + 1));
  };
  if (n == "r_regionkey" || n == "n_nationkey") return Value::Integer(static_cast<int32_t>(i));
  if (n == "n_regionkey") return Value::Integer(static_cast<int32_t>(i % 5));
  if (n == "s_nationkey" || n == "c_nationkey") return Value::Integer(static_cast<int32_t>(i % 25));
  if (n == "s_suppkey" || n == "p_partkey" || n == "c_custkey" || n == "o_orderkey") {
    return Value::Integer(static_cast<int32_t>(i + 1));
  }
  if (n == "ps_partkey") return Value::Integer(static_cast<int32_t>(i / 4 + 1));
  if (n == "ps_suppkey") return Value::Integer(static_cast<int32_t>(i % 4 + 1));
  if (n == "l_orderkey") return Value::Integer(static_cast<int32_t>(i / 4 + 1));
  if (n == "l_linenumber") return Value::Integer(static_cast<int32_t>(i % 4 + 1));
  if (n == "l_partkey") return key("part");
  if (n == "l_suppkey") return key("supplier");
  if (n == "o_custkey") return key("customer");
  if (n == "r_name") {
    static const char* names[] = {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"};
    return Value::Text(names[i % 5]);
  }
  switch (col.type.id) {
    case TypeId::kInteger:
      return Value::Integer(static_cast<int32_t>(i % 50));
    case TypeId::kDecimal:
      return Value::Decimal((i % 1000) * 100 + 50, 15, 2);
    case TypeId::kDate:
      return Value::Date(static_cast<int32_t>(8035 + i % 2500));  // 1992-01-01..
    default: {
      std::string v = std::to_string(i % 7) + n.substr(n.find('_') + 1, 4);
      if (col.type.length > 0 && v.size() > col.type.length) v.resize(col.type.length);
      return Value::Text(v);
    }
  }
}

class TpchCatalog {
 public:
  explicit TpchCatalog(int64_t scale = 1) {
    for (const sql::StatementPtr& s : sql::Parse(kTpchSchema)) {
      BoundStatement b = Bind(*s, catalog_);
      Table& t = catalog_.CreateTable(b.schema);
      int64_t rows = TpchRows(t.schema().name, scale);
      for (int64_t i = 0; i < rows; i++) {
        Row row;
        for (const ColumnDef& c : t.schema().columns) {
          row.push_back(TpchValue(t.schema().name, c, i, scale));
        }
        t.Insert(row);
      }
      t.RefreshStatistics();
    }
  }
  Catalog& catalog() { return catalog_; }

 private:
  Catalog catalog_;
};

inline BoundStatement BindSql(const std::string& text, const Catalog& catalog,
                              const BindOptions& options = {}) {
  std::vector<sql::StatementPtr> stmts = sql::Parse(text);
  EXPECT_EQ(stmts.size(), 1u) << text;
  return Bind(*stmts.at(0), catalog, options);
}

// The bound (not optimized) plan, printed without estimates.
inline std::string BoundPlan(const std::string& text, const Catalog& catalog) {
  return PlanToString(*BindSql(text, catalog).plan, false);
}

inline LogicalOpPtr OptimizedPlan(const std::string& text, const Catalog& catalog,
                                  const OptimizerOptions& options = {}) {
  return Optimize(BindSql(text, catalog).plan, catalog, options);
}

inline std::string Optimized(const std::string& text, const Catalog& catalog,
                             const OptimizerOptions& options = {}) {
  return PlanToString(*OptimizedPlan(text, catalog, options), false);
}

// Expects `fn` to throw DbError with this SQLSTATE, message and position.
template <typename Fn>
void ExpectDbError(Fn fn, const std::string& state, const std::string& message, int position) {
  try {
    fn();
    ADD_FAILURE() << "expected " << state << " " << message;
  } catch (const DbError& e) {
    EXPECT_EQ(std::string(e.sqlstate()), state) << e.what();
    EXPECT_EQ(std::string(e.what()), message);
    EXPECT_EQ(e.position(), position) << e.what();
  }
}

}  // namespace forktail::bindertest

namespace forktail::bindertest {

// Checks the id discipline of a plan: every expression, key and aggregate
// input refers to a column its operator's input(s) produce; pass-through
// operators list their child's columns. Returns "" or the first problem.
inline std::string CheckPlan(const LogicalOp& op) {
  for (const LogicalOpPtr& c : op.children) {
    if (!c) return std::string(LogicalOpKindName(op.kind)) + ": null child";
    std::string sub = CheckPlan(*c);
    if (!sub.empty()) return sub;
  }
  std::vector<uint32_t> in;
  for (const LogicalOpPtr& c : op.children) {
    for (const LogicalColumn& col : c->columns) in.push_back(col.id);
  }
  if (op.kind == LogicalOpKind::kGet) {
    for (const LogicalColumn& col : op.columns) in.push_back(col.id);
  }
  auto has = [&](uint32_t id) { return std::find(in.begin(), in.end(), id) != in.end(); };
  std::string where = DescribeOp(op);
  std::function<std::string(const Expression&)> expr = [&](const Expression& e) -> std::string {
    if (e.kind == ExprKind::kColumnRef && !has(e.column)) {
      return "unknown column #" + std::to_string(e.column) + " in " + where;
    }
    for (const ExprPtr& c : e.children) {
      if (c) {
        std::string s = expr(*c);
        if (!s.empty()) return s;
      }
    }
    return "";
  };
  for (const ExprPtr& e : op.conditions) {
    std::string s = expr(*e);
    if (!s.empty()) return s;
  }
  for (const ExprPtr& e : op.expressions) {
    std::string s = expr(*e);
    if (!s.empty()) return s;
  }
  if (op.kind == LogicalOpKind::kProject && op.expressions.size() != op.columns.size()) {
    return "project arity in " + where;
  }
  if (op.kind == LogicalOpKind::kJoin) {
    if (op.left_keys.size() != op.right_keys.size()) return "key arity in " + where;
    for (size_t i = 0; i < op.left_keys.size(); i++) {
      if (op.children[0]->FindColumn(op.left_keys[i]) < 0 ||
          op.children[1]->FindColumn(op.right_keys[i]) < 0) {
        return "join key not in its side in " + where;
      }
    }
  }
  for (uint32_t k : op.group_keys) {
    if (!has(k)) return "group key missing in " + where;
  }
  for (const LogicalAggregate& a : op.aggregates) {
    if (a.kind != AggKind::kCountStar && !has(a.input)) return "agg input missing in " + where;
  }
  for (const SortKeyRef& k : op.sort_keys) {
    if (!has(k.column)) return "sort key missing in " + where;
  }
  if (op.kind == LogicalOpKind::kFilter || op.kind == LogicalOpKind::kSort ||
      op.kind == LogicalOpKind::kLimit || op.kind == LogicalOpKind::kDistinct) {
    if (op.columns.size() != op.children[0]->columns.size()) return "columns differ in " + where;
  }
  return "";
}

}  // namespace forktail::bindertest
