#include "storage/table/byte_string_set.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <iterator>

namespace forktail {

namespace {

void PutVarint(size_t v, std::vector<char, SlabAllocator<char>>* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

size_t VarintSize(size_t v) {
  size_t n = 1;
  for (; v >= 0x80; v >>= 7) n++;
  return n;
}

size_t GetVarint(const char* p, size_t* at) {
  size_t v = 0;
  for (int shift = 0;; shift += 7) {
    const auto b = static_cast<unsigned char>(p[(*at)++]);
    v |= size_t{b & 0x7Fu} << shift;
    if (b < 0x80) return v;
  }
}

size_t CommonPrefix(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  while (i < n && a[i] == b[i]) i++;
  return i;
}

}  // namespace

// A plain leaf: `bytes` holds its entries in arrival order, each a length
// byte (255: a 4-byte little-endian length follows) and the key's bytes;
// `order` the offsets of the live ones in key order.
// A packed leaf (see the header): `bytes` holds `count` entries in key
// order, each varint(shared) varint(rest) and the rest's bytes; `order` the
// offsets of entries 0, kRestart, 2 * kRestart, ... (stored whole).
struct ByteStringSet::Leaf {
  explicit Leaf(SlabPool* pool)
      : bytes(SlabAllocator<char>(pool)), order(SlabAllocator<uint32_t>(pool)) {}

  std::vector<char, SlabAllocator<char>> bytes;
  std::vector<uint32_t, SlabAllocator<uint32_t>> order;
  size_t garbage = 0;  // plain: bytes of erased entries still in `bytes`
  bool packed = false;
  uint32_t count = 0;        // packed: its entries
  uint32_t plain_bytes = 0;  // packed: what its entries take in a plain leaf

  static size_t EncodedSize(size_t n) { return n + (n < 255 ? 1 : 5); }

  size_t size() const { return packed ? count : order.size(); }
  bool empty() const { return size() == 0; }
  SlabPool* pool() const { return bytes.get_allocator().pool(); }

  // Entry i of a plain leaf.
  std::string_view At(size_t i) const {
    const char* p = bytes.data() + order[i];
    size_t n = static_cast<unsigned char>(*p);
    if (n < 255) return {p + 1, n};
    uint32_t wide;
    std::memcpy(&wide, p + 1, sizeof wide);
    return {p + 5, wide};
  }

  // Entry r * kRestart of a packed leaf, which is stored whole.
  std::string_view RestartKey(size_t r) const {
    size_t at = order[r];
    GetVarint(bytes.data(), &at);  // shared: 0
    const size_t rest = GetVarint(bytes.data(), &at);
    return {bytes.data() + at, rest};
  }

  // Entry i of a packed leaf, decoded into `c` (from where `c` stands when
  // it is at an entry of this leaf's group before i, else from the group's
  // restart).
  std::string_view Decode(size_t i, PackedCursor& c) const {
    if (c.leaf == this && c.index == i) return c.key;
    if (c.leaf != this || c.index > i || i / kRestart != c.index / kRestart) {
      c.leaf = this;
      c.index = i / kRestart * kRestart;
      c.next = order[i / kRestart];
      DecodeNext(c);
    }
    while (c.index < i) {
      c.index++;
      DecodeNext(c);
    }
    return c.key;
  }
  // Decodes the entry at c.next over c.key (which holds the one before).
  void DecodeNext(PackedCursor& c) const {
    const size_t shared = GetVarint(bytes.data(), &c.next);
    const size_t rest = GetVarint(bytes.data(), &c.next);
    c.key.resize(shared);
    c.key.append(bytes.data() + c.next, rest);
    c.next += rest;
  }

  // Entry i of either kind (`c` serves a packed leaf).
  std::string_view Entry(size_t i, PackedCursor& c) const { return packed ? Decode(i, c) : At(i); }

