// Arrays, as far as the catalog queries of psql need them (binder_catalog.h):
// their text form and x::T[] here; ARRAY[...], x = ANY(array),
// x <> ALL(array), array[i], array_to_string, array_upper / array_lower /
// array_length, cardinality in binder_catalog_array_ops.cc.
//
// An array value is TEXT in PostgreSQL's array text form ('{1,2}',
// '{"a b",NULL}'; also int2vector's '1 2'), and an array-typed expression's
// Type is TEXT tagged with its element type (ArrayTextType), so the element
// type travels with the expression through projections, joins and
// subqueries. Arrays are values of expressions and of the catalog views only:
// CREATE TABLE has no array columns. On the wire they are text (OID 25), not
// PostgreSQL's array OIDs; one dimension only.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "olap/plan/binder/binder_catalog.h"

namespace forktail {

namespace {

using Elements = std::vector<std::optional<std::string>>;

bool NeedsQuotes(std::string_view s) {
  if (s.empty()) return true;
  std::string lower;
  for (char c : s) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  if (lower == "null") return true;
  for (char c : s) {
    if (c == '"' || c == '\\' || c == '{' || c == '}' || c == ',' || c == ' ' || c == '\t' ||
        c == '\n') {
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<std::optional<std::string>> ParseArrayText(std::string_view s) {
  Elements out;
  if (s.empty() || s.front() != '{') {  // int2vector / oidvector: "1 2"
    size_t i = 0;
    while (i < s.size()) {
      while (i < s.size() && s[i] == ' ') i++;
      size_t j = i;
      while (j < s.size() && s[j] != ' ') j++;
      if (j > i) out.emplace_back(std::string(s.substr(i, j - i)));
      i = j;
    }
    return out;
  }
  size_t i = 1;
  size_t end = s.size() - (s.back() == '}' ? 1 : 0);
  while (i < end) {
    while (i < end && s[i] == ' ') i++;
    std::string item;
    bool quoted = false;
    if (i < end && s[i] == '"') {
      quoted = true;
      for (i++; i < end && s[i] != '"'; i++) {
        if (s[i] == '\\' && i + 1 < end) i++;
        item += s[i];
      }
      i++;  // the closing quote
    }
    while (i < end && s[i] != ',') {
      if (!quoted) item += s[i];
      i++;
    }
    while (!quoted && !item.empty() && item.back() == ' ') item.pop_back();
    if (!quoted && (item == "NULL" || item == "null")) {
      out.emplace_back(std::nullopt);
    } else if (quoted || !item.empty()) {
      out.emplace_back(std::move(item));
    }
    i++;  // the comma
  }
  return out;
}

std::string FormatArrayText(const std::vector<std::optional<std::string>>& elements) {
  std::string s = "{";
  for (size_t i = 0; i < elements.size(); i++) {
    if (i > 0) s += ',';
    if (!elements[i]) {
      s += "NULL";
    } else if (NeedsQuotes(*elements[i])) {
      s += '"';
      for (char c : *elements[i]) {
        if (c == '"' || c == '\\') s += '\\';
        s += c;
      }
      s += '"';
    } else {
      s += *elements[i];
    }
  }
  return s + "}";
}

ExprPtr BindArrayCast(Binder& binder, const sql::Expr& cast, ExprContext& ctx) {
  sql::TypeName base = cast.type;
  base.array_bounds = 0;
  Type element = TypeFromName(base);
  Type array = ArrayTextType(element);
  ExprContext c = WithoutHint(ctx);
  c.hint = &array;
  ExprPtr x = binder.BindExpr(*cast.children[0], c);
  if (!x->type.IsString()) {
    throw DbError(
        "42846",
        "cannot cast type " + BaseTypeName(x->type) + " to " + BaseTypeName(element) + "[]",
        cast.position);
  }
  if (x->kind == ExprKind::kConstant && !x->constant.is_null()) {
    // Validate the elements now (22P02 for a bad one), and normalize.
    Elements el = ParseArrayText(x->constant.GetString());
    for (std::optional<std::string>& v : el) {
      if (v) v = Value::Parse(element, *v).ToString();
    }
    return Constant(Value::String(array, FormatArrayText(el)));
  }
  x->type = array;  // the text form is the value
  return x;
}

}  // namespace forktail
