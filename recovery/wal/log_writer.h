// LogWriter: appending to the write-ahead log with group commit.
//
// Submitters (normally the one transaction thread; any number of threads is
// safe) call Append(), which encodes the records into an in-memory buffer under
// a mutex, assigns their LSNs and returns at once. A dedicated log-writer thread
// takes everything pending as one batch, writes it with one write per segment
// touched and makes it durable with one fdatasync, then wakes every waiter and
// fires every callback the sync covered: while one fdatasync runs, the next
// batch accumulates, so commit throughput grows with the number of concurrent
// committers (group commit).
//
// Durability contract:
//  - WaitDurable(lsn) returns Ok only after an fdatasync that covers the whole
//    record at `lsn` returned success (in either mode; in async mode it asks the
//    writer to sync now);
//  - WaitForCommit(lsn) is how a commit is acknowledged: synchronous mode =
//    WaitDurable; asynchronous mode returns at once, and the writer syncs at
//    least every async_flush_interval or async_max_unsynced_bytes, so a power
//    failure loses at most about that much acknowledged work (docs/wal.md);
//  - a write or fdatasync error is NEVER retried: the writer becomes failed for
//    good. Every waiting and every later call returns the error, which names the
//    operation, the segment and errno and says that the database refuses writes.
//    Records made durable before the failure stay durable and readable;
//  - Close() (and the destructor) writes and syncs everything appended.
//
// Segments: the writer rolls over to a new segment when the next record would
// take the current one past segment_size (a record larger than that gets a
// segment of its own). It fdatasyncs a segment completely before writing to the
// next one: the reader's torn-tail rule (log_reader.h) depends on this.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "recovery/wal/log_buffer.h"
#include "recovery/wal/log_file.h"
#include "recovery/wal/wal_format.h"

namespace forktail::wal {

struct LogWriterOptions {
  // Where files go; nullptr = the real POSIX file system. Tests pass a
  // FaultInjectionLogFileSystem.
  LogFileSystem* file_system = nullptr;

  // Target size of a segment file, header included. Default 64 MiB. Tests use
  // a few KiB to exercise rollover.
  uint64_t segment_size = uint64_t{64} << 20;

  // true (default): WaitForCommit returns after the commit record is durable.
  // false: asynchronous commit, see async_flush_interval.
  bool synchronous = true;

  // Asynchronous mode: the longest time written data stays unsynced. Default 10 ms.
  std::chrono::microseconds async_flush_interval = std::chrono::milliseconds(10);

  // Asynchronous mode: sync as soon as this many bytes are unsynced. Default 1 MiB.
  uint64_t async_max_unsynced_bytes = uint64_t{1} << 20;

  // Append() blocks while more than this many bytes wait for the writer thread
  // (back-pressure when the disk is slower than the submitters). Default 32 MiB.
  uint64_t max_pending_bytes = uint64_t{32} << 20;

  // Allocate the writer's buffers with madvise(MADV_DONTFORK) so that fork()
  // snapshots neither copy nor map them. Default true.
  bool dont_fork_buffers = true;

  // On Open, cut a torn tail (log_reader.h) instead of failing. Default true.
  bool truncate_torn_tail = true;

  // Zeros written ahead of small appends, this many bytes at a time
  // (LogFile::Preallocate): a commit's fdatasync then writes the data and no
  // file size. 0: none. Default 1 MiB. Cut again at a segment's end and at
  // Close(); after a crash the reader sees them as a clean end.
  uint64_t preallocate_bytes = uint64_t{1} << 20;
};

// One record to append; the payload is copied during Append().
struct RecordInput {
  RecordType type = RecordType::kTest;
  TxnId txn = 0;
  std::string_view payload;
};

struct LogWriterStats {
  uint64_t appends = 0;  // Append() calls that succeeded
  uint64_t records = 0;
  uint64_t bytes = 0;    // record bytes (headers + payloads)
  uint64_t syncs = 0;    // fdatasync calls on segments
  uint64_t batches = 0;  // buffers taken and written by the writer thread
  uint64_t max_batch_records = 0;
  uint64_t max_batch_bytes = 0;
  uint64_t segments_created = 0;
  Lsn next_lsn = 0;     // where the next record goes
  Lsn durable_lsn = 0;  // every record ending at or before this is durable
};

class LogWriter {
 public:
  // Opens (creating data_dir/wal and the first segment if needed) and starts
  // the writer thread. An existing log continues after its last valid record;
  // a torn tail is cut first (truncate_torn_tail); corruption is returned.
  static Status Open(const std::string& data_dir, const LogWriterOptions& options,
                     std::unique_ptr<LogWriter>* writer);
  ~LogWriter();
  LogWriter(const LogWriter&) = delete;
  LogWriter& operator=(const LogWriter&) = delete;