  // The position of the first entry >= key.
  size_t Find(std::string_view key) const {
    if (packed) return FindPacked(key);
    return FirstNotBelow(order.size(), key, [this](size_t i) { return At(i); });
  }
  // The first i < n whose key_at(i) >= key (n if none), key_at ascending.
  template <typename KeyAt>
  static size_t FirstNotBelow(size_t n, std::string_view key, KeyAt key_at) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (key_at(mid) < key) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
  size_t FindPacked(std::string_view key) const {
    // The first restart entry >= key; the answer is in the group before it.
    const size_t lo = FirstNotBelow(order.size(), key, [this](size_t r) { return RestartKey(r); });
    if (lo == 0) return 0;
    const size_t first = (lo - 1) * kRestart;
    const size_t last = std::min<size_t>(lo * kRestart, count);
    thread_local PackedCursor c;
    c.leaf = nullptr;  // another leaf may sit where the one it saw was
    for (size_t i = first + 1; i < last; i++) {
      if (Decode(i, c) >= key) return i;
    }
    return last;
  }

  void Insert(std::string_view key, size_t position) {
    assert(!packed);
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
    assert(!packed);
    garbage += EncodedSize(At(position).size());
    order.erase(order.begin() + static_cast<std::ptrdiff_t>(position));
  }

  // What the entries take plain (packed or not), without garbage.
  size_t live_bytes() const { return packed ? plain_bytes : bytes.size() - garbage; }

  // Appends entries [from, to) of `other` (of either kind), which sort after
  // every entry here (plain).
  void AppendFrom(const Leaf& other, size_t from, size_t to) {
    PackedCursor c;
    for (size_t i = from; i < to; i++) Insert(other.Entry(i, c), order.size());
  }

  // Rewrites a plain leaf's `bytes` without garbage, in key order.
  void Compact() {
    Leaf plain(pool());
    plain.bytes.reserve(kLeafBytes);
    plain.order.reserve(order.size());
    plain.AppendFrom(*this, 0, order.size());
    *this = std::move(plain);
  }

  // Packs entries from `from` on of `entries` (in key order), as many as
  // fit in kLeafBytes (at least one), into this leaf, whose entries it
  // replaces; returns the position after the last one packed.
  size_t PackFrom(const std::vector<std::string_view>& entries, size_t from) {
    const size_t n = entries.size();
    size_t total = 0, to = from, plain_total = 0;
    std::string_view prev;
    for (; to < n; to++) {
      const std::string_view e = entries[to];
      const size_t shared = (to - from) % kRestart == 0 ? 0 : CommonPrefix(prev, e);
      const size_t size = VarintSize(shared) + VarintSize(e.size() - shared) + e.size() - shared;
      if (to > from && total + size > kLeafBytes) break;
      total += size;
      plain_total += EncodedSize(e.size());
      prev = e;
    }
    Leaf out(pool());
    out.bytes.reserve(total);
    out.order.reserve((to - from + kRestart - 1) / kRestart);
    for (size_t i = from; i < to; i++) {
      const std::string_view e = entries[i];
      size_t shared = 0;
      if ((i - from) % kRestart == 0) {
        out.order.push_back(static_cast<uint32_t>(out.bytes.size()));
      } else {
        shared = CommonPrefix(prev, e);
      }
      PutVarint(shared, &out.bytes);
      PutVarint(e.size() - shared, &out.bytes);
      out.bytes.insert(out.bytes.end(), e.begin() + static_cast<std::ptrdiff_t>(shared), e.end());
      prev = e;
    }
    out.packed = true;
    out.count = static_cast<uint32_t>(to - from);
    out.plain_bytes = static_cast<uint32_t>(plain_total);
    *this = std::move(out);
    return to;
  }

  // Packed -> plain, with room for a full leaf.
  void Unpack() {
    if (!packed) return;
    Leaf out(pool());
    out.bytes.reserve(std::max<size_t>(kLeafBytes, plain_bytes));
    out.order.reserve(std::max<size_t>(kLeafBytes / 16, count + 1));
    out.AppendFrom(*this, 0, count);
    *this = std::move(out);
  }

