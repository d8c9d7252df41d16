// string_agg / array_agg and ARRAY(subquery) (binder_catalog.h). The
// aggregates run in the group table (olap/execution/aggregate/list_agg.h); the binder checks the
// arguments, turns array_agg's input into text (the result's TEXT carries the
// element type, as every array here: binder_catalog_array.cc) and turns an
// aggregate ORDER BY into what the state sorts: the aggregated value itself
// (compared as text or as a number), or each input prefixed with its keys'
// order-preserving bytes (KeyedInput).
#include <string>

#include "olap/common/kernel_util.h"
#include "olap/execution/aggregate/list_agg.h"
#include "olap/execution/operator/physical_chunk_block.h"
#include "olap/plan/binder/binder_catalog.h"
#include "olap/plan/binder/binder_internal.h"
#include "olap/plan/binder/binder_srf.h"
#include "olap/plan/catalog/system_catalog.h"
#include "storage/table/ordered_index.h"

namespace forktail {

namespace {

[[noreturn]] void Unsupported(const std::string& what, int position) {
  throw DbError(sqlstate::kFeatureNotSupported, what + " is not supported", position);
}

// ARRAY(subquery) rewrites its subquery's select item into this call; the
// flag no SQL text can set (array_agg written without parentheses is a
// column) marks the rewrite done, so binding the statement again (prepared
// statements) finds it in place. Its ORDER BY ordinal 1 is the argument.
bool IsRewrittenArrayAgg(const sql::Expr& e) {
  return e.kind == sql::ExprKind::kFunction && e.no_parens && e.names.size() == 1 &&
         e.names[0] == "array_agg";
}

bool IsOrdinalOne(const sql::Expr& e) {
  return e.kind == sql::ExprKind::kLiteral && e.literal_kind == sql::LiteralKind::kInteger &&
         e.text == "1";
}

// string_agg(x, sep ORDER BY k1, k2 ...): each input becomes k1..kn in
// memcmp order (DESC complemented, NULLS FIRST/LAST by their marker), then
// x (list_agg.h KeyedListAggInput); the state sorts the bytes.
ExprPtr KeyedInput(std::vector<ExprPtr> keys, const std::vector<sql::OrderItem>& order,
                   ExprPtr value) {
  struct KeySpec {
    Type type;
    bool descending;
    bool nulls_first;
  };
  std::vector<KeySpec> specs;
  for (size_t i = 0; i < keys.size(); i++) {
    const bool desc = order[i].direction == sql::SortDirection::kDesc;
    const bool nulls_first = order[i].nulls == sql::NullsOrder::kDefault
                                 ? desc
                                 : order[i].nulls == sql::NullsOrder::kFirst;
    specs.push_back({keys[i]->type, desc, nulls_first});
  }
  std::vector<ExprPtr> args = std::move(keys);
  args.push_back(std::move(value));
  auto kernel = [specs](const ScalarArgs& a, Rows rows, Vector* out) {
    auto* o = out->mutable_data<std::string_view>();
    const Vector& values = *a[specs.size()];
    ForEachRow(rows, [&](uint32_t i) {
      std::string key;
      for (size_t k = 0; k < specs.size(); k++) {
        const size_t start = key.size();
        AppendOrderedKey(specs[k].type, VectorValue(*a[k], i), &key);
        // NULL's marker (after the values) moves before them for NULLS
        // FIRST; DESC complements the key's bytes, reversing its order.
        if (a[k]->IsNull(i)) key[start] = specs[k].nulls_first != specs[k].descending ? 0x00 : 0x02;
        if (specs[k].descending) {
          for (size_t b = start; b < key.size(); b++) key[b] = static_cast<char>(~key[b]);
        }
      }
      std::optional<std::string_view> v;
      if (!values.IsNull(i)) v = values.data<std::string_view>()[i];
      o[i] = out->arena()->Add(KeyedListAggInput(std::move(key), v));
    });
  };
  return Function(MakeScalarFunction("list_agg_key", Type::Text(), kernel, /*strict=*/false),
                  std::move(args));
}

}  // namespace

ExprPtr BindListAggregate(Binder& binder, const sql::Expr& e, ExprContext& ctx) {
  const std::string& name = e.names.back();
  const bool is_string = name == "string_agg";
  if (e.star || e.children.size() != (is_string ? 2u : 1u)) {
    throw DbError(sqlstate::kUndefinedFunction,
                  "function " + name + " with " + std::to_string(e.children.size()) +
                      " arguments does not exist",
                  e.position);
  }
  return BindListAggregateOf(
      binder,
      {name, *e.children[0], is_string ? e.children[1].get() : nullptr, e.agg_order, e.filter.get(),
       e.distinct, IsRewrittenArrayAgg(e), e.position},
      ctx);
}

ExprPtr BindListAggregateOf(Binder& binder, const ListAggCall& e, ExprContext& ctx) {
  const std::string& name = e.name;
  const bool is_string = name == "string_agg";
  AggState& st = *ctx.aggs;
  ExprContext c = ctx;
  c.hint = nullptr;
  c.plan = nullptr;  // no subqueries inside aggregate arguments
  st.in_aggregate = true;
  ExprPtr input;
  ExprPtr sep;
  std::vector<ExprPtr> keys;
  ExprPtr filter;
  try {
    if (e.filter) filter = binder.BindCondition(*e.filter, c, "FILTER");
    Type text = Type::Text();
    if (is_string) c.hint = &text;
    input = binder.BindExpr(e.value, c);
    if (is_string) sep = binder.BindExpr(*e.separator, c);
    c.hint = nullptr;
    for (const sql::OrderItem& o : e.order) {
      keys.push_back(e.order_is_argument && IsOrdinalOne(*o.expr) ? CloneExpr(*input)
                                                                  : binder.BindExpr(*o.expr, c));
    }
  } catch (...) {
    st.in_aggregate = false;
    throw;
  }
  st.in_aggregate = false;
  LogicalAggregate agg;
  agg.kind = is_string ? AggKind::kStringAgg : AggKind::kArrayAgg;
  Type result = Type::Text();
  if (is_string) {
    if (!input->type.IsString() || !sep->type.IsString()) {
      throw DbError(sqlstate::kUndefinedFunction,
                    "function string_agg(" + BaseTypeName(input->type) + ", " +
                        BaseTypeName(sep->type) + ") does not exist",
                    e.position);
    }
    if (sep->kind != ExprKind::kConstant)
      Unsupported("a non-constant string_agg separator", e.position);
    if (!sep->constant.is_null()) agg.separator = std::string(sep->constant.GetString());
  } else {
    if (ArrayElementType(input->type)) Unsupported("array_agg of arrays", e.position);
    result = ArrayTextType(input->type);
  }
  bool by_value = true;  // every key is the aggregated value itself
  for (const ExprPtr& k : keys) by_value = by_value && ExprEquals(*k, *input);
  // FILTER (WHERE f): an input is NULL where f is not true. string_agg skips
  // NULLs anyway; array_agg keeps them, so its values are wrapped first and
  // the state drops the NULLs (ListAggOrder::filtered).
  auto add = [&](ExprPtr in) {
    if (filter) {
      const bool keyed = agg.order.by == ListAggOrder::By::kKeyed;
      if (!is_string && !keyed) {
        std::vector<ExprPtr> one;
        one.push_back(std::move(in));
        in = Function(MakeScalarFunction(
                          "list_agg_wrap", Type::Text(),
                          [](const ScalarArgs& a, Rows rows, Vector* out) {
                            auto* o = out->mutable_data<std::string_view>();
                            const Vector& v = *a[0];
                            ForEachRow(rows, [&](uint32_t i) {
                              std::optional<std::string_view> x;
                              if (!v.IsNull(i)) x = v.data<std::string_view>()[i];
                              o[i] = out->arena()->Add(WrapListAggInput(x));
                            });
                          },
                          /*strict=*/false),
                      std::move(one));
      }
      agg.order.filtered = keyed || !is_string;
      std::vector<std::pair<ExprPtr, ExprPtr>> whens;
      const Type t = in->type;
      whens.emplace_back(std::move(filter), std::move(in));
      in = Case(std::move(whens), Constant(Value::Null(t)));
    }
    return AddAggregate(binder, std::move(agg), std::move(in), result, name, ctx);
  };
  if (e.distinct) {
    // As PostgreSQL: the values sorted (ascending unless ORDER BY says),
    // each kept once; any other ORDER BY is an error.
    if (!by_value) {
      throw DbError(sqlstate::kInvalidColumnReference,
                    "in an aggregate with DISTINCT, ORDER BY expressions must appear in "
                    "argument list",
                    e.order[0].position);
    }
    agg.order.distinct = true;
    agg.order.by = input->type.IsNumeric() ? ListAggOrder::By::kNumber : ListAggOrder::By::kText;
  }
  if (!by_value) {
    // Any other keys: each input carries its keys' ordered bytes.
    for (size_t i = 0; i < keys.size(); i++) {
      if (keys[i]->type.id == TypeId::kJsonb) {
        Unsupported(name + "(... ORDER BY a jsonb value)", e.order[i].position);
      }
    }
    input = OutputText(std::move(input));
    input = KeyedInput(std::move(keys), e.order, std::move(input));
    agg.order.by = ListAggOrder::By::kKeyed;
    return add(std::move(input));
  }
  for (size_t i = 0; i < keys.size(); i++) {
    if (i > 0) continue;  // later keys equal to the first change nothing
    const sql::OrderItem& o = e.order[i];
    agg.order.by = input->type.IsNumeric() ? ListAggOrder::By::kNumber : ListAggOrder::By::kText;
    agg.order.descending = o.direction == sql::SortDirection::kDesc;
    agg.order.nulls_first = o.nulls == sql::NullsOrder::kDefault
                                ? agg.order.descending
                                : o.nulls == sql::NullsOrder::kFirst;
  }
  input = OutputText(std::move(input));
  return add(std::move(input));
}

ExprPtr OrderListAggInput(Binder& binder, const sql::Expr& call, ExprPtr text,
                          LogicalAggregate* agg, ExprContext& ctx, ExprPtr distinct_value) {
  if (call.agg_order.empty() && !distinct_value) return text;
  const std::string& name = call.names.back();
  ExprContext c = ctx;
  c.hint = nullptr;
  c.plan = nullptr;
  std::vector<ExprPtr> keys;
  for (size_t i = 0; i < call.agg_order.size(); i++) {
    keys.push_back(binder.BindExpr(*call.agg_order[i].expr, c));
    if (distinct_value && !ExprEquals(*keys.back(), *distinct_value)) {
      throw DbError(sqlstate::kInvalidColumnReference,
                    "in an aggregate with DISTINCT, ORDER BY expressions must appear in "
                    "argument list",
                    call.agg_order[i].position);
    }
    if (keys.back()->type.id == TypeId::kJsonb || keys.back()->type.id == TypeId::kJson) {
      Unsupported(name + "(... ORDER BY a json value)", call.agg_order[i].position);
    }
  }
  agg->order.by = ListAggOrder::By::kKeyed;
  if (!distinct_value) return KeyedInput(std::move(keys), call.agg_order, std::move(text));
  // DISTINCT: sorted by the value (ascending unless ORDER BY says), then
  // each value's text kept once.
  agg->order.distinct = true;
  if (keys.empty()) {
    std::vector<sql::OrderItem> ascending(1);
    keys.push_back(std::move(distinct_value));
    return KeyedInput(std::move(keys), ascending, std::move(text));
  }
  return KeyedInput(std::move(keys), call.agg_order, std::move(text));
}

namespace {

bool ContainsSetReturningCall(const sql::Expr& e) {
  if (IsSetReturningCall(e)) return true;
  for (const sql::ExprPtr& c : e.children) {
    if (c && ContainsSetReturningCall(*c)) return true;
  }
  return false;
}

}  // namespace

ExprPtr BindArraySubquery(Binder& binder, const sql::Expr& e, ExprContext& ctx) {
  // The rewrite happens once, in place: the statement's tree is not shared.
  sql::Query& q = const_cast<sql::Query&>(*e.subquery);
  if (!(q.select_list.size() == 1 && q.select_list[0].expr &&
        IsRewrittenArrayAgg(*q.select_list[0].expr))) {
    bool simple = q.kind == sql::QueryKind::kSelect && q.with.empty() && !q.distinct &&
                  q.group_by.empty() && q.grouping_sets.empty() && !q.having && !q.limit &&
                  !q.offset && q.locking.empty() && q.select_list.size() == 1 &&
                  q.select_list[0].expr && q.select_list[0].expr->kind != sql::ExprKind::kStar &&
                  !binder.ContainsAggregate(*q.select_list[0].expr) &&
                  !ContainsSetReturningCall(*q.select_list[0].expr);
    if (!simple) {
      // Any other one-column query (DISTINCT, GROUP BY, UNION, VALUES, a
      // set-returning call, LIMIT ...) becomes a derived table the array is
      // aggregated over: (SELECT array_agg(v ORDER BY ...) FROM (q) AS s(v)).
      // Its ORDER BY carries over when it sorts by the value itself (by
      // ordinal 1 or the column's name); q keeps it too, for its LIMIT.
      const sql::Query* leftmost = &q;
      while (leftmost->kind == sql::QueryKind::kSetOp) leftmost = leftmost->left.get();
      if (leftmost->kind == sql::QueryKind::kSelect &&
          (leftmost->select_list.size() != 1 || !leftmost->select_list[0].expr ||
           leftmost->select_list[0].expr->kind == sql::ExprKind::kStar)) {
        throw DbError(sqlstate::kSyntaxError, "subquery must return only one column", e.position);
      }
      std::string name;  // the column's name, as ORDER BY may use it
      if (leftmost->kind == sql::QueryKind::kSelect) {
        const sql::SelectItem& item = leftmost->select_list[0];
        name = !item.alias.empty()                            ? item.alias
               : item.expr->kind == sql::ExprKind::kColumnRef ? item.expr->names.back()
                                                              : "";
      }
      std::vector<sql::OrderItem> outer_order;
      for (const sql::OrderItem& o : q.order_by) {
        const bool by_value =
            IsOrdinalOne(*o.expr) || (!name.empty() && o.expr->kind == sql::ExprKind::kColumnRef &&
                                      o.expr->names.size() == 1 && o.expr->names[0] == name);
        if (!by_value) {
          Unsupported("ARRAY(subquery) ordered by another expression than its value", o.position);
        }
        sql::OrderItem by;
        by.expr = std::make_unique<sql::Expr>();
        by.expr->kind = sql::ExprKind::kColumnRef;
        by.expr->names = {"array_subquery", "array_value"};
        by.expr->position = o.position;
        by.direction = o.direction;
        by.nulls = o.nulls;
        by.position = o.position;
        outer_order.push_back(std::move(by));
      }
      auto outer = std::make_unique<sql::Query>();
      outer->position = q.position;
      auto from = std::make_unique<sql::TableRef>();
      from->kind = sql::TableRefKind::kSubquery;
      from->position = q.position;
      from->alias = "array_subquery";
      from->column_aliases = {"array_value"};
      from->subquery = std::move(const_cast<sql::QueryPtr&>(e.subquery));
      outer->from.push_back(std::move(from));
      auto value = std::make_unique<sql::Expr>();
      value->kind = sql::ExprKind::kColumnRef;
      value->position = e.position;
      value->names = {"array_subquery", "array_value"};
      auto call = std::make_unique<sql::Expr>();
      call->kind = sql::ExprKind::kFunction;
      call->position = e.position;
      call->names = {"array_agg"};
      call->no_parens = true;
      call->children.push_back(std::move(value));
      call->agg_order = std::move(outer_order);
      outer->select_list.push_back(sql::SelectItem{std::move(call), "array"});
      const_cast<sql::QueryPtr&>(e.subquery) = std::move(outer);
      return BindArraySubquery(binder, e, ctx);  // now of the simple form
    }
    auto call = std::make_unique<sql::Expr>();
    call->kind = sql::ExprKind::kFunction;
    call->position = e.position;
    call->names = {"array_agg"};
    call->no_parens = true;
    call->children.push_back(std::move(q.select_list[0].expr));
    call->agg_order = std::move(q.order_by);
    q.order_by.clear();
    if (q.select_list[0].alias.empty()) q.select_list[0].alias = "array";
    q.select_list[0].expr = std::move(call);
  }
  ExprPtr sub = binder.BindScalarSubquery(e, ctx);
  Type t = sub->type;
  ExprPtr empty = Constant(Value::Text("{}"));
  empty->type = t;
  std::vector<ExprPtr> args;
  args.push_back(std::move(sub));
  args.push_back(std::move(empty));
  ExprPtr r = Coalesce(std::move(args));
  r->type = t;
  return r;
}

}  // namespace forktail
