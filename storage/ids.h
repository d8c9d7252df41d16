// Typed ids. Every id is a StrongId<Tag, T>: a distinct type per Tag, so passing
// a BlockNo where a SlotNo is expected, or adding a ColumnId to a TableId, fails
// to compile (Hyrise's ChunkID idea). The raw number is reached with value().
//
// A TupleId names a row slot: (block number, slot in the block). It packs into
// one uint64 (block in the high 32 bits) for WAL records, undo logs and the
// primary-key index:
//
//   63                    32 31                     0
//   +-----------------------+-----------------------+
//   |       BlockNo         |        SlotNo         |
//   +-----------------------+-----------------------+
//
// kInvalidTupleId (all ones) is never a real row: no block has 2^32 - 1 slots.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <string>

namespace forktail {

template <typename Tag, typename T>
class StrongId {
 public:
  using ValueType = T;

  constexpr StrongId() = default;
  constexpr explicit StrongId(T value) : value_(value) {}

  constexpr T value() const { return value_; }

  constexpr auto operator<=>(const StrongId&) const = default;

 private:
  T value_ = 0;
};

struct TableIdTag;
struct ColumnIdTag;
struct BlockNoTag;
struct SlotNoTag;

using TableId = StrongId<TableIdTag, uint32_t>;
using ColumnId = StrongId<ColumnIdTag, uint16_t>;
using BlockNo = StrongId<BlockNoTag, uint32_t>;
using SlotNo = StrongId<SlotNoTag, uint32_t>;

struct TupleId {
  BlockNo block;
  SlotNo slot;

  constexpr uint64_t Pack() const {
    return (static_cast<uint64_t>(block.value()) << 32) | slot.value();
  }
  static constexpr TupleId Unpack(uint64_t packed) {
    return {BlockNo(static_cast<uint32_t>(packed >> 32)), SlotNo(static_cast<uint32_t>(packed))};
  }

  constexpr auto operator<=>(const TupleId&) const = default;

  // "(block,slot)", like PostgreSQL's ctid.
  std::string ToString() const {
    // Appended piecewise: GCC 12 -O3 warns (-Wrestrict) on "(" + std::string.
    std::string s(1, '(');
    s.append(std::to_string(block.value())).append(1, ',');
    s.append(std::to_string(slot.value())).append(1, ')');
    return s;
  }
};

inline constexpr TupleId kInvalidTupleId = TupleId::Unpack(~uint64_t{0});

}  // namespace forktail

template <typename Tag, typename T>
struct std::hash<forktail::StrongId<Tag, T>> {
  size_t operator()(const forktail::StrongId<Tag, T>& id) const {
    return std::hash<T>()(id.value());
  }
};

template <>
struct std::hash<forktail::TupleId> {
  size_t operator()(const forktail::TupleId& tid) const {
    return std::hash<uint64_t>()(tid.Pack());
  }
};
