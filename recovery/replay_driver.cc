#include "recovery/replay_driver.h"

#include <fmt/format.h>

#include <chrono>

#include "recovery/wal/wal_segments.h"

namespace forktail::redo {
namespace {
double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
}  // namespace

std::string ColdStoreDir(const std::string& data_dir) { return data_dir + "/cold"; }

std::string RecoveryReport::ToString() const {
  std::string out;
  if (has_checkpoint) {
    out += fmt::format("checkpoint: #{} at LSN {}, {} tables, {} blocks ({:.3f} s to load)\n",
                       checkpoint.sequence, checkpoint.lsn, checkpoint.tables.size(),
                       checkpoint.block_count(), checkpoint_seconds);
  } else {
    out += "checkpoint: none (replaying the log from its start)\n";
  }
  if (!has_log) {
    out += "log: none\n";
  } else {
    out += fmt::format(
        "log: {} records ({} bytes) after the checkpoint; {} committed transactions "
        "({} redo records) {}; {} incomplete transaction(s) dropped ({:.3f} s)\n",
        replay.records, replay.bytes, replay.committed_txns, replay.applied_records, "replayed",
        replay.dropped_txns, replay_seconds);
    if (end.kind == wal::LogEnd::Kind::kTornTail) {
      out += fmt::format("tail: torn at {} offset {} ({}); {}\n", wal::DisplayPath(end.segment),
                         end.offset, end.reason,
                         tail_cut ? "cut" : "would be cut (records there are not replayed)");
    } else if (end.preallocated > 0) {
      out += fmt::format("tail: clean end at LSN {} ({} preallocated zero bytes follow)\n",
                         end.end_lsn, end.preallocated);
    } else {
      out += fmt::format("tail: clean end at LSN {}\n", end.end_lsn);
    }
  }
  return out;
}

Status RecoverDatabase(const std::string& data_dir, wal::LogFileSystem* fs, ckpt::ColdStore* store,
                       ckpt::BlockImageSource* images, Catalog* catalog, bool check_only,
                       RecoveryReport* report) {
  *report = RecoveryReport{};
  if (fs == nullptr) fs = wal::PosixLogFileSystem();
  auto t0 = std::chrono::steady_clock::now();
  Status s;
  if (store != nullptr) {
    s = ckpt::LoadCheckpoint(store, catalog, &report->checkpoint, &report->blocks_loaded, images);
    if (s.ok()) {
      report->has_checkpoint = true;
      report->checkpoint.catalog.clear();
      report->next_txn = report->checkpoint.next_txn;
    } else if (s.code() != Status::Code::kNotFound) {
      return Status(s.code() == Status::Code::kCorruption
                        ? Status::Corruption("loading the checkpoint failed: " + s.message())
                        : Status::IoError("loading the checkpoint failed: " + s.message()));
    }
  }
  report->checkpoint_seconds = SecondsSince(t0);

  wal::Lsn from = report->has_checkpoint ? report->checkpoint.lsn : 0;
  auto t1 = std::chrono::steady_clock::now();
  std::unique_ptr<wal::LogReader> reader;
  s = wal::LogReader::Open(fs, data_dir, from, &reader);
  if (s.code() == Status::Code::kNotFound && from == 0) return Status::Ok();  // a new database
  if (!s.ok()) {
    return Status::Corruption(fmt::format(
        "the write-ahead log cannot be read from the checkpoint's LSN {}: {}", from, s.message()));
  }
  report->has_log = true;
  Replayer replayer(catalog);
  wal::LogRecord record;
  while (reader->Next(&record)) {
    s = replayer.Add(record);
    if (!s.ok()) return s;
  }
  if (!reader->status().ok()) {
    return Status::Corruption("recovery stopped: the write-ahead log is corrupt before its end: " +
                              reader->status().message());
  }
  replayer.Finish();
  report->replay = replayer.stats();
  report->end = reader->end();
  report->replay_seconds = SecondsSince(t1);
  if (report->replay.max_txn + 1 > report->next_txn) report->next_txn = report->replay.max_txn + 1;
  if (report->end.kind == wal::LogEnd::Kind::kTornTail && !check_only) {
    s = wal::TruncateTail(fs, report->end);
    if (!s.ok()) return s;
    report->tail_cut = true;
  }
  return Status::Ok();
}

}  // namespace forktail::redo
