// jsonb's operators and its constructors with "any" arguments
// (olap/expression/functions_jsonb.cc has the functions):
//
//   j -> 'key' / j -> 2        jsonb_object_field / jsonb_array_element
//   j ->> 'key' / j ->> 2      ..._text
//   j #> '{a,0}' / j #>> path  the value (or its text) at a path
//   j @> j2, j <@ j2           containment
//   j ? 'k', j ?| '{a,b}', j ?& '{a,b}'   key existence
//   j #- '{a,0}'               delete at a path
//   j || j2, j - 'k', j - 2, j - '{a,b}'::text[]  (BindConcatOperator and
//                              BindBinary route these here)
//   jsonb_build_object(k, v, ...), jsonb_build_array(v, ...): any argument
//                              types, each made jsonb by to_jsonb (keys by
//                              their text)
//   jsonb_agg(x), jsonb_object_agg(k, v): the group table's string_agg of
//                              each row's jsonb text (a NULL value is JSON
//                              null, a NULL key 22004), then one jsonb value
//
// An unknown-typed operand (a literal, an untyped parameter) takes the type
// the operator wants, as in PostgreSQL: jsonb for the other side of @>, ||;
// text for keys; text[] for paths.
#include <set>

#include "olap/plan/binder/binder_catalog.h"
#include "olap/plan/binder/binder_internal.h"
#include "storage/error.h"

