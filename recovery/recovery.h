// The recovery module's public door: the write-ahead log (format, writer with
// group commit, reader with torn-tail detection, segment maintenance, the
// file-I/O seam) and the logic of `forktail wal dump|verify`; checkpoints to
// the RocksDB cold store, the redo codec, replay and the restart driver
// (`forktail recover`). See docs/wal.md and docs/transactions.md.
#pragma once

#include "recovery/checkpoint.h"
#include "recovery/cold_store.h"
#include "recovery/redo_codec.h"
#include "recovery/replay.h"
#include "recovery/replay_driver.h"
#include "recovery/wal/fault_injection_log_file.h"
#include "recovery/wal/log_buffer.h"
#include "recovery/wal/log_file.h"
#include "recovery/wal/log_reader.h"
#include "recovery/wal/log_writer.h"
#include "recovery/wal/wal_format.h"
#include "recovery/wal/wal_segments.h"
#include "recovery/wal/wal_tool.h"
