#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>

#include "tests/recovery/wal_test_util.h"

namespace forktail::wal {
namespace {

using testing::FaultOptions;
using testing::kDataDir;
using testing::Payload;
using testing::ReadAll;
using testing::SegmentPath;

TEST(LogWriter, RoundTripAcrossRolloverAndReopen) {
  FaultInjectionLogFileSystem fs;
  // 1 KiB segments and 100-byte payloads: a new segment every ~7 records.
  std::vector<Lsn> lsns = testing::WriteLog(&fs, 50, 100, 1024);
  std::vector<SegmentInfo> segments;
  ASSERT_TRUE(ListSegments(&fs, kDataDir, &segments).ok());
  EXPECT_GT(segments.size(), 5u);
  for (size_t i = 1; i < lsns.size(); i++) EXPECT_EQ(lsns[i], lsns[i - 1] + RecordSize(100));

  // Reopen continues the LSNs after the last record.
  std::unique_ptr<LogWriter> w;
  ASSERT_TRUE(LogWriter::Open(kDataDir, FaultOptions(&fs, 1024), &w).ok());
  Lsn lsn;
  ASSERT_TRUE(w->Append(RecordType::kCommit, 50, Payload(50, 100), &lsn).ok());
  EXPECT_EQ(lsn, lsns.back() + RecordSize(100));
  ASSERT_TRUE(w->WaitDurable(lsn).ok());
  ASSERT_TRUE(w->Close().ok());

  auto r = ReadAll(&fs);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.records.size(), 51u);
  for (int i = 0; i < 51; i++) {
    EXPECT_EQ(r.records[i].txn, static_cast<TxnId>(i));
    EXPECT_EQ(r.payloads[i], Payload(i, 100));
  }
  EXPECT_EQ(r.end.kind, LogEnd::Kind::kClean);
  EXPECT_EQ(r.end.end_lsn, lsn + RecordSize(100));

  // Reading from a middle LSN skips earlier segments and records.
  auto from = ReadAll(&fs, lsns[20]);
  ASSERT_TRUE(from.status.ok());
  ASSERT_EQ(from.records.size(), 31u);
  EXPECT_EQ(from.records[0].lsn, lsns[20]);
}

TEST(LogWriter, LargeRecordGetsItsOwnSegmentAndOversizedIsRejected) {
  FaultInjectionLogFileSystem fs;
  std::unique_ptr<LogWriter> w;
  ASSERT_TRUE(LogWriter::Open(kDataDir, FaultOptions(&fs, 4096), &w).ok());
  std::string big(100000, 'x');
  Lsn a, b;
  ASSERT_TRUE(w->Append(RecordType::kBulkInsert, 1, big, &a).ok());
  ASSERT_TRUE(w->Append(RecordType::kCommit, 1, "c", &b).ok());
  std::string huge(kMaxPayloadSize + 1, 'y');
  Status s = w->Append(RecordType::kBulkInsert, 2, huge, nullptr);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("exceeds the maximum"), std::string::npos) << s.message();
  ASSERT_TRUE(w->WaitDurable(b).ok());
  ASSERT_TRUE(w->Close().ok());
  auto r = ReadAll(&fs);
  ASSERT_TRUE(r.status.ok());
  ASSERT_EQ(r.records.size(), 2u);
  EXPECT_EQ(r.payloads[0], big);
}

// 16 threads x 500 commits: each WaitDurable returns only after an fdatasync
// that covered the record (checked against the seam's synced watermark).
TEST(LogWriter, GroupCommitManySubmitters) {
  FaultInjectionLogFileSystem fs;
  std::unique_ptr<LogWriter> w;
  ASSERT_TRUE(LogWriter::Open(kDataDir, FaultOptions(&fs, uint64_t{64} << 20), &w).ok());
  constexpr int kThreads = 16, kCommits = 500;
  std::atomic<int> violations{0}, errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      std::string payload(100, static_cast<char>('A' + t));
      for (int i = 0; i < kCommits; i++) {
        Lsn lsn;
        if (!w->Append(RecordType::kCommit, static_cast<TxnId>(t * kCommits + i), payload, &lsn)
                 .ok() ||
            !w->WaitDurable(lsn).ok()) {
          errors++;
          continue;
        }
        uint64_t synced = fs.SyncedSize(SegmentPath(0));
        if (synced < kSegmentHeaderSize + lsn + RecordSize(100)) violations++;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(violations.load(), 0);
  LogWriterStats st = w->stats();
  EXPECT_EQ(st.records, uint64_t{kThreads * kCommits});
  EXPECT_LE(st.syncs, st.records);
  EXPECT_GE(st.max_batch_records, 1u);
  ASSERT_TRUE(w->Close().ok());
  auto r = ReadAll(&fs);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.records.size(), size_t{kThreads * kCommits});
}

