#include "recovery/wal/wal_format.h"

#include <bit>
#include <cstdio>
#include <cstring>

#include "storage/crc32c.h"

namespace forktail::wal {
namespace {

void Put32(char* p, uint32_t v) { std::memcpy(p, &v, 4); }  // x86-64/aarch64: little-endian
void Put64(char* p, uint64_t v) { std::memcpy(p, &v, 8); }
uint32_t Get32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t Get64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
static_assert(std::endian::native == std::endian::little, "the WAL format is little-endian");

}  // namespace

std::string RecordTypeName(RecordType type) {
  switch (type) {
    case RecordType::kInsert:
      return "insert";
    case RecordType::kUpdate:
      return "update";
    case RecordType::kDelete:
      return "delete";
    case RecordType::kCommit:
      return "commit";
    case RecordType::kAbort:
      return "abort";
    case RecordType::kCheckpoint:
      return "checkpoint";
    case RecordType::kCreateTable:
      return "create_table";
    case RecordType::kDropTable:
      return "drop_table";
    case RecordType::kCreateIndex:
      return "create_index";
    case RecordType::kDropIndex:
      return "drop_index";
    case RecordType::kBulkInsert:
      return "bulk_insert";
    case RecordType::kCreateSecondaryIndex:
      return "create_secondary_index";
    case RecordType::kSetIdentity:
      return "set_identity";
    case RecordType::kCreateView:
      return "create_view";
    case RecordType::kAlterTable:
      return "alter_table";
    case RecordType::kDropView:
      return "drop_view";
    case RecordType::kAddForeignKey:
      return "add_foreign_key";
    case RecordType::kDropConstraint:
      return "drop_constraint";
    case RecordType::kCreateSequence:
      return "create_sequence";
    case RecordType::kDropSequence:
      return "drop_sequence";
    case RecordType::kAlterSequence:
      return "alter_sequence";
    case RecordType::kSetSequence:
      return "set_sequence";
    case RecordType::kTest:
      return "test";
  }
  return "type" + std::to_string(static_cast<int>(type));
}

void EncodeRecord(char* out, Lsn lsn, TxnId txn, RecordType type, std::string_view payload) {
  std::memset(out, 0, kRecordHeaderSize);
  Put32(out + offsets::kLength, static_cast<uint32_t>(payload.size()));
  Put64(out + offsets::kLsn, lsn);
  Put64(out + offsets::kTxn, txn);
  out[offsets::kType] = static_cast<char>(type);
  if (!payload.empty()) std::memcpy(out + kRecordHeaderSize, payload.data(), payload.size());
  uint32_t crc = crc32c::Value(out + offsets::kLength, kRecordHeaderSize - offsets::kLength);
  crc = crc32c::Extend(crc, payload.data(), payload.size());
  Put32(out + offsets::kCrc, crc32c::Mask(crc));
}

const char* RecordCheckName(RecordCheck check) {
  switch (check) {
    case RecordCheck::kOk:
      return "ok";
    case RecordCheck::kIncompleteHeader:
      return "incomplete record header";
    case RecordCheck::kZeroHeader:
      return "zero-filled record header";
    case RecordCheck::kBadLength:
      return "invalid record header (length, type or reserved bytes)";
    case RecordCheck::kIncompletePayload:
      return "incomplete record payload";
    case RecordCheck::kLsnMismatch:
      return "record LSN does not match its position";
    case RecordCheck::kBadCrc:
      return "record CRC mismatch";
  }
  return "?";
}

RecordCheck CheckRecord(const char* data, size_t avail, Lsn expected_lsn, RecordHeader* header) {
  if (avail < kRecordHeaderSize) return RecordCheck::kIncompleteHeader;
  bool all_zero = true;
  for (size_t i = 0; i < kRecordHeaderSize && all_zero; i++) all_zero = data[i] == 0;
  if (all_zero) return RecordCheck::kZeroHeader;
  uint32_t length = Get32(data + offsets::kLength);
  uint8_t type = static_cast<uint8_t>(data[offsets::kType]);
  bool reserved_zero = data[offsets::kFlags] == 0;
  for (size_t i = offsets::kReserved; i < kRecordHeaderSize; i++) reserved_zero &= data[i] == 0;
  if (length > kMaxPayloadSize || type == 0 || !reserved_zero) return RecordCheck::kBadLength;
  if (Get64(data + offsets::kLsn) != expected_lsn) return RecordCheck::kLsnMismatch;
  if (avail - kRecordHeaderSize < length) return RecordCheck::kIncompletePayload;
  uint32_t crc = crc32c::Value(data + offsets::kLength, kRecordHeaderSize - offsets::kLength);
  crc = crc32c::Extend(crc, data + kRecordHeaderSize, length);
  if (crc32c::Mask(crc) != Get32(data + offsets::kCrc)) return RecordCheck::kBadCrc;
  header->length = length;
  header->lsn = expected_lsn;
  header->txn = Get64(data + offsets::kTxn);
  header->type = static_cast<RecordType>(type);
  return RecordCheck::kOk;
}

void EncodeSegmentHeader(char* out, Lsn first_lsn) {
  std::memset(out, 0, kSegmentHeaderSize);
  std::memcpy(out + offsets::kSegMagic, kSegmentMagic, sizeof(kSegmentMagic));
  Put32(out + offsets::kSegVersion, kSegmentVersion);
  Put32(out + offsets::kSegHeaderSize, kSegmentHeaderSize);
  Put64(out + offsets::kSegFirstLsn, first_lsn);
  Put32(out + offsets::kSegCrc, crc32c::Mask(crc32c::Value(out, offsets::kSegCrc)));
}

bool DecodeSegmentHeader(const char* data, Lsn* first_lsn) {
  if (std::memcmp(data + offsets::kSegMagic, kSegmentMagic, sizeof(kSegmentMagic)) != 0) {
    return false;
  }
  if (Get32(data + offsets::kSegCrc) != crc32c::Mask(crc32c::Value(data, offsets::kSegCrc))) {
    return false;
  }
  if (Get32(data + offsets::kSegVersion) != kSegmentVersion ||
      Get32(data + offsets::kSegHeaderSize) != kSegmentHeaderSize) {
    return false;
  }
  *first_lsn = Get64(data + offsets::kSegFirstLsn);
  return true;
}

std::string SegmentFileName(Lsn first_lsn) {
  char name[32];
  std::snprintf(name, sizeof(name), "%016llX.wal", static_cast<unsigned long long>(first_lsn));
  return name;
}

bool ParseSegmentName(std::string_view name, Lsn* first_lsn) {
  if (name.size() != 20 || name.substr(16) != ".wal") return false;
  Lsn v = 0;
  for (size_t i = 0; i < 16; i++) {
    char c = name[i];
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      return false;
    }
    v = (v << 4) | static_cast<Lsn>(d);
  }
  *first_lsn = v;
  return true;
}

}  // namespace forktail::wal
