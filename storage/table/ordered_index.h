// OrderedIndex: a secondary index (CREATE [UNIQUE] INDEX), ordered, over one or
// more columns, for equality on a prefix of its columns and a range on the
// next one.
//
// Entries are byte strings: the key columns' values in an order-preserving
// encoding (memcmp order = the values' order), then the row's TupleId
// (6 bytes, big-endian: block << 21 | slot, as in the key index).
// Appending the tid makes every entry distinct, so duplicates of a
// non-unique key are simply adjacent entries, and the tid comes back with
// the entry without a separate payload.
//
// Encoding (each component self-delimiting, so no value's encoding is a
// prefix of another's and "all entries whose column k equals v" is a
// contiguous range with a common prefix). A component is a marker byte, 0x01
// for a value and 0x02 for NULL (NULLs sort last, as in PostgreSQL's btree),
// then for a value:
//   smallint                                      2 bytes big-endian, sign
//                                                 bit flipped
//   integer, date                                 4 bytes, same
//   bigint, timestamps, narrow decimals           8 bytes, same
//   wide decimals                                 16 bytes, same
//   booleans                                      1 byte
//   strings (CHAR stored padded, VARCHAR, TEXT)   bytes with 0x00 written as
//                                                 0x00 0xFF, then 0x00 0x00
//   doubles                                       IEEE bits, sign-flipped
//                                                 (negative: all bits flipped)
// A probe's value outside its column type's range (a join key of a wider
// type) equals no row, and as a bound it holds for all rows or for none.
// Every live row has an entry, NULLs included: a probe on a prefix of the
// columns must find rows whose later columns are NULL. A probe's values and
// bounds are never NULL (no comparison matches NULL), and a unique index
// never sees a conflict in a key that has a NULL (as in PostgreSQL).
//
// The entries live in a ByteStringSet (byte_string_set.h): leaves under an
// ordered map, an entry's bytes plus 5 where a std::set of strings took ~110
// for a 26-byte entry; leaves that a load in key order (COPY of a sorted
// file) left behind are front-coded, ~12 bytes for TPC-H lineitem's 16-byte
// entries (a key of two integers and a tid).
//
// Threads: mutated only by the transaction thread; a forked snapshot reads
// its copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/ids.h"
#include "storage/table/byte_string_set.h"
#include "storage/table/schema.h"
#include "storage/value/value.h"

namespace forktail {

// One side of a range on the column after the equality prefix.
struct IndexBound {
  Value value;  // already of the column's type
  bool inclusive = true;
};

// Which rows an index lookup should return: those whose first equal.size()
// key columns equal `equal` (values of the columns' types, none NULL) and,
// if set, whose next column lies within [lower, upper].
struct IndexRange {
  // Position in TableSchema::indexes; kPrimaryKey for the primary-key hash
  // index (then `equal` is the whole key and there are no bounds);
  // kPrimaryKeyOrder for the primary key's ordered index (a prefix of the
  // key, a range on the next column), as PostgreSQL's btree serves them.
  static constexpr int kPrimaryKey = -1;
  static constexpr int kPrimaryKeyOrder = -2;
  int index = kPrimaryKey;
  std::vector<Value> equal;
  std::optional<IndexBound> lower;
  std::optional<IndexBound> upper;
  // Only the first `first` entries of the range in key order (descending:
  // from its end): ORDER BY the columns after `equal` ... LIMIT first.
  // Ordered indexes only.
  size_t first = SIZE_MAX;
  bool descending = false;
  // Non-empty: the union of these ranges' rows (an OR or IN list, one probe
  // per branch; each with its own `index`), in no particular order; the
  // fields above are then not looked at.
  std::vector<IndexRange> any_of;
};

// A value of `type` in the index's order-preserving encoding (memcmp order
// is the values' order; NULL after every value; prefix-free, so encodings
// can be concatenated): also the sort keys of string_agg(... ORDER BY).
void AppendOrderedKey(const Type& type, const Value& value, std::string* out);

class OrderedIndex {
 public:
  static constexpr size_t kTidBytes = 6;  // the tid after the key (see above)
  static TupleId TidOfEntry(std::string_view entry);

  explicit OrderedIndex(const std::vector<Type>& key_types) : key_types_(key_types) {}

  size_t size() const { return entries_.size(); }
  size_t memory_bytes() const { return entries_.memory_bytes(); }
  const std::vector<Type>& key_types() const { return key_types_; }

  // A row's key: the encoded values (of the key types), without the tid.
  struct Key {
    std::string bytes;
    bool has_null = false;  // never a unique conflict

    friend bool operator==(const Key&, const Key&) = default;
  };
  Key EncodeKey(const std::vector<Value>& key) const;

  // Adds or removes the entry of a row whose encoded key is `key`.
  void Insert(const Key& key, TupleId tid);
  // Insert(EncodeKey(values), tid), encoded into `scratch` (kept by a caller
  // that adds many rows: a load allocates nothing per row).
  void InsertRow(const std::vector<Value>& values, TupleId tid, std::string* scratch);
  void Erase(const Key& key, TupleId tid);
  void Clear() { entries_.clear(); }

  // Calls fn(key bytes, tid) for every entry, in key order (the bytes are
  // EncodeKey(..).bytes of the row's key).
  template <typename Fn>
  void ForEachEntry(Fn&& fn) const {
    for (std::string_view entry : entries_) {
      fn(entry.substr(0, entry.size() - kTidBytes), TidOfEntry(entry));
    }
  }

  // A row other than `self` with the same key (unique checks; a key with a
  // NULL has none).
  std::optional<TupleId> FindOther(const Key& key, TupleId self) const;

  // The tids of the entries in `range` (its `index` is not looked at), in key
  // order (reversed if range.descending; at most range.first of them);
  // nullopt as soon as there are more than `limit`.
  std::optional<std::vector<TupleId>> Probe(const IndexRange& range, size_t limit) const;

 private:
  std::vector<Type> key_types_;
  ByteStringSet entries_;
};

}  // namespace forktail
