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
//   json_build_object, json_build_array: the same with to_json, and json's
//                              own spacing (functions_json.cc)
//   to_json(t), to_jsonb(t), row_to_json(t) of a whole row t: an object of
//                              its columns
//   json[b]_agg(x), json[b]_object_agg(k, v) [ORDER BY ..]: the group
//                              table's string_agg of each row's JSON text (a
//                              NULL value is JSON null, a NULL key 22023),
//                              then one json or jsonb value
//
// An unknown-typed operand (a literal, an untyped parameter) takes the type
// the operator wants, as in PostgreSQL: jsonb for the other side of @>, ||;
// text for keys; text[] for paths.
#include <set>

#include "olap/plan/binder/binder_catalog.h"
#include "olap/plan/binder/binder_internal.h"
#include "storage/error.h"
#include "storage/value/jsonb.h"

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

namespace {

// t in to_json(t), json_agg(t): a bare name that is no column in reach but
// a FROM item's alias; *refs become t.c for each of its visible columns.
bool WholeRowRefs(const sql::Expr& e, const ExprContext& ctx, std::vector<sql::ExprPtr>* refs,
                  std::vector<std::string>* names) {
  if (e.kind != sql::ExprKind::kColumnRef || e.names.size() != 1) return false;
  const std::string& name = e.names[0];
  for (const Scope* s = ctx.scope; s != nullptr; s = s->outer) {
    for (const ScopeRelation& rel : s->relations) {
      for (size_t i = 0; i < rel.columns.size(); i++) {
        if (!rel.hidden[i] && rel.columns[i].name == name) return false;  // a column wins
      }
    }
    for (const ScopeRelation& rel : s->relations) {
      if (rel.alias != name) continue;
      for (size_t i = 0; i < rel.columns.size(); i++) {
        if (rel.hidden[i]) continue;
        auto ref = std::make_unique<sql::Expr>();
        ref->kind = sql::ExprKind::kColumnRef;
        ref->names = {rel.alias, rel.columns[i].name};
        ref->position = e.position;
        refs->push_back(std::move(ref));
        names->push_back(rel.columns[i].name);
      }
      return true;
    }
  }
  return false;
}

}  // namespace

ExprPtr Binder::ToJsonValue(ExprPtr a, bool jsonb, const std::string& fn, int position) {
  const char* to = jsonb ? "to_jsonb" : "to_json";
  if ((jsonb && a->type.id == TypeId::kJsonb) || (!jsonb && a->type.id == TypeId::kJson)) return a;
  std::vector<ExprPtr> one;
  one.push_back(CloneExpr(*a));
  ExprPtr r;
  try {
    r = FunctionRegistry::Global().Call(to, std::move(one), FunctionContext());
    if (!r) {  // uuid, interval, time, bytea, ...: a JSON string of the value's text
      one.clear();
      one.push_back(Cast(std::move(a), Type::Text()));
      r = FunctionRegistry::Global().Call(to, std::move(one), FunctionContext());
    }
  } catch (const DbError& err) {
    RethrowAt(err, position);
  }
  if (!r) NotSupported("this argument type in " + fn, position);
  return r;
}

ExprPtr Binder::BindJsonArgument(const sql::Expr& arg, bool jsonb, const std::string& fn,
                                 ExprContext& ctx, bool* structured) {
  std::vector<sql::ExprPtr> refs;
  std::vector<std::string> names;
  *structured = WholeRowRefs(arg, ctx, &refs, &names);
  if (!*structured) {
    Type text = Type::Text();
    ExprContext c = WithoutHint(ctx);
    if (IsUnknownTyped(arg)) c.hint = &text;
    ExprPtr value = BindExpr(arg, c);
    *structured = value->type.IsArrayText();
    return ToJsonValue(std::move(value), jsonb, fn, arg.position);
  }
  // The row as an object: {"c1":v1,...} (json), {"c1": v1, ...} (jsonb).
  std::vector<ExprPtr> args;
  ExprContext c = WithoutHint(ctx);
  for (size_t i = 0; i < refs.size(); i++) {
    args.push_back(
        Constant(Value::Parse(jsonb ? Type::Jsonb() : Type::Json(), jsonb::Quote(names[i]))));
    args.push_back(ToJsonValue(BindExpr(*refs[i], c), jsonb, fn, arg.position));
  }
  if (args.empty()) return Constant(Value::Parse(jsonb ? Type::Jsonb() : Type::Json(), "{}"));
  return FunctionRegistry::Global().Call(jsonb ? "jsonb_build_object" : "json row object",
                                         std::move(args), FunctionContext());
}

