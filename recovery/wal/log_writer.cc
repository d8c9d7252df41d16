#include "recovery/wal/log_writer.h"

#include <fmt/format.h>

#include <cstring>

#include "recovery/wal/log_reader.h"
#include "recovery/wal/wal_segments.h"

namespace forktail::wal {
namespace {

Status Sticky(const Status& s) {
  std::string m = s.message() + "; the database refuses writes";
  if (s.code() == Status::Code::kNoSpace) return Status::NoSpace(m);
  return Status::IoError(m);
}

uint32_t StoredLength(const char* record) {
  uint32_t v;
  std::memcpy(&v, record + offsets::kLength, 4);
  return v;
}

}  // namespace

LogWriter::LogWriter(std::string data_dir, const LogWriterOptions& options, LogFileSystem* fs)
    : data_dir_(std::move(data_dir)),
      options_(options),
      fs_(fs),
      writing_(options.dont_fork_buffers),
      pending_(options.dont_fork_buffers) {}

Status LogWriter::Open(const std::string& data_dir, const LogWriterOptions& options,
                       std::unique_ptr<LogWriter>* writer) {
  LogFileSystem* fs = options.file_system ? options.file_system : PosixLogFileSystem();
  if (options.segment_size <= kSegmentHeaderSize + kRecordHeaderSize) {
    return Status::InvalidArgument("WAL segment_size is too small");
  }
  Status s = fs->CreateDirIfMissing(data_dir);
  bool fresh = !fs->DirExists(WalDir(data_dir));
  if (s.ok()) s = fs->CreateDirIfMissing(WalDir(data_dir));
  if (s.ok() && fresh) s = fs->SyncDir(data_dir);  // make the new wal/ entry durable
  if (!s.ok()) return s;
  std::vector<SegmentInfo> segments;
  s = ListSegments(fs, data_dir, &segments);
  if (!s.ok()) return s;
  std::unique_ptr<LogWriter> w(new LogWriter(data_dir, options, fs));
  if (segments.empty()) {
    s = w->Start(0, true);
  } else {
    // Only the last segment matters for appending; replay checks the rest.
    std::unique_ptr<LogReader> reader;
    s = LogReader::Open(fs, data_dir, segments.back().first_lsn, &reader);
    if (!s.ok()) return s;
    LogRecord r;
    while (reader->Next(&r)) {
    }
    if (!reader->status().ok()) return reader->status();
    LogEnd end = reader->end();
    if (end.kind == LogEnd::Kind::kTornTail && !options.truncate_torn_tail) {
      return Status::Corruption("the WAL has a " + end.ToString() + "; cut it before appending");
    }
    // A torn tail, or zeros preallocated before a crash: appends continue at
    // the end of the last record.
    s = TruncateTail(fs, end);
    if (!s.ok()) return s;
    w->segment_first_lsn_ = segments.back().first_lsn;
    s = w->Start(end.end_lsn, end.remove_segment);
  }
  if (!s.ok()) return s;
  *writer = std::move(w);
  return Status::Ok();
}

Status LogWriter::Start(Lsn end_lsn, bool need_new_segment) {
  Status s;
  if (need_new_segment) {
    s = CreateSegment(end_lsn);
  } else {
    s = fs_->OpenForAppend(WalDir(data_dir_) + "/" + SegmentFileName(segment_first_lsn_), &file_);
    if (s.ok()) allocated_ = file_->Size();
  }
  if (!s.ok()) return s;
  next_lsn_ = written_lsn_ = durable_lsn_ = end_lsn;
  durable_lsn_published_.store(end_lsn, std::memory_order_release);
  last_sync_ = std::chrono::steady_clock::now();
  thread_ = std::thread([this] { WriterLoop(); });
  return Status::Ok();
}

Status LogWriter::CreateSegment(Lsn first_lsn) {
  std::string path = WalDir(data_dir_) + "/" + SegmentFileName(first_lsn);
  if (file_) {
    Status c = file_->Close();
    file_.reset();
    if (!c.ok()) return c;
  }
  Status s = fs_->OpenForAppend(path, &file_);
  if (!s.ok()) return s;
  s = file_->Truncate(0);  // a leftover of a failed earlier attempt holds no valid data
  char header[kSegmentHeaderSize];
  EncodeSegmentHeader(header, first_lsn);
  if (s.ok()) s = file_->Append(header, sizeof(header));
  allocated_ = kSegmentHeaderSize;
  if (s.ok()) s = fs_->SyncDir(WalDir(data_dir_));
  segment_first_lsn_ = first_lsn;
  segments_created_++;
  return s;
}

Status LogWriter::Append(std::span<const RecordInput> records, std::vector<Lsn>* lsns) {
  uint64_t total = 0;
  for (const RecordInput& r : records) {
    if (r.payload.size() > kMaxPayloadSize) {
      return Status::InvalidArgument(
          fmt::format("WAL record payload of {} bytes exceeds the maximum of {} bytes (64 MiB)",
                      r.payload.size(), kMaxPayloadSize));
    }
    if (static_cast<uint8_t>(r.type) == 0) return Status::InvalidArgument("WAL record type 0");
    total += RecordSize(r.payload.size());
  }
  if (lsns) lsns->clear();
  std::unique_lock<std::mutex> l(mu_);
  space_cv_.wait(l, [&] {
    return pending_.size() == 0 || pending_.size() + total <= options_.max_pending_bytes ||
           !failed_.ok() || stop_;
  });
  if (!failed_.ok()) return failed_;
  if (stop_) return Status::InvalidArgument("the WAL writer is closed");
  char* out = pending_.Extend(total);
  for (const RecordInput& r : records) {
    EncodeRecord(out, next_lsn_, r.txn, r.type, r.payload);
    if (lsns) lsns->push_back(next_lsn_);
    uint64_t size = RecordSize(r.payload.size());
    out += size;
    next_lsn_ += size;
  }
  pending_records_ += records.size();
  stats_.appends++;
  stats_.records += records.size();
  stats_.bytes += total;
  l.unlock();
  writer_cv_.notify_one();
  return Status::Ok();
}

Status LogWriter::Append(RecordType type, TxnId txn, std::string_view payload, Lsn* lsn) {
  RecordInput r{type, txn, payload};
  std::vector<Lsn> lsns;
  Status s = Append(std::span<const RecordInput>(&r, 1), &lsns);
  if (s.ok() && lsn) *lsn = lsns[0];
  return s;
}

Status LogWriter::WaitDurable(Lsn lsn) {
  // Durable records stay durable: a sticky failure later does not undo them.
  if (durable_lsn_published_.load(std::memory_order_acquire) > lsn) return Status::Ok();
  std::unique_lock<std::mutex> l(mu_);
  if (lsn >= next_lsn_) {
    return Status::InvalidArgument(fmt::format("LSN {:X} has not been appended", lsn));
  }
  if (durable_lsn_ > lsn) return Status::Ok();
  if (!options_.synchronous && !sync_requested_) {
    sync_requested_ = true;
    writer_cv_.notify_one();
  }
  durable_cv_.wait(l, [&] { return durable_lsn_ > lsn || !failed_.ok(); });
  return durable_lsn_ > lsn ? Status::Ok() : failed_;
}

Status LogWriter::WaitForCommit(Lsn lsn) {
  if (options_.synchronous) return WaitDurable(lsn);
  std::lock_guard<std::mutex> l(mu_);
  return durable_lsn_ > lsn ? Status::Ok() : failed_;
}

void LogWriter::OnDurable(Lsn lsn, std::function<void(const Status&)> done) {
  std::unique_lock<std::mutex> l(mu_);
  if (durable_lsn_ > lsn || !failed_.ok()) {
    Status s = durable_lsn_ > lsn ? Status::Ok() : failed_;
    l.unlock();
    done(s);
    return;
  }
  callbacks_.emplace(lsn, std::move(done));
}

Status LogWriter::Flush() {
  Lsn last;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (next_lsn_ == durable_lsn_) return failed_;
    last = next_lsn_ - 1;  // inside the last record: "durable_lsn_ > last" covers it
  }
  return WaitDurable(last);
}

