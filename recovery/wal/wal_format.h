// The on-disk format of Forktail's write-ahead log.
//
// The log is a byte stream of records cut into segment files DIR/wal/<LSN>.wal,
// each named by the LSN of its first record (16 upper-case hex digits, so that
// names sort in log order). A record never spans two segments.
//
// LSN scheme: an LSN is the BYTE POSITION of a record's first header byte in
// the logical record stream (segment headers are not part of the stream), as in
// PostgreSQL. Why byte positions rather than record numbers:
//  - a record's location follows from its LSN: in the segment whose first LSN
//    is F, the record with LSN L starts at file offset kSegmentHeaderSize + L - F;
//  - continuity is checkable everywhere: the next record's LSN is this LSN plus
//    this record's size, and the next segment's first LSN is this segment's end;
//  - the header stores the LSN, so a record that is valid but sits at the wrong
//    place (a misdirected write, stale bytes of an old file) fails the check
//    "stored LSN == position", which is also what makes the torn-tail vs
//    corruption rule (log_reader.h) robust;
//  - "durable up to LSN x" is a byte watermark, which is what fdatasync gives.
// The stream of a new log starts at LSN 0; kInvalidLsn is UINT64_MAX.
//
// Record (all integers little-endian; 32-byte header, then the payload):
//
//   0        4        8                16               24   25   26       32
//   +--------+--------+----------------+----------------+----+----+--------+
//   | crc    | length |      lsn       |     txn id     |type|flag|reserved|
//   +--------+--------+----------------+----------------+----+----+--------+
//   | payload (length bytes, opaque to the log) ...                        |
//   +----------------------------------------------------------------------+
//
//   crc      masked CRC32C of bytes [4, 32 + length): every header field and
//            the payload, so a torn, bit-flipped or misdirected record fails.
//   length   payload bytes, at most kMaxPayloadSize (64 MiB).
//   type     RecordType, never 0: a zero-filled region is never a record.
//   flag     reserved, 0.   reserved: 0.
//
// Segment header (32 bytes at offset 0 of every segment file):
//
//   0                8        12       16               24       28       32
//   +----------------+--------+--------+----------------+--------+--------+
//   | magic FTWALSEG |version |hdr size|   first lsn    |  crc   |reserved|
//   +----------------+--------+--------+----------------+--------+--------+
//
//   crc      masked CRC32C of bytes [0, 24).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "forktail/log_position.h"

namespace forktail::wal {

// Lsn, TxnId, kInvalidLsn: forktail/log_position.h.

// What a record is about. The log does not interpret payloads; the transaction
// engine encodes them. Values are stored on disk: never renumber, only append.
enum class RecordType : uint8_t {
  kInsert = 1,
  kUpdate = 2,
  kDelete = 3,
  kCommit = 4,
  kAbort = 5,
  kCheckpoint = 6,
  kCreateTable = 7,
  kDropTable = 8,
  kCreateIndex = 9,  // ALTER TABLE ... ADD PRIMARY KEY
  kDropIndex = 10,   // DROP INDEX of a secondary index
  kBulkInsert = 11,
  kCreateSecondaryIndex = 12,
  kSetIdentity = 13,  // an identity column's last value (written before sequences existed)
  kCreateView = 14,
  kDropView = 15,
  kAddForeignKey = 16,   // ALTER TABLE ADD FOREIGN KEY
  kDropConstraint = 17,  // of a foreign key or a CHECK constraint
  kAlterTable = 18,      // ALTER TABLE: a rewrite into a new table, or a new schema
  kCreateSequence = 20,
  kDropSequence = 21,
  kAlterSequence = 22,  // ALTER SEQUENCE: the whole new definition and state
  kSetSequence = 23,    // nextval / setval: a sequence's new state
  // 12..127 reserved for the engine; 128..255 for tests and tools.
  kTest = 200,
};

// Name of a record type for tools ("insert", "commit", ...; "type<N>" if unknown).
std::string RecordTypeName(RecordType type);

inline constexpr size_t kRecordHeaderSize = 32;
inline constexpr size_t kMaxPayloadSize = size_t{64} << 20;  // 64 MiB
inline constexpr size_t kSegmentHeaderSize = 32;
inline constexpr char kSegmentMagic[8] = {'F', 'T', 'W', 'A', 'L', 'S', 'E', 'G'};
inline constexpr uint32_t kSegmentVersion = 1;

namespace offsets {
inline constexpr size_t kCrc = 0;
inline constexpr size_t kLength = 4;
inline constexpr size_t kLsn = 8;
inline constexpr size_t kTxn = 16;
inline constexpr size_t kType = 24;
inline constexpr size_t kFlags = 25;
inline constexpr size_t kReserved = 26;
inline constexpr size_t kSegMagic = 0;
inline constexpr size_t kSegVersion = 8;
inline constexpr size_t kSegHeaderSize = 12;
inline constexpr size_t kSegFirstLsn = 16;
inline constexpr size_t kSegCrc = 24;
}  // namespace offsets

static_assert(offsets::kReserved + 6 == kRecordHeaderSize);
static_assert(offsets::kSegCrc + 8 == kSegmentHeaderSize);
static_assert(kMaxPayloadSize + kRecordHeaderSize < UINT32_MAX);

// A decoded record header.
struct RecordHeader {
  uint32_t length = 0;
  Lsn lsn = 0;
  TxnId txn = 0;
  RecordType type = RecordType::kTest;
};

inline constexpr uint64_t RecordSize(uint64_t payload_length) {
  return kRecordHeaderSize + payload_length;
}

// Writes header + payload (RecordSize(payload.size()) bytes) to `out`.
// The caller has checked payload.size() <= kMaxPayloadSize.
void EncodeRecord(char* out, Lsn lsn, TxnId txn, RecordType type, std::string_view payload);

// How a candidate record at a position looks.
enum class RecordCheck {
  kOk,
  kIncompleteHeader,   // fewer than kRecordHeaderSize bytes left
  kZeroHeader,         // the header bytes are all zero (preallocated or never written)
  kBadLength,          // length above kMaxPayloadSize, reserved bits set, or type 0
  kIncompletePayload,  // the header promises more bytes than remain
  kLsnMismatch,        // stored LSN differs from the record's position
  kBadCrc,
};
const char* RecordCheckName(RecordCheck check);

// Checks the record that should start at `data` (with `avail` bytes readable)
// and have LSN `expected_lsn`. On kOk fills `header`.
RecordCheck CheckRecord(const char* data, size_t avail, Lsn expected_lsn, RecordHeader* header);

// Segment headers.
void EncodeSegmentHeader(char* out, Lsn first_lsn);
// True if `data` (kSegmentHeaderSize bytes) is a valid header; fills first_lsn.
bool DecodeSegmentHeader(const char* data, Lsn* first_lsn);

// "0000000000A00000.wal" for LSN 0xA00000; ParseSegmentName accepts exactly that form.
std::string SegmentFileName(Lsn first_lsn);
bool ParseSegmentName(std::string_view name, Lsn* first_lsn);

}  // namespace forktail::wal
