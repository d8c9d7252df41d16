#include "storage/table/byte_string_set.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <iterator>

namespace forktail {

// An entry in Leaf::bytes: a length byte (255: a 4-byte little-endian length
// follows), then the key's bytes.
struct ByteStringSet::Leaf {
  explicit Leaf(SlabPool* pool)
      : bytes(SlabAllocator<char>(pool)), order(SlabAllocator<uint32_t>(pool)) {}

  std::vector<char, SlabAllocator<char>> bytes;
  // Offsets of the live entries, in key order.
  std::vector<uint32_t, SlabAllocator<uint32_t>> order;
  size_t garbage = 0;  // bytes of erased entries still in `bytes`

  static size_t EncodedSize(size_t n) { return n + (n < 255 ? 1 : 5); }

  std::string_view At(size_t i) const {
    const char* p = bytes.data() + order[i];
    size_t n = static_cast<unsigned char>(*p);
    if (n < 255) return {p + 1, n};
    uint32_t wide;
    std::memcpy(&wide, p + 1, sizeof wide);
    return {p + 5, wide};
  }

  // The position of the first entry >= key.
  size_t Find(std::string_view key) const {
    size_t lo = 0, hi = order.size();
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (At(mid) < key) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  void Insert(std::string_view key, size_t position) {
    const auto offset = static_cast<uint32_t>(bytes.size());
    if (key.size() < 255) {
      bytes.push_back(static_cast<char>(key.size()));
    } else {
      bytes.push_back(static_cast<char>(255));
      const auto wide = static_cast<uint32_t>(key.size());
      const char* w = reinterpret_cast<const char*>(&wide);
      bytes.insert(bytes.end(), w, w + sizeof wide);
    }
    bytes.insert(bytes.end(), key.begin(), key.end());
    order.insert(order.begin() + static_cast<std::ptrdiff_t>(position), offset);
  }

  void Remove(size_t position) {
    garbage += EncodedSize(At(position).size());
    order.erase(order.begin() + static_cast<std::ptrdiff_t>(position));
  }

  size_t live_bytes() const { return bytes.size() - garbage; }

  // Appends entries [from, to) of `other`, which sort after every entry here.
  void AppendFrom(const Leaf& other, size_t from, size_t to) {
    for (size_t i = from; i < to; i++) Insert(other.At(i), order.size());
  }

  // Rewrites `bytes` without garbage, in key order.
  void Compact() {
    Leaf packed(bytes.get_allocator().pool());
    packed.bytes.reserve(kLeafBytes);
    packed.order.reserve(order.size());
    packed.AppendFrom(*this, 0, order.size());
    *this = std::move(packed);
  }
};

void ByteStringSet::LeafDeleter::operator()(Leaf* leaf) const noexcept {
  leaf->~Leaf();
  pool->Deallocate(leaf, sizeof(Leaf));
}

// An empty leaf with room for a full one, so that filling it never
// reallocates (growth by doubling would leave half of it unused).
ByteStringSet::LeafPtr ByteStringSet::MakeLeaf() {
  SlabPool* pool = pool_.get();
  LeafPtr leaf(new (pool->Allocate(sizeof(Leaf))) Leaf(pool), LeafDeleter{pool});
  leaf->bytes.reserve(kLeafBytes);
  leaf->order.reserve(kLeafBytes / 16);
  return leaf;
}

ByteStringSet::ByteStringSet()
    : pool_(std::make_unique<SlabPool>()), leaves_(SlabAllocator<char>(pool_.get())) {
  leaves_.emplace(MakeSeparator(""), MakeLeaf());
}

ByteStringSet::~ByteStringSet() = default;
ByteStringSet::ByteStringSet(ByteStringSet&&) noexcept = default;

ByteStringSet& ByteStringSet::operator=(ByteStringSet&& other) noexcept {
  // The leaves first: ours go back to our pool before it is replaced.
  leaves_ = std::move(other.leaves_);
  pool_ = std::move(other.pool_);
  size_ = other.size_;
  return *this;
}

ByteStringSet::ByteStringSet(const ByteStringSet& other)
    : pool_(std::make_unique<SlabPool>()),
      leaves_(SlabAllocator<char>(pool_.get())),
      size_(other.size_) {
  for (const auto& [separator, leaf] : other.leaves_) {
    LeafPtr copy = MakeLeaf();
    copy->bytes.assign(leaf->bytes.begin(), leaf->bytes.end());
    copy->order.assign(leaf->order.begin(), leaf->order.end());
    copy->garbage = leaf->garbage;
    leaves_.emplace_hint(leaves_.end(), MakeSeparator(separator), std::move(copy));
  }
}

ByteStringSet& ByteStringSet::operator=(const ByteStringSet& other) {
  if (this != &other) *this = ByteStringSet(other);
  return *this;
}

size_t ByteStringSet::memory_bytes() const { return sizeof(*this) + pool_->memory_bytes(); }

ByteStringSet::LeafMap::iterator ByteStringSet::LeafFor(std::string_view key) {
  auto it = leaves_.upper_bound(key);
  return std::prev(it);  // the first leaf's separator "" is <= every key
}

ByteStringSet::LeafMap::const_iterator ByteStringSet::LeafFor(std::string_view key) const {
  auto it = leaves_.upper_bound(key);
  return std::prev(it);
}

bool ByteStringSet::insert(std::string_view key) {
  auto it = LeafFor(key);
  Leaf& leaf = *it->second;
  const size_t position = leaf.Find(key);
  if (position < leaf.order.size() && leaf.At(position) == key) return false;
  size_++;
  const bool full = leaf.live_bytes() + Leaf::EncodedSize(key.size()) > kLeafBytes;
  if (full && position == leaf.order.size() && std::next(it) == leaves_.end() &&
      !leaf.order.empty()) {
    // Past the largest key of a full last leaf: keys arriving in order
    // leave every leaf whole.
    leaf.order.shrink_to_fit();
    LeafPtr fresh = MakeLeaf();
    fresh->Insert(key, 0);
    leaves_.emplace_hint(leaves_.end(), MakeSeparator(key), std::move(fresh));
    return true;
  }
  leaf.Insert(key, position);
  if (leaf.bytes.size() > kLeafBytes) {
    if (leaf.garbage > 0) leaf.Compact();
    if (leaf.bytes.size() > kLeafBytes && leaf.order.size() > 1) Split(it);
  }
  return true;
}

void ByteStringSet::Split(LeafMap::iterator it) {
  Leaf& leaf = *it->second;
  const size_t half = leaf.order.size() / 2;
  LeafPtr left = MakeLeaf();
  LeafPtr right = MakeLeaf();
  left->AppendFrom(leaf, 0, half);
  right->AppendFrom(leaf, half, leaf.order.size());
  Separator separator = MakeSeparator(right->At(0));
  it->second = std::move(left);
  leaves_.emplace_hint(std::next(it), std::move(separator), std::move(right));
}

bool ByteStringSet::erase(std::string_view key) {
  auto it = LeafFor(key);
  Leaf& leaf = *it->second;
  const size_t position = leaf.Find(key);
  if (position == leaf.order.size() || leaf.At(position) != key) return false;
  leaf.Remove(position);
  size_--;
  AfterErase(it);
  return true;
}

void ByteStringSet::AfterErase(LeafMap::iterator it) {
  Leaf& leaf = *it->second;
  auto next = std::next(it);
  if (leaf.order.empty()) {
    if (it != leaves_.begin()) {
      leaves_.erase(it);
    } else if (next != leaves_.end()) {
      // The first leaf keeps separator "": it takes over its neighbour.
      it->second = std::move(next->second);
      leaves_.erase(next);
    } else {
      it->second = MakeLeaf();
    }
    return;
  }
  if (leaf.live_bytes() < kLeafBytes / 4 && next != leaves_.end() &&
      leaf.live_bytes() + next->second->live_bytes() <= kLeafBytes) {
    leaf.Compact();
    leaf.AppendFrom(*next->second, 0, next->second->order.size());
    leaves_.erase(next);
    return;
  }
  if (leaf.garbage > leaf.bytes.size() / 2) leaf.Compact();
}

void ByteStringSet::clear() { *this = ByteStringSet(); }  // the pool's memory goes too

ByteStringSet::const_iterator::const_iterator(LeafMap::const_iterator leaf,
                                              LeafMap::const_iterator end, size_t index)
    : leaf_(leaf), end_(end), index_(index) {
  SkipEmpty();
}

void ByteStringSet::const_iterator::SkipEmpty() {
  while (leaf_ != end_ && index_ >= leaf_->second->order.size()) {
    ++leaf_;
    index_ = 0;
  }
}

std::string_view ByteStringSet::const_iterator::operator*() const {
  return leaf_->second->At(index_);
}

ByteStringSet::const_iterator& ByteStringSet::const_iterator::operator++() {
  index_++;
  SkipEmpty();
  return *this;
}

ByteStringSet::const_iterator& ByteStringSet::const_iterator::operator--() {
  while (index_ == 0) {  // back to the last entry of the nearest non-empty leaf
    --leaf_;
    index_ = leaf_->second->order.size();
  }
  index_--;
  return *this;
}

ByteStringSet::const_iterator ByteStringSet::begin() const {
  return const_iterator(leaves_.begin(), leaves_.end(), 0);
}

ByteStringSet::const_iterator ByteStringSet::end() const {
  return const_iterator(leaves_.end(), leaves_.end(), 0);
}

ByteStringSet::const_iterator ByteStringSet::lower_bound(std::string_view key) const {
  auto it = LeafFor(key);
  return const_iterator(it, leaves_.end(), it->second->Find(key));
}

}  // namespace forktail
