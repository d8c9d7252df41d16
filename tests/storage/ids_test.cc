#include <gtest/gtest.h>

#include <type_traits>
#include <unordered_set>

#include "storage/storage.h"

namespace forktail {
namespace {

// Mixing id kinds must not compile.
static_assert(!std::is_convertible_v<BlockNo, SlotNo>);
static_assert(!std::is_constructible_v<SlotNo, BlockNo>);
static_assert(!std::is_convertible_v<uint32_t, BlockNo>);
static_assert(!std::is_convertible_v<TableId, uint32_t>);
static_assert(!std::is_assignable_v<TableId&, ColumnId>);

TEST(Ids, TupleIdPacksAndUnpacks) {
  TupleId tid{BlockNo(7), SlotNo(123456)};
  EXPECT_EQ(tid.Pack(), (uint64_t{7} << 32) | 123456);
  EXPECT_EQ(TupleId::Unpack(tid.Pack()), tid);
  TupleId max{BlockNo(UINT32_MAX - 1), SlotNo(UINT32_MAX - 1)};
  EXPECT_EQ(TupleId::Unpack(max.Pack()), max);
  EXPECT_NE(max, kInvalidTupleId);
  EXPECT_EQ(tid.ToString(), "(7,123456)");
}

TEST(Ids, OrderAndHash) {
  EXPECT_LT((TupleId{BlockNo(1), SlotNo(9)}), (TupleId{BlockNo(2), SlotNo(0)}));
  EXPECT_LT(BlockNo(1), BlockNo(2));
  std::unordered_set<TupleId> set{{BlockNo(1), SlotNo(2)}, {BlockNo(2), SlotNo(1)}};
  EXPECT_EQ(set.size(), 2u);
}

}  // namespace
}  // namespace forktail
