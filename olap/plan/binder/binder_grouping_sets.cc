// GROUP BY ROLLUP / CUBE / GROUPING SETS / () and GROUPING(..), as
// PostgreSQL computes them: the query groups by every grouping set, each
// set's groups are rows of the result, and a grouping expression that is not
// in a row's set is NULL there.
//
// One Aggregate computes all the sets (Spark's Expand, in logical
// operators): the input is joined with one row per set (a VALUES of the
// set's ordinal), a key that some set lacks is replaced by
//   CASE WHEN ordinal IN (sets that hold it) THEN key END
// and the Aggregate groups by those keys and the ordinal. Each set's groups
// stay apart (the ordinal differs, so GROUPING SETS ((a), (a)) gives every
// group twice, as PostgreSQL does), every aggregate (DISTINCT, ordered,
// string_agg) works unchanged, and the input is read once. The price is
// that the Aggregate consumes each input row once per set.
//
// An empty set's group is the whole input, which is a row even when the
// input is empty (count 0, as GROUP BY () gives): a FULL JOIN of the
// Aggregate with the empty sets' ordinals adds that row where the Aggregate
// produced none.
#include <algorithm>

#include "olap/plan/binder/binder_internal.h"

namespace forktail {
namespace {

using Kind = sql::GroupingElement::Kind;
using ExprSet = std::vector<const sql::Expr*>;

constexpr size_t kMaxSets = 4096;  // PostgreSQL's limits
constexpr size_t kMaxCubeElements = 12;

[[noreturn]] void TooManySets() {
  throw DbError(sqlstate::kStatementTooComplex, "too many grouping sets present (maximum 4096)");
}

ExprSet Elements(const sql::GroupingElement& list) {
  ExprSet out;
  for (const sql::ExprPtr& e : list.exprs) out.push_back(e.get());
  return out;
}

// The sets one GROUP BY item stands for, in PostgreSQL's order.
std::vector<ExprSet> SetsOf(const sql::GroupingElement& g) {
  std::vector<ExprSet> sets;
  switch (g.kind) {
    case Kind::kList:
      sets.push_back(Elements(g));
      break;
    case Kind::kRollup:
      for (size_t n = g.elements.size() + 1; n-- > 0;) {
        ExprSet s;
        for (size_t i = 0; i < n; i++) {
          for (const sql::Expr* e : Elements(g.elements[i])) s.push_back(e);
        }
        sets.push_back(std::move(s));
      }
      break;
    case Kind::kCube: {
      const size_t n = g.elements.size();
      if (n > kMaxCubeElements) {
        throw DbError(sqlstate::kTooManyColumns, "CUBE is limited to 12 elements", g.position);
      }
      // All of them first, none last; otherwise by the elements left out.
      for (size_t absent = 0; absent < (size_t{1} << n); absent++) {
        ExprSet s;
        for (size_t i = 0; i < n; i++) {
          if (absent & (size_t{1} << i)) continue;
          for (const sql::Expr* e : Elements(g.elements[i])) s.push_back(e);
        }
        sets.push_back(std::move(s));
      }
      break;
    }
    case Kind::kSets:
      for (const sql::GroupingElement& item : g.elements) {
        for (ExprSet& s : SetsOf(item)) {
          sets.push_back(std::move(s));
          if (sets.size() > kMaxSets) TooManySets();
        }
      }
      break;
  }
  return sets;
}

}  // namespace

std::vector<std::vector<const sql::Expr*>> ExpandGroupingSets(const sql::Query& q) {
  // The plain items are in every set; each grouping-set item multiplies.
  std::vector<ExprSet> sets(1);
  for (const sql::ExprPtr& e : q.group_by) sets[0].push_back(e.get());
  for (const sql::GroupingElement& g : q.grouping_sets) {
    std::vector<ExprSet> of = SetsOf(g);
    if (sets.size() * of.size() > kMaxSets) TooManySets();
    std::vector<ExprSet> product;
    for (const ExprSet& left : sets) {
      for (const ExprSet& right : of) {
        ExprSet s = left;
        s.insert(s.end(), right.begin(), right.end());
        product.push_back(std::move(s));
      }
    }
    sets = std::move(product);
  }
  return sets;
}

void Binder::SetGroupingSets(std::vector<std::vector<size_t>> sets, bool distinct, AggState* st) {
  for (std::vector<size_t>& s : sets) {
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
  }
  if (distinct) {  // GROUP BY DISTINCT: each set once, where it first appears
    std::vector<std::vector<size_t>> once;
    for (std::vector<size_t>& s : sets) {
      if (std::find(once.begin(), once.end(), s) == once.end()) once.push_back(std::move(s));
    }
    sets = std::move(once);
  }
  st->sets = std::move(sets);
  if (st->sets.size() < 2) return;  // one set: a plain GROUP BY
  st->set_key = NewId();
  bool empty_set = false;
  for (const std::vector<size_t>& s : st->sets) empty_set = empty_set || s.empty();
  st->set_id = empty_set ? NewId() : st->set_key;  // AddEmptySetRows defines it
  // A key some set lacks is a computed column (NULL in that set's rows):
  // expressions over it must not read the input column.
  for (size_t k = 0; k < st->group_exprs.size(); k++) {
    if (!st->InEverySet(k) && st->group_exprs[k]->kind == ExprKind::kColumnRef) {
      st->group_ids[k] = NewId();
    }
  }
}

bool AggState::InEverySet(size_t key) const {
  if (set_id == 0) return true;
  for (const std::vector<size_t>& s : sets) {
    if (!std::binary_search(s.begin(), s.end(), key)) return false;
  }
  return true;
}

ExprPtr MaskedGroupKey(const AggState& st, size_t key, ExprPtr value) {
  if (st.InEverySet(key)) return value;
  std::vector<Value> holding;
  for (size_t i = 0; i < st.sets.size(); i++) {
    if (std::binary_search(st.sets[i].begin(), st.sets[i].end(), key)) {
      holding.push_back(Value::Integer(static_cast<int32_t>(i)));
    }
  }
  const Type type = value->type;
  if (holding.empty()) return Constant(Value::Null(type));
  std::vector<std::pair<ExprPtr, ExprPtr>> whens;
  whens.emplace_back(In(ColumnRef(st.set_key, Type::Integer()), std::move(holding)),
                     std::move(value));
  return Case(std::move(whens), Constant(Value::Null(type)));
}

LogicalOpPtr JoinSetOrdinals(LogicalOpPtr plan, const AggState& st) {
  auto values = std::make_unique<LogicalOp>();
  values->kind = LogicalOpKind::kValues;
  values->columns.push_back({st.set_key, "?grouping set?", Type::Integer()});
  for (size_t i = 0; i < st.sets.size(); i++) {
    values->rows.emplace_back();
    values->rows.back().push_back(Constant(Value::Integer(static_cast<int32_t>(i))));
  }
  return MakeJoin(LogicalJoinKind::kCross, std::move(plan), std::move(values), {}, {}, {});
}

LogicalOpPtr Binder::AddEmptySetRows(LogicalOpPtr agg, const AggState& st) {
  if (st.set_id == 0) return agg;
  std::vector<Value> empty;
  for (size_t i = 0; i < st.sets.size(); i++) {
    if (st.sets[i].empty()) empty.push_back(Value::Integer(static_cast<int32_t>(i)));
  }
  if (empty.empty()) return agg;
  // The FULL JOIN pads the Aggregate's columns with NULLs: above it, the
  // ordinal is taken from either side and a count is 0 where no input row
  // was counted (the Aggregate's counts get inner ids for that).
  std::map<uint32_t, uint32_t> counts;  // outer id -> inner id
  for (LogicalColumn& c : agg->columns) {
    if (!st.count_ids.count(c.id)) continue;
    counts[c.id] = NewId();
    c.id = counts[c.id];
  }
  auto values = std::make_unique<LogicalOp>();
  values->kind = LogicalOpKind::kValues;
  const uint32_t empty_id = NewId();
  values->columns.push_back({empty_id, "?grouping set?", Type::Integer()});
  for (Value& v : empty) {
    values->rows.emplace_back();
    values->rows.back().push_back(Constant(v));
  }
  std::vector<LogicalColumn> columns = agg->columns;
  LogicalOpPtr join = MakeJoin(LogicalJoinKind::kFull, std::move(agg), std::move(values),
                               {st.set_key}, {empty_id}, {});
  std::vector<ExprPtr> exprs;
  for (LogicalColumn& c : columns) {
    ExprPtr e = ColumnRef(c.id, c.type);
    if (c.id == st.set_key) {
      e = Coalesce2(std::move(e), ColumnRef(empty_id, Type::Integer()));
      c.id = st.set_id;
    }
    for (const auto& [outer_id, inner_id] : counts) {
      if (inner_id != c.id) continue;
      e = Coalesce2(std::move(e), Constant(Value::BigInt(0)));
      c.id = outer_id;
    }
    exprs.push_back(std::move(e));
  }
  return MakeProject(std::move(join), std::move(columns), std::move(exprs));
}

ExprPtr Binder::BindGroupingCall(const sql::Expr& e, ExprContext& ctx) {
  if (ctx.aggs == nullptr) {
    throw DbError(sqlstate::kGroupingError,
                  std::string("grouping operations are not allowed in ") + ctx.clause, e.position);
  }
  if (e.over || e.filter || e.star || e.distinct || e.within_group || !e.agg_order.empty() ||
      e.children.empty()) {
    throw DbError(sqlstate::kSyntaxError, "GROUPING takes a list of grouping expressions",
                  e.position);
  }
  const AggState& st = *ctx.aggs;
  if (st.in_aggregate) {
    throw DbError(sqlstate::kGroupingError, "aggregate function calls cannot be nested",
                  e.position);
  }
  if (e.children.size() >= 32) {
    throw DbError(sqlstate::kTooManyArguments, "GROUPING must have fewer than 32 arguments",
                  e.position);
  }
  // Each argument is one of the grouping expressions (bound over FROM).
  ExprContext c;
  c.scope = ctx.scope;
  c.clause = "GROUPING";
  std::vector<size_t> keys;
  for (const sql::ExprPtr& a : e.children) {
    ExprPtr arg = BindExpr(*a, c);
    size_t k = 0;
    while (k < st.group_exprs.size() && !ExprEquals(*arg, *st.group_exprs[k])) k++;
    if (!st.grouped || k == st.group_exprs.size()) {
      throw DbError(sqlstate::kGroupingError,
                    "arguments to GROUPING must be grouping expressions of the associated query "
                    "level",
                    a->position);
    }
    keys.push_back(k);
  }
  // Bit n-1-i is set where argument i is not grouped: a constant per set.
  auto value_in = [&](const std::vector<size_t>& set) {
    int32_t v = 0;
    for (size_t k : keys) {
      v = (v << 1) | (std::binary_search(set.begin(), set.end(), k) ? 0 : 1);
    }
    return v;
  };
  if (st.set_id == 0) return Constant(Value::Integer(0));
  std::map<int32_t, std::vector<Value>> sets_by_value;
  for (size_t i = 0; i < st.sets.size(); i++) {
    sets_by_value[value_in(st.sets[i])].push_back(Value::Integer(static_cast<int32_t>(i)));
  }
  std::vector<std::pair<ExprPtr, ExprPtr>> whens;
  for (auto& [v, ordinals] : sets_by_value) {
    whens.emplace_back(In(ColumnRef(st.set_id, Type::Integer()), std::move(ordinals)),
                       Constant(Value::Integer(v)));
  }
  return Case(std::move(whens), Constant(Value::Null(Type::Integer())));
}

}  // namespace forktail
