// WAL micro-benchmarks: the fdatasync baseline, synchronous group commit at 1,
// 4 and 16 submitting threads (with the segment's zeros preallocated ahead of
// the appends, the default, and without: the file grows at every commit, so
// each fdatasync also writes its size), asynchronous commit, and replay
// (reader) speed.
// Files go to $FORKTAIL_BENCH_DIR (default ./wal_bench_data in the working
// directory): put it on the real disk, not on a tmpfs, or fdatasync is free.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "recovery/recovery.h"

namespace forktail::wal {
namespace {

std::string BenchDir(const std::string& name) {
  const char* env = std::getenv("FORKTAIL_BENCH_DIR");
  std::string base = env ? env : "./wal_bench_data";
  std::string dir = base + "/" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Baseline: one small write + one fdatasync per iteration (no group commit).
void BM_RawFdatasync(benchmark::State& state) {
  std::string dir = BenchDir("raw");
  int fd = ::open((dir + "/file").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  char buf[128] = {};
  for (auto _ : state) {
    if (::write(fd, buf, sizeof(buf)) != sizeof(buf) || ::fdatasync(fd) != 0) {
      state.SkipWithError("write/fdatasync failed");
      break;
    }
  }
  ::close(fd);
  state.SetItemsProcessed(state.iterations());
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_RawFdatasync)->UseRealTime()->MinTime(2.0);

LogWriter* g_writer = nullptr;
std::string g_dir;

// Each thread: append a ~100-byte commit record, then wait until it is durable.
void BM_CommitSync(benchmark::State& state) {
  if (state.thread_index() == 0) {
    g_dir = BenchDir("sync");
    std::unique_ptr<LogWriter> w;
    LogWriterOptions o;
    o.synchronous = state.range(0) == 1;
    o.preallocate_bytes = static_cast<uint64_t>(state.range(1)) << 10;
    if (!LogWriter::Open(g_dir, o, &w).ok()) std::abort();
    g_writer = w.release();
  }
  std::string payload(100, 'c');
  for (auto _ : state) {
    Lsn lsn;
    if (!g_writer->Append(RecordType::kCommit, 1, payload, &lsn).ok() ||
        !g_writer->WaitForCommit(lsn).ok()) {
      state.SkipWithError("commit failed");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) {
    LogWriterStats st = g_writer->stats();
    state.counters["syncs"] = static_cast<double>(st.syncs);
    state.counters["records_per_sync"] =
        st.syncs ? static_cast<double>(st.records) / static_cast<double>(st.syncs) : 0;
    state.counters["max_batch"] = static_cast<double>(st.max_batch_records);
    if (!g_writer->Close().ok()) std::abort();
    delete g_writer;
    g_writer = nullptr;
    std::filesystem::remove_all(g_dir);
  }
}
// Args: 1 = synchronous commit, 0 = asynchronous (10 ms window); KiB of zeros
// preallocated at a time (1024, the default; 0: none).
BENCHMARK(BM_CommitSync)
    ->Args({1, 1024})
    ->Args({1, 0})
    ->Threads(1)
    ->Threads(4)
    ->Threads(16)
    ->UseRealTime()
    ->MinTime(2.0);
BENCHMARK(BM_CommitSync)->Args({0, 1024})->Threads(1)->UseRealTime()->MinTime(2.0);

// Replay: read every record of a log of 200,000 records of 100 bytes.
void BM_Replay(benchmark::State& state) {
  std::string dir = BenchDir("replay");
  {
    std::unique_ptr<LogWriter> w;
    LogWriterOptions o;
    o.synchronous = false;
    if (!LogWriter::Open(dir, o, &w).ok()) std::abort();
    std::string payload(100, 'r');
    for (int i = 0; i < 200000; i++) {
      if (!w->Append(RecordType::kInsert, i, payload, nullptr).ok()) std::abort();
    }
    if (!w->Close().ok()) std::abort();
  }
  uint64_t records = 0, bytes = 0;
  for (auto _ : state) {
    std::unique_ptr<LogReader> reader;
    if (!LogReader::Open(PosixLogFileSystem(), dir, 0, &reader).ok()) std::abort();
    LogRecord r;
    while (reader->Next(&r)) {
      records++;
      bytes += RecordSize(r.payload.size());
    }
    if (!reader->status().ok()) std::abort();
  }
  state.SetItemsProcessed(static_cast<int64_t>(records));
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_Replay)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace forktail::wal

BENCHMARK_MAIN();
