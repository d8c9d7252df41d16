// The ordered-set aggregates: percentile_cont(f), percentile_disc(f) and
// mode(), each WITHIN GROUP (ORDER BY x) (binder_catalog.h). Each is the
// array_agg of x in that order (the list aggregate's sorted state,
// olap/execution/aggregate/list_agg.h), then a scalar function picks the
// answer out of the group's sorted values, as PostgreSQL's final functions
// do over their sorted tuplestore:
//   percentile_cont  the value at fraction f of the non-null values,
//                    interpolated linearly between the two nearest ones;
//   percentile_disc  the first value whose position in the order is at or
//                    past fraction f;
//   mode             the most frequent value (the first in the order of
//                    those as frequent).
// NULLs are left out; a group with no value gives NULL.
#include <cmath>
#include <string>

#include "olap/common/kernel_util.h"
#include "olap/plan/binder/binder_catalog.h"
#include "olap/plan/binder/binder_internal.h"
#include "olap/plan/catalog/system_catalog.h"
#include "storage/value/array_text.h"

namespace forktail {

namespace {

// The group's sorted non-null values.
std::vector<std::string> SortedValues(std::string_view array) {
  std::vector<std::string> values;
  for (std::optional<std::string>& v : ParseArrayText(array)) {
    if (v) values.push_back(std::move(*v));
  }
  return values;
}

double CheckedFraction(const Vector& fractions, uint32_t row) {
  const double f = fractions.data<double>()[row];
  if (!(f >= 0 && f <= 1)) {  // NaN too
    throw DbError(sqlstate::kNumericValueOutOfRange,
                  "percentile value " + Value::Double(f).ToString() + " is not between 0 and 1");
  }
  return f;
}

// For each row whose group has values and a fraction: fn(row, fraction,
// the sorted values); NULL for the others.
template <typename Fn>
void ForEachPercentile(const ScalarArgs& a, Rows rows, Vector* out, Fn&& fn) {
  ForEachRow(rows, [&](uint32_t i) {
    if (a[0]->IsNull(i) || a[1]->IsNull(i)) return out->SetNull(i, true);
    const double f = CheckedFraction(*a[1], i);
    std::vector<std::string> v = SortedValues(a[0]->data<std::string_view>()[i]);
    if (v.empty()) return out->SetNull(i, true);
    fn(i, f, v);
  });
}

void SetText(Vector* out, uint32_t row, std::string_view s) {
  out->mutable_data<std::string_view>()[row] = out->arena()->Add(s);
}

ExprPtr Pick(const char* name, const Type& result, ScalarKernel kernel, std::vector<ExprPtr> args) {
  return Function(MakeScalarFunction(name, result, std::move(kernel), /*strict=*/false),
                  std::move(args));
}

}  // namespace

bool IsOrderedSetAggregateName(const std::string& name) {
  return name == "percentile_cont" || name == "percentile_disc" || name == "mode";
}

ExprPtr BindOrderedSetAggregate(Binder& binder, const sql::Expr& e, ExprContext& ctx) {
  const std::string& name = e.names.back();
  if (!e.within_group) NoSuchFunction(binder, e, ctx);
  if (e.over) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  "OVER is not supported for ordered-set aggregate " + name, e.position);
  }
  if (e.distinct) {
    throw DbError(sqlstate::kFeatureNotSupported, "DISTINCT is not supported for " + name,
                  e.position);
  }
  const size_t direct_args = name == "mode" ? 0 : 1;
  if (e.star || e.children.size() != direct_args || e.agg_order.size() != 1) {
    NoSuchFunction(binder, e, ctx);
  }
  if (ctx.aggs == nullptr) {
    throw DbError(sqlstate::kGroupingError,
                  std::string("aggregate functions are not allowed in ") + ctx.clause, e.position);
  }
  // The fraction is evaluated per group, outside the aggregate.
  ExprPtr fraction;
  if (direct_args == 1) {
    ExprContext c = WithoutHint(ctx);
    fraction = binder.BindExpr(*e.children[0], c);
    const Type dbl = Type::Double();
    if (ArrayElementType(fraction->type)) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    name + " with an array of fractions is not supported", e.position);
    }
    if (!fraction->type.IsNumeric()) NoSuchFunction(binder, e, ctx);
    if (fraction->type.id != TypeId::kDouble) fraction = Cast(std::move(fraction), dbl);
  }
  const sql::OrderItem& key = e.agg_order[0];
  ExprPtr sorted = BindListAggregateOf(
      binder,
      {"array_agg", *key.expr, nullptr, e.agg_order, e.filter.get(), false, false, e.position},
      ctx);
  // The value's own type: an array's element type has no typmod (a
  // numeric(10,2) would come back with another scale).
  Type element = *ArrayElementType(sorted->type);
  {
    AggState& st = *ctx.aggs;
    const bool inside = st.in_aggregate;
    st.in_aggregate = true;  // bound as the aggregate's argument it is
    ExprContext c = WithoutHint(ctx);
    c.plan = nullptr;
    element = binder.BindExpr(*key.expr, c)->type;
    st.in_aggregate = inside;
  }
  std::vector<ExprPtr> args;
  args.push_back(std::move(sorted));
  if (name == "percentile_cont") {
    if (!element.IsNumeric()) NoSuchFunction(binder, e, ctx);
    args.push_back(std::move(fraction));
    return Pick(
        "percentile_cont", Type::Double(),
        [](const ScalarArgs& a, Rows rows, Vector* out) {
          ForEachPercentile(a, rows, out, [&](uint32_t i, double f, const auto& v) {
            const double at = f * static_cast<double>(v.size() - 1);
            const size_t lo = static_cast<size_t>(std::floor(at));
            const size_t hi = static_cast<size_t>(std::ceil(at));
            const double low = std::strtod(v[lo].c_str(), nullptr);
            const double high = std::strtod(v[hi].c_str(), nullptr);
            out->mutable_data<double>()[i] =
                lo == hi ? low : low + (high - low) * (at - static_cast<double>(lo));
          });
        },
        std::move(args));
  }
  if (name == "percentile_disc") {
    args.push_back(std::move(fraction));
    ExprPtr text = Pick(
        "percentile_disc", Type::Text(),
        [](const ScalarArgs& a, Rows rows, Vector* out) {
          ForEachPercentile(a, rows, out, [&](uint32_t i, double f, const auto& v) {
            const double n = std::ceil(f * static_cast<double>(v.size()));
            const size_t at = n <= 1 ? 0 : static_cast<size_t>(n) - 1;
            SetText(out, i, v[std::min(at, v.size() - 1)]);
          });
        },
        std::move(args));
    return element.id == TypeId::kText ? std::move(text) : Cast(std::move(text), element);
  }
  ExprPtr text = Pick(
      "mode", Type::Text(),
      [element](const ScalarArgs& a, Rows rows, Vector* out) {
        ForEachRow(rows, [&](uint32_t i) {
          if (a[0]->IsNull(i)) return out->SetNull(i, true);
          std::vector<std::string> v = SortedValues(a[0]->data<std::string_view>()[i]);
          if (v.empty()) return out->SetNull(i, true);
          size_t best = 0, best_count = 0;
          for (size_t run = 0; run < v.size();) {
            size_t end = run + 1;
            while (end < v.size() && CompareArrayElements(v[run], v[end], element) == 0) end++;
            if (end - run > best_count) {
              best = run;
              best_count = end - run;
            }
            run = end;
          }
          SetText(out, i, v[best]);
        });
      },
      std::move(args));
  return element.id == TypeId::kText ? std::move(text) : Cast(std::move(text), element);
}

}  // namespace forktail
