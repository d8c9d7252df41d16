// FROM t TABLESAMPLE BERNOULLI | SYSTEM (percentage) [REPEATABLE (seed)].
//
// Both methods sample rows independently, each with the given probability:
// a filter right above the table's scan. That is PostgreSQL's BERNOULLI;
// its SYSTEM samples whole pages instead, which is faster there and gives a
// clustered sample, and Forktail has no pages a query could skip, so SYSTEM
// is BERNOULLI here (the same expected size, a sample at least as random).
// Without REPEATABLE each row draws random(); with it, the draw is a hash of
// the seed and the row's values, so an unchanged table gives the same sample
// (identical rows are kept or dropped together, unlike PostgreSQL's, which
// hashes row positions). The arguments are evaluated once, before the scan.
#include "olap/plan/binder/binder_internal.h"
#include "olap/plan/logical_util.h"

namespace forktail {

namespace {

// The argument's value, evaluated now as a `want`: 2202H (or `null_state`)
// when it is NULL.
Value SampleArgument(Binder& binder, const sql::Expr& argument, const Type& want,
                     const char* null_state, const std::string& null_message) {
  Value v = EvaluateArgumentNow(binder, argument, want, "TABLESAMPLE", [&](const Type& got) {
    return DbError(sqlstate::kDatatypeMismatch,
                   "argument of TABLESAMPLE must be type " + BaseTypeName(want) + ", not type " +
                       BaseTypeName(got),
                   argument.position);
  });
  if (v.is_null()) throw DbError(null_state, null_message, argument.position);
  return v;
}

}  // namespace

LogicalOpPtr BindTableSample(Binder& binder, const sql::TableSample& sample, LogicalOpPtr scan,
                             const ScopeRelation& table) {
  if (sample.method != "bernoulli" && sample.method != "system") {
    throw DbError(sqlstate::kUndefinedObject,
                  "tablesample method " + sample.method + " does not exist", sample.position);
  }
  if (sample.arguments.size() != 1) {
    throw DbError("2202H",
                  "tablesample method " + sample.method + " requires 1 argument, not " +
                      std::to_string(sample.arguments.size()),
                  sample.position);
  }
  const double percent = SampleArgument(binder, *sample.arguments[0], Type::Double(), "2202H",
                                        "TABLESAMPLE parameter cannot be null")
                             .GetDouble();
  if (!(percent >= 0 && percent <= 100)) {  // NaN too
    throw DbError("2202H", "sample percentage must be between 0 and 100");
  }
  ExprPtr draw;
  if (sample.repeatable) {
    Value seed = SampleArgument(binder, *sample.repeatable, Type::Double(), "2202G",
                                "TABLESAMPLE REPEATABLE parameter cannot be null");
    std::vector<ExprPtr> args;
    args.push_back(Constant(Value::Text(seed.ToString())));
    for (const LogicalColumn& c : table.columns) {
      ExprPtr column = ColumnRef(c.id, c.type);
      args.push_back(column->type.IsString() ? std::move(column)
                                             : Cast(std::move(column), Type::Text()));
    }
    draw = FunctionRegistry::Global().Call("forktail_sample_fraction", std::move(args),
                                           binder.FunctionContext());
  } else {
    draw = FunctionRegistry::Global().Call("random", {}, binder.FunctionContext());
  }
  std::vector<ExprPtr> conditions;
  conditions.push_back(
      Compare(CompareOp::kLt, std::move(draw), Constant(Value::Double(percent / 100.0))));
  return MakeFilter(std::move(scan), std::move(conditions));
}

}  // namespace forktail
