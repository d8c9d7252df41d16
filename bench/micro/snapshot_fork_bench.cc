// Snapshot creation cost against resident size, 4 KiB pages vs MADV_HUGEPAGE,
// beside a bare fork() of the same process; the first write to a block after
// a fork; and fork time / scan speed over many snapshot cycles with writes,
// with and without MADV_COLLAPSE of the written blocks once no snapshot
// shares them.
//
//   snapshot_fork_bench                       # 1 GiB only: short
//   snapshot_fork_bench --snapshot_gib=1,4,8 --snapshot_cycles=100
//
// Arguments of the size benchmarks: {GiB, huge (0/1)}.
#include <benchmark/benchmark.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "snapshot/snapshot.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

namespace forktail {
namespace {

constexpr size_t kBlock = 2u << 20;
std::vector<int64_t> g_gib = {1};
int64_t g_cycles = 30;

using Clock = std::chrono::steady_clock;
double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// `gib` GiB of resident 2 MiB blocks, huge-page aligned.
class Region {
 public:
  Region(size_t gib, bool huge) : bytes_(gib << 30) {
    raw_ = static_cast<char*>(mmap(nullptr, bytes_ + kBlock, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
    if (raw_ == MAP_FAILED) std::abort();
    base_ =
        reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(raw_) + kBlock - 1) & ~(kBlock - 1));
    madvise(base_, bytes_, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    for (size_t i = 0; i < bytes_; i += 4096) base_[i] = static_cast<char>(i);
  }
  ~Region() { munmap(raw_, bytes_ + kBlock); }
  char* block(size_t b) { return base_ + b * kBlock; }
  size_t blocks() const { return bytes_ / kBlock; }
  size_t bytes() const { return bytes_; }
  int64_t Scan() const {
    const auto* p = reinterpret_cast<const int64_t*>(base_);
    int64_t sum = 0;
    for (size_t i = 0; i < bytes_ / 8; ++i) sum += p[i];
    return sum;
  }

 private:
  size_t bytes_;
  char* raw_;
  char* base_;
};

uint64_t AnonHugeKib() {
  FILE* f = std::fopen("/proc/self/smaps_rollup", "r");
  char line[256];
  uint64_t kib = 0;
  while (f && std::fgets(line, sizeof(line), f)) {
    if (std::strncmp(line, "AnonHugePages:", 14) == 0) kib = std::strtoull(line + 14, nullptr, 10);
  }
  if (f) std::fclose(f);
  return kib;
}

// A fork point with no transactions: runs the callback at once.
class IdleForkPoint : public ForkPoint {
 public:
  void RunBetweenTransactions(std::function<void(Lsn)> fn) override { fn(1); }
  CommitProgress Committed() const override { return {1, 1}; }
};

void BM_BareFork(benchmark::State& state) {
  Region region(state.range(0), state.range(1) != 0);
  for (auto _ : state) {
    const auto start = Clock::now();
    const pid_t pid = fork();
    if (pid == 0) _exit(0);
    const auto end = Clock::now();
    waitpid(pid, nullptr, 0);
    state.SetIterationTime(std::chrono::duration<double>(end - start).count());
  }
}

void BM_SnapshotCreate(benchmark::State& state) {
  Region region(state.range(0), state.range(1) != 0);
  IdleForkPoint fork_point;
  SnapshotOptions options;
  options.handler = [](const SnapshotContext&, std::string_view, BatchSink& sink) {
    sink.Emit("ok");
  };
  SnapshotManager manager(&fork_point, options);
  double fork_ms = 0;
  for (auto _ : state) {
    const auto start = Clock::now();
    manager.Refresh();  // sockets + fork + child Ready
    const auto end = Clock::now();
    state.SetIterationTime(std::chrono::duration<double>(end - start).count());
    fork_ms += manager.List().back().fork_ms;
    // Let the previous (retired) snapshot exit first, as the bare fork does:
    // a concurrent exit tears down page tables and slows the next fork.
    state.PauseTiming();
    while (manager.List().size() > 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    state.ResumeTiming();
  }
  state.counters["fork_ms"] = fork_ms / static_cast<double>(state.iterations());
}

// Cost of the first write to a block while a snapshot shares it.
void BM_FirstWriteAfterFork(benchmark::State& state) {
  Region region(1, state.range(0) != 0);
  const size_t n = region.blocks();
  double first_ns = 0, second_ns = 0;
  for (auto _ : state) {
    int pipefd[2];
    if (pipe(pipefd) != 0) std::abort();
    const pid_t pid = fork();
    if (pid == 0) {
      char c;
      close(pipefd[1]);
      (void)!read(pipefd[0], &c, 1);
      _exit(0);
    }
    const auto t0 = Clock::now();
    for (size_t b = 0; b < n; ++b) region.block(b)[100] = 1;
    const auto t1 = Clock::now();
    for (size_t b = 0; b < n; ++b) region.block(b)[200] = 2;  // same 4 KiB page
    const auto t2 = Clock::now();
    close(pipefd[1]);
    close(pipefd[0]);
    waitpid(pid, nullptr, 0);
    first_ns += std::chrono::duration<double, std::nano>(t1 - t0).count() / n;
    second_ns += std::chrono::duration<double, std::nano>(t2 - t1).count() / n;
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count() / n);
  }
  state.counters["first_write_us"] = first_ns / 1000 / state.iterations();
  state.counters["second_write_us"] = second_ns / 1000 / state.iterations();
}

// g_cycles snapshot cycles: fork, the "transaction thread" writes one 4 KiB
// page in 1/8 of the blocks, the snapshot ends; optionally MADV_COLLAPSE the
// written blocks (no live snapshot shares them any more).
void BM_ForkCycles(benchmark::State& state) {
  const bool collapse = state.range(1) != 0;
  Region region(state.range(0), true);
  std::mt19937 rng(7);
  double first_fork = 0, last_fork = 0, collapse_ms = 0, scan_gbps = 0;
  uint64_t collapse_failures = 0;
  for (auto _ : state) {
    for (int64_t c = 0; c < g_cycles; ++c) {
      const auto f0 = Clock::now();
      const pid_t pid = fork();
      if (pid == 0) _exit(0);
      const double fork_ms = Ms(Clock::now() - f0);
      if (c == 0) first_fork = fork_ms;
      last_fork = fork_ms;
      std::vector<size_t> written;
      for (size_t b = 0; b < region.blocks() / 8; ++b) {
        const size_t blk = rng() % region.blocks();
        region.block(blk)[(rng() % 512) * 4096] += 1;
        written.push_back(blk);
      }
      waitpid(pid, nullptr, 0);
      if (collapse) {
        const auto c0 = Clock::now();
        for (size_t blk : written) {
          if (madvise(region.block(blk), kBlock, MADV_COLLAPSE) != 0) ++collapse_failures;
        }
        collapse_ms += Ms(Clock::now() - c0);
      }
    }
    const auto s0 = Clock::now();
    benchmark::DoNotOptimize(region.Scan());
    scan_gbps = static_cast<double>(region.bytes()) / 1e9 /
                std::chrono::duration<double>(Clock::now() - s0).count();
    state.SetIterationTime(last_fork / 1000);
  }
  state.counters["first_fork_ms"] = first_fork;
  state.counters["last_fork_ms"] = last_fork;
  state.counters["scan_GBps"] = scan_gbps;
  state.counters["huge_MiB"] = static_cast<double>(AnonHugeKib()) / 1024;
  state.counters["collapse_ms_per_cycle"] = collapse_ms / static_cast<double>(g_cycles);
  state.counters["collapse_failures"] = static_cast<double>(collapse_failures);
}

void SizeArgs(benchmark::internal::Benchmark* b) {
  for (int64_t gib : g_gib) {
    b->Args({gib, 0});
    b->Args({gib, 1});
  }
}

void CycleArgs(benchmark::internal::Benchmark* b) {
  for (int64_t gib : g_gib) {
    b->Args({gib, 0});
    b->Args({gib, 1});
  }
}

std::vector<int64_t> ParseList(const char* s) {
  std::vector<int64_t> out;
  while (*s) {
    char* end;
    out.push_back(std::strtoll(s, &end, 10));
    s = *end == ',' ? end + 1 : end;
    if (end == s && *s) break;
  }
  return out;
}

}  // namespace
}  // namespace forktail

int main(int argc, char** argv) {
  using namespace forktail;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--snapshot_gib=", 15) == 0) {
      g_gib = ParseList(argv[i] + 15);
    } else if (std::strncmp(argv[i], "--snapshot_cycles=", 18) == 0) {
      g_cycles = std::strtoll(argv[i] + 18, nullptr, 10);
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::RegisterBenchmark("BM_BareFork", BM_BareFork)
      ->Apply(SizeArgs)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->Iterations(10);
  benchmark::RegisterBenchmark("BM_SnapshotCreate", BM_SnapshotCreate)
      ->Apply(SizeArgs)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->Iterations(10);
  benchmark::RegisterBenchmark("BM_FirstWriteAfterFork", BM_FirstWriteAfterFork)
      ->Arg(0)
      ->Arg(1)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond)
      ->Iterations(3);
  benchmark::RegisterBenchmark("BM_ForkCycles", BM_ForkCycles)
      ->Apply(CycleArgs)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1);
  benchmark::Initialize(&rest_argc, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
