// Scalar functions: named, typed, vectorized functions the binder resolves
// by name and argument types (ExprKind::kFunction nodes execute them).
//
// Two layers:
//   ScalarFunction   one BOUND call's behaviour: a name, the result Type and
//                    a vectorized kernel. The kernel is a std::function, so
//                    it may capture state computed at bind time (a lookup
//                    map of the catalog, now()'s timestamp, a compiled
//                    regex); that state is immutable and shared by every
//                    executor that runs the plan (one per worker thread):
//                    the kernel must be safe to call concurrently.
//   FunctionRegistry name -> overloads. An overload declares its parameter
//                    types and a `bind` callback that makes the
//                    ScalarFunction for the actual (already cast) arguments.
//
// Overload resolution (PostgreSQL's implicit-cast rules, simplified):
//   * arity must match (a variadic overload's last parameter repeats);
//   * an argument matches a parameter exactly when the TypeIds are equal
//     (kText stands for every string type, kDecimal for every DECIMAL(p,s));
//   * otherwise a numeric argument may be promoted to a wider numeric
//     parameter: SMALLINT < INTEGER < BIGINT < DECIMAL < DOUBLE (integers go
//     to DOUBLE more cheaply than to DECIMAL: DOUBLE is PostgreSQL's
//     preferred numeric type, so sqrt(2) is sqrt(double precision));
//     DATE promotes to TIMESTAMPTZ (PostgreSQL's preferred date/time type)
//     and less cheaply to TIMESTAMP, TIMESTAMP to TIMESTAMPTZ;
//   * an unknown-typed argument (string literal, NULL, untyped parameter)
//     matches any parameter and is bound in that parameter's type (string
//     parameters first, then DOUBLE: abs('5') is abs(double precision));
//   * the overload with the lowest total promotion cost wins; a tie between
//     different parameter lists is 42725 "function f(...) is not unique";
//     no candidate is 42883 "function f(integer) does not exist".
// The registry then casts each argument to its parameter type (DECIMAL
// arguments keep their own precision/scale, strings their own string type)
// and calls the overload's bind.
//
// NULLs and strictness: a STRICT function (the default, PostgreSQL's
// "RETURNS NULL ON NULL INPUT") never sees a NULL: the executor marks rows
// with any NULL argument NULL in the output and calls the kernel only for
// the others. A non-strict function (concat, concat_ws, ...) gets every row
// and must test args[i]->IsNull(row) itself. Either kind may return NULL
// for a row with out->SetNull(row, true).
//
// Kernel contract: compute exactly the rows listed in `rows`, writing at the
// same physical positions of `out` (an owned vector of the result type whose
// NULL bitmap the executor prepared). Strings: allocate new ones in
// out->arena(); a result that is a view into an argument's bytes (trim,
// left, split_part) must call out->ShareAuxiliary(*args[i]) once so the
// bytes stay alive. Errors are DbError with PostgreSQL's SQLSTATE/wording,
// thrown only for rows actually computed.
//
// Registering from another file (e.g. the pg_catalog functions):
//
//   void RegisterCatalogFunctions(FunctionRegistry& r) {
//     r.Register("pg_table_is_visible", {TypeId::kBigInt}, Type::Boolean(),
//                [](const ScalarArgs& args, Rows rows, Vector* out) {...});
//     // With bind-time state: the callback sees the catalog and the args.
//     FunctionOverload o;
//     o.params = {TypeId::kBigInt};
//     o.bind = [](const FunctionBindContext& ctx, std::vector<ExprPtr>& args) {
//       auto names = std::make_shared<const std::map<int64_t, std::string>>(
//           ReadNames(*ctx.catalog));
//       return MakeScalarFunction("format_type", Type::Text(),
//           [names](const ScalarArgs& a, Rows rows, Vector* out) {...});
//     };
//     r.Register("format_type", std::move(o));
//   }
//
// and call it once before binding, e.g. FunctionRegistry::Global()'s user
// runs `static bool once = (RegisterCatalogFunctions(
// FunctionRegistry::Global()), true);` in code that certainly runs (an
// engine constructor). Do NOT rely on a static registrar object alone in a
// .cc of a static library: the linker drops object files nothing
// references. Register() is thread-safe; re-registering the same name and
// parameter list replaces the old overload.
//
// Equality: two kFunction expressions are the same (GROUP BY matching,
// common subexpressions) when name, result type and arguments are equal;
// bound state must therefore depend only on the arguments and the
// statement.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "olap/common/data_chunk.h"
#include "olap/expression/expression.h"

namespace forktail {

class Catalog;

using ScalarArgs = std::vector<const Vector*>;
using ScalarKernel = std::function<void(const ScalarArgs& args, Rows rows, Vector* out)>;

class ScalarFunction {
 public:
  // `is_volatile`: every call may answer differently and may change state
  // (nextval): never folded to a constant, called once per row in row order.
  ScalarFunction(std::string name, Type result_type, ScalarKernel kernel, bool strict = true,
                 bool is_volatile = false)
      : name_(std::move(name)),
        result_type_(result_type),
        kernel_(std::move(kernel)),
        strict_(strict),
        volatile_(is_volatile) {}

