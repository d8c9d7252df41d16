// Helpers for the physical operator differential tests: random tables
// (through the physical::* storage helpers, since a test cannot include
// storage/table/table.h next to the scheduler), plan execution under the real
// Scheduler (immediate, 1 worker, 2 workers), and row renderings that make
// results comparable as multisets.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "olap/execution/physical.h"
#include "scheduler/scheduler.h"
#include "storage/error.h"

namespace forktail::ptest {

// Renders a value so that equal SQL values render alike across types
// (doubles to 9 significant digits, -0 as 0).
inline std::string Show(const Value& v) {
  if (v.is_null()) return "NULL";
  switch (v.type().id) {
    case TypeId::kDouble: {
      char buf[64];
      snprintf(buf, sizeof buf, "%.9g", v.GetDouble() == 0 ? 0.0 : v.GetDouble());
      return buf;
    }
    case TypeId::kChar:
    case TypeId::kVarchar:
    case TypeId::kText:
      return "'" + std::string(v.GetString()) + "'";
    case TypeId::kDecimal:
      return v.ToString();
    default:
      return std::to_string(v.GetInt());
  }
}

inline std::string ShowRow(const Row& r) {
  std::string s;
  for (const Value& v : r) s += Show(v) + "|";
  return s;
}

inline std::multiset<std::string> Bag(const std::vector<Row>& rows) {
  std::multiset<std::string> out;
  for (const Row& r : rows) out.insert(ShowRow(r));
  return out;
}

// The test table: 0 a INTEGER (skewed, domain `domain`), 1 b BIGINT,
// 2 c TEXT (few distinct), 3 d DOUBLE, 4 e DECIMAL(12,2). NULLs everywhere
// but in a when null_keys is false.
inline TableSchema TestSchema(const std::string& name) {
  return {name,
          {{"a", Type::Integer()},
           {"b", Type::BigInt()},
           {"c", Type::Text()},
           {"d", Type::Double()},
           {"e", Type::Decimal(12, 2)}},
          {}};
}

inline std::vector<Row> RandomRows(size_t n, uint64_t seed, int64_t domain, double skew,
                                   bool null_keys = true) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  auto pick = [&](int64_t d) {
    // Skewed: a power of a uniform draw piles mass on small values.
    double x = skew > 0 ? std::pow(u(rng), 1 + skew * 3) : u(rng);
    return std::min<int64_t>(d - 1, static_cast<int64_t>(x * d));
  };
  std::vector<Row> rows;
  for (size_t i = 0; i < n; ++i) {
    Row r;
    r.push_back(null_keys && u(rng) < 0.05 ? Value::Null(Type::Integer())
                                           : Value::Integer(static_cast<int32_t>(pick(domain))));
    r.push_back(u(rng) < 0.1 ? Value::Null(Type::BigInt()) : Value::BigInt(pick(1000) - 300));
    r.push_back(u(rng) < 0.1 ? Value::Null(Type::Text())
                             : Value::Text("s" + std::to_string(pick(7)) +
                                           (u(rng) < 0.3 ? "_long_string_tail" : "")));
    r.push_back(u(rng) < 0.1 ? Value::Null(Type::Double()) : Value::Double((pick(200) - 50) / 4.0));
    r.push_back(u(rng) < 0.1 ? Value::Null(Type::Decimal(12, 2))
                             : Value::Decimal(pick(100000) - 20000, 12, 2));
    rows.push_back(std::move(r));
  }
  return rows;
}

struct TestTable {
  std::shared_ptr<Table> table;
  std::vector<Row> live;  // the reference's input, read back row by row
};

// n rows, blocks of at most max_rows rows; every 7th row deleted if `deletes`.
inline TestTable MakeTable(const std::string& name, size_t n, uint64_t seed, int64_t domain,
                           double skew, uint32_t max_rows, bool deletes = true,
                           bool null_keys = true) {
  TestTable t;
  t.table = physical::CreateTable(TestSchema(name), max_rows);
  physical::InsertRows(*t.table, RandomRows(n, seed, domain, skew, null_keys));
  if (deletes) {
    size_t k = 0;
    physical::DeleteRows(*t.table, [&](const Row&) { return k++ % 7 == 3; });
  }
  t.live = physical::ReadLiveRows(*t.table);
  return t;
}

enum class Mode { kImmediate, kOneWorker, kTwoWorkers };
inline const char* ModeName(Mode m) {
  return m == Mode::kImmediate ? "immediate" : m == Mode::kOneWorker ? "1 worker" : "2 workers";
}
inline constexpr Mode kModes[] = {Mode::kImmediate, Mode::kOneWorker, Mode::kTwoWorkers};

// Builds a plan with `make` (parallelism = the mode's workers), runs it under
// a real Scheduler and returns the sink's rows. Rethrows the query's error.
inline std::vector<Row> Run(Mode mode,
                            const std::function<std::shared_ptr<ResultRows>(PlanBuilder&)>& make) {
  SchedulerOptions options;
  options.immediate = mode == Mode::kImmediate;
  options.num_workers = mode == Mode::kTwoWorkers ? 2 : 1;
  options.pin_workers = false;
  Scheduler scheduler(options);
  PlanBuilder builder(static_cast<int>(options.num_workers));
  std::shared_ptr<ResultRows> result = make(builder);
  scheduler.Submit(builder.Build(), 1, size_t{256} << 20).Wait();
  return result->rows;
}

// Like Run, for plans built operator by operator (options PlanBuilder does
// not offer): `make` adds operators and edges to the plan and returns the
// sink's rows object.
inline std::vector<Row> RunPlan(
    Mode mode, const std::function<std::shared_ptr<ResultRows>(QueryPlan&, int)>& make,
    size_t memory = size_t{256} << 20) {
  SchedulerOptions options;
  options.immediate = mode == Mode::kImmediate;
  options.num_workers = mode == Mode::kTwoWorkers ? 2 : 1;
  options.pin_workers = false;
  Scheduler scheduler(options);
  auto plan = std::make_unique<QueryPlan>();
  std::shared_ptr<ResultRows> result = make(*plan, static_cast<int>(options.num_workers));
  scheduler.Submit(std::move(plan), 1, memory).Wait();
  return result->rows;
}

// Expression shorthands over the test schema's column types.
inline ExprPtr Col(uint32_t c, const Type& t) { return ColumnRef(c, t); }
inline ExprPtr A(uint32_t c = 0) { return ColumnRef(c, Type::Integer()); }
inline ExprPtr B(uint32_t c = 1) { return ColumnRef(c, Type::BigInt()); }
inline ExprPtr C(uint32_t c = 2) { return ColumnRef(c, Type::Text()); }
inline ExprPtr D(uint32_t c = 3) { return ColumnRef(c, Type::Double()); }

}  // namespace forktail::ptest
