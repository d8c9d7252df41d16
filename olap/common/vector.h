// Vectors: the unit the olap kernels work on.
//
// A Vector holds up to kVectorSize values of one physical type plus a null
// bitmap. Its data either belongs to the vector (an owned, 64-byte aligned
// buffer of kVectorSize slots) or is borrowed: WrapStripe() points a vector at
// a slice of a block's column stripe and at the matching words of the block's
// null bitmap without copying, so a storage scan hands its stripes over as is.
//
//   SQL type                 physical type   C++ element
//   BOOLEAN                  kBool           uint8_t (0/1)
//   SMALLINT                 kInt16          int16_t
//   INTEGER, DATE            kInt32          int32_t
//   BIGINT, DECIMAL, TIMEST. kInt64          int64_t (DECIMAL p <= 18 unscaled)
//   DECIMAL p 19..38         kInt128         __int128 (unscaled)
//   DOUBLE                   kDouble         double
//   CHAR/VARCHAR/TEXT        kString         std::string_view
//
// Null bitmap: bit i of word i/64 set means row i is NULL (the block's own
// convention, so stripes wrap without conversion). A null pointer means "no
// NULLs". Values under a NULL bit are unspecified.
//
// Rows are addressed physically: a selection vector (SelectionVector, in
// data_chunk.h) lists the live row indexes; kernels read and write only the
// rows it lists, at their physical positions, so filters never move data.
//
// Strings are string_views into memory someone else keeps alive: a block heap
// (alive as long as the snapshot), an input vector (SUBSTRING returns views
// into its argument), or a StringArena that the vector shares ownership of.
#pragma once

#include <cassert>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "storage/value/types.h"

namespace forktail {

inline constexpr uint32_t kVectorSize = 2048;
static_assert(kVectorSize % 64 == 0, "stripe slices must start on a null-bitmap word");

enum class PhysicalType : uint8_t { kBool, kInt16, kInt32, kInt64, kDouble, kString, kInt128 };

PhysicalType PhysicalTypeOf(const Type& type);
uint32_t PhysicalWidth(PhysicalType p);

// The C++ element type of a physical type, for templates.
template <PhysicalType P>
struct PhysicalTraits;
template <>
struct PhysicalTraits<PhysicalType::kBool> {
  using T = uint8_t;
};
template <>
struct PhysicalTraits<PhysicalType::kInt16> {
  using T = int16_t;
};
template <>
struct PhysicalTraits<PhysicalType::kInt32> {
  using T = int32_t;
};
template <>
struct PhysicalTraits<PhysicalType::kInt64> {
  using T = int64_t;
};
template <>
struct PhysicalTraits<PhysicalType::kInt128> {
  using T = __int128;
};
template <>
struct PhysicalTraits<PhysicalType::kDouble> {
  using T = double;
};
template <>
struct PhysicalTraits<PhysicalType::kString> {
  using T = std::string_view;
};

// Calls f(PhysicalTraits<P>{}) style dispatch: f.template operator()<T>().
// One switch per vector, never per value. Note -std=c++20 (no GNU
// extensions): std::is_integral_v<__int128> is false, so code that treats
// "integral" T generically must handle __int128 (wide DECIMAL) explicitly.
template <typename F>
decltype(auto) DispatchPhysical(PhysicalType p, F&& f) {
  switch (p) {
    case PhysicalType::kBool:
      return f.template operator()<uint8_t>();
    case PhysicalType::kInt16:
      return f.template operator()<int16_t>();
    case PhysicalType::kInt32:
      return f.template operator()<int32_t>();
    case PhysicalType::kInt64:
      return f.template operator()<int64_t>();
    case PhysicalType::kDouble:
      return f.template operator()<double>();
    case PhysicalType::kString:
      return f.template operator()<std::string_view>();
    case PhysicalType::kInt128:
      return f.template operator()<__int128>();
  }
  abort();
}

// Append-only byte arena for strings made by kernels (CAST, CASE over
// strings, materialized join/aggregate output). Views stay valid for the
// arena's lifetime; chunks are never moved.
class StringArena {
 public:
  std::string_view Add(std::string_view s);
  // `n` bytes to write into, valid for the arena's lifetime.
  char* Allocate(size_t n);
  // Add, except that a string copied here a moment ago from the same source
  // address, with the same bytes, is returned again instead of copied (a
  // small cache keyed by the address, verified byte for byte). Joins repeat
  // a dimension row's strings for every matching row: reusing one copy
  // saves the copies and keeps later hashing and comparing in cache.
  std::string_view AddReusing(std::string_view s);
  size_t bytes() const { return used_total_; }

