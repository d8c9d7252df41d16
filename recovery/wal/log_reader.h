// Reading the log back: the recovery scan, replay, and the wal tools.
//
// LogReader iterates records in LSN order from a start LSN across segments and,
// when it stops, says why. There are exactly three outcomes:
//
//  1. clean end: the last segment ends exactly after a valid record (or after
//     its header), or only zeros follow: the space the writer preallocates
//     (LogFile::Preallocate), not yet written when the log stopped;
//  2. torn tail: the log ends with an incomplete or damaged record that NO valid
//     record follows: what a crash in the middle of a write leaves. LogEnd says
//     which segment, the file offset and the valid end LSN; recovery cuts it
//     with TruncateTail() and continues;
//  3. corruption: anything else. status() is Corruption and its message names
//     the segment file and the offset. Nothing is ever skipped silently.
//
// The rule that tells a torn tail from corruption: a record that fails its
// checks at offset P is a torn tail iff (a) it lies in the LAST segment and
// (b) no byte offset Q > P of that segment holds a record that passes every
// check, including "stored LSN == LSN of position Q". Reasons:
//  - the writer fdatasyncs a segment completely before it writes the first
//    byte of the next one, so a damaged record in an earlier segment cannot be
//    the result of a crash: it is corruption;
//  - a crash can only lose or tear bytes at the end of what was written; a
//    valid record after a bad one proves the bad one was once written whole and
//    later damaged (a flipped bit, a lost sector): corruption. Because every
//    record stores its own LSN and LSNs are byte positions, a stray copy of a
//    record at another place does not count as "valid";
//  - garbage after the last valid record is a torn tail; zeros alone are the
//    preallocated space (a record's header is never all zero), so a clean end.
// Limitation (documented in docs/wal.md): if a device persists the pages of one
// unsynced write out of order and power fails, a hole with valid records after
// it is reported as corruption, although none of those records was ever
// acknowledged. `forktail wal verify` shows the offsets, so an operator can decide.
//
// Segment sequence: segment k+1 must start exactly at segment k's end LSN, and
// every segment header must name the LSN its file name names; otherwise the
// error names the missing or overlapping segment.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "recovery/wal/log_file.h"
#include "recovery/wal/wal_format.h"
#include "recovery/wal/wal_segments.h"

namespace forktail::wal {

// One record as read. `payload` stays valid until the next call of Next().
struct LogRecord {
  Lsn lsn = 0;
  TxnId txn = 0;
  RecordType type = RecordType::kTest;
  std::string_view payload;
  Lsn end_lsn() const { return lsn + RecordSize(payload.size()); }
};

// How the log ended (valid once Next() has returned false with an ok status()).
struct LogEnd {
  enum class Kind { kClean, kTornTail };
  Kind kind = Kind::kClean;
  Lsn end_lsn = 0;              // LSN after the last valid record: where the next record goes
  std::string segment;          // torn tail or preallocated zeros: the segment's path
  uint64_t offset = 0;          // there: file offset of the cut (valid bytes end here)
  uint64_t preallocated = 0;    // clean end: zero bytes after it (see 1. above)
  bool remove_segment = false;  // torn tail in the segment header: delete the file
  std::string reason;           // torn tail: what was wrong there
  std::string ToString() const;
};

class LogReader {
 public:
  // Opens the log in data_dir/wal. Records with LSN < from are not returned.
  // NotFound if the wal directory does not exist or holds no segment, or if
  // `from` (non-zero) lies before the oldest segment.
  static Status Open(LogFileSystem* fs, const std::string& data_dir, Lsn from,
                     std::unique_ptr<LogReader>* reader);

  // The next record, or false at the end of the log or on an error.
  bool Next(LogRecord* record);
  const Status& status() const { return status_; }
  const LogEnd& end() const { return end_; }
  const std::vector<SegmentInfo>& segments() const { return segments_; }

 private:
  LogReader(LogFileSystem* fs, std::vector<SegmentInfo> segments, Lsn from);
  bool LoadSegment();  // loads segments_[seg_]; false when stopped (end or error)
  bool Stop(Status s);
  bool StopTorn(uint64_t offset, std::string reason, bool remove_segment);
  std::string Where(uint64_t offset) const;

  LogFileSystem* fs_;
  std::vector<SegmentInfo> segments_;
  Lsn from_;
  size_t seg_ = 0;
  bool loaded_ = false;
  bool done_ = false;
  std::string buf_;    // the current segment's bytes
  uint64_t pos_ = 0;   // offset in buf_ of the next record
  Lsn seg_first_ = 0;  // first LSN of the current segment
  Lsn expected_next_segment_ = kInvalidLsn;
  Status status_;
  LogEnd end_;
};

// Reads the whole log from its start; *records counts the valid records.
Status ScanLog(LogFileSystem* fs, const std::string& data_dir, LogEnd* end, uint64_t* records);

}  // namespace forktail::wal