TEST(LogWriter, CallbacksFireWhenDurable) {
  FaultInjectionLogFileSystem fs;
  std::unique_ptr<LogWriter> w;
  ASSERT_TRUE(LogWriter::Open(kDataDir, FaultOptions(&fs, 1 << 20), &w).ok());
  std::atomic<int> fired{0};
  for (int i = 0; i < 20; i++) {
    Lsn lsn;
    ASSERT_TRUE(w->Append(RecordType::kCommit, i, "x", &lsn).ok());
    w->OnDurable(lsn, [&, lsn](const Status& s) {
      EXPECT_TRUE(s.ok());
      EXPECT_GE(fs.SyncedSize(SegmentPath(0)), kSegmentHeaderSize + lsn + RecordSize(1));
      fired++;
    });
  }
  ASSERT_TRUE(w->Flush().ok());
  // Callbacks run on the writer thread right after the sync; Close() joins it.
  ASSERT_TRUE(w->Close().ok());
  EXPECT_EQ(fired.load(), 20);
}

// Async mode: commits are acknowledged at once; the writer syncs by itself
// within the interval; a crash loses only what was not yet synced.
TEST(LogWriter, AsyncModeBoundsTheWindow) {
  FaultInjectionLogFileSystem fs;
  LogWriterOptions o = FaultOptions(&fs, 1 << 20);
  o.synchronous = false;
  o.async_flush_interval = std::chrono::milliseconds(5);
  std::unique_ptr<LogWriter> w;
  ASSERT_TRUE(LogWriter::Open(kDataDir, o, &w).ok());
  Lsn lsn = 0;
  for (int i = 0; i < 100; i++) {
    ASSERT_TRUE(w->Append(RecordType::kCommit, i, "async", &lsn).ok());
    ASSERT_TRUE(w->WaitForCommit(lsn).ok());
  }
  // Without anyone waiting, the periodic sync makes everything durable.
  for (int spins = 0; w->stats().durable_lsn <= lsn && spins < 2000; spins++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_GT(w->stats().durable_lsn, lsn);
  ASSERT_TRUE(w->Close().ok());
  fs.SimulateCrash();
  auto r = ReadAll(&fs);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.records.size(), 100u);
}

TEST(LogWriter, AsyncWaitDurableForcesSync) {
  FaultInjectionLogFileSystem fs;
  LogWriterOptions o = FaultOptions(&fs, 1 << 20);
  o.synchronous = false;
  o.async_flush_interval = std::chrono::hours(1);
  o.async_max_unsynced_bytes = uint64_t{1} << 40;
  std::unique_ptr<LogWriter> w;
  ASSERT_TRUE(LogWriter::Open(kDataDir, o, &w).ok());
  Lsn lsn;
  ASSERT_TRUE(w->Append(RecordType::kCommit, 1, "x", &lsn).ok());
  ASSERT_TRUE(w->WaitDurable(lsn).ok());
  EXPECT_GE(fs.SyncedSize(SegmentPath(0)), kSegmentHeaderSize + RecordSize(1));
  ASSERT_TRUE(w->Close().ok());
}

