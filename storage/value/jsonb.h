// PostgreSQL 15's jsonb over values stored as their canonical text: the exact
// text PostgreSQL prints for a jsonb value. Storing the canonical text keeps
// the column a plain string (comparable bytes for equal documents, printable
// as is), and every operator below parses its operands into a Json tree, works
// on the tree and prints the result canonically again.
//
// Canonical form, as jsonb_out prints it:
//  - objects keep their keys sorted by byte length, then by bytes, with one
//    pair per key (the last duplicate of the input wins);
//  - separators are ", " and ": "; no other whitespace;
//  - numbers are PostgreSQL numerics: '1e2' prints 100, '1.50' keeps 1.50,
//    '-0' prints 0 (scale = max(0, fractional digits - exponent));
//  - strings escape \" \\ \b \f \n \r \t, other control characters as \u00xx,
//    and keep everything else (non-ASCII included) as raw UTF-8.
//
// A top-level scalar is PostgreSQL's "raw scalar": internally a one-element
// array, which shows through in a few places (-> 0 on a scalar returns it, the
// btree order puts an empty array before every scalar); those quirks are kept.
//
// Errors are DbErrors with PostgreSQL's SQLSTATEs and messages; syntax errors
// carry PostgreSQL's DETAIL on a second line ("...\nDETAIL:  Token ...").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace forktail::jsonb {

struct JsonMember;

// A parsed jsonb value.
struct Json {
  enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  std::string number;  // canonical numeric text, as PostgreSQL's numeric prints it
  std::string string;  // decoded UTF-8
  std::vector<Json> array;
  // Sorted in jsonb order (key length, then bytes), keys unique.
  std::vector<JsonMember> object;
};

// One key and value of an object. Not a std::pair<std::string, Json>: a
// pair of a type still being defined is ill-formed (libstdc++ asserts it
// under clang); the members keep a pair's names so that it reads like one.
struct JsonMember {
  JsonMember() = default;
  JsonMember(std::string key, Json value) : first(std::move(key)), second(std::move(value)) {}
  std::string first;  // the key
  Json second;        // the value
};

// jsonb_in's parser: JSON text (RFC 8259, as PostgreSQL's json lexer accepts
// it) to a tree. 22P02 on bad syntax, 22P05 for \u0000, 22003 for a number
// outside numeric's range, 22021 for invalid UTF-8, 54001 past 10000 levels
// of nesting.
Json Parse(std::string_view text);

// jsonb_out: the canonical text of `j`. Objects are printed in the order of
// j.object (Parse and the operators below keep it in jsonb order).
std::string Serialize(const Json& j);

// The input function of type jsonb: Serialize(Parse(text)).
std::string Canonicalize(std::string_view text);

// to_jsonb(text): `utf8` as a JSON string literal, escaped as jsonb_out does.
std::string Quote(std::string_view utf8);

// numeric_in + numeric_out for a JSON number token ("-1.5e-1" -> "-0.15"):
// the text jsonb keeps. 22003 "value overflows numeric format" outside
// numeric's range (131072 integer digits, 16383 fractional digits).
std::string CanonicalNumber(std::string_view json_number);

// numeric_cmp on two JSON number texts (<0, 0, >0): '1.0' equals '1.00'.
int CompareNumbers(std::string_view a, std::string_view b);

// Operators. std::nullopt where PostgreSQL returns SQL NULL.

// j -> 'key': NULL if j is not an object or has no such key.
std::optional<std::string> Field(std::string_view j, std::string_view key);

// j -> index: negative counts from the end; NULL if j is an object or the
// index is out of range. A top-level scalar acts as a one-element array, as in
// PostgreSQL ('1'::jsonb -> 0 is 1).
std::optional<std::string> Element(std::string_view j, int64_t index);

// j #> '{a,0,b}': array steps must be integer texts (strtol's syntax, negative
// from the end); NULL when a step misses, is not an integer for an array, or
// descends into a scalar. An empty path returns j.
std::optional<std::string> Path(std::string_view j, const std::vector<std::string>& path);

