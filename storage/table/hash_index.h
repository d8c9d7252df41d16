// HashIndex: the primary-key index, an open-addressing hash table with linear
// probing and backward-shift deletion (no tombstones, so probe sequences never
// degrade after many deletes).
//
// An entry is 16 bytes: the key's 64-bit hash and the packed TupleId. The key
// itself is NOT stored; equality is checked through the table, by comparing
// the probe key with the key columns of the stored tuple (the caller's `eq`).
// Why: entries stay fixed-size for composite and string keys (four per cache
// line), the index does not duplicate key bytes, and with a 64-bit hash
// compared first, `eq` runs almost only on the true match, whose tuple the
// caller wants to read anyway.
//
// Growth: the table doubles when an insert would exceed a load factor of 0.7.
// With linear probing a miss costs about (1 + 1/(1-a)^2)/2 probes: 6 at 0.7,
// 8.5 at 0.75, 50 at 0.9. Every insert starts with a miss (the duplicate
// check), so the factor is kept where a miss is within two cache lines, at a
// memory cost of 23-46 bytes per key.
//
// Not thread-safe for writers; read-only use by several readers (a snapshot)
// is fine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "storage/ids.h"

namespace forktail {

class HashIndex {
 public:
  static constexpr size_t kMinCapacity = 16;
  static constexpr double kMaxLoadFactor = 0.7;

  HashIndex() : slots_(kMinCapacity) {}

  size_t size() const { return size_; }
  size_t capacity() const { return slots_.size(); }

  // The tuple whose key equals the probe key: among entries with this hash,
  // the first whose eq(tid) is true.
  template <typename Eq>
  std::optional<TupleId> Find(uint64_t hash, Eq&& eq) const {
    size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.tid == kEmpty) return std::nullopt;
      if (s.hash == hash && eq(TupleId::Unpack(s.tid))) return TupleId::Unpack(s.tid);
    }
  }

  // Adds an entry; the caller has made sure the key is not present.
  void Insert(uint64_t hash, TupleId tid);
  // Removes the entry (hash, tid); false if there is none.
  bool Erase(uint64_t hash, TupleId tid);
  void Clear();
  // Makes room for n entries without growing.
  void Reserve(size_t n);

  // Tests: every entry is reachable from its home slot without crossing an
  // empty slot, and the count matches.
  bool CheckInvariants() const;
  // Tests: distance of the entry (hash, tid) from its home slot, -1 if absent.
  int ProbeDistance(uint64_t hash, TupleId tid) const;

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  struct Slot {
    uint64_t hash = 0;
    uint64_t tid = kEmpty;
  };

  void Place(uint64_t hash, uint64_t tid);
  void Grow(size_t capacity);

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace forktail
