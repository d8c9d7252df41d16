// DECIMAL kernels and Value text codecs. Baseline: the same loop over plain
// int64 addition (what a DECIMAL add costs at best: the scaled ints are int64).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "storage/storage.h"

namespace forktail {
namespace {

constexpr size_t kN = 4096;

std::vector<int64_t> RandomInts(int64_t limit, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> v(kN);
  for (auto& x : v) x = std::uniform_int_distribution<int64_t>(-limit, limit)(rng);
  return v;
}

enum class Op { kPlainAdd, kAdd, kMul, kDiv, kRescaleDown };

template <Op op>
void BM_DecimalKernel(benchmark::State& state) {
  auto a = RandomInts(999999999, 1), b = RandomInts(99999, 2);
  for (auto& x : b) x = x == 0 ? 1 : x;
  std::vector<int64_t> out(kN);
  for (auto _ : state) {
    for (size_t i = 0; i < kN; ++i) {
      if constexpr (op == Op::kPlainAdd) out[i] = a[i] + b[i];
      if constexpr (op == Op::kAdd) out[i] = decimal::Add(a[i], 2, b[i], 3, 3);
      if constexpr (op == Op::kMul) out[i] = decimal::Mul(a[i], 2, b[i], 3, 5);
      if constexpr (op == Op::kDiv) out[i] = decimal::Div(a[i], 2, b[i], 3, 6);
      if constexpr (op == Op::kRescaleDown) out[i] = decimal::Rescale(a[i], 3, 1);
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kN);
}
BENCHMARK(BM_DecimalKernel<Op::kPlainAdd>)->Name("Baseline_PlainInt64Add");
BENCHMARK(BM_DecimalKernel<Op::kAdd>)->Name("Decimal_Add");
BENCHMARK(BM_DecimalKernel<Op::kMul>)->Name("Decimal_Mul");
BENCHMARK(BM_DecimalKernel<Op::kDiv>)->Name("Decimal_Div");
BENCHMARK(BM_DecimalKernel<Op::kRescaleDown>)->Name("Decimal_RescaleDown");

void BM_ParseInteger(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(Value::Parse(Type::Integer(), "123456"));
}
BENCHMARK(BM_ParseInteger);

void BM_ParseTimestamp(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(Value::Parse(Type::Timestamp(), "2024-01-02 10:00:00.5"));
  }
}
BENCHMARK(BM_ParseTimestamp);

void BM_FormatDouble(benchmark::State& state) {
  Value v = Value::Double(0.1);
  for (auto _ : state) benchmark::DoNotOptimize(v.ToString());
}
BENCHMARK(BM_FormatDouble);

}  // namespace
}  // namespace forktail

BENCHMARK_MAIN();
