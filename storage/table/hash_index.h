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
// The rest of the hash is not kept either, and the index never asks for it:
// with the buffer pool (tiering/buffer_pool.h) a row's block may not be in
// memory, and the transaction thread must not read it to maintain an index.
// So an erase leaves a tombstone (probes pass over it, inserts reuse it; it
// turns back into an empty slot when the slot after it is empty), and
// growth, or a rebuild that clears the tombstones, takes every (hash, tid)
// from the caller (`Entries`: the table enumerates its ordered primary-key
// index, whose entries hold the keys, and hashes their encodings).
//
// Room: the table calls NeedsRebuild() once a write's index changes are
// all made (so that its ordered index agrees) and Rebuild() when it is
// true: entries plus tombstones past a load factor of 0.7. With linear
// probing a miss costs about (1 + 1/(1-a)^2)/2 probes: 6 at 0.7, 8.5 at
// 0.75, 50 at 0.9. Every insert starts with a miss (the duplicate check),
// so the factor is kept where a miss is within a cache line or two, at a
// memory cost of 11.5-16 bytes per key (see Rebuild; 16-byte entries took
// twice that).
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

  // Enumerates every entry the index must hold, as (hash, tid) (see above).
  using Entries = std::function<void(const std::function<void(uint64_t, TupleId)>&)>;
  // The hash of the key of the row `tid` names (tests' checks only).
  using HashOf = std::function<uint64_t(TupleId)>;

  HashIndex() : slots_(kMinCapacity, kEmpty) {}

  size_t size() const { return size_; }
  size_t capacity() const { return slots_.size(); }
  size_t tombstones() const { return tombstones_; }
  size_t memory_bytes() const { return slots_.capacity() * sizeof(uint64_t); }

  // The tuple whose key equals the probe key: among entries with this hash's
  // tag, the first whose eq(tid) is true.
  template <typename Eq>
  std::optional<TupleId> Find(uint64_t hash, Eq&& eq) const {
    const uint64_t tag = Tag(hash);
    for (size_t i = Home(hash);; i = Next(i)) {
      const uint64_t s = slots_[i];
      if (s == kEmpty) return std::nullopt;
      if ((s & kTagMask) == tag && s != kTombstone && eq(TidOf(s))) return TidOf(s);
    }
  }

  // Whether an entry can name `tid` (its block and slot fit the entry).
  static bool Fits(TupleId tid) {
    return tid.block.value() <= kMaxBlock && tid.slot.value() < (uint32_t{1} << kSlotBits);
  }
  // Adds an entry; the caller has made sure the key is not present and that
  // the tid Fits. Never grows: the caller keeps room (NeedsRebuild), and a
  // table below the load factor always has an empty slot.
  void Insert(uint64_t hash, TupleId tid);
  // Removes the entry (hash, tid); false if there is none.
  bool Erase(uint64_t hash, TupleId tid);
  void Clear();
  // Entries plus tombstones are past the load factor.
  bool NeedsRebuild() const {
    return static_cast<double>(size_ + tombstones_ + 1) >
           kMaxLoadFactor * static_cast<double>(slots_.size());
  }
  // Empties the index and inserts `all`, `count` entries: tombstones are
  // gone, and when the entries need room (past 0.55 of the capacity) the
  // capacity becomes twice the entries (kGrownLoadFactor): 1.4 times what
  // it was when they reached the load factor. Capacities are not powers of
  // two (a slot is chosen by multiplying, below), so the load stays between
  // 0.5 and 0.7; doubling a power of two left it between 0.35 and 0.7, and
  // TPC-H's lineitem and orders at 0.36.
  void Rebuild(size_t count, const Entries& all);
  static constexpr double kGrownLoadFactor = 0.5;

  // Tests: every entry is reachable from its home slot without crossing an
  // empty slot, and the counts match.
  bool CheckInvariants(const HashOf& hash_of) const;

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  // Block kMaxBlock + 1 is never used, so no entry equals it either.
  static constexpr uint64_t kTombstone = ~uint64_t{0} - 1;
  static constexpr int kTidBits = kBlockBits + kSlotBits;
  static constexpr uint64_t kTagMask = ~uint64_t{0} << kTidBits;

  static uint64_t Tag(uint64_t hash) { return hash & kTagMask; }
  // The hash's home slot: its low 48 bits (the tag is the top 16) scaled to
  // the capacity, which may be any number (Lemire's multiply-shift).
  size_t Home(uint64_t hash) const {
    const unsigned __int128 position = hash & ~kTagMask;
    return static_cast<size_t>((position * slots_.size()) >> kTidBits);
  }
  size_t Next(size_t i) const { return i + 1 == slots_.size() ? 0 : i + 1; }
  size_t Prev(size_t i) const { return i == 0 ? slots_.size() - 1 : i - 1; }
  static uint64_t Entry(uint64_t hash, TupleId tid) {
    return Tag(hash) | (uint64_t{tid.block.value()} << kSlotBits) | tid.slot.value();
  }
  static TupleId TidOf(uint64_t entry) {
    return {BlockNo(static_cast<uint32_t>((entry & ~kTagMask) >> kSlotBits)),
            SlotNo(static_cast<uint32_t>(entry & ((uint64_t{1} << kSlotBits) - 1)))};
  }

  std::vector<uint64_t> slots_;
  size_t size_ = 0;
  size_t tombstones_ = 0;
};

}  // namespace forktail
