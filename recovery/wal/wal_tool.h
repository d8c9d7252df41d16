// The logic of `forktail wal dump` and `forktail wal verify`, as library
// functions so that tests run them without the binary. tools/wal.cc only parses
// the command line.
#pragma once

#include <ostream>
#include <string>

#include "recovery/wal/log_file.h"
#include "recovery/wal/wal_format.h"

namespace forktail::wal {

// Exit codes of both commands.
inline constexpr int kToolClean = 0;       // every record valid, clean end
inline constexpr int kToolTornTail = 1;    // only a torn tail (recovery would cut it)
inline constexpr int kToolCorrupt = 2;     // corruption before the tail
inline constexpr int kToolUsageError = 3;  // bad arguments, missing dir, not a log, I/O error

// One line per record from `from` on: LSN, type, txn, length, payload preview;
// then a summary line. Returns an exit code as above.
int WalDump(LogFileSystem* fs, const std::string& data_dir, Lsn from, std::ostream& out,
            std::ostream& err);

// Checks every CRC, LSN continuity and the segment sequence; prints a verdict.
int WalVerify(LogFileSystem* fs, const std::string& data_dir, std::ostream& out, std::ostream& err);

// Up to max_bytes of payload as printable text, other bytes as \xNN.
std::string PayloadPreview(std::string_view payload, size_t max_bytes);

}  // namespace forktail::wal
