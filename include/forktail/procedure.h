// Stored procedures with typed parameters.
//
// A procedure is a C++ callable whose first parameter is Transaction& and
// whose other parameters are ordinary C++ types:
//
//   db->RegisterProcedure("transfer",
//       [](Transaction& txn, int64_t from, int64_t to, int64_t amount) { ... });
//   db->Execute("transfer", {Value::BigInt(1), Value::BigInt(2), Value::BigInt(10)});
//
// MakeProcedure converts the std::vector<Value> arguments of a call to the
// parameter types before the body runs and reports mismatches clearly:
//   42883 `procedure transfer(bigint, bigint, bigint) expects 3 arguments, got 2`
//   42804 `argument 2 of procedure transfer must be bigint, got text`
//   22004 `argument 1 of procedure transfer must not be NULL` (use std::optional<T>
//         or Value to accept NULL)
// Supported parameter types: bool, int16_t, int32_t, int64_t, double,
// std::string, Value (any value, unconverted), std::optional<T> of those.
// Integer arguments are range-checked (22003); integers convert to double.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "forktail/transaction.h"
#include "storage/storage.h"

namespace forktail {

inline constexpr const char* kUndefinedFunction = "42883";

// The type-erased form every procedure is stored as.
using Procedure = std::function<void(Transaction&, const std::vector<Value>&)>;

namespace procedure_detail {

template <typename T>
struct Arg;

[[noreturn]] inline void Mismatch(const std::string& proc, size_t i, const char* want,
                                  const Value& v) {
  throw DbError(sqlstate::kDatatypeMismatch, "argument " + std::to_string(i + 1) +
                                                 " of procedure " + proc + " must be " + want +
                                                 ", got " + v.type().ToString());
}

inline void CheckNotNull(const std::string& proc, size_t i, const Value& v) {
  if (v.is_null()) {
    throw DbError(
        sqlstate::kNullValueNotAllowed,
        "argument " + std::to_string(i + 1) + " of procedure " + proc + " must not be NULL");
  }
}

template <typename Int>
struct IntArg {
  static Int From(const std::string& proc, size_t i, const Value& v, const char* name) {
    CheckNotNull(proc, i, v);
    if (!v.type().IsInteger()) Mismatch(proc, i, name, v);
    int64_t x = v.GetInt();
    if (x < std::numeric_limits<Int>::min() || x > std::numeric_limits<Int>::max()) {
      throw DbError(sqlstate::kNumericValueOutOfRange, "argument " + std::to_string(i + 1) +
                                                           " of procedure " + proc +
                                                           ": value out of range for " + name);
    }
    return static_cast<Int>(x);
  }
};

template <>
struct Arg<int64_t> {
  static constexpr const char* kName = "bigint";
  static std::optional<Type> SqlType() { return Type::BigInt(); }
  static int64_t From(const std::string& p, size_t i, const Value& v) {
    return IntArg<int64_t>::From(p, i, v, kName);
  }
};
template <>
struct Arg<int32_t> {
  static constexpr const char* kName = "integer";
  static std::optional<Type> SqlType() { return Type::Integer(); }
  static int32_t From(const std::string& p, size_t i, const Value& v) {
    return IntArg<int32_t>::From(p, i, v, kName);
  }
};
template <>
struct Arg<int16_t> {
  static constexpr const char* kName = "smallint";
  static std::optional<Type> SqlType() { return Type::SmallInt(); }
  static int16_t From(const std::string& p, size_t i, const Value& v) {
    return IntArg<int16_t>::From(p, i, v, kName);
  }
};
template <>
struct Arg<bool> {
  static constexpr const char* kName = "boolean";
  static std::optional<Type> SqlType() { return Type::Boolean(); }
  static bool From(const std::string& p, size_t i, const Value& v) {
    CheckNotNull(p, i, v);
    if (v.type().id != TypeId::kBoolean) Mismatch(p, i, kName, v);
    return v.GetBool();
  }
};
template <>
struct Arg<double> {
  static constexpr const char* kName = "double precision";
  static std::optional<Type> SqlType() { return Type::Double(); }
  static double From(const std::string& p, size_t i, const Value& v) {
    CheckNotNull(p, i, v);
    if (v.type().id == TypeId::kDouble) return v.GetDouble();
    if (v.type().IsInteger()) return static_cast<double>(v.GetInt());
    Mismatch(p, i, kName, v);
  }
};
template <>
struct Arg<std::string> {
  static constexpr const char* kName = "text";
  static std::optional<Type> SqlType() { return Type::Text(); }
  static std::string From(const std::string& p, size_t i, const Value& v) {
    CheckNotNull(p, i, v);
    if (!v.type().IsString()) Mismatch(p, i, kName, v);
    return std::string(v.GetString());
  }
};
template <>
struct Arg<Value> {
  static constexpr const char* kName = "any";
  static std::optional<Type> SqlType() { return std::nullopt; }
  static Value From(const std::string&, size_t, const Value& v) { return v; }
};
template <typename T>
struct Arg<std::optional<T>> {
  static constexpr const char* kName = Arg<T>::kName;
  static std::optional<Type> SqlType() { return Arg<T>::SqlType(); }
  static std::optional<T> From(const std::string& p, size_t i, const Value& v) {
    if (v.is_null()) return std::nullopt;
    return Arg<T>::From(p, i, v);
  }
};

template <typename... Args>
std::string Signature(const std::string& name) {
  std::string s = name + "(";
  const char* names[] = {Arg<std::decay_t<Args>>::kName..., ""};
  for (size_t i = 0; i < sizeof...(Args); i++) s += (i ? ", " : "") + std::string(names[i]);
  return s + ")";
}

template <typename F, typename... Args, size_t... I>
void Call(F& f, const std::string& name, Transaction& txn, const std::vector<Value>& args,
          std::index_sequence<I...>) {
  if (args.size() != sizeof...(Args)) {
    throw DbError(kUndefinedFunction, "procedure " + Signature<Args...>(name) + " expects " +
                                          std::to_string(sizeof...(Args)) + " argument" +
                                          (sizeof...(Args) == 1 ? "" : "s") + ", got " +
                                          std::to_string(args.size()));
  }
  // Converted left to right before the body runs (a braced list sequences them).
  std::tuple<std::decay_t<Args>...> converted{Arg<std::decay_t<Args>>::From(name, I, args[I])...};
  f(txn, std::get<I>(converted)...);
}

template <typename F, typename R, typename C, typename... Args>
Procedure Make(std::string name, F f, R (C::*)(Transaction&, Args...) const) {
  return [f = std::move(f), name = std::move(name)](Transaction& txn,
                                                    const std::vector<Value>& args) mutable {
    Call<F, Args...>(f, name, txn, args, std::index_sequence_for<Args...>{});
  };
}
template <typename F, typename R, typename C, typename... Args>
Procedure Make(std::string name, F f, R (C::*)(Transaction&, Args...)) {
  return [f = std::move(f), name = std::move(name)](Transaction& txn,
                                                    const std::vector<Value>& args) mutable {
    Call<F, Args...>(f, name, txn, args, std::index_sequence_for<Args...>{});
  };
}

template <typename R, typename C, typename... Args>
std::vector<std::optional<Type>> ParameterTypes(R (C::*)(Transaction&, Args...) const) {
  return {Arg<std::decay_t<Args>>::SqlType()...};
}
template <typename R, typename C, typename... Args>
std::vector<std::optional<Type>> ParameterTypes(R (C::*)(Transaction&, Args...)) {
  return {Arg<std::decay_t<Args>>::SqlType()...};
}

}  // namespace procedure_detail

// A result column of a procedure: what SQL's CALL describes before the
// procedure runs (the extended protocol's Describe needs it then).
struct ProcedureColumn {
  std::string name;
  Type type;
};

// What SQL's CALL knows of a procedure. `parameters` are the C++ parameters'
// types (std::nullopt for a Value parameter: any value, as given), followed,
// when `variadic` is set, by any number of arguments of that type (a
// type-erased procedure with a list of arguments). A procedure registered
// type-erased without a signature has `any_arguments` instead and gets the
// arguments as they come. `result` lists the columns of the rows it Emit()s
// (empty: it emits none; CALL then answers with the command tag alone).
struct ProcedureSignature {
  std::vector<std::optional<Type>> parameters;
  bool any_arguments = false;
  std::vector<ProcedureColumn> result;
  std::optional<Type> variadic;

