// RocksDbInfoLog: the cold store's RocksDB diagnostic log (DIR/LOG, the
// previous run's in DIR/LOG.old), written by us instead of RocksDB.
//
// Why: RocksDB 7.8's own info logger (EnvLogger) ignores a failed write and
// then writes again through the same WritableFileWriter, which asserts
// (`WritableFileWriter::AssertFalseAndGetStatusForPrevError`; Debian's
// librocksdb keeps assertions). On a full disk that aborted the process in
// the middle of DB::Open, while RocksDB logged its recovery, instead of
// DB::Open returning "No space left on device".
//
// This logger writes each line with one write(2) and drops a line it cannot
// write: on a full disk diagnostics lose lines, the process lives, and the
// store's real writes report their own errors. A log that reaches
// `max_bytes` is renamed to LOG.old and started afresh, so the store keeps
// at most two logs.
#pragma once

#include <rocksdb/env.h>

#include <cstdarg>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace forktail::ckpt {

class RocksDbInfoLog final : public rocksdb::Logger {
 public:
  // Renames DIR/LOG (if any) to DIR/LOG.old, removes RocksDB's own
  // LOG.old.<time> files, and opens a new DIR/LOG. DIR must exist. Never
  // fails: a log that cannot be opened logs nothing.
  static std::shared_ptr<RocksDbInfoLog> Open(const std::string& dir, uint64_t max_bytes);
  // Logs nothing and touches no file (read-only opens: a running server may
  // own DIR/LOG).
  static std::shared_ptr<RocksDbInfoLog> Discarding();
  ~RocksDbInfoLog() override;

  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override;
  size_t GetLogFileSize() const override;

 private:
  RocksDbInfoLog(std::string dir, uint64_t max_bytes);
  void OpenFresh();  // rotates LOG to LOG.old; with mu_ held or before sharing

  const std::string dir_;
  const uint64_t max_bytes_;
  mutable std::mutex mu_;
  int fd_ = -1;
  uint64_t bytes_ = 0;
};

}  // namespace forktail::ckpt