// A failed fdatasync is sticky: acknowledged data stays readable, waiting and
// later commits get an error naming fdatasync, the segment and errno.
TEST(LogWriter, FdatasyncFailureIsSticky) {
  FaultInjectionLogFileSystem fs;
  std::unique_ptr<LogWriter> w;
  ASSERT_TRUE(LogWriter::Open(kDataDir, FaultOptions(&fs, 1 << 20), &w).ok());
  Lsn acked;
  ASSERT_TRUE(w->Append(RecordType::kCommit, 1, "acked", &acked).ok());
  ASSERT_TRUE(w->WaitDurable(acked).ok());
  fs.FailSyncAt(1);
  Lsn lost;
  ASSERT_TRUE(w->Append(RecordType::kCommit, 2, "lost", &lost).ok());
  Status s = w->WaitDurable(lost);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "fdatasync of wal/0000000000000000.wal failed: Input/output error; the database "
            "refuses writes");
  EXPECT_TRUE(w->WaitDurable(acked).ok());  // durable before the failure
  Status later = w->Append(RecordType::kCommit, 3, "later", nullptr);
  EXPECT_EQ(later.message(), s.message());
  Status cb;
  w->OnDurable(lost, [&](const Status& st) { cb = st; });
  EXPECT_FALSE(cb.ok());
  EXPECT_FALSE(w->health().ok());
  EXPECT_FALSE(w->Close().ok());
  fs.SimulateCrash();
  auto r = ReadAll(&fs);
  ASSERT_TRUE(r.status.ok());
  ASSERT_GE(r.records.size(), 1u);
  EXPECT_EQ(r.payloads[0], "acked");
}

TEST(LogWriter, NoSpaceOnWrite) {
  FaultInjectionLogFileSystem fs;
  std::unique_ptr<LogWriter> w;
  ASSERT_TRUE(LogWriter::Open(kDataDir, FaultOptions(&fs, 1 << 20), &w).ok());
  Lsn acked;
  ASSERT_TRUE(w->Append(RecordType::kCommit, 1, "acked", &acked).ok());
  ASSERT_TRUE(w->WaitDurable(acked).ok());
  fs.FailWritesWithNoSpace(true);
  Lsn lsn;
  ASSERT_TRUE(w->Append(RecordType::kCommit, 2, "no room", &lsn).ok());
  Status s = w->WaitDurable(lsn);
  EXPECT_EQ(s.code(), Status::Code::kNoSpace);
  EXPECT_EQ(s.message(),
            "write of wal/0000000000000000.wal failed: No space left on device; the database "
            "refuses writes");
  EXPECT_EQ(w->Append(RecordType::kCommit, 3, "x", nullptr).code(), Status::Code::kNoSpace);
  EXPECT_FALSE(w->Close().ok());
  fs.FailWritesWithNoSpace(false);
  auto r = ReadAll(&fs);
  ASSERT_TRUE(r.status.ok());
  ASSERT_EQ(r.records.size(), 1u);
}

// A write torn by a crash is cut on reopen and the log continues after it.
TEST(LogWriter, TornWriteIsCutOnReopen) {
  FaultInjectionLogFileSystem fs;
  std::unique_ptr<LogWriter> w;
  ASSERT_TRUE(LogWriter::Open(kDataDir, FaultOptions(&fs, 1 << 20), &w).ok());
  Lsn acked;
  ASSERT_TRUE(w->Append(RecordType::kCommit, 1, "acked", &acked).ok());
  ASSERT_TRUE(w->WaitDurable(acked).ok());
  fs.TearNextWrite(10);
  Lsn torn;
  ASSERT_TRUE(w->Append(RecordType::kCommit, 2, "torn record", &torn).ok());
  EXPECT_FALSE(w->WaitDurable(torn).ok());
  EXPECT_FALSE(w->Close().ok());
  w.reset();
  std::unique_ptr<LogWriter> w2;
  ASSERT_TRUE(LogWriter::Open(kDataDir, FaultOptions(&fs, 1 << 20), &w2).ok());
  Lsn next;
  ASSERT_TRUE(w2->Append(RecordType::kCommit, 3, "after", &next).ok());
  EXPECT_EQ(next, torn);
  ASSERT_TRUE(w2->Close().ok());
  auto r = ReadAll(&fs);
  ASSERT_TRUE(r.status.ok());
  ASSERT_EQ(r.records.size(), 2u);
  EXPECT_EQ(r.payloads[1], "after");
}

