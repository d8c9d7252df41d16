// The WAL as recovery reads it (recovery/wal/log_reader.h) and replays it
// (recovery/replay.h): the input after byte 0 is one segment file, header
// included, read from an in-memory file system. Byte 0, bit 0: re-stamp the
// segment header's and every record's CRC (and, bit 1, every record's LSN)
// before reading, so that mutations reach what lies behind the checks: the
// record walk, the torn-tail rule and the redo decoders.
//
// What must hold: reading ends with an ok status (a clean end or a torn
// tail) or Corruption, never a crash; replay's failures are Corruption; and
// after TruncateTail cuts a torn tail, the log reads to a clean end with the
// same records (what recovery does before it appends again).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "fuzz/fuzz_target.h"
#include "recovery/replay.h"
#include "recovery/wal/fault_injection_log_file.h"
#include "recovery/wal/log_reader.h"
#include "storage/crc32c.h"

namespace forktail::wal {
namespace {

uint32_t Get32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
void Put32(char* p, uint32_t v) { std::memcpy(p, &v, 4); }

// Makes the checksums (and with `lsns` the stored LSNs) of a segment valid,
// walking records by their length fields as the reader does.
void Restamp(std::string* segment, bool lsns) {
  if (segment->size() < kSegmentHeaderSize) return;
  char* d = segment->data();
  Put32(d + offsets::kSegCrc, crc32c::Mask(crc32c::Value(d, offsets::kSegCrc)));
  Lsn lsn;
  std::memcpy(&lsn, d + offsets::kSegFirstLsn, 8);
  size_t pos = kSegmentHeaderSize;
  while (pos + kRecordHeaderSize <= segment->size()) {
    uint32_t length = Get32(d + pos + offsets::kLength);
    if (length > segment->size() - pos - kRecordHeaderSize) return;
    if (lsns) std::memcpy(d + pos + offsets::kLsn, &lsn, 8);
    uint32_t crc = crc32c::Value(d + pos + offsets::kLength,
                                 kRecordHeaderSize - offsets::kLength + size_t{length});
    Put32(d + pos + offsets::kCrc, crc32c::Mask(crc));
    pos += RecordSize(length);
    lsn += RecordSize(length);
  }
}

[[noreturn]] void Fail(const char* what, const Status& s) {
  std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
  std::abort();
}

}  // namespace
}  // namespace forktail::wal

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace forktail;
  using namespace forktail::wal;
  forktail::fuzz::Input in = forktail::fuzz::SplitControl(data, size);
  std::string segment(in.bytes);
  if (in.control & 1) Restamp(&segment, in.control & 2);

  // The file is named by the first LSN its header claims, as the writer names it.
  Lsn first = 0;
  if (segment.size() >= kSegmentHeaderSize)
    std::memcpy(&first, segment.data() + offsets::kSegFirstLsn, 8);
  FaultInjectionLogFileSystem fs;
  const std::string dir = "/data";
  if (!fs.CreateDirIfMissing(WalDir(dir)).ok()) std::abort();
  std::unique_ptr<LogFile> file;
  if (!fs.OpenForAppend(WalDir(dir) + "/" + SegmentFileName(first), &file).ok() ||
      !file->Append(segment.data(), segment.size()).ok() || !file->Sync().ok()) {
    std::abort();
  }
  file.reset();

  std::unique_ptr<LogReader> reader;
  Status s = LogReader::Open(&fs, dir, 0, &reader);
  if (!s.ok()) return 0;
  Catalog catalog;
  redo::Replayer replayer(&catalog);
  uint64_t records = 0;
  bool replaying = true;
  LogRecord record;
  while (reader->Next(&record)) {
    ++records;
    if (replaying && !(s = replayer.Add(record)).ok()) {
      if (s.code() != Status::Code::kCorruption) Fail("replay", s);
      replaying = false;
    }
  }
  if (replaying) replayer.Finish();
  if (!reader->status().ok()) {
    if (reader->status().code() != Status::Code::kCorruption) Fail("read", reader->status());
    return 0;
  }
  if (reader->end().kind == LogEnd::Kind::kTornTail) {
    LogEnd end = reader->end();
    reader.reset();
    if (!(s = TruncateTail(&fs, end)).ok()) Fail("truncate", s);
    LogEnd again;
    uint64_t again_records = 0;
    s = ScanLog(&fs, dir, &again, &again_records);
    // A segment whose header was torn is removed: then no segment is left.
    if (end.remove_segment && s.code() == Status::Code::kNotFound) return 0;
    if (!s.ok()) Fail("scan after truncating the torn tail", s);
    if (again.kind != LogEnd::Kind::kClean || again_records != records ||
        again.end_lsn != end.end_lsn) {
      std::fprintf(stderr, "after truncating a torn tail at %s: %s, %llu records (were %llu)\n",
                   end.ToString().c_str(), again.ToString().c_str(),
                   static_cast<unsigned long long>(again_records),
                   static_cast<unsigned long long>(records));
      std::abort();
    }
  }
  return 0;
}
