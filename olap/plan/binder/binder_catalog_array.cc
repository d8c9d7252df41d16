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

}  // namespace

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
