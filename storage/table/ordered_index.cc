#include "storage/table/ordered_index.h"

#include <cstring>

namespace forktail {
namespace {

constexpr size_t kTidBytes = 8;
constexpr char kValueMarker = 0x01;
constexpr char kNullMarker = 0x02;

void PutBigEndian(std::string* out, unsigned __int128 v, int bytes) {
  for (int i = bytes - 1; i >= 0; i--) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
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
    default:  // integers, narrow decimals, dates, timestamps
      PutBigEndian(out, static_cast<uint64_t>(v.GetInt()) ^ (uint64_t{1} << 63), 8);
      return;
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

std::string WithTid(const std::string& key, TupleId tid) {
  std::string entry = key;
  PutBigEndian(&entry, tid.Pack(), kTidBytes);
  return entry;
}

TupleId TidOf(std::string_view entry) {
  uint64_t packed = 0;
  for (size_t i = entry.size() - kTidBytes; i < entry.size(); i++) {
    packed = (packed << 8) | static_cast<unsigned char>(entry[i]);
  }
  return TupleId::Unpack(packed);
}

}  // namespace

OrderedIndex::Key OrderedIndex::EncodeKey(const std::vector<Value>& key) const {
  Key out;
  for (size_t i = 0; i < key.size(); i++) {
    out.has_null |= key[i].is_null();
    EncodeValue(key_types_[i], key[i], &out.bytes);
  }
  return out;
}

void OrderedIndex::Insert(const Key& key, TupleId tid) { entries_.insert(WithTid(key.bytes, tid)); }

void OrderedIndex::Erase(const Key& key, TupleId tid) { entries_.erase(WithTid(key.bytes, tid)); }

std::optional<TupleId> OrderedIndex::FindOther(const Key& key, TupleId self) const {
  if (key.has_null) return std::nullopt;
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
    EncodeValue(key_types_[i], range.equal[i], &prefix);
  }
  const Type& next = key_types_[std::min(range.equal.size(), key_types_.size() - 1)];
  std::string from = prefix, to = Successor(prefix);
  if (range.lower || range.upper) {
    // Only values of the next column, not its NULLs (which sort after them).
    from = prefix + kValueMarker;
    to = prefix + kNullMarker;
  }
  if (range.lower) {
    if (range.lower->value.is_null()) return std::vector<TupleId>{};
    std::string v = prefix;
    EncodeValue(next, range.lower->value, &v);
    from = range.lower->inclusive ? v : Successor(v);
  }
  if (range.upper) {
    if (range.upper->value.is_null()) return std::vector<TupleId>{};
    std::string v = prefix;
    EncodeValue(next, range.upper->value, &v);
    std::string bound = range.upper->inclusive ? Successor(v) : v;
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
