// Hashing and ordering of values of one column type, as storage needs them
// for the primary-key index and for statistics. Both sides are always of the
// column's exact type (the table casts first), so this compares and hashes
// the physical representation directly and does not go through Value's
// cross-type rules.
//
//   integers, DECIMAL, DATE, TIMESTAMP, BOOLEAN   the int64 (unscaled / days / micros)
//   DOUBLE   by value; -0 == 0; NaN equals NaN and sorts above every number (PostgreSQL)
//   strings  bytewise (CHAR values are stored blank-padded to n, so bytes suffice)
//   NULL     sorts last; NULL == NULL here
#pragma once

#include <cstdint>
#include <cstring>

#include "storage/value/value.h"

namespace forktail {

// XXH3 of the value's physical representation; NULL hashes to a constant.
// The raw forms hash a stripe cell without building a Value, equal to
// HashCell of the same value.
uint64_t HashCell(const Value& v);
uint64_t HashInt(int64_t i);
uint64_t HashDouble(double d);
uint64_t HashBytes(std::string_view s);

// A non-NULL Value of a non-string, non-double type from its int64 form.
Value IntValue(const Type& type, int64_t i);

// <0, 0, >0. Both values must be of the same type family.
int CompareCell(const Value& a, const Value& b);

// The int64 of a stripe cell of an integer-like type `width` bytes wide
// (BOOLEAN unsigned, the others sign-extended).
inline int64_t LoadIntCell(const uint8_t* cell, uint32_t width) {
  switch (width) {
    case 1:
      return *cell;
    case 2: {
      int16_t x;
      std::memcpy(&x, cell, 2);
      return x;
    }
    case 4: {
      int32_t x;
      std::memcpy(&x, cell, 4);
      return x;
    }
    default: {
      int64_t x;
      std::memcpy(&x, cell, 8);
      return x;
    }
  }
}

// A comparison of a stored value with a constant (Block::SelectWhere).
enum class CellCompare : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };

// The values v with `v op k` as [*lo, *hi] (*lo > *hi when there are none);
// false for kNe, which is no range.
inline bool CompareRange(CellCompare op, int64_t k, int64_t* lo, int64_t* hi) {
  constexpr int64_t kMin = INT64_MIN, kMax = INT64_MAX;
  switch (op) {
    case CellCompare::kEq:
      *lo = *hi = k;
      return true;
    case CellCompare::kNe:
      return false;
    case CellCompare::kLt:
      *lo = k == kMin ? kMax : kMin;  // nothing is below the least value
      *hi = k == kMin ? kMin : k - 1;
      return true;
    case CellCompare::kLe:
      *lo = kMin;
      *hi = k;
      return true;
    case CellCompare::kGt:
      *lo = k == kMax ? kMax : k + 1;
      *hi = k == kMax ? kMin : kMax;
      return true;
    case CellCompare::kGe:
      *lo = k;
      *hi = kMax;
      return true;
  }
  return false;
}

// Mixes one more column's hash into a composite key hash.
inline uint64_t CombineHash(uint64_t seed, uint64_t h) {
  return seed ^ (h + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2));
}

}  // namespace forktail
