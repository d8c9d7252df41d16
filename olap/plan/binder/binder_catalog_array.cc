// Arrays: their text form and x::T[] here; ARRAY[...], x = ANY(array),
// x <> ALL(array), array[i], array_to_string, array_upper / array_lower /
// array_length, cardinality in binder_catalog_array_ops.cc.
//
// An array value is TEXT in PostgreSQL's array text form ('{1,2}',
// '{"a b",NULL}'; also int2vector's '1 2' in the catalog's columns), and an
// array-typed expression's Type is TEXT tagged with its element type
// (ArrayTextType), so the element type travels with the expression through
// projections, joins, subqueries and into array columns (CREATE TABLE
// t (tags text[])). A value of an array type is always canonical
// (storage/value/array_text.h: every cast and every write goes through
// array_in), compares element by element, and goes out on the wire with its
// array type's OID. One dimension only; no keys or indexes on arrays.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "olap/expression/scalar_function.h"
#include "olap/plan/binder/binder_catalog.h"
#include "olap/plan/binder/binder_internal.h"
#include "storage/value/array_text.h"

namespace forktail {

ExprPtr BindArrayCast(Binder& binder, const sql::Expr& cast, ExprContext& ctx) {
  sql::TypeName base = cast.type;
  base.array_bounds = 0;
  Type element = TypeFromName(base);
  Type array = ArrayTextType(element);
  if (cast.children[0]->kind == sql::ExprKind::kArray && cast.children[0]->children.empty()) {
    return Constant(Value::String(array, "{}"));  // ARRAY[]::T[]: the cast gives its type
  }
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
    return Constant(Value::String(array, CanonicalArrayText(x->constant.GetString(), element)));
  }
  if (x->type == array) return x;
  // Text, or an array of another element type: array_in per row (22P02 for
  // a malformed array or element), so an array value is always canonical.
  std::vector<ExprPtr> args;
  args.push_back(std::move(x));
  return Function(MakeScalarFunction("array_in", array,
                                     [element](const ScalarArgs& a, Rows rows, Vector* out) {
                                       const std::string_view* in = a[0]->data<std::string_view>();
                                       std::string_view* o = out->mutable_data<std::string_view>();
                                       ForEachRow(rows, [&](uint32_t i) {
                                         o[i] =
                                             out->arena()->Add(CanonicalArrayText(in[i], element));
                                       });
                                     }),
                  std::move(args));
}

}  // namespace forktail
