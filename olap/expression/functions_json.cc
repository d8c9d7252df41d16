// json (not jsonb) constructors, PostgreSQL 15's output byte for byte:
// to_json, the variadic cores of json_build_object / json_build_array (the
// binder turns every argument into json first, binder_jsonb.cc), the compact
// object of row_to_json / to_json(row), and json_object_agg's key.
//
// json keeps its text, so the spacing is part of the answer:
//   json_build_object('a', 1)   {"a" : 1}
//   json_build_array(1, 2)      [1, 2]
//   row_to_json(t)              {"a":1,"b":null}
//   json_object_agg('a', 1)     { "a" : 1 }
#include <string>
#include <string_view>
#include <vector>

#include "olap/common/kernel_util.h"
#include "olap/expression/json_text.h"
#include "olap/expression/scalar_function.h"
#include "storage/error.h"
#include "storage/value/jsonb.h"
#include "storage/value/timezone.h"

namespace forktail {
namespace {

using Sv = std::string_view;

constexpr TypeId kJ = TypeId::kJson;

// A kernel building one text per row from the row's arguments.
template <typename F>
ScalarKernel Texts(F f) {
  return [f](const ScalarArgs& a, Rows rows, Vector* out) {
    Sv* o = out->mutable_data<Sv>();
    StringArena* arena = out->arena();
    ForEachRow(rows, [&](uint32_t i) { o[i] = arena->Add(f(a, i)); });
  };
}

Sv JsonOrNull(const ScalarArgs& a, size_t k, uint32_t i) {
  return a[k]->IsNull(i) ? Sv("null") : a[k]->data<Sv>()[i];
}

// {k1<colon>v1<comma>k2<colon>v2}: keys are json strings already.
FunctionOverload ObjectCore(std::string name, const char* colon, const char* comma) {
  FunctionOverload o;
  o.params = {kJ};
  o.variadic = true;
  o.bind = [name, colon, comma](const FunctionBindContext&, std::vector<ExprPtr>& args) {
    if (args.size() % 2 != 0) {
      throw DbError(sqlstate::kInvalidParameterValue,
                    "argument list must have even number of elements")
          .WithHint("The arguments of " + name + "() must consist of alternating keys and values.");
    }
    return MakeScalarFunction(
        name, Type::Json(), Texts([colon, comma](const ScalarArgs& a, uint32_t i) {
          std::string out = "{";
          for (size_t k = 0; k + 1 < a.size(); k += 2) {
            if (a[k]->IsNull(i)) {
              throw DbError(sqlstate::kInvalidParameterValue,
                            "argument " + std::to_string(k + 1) + " cannot be null")
                  .WithHint("Object keys should be text.");
            }
            if (k > 0) out += comma;
            out += a[k]->data<Sv>()[i];
            out += colon;
            out += JsonOrNull(a, k + 1, i);
          }
          return out + "}";
        }),
        /*strict=*/false);
  };
  return o;
}

}  // namespace

void RegisterToJson(FunctionRegistry& r, bool jsonb) {
  const char* name = jsonb ? "to_jsonb" : "to_json";
  for (TypeId t : {TypeId::kBoolean, TypeId::kSmallInt, TypeId::kInteger, TypeId::kBigInt,
                   TypeId::kDouble, TypeId::kDecimal, TypeId::kText, TypeId::kDate,
                   TypeId::kTimestamp, TypeId::kTimestampTz, TypeId::kJsonb, TypeId::kJson}) {
    FunctionOverload o;
    o.params = {t};
    o.bind = [name, jsonb](const FunctionBindContext& ctx, std::vector<ExprPtr>&) {
      std::shared_ptr<const datetime::TimeZone> zone =
          ctx.time_zone ? ctx.time_zone : datetime::TimeZone::Utc();
      return MakeScalarFunction(name, jsonb ? Type::Jsonb() : Type::Json(),
                                Texts([zone, jsonb](const ScalarArgs& a, uint32_t i) {
                                  return ValueToJson(*a[0], i, *zone, jsonb);
                                }));
    };
    r.Register(name, std::move(o));
  }
}

void RegisterJsonFunctions(FunctionRegistry& r) {
  RegisterToJson(r, /*jsonb=*/false);
  r.Register("json_build_object", ObjectCore("json_build_object", " : ", ", "));
  // row_to_json(t), to_json(t): the binder passes the column names as json
  // strings and the values as json.
  r.Register("json row object", ObjectCore("row_to_json", ":", ","));
  FunctionOverload array;
  array.params = {kJ};
  array.variadic = true;
  array.bind = [](const FunctionBindContext&, std::vector<ExprPtr>&) {
    return MakeScalarFunction("json_build_array", Type::Json(),
                              Texts([](const ScalarArgs& a, uint32_t i) {
                                std::string out = "[";
                                for (size_t k = 0; k < a.size(); k++) {
                                  if (k > 0) out += ", ";
                                  out += JsonOrNull(a, k, i);
                                }
                                return out + "]";
                              }),
                              /*strict=*/false);
  };
  r.Register("json_build_array", std::move(array));
  // json_object_agg's key: `"key" : ` (a NULL key is PostgreSQL's error,
  // not a skipped row).
  FunctionOverload key;
  key.params = {TypeId::kText};
  key.bind = [](const FunctionBindContext&, std::vector<ExprPtr>&) {
    return MakeScalarFunction(
        "json_object_agg key", Type::Text(), Texts([](const ScalarArgs& a, uint32_t i) {
          if (a[0]->IsNull(i)) {
            throw DbError(sqlstate::kInvalidParameterValue, "field name must not be null");
          }
          return jsonb::Quote(a[0]->data<Sv>()[i]) + " : ";
        }),
        /*strict=*/false);
  };
  r.Register("json_object_agg key", std::move(key));
  // json_agg's list "e1, \n e2" -> "[e1, \n e2]": the binder put "\n " before
  // every non-NULL structured element, which the first one must not have.
  r.Register("json_agg final", {TypeId::kText}, Type::Text(),
             Texts([](const ScalarArgs& a, uint32_t i) {
               Sv list = a[0]->data<Sv>()[i];
               if (list.substr(0, 2) == "\n ") list.remove_prefix(2);
               return "[" + std::string(list) + "]";
             }));
}

}  // namespace forktail
