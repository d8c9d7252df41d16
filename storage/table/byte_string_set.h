// ByteStringSet: an ordered set of byte strings (memcmp order), packed into
// leaves of about 4 KiB, for the ordered indexes (ordered_index.h).
//
// Why not std::set<std::string>: a node costs ~64 bytes plus a heap block for
// any entry past 15 bytes, ~100-120 bytes for an index entry of 20-30 bytes;
// every primary key has an ordered index besides its hash index, so for a
// 60M-row table that is the difference between ~2 GB and ~7 GB. Here an entry
// costs its bytes, a length byte (five past 254 bytes) and a 4-byte offset.
//
// Layout. A leaf holds its entries' bytes back to back in arrival order and
// a vector of offsets in key order (an insert appends the bytes and inserts
// one offset; an erase drops the offset and leaves the bytes as garbage until
// the leaf is compacted). Leaves are found through a std::map from each
// leaf's separator (the first leaf's is "", every other's is <= its first
// entry and > every entry of the leaves before it). A leaf past kLeafBytes
// splits in two by entry count; an entry appended past the largest key starts
// a new leaf instead, so that keys arriving in order fill leaves whole. A
// leaf that empties is dropped; one that shrinks below a quarter merges into
// its right neighbour when both fit in one leaf.
//
// Packed leaves. A leaf that keys arriving in order have left behind (the
// last leaf when it is full and a larger key arrives, or the left half of a
// split of the last leaf near its end) is packed: its entries are stored in
// key order, each as the length of the prefix it shares with the entry
// before, the length of the rest, and the rest (front coding, as LevelDB's
// blocks); every kRestart-th entry is stored whole and its offset kept, so a
// search is a binary search over those entries and a scan of at most
// kRestart. An index's consecutive entries share most of their key (TPC-H's
// lineitem key: 16 bytes, of which 9 are the previous entry's), so a packed
// entry takes ~9-10 bytes where a plain one takes its bytes plus 5. The
// first insert or erase into a packed leaf unpacks it, and it stays plain:
// bulk-loaded data is packed, the leaves that OLTP writes change are not.
//
// Memory. Leaves, their offsets, the map's nodes and the separators come from
// the set's own SlabPool (slab_pool.h), never from the arena that a bulk load's
// transient buffers share, so that freeing those leaves no pages pinned by
// index leaves scattered among them.
//
// Iterators are invalidated by any insert or erase. Not thread-safe; a forked
// snapshot reads its own copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/table/slab_pool.h"

namespace forktail {

class ByteStringSet {
  struct Leaf;
  // Frees a leaf into the set's pool.
  struct LeafDeleter {
    SlabPool* pool;
    void operator()(Leaf* leaf) const noexcept;
  };
  using LeafPtr = std::unique_ptr<Leaf, LeafDeleter>;
  using Separator = std::basic_string<char, std::char_traits<char>, SlabAllocator<char>>;
  using LeafMap =
      std::map<Separator, LeafPtr, std::less<>, SlabAllocator<std::pair<const Separator, LeafPtr>>>;

  // Where decoding a packed leaf stands: the entry `index` of `leaf` is
  // `key`, and the next one starts at byte `next`. Reading the entries in
  // order then decodes each once.
  struct PackedCursor {
    const Leaf* leaf = nullptr;
    size_t index = 0;
    size_t next = 0;
    std::string key;
  };

 public:
  static constexpr size_t kLeafBytes = 4096;
  static constexpr size_t kRestart = 16;  // a packed leaf stores every 16th entry whole

  ByteStringSet();
  ~ByteStringSet();
  ByteStringSet(ByteStringSet&&) noexcept;
  ByteStringSet& operator=(ByteStringSet&&) noexcept;
  ByteStringSet(const ByteStringSet& other);
  ByteStringSet& operator=(const ByteStringSet& other);

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Bytes held (entries, offsets, garbage, leaf and map overhead), roughly.
  size_t memory_bytes() const;
  // Leaves, and how many of them are packed (tests, statistics).
  size_t leaves() const { return leaves_.size(); }
  size_t packed_leaves() const;

  // False if `key` was already there / was not there.
  bool insert(std::string_view key);
  bool erase(std::string_view key);
  void clear();

  class const_iterator {
   public:
    std::string_view operator*() const;
    const_iterator& operator++();
    // To the entry before; not on begin().
    const_iterator& operator--();
    bool operator==(const const_iterator& o) const {
      return leaf_ == o.leaf_ && index_ == o.index_;
    }

   private:
    friend class ByteStringSet;
    const_iterator(LeafMap::const_iterator leaf, LeafMap::const_iterator end, size_t index);
    void SkipEmpty();
    LeafMap::const_iterator leaf_, end_;
    size_t index_ = 0;
    mutable PackedCursor cursor_;  // the entry decoded last, in a packed leaf
  };

  const_iterator begin() const;
  const_iterator end() const;
  // The first entry >= key.
  const_iterator lower_bound(std::string_view key) const;
  // Whether every entry is < key (true when empty), without a search.
  bool AllBelow(std::string_view key) const;

 private:
  // The leaf whose key range holds `key`.
  LeafMap::iterator LeafFor(std::string_view key);
  LeafMap::const_iterator LeafFor(std::string_view key) const;
  // Packs the plain leaf `it`, which keys arriving in order have left
  // behind, together with the packed leaf before it if there is one, into
  // packed leaves of kLeafBytes each (the last one partly filled: the next
  // leaf packed fills it). Unpacked, a leaf is split by the insert that
  // unpacked it.
  void PackBehind(LeafMap::iterator it);
  // Inserts `key`, not there, at `position` of the plain leaf `it`.
  bool InsertAt(LeafMap::iterator it, size_t position, std::string_view key);
  // Splits a plain leaf past kLeafBytes; `inserted`: the position of the
  // entry just inserted.
  void Split(LeafMap::iterator it, size_t inserted);
  void AfterErase(LeafMap::iterator it);
  // An empty leaf; `room`: with room for a full plain leaf.
  LeafPtr MakeLeaf(bool room = true);
  Separator MakeSeparator(std::string_view key) { return Separator(key, leaves_.get_allocator()); }

  // Declared first: destroyed after the leaves it holds. Behind a pointer so
  // that a move keeps the leaves' allocators pointing at it.
  std::unique_ptr<SlabPool> pool_;
  LeafMap leaves_;  // never empty: the first leaf (separator "") always exists
  size_t size_ = 0;
};

}  // namespace forktail
