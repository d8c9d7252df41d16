// PostgreSQL's text form of a one-dimensional array ('{1,2}', '{"a b",NULL}';
// int2vector's '1 2' is read too): how array values travel through
// expressions and are stored in array columns (Type::ArrayText;
// olap/plan/binder/binder_catalog_array.cc), how they go out in binary
// (server/pg_types.cc) and how jsonb paths ('{a,0,b}') arrive.
//
// A stored or computed array is always in its canonical form: what
// CanonicalArrayText returns, which is what PostgreSQL's array_out prints
// (each element in its type's output form, quoted only where needed). Two
// arrays are equal when their elements are (CompareArrayText), and their
// order is PostgreSQL's: element by element in the element type's order,
// a NULL element above every other, and a shorter array first when it is a
// prefix of the longer one.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/value/types.h"

namespace forktail {

// The elements, NULL or text. Lenient: for text already canonical (or the
// catalog's int2vector form); input from clients goes through
// CanonicalArrayText.
std::vector<std::optional<std::string>> ParseArrayText(std::string_view s);
std::string FormatArrayText(const std::vector<std::optional<std::string>>& elements);

// array_in for one dimension: `text` as an array of `element`, in canonical
// form. 22P02 "malformed array literal" for text that is not an array, the
// element type's own error for a bad element, 0A000 for more than one
// dimension or explicit bounds ('[1:2]={..}').
std::string CanonicalArrayText(std::string_view text, const Type& element);

// <0, 0, >0 as PostgreSQL orders the two arrays of `element` (canonical text).
int CompareArrayText(std::string_view a, std::string_view b, const Type& element);

// Two non-NULL elements of canonical arrays of `element`, in its order.
int CompareArrayElements(std::string_view x, std::string_view y, const Type& element);

// a @> b: every element of b equals one of a; a NULL element equals
// nothing (PostgreSQL's arraycontains). a <@ b is ArrayContains(b, a).
bool ArrayContains(std::string_view a, std::string_view b, const Type& element);
// a && b: an element of a equals one of b (arrayoverlap).
bool ArrayOverlaps(std::string_view a, std::string_view b, const Type& element);

}  // namespace forktail
