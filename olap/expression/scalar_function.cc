#include "olap/expression/scalar_function.h"

#include <climits>

#include "olap/common/kernel_util.h"
#include "storage/error.h"
#include "storage/fork_guard.h"

namespace forktail {

void ScalarFunction::Execute(const ScalarArgs& args, Rows rows, Vector* out) const {
  out->ClearNulls();
  bool any_null = false;
  for (const Vector* a : args) any_null |= a->nulls() != nullptr;
  if (!strict_ || !any_null) {
    kernel_(args, rows, out);
    return;
  }
  std::vector<uint32_t> live;
  live.reserve(rows.count);
  ForEachRow(rows, [&](uint32_t r) {
    bool null = false;
    for (const Vector* a : args) null |= a->IsNull(r);
    if (null) {
      out->SetNull(r, true);
    } else {
      live.push_back(r);
    }
  });
  if (!live.empty()) kernel_(args, Rows{live.data(), static_cast<uint32_t>(live.size())}, out);
}

namespace {

bool IsStringId(TypeId id) {
  return id == TypeId::kChar || id == TypeId::kVarchar || id == TypeId::kText;
}

constexpr int kNoMatch = INT_MAX / 64;

// Cost of passing an argument of `arg` (nullopt: unknown) as `param`.
int MatchCost(const std::optional<Type>& arg, TypeId param, bool any_to_text) {
  if (!arg) return IsStringId(param) ? 0 : param == TypeId::kDouble ? 1 : 2;
  TypeId a = arg->id;
  if (a == param || (IsStringId(a) && IsStringId(param))) return 0;
  int ra = NumericRank(a), rp = NumericRank(param);
  if (ra > 0 && rp > ra) {
    if (param == TypeId::kDouble) return ra == 4 ? 2 : 3;  // DOUBLE: the preferred type
    if (param == TypeId::kDecimal) return 4;
    return rp - ra;
  }
  // timestamptz is the preferred type of the date/time category, as in
  // PostgreSQL: date_trunc('month', date) is date_trunc(text, timestamptz).
  if (a == TypeId::kDate && param == TypeId::kTimestampTz) return 1;
  if (a == TypeId::kDate && param == TypeId::kTimestamp) return 2;
  if (a == TypeId::kTimestamp && param == TypeId::kTimestampTz) return 1;
  if (any_to_text && IsStringId(param)) return 5;
  return kNoMatch;
}

}  // namespace

Type ParameterType(TypeId param, const std::optional<Type>& arg) {
  if (IsStringId(param)) return arg && arg->IsString() ? *arg : Type::Text();
  if (param == TypeId::kDecimal) {
    if (!arg) return Type::Decimal(kMaxNarrowDecimalPrecision, 6);
    switch (arg->id) {
      case TypeId::kDecimal:
        return *arg;
      case TypeId::kSmallInt:
        return Type::Decimal(5, 0);
      case TypeId::kInteger:
        return Type::Decimal(10, 0);
      case TypeId::kBigInt:
        return Type::Decimal(19, 0);  // 19 digits: a wide DECIMAL
      default:
        return Type::Decimal(kMaxNarrowDecimalPrecision, 0);
    }
  }
  Type t;
  t.id = param;
  return t;
}

FunctionRegistry& FunctionRegistry::Global() {
  static FunctionRegistry* registry = [] {
    auto* r = new FunctionRegistry;
    RegisterMathFunctions(*r);
    RegisterStringFunctions(*r);
    RegisterDatetimeFunctions(*r);
    RegisterRegexFunctions(*r);
    RegisterJsonbFunctions(*r);
    RegisterJsonFunctions(*r);
    RegisterIntervalFunctions(*r);
    RegisterToCharFunctions(*r);
    RegisterTimeFunctions(*r);
    // Sessions bind while the transaction thread forks snapshot processes,
    // which bind too.
    HoldAcrossFork(&r->mu_);
    return r;
  }();
  return *registry;
}

void FunctionRegistry::Register(const std::string& name, FunctionOverload overload) {
  std::lock_guard lock(mu_);
  auto& list = functions_[name];
  for (auto& o : list) {
    if (o->params == overload.params && o->variadic == overload.variadic) {
      *o = std::move(overload);
      return;
    }
  }
  list.push_back(std::make_unique<FunctionOverload>(std::move(overload)));
}

void FunctionRegistry::Register(const std::string& name, std::vector<TypeId> params, Type result,
                                ScalarKernel kernel, bool strict) {
  FunctionOverload o;
  o.params = std::move(params);
  auto fn = MakeScalarFunction(name, result, std::move(kernel), strict);
  o.bind = [fn](const FunctionBindContext&, std::vector<ExprPtr>&) { return fn; };
  Register(name, std::move(o));
}

bool FunctionRegistry::Contains(const std::string& name) const {
  std::lock_guard lock(mu_);
  return functions_.count(name) > 0;
}

std::optional<FunctionRegistry::Resolution> FunctionRegistry::Resolve(
    const std::string& name, const std::vector<std::optional<Type>>& arg_types) const {
  std::lock_guard lock(mu_);
  auto it = functions_.find(name);
  if (it == functions_.end()) return std::nullopt;
  std::optional<Resolution> best;
  int best_cost = kNoMatch;
  bool ambiguous = false;
  for (const auto& o : it->second) {
    size_t n = o->params.size();
    if (o->variadic ? arg_types.size() + 1 < n : arg_types.size() != n) continue;
    Resolution r;
    r.overload = o.get();
    int cost = 0;
    for (size_t i = 0; i < arg_types.size() && cost < kNoMatch; i++) {
      TypeId p = i < n ? o->params[i] : o->params.back();
      cost += MatchCost(arg_types[i], p, o->any_to_text);
      r.param_types.push_back(p);
    }
    if (cost >= kNoMatch) continue;
    if (cost < best_cost) {
      best = std::move(r);
      best_cost = cost;
      ambiguous = false;
    } else if (cost == best_cost) {
      ambiguous = true;
    }
  }
  if (ambiguous) {
    std::string args;
    for (const auto& t : arg_types) {
      if (!args.empty()) args += ", ";
      std::string n = t ? t->ToString() : "unknown";
      args += n.substr(0, n.find('('));  // PostgreSQL names types without modifiers here
    }
    throw DbError(sqlstate::kAmbiguousFunction,
                  "function " + name + "(" + args + ") is not unique");
  }
  return best;
}

ExprPtr FunctionRegistry::MakeCall(const Resolution& r, std::vector<ExprPtr> args,
                                   const FunctionBindContext& ctx) {
  for (size_t i = 0; i < args.size(); i++) {
    Type want = ParameterType(r.param_types[i], args[i]->type);
    // A CHAR(n) argument of a TEXT/VARCHAR parameter loses its padding
    // (FunctionOverload::takes_char).
    if (args[i]->type.id == TypeId::kChar && r.param_types[i] != TypeId::kChar &&
        IsStringId(r.param_types[i]) && !r.overload->any_to_text && !r.overload->takes_char) {
      args[i] = Cast(std::move(args[i]), Type::Text());
      continue;
    }
    if (args[i]->type == want) continue;
    if (want.IsString() && args[i]->type.IsString()) continue;
    if (r.overload->any_to_text && args[i]->type.id == TypeId::kBoolean && want.IsString()) {
      // "any" arguments print as their type's output function does: a
      // boolean as t or f (its cast to text says true or false).
      static const ScalarFunctionPtr boolout = MakeScalarFunction(
          "boolout", Type::Text(), [](const ScalarArgs& a, Rows rows, Vector* out) {
            const uint8_t* in = a[0]->data<uint8_t>();
            auto* o = out->mutable_data<std::string_view>();
            ForEachRow(rows, [&](uint32_t k) { o[k] = in[k] ? "t" : "f"; });
          });
      std::vector<ExprPtr> b;
      b.push_back(std::move(args[i]));
      args[i] = Function(boolout, std::move(b));
      continue;
    }
    args[i] = Cast(std::move(args[i]), want);
  }
  ScalarFunctionPtr fn = r.overload->bind(ctx, args);
  return Function(std::move(fn), std::move(args));
}

ExprPtr FunctionRegistry::Call(const std::string& name, std::vector<ExprPtr> args,
                               const FunctionBindContext& ctx) const {
  std::vector<std::optional<Type>> types;
  for (const ExprPtr& a : args) types.emplace_back(a->type);
  std::optional<Resolution> r = Resolve(name, types);
  if (!r) return nullptr;
  return MakeCall(*r, std::move(args), ctx);
}

}  // namespace forktail
