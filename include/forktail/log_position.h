// The write-ahead log's names for a position and a transaction, as the public
// API shows them (commit LSNs, snapshot fork points). The log's format
// (recovery/wal/wal_format.h) defines the record types behind RecordType.
#pragma once

#include <cstdint>

namespace forktail::wal {

using Lsn = uint64_t;
using TxnId = uint64_t;

inline constexpr Lsn kInvalidLsn = UINT64_MAX;

enum class RecordType : uint8_t;

}  // namespace forktail::wal
