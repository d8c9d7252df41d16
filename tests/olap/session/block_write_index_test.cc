// BlockWriteIndex (block/block_write_index.h): which writes of a block reach
// a footprint, by table taken whole and by row, and taking the newest back.
#include "olap/session/block/block_write_index.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "olap/session/block/optimistic_block.h"

namespace forktail::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<size_t> Reaching(const BlockWriteIndex& index, const StepFootprint& footprint) {
  std::vector<size_t> out;
  index.Reaching(footprint, &out);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

StepFootprint Rows(TableId table, std::vector<std::string> keys) {
  StepFootprint f;
  for (auto& k : keys) f.rows.emplace_back(table, std::move(k));
  return f;
}

StepFootprint Whole(std::vector<TableId> tables) {
  StepFootprint f;
  f.tables = std::move(tables);
  return f;
}

TEST(BlockWriteIndex, RowWritesReachTheirRowsAndTheirTableTakenWhole) {
  const TableId a{1}, b{2};
  BlockWriteIndex index;
  index.Add(0, {a}, Rows(a, {"k1"}));
  index.Add(1, {a}, Rows(a, {"k2", "k3"}));
  index.Add(2, {b}, Rows(b, {"k1"}));
  EXPECT_THAT(Reaching(index, Rows(a, {"k1"})), ElementsAre(0u));
  EXPECT_THAT(Reaching(index, Rows(a, {"k3", "k9"})), ElementsAre(1u));
  EXPECT_THAT(Reaching(index, Rows(b, {"k2"})), IsEmpty());
  EXPECT_THAT(Reaching(index, Whole({a})), ElementsAre(0u, 1u));
  EXPECT_THAT(Reaching(index, Whole({b})), ElementsAre(2u));
}

TEST(BlockWriteIndex, WholeTableWritesReachAnythingOfTheirTable) {
  const TableId a{1}, b{2};
  BlockWriteIndex index;
  // Changed b as a whole, and a in the rows its forecast names.
  StepFootprint forecast = Rows(a, {"k1"});
  forecast.tables.push_back(b);
  index.Add(0, {a, b}, forecast);
  EXPECT_THAT(Reaching(index, Rows(b, {"any"})), ElementsAre(0u));
  EXPECT_THAT(Reaching(index, Whole({b})), ElementsAre(0u));
  EXPECT_THAT(Reaching(index, Rows(a, {"k2"})), IsEmpty());
  // A table the forecast names nothing of was changed whole.
  index.Add(1, {TableId{3}}, Rows(a, {"k5"}));
  EXPECT_THAT(Reaching(index, Rows(TableId{3}, {"x"})), ElementsAre(1u));
}

TEST(BlockWriteIndex, RemoveNewestTakesBackOnlyTheNewest) {
  const TableId a{1};
  BlockWriteIndex index;
  index.Add(0, {a}, Rows(a, {"k1"}));
  index.Add(1, {a}, Rows(a, {"k1"}));
  index.RemoveNewest(1);
  EXPECT_THAT(Reaching(index, Rows(a, {"k1"})), ElementsAre(0u));
  index.RemoveNewest(0);  // no longer the newest added: nothing changes
  EXPECT_THAT(Reaching(index, Whole({a})), ElementsAre(0u));
  // An entry that changed nothing added nothing to take back.
  index.Add(2, {}, Rows(a, {"k7"}));
  index.RemoveNewest(2);
  EXPECT_THAT(Reaching(index, Whole({a})), ElementsAre(0u));
}

}  // namespace
}  // namespace forktail::testing
