// The SSD tier's persistent slot table: which block version each 2 MiB slot of
// the slot file holds (DESIGN.md, Tiering; the DB2 BLU SSD-cache design).
//
// File DIR/slots.table, fixed size, one 512-byte sector per record so that a
// torn write can damage at most the record it was writing (each record carries
// its own CRC; a record whose CRC fails reads as an empty slot):
//
//   sector 0       header: magic u32 | format u32 | slot count u32 | slot bytes u32 | crc u32
//   sector 1 + i   slot i: magic u32 | state u32 | table u32 | block u32 | version u64 |
//                          length u32 | image crc u32 | temperature u64 | crc u32
//
// (little-endian; crc = masked CRC32C over the bytes before it in its sector).
// A slot is usable only when its record is valid AND the slot's bytes match
// the image CRC: the replacement protocol (ssd_tier.h) invalidates a record
// durably before its slot's bytes change and validates it only after they
// are durable, so neither a torn record nor a torn slot is ever read as a
// block.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "recovery/cold_store.h"
#include "storage/storage.h"

namespace forktail::tier {

using ckpt::BlockKey;

inline constexpr size_t kSlotBytes = size_t{2} << 20;  // one block image at most
inline constexpr size_t kSectorBytes = 512;
inline constexpr uint32_t kSlotTableMagic = 0x54535446;   // "FTST"
inline constexpr uint32_t kSlotRecordMagic = 0x45535446;  // "FTSE"
inline constexpr uint32_t kSlotTableFormat = 1;

struct SlotRecord {
  bool valid = false;
  BlockKey key;
  uint32_t length = 0;       // image bytes in the slot
  uint32_t image_crc = 0;    // masked CRC32C of those bytes
  uint64_t temperature = 0;  // accesses, halved now and then (ssd_tier.h)

  // One sector. EncodeSector of an invalid record writes state 0 and no key.
  void EncodeSector(char* sector) const;
  // false when the sector is not a record with a good CRC (torn, zero, garbage).
  static bool DecodeSector(const char* sector, SlotRecord* out);
};

// The table file: read whole at open, records written in place, synced on demand.
class SlotTableFile {
 public:
  SlotTableFile() = default;
  ~SlotTableFile();
  SlotTableFile(const SlotTableFile&) = delete;
  SlotTableFile& operator=(const SlotTableFile&) = delete;

  // Opens DIR/slots.table. With create and no file (or a file for another
  // slot count), writes a new table of `slots` empty records and syncs it;
  // *created tells. Without create, NotFound when there is no table and
  // Corruption when the header is bad. `records` gets one entry per slot
  // (records that fail their CRC come back invalid; *torn counts them).
  Status Open(const std::string& dir, bool create, uint32_t slots, bool* created,
              std::vector<SlotRecord>* records, uint32_t* torn);
  Status Write(uint32_t slot, const SlotRecord& record);
  Status Sync();
  uint32_t slot_count() const { return slot_count_; }
  static std::string PathIn(const std::string& dir);

 private:
  Status Create(const std::string& path, uint32_t slots);
  int fd_ = -1;
  uint32_t slot_count_ = 0;
  std::string path_;
};

}  // namespace forktail::tier
