// Segment files of the log: listing them, cutting a torn tail, and removing
// segments a checkpoint made unnecessary. Paths: data_dir/wal/<first LSN>.wal.
#pragma once

#include <string>
#include <vector>

#include "recovery/wal/log_file.h"
#include "recovery/wal/wal_format.h"

namespace forktail::wal {

struct LogEnd;

struct SegmentInfo {
  Lsn first_lsn = 0;
  std::string path;
};

std::string WalDir(const std::string& data_dir);

// Segments of data_dir/wal sorted by first LSN; other file names are ignored.
// NotFound if the directory does not exist.
Status ListSegments(LogFileSystem* fs, const std::string& data_dir,
                    std::vector<SegmentInfo>* segments);

// Cuts the torn tail the reader reported (LogEnd::kind == kTornTail): truncates
// the segment to LogEnd::offset and syncs it, or removes a segment whose header
// was torn, then syncs the directory. Cuts the preallocated zeros after a clean
// end the same way; a clean end without them is a no-op.
Status TruncateTail(LogFileSystem* fs, const LogEnd& end);

// Removes every segment that lies wholly before `lsn` (its successor starts at or
// before `lsn`), oldest first, then syncs the directory. The last segment is never
// removed, so this is safe while a LogWriter appends. *removed counts the files.
Status RemoveSegmentsBefore(LogFileSystem* fs, const std::string& data_dir, Lsn lsn, int* removed);

}  // namespace forktail::wal
