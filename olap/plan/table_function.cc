#include "olap/plan/table_function.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "olap/plan/binder_catalog.h"
#include "olap/plan/optimizer_internal.h"
#include "storage/error.h"

namespace forktail {

namespace {

[[noreturn]] void Unsupported(const std::string& what) {
  throw DbError(sqlstate::kFeatureNotSupported, what + " is not supported");
}

// The function's values (one per output row) for constant arguments.
std::vector<Value> Series(const LogicalOp& op, const std::vector<Value>& args) {
  const Type& type = op.columns[0].type;
  std::vector<Value> out;
  if (op.function_name == "generate_series") {
    for (const Value& a : args) {
      if (a.is_null()) return out;
    }
    int64_t from = args[0].GetInt(), to = args[1].GetInt();
    int64_t step = args.size() == 3 ? args[2].GetInt() : 1;
    if (step == 0) throw DbError(sqlstate::kInvalidParameterValue, "step size cannot equal zero");
    // In unsigned arithmetic: b - a cannot overflow for any int64 pair.
    uint64_t span =
        step > 0
            ? (to >= from ? static_cast<uint64_t>(to) - static_cast<uint64_t>(from) : UINT64_MAX)
            : (from >= to ? static_cast<uint64_t>(from) - static_cast<uint64_t>(to) : UINT64_MAX);
    if (span == UINT64_MAX) return out;
    uint64_t abs_step = step > 0 ? static_cast<uint64_t>(step) : 0 - static_cast<uint64_t>(step);
    uint64_t count = span / abs_step + 1;
    if (count > static_cast<uint64_t>(kMaxSeriesRows)) {
      Unsupported("generate_series of more than 1000000 rows");
    }
    int64_t v = from;
    for (uint64_t i = 0; i < count; i++, v += (i < count ? step : 0)) {
      out.push_back(type.id == TypeId::kBigInt ? Value::BigInt(v)
                                               : Value::Integer(static_cast<int32_t>(v)));
    }
    return out;
  }
  if (op.function_name == "unnest") {
    if (args[0].is_null()) return out;
    for (const std::optional<std::string>& v : ParseArrayText(args[0].GetString())) {
      out.push_back(v ? Value::Parse(type, *v) : Value::Null(type));
    }
    return out;
  }
  Unsupported("function " + op.function_name + " in FROM");
}

}  // namespace

LogicalOpPtr ExpandTableFunction(const LogicalOp& op) {
  std::vector<Value> args;
  for (const ExprPtr& e : op.expressions) {
    ExprPtr folded = FoldExpression(CloneExpr(*e));
    if (folded->kind != ExprKind::kConstant) {
      Unsupported(op.function_name + " with arguments that are not constant per row");
    }
    args.push_back(folded->constant);
  }
  auto values = std::make_unique<LogicalOp>();
  values->kind = LogicalOpKind::kValues;
  values->columns = op.columns;
  std::vector<Value> series = Series(op, args);
  for (size_t i = 0; i < series.size(); i++) {
    std::vector<ExprPtr> row;
    row.push_back(Constant(std::move(series[i])));
    if (op.columns.size() > 1) row.push_back(Constant(Value::BigInt(static_cast<int64_t>(i + 1))));
    values->rows.push_back(std::move(row));
  }
  return values;
}

void ExpandTableFunctions(LogicalOpPtr* plan) {
  if ((*plan)->kind == LogicalOpKind::kTableFunction) {
    *plan = ExpandTableFunction(**plan);
    return;
  }
  for (LogicalOpPtr& c : (*plan)->children) {
    if (c) ExpandTableFunctions(&c);
  }
}

}  // namespace forktail
