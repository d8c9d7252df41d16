// Helpers shared by the recovery tests: a log in a FaultInjectionLogFileSystem.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "recovery/recovery.h"

namespace forktail::wal::testing {

inline constexpr const char* kDataDir = "/db";

// Without preallocated zeros unless asked: most tests check exact segment
// images, or the synced watermark, which zeros synced ahead would satisfy
// before the records are written.
inline LogWriterOptions FaultOptions(FaultInjectionLogFileSystem* fs, uint64_t segment_size,
                                     uint64_t preallocate_bytes = 0) {
  LogWriterOptions o;
  o.file_system = fs;
  o.segment_size = segment_size;
  o.preallocate_bytes = preallocate_bytes;
  return o;
}

inline std::string Payload(int i, size_t size) {
  std::string p(size, '\0');
  for (size_t k = 0; k < size; k++) p[k] = static_cast<char>('a' + (i + k) % 26);
  return p;
}

// Appends n records (payload i of `size` bytes, txn i) and closes; returns LSNs.
inline std::vector<Lsn> WriteLog(FaultInjectionLogFileSystem* fs, int n, size_t size,
                                 uint64_t segment_size = uint64_t{1} << 20) {
  std::unique_ptr<LogWriter> w;
  EXPECT_TRUE(LogWriter::Open(kDataDir, FaultOptions(fs, segment_size), &w).ok());
  std::vector<Lsn> lsns;
  for (int i = 0; i < n; i++) {
    Lsn lsn;
    EXPECT_TRUE(w->Append(RecordType::kInsert, static_cast<TxnId>(i), Payload(i, size), &lsn).ok());
    lsns.push_back(lsn);
  }
  EXPECT_TRUE(w->Close().ok());
  return lsns;
}

struct ReadResult {
  std::vector<LogRecord> records;  // payload views are not kept valid
  std::vector<std::string> payloads;
  Status status;
  LogEnd end;
};

inline ReadResult ReadAll(LogFileSystem* fs, Lsn from = 0) {
  ReadResult out;
  std::unique_ptr<LogReader> reader;
  out.status = LogReader::Open(fs, kDataDir, from, &reader);
  if (!out.status.ok()) return out;
  LogRecord r;
  while (reader->Next(&r)) {
    out.payloads.emplace_back(r.payload);
    out.records.push_back(r);
  }
  out.status = reader->status();
  out.end = reader->end();
  return out;
}

inline std::string SegmentPath(Lsn first) {
  return std::string(kDataDir) + "/wal/" + SegmentFileName(first);
}

}  // namespace forktail::wal::testing
