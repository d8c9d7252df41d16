// The file-I/O seam of the write-ahead log. The writer, the reader and the
// segment helpers touch files only through LogFileSystem / LogFile, so that a
// test can substitute FaultInjectionLogFileSystem (fault_injection_log_file.h)
// and make fdatasync fail with EIO, writes fail with ENOSPC or tear short, and
// a crash drop everything that was never synced.
//
// Contract of every Status returned here: the message names the operation, the
// file and the errno text, e.g. "fdatasync of wal/0000000000000000.wal failed:
// Input/output error". Paths in messages are shown relative to the data
// directory when the caller gave one (see LogFileSystem::Display).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "storage/status.h"

namespace forktail::wal {

// A file opened for appending (the writer's active segment) or for reading.
class LogFile {
 public:
  virtual ~LogFile() = default;
  // Writes all n bytes at the append position, Size(), and moves it past
  // them (a short write is retried by the implementation until complete or
  // failed). Past the zeros of Preallocate, the file grows.
  virtual Status Append(const void* data, size_t n) = 0;
  // Makes the file at least `end` bytes long by writing zeros after its last
  // byte, without moving the append position. Appends then overwrite zeros,
  // and an fdatasync after them has no file size to make durable: on ext4 it
  // is one synchronous write instead of two, as PostgreSQL zero-fills its WAL
  // segments for. The zeros are durable after the next Sync().
  virtual Status Preallocate(uint64_t end) = 0;
  // Makes everything appended so far durable (fdatasync).
  virtual Status Sync() = 0;
  // Reads up to n bytes at offset; *got is the number read (short at EOF).
  virtual Status ReadAt(uint64_t offset, size_t n, void* out, size_t* got) = 0;
  // Cuts (or extends) the file to `size` bytes; the append position too.
  virtual Status Truncate(uint64_t size) = 0;
  // The append position: the file's size, unless zeros were preallocated
  // after it.
  virtual uint64_t Size() const = 0;
  virtual Status Close() = 0;
  virtual const std::string& path() const = 0;
};

class LogFileSystem {
 public:
  virtual ~LogFileSystem() = default;
  // Opens (creating if absent) for append; the append position is the file's end.
  virtual Status OpenForAppend(const std::string& path, std::unique_ptr<LogFile>* file) = 0;
  virtual Status OpenForRead(const std::string& path, std::unique_ptr<LogFile>* file) = 0;
  // File names (not paths) in dir; NotFound if dir does not exist.
  virtual Status ListDir(const std::string& dir, std::vector<std::string>* names) = 0;
  virtual Status CreateDirIfMissing(const std::string& dir) = 0;
  virtual bool DirExists(const std::string& dir) = 0;
  virtual Status Remove(const std::string& path) = 0;
  // fsync of a directory, so that created or removed names are durable.
  virtual Status SyncDir(const std::string& dir) = 0;
};

// The real POSIX implementation (process-wide, stateless).
LogFileSystem* PosixLogFileSystem();

// "wal/0000000000000000.wal" for ".../data/wal/0000000000000000.wal": the last
// two path components, which is what error messages show.
std::string DisplayPath(const std::string& path);

}  // namespace forktail::wal
