#include "olap/common/key_encoder.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>

#include "olap/common/kernel_util.h"
#include "storage/value/jsonb.h"

namespace forktail {
namespace {

static_assert(std::endian::native == std::endian::little,
              "inline key strings are read back in memory order");

// A string of at most 8 bytes as one word holding its bytes in memory order,
// zero-padded, without reading past its end: two overlapping loads for 4..8
// bytes, byte loads below. Two strings of the same length are equal iff their
// words are.
inline uint64_t InlineBytes(const char* p, size_t n) {
  if (n >= 4) {
    uint32_t lo, hi;
    memcpy(&lo, p, 4);
    memcpy(&hi, p + n - 4, 4);
    return lo | (uint64_t{hi} << (8 * (n - 4)));  // the overlap holds the same bytes
  }
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  uint64_t w = n > 0 ? u[0] : 0;
  if (n > 1) w |= uint64_t{u[1]} << 8;
  if (n > 2) w |= uint64_t{u[2]} << 16;
  return w;
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
    const uint64_t salt = 0x9E3779B97F4A7C15ULL * (c + 1);
    DispatchPhysical(v.physical(), [&]<typename T>() {
      const T* a = v.data<T>();
      // Writes row r's value into key and returns its hash. kTrim: CHAR,
      // whose trailing blanks do not count (a template argument, so that the
      // loops below are compiled for each case without a test per value).
      auto value = [&]<bool kTrim>(uint32_t r, uint64_t* key) -> uint64_t {
        if constexpr (std::is_same_v<T, std::string_view>) {
          std::string_view s = kTrim ? TrimTrailingBlanks(a[r]) : a[r];
          key[off + 1] = s.size();
          if (json) {  // equal jsonb values may differ in text (1.0, 1.00): Equal()
            key[off] = reinterpret_cast<uint64_t>(s.data());
            return std::hash<std::string>()(jsonb::EqualityText(s));
          }
          if (s.size() <= 8) {  // short strings (CHAR(1) flags, codes) inline
            key[off] = InlineBytes(s.data(), s.size());
            return key[off] ^ (uint64_t{s.size()} << 59);
          }
          key[off] = reinterpret_cast<uint64_t>(s.data());
          return std::hash<std::string_view>()(s);
        } else if constexpr (std::is_same_v<T, __int128>) {
          key[off] = static_cast<uint64_t>(a[r]);
          key[off + 1] = static_cast<uint64_t>(static_cast<unsigned __int128>(a[r]) >> 64);
          return key[off] ^ Mix(key[off + 1]);
        } else if constexpr (std::is_same_v<T, double>) {
          double d = a[r] == 0 ? 0.0 : a[r];
          if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
          memcpy(&key[off], &d, 8);
          return key[off];
        } else {
          key[off] = static_cast<uint64_t>(static_cast<int64_t>(a[r]));
          return key[off];
        }
      };
      auto encode = [&]<bool kTrim>() {
        if (nulls == nullptr) {  // the common case: no per-row NULL test
          for (uint32_t k = 0; k < rows.count; ++k) {
            const uint64_t h = value.template operator()<kTrim>(rows[k], keys + size_t{k} * w);
            hashes[k] = Mix(hashes[k] ^ (h + salt));
          }
          return;
        }
        for (uint32_t k = 0; k < rows.count; ++k) {
          const uint32_t r = rows[k];
          uint64_t* key = keys + size_t{k} * w;
          uint64_t h;
          if (NullAt(nulls, r)) {
            key[0] |= uint64_t{1} << c;
            key[off] = 0;
            if constexpr (std::is_same_v<T, std::string_view> || std::is_same_v<T, __int128>) {
              key[off + 1] = 0;
            }
            h = 0x5bd1e995 + c;
          } else {
            h = value.template operator()<kTrim>(r, key);
          }
          hashes[k] = Mix(hashes[k] ^ (h + salt));
        }
      };
      if constexpr (std::is_same_v<T, std::string_view>) {
        if (trim) {
          encode.template operator()<true>();
          return;
        }
      }
      encode.template operator()<false>();
    });
  }
}

// Keys whose words differ but whose null masks agree: strings may still be
// equal (long ones at different addresses; jsonb of different text).
bool KeyEncoder::EqualByColumn(const uint64_t* a, const uint64_t* b) const {
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
        if (n <= 8) {  // inline
          if (a[o] != b[o]) return false;
        } else if (memcmp(reinterpret_cast<const char*>(a[o]), reinterpret_cast<const char*>(b[o]),
                          n) != 0) {
          return false;
        }
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
    const uint32_t o = offsets_[c];
    if (!is_string_[c] || key[o + 1] == 0) continue;
    if (kinds_[c] == Kind::kString && key[o + 1] <= 8) continue;  // inline
    std::string_view s = arena->AddReusing({reinterpret_cast<const char*>(key[o]), key[o + 1]});
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
      const bool in_key = kinds_[c] == Kind::kString && key[o + 1] <= 8;
      d[i] = std::string_view(
          in_key ? reinterpret_cast<const char*>(&key[o]) : reinterpret_cast<const char*>(key[o]),
          key[o + 1]);
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
