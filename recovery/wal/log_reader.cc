#include "recovery/wal/log_reader.h"

#include <fmt/format.h>

namespace forktail::wal {

std::string LogEnd::ToString() const {
  if (kind == Kind::kClean && preallocated > 0) {
    return fmt::format("clean end at LSN {:X} ({} preallocated zero bytes follow in {})", end_lsn,
                       preallocated, DisplayPath(segment));
  }
  if (kind == Kind::kClean) return fmt::format("clean end at LSN {:X}", end_lsn);
  return fmt::format("torn tail in {} at offset {} ({}); valid end LSN {:X}", DisplayPath(segment),
                     offset, reason, end_lsn);
}

Status LogReader::Open(LogFileSystem* fs, const std::string& data_dir, Lsn from,
                       std::unique_ptr<LogReader>* reader) {
  std::vector<SegmentInfo> segments;
  Status s = ListSegments(fs, data_dir, &segments);
  if (!s.ok()) {
    if (s.code() == Status::Code::kNotFound) {
      return Status::NotFound(DisplayPath(WalDir(data_dir)) +
                              " does not exist: not a Forktail data directory");
    }
    return s;
  }
  if (segments.empty()) {
    return Status::NotFound("no WAL segment in " + WalDir(data_dir) + ": not a Forktail log");
  }
  if (from != 0 && from < segments[0].first_lsn) {
    return Status::NotFound(
        fmt::format("LSN {:X} lies before the oldest WAL segment {} (removed after a checkpoint?)",
                    from, DisplayPath(segments[0].path)));
  }
  size_t first = 0;
  while (first + 1 < segments.size() && segments[first + 1].first_lsn <= from) first++;
  segments.erase(segments.begin(), segments.begin() + static_cast<ptrdiff_t>(first));
  reader->reset(new LogReader(fs, std::move(segments), from));
  return Status::Ok();
}

LogReader::LogReader(LogFileSystem* fs, std::vector<SegmentInfo> segments, Lsn from)
    : fs_(fs), segments_(std::move(segments)), from_(from) {}

std::string LogReader::Where(uint64_t offset) const {
  return fmt::format("{} offset {} (LSN {:X})", DisplayPath(segments_[seg_].path), offset,
                     seg_first_ + offset - kSegmentHeaderSize);
}

bool LogReader::Stop(Status s) {
  status_ = std::move(s);
  done_ = true;
  return false;
}

bool LogReader::StopTorn(uint64_t offset, std::string reason, bool remove_segment) {
  end_.kind = LogEnd::Kind::kTornTail;
  end_.segment = segments_[seg_].path;
  end_.offset = offset;
  end_.remove_segment = remove_segment;
  end_.reason = std::move(reason);
  end_.end_lsn = remove_segment ? seg_first_ : seg_first_ + offset - kSegmentHeaderSize;
  done_ = true;
  return false;
}

bool LogReader::LoadSegment() {
  const SegmentInfo& seg = segments_[seg_];
  bool last = seg_ + 1 == segments_.size();
  seg_first_ = seg.first_lsn;
  std::unique_ptr<LogFile> file;
  Status s = fs_->OpenForRead(seg.path, &file);
  if (!s.ok()) return Stop(s);
  buf_.resize(file->Size());
  size_t got = 0;
  s = file->ReadAt(0, buf_.size(), buf_.data(), &got);
  if (!s.ok()) return Stop(s);
  buf_.resize(got);
  if (expected_next_segment_ != kInvalidLsn && seg.first_lsn != expected_next_segment_) {
    return Stop(Status::Corruption(fmt::format(
        "{}: the previous segment ends at LSN {:X} but this one starts at LSN {:X}; {}",
        DisplayPath(seg.path), expected_next_segment_, seg.first_lsn,
        seg.first_lsn > expected_next_segment_ ? "a segment is missing" : "segments overlap")));
  }
  Lsn header_lsn;
  bool header_ok =
      buf_.size() >= kSegmentHeaderSize && DecodeSegmentHeader(buf_.data(), &header_lsn);
  if (!header_ok) {
    bool all_zero = buf_.find_first_not_of('\0') == std::string::npos;
    if (last && (buf_.size() <= kSegmentHeaderSize || all_zero)) {
      return StopTorn(0, "incomplete segment header", true);
    }
    return Stop(Status::Corruption(
        fmt::format("{} offset 0: invalid segment header (not a Forktail WAL segment?)",
                    DisplayPath(seg.path))));
  }
  if (header_lsn != seg.first_lsn) {
    return Stop(Status::Corruption(
        fmt::format("{} offset 0: the segment header says first LSN {:X}, the file name says {:X}",
                    DisplayPath(seg.path), header_lsn, seg.first_lsn)));
  }
  pos_ = kSegmentHeaderSize;
  loaded_ = true;
  return true;
}

bool LogReader::Next(LogRecord* record) {
  while (!done_) {
    if (!loaded_ && !LoadSegment()) return false;
    bool last = seg_ + 1 == segments_.size();
    if (pos_ == buf_.size()) {  // segment ends exactly after a record
      Lsn end = seg_first_ + pos_ - kSegmentHeaderSize;
      if (last) {
        end_.kind = LogEnd::Kind::kClean;
        end_.end_lsn = end;
        done_ = true;
        return false;
      }
      expected_next_segment_ = end;
      seg_++;
      loaded_ = false;
      continue;
    }
    Lsn lsn = seg_first_ + pos_ - kSegmentHeaderSize;
    RecordHeader h;
    RecordCheck check = CheckRecord(buf_.data() + pos_, buf_.size() - pos_, lsn, &h);
    if (check == RecordCheck::kOk) {
      const char* payload = buf_.data() + pos_ + kRecordHeaderSize;
      pos_ += RecordSize(h.length);
      if (lsn < from_) continue;
      record->lsn = lsn;
      record->txn = h.txn;
      record->type = h.type;
      record->payload = std::string_view(payload, h.length);
      return true;
    }
    if (!last) {
      return Stop(Status::Corruption(
          fmt::format("{}: {}; {} later segment(s) follow, so this is not a torn tail", Where(pos_),
                      RecordCheckName(check), segments_.size() - seg_ - 1)));
    }
    if (buf_.find_first_not_of('\0', pos_) == std::string::npos) {  // preallocated space
      end_.kind = LogEnd::Kind::kClean;
      end_.end_lsn = lsn;
      end_.segment = segments_[seg_].path;
      end_.offset = pos_;
      end_.preallocated = buf_.size() - pos_;
      done_ = true;
      return false;
    }
    // Is there any valid record after the bad one? Then it is not a tail.
    for (uint64_t q = pos_ + 1; q + kRecordHeaderSize <= buf_.size(); q++) {
      RecordHeader later;
      Lsn q_lsn = seg_first_ + q - kSegmentHeaderSize;
      if (CheckRecord(buf_.data() + q, buf_.size() - q, q_lsn, &later) == RecordCheck::kOk) {
        return Stop(Status::Corruption(
            fmt::format("{}: {}; a valid record follows at offset {} (LSN {:X}), so this is "
                        "not a torn tail",
                        Where(pos_), RecordCheckName(check), q, q_lsn)));
      }
    }
    return StopTorn(pos_, RecordCheckName(check), false);
  }
  return false;
}

Status ScanLog(LogFileSystem* fs, const std::string& data_dir, LogEnd* end, uint64_t* records) {
  std::unique_ptr<LogReader> reader;
  Status s = LogReader::Open(fs, data_dir, 0, &reader);
  if (!s.ok()) return s;
  *records = 0;
  LogRecord r;
  while (reader->Next(&r)) (*records)++;
  if (!reader->status().ok()) return reader->status();
  *end = reader->end();
  return Status::Ok();
}

}  // namespace forktail::wal