namespace forktail {
namespace {

[[noreturn]] void NoJsonbOperator(const Binder& b, const sql::Expr& e, const Type& l,
                                  const Type& r) {
  const std::string ln = b.IsUnknownTyped(*e.children[0]) ? "unknown" : BaseTypeName(l);
  const std::string rn = b.IsUnknownTyped(*e.children[1]) ? "unknown" : BaseTypeName(r);
  throw DbError(sqlstate::kUndefinedFunction,
                "operator does not exist: " + ln + " " + e.op + " " + rn, e.position);
}

bool IsJsonb(const ExprPtr& e) { return e->type.id == TypeId::kJsonb; }

// The function behind operator `e` (functions_jsonb.cc registers one for
// each operator and operand type the caller has picked).
ExprPtr CallOperatorFunction(const std::string& fn, ExprPtr left, ExprPtr right, const sql::Expr& e,
                             const FunctionBindContext& context) {
  std::vector<ExprPtr> args;
  args.push_back(std::move(left));
  args.push_back(std::move(right));
  try {
    if (ExprPtr call = FunctionRegistry::Global().Call(fn, std::move(args), context)) {
      return call;
    }
  } catch (const DbError& err) {
    RethrowAt(err, e.position);
  }
  throw DbError(sqlstate::kInternalError, "jsonb operator " + e.op + " has no function");
}

}  // namespace

ExprPtr Binder::BindJsonbOperator(const sql::Expr& e, ExprContext& ctx) {
  static const std::set<std::string> kOperators = {"->", "->>", "#>", "#>>", "@>", "<@",
                                                   "?",  "?|",  "?&", "#-",  "&&"};
  const std::string& op = e.op;
  if (!kOperators.count(op)) return nullptr;
  const sql::Expr& l = *e.children[0];
  const sql::Expr& r = *e.children[1];
  Type jsonb = Type::Jsonb();
  Type text = Type::Text();
  ExprContext lc = WithoutHint(ctx);
  if (IsUnknownTyped(l)) lc.hint = &jsonb;
  ExprPtr left = BindExpr(l, lc);
  if ((op == "@>" || op == "<@" || op == "&&") && ArrayElementType(left->type)) {
    return BindArrayContainment(*this, e, std::move(left), ctx);  // binder_catalog_array_ops.cc
  }
  // json has -> ->> #> #>> (as jsonb's, on its value: an object or array
  // they return is jsonb's text of it, not the input's own spacing).
  const bool json = left->type.id == TypeId::kJson;
  if (json) {
    if (op != "->" && op != "->>" && op != "#>" && op != "#>>") {
      ExprContext rc = WithoutHint(ctx);
      NoJsonbOperator(*this, e, left->type, BindExpr(r, rc)->type);
    }
    left = Cast(std::move(left), Type::Jsonb());
  }
  ExprPtr right;
  std::string fn;
  if (op == "#>" || op == "#>>" || op == "#-" || op == "?|" || op == "?&") {
    right = BindArrayArgument(*this, r, ctx, Type::Text());
    fn = op == "#>"    ? "jsonb #>"
         : op == "#>>" ? "jsonb #>>"
         : op == "#-"  ? "jsonb_delete_path"
         : op == "?|"  ? "jsonb_exists_any"
                       : "jsonb_exists_all";
  } else {
    if (op == "&&") NoJsonbOperator(*this, e, left->type, BindExpr(r, ctx)->type);
    ExprContext rc = WithoutHint(ctx);
    if (IsUnknownTyped(r)) rc.hint = op == "@>" || op == "<@" ? &jsonb : &text;
    right = BindExpr(r, rc);
    if (op == "@>" || op == "<@") {
      if (!IsJsonb(right)) NoJsonbOperator(*this, e, left->type, right->type);
      fn = op == "@>" ? "jsonb_contains" : "jsonb_contained";
    } else if (op == "?") {
      if (!right->type.IsString()) NoJsonbOperator(*this, e, left->type, right->type);
      fn = "jsonb_exists";
    } else if (right->type.IsInteger()) {  // -> and ->> by position
      fn = op == "->" ? "jsonb_array_element" : "jsonb_array_element_text";
    } else if (right->type.IsString()) {
      fn = op == "->" ? "jsonb_object_field" : "jsonb_object_field_text";
    } else {
      NoJsonbOperator(*this, e, left->type, right->type);
    }
  }
  if (!IsJsonb(left)) NoJsonbOperator(*this, e, left->type, right->type);
  ExprPtr result =
      CallOperatorFunction(fn, std::move(left), std::move(right), e, FunctionContext());
  if (json && IsJsonb(result)) result = Cast(std::move(result), Type::Json());
  return result;
}

ExprPtr Binder::BindJsonbConcatOrDelete(const sql::Expr& e, ExprPtr left, ExprPtr right) {
  std::string fn;
  if (e.op == "||") {
    // jsonb || jsonb; an unknown-typed other side is jsonb too. jsonb ||
    // text stays text concatenation (PostgreSQL's anynonarray || text).
    const bool l_unknown = IsUnknownTyped(*e.children[0]);
    const bool r_unknown = IsUnknownTyped(*e.children[1]);
    if (!(IsJsonb(left) || l_unknown) || !(IsJsonb(right) || r_unknown)) return nullptr;
    if (!IsJsonb(left)) left = Cast(std::move(left), Type::Jsonb());
    if (!IsJsonb(right)) right = Cast(std::move(right), Type::Jsonb());
    fn = "jsonb_concat";
  } else {  // jsonb - 'key', jsonb - 2, jsonb - '{a,b}'::text[]
    if (ArrayElementType(right->type)) {
      fn = "jsonb - text[]";
    } else if (right->type.IsString() || right->type.IsInteger()) {
      fn = "jsonb_delete";
    } else {
      NoJsonbOperator(*this, e, left->type, right->type);
    }
  }
  return CallOperatorFunction(fn, std::move(left), std::move(right), e, FunctionContext());
}

bool Binder::BindJsonbConstructor(const sql::Expr& call, ExprContext& ctx, ExprPtr* out) {
  const std::string& name = call.names.back();
  const bool object = name == "jsonb_build_object";
  if (!object && name != "jsonb_build_array") return false;
  if (call.star || call.distinct) return false;
  if (call.children.empty()) {
    *out = Constant(Value::Parse(Type::Jsonb(), object ? "{}" : "[]"));
    return true;
  }
  std::vector<ExprPtr> args;
  for (size_t i = 0; i < call.children.size(); i++) {
    Type text = Type::Text();
    ExprContext c = WithoutHint(ctx);
    if (IsUnknownTyped(*call.children[i])) c.hint = &text;
    ExprPtr a = BindExpr(*call.children[i], c);
    // A key is its text (numbers and dates by their output), a value its jsonb.
    if (object && i % 2 == 0 && !a->type.IsString()) a = Cast(std::move(a), Type::Text());
    std::vector<ExprPtr> one;
    one.push_back(std::move(a));
    const Type was = one[0]->type;
    try {
      a = FunctionRegistry::Global().Call("to_jsonb", std::move(one), FunctionContext());
    } catch (const DbError& err) {
      RethrowAt(err, call.children[i]->position);
    }
    if (!a) {
      NotSupported("a value of type " + BaseTypeName(was) + " in " + name,
                   call.children[i]->position);
    }
    args.push_back(std::move(a));
  }
  try {
    *out = FunctionRegistry::Global().Call(name, std::move(args), FunctionContext());
  } catch (const DbError& err) {
    RethrowAt(err, call.position);
  }
  return true;
}

ExprPtr Binder::BindJsonbAggregate(const sql::Expr& call, ExprContext& ctx) {
  const std::string& name = call.names.back();
  const bool object = name == "jsonb_object_agg";
  if (call.star || call.children.size() != (object ? 2u : 1u)) {
    throw DbError(sqlstate::kUndefinedFunction,
                  "function " + name + " with " + std::to_string(call.children.size()) +
                      " arguments does not exist",
                  call.position);
  }
  if (call.distinct) NotSupported(name + "(DISTINCT ...)", call.position);
  if (call.filter) NotSupported(name + "(...) FILTER", call.position);
  if (!call.agg_order.empty()) NotSupported(name + "(... ORDER BY ...)", call.position);
  AggState& st = *ctx.aggs;
  ExprContext c = WithoutHint(ctx);
  c.plan = nullptr;  // no subqueries inside aggregate arguments
  auto to_text = [&](ExprPtr x, const char* fn) {
    std::vector<ExprPtr> args;
    args.push_back(std::move(x));
    ExprPtr r = FunctionRegistry::Global().Call(fn, std::move(args), FunctionContext());
    if (!r) NotSupported(std::string("this argument type in ") + name, call.position);
    return r;
  };
  ExprPtr element;
  st.in_aggregate = true;
  try {
    Type text = Type::Text();
    ExprContext vc = c;
    if (IsUnknownTyped(*call.children.back())) vc.hint = &text;
    ExprPtr value = BindExpr(*call.children.back(), vc);
    // A row's element: its jsonb text, "null" for NULL.
    std::vector<ExprPtr> either;
    either.push_back(Cast(to_text(std::move(value), "to_jsonb"), Type::Text()));
    either.push_back(Constant(Value::Text("null")));
    element = Coalesce(std::move(either));
    if (object) {
      ExprContext kc = c;
      kc.hint = &text;
      ExprPtr key = BindExpr(*call.children[0], kc);
      if (!key->type.IsString()) key = Cast(std::move(key), Type::Text());
      std::vector<ExprPtr> parts;
      parts.push_back(to_text(std::move(key), "jsonb_object_agg key"));
      parts.push_back(std::move(element));
      element = FunctionRegistry::Global().Call("textcat", std::move(parts), FunctionContext());
    }
  } catch (...) {
    st.in_aggregate = false;
    throw;
  }
  st.in_aggregate = false;
  LogicalAggregate agg;
  agg.kind = AggKind::kStringAgg;
  agg.separator = ", ";
  ExprPtr list = AddAggregate(*this, std::move(agg), std::move(element), Type::Text(), name, ctx);
  // [e1, e2] / {"k1": v1, "k2": v2}, parsed once more into canonical jsonb
  // (jsonb_object_agg's last duplicate key wins there); no rows: NULL.
  std::vector<ExprPtr> open;
  open.push_back(Constant(Value::Text(object ? "{" : "[")));
  open.push_back(std::move(list));
  std::vector<ExprPtr> close;
  close.push_back(FunctionRegistry::Global().Call("textcat", std::move(open), FunctionContext()));
  close.push_back(Constant(Value::Text(object ? "}" : "]")));
  return Cast(FunctionRegistry::Global().Call("textcat", std::move(close), FunctionContext()),
              Type::Jsonb());
}

}  // namespace forktail
