#include "storage/table/hash_index.h"

#include <bit>
#include <cassert>

namespace forktail {

void HashIndex::Place(uint64_t hash, uint64_t tid) {
  size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  while (slots_[i].tid != kEmpty) i = (i + 1) & mask;
  slots_[i] = {hash, tid};
}

void HashIndex::Grow(size_t capacity) {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(capacity, Slot{});
  for (const Slot& s : old) {
    if (s.tid != kEmpty) Place(s.hash, s.tid);
  }
}

void HashIndex::Reserve(size_t n) {
  size_t want = std::bit_ceil(static_cast<size_t>(static_cast<double>(n) / kMaxLoadFactor) + 1);
  if (want > slots_.size()) Grow(want);
}

void HashIndex::Insert(uint64_t hash, TupleId tid) {
  assert(tid != kInvalidTupleId);
  if (static_cast<double>(size_ + 1) > kMaxLoadFactor * static_cast<double>(slots_.size())) {
    Grow(slots_.size() * 2);
  }
  Place(hash, tid.Pack());
  size_++;
}

bool HashIndex::Erase(uint64_t hash, TupleId tid) {
  size_t mask = slots_.size() - 1;
  uint64_t packed = tid.Pack();
  size_t i = hash & mask;
  while (true) {
    if (slots_[i].tid == kEmpty) return false;
    if (slots_[i].tid == packed && slots_[i].hash == hash) break;
    i = (i + 1) & mask;
  }
  // Backward shift: pull later entries of the cluster into the hole when
  // their home slot does not lie (cyclically) after the hole.
  size_t hole = i;
  for (size_t j = (hole + 1) & mask; slots_[j].tid != kEmpty; j = (j + 1) & mask) {
    size_t home = slots_[j].hash & mask;
    // The entry at j may move to `hole` iff its home is not in (hole, j].
    bool home_in_range = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!home_in_range) {
      slots_[hole] = slots_[j];
      hole = j;
    }
  }
  slots_[hole] = Slot{};
  size_--;
  return true;
}

void HashIndex::Clear() {
  slots_.assign(kMinCapacity, Slot{});
  size_ = 0;
}

bool HashIndex::CheckInvariants() const {
  size_t mask = slots_.size() - 1;
  size_t count = 0;
  for (size_t i = 0; i < slots_.size(); i++) {
    if (slots_[i].tid == kEmpty) continue;
    count++;
    for (size_t k = slots_[i].hash & mask; k != i; k = (k + 1) & mask) {
      if (slots_[k].tid == kEmpty) return false;
    }
  }
  return count == size_;
}

int HashIndex::ProbeDistance(uint64_t hash, TupleId tid) const {
  size_t mask = slots_.size() - 1;
  size_t home = hash & mask;
  for (size_t d = 0, i = home; slots_[i].tid != kEmpty; d++, i = (i + 1) & mask) {
    if (slots_[i].tid == tid.Pack() && slots_[i].hash == hash) return static_cast<int>(d);
  }
  return -1;
}

}  // namespace forktail
