// The list aggregates string_agg(text, sep) and array_agg(x), with an
// optional ORDER BY (on the value itself, or keyed: ListAggOrder), as
// GroupTable states.
//
// A group's state is one word, the index of a ListAggValues in the table's
// side vector (like COUNT(DISTINCT)'s sets): the input values in arrival
// order (NULL as nullopt), concatenated on Merge and sorted and folded to the
// result only on Emit. The binder casts array_agg's input to TEXT and tags
// the result with the element type (olap/plan/catalog/system_catalog.h
// ArrayTextType), so the states are strings for both aggregates.
//
// Results as PostgreSQL: string_agg skips NULLs and is NULL when no non-NULL
// value was seen; array_agg keeps NULLs ('{a,NULL}') and is NULL over no rows;
// elements are quoted in the array text form when needed ('{"a b"}').
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "olap/expression/aggregates.h"

namespace forktail {

using ListAggValues = std::vector<std::optional<std::string>>;

// Sorts `values` (stable) as `order` says. Keyed inputs are then replaced by
// their values. A filtered list first loses the filter's rejects and is
// unwrapped; a DISTINCT one then keeps the first of equal values.
void SortListAgg(const ListAggOrder& order, ListAggValues* values);

// A keyed input (ListAggOrder::By::kKeyed): `key` (memcmp-ordered bytes),
// then the value (nullopt: NULL), then the value's length, so that byte
// order is key order and the value can be taken back off the end.
std::string KeyedListAggInput(std::string key, const std::optional<std::string_view>& value);
// A value of a FILTERed array_agg (ListAggOrder::filtered): "\x01" + value,
// or "\x00" for a NULL element; the filter's rejects are NULL.
std::string WrapListAggInput(const std::optional<std::string_view>& value);
// string_agg's result: the non-NULL values joined by `separator`; nullopt if
// there are none.
std::optional<std::string> StringAggResult(const ListAggValues& values,
                                           const std::string& separator);
// array_agg's result in PostgreSQL's array text form; nullopt if empty.
std::optional<std::string> ArrayAggResult(const ListAggValues& values);

}  // namespace forktail