  const std::string& name() const { return name_; }
  const Type& result_type() const { return result_type_; }
  bool strict() const { return strict_; }
  bool is_volatile() const { return volatile_; }

  // Runs the kernel with the strictness rule applied: `out` is an owned
  // vector of result_type(); its NULL bitmap is set here for the rows.
  void Execute(const ScalarArgs& args, Rows rows, Vector* out) const;

 private:
  std::string name_;
  Type result_type_;
  ScalarKernel kernel_;
  bool strict_;
  bool volatile_;
};

using ScalarFunctionPtr = std::shared_ptr<const ScalarFunction>;

inline ScalarFunctionPtr MakeScalarFunction(std::string name, Type result_type, ScalarKernel kernel,
                                            bool strict = true, bool is_volatile = false) {
  return std::make_shared<const ScalarFunction>(std::move(name), result_type, std::move(kernel),
                                                strict, is_volatile);
}

// What a bind callback may look at besides its arguments.
struct FunctionBindContext {
  const Catalog* catalog = nullptr;  // null when binding without a catalog (tests)
  // now() / current_timestamp: microseconds since 1970-01-01 UTC (the
  // TIMESTAMP representation), fixed once per statement.
  int64_t statement_timestamp = 0;
  // The session's TimeZone (the thread's current zone when binding).
  std::shared_ptr<const datetime::TimeZone> time_zone;
};

// Makes the ScalarFunction for arguments already cast to the parameter
// types. It may inspect constant arguments (round(x, 2)'s scale) and may
// replace arguments (further casts). Throws DbError to reject a call.
using FunctionBinder =
    std::function<ScalarFunctionPtr(const FunctionBindContext& ctx, std::vector<ExprPtr>& args)>;

struct FunctionOverload {
  std::vector<TypeId> params;  // kText: any string type; kDecimal: any DECIMAL(p,s)
  bool variadic = false;       // the last parameter repeats (zero or more times)
  // kText parameters accept arguments of ANY type, cast to TEXT (PostgreSQL's
  // "any" parameters of concat/concat_ws); costlier than a real match.
  bool any_to_text = false;
  // A CHAR(n) argument of a TEXT/VARCHAR parameter is cast to TEXT, which
  // drops its padding (PostgreSQL's bpchar -> text), unless the function
  // takes CHAR as it is (its own bpchar overload: length, octet_length) or
  // takes "any" (concat prints a CHAR padded, as PostgreSQL's output does).
  bool takes_char = false;
  FunctionBinder bind;
};

class FunctionRegistry {
 public:
  // The process-wide registry, with the built-in functions registered.
  static FunctionRegistry& Global();

  void Register(const std::string& name, FunctionOverload overload);
  // A function whose result type does not depend on the arguments.
  void Register(const std::string& name, std::vector<TypeId> params, Type result,
                ScalarKernel kernel, bool strict = true);

  bool Contains(const std::string& name) const;

  // The overload for arguments of these types (nullopt: unknown-typed) and
  // each argument's parameter type (unknown ones are bound in it). Returns
  // nullopt when no overload fits; throws 42725 when ambiguous.
  struct Resolution {
    const FunctionOverload* overload = nullptr;
    std::vector<TypeId> param_types;  // one per argument
  };
  std::optional<Resolution> Resolve(const std::string& name,
                                    const std::vector<std::optional<Type>>& arg_types) const;

  // Casts args to the resolved parameter types, binds, and builds the
  // kFunction expression.
  static ExprPtr MakeCall(const Resolution& r, std::vector<ExprPtr> args,
                          const FunctionBindContext& ctx);
  // Resolve + MakeCall for arguments already bound (none unknown-typed);
  // nullptr when no overload fits.
  ExprPtr Call(const std::string& name, std::vector<ExprPtr> args,
               const FunctionBindContext& ctx) const;

 private:
  mutable std::mutex mu_;
  // Overloads never move once registered (Resolution points at them).
  std::map<std::string, std::vector<std::unique_ptr<FunctionOverload>>> functions_;
};

// The concrete Type a parameter TypeId stands for when an argument of type
// `arg` (nullopt: unknown) is cast to it.
Type ParameterType(TypeId param, const std::optional<Type>& arg);

// Built-in families (olap/functions_*.cc), called by Global().
void RegisterMathFunctions(FunctionRegistry& r);
void RegisterStringFunctions(FunctionRegistry& r);
void RegisterDatetimeFunctions(FunctionRegistry& r);
void RegisterRegexFunctions(FunctionRegistry& r);
void RegisterJsonbFunctions(FunctionRegistry& r);     // functions_jsonb.cc
void RegisterJsonFunctions(FunctionRegistry& r);      // functions_json.cc
void RegisterIntervalFunctions(FunctionRegistry& r);  // functions_interval.cc
void RegisterToCharFunctions(FunctionRegistry& r);    // functions_to_char.cc
void RegisterTimeFunctions(FunctionRegistry& r);      // functions_time.cc

}  // namespace forktail