  // Appends the records contiguously and in order; lsns (optional) receives
  // each record's LSN. InvalidArgument for a payload above kMaxPayloadSize.
  Status Append(std::span<const RecordInput> records, std::vector<Lsn>* lsns);
  Status Append(RecordType type, TxnId txn, std::string_view payload, Lsn* lsn);

  Status WaitDurable(Lsn lsn);
  Status WaitForCommit(Lsn lsn);
  // Calls `done` (on the writer thread, or at once if already decided) when the
  // record at `lsn` is durable (Ok) or the log failed before it was (the error).
  // Keep callbacks short: the writer thread runs them, after waking WaitDurable
  // callers, so a WaitDurable may return before the callback of the same sync ran.
  void OnDurable(Lsn lsn, std::function<void(const Status&)> done);
  // Makes everything appended so far durable.
  Status Flush();
  // Flushes, stops the writer thread and closes the segment. Idempotent.
  Status Close();

  // Ok, or the sticky error after a failed write or fdatasync.
  Status health() const;
  // Lock-free: whether health() is an error (set before the failed commits'
  // callbacks run, so whoever was told "failed" sees it).
  bool failed() const { return failed_flag_.load(std::memory_order_acquire); }
  LogWriterStats stats() const;
  const std::string& data_dir() const { return data_dir_; }

 private:
  LogWriter(std::string data_dir, const LogWriterOptions& options, LogFileSystem* fs);
  Status Start(Lsn end_lsn, bool need_new_segment);
  Status CreateSegment(Lsn first_lsn);
  Status WriteBatch(Lsn start);
  // After an append that ends at file offset written_end: zeros ahead.
  Status PreallocateAfter(uint64_t written_end, uint64_t written);
  // Truncates the active segment's preallocated zeros.
  Status CutPreallocated();
  void WriterLoop();
  bool AsyncSyncDue() const;
  void Fail(std::unique_lock<std::mutex>& l, const Status& s);
  void RunCallbacks(std::unique_lock<std::mutex>& l);

  const std::string data_dir_;
  const LogWriterOptions options_;
  LogFileSystem* const fs_;

  // Writer-thread state (no lock): the active segment.
  std::unique_ptr<LogFile> file_;
  Lsn segment_first_lsn_ = 0;
  uint64_t allocated_ = 0;  // the active segment's length, preallocated zeros included
  LogBuffer writing_;
  uint64_t rollover_syncs_ = 0;
  uint64_t segments_created_ = 0;

  mutable std::mutex mu_;
  std::condition_variable writer_cv_;   // wakes the writer thread
  std::condition_variable durable_cv_;  // wakes WaitDurable callers
  std::condition_variable space_cv_;    // wakes submitters blocked by back-pressure
  LogBuffer pending_;                   // records not yet taken by the writer
  uint64_t pending_records_ = 0;
  Lsn next_lsn_ = 0;
  Lsn written_lsn_ = 0;  // end of what the writer has written (not necessarily synced)
  Lsn durable_lsn_ = 0;
  bool sync_requested_ = false;
  bool stop_ = false;
  bool closed_ = false;
  Status failed_;
  std::atomic<bool> failed_flag_{false};
  // durable_lsn_, stored after it (under mu_): WaitDurable's answer without
  // the lock when the record is already durable (most reads' case).
  std::atomic<Lsn> durable_lsn_published_{0};
  std::chrono::steady_clock::time_point last_sync_;
  std::multimap<Lsn, std::function<void(const Status&)>> callbacks_;
  LogWriterStats stats_;
  std::thread thread_;
};

}  // namespace forktail::wal
