#include "recovery/wal/wal_tool.h"

#include <fmt/format.h>

#include <memory>

#include "recovery/wal/log_reader.h"

namespace forktail::wal {
namespace {

// Opens the reader, reporting "missing dir" and "not a log" as usage errors.
int OpenReader(LogFileSystem* fs, const std::string& data_dir, Lsn from,
               std::unique_ptr<LogReader>* reader, std::ostream& err) {
  if (!fs->DirExists(data_dir)) {
    err << "error: data directory \"" << data_dir << "\" does not exist\n";
    return kToolUsageError;
  }
  if (!fs->DirExists(WalDir(data_dir))) {
    err << "error: \"" << data_dir << "\" is not a Forktail data directory (no wal/ in it)\n";
    return kToolUsageError;
  }
  Status s = LogReader::Open(fs, data_dir, from, reader);
  if (!s.ok()) {
    err << "error: " << s.message() << "\n";
    return kToolUsageError;
  }
  return kToolClean;
}

int Verdict(const LogReader& reader, std::ostream& out, std::ostream& err) {
  const Status& s = reader.status();
  if (s.code() == Status::Code::kCorruption) {
    out << "verdict: CORRUPT: " << s.message() << "\n";
    return kToolCorrupt;
  }
  if (!s.ok()) {
    err << "error: " << s.message() << "\n";
    return kToolUsageError;
  }
  if (reader.end().kind == LogEnd::Kind::kTornTail) {
    out << "verdict: TORN TAIL (recoverable; recovery cuts it): " << reader.end().ToString()
        << "\n";
    return kToolTornTail;
  }
  out << "verdict: CLEAN: " << reader.end().ToString() << "\n";
  return kToolClean;
}

}  // namespace

std::string PayloadPreview(std::string_view payload, size_t max_bytes) {
  std::string out;
  for (size_t i = 0; i < payload.size() && i < max_bytes; i++) {
    unsigned char c = static_cast<unsigned char>(payload[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (payload.size() > max_bytes) out += "...";
  return out;
}

int WalDump(LogFileSystem* fs, const std::string& data_dir, Lsn from, std::ostream& out,
            std::ostream& err) {
  std::unique_ptr<LogReader> reader;
  int rc = OpenReader(fs, data_dir, from, &reader, err);
  if (rc != kToolClean) return rc;
  uint64_t records = 0, bytes = 0;
  LogRecord r;
  while (reader->Next(&r)) {
    records++;
    bytes += RecordSize(r.payload.size());
    out << fmt::format("{:016X}  {:<12} txn={:<10} len={:<8} {}\n", r.lsn, RecordTypeName(r.type),
                       r.txn, r.payload.size(), PayloadPreview(r.payload, 32));
  }
  out << fmt::format("summary: {} records, {} bytes, {} segment(s) read\n", records, bytes,
                     reader->segments().size());
  return Verdict(*reader, out, err);
}

int WalVerify(LogFileSystem* fs, const std::string& data_dir, std::ostream& out,
              std::ostream& err) {
  std::unique_ptr<LogReader> reader;
  int rc = OpenReader(fs, data_dir, 0, &reader, err);
  if (rc != kToolClean) return rc;
  uint64_t records = 0, bytes = 0;
  Lsn first = kInvalidLsn, last = kInvalidLsn;
  LogRecord r;
  while (reader->Next(&r)) {
    records++;
    bytes += RecordSize(r.payload.size());
    if (first == kInvalidLsn) first = r.lsn;
    last = r.lsn;
  }
  out << fmt::format("checked {} segment(s), {} records, {} bytes", reader->segments().size(),
                     records, bytes);
  if (records > 0) out << fmt::format(", LSN {:X} .. {:X}", first, last);
  out << "\n";
  return Verdict(*reader, out, err);
}

}  // namespace forktail::wal
