#include "storage/table/ordered_index.h"

#include <cassert>
#include <cstring>

#include "storage/table/hash_index.h"

namespace forktail {
namespace {

// A tid in 6 bytes: block and slot fit 48 bits as they do in the key index's
// entries (Table::AddBlock refuses block numbers past HashIndex::kMaxBlock),
// and (block << kSlotBits | slot) orders as the tids do.
constexpr size_t kTidBytes = OrderedIndex::kTidBytes;
constexpr int kSlotBits = HashIndex::kSlotBits;
constexpr char kValueMarker = 0x01;
constexpr char kNullMarker = 0x02;

void PutBigEndian(std::string* out, unsigned __int128 v, int bytes) {
  for (int i = bytes - 1; i >= 0; i--) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// Bytes of an integer-like column's encoding: its type's width.
int IntegerBytes(const Type& type) {
  switch (type.id) {
    case TypeId::kSmallInt:
      return 2;
    case TypeId::kInteger:
    case TypeId::kDate:
      return 4;
    default:
      return 8;
  }
}

// Where a probe's value lies against the values an integer-like column can
// hold (a join key or bound of a wider type may lie outside).
enum class Fit { kFits, kBelow, kAbove };
Fit FitOf(const Type& type, const Value& v) {
  const int bytes = IntegerBytes(type);
  if (bytes == 8 || v.is_null() || type.id == TypeId::kDecimal) return Fit::kFits;
  const int64_t i = v.GetInt();
  const int64_t max = (int64_t{1} << (8 * bytes - 1)) - 1;
  return i > max ? Fit::kAbove : i < -max - 1 ? Fit::kBelow : Fit::kFits;
}

void EncodeValue(const Type& type, const Value& v, std::string* out) {
  if (v.is_null()) {
    out->push_back(kNullMarker);
    return;
  }
  out->push_back(kValueMarker);
  switch (type.id) {
    case TypeId::kBoolean:
      out->push_back(v.GetBool() ? 1 : 0);
      return;
    case TypeId::kDouble: {
      double d = v.GetDouble();
      if (d == 0) d = 0;  // -0.0 and 0.0 are equal
      uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      bits = (bits >> 63) ? ~bits : bits | (uint64_t{1} << 63);
      PutBigEndian(out, bits, 8);
      return;
    }
    case TypeId::kChar:
    case TypeId::kVarchar:
    case TypeId::kText:
    case TypeId::kUuid:
    case TypeId::kBytea:
    case TypeId::kInterval:
    case TypeId::kTime:
    case TypeId::kJson:
      for (char c : v.GetString()) {
        out->push_back(c);
        if (c == '\0') out->push_back('\xFF');
      }
      out->append(2, '\0');
      return;
    case TypeId::kDecimal:
      if (type.IsWideDecimal()) {
        auto u = static_cast<unsigned __int128>(v.GetWide());
        PutBigEndian(out, u ^ (static_cast<unsigned __int128>(1) << 127), 16);
        return;
      }
      [[fallthrough]];
    default: {  // integers, narrow decimals, dates, timestamps
      const int bytes = IntegerBytes(type);
      const int64_t i = v.GetInt();
      assert(FitOf(type, v) == Fit::kFits);
      PutBigEndian(out, static_cast<uint64_t>(i) ^ (uint64_t{1} << (8 * bytes - 1)), bytes);
      return;
    }
  }
}

// The smallest string greater than every string that starts with `prefix`
// (empty: there is none, i.e. the end of the index).
std::string Successor(std::string prefix) {
  while (!prefix.empty() && static_cast<unsigned char>(prefix.back()) == 0xFF) prefix.pop_back();
  if (!prefix.empty())
    prefix.back() = static_cast<char>(static_cast<unsigned char>(prefix.back()) + 1);
  return prefix;
}

void AppendTid(std::string* entry, TupleId tid) {
  assert(HashIndex::Fits(tid));
  PutBigEndian(entry, (uint64_t{tid.block.value()} << kSlotBits) | tid.slot.value(), kTidBytes);
}

std::string WithTid(const std::string& key, TupleId tid) {
  std::string entry = key;
  AppendTid(&entry, tid);
  return entry;
}

TupleId TidOf(std::string_view entry) {
  uint64_t packed = 0;
  for (size_t i = entry.size() - kTidBytes; i < entry.size(); i++) {
    packed = (packed << 8) | static_cast<unsigned char>(entry[i]);
  }
  return {BlockNo(static_cast<uint32_t>(packed >> kSlotBits)),
          SlotNo(static_cast<uint32_t>(packed & ((uint64_t{1} << kSlotBits) - 1)))};
}

}  // namespace

TupleId OrderedIndex::TidOfEntry(std::string_view entry) { return TidOf(entry); }

void AppendOrderedKey(const Type& type, const Value& value, std::string* out) {
  EncodeValue(type, value, out);
}

OrderedIndex::Key OrderedIndex::EncodeKey(const std::vector<Value>& key) const {
  Key out;
  for (size_t i = 0; i < key.size(); i++) {
    out.has_null |= key[i].is_null();
    EncodeValue(key_types_[i], key[i], &out.bytes);
  }
  return out;
}

void OrderedIndex::Insert(const Key& key, TupleId tid) { entries_.insert(WithTid(key.bytes, tid)); }

void OrderedIndex::InsertRow(const std::vector<Value>& values, TupleId tid, std::string* scratch) {
  scratch->clear();
  for (size_t i = 0; i < values.size(); i++) EncodeValue(key_types_[i], values[i], scratch);
  AppendTid(scratch, tid);
  entries_.insert(*scratch);
}

void OrderedIndex::Erase(const Key& key, TupleId tid) { entries_.erase(WithTid(key.bytes, tid)); }

std::optional<TupleId> OrderedIndex::FindOther(const Key& key, TupleId self) const {
  if (key.has_null) return std::nullopt;
  // Past the last entry (a load in key order): none, without a search.
  if (entries_.AllBelow(key.bytes)) return std::nullopt;
  // Entries with exactly this key are those that start with it: the encoding
  // is self-delimiting and every entry has all key columns.
  for (auto it = entries_.lower_bound(key.bytes); it != entries_.end(); ++it) {
    if ((*it).substr(0, key.bytes.size()) != key.bytes) break;
    TupleId tid = TidOf(*it);
    if (tid != self) return tid;
  }
  return std::nullopt;
}

std::optional<std::vector<TupleId>> OrderedIndex::Probe(const IndexRange& range,
                                                        size_t limit) const {
  std::string prefix;
  for (size_t i = 0; i < range.equal.size(); i++) {
    if (range.equal[i].is_null()) return std::vector<TupleId>{};
    // No value of the column equals one outside its type's range.
    if (FitOf(key_types_[i], range.equal[i]) != Fit::kFits) return std::vector<TupleId>{};
    EncodeValue(key_types_[i], range.equal[i], &prefix);
  }
  const Type& next = key_types_[std::min(range.equal.size(), key_types_.size() - 1)];
  // A bound outside the next column's range either holds for every value
  // (dropped) or for none (an empty range).
  std::optional<IndexBound> lower = range.lower;
  std::optional<IndexBound> upper = range.upper;
  if (lower && !lower->value.is_null()) {
    const Fit at = FitOf(next, lower->value);
    if (at == Fit::kAbove) return std::vector<TupleId>{};
    if (at == Fit::kBelow) lower.reset();
  }
  if (upper && !upper->value.is_null()) {
    const Fit at = FitOf(next, upper->value);
    if (at == Fit::kBelow) return std::vector<TupleId>{};
    if (at == Fit::kAbove) upper.reset();
  }
  const bool bounded = range.lower || range.upper;
  std::string from = prefix, to = Successor(prefix);
  if (bounded) {
    // Only values of the next column, not its NULLs (which sort after them).
    from = prefix + kValueMarker;
    to = prefix + kNullMarker;
  }
  if (lower) {
    if (lower->value.is_null()) return std::vector<TupleId>{};
    std::string v = prefix;
    EncodeValue(next, lower->value, &v);
    from = lower->inclusive ? v : Successor(v);
  }
  if (upper) {
    if (upper->value.is_null()) return std::vector<TupleId>{};
    std::string v = prefix;
    EncodeValue(next, upper->value, &v);
    std::string bound = upper->inclusive ? Successor(v) : v;
    if (!bound.empty() && (to.empty() || bound < to)) to = std::move(bound);
  }
  std::vector<TupleId> tids;
  if (!to.empty() && from >= to) return tids;  // an empty range
  auto it = entries_.lower_bound(from);
  auto end = to.empty() ? entries_.end() : entries_.lower_bound(to);
  auto take = [&](std::string_view entry) {
    if (tids.size() == limit) return false;
    tids.push_back(TidOf(entry));
    return true;
  };
  if (range.descending) {
    for (auto at = end; at != it && tids.size() < range.first;) {
      if (!take(*--at)) return std::nullopt;
    }
  } else {
    for (; it != end && tids.size() < range.first; ++it) {
      if (!take(*it)) return std::nullopt;
    }
  }
  return tids;
}

}  // namespace forktail
