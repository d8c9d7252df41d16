// The recovery module's public door: the write-ahead log (format, writer with
// group commit, reader with torn-tail detection, segment maintenance, the
// file-I/O seam) and the logic of `forktail wal dump|verify`. Checkpoints and
// replay will join here. See docs/wal.md for the model and the guarantees.
#pragma once

#include "recovery/fault_injection_log_file.h"
#include "recovery/log_buffer.h"
#include "recovery/log_file.h"
#include "recovery/log_reader.h"
#include "recovery/log_writer.h"
#include "recovery/wal_format.h"
#include "recovery/wal_segments.h"
#include "recovery/wal_tool.h"