  // A copy of `other` in this leaf's pool.
  void CopyFrom(const Leaf& other) {
    bytes.assign(other.bytes.begin(), other.bytes.end());
    order.assign(other.order.begin(), other.order.end());
    garbage = other.garbage;
    packed = other.packed;
    count = other.count;
    plain_bytes = other.plain_bytes;
  }
};

void ByteStringSet::LeafDeleter::operator()(Leaf* leaf) const noexcept {
  leaf->~Leaf();
  pool->Deallocate(leaf, sizeof(Leaf));
}

// An empty leaf with room for a full one, so that filling it never
// reallocates (growth by doubling would leave half of it unused).
ByteStringSet::LeafPtr ByteStringSet::MakeLeaf(bool room) {
  SlabPool* pool = pool_.get();
  LeafPtr leaf(new (pool->Allocate(sizeof(Leaf))) Leaf(pool), LeafDeleter{pool});
  if (room) {
    leaf->bytes.reserve(kLeafBytes);
    leaf->order.reserve(kLeafBytes / 16);
  }
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
    LeafPtr copy = MakeLeaf(!leaf->packed);  // a packed leaf's buffers are exact
    copy->CopyFrom(*leaf);
    leaves_.emplace_hint(leaves_.end(), MakeSeparator(separator), std::move(copy));
  }
}

ByteStringSet& ByteStringSet::operator=(const ByteStringSet& other) {
  if (this != &other) *this = ByteStringSet(other);
  return *this;
}

size_t ByteStringSet::memory_bytes() const { return sizeof(*this) + pool_->memory_bytes(); }

size_t ByteStringSet::packed_leaves() const {
  size_t n = 0;
  for (const auto& entry : leaves_) n += entry.second->packed;
  return n;
}

ByteStringSet::LeafMap::iterator ByteStringSet::LeafFor(std::string_view key) {
  auto it = leaves_.upper_bound(key);
  return std::prev(it);  // the first leaf's separator "" is <= every key
}

ByteStringSet::LeafMap::const_iterator ByteStringSet::LeafFor(std::string_view key) const {
  auto it = leaves_.upper_bound(key);
  return std::prev(it);
}

bool ByteStringSet::insert(std::string_view key) {
  // Keys arriving in order (a load, an index rebuilt at a restart, rising
  // ids) go past the largest key into the last leaf: no search of the map
  // nor of the leaf, which were most of the cost of such an insert.
  auto last = std::prev(leaves_.end());
  if (const Leaf& tail = *last->second;
      !tail.packed && !tail.order.empty() && tail.At(tail.order.size() - 1) < key) {
    return InsertAt(last, tail.order.size(), key);
  }
  auto it = LeafFor(key);
  if (it->second->packed) {
    const Leaf& packed = *it->second;
    const size_t at = packed.Find(key);
    PackedCursor c;
    if (at < packed.count && packed.Decode(at, c) == key) return false;  // stays packed
    auto next = std::next(it);
    if (at == packed.count && next != leaves_.end() && !next->second->packed) {
      // Past the end of a packed leaf and before a plain one: the key
      // becomes the plain leaf's first entry, its separator moving down to
      // the key (still above every entry before it), and the packed leaf
      // stays packed. Keys arriving nearly in order (partsupp's suppliers
      // of a part, unsorted) then leave the packed leaves alone.
      auto node = leaves_.extract(next);
      node.key() = MakeSeparator(key);
      it = leaves_.insert(std::next(it), std::move(node));
    } else {
      it->second->Unpack();
    }
  }
  const size_t position = it->second->Find(key);
  if (position < it->second->order.size() && it->second->At(position) == key) return false;
  return InsertAt(it, position, key);
}

bool ByteStringSet::InsertAt(LeafMap::iterator it, size_t position, std::string_view key) {
  Leaf& leaf = *it->second;
  size_++;
  const bool full = leaf.live_bytes() + Leaf::EncodedSize(key.size()) > kLeafBytes;
  if (full && position == leaf.order.size() && std::next(it) == leaves_.end() &&
      !leaf.order.empty()) {
    // Past the largest key of a full last leaf: keys arriving in order
    // leave every leaf whole, and packed.
    LeafPtr fresh = MakeLeaf();
    fresh->Insert(key, 0);
    leaves_.emplace_hint(leaves_.end(), MakeSeparator(key), std::move(fresh));
    PackBehind(it);
    return true;
  }
  leaf.Insert(key, position);
  if (leaf.bytes.size() > kLeafBytes) {
    if (leaf.garbage > 0) leaf.Compact();
    if (leaf.bytes.size() > kLeafBytes && leaf.order.size() > 1) Split(it, position);
  }
  return true;
}

void ByteStringSet::Split(LeafMap::iterator it, size_t inserted) {
  Leaf& leaf = *it->second;
  const size_t n = leaf.order.size();
  // The last leaf growing near its end (keys arriving nearly in order, such
  // as TPC-H's partsupp, whose four suppliers of a part come unsorted)
  // splits near its end, as PostgreSQL's btree splits its rightmost page,
  // and the left part is done: packed. Elsewhere, in halves.
  const bool tail = std::next(it) == leaves_.end() && inserted + n / 8 >= n;
  const size_t at = tail ? n - n / 8 : n / 2;
  LeafPtr left = MakeLeaf();
  LeafPtr right = MakeLeaf();
  left->AppendFrom(leaf, 0, at);
  right->AppendFrom(leaf, at, n);
  Separator separator = MakeSeparator(right->At(0));
  it->second = std::move(left);
  leaves_.emplace_hint(std::next(it), std::move(separator), std::move(right));
  if (tail) PackBehind(it);
}

void ByteStringSet::PackBehind(LeafMap::iterator it) {
  auto first = it;
  if (it != leaves_.begin() && std::prev(it)->second->packed) first = std::prev(it);
  const auto last = std::next(it);
  // Every entry of [first, it], in order: views of a plain leaf's bytes, a
  // packed one's decoded (reserved first, so that no view moves).
  thread_local std::string decoded;
  thread_local std::vector<std::string_view> entries;
  decoded.clear();
  entries.clear();
  size_t decoded_bytes = 0;
  for (auto l = first; l != last; ++l) {
    if (l->second->packed) decoded_bytes += l->second->plain_bytes;
  }
  decoded.reserve(decoded_bytes);
  for (auto l = first; l != last; ++l) {
    const Leaf& leaf = *l->second;
    PackedCursor c;
    for (size_t i = 0; i < leaf.size(); i++) {
      if (!leaf.packed) {
        entries.push_back(leaf.At(i));
        continue;
      }
      const std::string_view e = leaf.Decode(i, c);
      entries.emplace_back(decoded.data() + decoded.size(), e.size());
      decoded.append(e);
    }
  }
  // Packed leaves of kLeafBytes each, the first under `first`'s separator,
  // made before the old leaves (which the views point into) go.
  std::vector<std::pair<Separator, LeafPtr>> packed;
  for (size_t at = 0; at < entries.size();) {
    LeafPtr leaf = MakeLeaf(false);
    Separator separator = MakeSeparator(entries[at]);
    at = leaf->PackFrom(entries, at);
    packed.emplace_back(std::move(separator), std::move(leaf));
  }
  entries.clear();
  first->second = std::move(packed[0].second);
  auto after = leaves_.erase(std::next(first), last);
  for (size_t i = 1; i < packed.size(); i++) {
    leaves_.emplace_hint(after, std::move(packed[i].first), std::move(packed[i].second));
  }
}

bool ByteStringSet::erase(std::string_view key) {
  auto it = LeafFor(key);
  Leaf& leaf = *it->second;
  if (leaf.packed) {
    const size_t at = leaf.Find(key);
    PackedCursor c;
    if (at == leaf.count || leaf.Decode(at, c) != key) return false;
    leaf.Unpack();
  }
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
  if (leaf.empty()) {
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
    leaf.AppendFrom(*next->second, 0, next->second->size());
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
  while (leaf_ != end_ && index_ >= leaf_->second->size()) {
    ++leaf_;
    index_ = 0;
  }
}

std::string_view ByteStringSet::const_iterator::operator*() const {
  return leaf_->second->Entry(index_, cursor_);
}

ByteStringSet::const_iterator& ByteStringSet::const_iterator::operator++() {
  index_++;
  SkipEmpty();
  return *this;
}

ByteStringSet::const_iterator& ByteStringSet::const_iterator::operator--() {
  while (index_ == 0) {  // back to the last entry of the nearest non-empty leaf
    --leaf_;
    index_ = leaf_->second->size();
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

bool ByteStringSet::AllBelow(std::string_view key) const {
  if (size_ == 0) return true;
  auto last = std::prev(leaves_.end());
  while (last->second->empty()) --last;  // only the first leaf may be empty
  const Leaf& leaf = *last->second;
  PackedCursor c;
  return leaf.Entry(leaf.size() - 1, c) < key;
}

ByteStringSet::const_iterator ByteStringSet::lower_bound(std::string_view key) const {
  auto it = LeafFor(key);
  return const_iterator(it, leaves_.end(), it->second->Find(key));
}

}  // namespace forktail