 private:
  static constexpr size_t kChunkBytes = 64 * 1024;
  static constexpr size_t kReuseSlots = 64;
  struct Copy {
    const char* source = nullptr;
    std::string_view copy;
  };
  std::vector<std::unique_ptr<char[]>> chunks_;
  size_t used_ = kChunkBytes;
  size_t used_total_ = 0;
  std::unique_ptr<Copy[]> recent_;  // kReuseSlots, made on first use
};

inline bool NullAt(const uint64_t* nulls, uint32_t i) {
  return nulls != nullptr && ((nulls[i >> 6] >> (i & 63)) & 1);
}

class Vector {
 public:
  Vector() = default;
  // An owned, writable vector of `type` (all rows valid initially).
  explicit Vector(const Type& type) { Reset(type); }

  Vector(const Vector&) = delete;
  Vector& operator=(const Vector&) = delete;
  Vector(Vector&&) = default;
  Vector& operator=(Vector&&) = default;

  // Makes this an owned, writable vector of `type`, no NULLs.
  void Reset(const Type& type);

  // Borrows `count` (<= kVectorSize) values of a block stripe starting at row
  // `first` (a multiple of 64): data = stripe + first * width, nulls = the
  // null bitmap's words from first / 64, or nullptr when rows first ..
  // first + count - 1 hold no NULL. No copy.
  void WrapStripe(const Type& type, const void* stripe, const uint64_t* null_bitmap, uint32_t first,
                  uint32_t count = kVectorSize);
  // Strings in a block are {uint32 offset, uint32 length} refs into the block
  // heap; views must be built, so this writes into an owned buffer (one pass,
  // no byte copies).
  void WrapStringRefs(const Type& type, const void* refs, const char* heap,
                      const uint64_t* null_bitmap, uint32_t first, uint32_t count);

  const Type& type() const { return type_; }
  PhysicalType physical() const { return physical_; }

  template <typename T>
  const T* data() const {
    return static_cast<const T*>(data_);
  }
  // Only for owned vectors.
  template <typename T>
  T* mutable_data() {
    assert(owned_ != nullptr && data_ == owned_.get());
    return reinterpret_cast<T*>(owned_.get());
  }

  const uint64_t* nulls() const { return nulls_; }
  bool IsNull(uint32_t i) const { return NullAt(nulls_, i); }
  // Owned null bitmap, created (all valid) on first use.
  uint64_t* mutable_nulls();
  // Inline: called per value by the decoders and gathers; clearing the null
  // of a vector without a bitmap is free.
  void SetNull(uint32_t i, bool is_null) {
    if (!is_null && nulls_ == nullptr) return;
    uint64_t* n = mutable_nulls();
    if (is_null) {
      n[i >> 6] |= uint64_t{1} << (i & 63);
    } else {
      n[i >> 6] &= ~(uint64_t{1} << (i & 63));
    }
  }
  // Drops the null bitmap (every row valid).
  void ClearNulls() { nulls_ = nullptr; }

  // Keeps `arena` alive as long as this vector (for string views into it).
  void KeepAlive(std::shared_ptr<StringArena> arena);
  // A chunk-owned arena to allocate output strings in.
  StringArena* arena();
  // Forgets the arenas (a scratch vector does this before each evaluation;
  // whoever still holds one keeps it alive).
  void ResetAuxiliary() {
    arenas_.clear();
    own_arena_.reset();
  }
  // Keeps other's borrowed memory alive too (views into other's strings).
  void ShareAuxiliary(const Vector& other);

 private:
  Type type_;
  PhysicalType physical_ = PhysicalType::kInt32;
  const void* data_ = nullptr;
  const uint64_t* nulls_ = nullptr;
  // A thread's recently freed value buffers are reused by its next Reset:
  // expression executors and chunks for a few rows (OLTP statements) are
  // built and dropped per statement, and a 32 KiB malloc and free each time
  // cost more than evaluating the rows.
  struct BufferRecycler {
    void operator()(uint64_t* buffer) const;
  };
  std::unique_ptr<uint64_t[], BufferRecycler>
      owned_;                                // kVectorSize 16-byte slots (string_view, __int128)
  std::unique_ptr<uint64_t[]> owned_nulls_;  // kVectorSize / 64 words
  std::vector<std::shared_ptr<StringArena>> arenas_;  // kept alive for borrowed views
  std::shared_ptr<StringArena> own_arena_;
};

}  // namespace forktail