  static ProcedureSignature AnyArguments(std::vector<ProcedureColumn> result = {}) {
    return {{}, true, std::move(result), std::nullopt};
  }
  // The type of each of `count` arguments, or std::nullopt when this
  // signature takes no such number of arguments (any: all unset).
  std::optional<std::vector<std::optional<Type>>> ArgumentTypes(size_t count) const {
    if (any_arguments) return std::vector<std::optional<Type>>(count);
    if (count < parameters.size() || (count > parameters.size() && !variadic)) {
      return std::nullopt;
    }
    std::vector<std::optional<Type>> types = parameters;
    types.resize(count, variadic);
    return types;
  }
};

// Wraps a lambda / function object `void(Transaction&, Args...)` (the return
// value, if any, is ignored: use Transaction::Emit for results).
template <typename F>
Procedure MakeProcedure(std::string name, F f) {
  return procedure_detail::Make(std::move(name), std::move(f), &F::operator());
}

// Plain functions.
template <typename R, typename... Args>
Procedure MakeProcedure(std::string name, R (*f)(Transaction&, Args...)) {
  return MakeProcedure(std::move(name),
                       [f](Transaction& txn, Args... args) { f(txn, std::move(args)...); });
}

// The parameter types of what MakeProcedure accepts.
template <typename F>
std::vector<std::optional<Type>> ProcedureParameterTypes(const F&) {
  return procedure_detail::ParameterTypes(&F::operator());
}
template <typename R, typename... Args>
std::vector<std::optional<Type>> ProcedureParameterTypes(R (*)(Transaction&, Args...)) {
  return {procedure_detail::Arg<std::decay_t<Args>>::SqlType()...};
}

}  // namespace forktail
