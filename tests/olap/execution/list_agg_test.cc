// The list aggregates' final step (olap/execution/aggregate/list_agg.h):
// ORDER BY, DISTINCT and FILTER over a group's collected values.
#include "olap/execution/aggregate/list_agg.h"

#include <gtest/gtest.h>

namespace forktail {
namespace {

using V = std::optional<std::string>;

TEST(ListAggTest, DistinctSortsThenKeepsEachValueOnceNullToo) {
  ListAggValues values = {V("10"), V("9"), std::nullopt, V("10"), std::nullopt, V("9.0")};
  ListAggOrder order;
  order.by = ListAggOrder::By::kNumber;
  order.distinct = true;
  SortListAgg(order, &values);
  // Numbers compare as numbers; equal texts collapse; one NULL, last.
  EXPECT_EQ(values, (ListAggValues{V("9"), V("9.0"), V("10"), std::nullopt}));
  EXPECT_EQ(*ArrayAggResult(values), "{9,9.0,10,NULL}");
}

TEST(ListAggTest, FilteredArrayAggDropsRejectsAndKeepsNullElements) {
  ListAggValues values = {V(WrapListAggInput(std::string_view("b"))), std::nullopt,
                          V(WrapListAggInput(std::nullopt)),
                          V(WrapListAggInput(std::string_view("a")))};
  ListAggOrder order;
  order.filtered = true;
  SortListAgg(order, &values);  // arrival order kept
  EXPECT_EQ(*ArrayAggResult(values), "{b,NULL,a}");
  ListAggValues none = {std::nullopt, std::nullopt};
  SortListAgg(order, &none);
  EXPECT_FALSE(ArrayAggResult(none).has_value());  // every row filtered: NULL
}

TEST(ListAggTest, FilteredKeyedInputsDropRejectsBeforeSorting) {
  ListAggValues values = {V(KeyedListAggInput("2", std::string_view("two"))), std::nullopt,
                          V(KeyedListAggInput("1", std::nullopt)),
                          V(KeyedListAggInput("3", std::string_view("three")))};
  ListAggOrder order;
  order.by = ListAggOrder::By::kKeyed;
  order.filtered = true;
  SortListAgg(order, &values);
  EXPECT_EQ(values, (ListAggValues{std::nullopt, V("two"), V("three")}));
  EXPECT_EQ(*StringAggResult(values, ","), "two,three");
}

}  // namespace
}  // namespace forktail