Status LogWriter::Close() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (closed_) return failed_;
    closed_ = true;
    stop_ = true;
  }
  writer_cv_.notify_one();
  space_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  Status s;
  if (file_ && !failed()) {
    // A cleanly closed log ends at its last record: no zeros for the tools.
    const bool cut = allocated_ > file_->Size();
    s = CutPreallocated();
    if (s.ok() && cut) s = file_->Sync();
  }
  if (file_) {
    Status c = file_->Close();
    if (s.ok()) s = c;
  }
  file_.reset();
  std::lock_guard<std::mutex> l(mu_);
  return failed_.ok() ? s : failed_;
}

LogWriter::~LogWriter() { Close().PermitUnchecked(); }

Status LogWriter::health() const {
  std::lock_guard<std::mutex> l(mu_);
  return failed_;
}

LogWriterStats LogWriter::stats() const {
  std::lock_guard<std::mutex> l(mu_);
  LogWriterStats s = stats_;
  s.next_lsn = next_lsn_;
  s.durable_lsn = durable_lsn_;
  return s;
}

bool LogWriter::AsyncSyncDue() const {
  return written_lsn_ - durable_lsn_ >= options_.async_max_unsynced_bytes ||
         std::chrono::steady_clock::now() >= last_sync_ + options_.async_flush_interval;
}

