// jsonb functions and the functions behind its operators (PostgreSQL 15
// names): jsonb_object_field (->), jsonb_array_element (-> int),
// jsonb_object_field_text / jsonb_array_element_text (->>),
// jsonb_extract_path[_text] (#>, #>>), jsonb_contains (@>), jsonb_contained
// (<@), jsonb_exists (?), jsonb_exists_any (?|), jsonb_exists_all (?&),
// jsonb_concat (||), jsonb_delete (-), jsonb_delete_path (#-), jsonb_set,
// jsonb_typeof, jsonb_array_length, jsonb_strip_nulls, jsonb_pretty,
// to_jsonb, and the variadic cores of jsonb_build_object /
// jsonb_build_array (the binder turns their arguments into jsonb first).
//
// Values are jsonb's canonical text; storage/value/jsonb.h does the work.
// Paths and key lists (text[]) arrive in PostgreSQL's array text form.
#include <string>
#include <string_view>
#include <vector>

#include "olap/common/kernel_util.h"
#include "olap/expression/json_text.h"
#include "olap/expression/scalar_function.h"
#include "storage/error.h"
#include "storage/value/array_text.h"
#include "storage/value/datetime.h"
#include "storage/value/jsonb.h"
#include "storage/value/timezone.h"

namespace forktail {
namespace {

using Sv = std::string_view;
using MaybeText = std::optional<std::string>;

constexpr TypeId kJ = TypeId::kJsonb;
constexpr TypeId kT = TypeId::kText;

Sv Str(const ScalarArgs& a, size_t k, uint32_t i) { return a[k]->data<Sv>()[i]; }

// A kernel whose row result is text or NULL (nullopt).
template <typename F>
ScalarKernel Strings(F f) {
  return [f](const ScalarArgs& a, Rows rows, Vector* out) {
    Sv* o = out->mutable_data<Sv>();
    StringArena* arena = out->arena();
    ForEachRow(rows, [&](uint32_t i) {
      MaybeText r = f(a, i);
      if (r) {
        o[i] = arena->Add(*r);
      } else {
        out->SetNull(i, true);
      }
    });
  };
}

template <typename F>
ScalarKernel Bools(F f) {
  return [f](const ScalarArgs& a, Rows rows, Vector* out) {
    uint8_t* o = out->mutable_data<uint8_t>();
    ForEachRow(rows, [&](uint32_t i) { o[i] = f(a, i) ? 1 : 0; });
  };
}

// A text[] argument's elements; NULL elements are kept as nullopt.
std::vector<MaybeText> Elements(Sv array_text) { return ParseArrayText(array_text); }

// A path: PostgreSQL answers NULL for a path with a NULL element.
std::optional<std::vector<std::string>> PathOf(Sv array_text) {
  std::vector<std::string> path;
  for (MaybeText& e : Elements(array_text)) {
    if (!e) return std::nullopt;
    path.push_back(std::move(*e));
  }
  return path;
}

std::vector<std::string> PathArgument(Sv array_text) {
  std::vector<std::string> path;
  for (MaybeText& e : Elements(array_text)) {
    if (!e)
      throw DbError(sqlstate::kNullValueNotAllowed,
                    "path element at position " + std::to_string(path.size() + 1) + " is null");
    path.push_back(std::move(*e));
  }
  return path;
}

int64_t IntArg(const ScalarArgs& a, size_t k, uint32_t i) {
  switch (a[k]->physical()) {
    case PhysicalType::kInt16:
      return a[k]->data<int16_t>()[i];
    case PhysicalType::kInt32:
      return a[k]->data<int32_t>()[i];
    default:
      return a[k]->data<int64_t>()[i];
  }
}

void RegisterAccessors(FunctionRegistry& r) {
  r.Register("jsonb_object_field", {kJ, kT}, Type::Jsonb(),
             Strings([](const ScalarArgs& a, uint32_t i) {
               return jsonb::Field(Str(a, 0, i), Str(a, 1, i));
             }));
  r.Register("jsonb_object_field_text", {kJ, kT}, Type::Text(),
             Strings([](const ScalarArgs& a, uint32_t i) -> MaybeText {
               MaybeText v = jsonb::Field(Str(a, 0, i), Str(a, 1, i));
               return v ? jsonb::Text(*v) : std::nullopt;
             }));
  for (TypeId index : {TypeId::kInteger, TypeId::kBigInt}) {
    r.Register("jsonb_array_element", {kJ, index}, Type::Jsonb(),
               Strings([](const ScalarArgs& a, uint32_t i) {
                 return jsonb::Element(Str(a, 0, i), IntArg(a, 1, i));
               }));
    r.Register("jsonb_array_element_text", {kJ, index}, Type::Text(),
               Strings([](const ScalarArgs& a, uint32_t i) -> MaybeText {
                 MaybeText v = jsonb::Element(Str(a, 0, i), IntArg(a, 1, i));
                 return v ? jsonb::Text(*v) : std::nullopt;
               }));
  }
  // jsonb_extract_path(j, VARIADIC text): the path as arguments.
  for (bool as_text : {false, true}) {
    FunctionOverload o;
    o.params = {kJ, kT};
    o.variadic = true;
    o.bind = [as_text](const FunctionBindContext&, std::vector<ExprPtr>&) {
      return MakeScalarFunction(as_text ? "jsonb_extract_path_text" : "jsonb_extract_path",
                                as_text ? Type::Text() : Type::Jsonb(),
                                Strings([as_text](const ScalarArgs& a, uint32_t i) -> MaybeText {
                                  std::vector<std::string> path;
                                  for (size_t k = 1; k < a.size(); k++) {
                                    if (a[k]->IsNull(i)) return std::nullopt;
                                    path.emplace_back(Str(a, k, i));
                                  }
                                  MaybeText v = jsonb::Path(Str(a, 0, i), path);
                                  if (v && as_text) return jsonb::Text(*v);
                                  return v;
                                }),
                                /*strict=*/false);
    };
    r.Register(as_text ? "jsonb_extract_path_text" : "jsonb_extract_path", std::move(o));
  }
  // #> and #>>: the path as one text[].
  r.Register("jsonb #>", {kJ, kT}, Type::Jsonb(),
             Strings([](const ScalarArgs& a, uint32_t i) -> MaybeText {
               auto path = PathOf(Str(a, 1, i));
               return path ? jsonb::Path(Str(a, 0, i), *path) : std::nullopt;
             }));
  r.Register("jsonb #>>", {kJ, kT}, Type::Text(),
             Strings([](const ScalarArgs& a, uint32_t i) -> MaybeText {
               auto path = PathOf(Str(a, 1, i));
               MaybeText v = path ? jsonb::Path(Str(a, 0, i), *path) : std::nullopt;
               return v ? jsonb::Text(*v) : std::nullopt;
             }));
}

void RegisterPredicates(FunctionRegistry& r) {
  r.Register("jsonb_contains", {kJ, kJ}, Type::Boolean(),
             Bools([](const ScalarArgs& a, uint32_t i) {
               return jsonb::Contains(Str(a, 0, i), Str(a, 1, i));
             }));
  r.Register("jsonb_contained", {kJ, kJ}, Type::Boolean(),
             Bools([](const ScalarArgs& a, uint32_t i) {
               return jsonb::Contains(Str(a, 1, i), Str(a, 0, i));
             }));
  r.Register("jsonb_exists", {kJ, kT}, Type::Boolean(), Bools([](const ScalarArgs& a, uint32_t i) {
               return jsonb::Exists(Str(a, 0, i), Str(a, 1, i));
             }));
  for (bool all : {false, true}) {
    r.Register(all ? "jsonb_exists_all" : "jsonb_exists_any", {kJ, kT}, Type::Boolean(),
               Bools([all](const ScalarArgs& a, uint32_t i) {
                 for (const MaybeText& key : Elements(Str(a, 1, i))) {
                   if (!key) continue;  // a NULL key is skipped, as PostgreSQL does
                   if (jsonb::Exists(Str(a, 0, i), *key) != all) return !all;
                 }
                 return all;
               }));
  }
}

void RegisterModifiers(FunctionRegistry& r) {
  r.Register("jsonb_concat", {kJ, kJ}, Type::Jsonb(),
             Strings([](const ScalarArgs& a, uint32_t i) -> MaybeText {
               return jsonb::Concat(Str(a, 0, i), Str(a, 1, i));
             }));
  r.Register("jsonb_delete", {kJ, kT}, Type::Jsonb(),
             Strings([](const ScalarArgs& a, uint32_t i) -> MaybeText {
               return jsonb::DeleteKey(Str(a, 0, i), Str(a, 1, i));
             }));
  r.Register("jsonb_delete", {kJ, TypeId::kInteger}, Type::Jsonb(),
             Strings([](const ScalarArgs& a, uint32_t i) -> MaybeText {
               return jsonb::DeleteIndex(Str(a, 0, i), IntArg(a, 1, i));
             }));
  // jsonb - text[]: every key of the list.
  r.Register("jsonb - text[]", {kJ, kT}, Type::Jsonb(),
             Strings([](const ScalarArgs& a, uint32_t i) -> MaybeText {
               std::string j(Str(a, 0, i));
               for (const MaybeText& key : Elements(Str(a, 1, i))) {
                 if (key) j = jsonb::DeleteKey(j, *key);
               }
               return j;
             }));
  r.Register("jsonb_delete_path", {kJ, kT}, Type::Jsonb(),
             Strings([](const ScalarArgs& a, uint32_t i) -> MaybeText {
               return jsonb::DeletePath(Str(a, 0, i), PathArgument(Str(a, 1, i)));
             }));
  auto set = [](bool create_missing_given) {
    return Strings([create_missing_given](const ScalarArgs& a, uint32_t i) -> MaybeText {
      const bool create = !create_missing_given || a[3]->data<uint8_t>()[i] != 0;
      return jsonb::Set(Str(a, 0, i), PathArgument(Str(a, 1, i)), Str(a, 2, i), create);
    });
  };
  r.Register("jsonb_set", {kJ, kT, kJ}, Type::Jsonb(), set(false));
  r.Register("jsonb_set", {kJ, kT, kJ, TypeId::kBoolean}, Type::Jsonb(), set(true));
  r.Register("jsonb_strip_nulls", {kJ}, Type::Jsonb(),
             Strings([](const ScalarArgs& a, uint32_t i) -> MaybeText {
               return jsonb::StripNulls(Str(a, 0, i));
             }));
}

void RegisterInspectors(FunctionRegistry& r) {
  r.Register("jsonb_typeof", {kJ}, Type::Text(),
             Strings([](const ScalarArgs& a, uint32_t i) -> MaybeText {
               return jsonb::TypeOf(Str(a, 0, i));
             }));
  r.Register("jsonb_pretty", {kJ}, Type::Text(),
             Strings([](const ScalarArgs& a, uint32_t i) -> MaybeText {
               return jsonb::Pretty(Str(a, 0, i));
             }));
  r.Register("jsonb_array_length", {kJ}, Type::Integer(),
             [](const ScalarArgs& a, Rows rows, Vector* out) {
               int32_t* o = out->mutable_data<int32_t>();
               ForEachRow(rows, [&](uint32_t i) {
                 o[i] = static_cast<int32_t>(jsonb::ArrayLength(Str(a, 0, i)));
               });
             });
  // json_typeof, json_array_length: the same over json's text.
  r.Register("json_typeof", {TypeId::kJson}, Type::Text(),
             Strings([](const ScalarArgs& a, uint32_t i) -> MaybeText {
               return jsonb::TypeOf(jsonb::Canonicalize(Str(a, 0, i)));
             }));
  r.Register("json_array_length", {TypeId::kJson}, Type::Integer(),
             [](const ScalarArgs& a, Rows rows, Vector* out) {
               int32_t* o = out->mutable_data<int32_t>();
               ForEachRow(rows, [&](uint32_t i) {
                 o[i] = static_cast<int32_t>(jsonb::ArrayLength(jsonb::Canonicalize(Str(a, 0, i))));
               });
             });
}

// The checks json[b]_to_record[set] make of their input (the binder calls
// them, binder_json_record.cc; the second argument names the function):
// forktail_json_array passes an array, forktail_json_record an object.
void RegisterRecordChecks(FunctionRegistry& r) {
  r.Register("forktail_json_array", {kJ, kT}, Type::Jsonb(),
             Strings([](const ScalarArgs& a, uint32_t i) -> MaybeText {
               if (jsonb::TypeOf(Str(a, 0, i)) == "array") return std::string(Str(a, 0, i));
               throw DbError(sqlstate::kInvalidParameterValue,
                             "cannot call " + std::string(Str(a, 1, i)) + " on a non-array");
             }));
  r.Register("forktail_json_record", {kJ, kT}, Type::Jsonb(),
             Strings([](const ScalarArgs& a, uint32_t i) -> MaybeText {
               const std::string type = jsonb::TypeOf(Str(a, 0, i));
               if (type == "object") return std::string(Str(a, 0, i));
               const Sv fn = Str(a, 1, i);
               if (fn.ends_with("set")) {
                 throw DbError(sqlstate::kInvalidParameterValue,
                               "argument of " + std::string(fn) + " must be an array of objects");
               }
               throw DbError(sqlstate::kInvalidParameterValue,
                             "cannot call populate_composite on " +
                                 std::string(type == "array" ? "an array" : "a scalar"));
             }));
}

void RegisterConstructors(FunctionRegistry& r) {
  RegisterToJson(r, /*jsonb=*/true);
  // The cores of jsonb_build_object / jsonb_build_array: every argument is
  // already jsonb (keys as jsonb strings); a NULL value is JSON null.
  FunctionOverload object;
  object.params = {kJ};
  object.variadic = true;
  object.bind = [](const FunctionBindContext&, std::vector<ExprPtr>& args) {
    if (args.size() % 2 != 0) {
      throw DbError(sqlstate::kInvalidParameterValue,
                    "argument list must have even number of elements")
          .WithHint(
              "The arguments of jsonb_build_object() must consist of alternating keys "
              "and values.");
    }
    return MakeScalarFunction(
        "jsonb_build_object", Type::Jsonb(),
        Strings([](const ScalarArgs& a, uint32_t i) -> MaybeText {
          std::vector<std::pair<std::string, std::string>> pairs;
          for (size_t k = 0; k + 1 < a.size(); k += 2) {
            if (a[k]->IsNull(i)) {
              throw DbError(sqlstate::kNullValueNotAllowed,
                            "argument " + std::to_string(k + 1) + ": key must not be null");
            }
            MaybeText key = jsonb::Text(Str(a, k, i));
            pairs.emplace_back(key.value_or(""),
                               a[k + 1]->IsNull(i) ? "null" : std::string(Str(a, k + 1, i)));
          }
          return jsonb::ObjectFromPairs(pairs);
        }),
        /*strict=*/false);
  };
  r.Register("jsonb_build_object", std::move(object));
  FunctionOverload array;
  array.params = {kJ};
  array.variadic = true;
  array.bind = [](const FunctionBindContext&, std::vector<ExprPtr>&) {
    return MakeScalarFunction("jsonb_build_array", Type::Jsonb(),
                              Strings([](const ScalarArgs& a, uint32_t i) -> MaybeText {
                                std::vector<std::string> elements;
                                for (size_t k = 0; k < a.size(); k++) {
                                  elements.emplace_back(a[k]->IsNull(i) ? "null" : Str(a, k, i));
                                }
                                return jsonb::ArrayFromElements(elements);
                              }),
                              /*strict=*/false);
  };
  r.Register("jsonb_build_array", std::move(array));
  // jsonb_object_agg's key: `"key": ` (the binder's rewrite; a NULL key is
  // PostgreSQL's error, not a skipped row).
  FunctionOverload key;
  key.params = {kT};
  key.bind = [](const FunctionBindContext&, std::vector<ExprPtr>&) {
    return MakeScalarFunction("jsonb_object_agg key", Type::Text(),
                              Strings([](const ScalarArgs& a, uint32_t i) -> MaybeText {
                                if (a[0]->IsNull(i)) {
                                  throw DbError(sqlstate::kInvalidParameterValue,
                                                "field name must not be null");
                                }
                                return jsonb::Quote(Str(a, 0, i)) + ": ";
                              }),
                              /*strict=*/false);
  };
  r.Register("jsonb_object_agg key", std::move(key));
}

}  // namespace

void RegisterJsonbFunctions(FunctionRegistry& r) {
  RegisterAccessors(r);
  RegisterPredicates(r);
  RegisterModifiers(r);
  RegisterInspectors(r);
  RegisterRecordChecks(r);
  RegisterConstructors(r);
}

}  // namespace forktail