// Small appends overwrite zeros written ahead of them; Close() cuts the rest.
TEST(LogWriter, PreallocatedZerosAreOverwrittenAndCutAtClose) {
  FaultInjectionLogFileSystem fs;
  std::unique_ptr<LogWriter> w;
  ASSERT_TRUE(LogWriter::Open(kDataDir, FaultOptions(&fs, 1 << 20, 4096), &w).ok());
  Lsn lsn = 0;
  for (int i = 0; i < 100; i++) {
    ASSERT_TRUE(w->Append(RecordType::kCommit, i, Payload(i, 50), &lsn).ok());
    ASSERT_TRUE(w->WaitDurable(lsn).ok());
  }
  const uint64_t records_end = kSegmentHeaderSize + lsn + RecordSize(50);
  const std::string open_image = fs.Contents(SegmentPath(0));
  EXPECT_GT(open_image.size(), records_end);
  EXPECT_LE(open_image.size(), records_end + 4096);
  EXPECT_EQ(open_image.find_first_not_of('\0', records_end), std::string::npos);
  auto r = ReadAll(&fs);  // what a reader sees while the writer is open
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.records.size(), 100u);
  EXPECT_EQ(r.end.kind, LogEnd::Kind::kClean);
  EXPECT_EQ(r.end.preallocated, open_image.size() - records_end);
  ASSERT_TRUE(w->Close().ok());
  EXPECT_EQ(fs.Contents(SegmentPath(0)).size(), records_end);
  EXPECT_EQ(fs.SyncedSize(SegmentPath(0)), records_end);
}

// A crash leaves the zeros (kill -9 never reaches Close): the log still ends
// cleanly at the last record, and a reopened writer cuts them and goes on.
TEST(LogWriter, ZerosLeftByACrashAreCutOnReopen) {
  FaultInjectionLogFileSystem fs;
  std::unique_ptr<LogWriter> w;
  ASSERT_TRUE(LogWriter::Open(kDataDir, FaultOptions(&fs, 1 << 20, 4096), &w).ok());
  Lsn acked;
  ASSERT_TRUE(w->Append(RecordType::kCommit, 1, "acked", &acked).ok());
  ASSERT_TRUE(w->WaitDurable(acked).ok());
  const std::string crashed = fs.Contents(SegmentPath(0));
  ASSERT_GT(crashed.size(), kSegmentHeaderSize + RecordSize(5));
  ASSERT_TRUE(w->Close().ok());
  w.reset();
  fs.SetContents(SegmentPath(0), crashed);
  auto r = ReadAll(&fs);
  ASSERT_TRUE(r.status.ok());
  ASSERT_EQ(r.records.size(), 1u);
  EXPECT_EQ(r.end.kind, LogEnd::Kind::kClean);
  EXPECT_GT(r.end.preallocated, 0u);

  ASSERT_TRUE(LogWriter::Open(kDataDir, FaultOptions(&fs, 1 << 20, 4096), &w).ok());
  Lsn next;
  ASSERT_TRUE(w->Append(RecordType::kCommit, 2, "after", &next).ok());
  EXPECT_EQ(next, acked + RecordSize(5));
  ASSERT_TRUE(w->Close().ok());
  auto again = ReadAll(&fs);
  ASSERT_TRUE(again.status.ok());
  ASSERT_EQ(again.records.size(), 2u);
  EXPECT_EQ(again.payloads[1], "after");
  EXPECT_EQ(again.end.preallocated, 0u);
}

// A finished segment ends at its last record (zeros there would be
// corruption: later segments follow), so a reader of the live log succeeds.
TEST(LogWriter, RolloverCutsThePreallocatedZeros) {
  FaultInjectionLogFileSystem fs;
  std::unique_ptr<LogWriter> w;
  ASSERT_TRUE(LogWriter::Open(kDataDir, FaultOptions(&fs, 2048, 512), &w).ok());
  for (int i = 0; i < 60; i++) {
    Lsn lsn;
    ASSERT_TRUE(w->Append(RecordType::kInsert, i, Payload(i, 100), &lsn).ok());
    ASSERT_TRUE(w->WaitDurable(lsn).ok());
  }
  std::vector<SegmentInfo> segments;
  ASSERT_TRUE(ListSegments(&fs, kDataDir, &segments).ok());
  EXPECT_GT(segments.size(), 3u);
  auto r = ReadAll(&fs);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.records.size(), 60u);
  ASSERT_TRUE(w->Close().ok());
}