bool Binder::BindJsonbConstructor(const sql::Expr& call, ExprContext& ctx, ExprPtr* out) {
  const std::string& name = call.names.back();
  const bool jsonb = name.rfind("jsonb", 0) == 0;
  if (name == "to_json" || name == "to_jsonb" || name == "row_to_json") {
    // Only a whole-row argument is bound here; to_json(x) is a plain function.
    std::vector<sql::ExprPtr> refs;
    std::vector<std::string> names;
    if (call.star || call.distinct || call.children.size() != 1 ||
        !WholeRowRefs(*call.children[0], ctx, &refs, &names)) {
      return false;
    }
    bool structured = false;
    *out = BindJsonArgument(*call.children[0], name == "to_jsonb", name, ctx, &structured);
    return true;
  }
  const bool object = name == "jsonb_build_object" || name == "json_build_object";
  if (!object && name != "jsonb_build_array" && name != "json_build_array") return false;
  if (call.star || call.distinct) return false;
  if (call.children.empty()) {
    *out = Constant(Value::Parse(jsonb ? Type::Jsonb() : Type::Json(), object ? "{}" : "[]"));
    return true;
  }
  std::vector<ExprPtr> args;
  for (size_t i = 0; i < call.children.size(); i++) {
    if (object && i % 2 == 0) {
      // A key is its text (numbers and dates by their output), as a JSON string.
      Type text = Type::Text();
      ExprContext c = WithoutHint(ctx);
      if (IsUnknownTyped(*call.children[i])) c.hint = &text;
      ExprPtr a = BindExpr(*call.children[i], c);
      if (!a->type.IsString() || a->type.IsArrayText()) a = Cast(std::move(a), Type::Text());
      args.push_back(ToJsonValue(std::move(a), jsonb, name, call.children[i]->position));
      continue;
    }
    bool structured = false;
    args.push_back(BindJsonArgument(*call.children[i], jsonb, name, ctx, &structured));
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
  const bool jsonb = name.rfind("jsonb", 0) == 0;
  const bool object = name == "jsonb_object_agg" || name == "json_object_agg";
  if (call.star || call.children.size() != (object ? 2u : 1u)) {
    throw DbError(sqlstate::kUndefinedFunction,
                  "function " + name + " with " + std::to_string(call.children.size()) +
                      " arguments does not exist",
                  call.position);
  }
  if (call.distinct && object) NotSupported(name + "(DISTINCT ...)", call.position);
  AggState& st = *ctx.aggs;
  ExprContext c = WithoutHint(ctx);
  c.plan = nullptr;  // no subqueries inside aggregate arguments
  auto call_fn = [this](const char* fn, std::vector<ExprPtr> args) {
    return FunctionRegistry::Global().Call(fn, std::move(args), FunctionContext());
  };
  LogicalAggregate agg;
  agg.kind = AggKind::kStringAgg;
  agg.separator = ", ";
  ExprPtr input;
  // json_agg puts "\n " before every structured element but the first
  // (PostgreSQL's json_agg_transfn): each non-NULL one gets it here, and the
  // final step drops it from the front of the list.
  bool structured = false;
  st.in_aggregate = true;
  try {
    ExprPtr value = BindJsonArgument(*call.children.back(), jsonb, name, c, &structured);
    structured = structured && !jsonb && !object;
    ExprPtr element = Cast(std::move(value), Type::Text());
    if (structured) {
      std::vector<ExprPtr> parts;
      parts.push_back(Constant(Value::Text("\n ")));
      parts.push_back(std::move(element));
      element = call_fn("textcat", std::move(parts));
    }
    // A row's element: its JSON text, "null" for NULL.
    std::vector<ExprPtr> either;
    either.push_back(std::move(element));
    either.push_back(Constant(Value::Text("null")));
    element = Coalesce(std::move(either));
    if (object) {
      Type text = Type::Text();
      ExprContext kc = c;
      kc.hint = &text;
      ExprPtr key = BindExpr(*call.children[0], kc);
      if (!key->type.IsString() || key->type.IsArrayText())
        key = Cast(std::move(key), Type::Text());
      std::vector<ExprPtr> one;
      one.push_back(std::move(key));
      std::vector<ExprPtr> parts;
      parts.push_back(
          call_fn(jsonb ? "jsonb_object_agg key" : "json_object_agg key", std::move(one)));
      parts.push_back(std::move(element));
      element = call_fn("textcat", std::move(parts));
    }
    ExprPtr distinct_value;
    if (call.distinct) {
      std::vector<sql::ExprPtr> refs;
      std::vector<std::string> names;
      if (WholeRowRefs(*call.children.back(), c, &refs, &names)) {
        NotSupported(name + "(DISTINCT a whole row)", call.position);
      }
      distinct_value = BindExpr(*call.children.back(), c);
      if (distinct_value->type.id == TypeId::kJsonb) {
        NotSupported(name + "(DISTINCT a jsonb value)", call.children.back()->position);
      }
      if (distinct_value->type.id == TypeId::kJson) {
        throw DbError(sqlstate::kUndefinedFunction,
                      "could not identify an equality operator for type json",
                      call.children.back()->position);
      }
    }
    input = OrderListAggInput(*this, call, std::move(element), &agg, c, std::move(distinct_value));
    if (call.filter) {
      // Rows the filter rejects give NULL, which the list skips (a keyed
      // list is told: its inputs are otherwise never NULL).
      agg.order.filtered = agg.order.by == ListAggOrder::By::kKeyed;
      std::vector<std::pair<ExprPtr, ExprPtr>> whens;
      whens.emplace_back(BindCondition(*call.filter, c, "FILTER"), std::move(input));
      input = Case(std::move(whens), Constant(Value::Null(Type::Text())));
    }
  } catch (...) {
    st.in_aggregate = false;
    throw;
  }
  st.in_aggregate = false;
  ExprPtr list = AddAggregate(*this, std::move(agg), std::move(input), Type::Text(), name, ctx);
  // No rows: NULL (textcat and the final steps are strict).
  if (!jsonb && !object) {
    std::vector<ExprPtr> one;
    one.push_back(std::move(list));
    return Cast(call_fn("json_agg final", std::move(one)), Type::Json());
  }
  const char* open = object ? (jsonb ? "{" : "{ ") : "[";
  const char* close = object ? (jsonb ? "}" : " }") : "]";
  std::vector<ExprPtr> first;
  first.push_back(Constant(Value::Text(open)));
  first.push_back(std::move(list));
  std::vector<ExprPtr> second;
  second.push_back(call_fn("textcat", std::move(first)));
  second.push_back(Constant(Value::Text(close)));
  // jsonb: [e1, e2] / {"k1": v1, ...} parsed once more into canonical jsonb
  // (jsonb_object_agg's last duplicate key wins there).
  return Cast(call_fn("textcat", std::move(second)), jsonb ? Type::Jsonb() : Type::Json());
}

}  // namespace forktail
