// PostgreSQL's text form of a one-dimensional array ('{1,2}', '{"a b",NULL}';
// int2vector's '1 2' is read too): how array values travel through
// expressions (Type::ArrayText; olap/plan/binder/binder_catalog_array.cc), how
// they go out in binary (server/pg_types.cc) and how jsonb paths
// ('{a,0,b}') arrive.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace forktail {

// The elements, NULL or text.
std::vector<std::optional<std::string>> ParseArrayText(std::string_view s);
std::string FormatArrayText(const std::vector<std::optional<std::string>>& elements);

}  // namespace forktail