// On a full disk the records go into the zeros written ahead of them; once
// those are used up the zeros cannot be extended (best effort, no failure)
// and then an append needs room and fails with ENOSPC. Every acknowledged
// record survives a crash.
TEST(LogWriter, AFullDiskFailsOnceThePreallocatedZerosAreUsedUp) {
  FaultInjectionLogFileSystem fs;
  std::unique_ptr<LogWriter> w;
  ASSERT_TRUE(LogWriter::Open(kDataDir, FaultOptions(&fs, 1 << 20, 4096), &w).ok());
  Lsn lsn;
  ASSERT_TRUE(w->Append(RecordType::kCommit, 0, Payload(0, 100), &lsn).ok());
  ASSERT_TRUE(w->WaitDurable(lsn).ok());
  fs.SetCapacity(fs.TotalBytes());  // the disk is full now
  std::vector<std::string> acked{Payload(0, 100)};
  Status s;
  for (int i = 1; i < 200 && s.ok(); i++) {
    s = w->Append(RecordType::kCommit, i, Payload(i, 100), &lsn);
    if (s.ok()) s = w->WaitDurable(lsn);
    if (s.ok()) acked.push_back(Payload(i, 100));
  }
  EXPECT_EQ(s.code(), Status::Code::kNoSpace) << s.ToString();
  EXPECT_GT(acked.size(), 20u);  // ~4 KiB of zeros held 30 records of 132 bytes
  EXPECT_LT(acked.size(), 40u);
  w->Close().PermitUnchecked();
  w.reset();
  fs.SimulateCrash();
  fs.SetCapacity(UINT64_MAX);
  auto r = ReadAll(&fs);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.payloads, acked);
  ASSERT_TRUE(LogWriter::Open(kDataDir, FaultOptions(&fs, 1 << 20, 4096), &w).ok());
  ASSERT_TRUE(w->Append(RecordType::kCommit, 1000, "room again", &lsn).ok());
  ASSERT_TRUE(w->Close().ok());
  EXPECT_EQ(ReadAll(&fs).payloads.back(), "room again");
}

// A write of at least a step (a bulk load's) gets no zeros after it: they
// would double what the load writes.
TEST(LogWriter, LargeWritesAreNotPreallocated) {
  FaultInjectionLogFileSystem fs;
  std::unique_ptr<LogWriter> w;
  ASSERT_TRUE(LogWriter::Open(kDataDir, FaultOptions(&fs, 1 << 20, 4096), &w).ok());
  Lsn lsn;
  ASSERT_TRUE(w->Append(RecordType::kBulkInsert, 1, std::string(10000, 'b'), &lsn).ok());
  ASSERT_TRUE(w->WaitDurable(lsn).ok());
  EXPECT_EQ(fs.Contents(SegmentPath(0)).size(), kSegmentHeaderSize + RecordSize(10000));
  ASSERT_TRUE(w->Close().ok());
}

// The kernel marks a MADV_DONTFORK mapping with VmFlag "dc" in /proc/self/smaps.
bool MappingHasVmFlag(const void* addr, const std::string& flag) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  auto a = reinterpret_cast<uintptr_t>(addr);
  while (std::getline(smaps, line)) {
    unsigned long lo, hi;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > 8) {
      inside = a >= lo && a < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return (line + " ").find(" " + flag + " ") != std::string::npos;
    }
  }
  return false;
}

TEST(LogWriter, BuffersAreDontFork) {
  LogBuffer b(true);
  char* p = b.Extend(100);
  std::memset(p, 1, 100);
  EXPECT_TRUE(MappingHasVmFlag(b.data(), "dc"));
  b.Extend(5 << 20);  // growth keeps the contents and the advice
  EXPECT_EQ(b.data()[99], 1);
  EXPECT_TRUE(MappingHasVmFlag(b.data(), "dc"));
  LogBuffer plain(false);
  plain.Extend(10);
  EXPECT_FALSE(MappingHasVmFlag(plain.data(), "dc"));
}

}  // namespace
}  // namespace forktail::wal
