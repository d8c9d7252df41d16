// SQL parser throughput: a multi-row INSERT of growing size (must scale
// linearly: bytes/s stays flat as rows grow), an OLTP point query, and a
// TPC-H style analytical query. Reports bytes/s and statements/s.
//
//   cmake --build build/<you>-rel --target olap_sql_parse_bench
//   build/<you>-rel/bench/olap_sql_parse_bench
#include <benchmark/benchmark.h>

#include <string>

#include "olap/sql.h"

namespace forktail {
namespace {

std::string BigInsert(int rows) {
  std::string sql = "INSERT INTO t (a, b, c, d) VALUES ";
  for (int i = 0; i < rows; ++i) {
    if (i > 0) sql += ",\n";
    sql += "(" + std::to_string(i) + ", 'name " + std::to_string(i) +
           " with some padding text to reach about one hundred bytes per row', " +
           std::to_string(i) + ".5, DATE '2024-01-02')";
  }
  return sql;
}

void BM_ParseInsert(benchmark::State& state) {
  std::string sql = BigInsert(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto stmts = sql::Parse(sql);
    benchmark::DoNotOptimize(stmts);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * sql.size()));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ParseInsert)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_ParsePointQuery(benchmark::State& state) {
  const std::string sql = "SELECT abalance FROM pgbench_accounts WHERE aid = $1";
  for (auto _ : state) {
    auto stmts = sql::Parse(sql);
    benchmark::DoNotOptimize(stmts);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ParsePointQuery);

void BM_ParseTpchQ1(benchmark::State& state) {
  const std::string sql =
      "SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS "
      "sum_base_price, sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price, "
      "sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge, avg(l_quantity) AS "
      "avg_qty, avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc, count(*) AS "
      "count_order FROM lineitem WHERE l_shipdate <= date '1998-12-01' - interval '90' day (3) "
      "GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus";
  for (auto _ : state) {
    auto stmts = sql::Parse(sql);
    benchmark::DoNotOptimize(stmts);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ParseTpchQ1);

}  // namespace
}  // namespace forktail

BENCHMARK_MAIN();
