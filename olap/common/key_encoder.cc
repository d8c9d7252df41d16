#include "olap/common/key_encoder.h"

#include <cmath>
#include <cstring>
#include <functional>

#include "olap/common/kernel_util.h"
#include "storage/value/jsonb.h"

namespace forktail {
namespace {

// The bytes of a string of at most 8 bytes as one word, without reading past
// its end: two overlapping loads for 4..8 bytes, three byte loads below.
// Two strings of the same length are equal iff their words are.
inline uint64_t ShortBytes(const char* p, size_t n) {
  if (n >= 4) {
    uint32_t lo, hi;
    memcpy(&lo, p, 4);
    memcpy(&hi, p + n - 4, 4);
    return lo | (uint64_t{hi} << 32);
  }
  if (n == 0) return 0;
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return u[0] | (uint64_t{u[n >> 1]} << 8) | (uint64_t{u[n - 1]} << 16);
}

}  // namespace

KeyEncoder::KeyEncoder(std::vector<Type> types) : types_(std::move(types)) {
  for (const Type& t : types_) {
    offsets_.push_back(words_);
    is_string_.push_back(t.StoredAsString());
    kinds_.push_back(t.id == TypeId::kJsonb ? Kind::kJsonb
                     : t.StoredAsString()   ? Kind::kString
                     : t.IsWideDecimal()    ? Kind::kWide
                                            : Kind::kWord);
    words_ += t.StoredAsString() || t.IsWideDecimal() ? 2 : 1;
    any_string_ |= t.StoredAsString();
  }
}

void KeyEncoder::Encode(const DataChunk& chunk, const std::vector<uint32_t>& cols, Rows rows,
                        uint64_t* keys, uint64_t* hashes) const {
  const uint32_t w = words_;
  for (uint32_t k = 0; k < rows.count; ++k) keys[k * w] = 0;
  for (uint32_t k = 0; k < rows.count; ++k) hashes[k] = 0x9E3779B97F4A7C15ULL;
  for (size_t c = 0; c < cols.size(); ++c) {
    const Vector& v = chunk.column(cols[c]);
    const uint32_t off = offsets_[c];
    const uint64_t* nulls = v.nulls();
    const bool trim = types_[c].id == TypeId::kChar;
    const bool json = types_[c].id == TypeId::kJsonb;
    DispatchPhysical(v.physical(), [&]<typename T>() {
      const T* a = v.data<T>();
      for (uint32_t k = 0; k < rows.count; ++k) {
        uint32_t r = rows[k];
        uint64_t* key = keys + size_t{k} * w;
        uint64_t h;
        if (NullAt(nulls, r)) {
          key[0] |= uint64_t{1} << c;
          key[off] = 0;
          if constexpr (std::is_same_v<T, std::string_view> || std::is_same_v<T, __int128>) {
            key[off + 1] = 0;
          }
          h = 0x5bd1e995 + c;
        } else if constexpr (std::is_same_v<T, std::string_view>) {
          std::string_view s = trim ? TrimTrailingBlanks(a[r]) : a[r];
          key[off] = reinterpret_cast<uint64_t>(s.data());
          key[off + 1] = s.size();
          if (json) {  // equal jsonb values may differ in text (1.0, 1.00): Equal()
            const std::string text = jsonb::EqualityText(s);
            h = std::hash<std::string_view>()(text);
          } else if (s.size() <= 8) {  // short strings (CHAR(1) flags, codes): no byte loop
            h = ShortBytes(s.data(), s.size()) ^ (uint64_t{s.size()} << 59);
          } else {
            h = std::hash<std::string_view>()(s);
          }
        } else if constexpr (std::is_same_v<T, __int128>) {
          key[off] = static_cast<uint64_t>(a[r]);
          key[off + 1] = static_cast<uint64_t>(static_cast<unsigned __int128>(a[r]) >> 64);
          h = key[off] ^ Mix(key[off + 1]);
        } else if constexpr (std::is_same_v<T, double>) {
          double d = a[r] == 0 ? 0.0 : a[r];
          if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
          memcpy(&key[off], &d, 8);
          h = key[off];
        } else {
          key[off] = static_cast<uint64_t>(static_cast<int64_t>(a[r]));
          h = key[off];
        }
        hashes[k] = Mix(hashes[k] ^ (h + 0x9E3779B97F4A7C15ULL * (c + 1)));
      }
    });
  }
}

bool KeyEncoder::Equal(const uint64_t* a, const uint64_t* b) const {
  if (!any_string_) {
    for (uint32_t i = 0; i < words_; ++i) {
      if (a[i] != b[i]) return false;
    }
    return true;
  }
  if (a[0] != b[0]) return false;
  for (size_t c = 0; c < kinds_.size(); ++c) {
    const uint32_t o = offsets_[c];
    switch (kinds_[c]) {
      case Kind::kWord:
        if (a[o] != b[o]) return false;
        break;
      case Kind::kWide:
        if (a[o] != b[o] || a[o + 1] != b[o + 1]) return false;
        break;
      case Kind::kString: {
        const size_t n = a[o + 1];
        if (n != b[o + 1]) return false;
        const auto* x = reinterpret_cast<const char*>(a[o]);
        const auto* y = reinterpret_cast<const char*>(b[o]);
        // No call for short strings (the group keys of few groups).
        if (n <= 8 ? ShortBytes(x, n) != ShortBytes(y, n) : memcmp(x, y, n) != 0) return false;
        break;
      }
      case Kind::kJsonb: {
        const std::string_view x(reinterpret_cast<const char*>(a[o]), a[o + 1]);
        const std::string_view y(reinterpret_cast<const char*>(b[o]), b[o + 1]);
        if (x != y && jsonb::Compare(x, y) != 0) return false;
        break;
      }
    }
  }
  return true;
}

void KeyEncoder::Own(uint64_t* key, StringArena* arena) const {
  if (!any_string_) return;
  for (size_t c = 0; c < types_.size(); ++c) {
    if (!is_string_[c] || key[offsets_[c] + 1] == 0) continue;
    uint32_t o = offsets_[c];
    std::string_view s = arena->Add({reinterpret_cast<const char*>(key[o]), key[o + 1]});
    key[o] = reinterpret_cast<uint64_t>(s.data());
  }
}

void KeyEncoder::Decode(const uint64_t* key, uint32_t c, Vector* out, uint32_t i) const {
  if ((key[0] >> c) & 1) {
    out->SetNull(i, true);
    return;
  }
  out->SetNull(i, false);
  uint32_t o = offsets_[c];
  DispatchPhysical(out->physical(), [&]<typename T>() {
    T* d = out->mutable_data<T>();
    if constexpr (std::is_same_v<T, std::string_view>) {
      d[i] = std::string_view(reinterpret_cast<const char*>(key[o]), key[o + 1]);
    } else if constexpr (std::is_same_v<T, double>) {
      memcpy(&d[i], &key[o], 8);
    } else if constexpr (std::is_same_v<T, __int128>) {
      d[i] = static_cast<__int128>((static_cast<unsigned __int128>(key[o + 1]) << 64) | key[o]);
    } else {
      d[i] = static_cast<T>(static_cast<int64_t>(key[o]));
    }
  });
}

}  // namespace forktail
