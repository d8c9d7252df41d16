#include "storage/table/hash_index.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstdlib>

namespace forktail {

void HashIndex::Insert(uint64_t hash, TupleId tid) {
  assert(Fits(tid));
  size_t i = Home(hash);
  while (slots_[i] != kEmpty && slots_[i] != kTombstone) i = Next(i);
  if (slots_[i] == kTombstone) tombstones_--;
  slots_[i] = Entry(hash, tid);
  size_++;
}

bool HashIndex::Erase(uint64_t hash, TupleId tid) {
  const uint64_t entry = Entry(hash, tid);
  size_t i = Home(hash);
  while (true) {
    if (slots_[i] == kEmpty) return false;
    if (slots_[i] == entry) break;
    i = Next(i);
  }
  size_--;
  if (slots_[Next(i)] != kEmpty) {
    slots_[i] = kTombstone;
    tombstones_++;
    return true;
  }
  // No probe passes beyond this slot: it, and the tombstones just before
  // it, become empty again.
  slots_[i] = kEmpty;
  for (size_t j = Prev(i); slots_[j] == kTombstone; j = Prev(j)) {
    slots_[j] = kEmpty;
    tombstones_--;
  }
  return true;
}

void HashIndex::Clear() {
  slots_.assign(kMinCapacity, kEmpty);
  slots_.shrink_to_fit();
  size_ = 0;
  tombstones_ = 0;
}

void HashIndex::Rebuild(size_t count, const Entries& all) {
  size_t capacity = slots_.size();
  if (static_cast<double>(count + 1) > 0.55 * static_cast<double>(capacity)) {
    capacity = static_cast<size_t>(static_cast<double>(count + 1) / kGrownLoadFactor) + 1;
  }
  slots_.assign(std::max(capacity, kMinCapacity), kEmpty);
  size_ = 0;
  tombstones_ = 0;
  all([this, count](uint64_t hash, TupleId tid) {
    if (size_ == count) {  // a caller's wrong count would fill the table
      std::fprintf(stderr, "forktail: HashIndex::Rebuild given more than %zu entries\n", count);
      std::abort();
    }
    Insert(hash, tid);
  });
  assert(size_ == count);
}

bool HashIndex::CheckInvariants(const HashOf& hash_of) const {
  size_t count = 0, tombstones = 0;
  for (size_t i = 0; i < slots_.size(); i++) {
    if (slots_[i] == kEmpty) continue;
    if (slots_[i] == kTombstone) {
      tombstones++;
      continue;
    }
    count++;
    const uint64_t hash = hash_of(TidOf(slots_[i]));
    if (Tag(hash) != (slots_[i] & kTagMask)) return false;
    for (size_t k = Home(hash); k != i; k = Next(k)) {
      if (slots_[k] == kEmpty) return false;
    }
  }
  return count == size_ && tombstones == tombstones_;
}

}  // namespace forktail
