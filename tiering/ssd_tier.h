// SsdTier: block images cached on an SSD in front of the RocksDB cold store
// (DESIGN.md, Tiering; invariant 3). A slot file of 2 MiB slots
// (slot_file.h) and a persistent slot table (slot_table.h) in one directory.
//
// Write-through: a valid slot holds exactly the cold-store image of one block
// version (table, block, version). Images enter by Admit, copied from the cold
// store or from what was just written to it; nothing is ever written to the
// tier that the cold store does not hold.
//
// Replacing slots (Admit), in three durable steps per batch:
//   1. invalidate: every chosen slot whose record may be valid on disk gets an
//      invalid record; the table is synced;
//   2. data: the images are written into the slots; the slot file is synced;
//   3. validate: the records (key, length, CRC, temperature) are written; the
//      table is synced.
// A crash after step 1 leaves invalid slots, after step 2 invalid slots with
// new bytes, after step 3 valid slots whose bytes are durable. A torn record
// fails its CRC and reads as invalid; a slot's bytes are checked against the
// record's CRC on every read, and a slot that fails is dropped (durably) and
// read from the cold store instead. So a read from the tier is the right
// version or is not used - never torn, never stale.
//
// Versions: keys name exact versions, so a newer version of a block never
// matches an older slot. DropStale removes slots whose version the current
// checkpoint manifest does not name (the SSD copy older OR newer than the
// cold store's current image) unless pinned: a snapshot that may still read
// a version pins it, and a pinned slot is neither replaced nor dropped.
//
// Temperature: a slot's temperature counts its reads and the use epochs its
// block spent in use in memory (AddHeat, at each checkpoint); every 8 x
// slots of those, all temperatures halve, so that they follow the recent
// past. Admission takes a free slot, else the coldest unpinned slot that is
// colder than the newcomer.
// (A checkpoint's new version of a block inherits the heat of the old one.)
// Temperatures reach the disk with PersistTemperatures (and each validate).
//
// Thread-safe (one mutex); the I/O of a call runs under it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tiering/slot_file.h"
#include "tiering/slot_table.h"

namespace forktail::tier {

// The durable steps of a replacement, in order; the fault-injection seam.
enum class TierStep {
  kInvalidateWrite,
  kInvalidateSync,
  kDataWrite,
  kDataSync,
  kValidateWrite,
  kValidateSync
};
inline constexpr int kTierStepCount = 6;
const char* TierStepName(TierStep step);

// The CRC a slot record keeps of its image (masked CRC32C).
uint32_t ImageCrc(const char* data, size_t n);

struct SsdTierOptions {
  // Slots to create (or resize to) when the tier is opened for writing.
  uint32_t slots = 0;
  // false: open an existing tier without changing any file (tools); NotFound
  // when there is none. Drops then only forget slots in memory, and Admit
  // takes nothing in.
  bool writable = true;
  // Tests: runs before each step; a non-Ok status fails the step (and a test
  // may kill the process here).
  std::function<Status(TierStep)> before_step;
};

struct TierStats {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t admitted = 0;
  uint64_t evicted = 0;       // valid slots replaced by colder-than-newcomer admission
  uint64_t not_admitted = 0;  // no free or colder slot, or an image larger than a slot
  uint64_t dropped_stale = 0;
  uint64_t dropped_corrupt = 0;  // bytes that failed the record's CRC on a read
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
};

struct SlotInfo {
  uint32_t slot = 0;
  SlotRecord record;
  bool pinned = false;
};

class SsdTier {
 public:
  static Status Open(const std::string& dir, const SsdTierOptions& options,
                     std::unique_ptr<SsdTier>* out);

  uint32_t slot_count() const { return table_.slot_count(); }
  uint32_t valid_count() const;
  // Records that failed their CRC when the table was opened (read as invalid).
  uint32_t torn_at_open() const { return torn_at_open_; }
  bool created() const { return created_; }
  bool direct() const { return data_.direct(); }
  bool uring() const { return data_.uring(); }
  TierStats stats() const;

  // Drops every valid, unpinned slot whose key is not in `current`.
  Status DropStale(const std::set<BlockKey>& current, uint64_t* dropped);
  // found[i] and images[i] for keys[i]. A slot whose bytes fail its CRC is
  // dropped and reported as not found. An I/O error fails the call.
  // Where the tier holds `key` now, for a reader that reads the slot file
  // itself (a snapshot process: tiering/block_server.h) and checks the bytes
  // against record->image_crc, since the slot may be replaced once this
  // returns. Counted as a hit (the temperature rises). false: not held.
  bool Locate(const BlockKey& key, uint32_t* slot, SlotRecord* record);
  Status Read(const std::vector<BlockKey>& keys, std::vector<std::string>* images,
              std::vector<bool>* found);
  // Copies images of the cold store into the tier (see the protocol above),
  // keys[i] at temperatures[i]. Keys already held are left as they are.
  // *admitted counts new slots.
  Status Admit(const std::vector<BlockKey>& keys, const std::vector<std::string_view>& images,
               const std::vector<uint64_t>& temperatures, uint64_t* admitted);
  // Per key, the highest temperature of a slot holding any version of its
  // block (0 if none): a new version inherits its predecessor's heat.
  std::vector<uint64_t> BlockTemperatures(const std::vector<BlockKey>& keys) const;
  // For each (key, n) of `heat`, adds n to the temperature of every slot
  // holding a version of key's block: uses the tier did not see (the block
  // was in memory).
  void AddHeat(const std::vector<std::pair<BlockKey, uint64_t>>& heat);
  void Pin(const BlockKey& key);
  void Unpin(const BlockKey& key);
  Status PersistTemperatures();

  // Valid keys, hottest first (the order of a warm restart's loads).
  std::vector<BlockKey> HottestFirst() const;
  std::vector<SlotInfo> Slots() const;

 private:
  SsdTier() = default;
  Status Step(TierStep step);
  Status Invalidate(const std::vector<uint32_t>& slots);  // steps 1 (write + sync)
  Status AdmitBatch(const std::vector<std::pair<uint32_t, size_t>>& placed,
                    const std::vector<BlockKey>& keys, const std::vector<std::string_view>& images,
                    const std::vector<uint64_t>& temperatures);
  void Forget(uint32_t slot);
  // A read of `slot`'s image: counted, and the slot is warmer. Every 8 reads
  // per slot, all temperatures halve (DecayIfDue).
  void NoteHit(uint32_t slot);
  void DecayIfDue();
  bool Pinned(const BlockKey& key) const { return pins_.count(key) > 0; }

  mutable std::mutex mu_;
  SsdTierOptions options_;
  SlotTableFile table_;
  SlotFile data_;
  std::vector<SlotRecord> records_;  // valid = usable now
  // Set when the slot's record may read valid on disk: its bytes must not
  // change until an invalid record for it is durable (step 1).
  std::vector<uint8_t> maybe_valid_on_disk_;
  std::vector<uint8_t> temperature_dirty_;
  std::map<BlockKey, uint32_t> slot_of_;
  std::map<BlockKey, int> pins_;
  uint64_t reads_since_decay_ = 0;
  uint32_t torn_at_open_ = 0;
  bool created_ = false;
  TierStats stats_;
};

}  // namespace forktail::tier