// Writes writing_ (records from LSN `start` on), rolling over segments.
Status LogWriter::WriteBatch(Lsn start) {
  const char* p = writing_.data();
  const char* end = p + writing_.size();
  Lsn lsn = start;
  while (p < end) {
    uint64_t in_segment = kSegmentHeaderSize + (lsn - segment_first_lsn_);
    size_t chunk = 0;
    while (p + chunk < end) {
      uint64_t size = RecordSize(StoredLength(p + chunk));
      bool empty = in_segment + chunk == kSegmentHeaderSize;
      if (!empty && in_segment + chunk + size > options_.segment_size) break;
      chunk += size;
    }
    if (chunk > 0) {
      Status s = file_->Append(p, chunk);
      if (s.ok()) s = PreallocateAfter(in_segment + chunk, chunk);
      if (!s.ok()) return s;
      p += chunk;
      lsn += chunk;
    }
    if (p < end) {
      // Roll over: the finished segment ends at its last record and is made
      // durable before the next one gets a byte (the reader's rules rely on
      // both).
      Status s = CutPreallocated();
      if (!s.ok()) return s;
      s = file_->Sync();
      if (!s.ok()) return s;
      rollover_syncs_++;
      s = CreateSegment(lsn);
      if (!s.ok()) return s;
    }
  }
  return Status::Ok();
}

// Small writes overwrite zeros written ahead of them, a step at a time; a
// write at least a step long (a bulk load's) just lengthens the file, which
// costs its sync no more than the zeros would.
Status LogWriter::PreallocateAfter(uint64_t written_end, uint64_t written) {
  const uint64_t step = options_.preallocate_bytes;
  allocated_ = std::max(allocated_, written_end);
  if (step == 0 || written >= step || allocated_ > written_end) return Status::Ok();
  const uint64_t target = std::min(written_end + step, options_.segment_size);
  if (target <= allocated_) return Status::Ok();
  // Best effort: on a full disk the records just written are still fine, so
  // the zeros written are dropped, and the next append that needs room fails.
  allocated_ = target;
  if (file_->Preallocate(target).ok()) return Status::Ok();
  return CutPreallocated();
}

Status LogWriter::CutPreallocated() {
  if (allocated_ <= file_->Size()) return Status::Ok();
  allocated_ = file_->Size();
  return file_->Truncate(allocated_);
}

void LogWriter::Fail(std::unique_lock<std::mutex>& l, const Status& s) {
  if (failed_.ok()) failed_ = Sticky(s);
  failed_flag_.store(true, std::memory_order_release);
  durable_cv_.notify_all();
  space_cv_.notify_all();
  RunCallbacks(l);
}

// Runs (without the lock) every callback that is decided: durable or failed.
void LogWriter::RunCallbacks(std::unique_lock<std::mutex>& l) {
  std::vector<std::pair<std::function<void(const Status&)>, Status>> ready;
  while (!callbacks_.empty()) {
    auto it = callbacks_.begin();
    if (it->first < durable_lsn_) {
      ready.emplace_back(std::move(it->second), Status::Ok());
    } else if (!failed_.ok()) {
      ready.emplace_back(std::move(it->second), failed_);
    } else {
      break;
    }
    callbacks_.erase(it);
  }
  if (ready.empty()) return;
  l.unlock();
  for (auto& [fn, status] : ready) fn(status);
  l.lock();
}

void LogWriter::WriterLoop() {
  std::unique_lock<std::mutex> l(mu_);
  for (;;) {
    for (;;) {
      if (!failed_.ok()) {
        if (stop_) return;
        writer_cv_.wait(l);
        continue;
      }
      bool unsynced = written_lsn_ > durable_lsn_;
      if (pending_.size() > 0 || stop_) break;
      if (unsynced && (sync_requested_ || AsyncSyncDue())) break;
      if (unsynced) {
        writer_cv_.wait_until(l, last_sync_ + options_.async_flush_interval);
      } else {
        writer_cv_.wait(l);
      }
    }
    bool have = pending_.size() > 0;
    bool stopping = stop_;
    Lsn start = written_lsn_;
    Lsn end = next_lsn_;
    uint64_t records = pending_records_;
    if (have) {
      pending_.Swap(writing_);
      pending_records_ = 0;
      space_cv_.notify_all();
    }
    l.unlock();
    Status s;
    if (have) s = WriteBatch(start);
    writing_.Clear();
    writing_.ShrinkIfOversized(options_.max_pending_bytes);
    l.lock();
    stats_.syncs += rollover_syncs_;
    stats_.segments_created = segments_created_;
    rollover_syncs_ = 0;
    if (!s.ok()) {
      Fail(l, s);
      continue;
    }
    if (have) {
      written_lsn_ = end;
      stats_.batches++;
      stats_.max_batch_records = std::max(stats_.max_batch_records, records);
      stats_.max_batch_bytes = std::max(stats_.max_batch_bytes, end - start);
    }
    bool do_sync = written_lsn_ > durable_lsn_ &&
                   (options_.synchronous || stopping || sync_requested_ || AsyncSyncDue());
    if (do_sync) {
      Lsn target = written_lsn_;
      sync_requested_ = false;
      l.unlock();
      s = file_->Sync();
      l.lock();
      stats_.syncs++;
      if (!s.ok()) {
        Fail(l, s);
        continue;
      }
      durable_lsn_ = target;
      durable_lsn_published_.store(target, std::memory_order_release);
      last_sync_ = std::chrono::steady_clock::now();
      durable_cv_.notify_all();
      RunCallbacks(l);
    }
    if (stopping && pending_.size() == 0 && written_lsn_ == durable_lsn_) return;
  }
}

}  // namespace forktail::wal