// The ->> / #>> conversion of a jsonb value to text: a string's content
// unquoted, NULL for JSON null, the canonical text of anything else.
std::optional<std::string> Text(std::string_view j);

// a @> b: PostgreSQL's containment. Objects contain objects whose pairs they
// contain (recursively); arrays contain arrays whose elements they contain, in
// any order and multiplicity; a top-level array contains a scalar it has as an
// element; otherwise scalars contain only equal scalars.
bool Contains(std::string_view a, std::string_view b);

// j ? 'key': an object key, a string element of a top-level array, or a string
// scalar equal to key.
bool Exists(std::string_view j, std::string_view key);

// a || b: two objects merge (right wins); anything else concatenates as
// arrays, a scalar or object counting as a one-element array.
std::string Concat(std::string_view a, std::string_view b);

// j - 'key': removes the key of an object, or every string element equal to
// key of an array. 22023 "cannot delete from scalar".
std::string DeleteKey(std::string_view j, std::string_view key);

// j - index: removes one array element (negative from the end; out of range:
// unchanged). 22023 "cannot delete from scalar" /
// "cannot delete from object using integer index".
std::string DeleteIndex(std::string_view j, int64_t index);

// j #- '{a,0}': removes the value at the path, if there is one. 22023
// "cannot delete path in scalar"; 22P02 "path element at position N is not an
// integer" for a non-integer step into an array.
std::string DeletePath(std::string_view j, const std::vector<std::string>& path);

// jsonb_set(j, path, value, create_missing): replaces the value at the path;
// with create_missing, a missing last step is added (object key; array index
// past the end appends, before the start prepends). 22023
// "cannot set path in scalar"; 22P02 as DeletePath.
std::string Set(std::string_view j, const std::vector<std::string>& path, std::string_view value,
                bool create_missing);

// jsonb_typeof: "object", "array", "string", "number", "boolean" or "null".
std::string TypeOf(std::string_view j);

// jsonb_array_length. 22023 "cannot get array length of a scalar" /
// "cannot get array length of a non-array".
int64_t ArrayLength(std::string_view j);

// jsonb_object_keys, in jsonb order. 22023
// "cannot call jsonb_object_keys on a scalar" / "... on an array".
std::vector<std::string> ObjectKeys(std::string_view j);

// jsonb_array_elements: the elements' jsonb texts. 22023
// "cannot extract elements from a scalar" / "... from an object".
std::vector<std::string> ArrayElements(std::string_view j);

// jsonb_each: (key, value jsonb text) pairs in jsonb order. 22023
// "cannot call jsonb_each on a non-object".
std::vector<std::pair<std::string, std::string>> Each(std::string_view j);

// jsonb_strip_nulls: drops object fields whose value is null, at any depth
// (array elements that are null stay).
std::string StripNulls(std::string_view j);

// jsonb_pretty: one value per line, 4-space indent; an empty container prints
// its brackets on two lines, as PostgreSQL does.
std::string Pretty(std::string_view j);

// The jsonb btree order (<0, 0, >0), PostgreSQL's compareJsonbContainers:
// Object > Array > Boolean > Number > String > Null; objects with more pairs
// and arrays with more elements sort later; then pairwise in jsonb order
// (keys and strings by bytes, numbers numerically, false < true). A top-level
// scalar sorts before a non-empty array but after an empty one.
int Compare(std::string_view a, std::string_view b);

// A text that two jsonb values share exactly when Compare calls them equal
// (numbers written in their shortest form: 1.0 and 1.00 are both 1), for
// hashing and grouping by jsonb.
std::string EqualityText(std::string_view j);

// jsonb_build_object from keys and jsonb texts (the last duplicate key wins).
std::string ObjectFromPairs(const std::vector<std::pair<std::string, std::string>>& key_and_json);

// jsonb_build_array / jsonb_agg from jsonb texts.
std::string ArrayFromElements(const std::vector<std::string>& json_elements);

}  // namespace forktail::jsonb
