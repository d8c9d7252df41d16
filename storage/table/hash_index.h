// HashIndex: the primary-key index, an open-addressing hash table with linear
// probing and backward-shift deletion (no tombstones, so probe sequences never
// degrade after many deletes).
//
// An entry is one 64-bit word: the top 16 bits of the key's hash (the tag)
// and the TupleId in the low 48 (27 bits of block number, 21 of slot; a 2 MiB
// block holds fewer than 2^21 rows). The key itself is NOT stored; equality
// is checked through the table, by comparing the probe key with the key
// columns of the stored tuple (the caller's `eq`). Why: entries stay
// fixed-size for composite and string keys (eight per cache line), the index
// does not duplicate key bytes, and with the tag compared first, `eq` runs on
// a false match once in 65,536 probed entries, almost only on the true match,
// whose tuple the caller wants to read anyway.
//
// The rest of the hash is not kept either: where the index needs an entry's
// home slot (growing, and shifting entries back after an erase) it asks the
// caller for the hash of the row the entry names (`HashOf`; the table hashes
// the row's stored key). So the rows must hold the keys their entries were
// inserted with whenever the index changes: the table erases an entry before
// it changes or deletes the row and inserts one after the row is in place.
//
// Growth: the table doubles when an insert would exceed a load factor of 0.7.
// With linear probing a miss costs about (1 + 1/(1-a)^2)/2 probes: 6 at 0.7,
// 8.5 at 0.75, 50 at 0.9. Every insert starts with a miss (the duplicate
// check), so the factor is kept where a miss is within a cache line or two,
// at a memory cost of 11.5-23 bytes per key (16-byte entries took twice that).
//
// Not thread-safe for writers; read-only use by several readers (a snapshot)
// is fine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "storage/ids.h"

namespace forktail {

class HashIndex {
 public:
  static constexpr size_t kMinCapacity = 16;
  static constexpr double kMaxLoadFactor = 0.7;
  static constexpr int kSlotBits = 21;
  static constexpr int kBlockBits = 27;
  // The largest block number an entry can name (the all-ones entry is the
  // empty slot, so the last block number is never used).
  static constexpr uint32_t kMaxBlock = (uint32_t{1} << kBlockBits) - 2;

  // The hash of the key of the row `tid` names (see above).
  using HashOf = std::function<uint64_t(TupleId)>;

  HashIndex() : slots_(kMinCapacity, kEmpty) {}

  size_t size() const { return size_; }
  size_t capacity() const { return slots_.size(); }
  size_t memory_bytes() const { return slots_.capacity() * sizeof(uint64_t); }

  // The tuple whose key equals the probe key: among entries with this hash's
  // tag, the first whose eq(tid) is true.
  template <typename Eq>
  std::optional<TupleId> Find(uint64_t hash, Eq&& eq) const {
    const size_t mask = slots_.size() - 1;
    const uint64_t tag = Tag(hash);
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      const uint64_t s = slots_[i];
      if (s == kEmpty) return std::nullopt;
      if ((s & kTagMask) == tag && eq(TidOf(s))) return TidOf(s);
    }
  }

  // Whether an entry can name `tid` (its block and slot fit the entry).
  static bool Fits(TupleId tid) {
    return tid.block.value() <= kMaxBlock && tid.slot.value() < (uint32_t{1} << kSlotBits);
  }
  // Adds an entry; the caller has made sure the key is not present and that
  // the tid Fits.
  void Insert(uint64_t hash, TupleId tid, const HashOf& hash_of);
  // Removes the entry (hash, tid); false if there is none.
  bool Erase(uint64_t hash, TupleId tid, const HashOf& hash_of);
  void Clear();
  // Makes room for n entries without growing.
  void Reserve(size_t n, const HashOf& hash_of);

  // Tests: every entry is reachable from its home slot without crossing an
  // empty slot, and the count matches.
  bool CheckInvariants(const HashOf& hash_of) const;
  // Tests: distance of the entry (hash, tid) from its home slot, -1 if absent.
  int ProbeDistance(uint64_t hash, TupleId tid) const;

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  static constexpr int kTidBits = kBlockBits + kSlotBits;
  static constexpr uint64_t kTagMask = ~uint64_t{0} << kTidBits;

  static uint64_t Tag(uint64_t hash) { return hash & kTagMask; }
  static uint64_t Entry(uint64_t hash, TupleId tid) {
    return Tag(hash) | (uint64_t{tid.block.value()} << kSlotBits) | tid.slot.value();
  }
  static TupleId TidOf(uint64_t entry) {
    return {BlockNo(static_cast<uint32_t>((entry & ~kTagMask) >> kSlotBits)),
            SlotNo(static_cast<uint32_t>(entry & ((uint64_t{1} << kSlotBits) - 1)))};
  }

  void Place(uint64_t hash, uint64_t entry);
  void Grow(size_t capacity, const HashOf& hash_of);

  std::vector<uint64_t> slots_;
  size_t size_ = 0;
};

}  // namespace forktail
