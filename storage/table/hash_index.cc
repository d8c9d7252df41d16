#include "storage/table/hash_index.h"

#include <bit>
#include <cassert>

namespace forktail {

void HashIndex::Place(uint64_t hash, uint64_t entry) {
  const size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  while (slots_[i] != kEmpty) i = (i + 1) & mask;
  slots_[i] = entry;
}

void HashIndex::Grow(size_t capacity, const HashOf& hash_of) {
  std::vector<uint64_t> old;
  old.swap(slots_);
  slots_.assign(capacity, kEmpty);
  for (uint64_t s : old) {
    if (s != kEmpty) Place(hash_of(TidOf(s)), s);
  }
}

void HashIndex::Reserve(size_t n, const HashOf& hash_of) {
  size_t want = std::bit_ceil(static_cast<size_t>(static_cast<double>(n) / kMaxLoadFactor) + 1);
  if (want > slots_.size()) Grow(want, hash_of);
}

void HashIndex::Insert(uint64_t hash, TupleId tid, const HashOf& hash_of) {
  assert(Fits(tid));
  if (static_cast<double>(size_ + 1) > kMaxLoadFactor * static_cast<double>(slots_.size())) {
    Grow(slots_.size() * 2, hash_of);
  }
  Place(hash, Entry(hash, tid));
  size_++;
}

bool HashIndex::Erase(uint64_t hash, TupleId tid, const HashOf& hash_of) {
  const size_t mask = slots_.size() - 1;
  const uint64_t entry = Entry(hash, tid);
  size_t i = hash & mask;
  while (true) {
    if (slots_[i] == kEmpty) return false;
    if (slots_[i] == entry) break;
    i = (i + 1) & mask;
  }
  // Backward shift: pull later entries of the cluster into the hole when
  // their home slot does not lie (cyclically) after the hole.
  size_t hole = i;
  for (size_t j = (hole + 1) & mask; slots_[j] != kEmpty; j = (j + 1) & mask) {
    const size_t home = hash_of(TidOf(slots_[j])) & mask;
    // The entry at j may move to `hole` iff its home is not in (hole, j].
    const bool home_in_range = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!home_in_range) {
      slots_[hole] = slots_[j];
      hole = j;
    }
  }
  slots_[hole] = kEmpty;
  size_--;
  return true;
}

void HashIndex::Clear() {
  slots_.assign(kMinCapacity, kEmpty);
  slots_.shrink_to_fit();
  size_ = 0;
}

bool HashIndex::CheckInvariants(const HashOf& hash_of) const {
  const size_t mask = slots_.size() - 1;
  size_t count = 0;
  for (size_t i = 0; i < slots_.size(); i++) {
    if (slots_[i] == kEmpty) continue;
    count++;
    const uint64_t hash = hash_of(TidOf(slots_[i]));
    if (Tag(hash) != (slots_[i] & kTagMask)) return false;
    for (size_t k = hash & mask; k != i; k = (k + 1) & mask) {
      if (slots_[k] == kEmpty) return false;
    }
  }
  return count == size_;
}

int HashIndex::ProbeDistance(uint64_t hash, TupleId tid) const {
  const size_t mask = slots_.size() - 1;
  const uint64_t entry = Entry(hash, tid);
  for (size_t d = 0, i = hash & mask; slots_[i] != kEmpty; d++, i = (i + 1) & mask) {
    if (slots_[i] == entry) return static_cast<int>(d);
  }
  return -1;
}

}  // namespace forktail
