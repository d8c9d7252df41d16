// Array operators and functions over the text form (binder_catalog_array.cc):
// ARRAY[...], a[i], x = ANY (array), x <> ALL (array), array_to_string,
// array_upper / array_lower / array_length, cardinality. Each is a
// ScalarFunction (olap/expression/scalar_function.h) that parses the text form per row.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "olap/expression/scalar_function.h"
#include "olap/plan/binder/binder_catalog.h"
#include "olap/plan/binder/binder_internal.h"
#include "olap/plan/catalog/system_catalog.h"
#include "storage/value/array_text.h"

namespace forktail {

namespace {

using Elements = std::vector<std::optional<std::string>>;

[[noreturn]] void Unsupported(const std::string& what, int position) {
  throw DbError(sqlstate::kFeatureNotSupported, what + " is not supported", position);
}

ExprPtr ToText(ExprPtr e) { return OutputText(std::move(e)); }

ExprPtr Call(const char* name, const Type& result, ScalarKernel kernel, std::vector<ExprPtr> args,
             bool strict = true) {
  return Function(MakeScalarFunction(name, result, std::move(kernel), strict), std::move(args));
}

void SetString(Vector* out, uint32_t row, std::string_view s) {
  out->mutable_data<std::string_view>()[row] = out->arena()->Add(s);
}

// array_upper / array_length / array_lower / cardinality.
ExprPtr BindArrayBound(const std::string& name, std::vector<ExprPtr> args) {
  bool lower = name == "array_lower";
  bool any_dim = name == "cardinality";
  return Call(
      name.c_str(), Type::Integer(),
      [lower, any_dim](const ScalarArgs& a, Rows rows, Vector* out) {
        const std::string_view* arr = a[0]->data<std::string_view>();
        const int64_t* dim = any_dim ? nullptr : a[1]->data<int64_t>();
        int32_t* o = out->mutable_data<int32_t>();
        ForEachRow(rows, [&](uint32_t i) {
          size_t n = ParseArrayText(arr[i]).size();
          if (any_dim) {
            o[i] = static_cast<int32_t>(n);
          } else if (dim[i] != 1 || n == 0) {
            out->SetNull(i, true);
          } else {
            o[i] = lower ? 1 : static_cast<int32_t>(n);
          }
        });
      },
      std::move(args));
}

// An element argument of an array function: `arg` bound as (and cast to) the
// array's element type, in its text form; an unknown literal is one. A
// mismatch is reported at the call's `position`.
ExprPtr BindElementArgument(Binder& binder, const sql::Expr& arg, ExprContext& ctx,
                            const Type& element, const std::string& function, const Type& array,
                            int position) {
  ExprContext c = WithoutHint(ctx);
  c.hint = &element;
  ExprPtr x = binder.BindExpr(arg, c);
  const bool fits = x->type == element || (x->type.IsString() && element.IsString()) ||
                    (x->type.IsNumeric() && element.IsNumeric());
  if (!fits) {
    throw DbError(sqlstate::kUndefinedFunction,
                  "function " + function + "(" + array.ToString() + ", " + x->type.ToString() +
                      ") does not exist",
                  position)
        .WithHint(
            "No function matches the given name and argument types. You might need to add "
            "explicit type casts.");
  }
  if (!(x->type == element)) x = Cast(std::move(x), element);
  return ToText(std::move(x));
}

// arr[lo:hi], arr[:hi], arr[lo:]: the elements between the bounds (clamped
// to the array), an empty array when none; NULL when a bound is NULL.
ExprPtr BindArraySlice(Binder& binder, const sql::Expr& e, ExprContext& ctx) {
  ExprContext c = WithoutHint(ctx);
  ExprPtr arr = binder.BindExpr(*e.children[0], c);
  if (!ArrayElementType(arr->type)) {
    throw DbError(sqlstate::kDatatypeMismatch,
                  "cannot subscript type " + BaseTypeName(arr->type) +
                      " because it does not support subscripting",
                  e.position);
  }
  const Type type = arr->type;
  std::vector<ExprPtr> args;
  args.push_back(std::move(arr));
  // The parser leaves an omitted bound out (children[1] or [2] null).
  for (size_t k = 1; k <= 2; ++k) {
    if (k < e.children.size() && e.children[k]) {
      Type bigint = Type::BigInt();
      ExprContext ic = WithoutHint(ctx);
      ic.hint = &bigint;
      ExprPtr b = binder.BindExpr(*e.children[k], ic);
      if (!b->type.IsInteger()) {
        throw DbError(sqlstate::kDatatypeMismatch, "array subscript must have type integer",
                      e.children[k]->position);
      }
      args.push_back(b->type.id == TypeId::kBigInt ? std::move(b) : Cast(std::move(b), bigint));
    } else {
      args.push_back(Constant(Value::BigInt(k == 1 ? 1 : INT64_MAX)));
    }
  }
  return Call(
      "array_slice", type,
      [](const ScalarArgs& a, Rows rows, Vector* out) {
        const std::string_view* arr = a[0]->data<std::string_view>();
        ForEachRow(rows, [&](uint32_t i) {
          const Elements el = ParseArrayText(arr[i]);
          const int64_t lo = std::max<int64_t>(a[1]->data<int64_t>()[i], 1);
          const int64_t hi =
              std::min<int64_t>(a[2]->data<int64_t>()[i], static_cast<int64_t>(el.size()));
          Elements slice;
          for (int64_t k = lo; k <= hi; ++k) slice.push_back(el[k - 1]);
          SetString(out, i, FormatArrayText(slice));
        });
      },
      std::move(args));
}

}  // namespace

bool IsArrayExpr(const sql::Expr& e) {
  return e.kind == sql::ExprKind::kArray || e.kind == sql::ExprKind::kSubscript ||
         (e.kind == sql::ExprKind::kQuantified && e.subquery == nullptr);
}

// The array argument of a function or operator: an array-typed expression,
// or an unknown literal taken as an array of `element`.
ExprPtr BindArrayArgument(Binder& binder, const sql::Expr& e, ExprContext& ctx,
                          const Type& element) {
  ExprContext c = WithoutHint(ctx);
  Type hint = ArrayTextType(element);
  c.hint = &hint;
  ExprPtr a = binder.BindExpr(e, c);
  if (!ArrayElementType(a->type)) {
    if (!a->type.IsString()) {
      throw DbError(sqlstate::kDatatypeMismatch, "op ANY/ALL (array) requires array on right side",
                    e.position);
    }
    a->type = hint;  // an array in text form
  }
  return a;
}

ExprPtr BindArrayExpr(Binder& binder, const sql::Expr& e, ExprContext& ctx) {
  if (e.kind == sql::ExprKind::kArray) {
    // Known-typed elements decide the element type; unknown ones ('x',
    // NULL) are then bound in it (TEXT if all are unknown).
    std::vector<ExprPtr> items(e.children.size());
    std::optional<Type> element;
    for (size_t i = 0; i < e.children.size(); i++) {
      const sql::Expr& child = *e.children[i];
      if (child.kind == sql::ExprKind::kArray) Unsupported("multidimensional arrays", e.position);
      if (binder.IsUnknownTyped(child)) continue;
      ExprContext c = WithoutHint(ctx);
      items[i] = binder.BindExpr(child, c);
      const Type& t = items[i]->type;
      element = element ? CommonType(*element, t, false) : t;
    }
    if (e.children.empty()) {
      throw DbError(sqlstate::kIndeterminateDatatype, "cannot determine type of empty array",
                    e.position);
    }
    if (!element) element = Type::Text();
    for (size_t i = 0; i < e.children.size(); i++) {
      if (items[i]) continue;
      ExprContext c = WithoutHint(ctx);
      c.hint = &*element;
      items[i] = binder.BindExpr(*e.children[i], c);
    }
    for (ExprPtr& item : items) item = ToText(std::move(item));
    return Call(
        "array", ArrayTextType(*element),
        [](const ScalarArgs& a, Rows rows, Vector* out) {
          ForEachRow(rows, [&](uint32_t i) {
            Elements el;
            for (const Vector* v : a) {
              if (v->IsNull(i)) {
                el.emplace_back(std::nullopt);
              } else {
                el.emplace_back(std::string(v->data<std::string_view>()[i]));
              }
            }
            SetString(out, i, FormatArrayText(el));
          });
        },
        std::move(items), /*strict=*/false);
  }
  if (e.kind == sql::ExprKind::kSubscript && e.is_slice) return BindArraySlice(binder, e, ctx);
  if (e.kind == sql::ExprKind::kSubscript) {
    ExprContext c = WithoutHint(ctx);
    ExprPtr arr = binder.BindExpr(*e.children[0], c);
    std::optional<Type> element = ArrayElementType(arr->type);
    if (!element) {
      throw DbError(sqlstate::kDatatypeMismatch,
                    "cannot subscript type " + BaseTypeName(arr->type) +
                        " because it does not support subscripting",
                    e.position);
    }
    Type bigint = Type::BigInt();
    c.hint = &bigint;
    ExprPtr index = binder.BindExpr(*e.children[1], c);
    if (!index->type.IsInteger()) {
      throw DbError(sqlstate::kDatatypeMismatch, "array subscript must have type integer",
                    e.children[1]->position);
    }
    if (index->type.id != TypeId::kBigInt) index = Cast(std::move(index), bigint);
    std::vector<ExprPtr> args;
    args.push_back(std::move(arr));
    args.push_back(std::move(index));
    ExprPtr text = Call(
        "subscript", Type::Text(),
        [](const ScalarArgs& a, Rows rows, Vector* out) {
          const std::string_view* arr = a[0]->data<std::string_view>();
          const int64_t* idx = a[1]->data<int64_t>();
          ForEachRow(rows, [&](uint32_t i) {
            Elements el = ParseArrayText(arr[i]);
            int64_t k = idx[i];
            if (k < 1 || k > static_cast<int64_t>(el.size()) || !el[k - 1]) {
              out->SetNull(i, true);
            } else {
              SetString(out, i, *el[k - 1]);
            }
          });
        },
        std::move(args));
    return element->id == TypeId::kText ? std::move(text) : Cast(std::move(text), *element);
  }
  // x = ANY (array), x <> ALL (array).
  bool any = e.quantifier == sql::Quantifier::kAny;
  if (!((any && e.op == "=") || (!any && e.op == "<>"))) {
    Unsupported("operator " + e.op + (any ? " ANY" : " ALL") + " over an array", e.position);
  }
  ExprContext c = WithoutHint(ctx);
  ExprPtr x;
  ExprPtr arr;
  if (binder.IsUnknownTyped(*e.children[0])) {
    arr = BindArrayArgument(binder, *e.children[1], ctx, Type::Text());
    Type element = *ArrayElementType(arr->type);
    c.hint = &element;
    x = binder.BindExpr(*e.children[0], c);
  } else {
    x = binder.BindExpr(*e.children[0], c);
    arr = BindArrayArgument(binder, *e.children[1], ctx, x->type);
  }
  // Elements compare as values of the common type, through their text form.
  Type element = *ArrayElementType(arr->type);
  Type common = CommonType(x->type, element, false);
  bool numeric = common.IsNumeric();
  if (!(x->type.IsString() && element.IsString()) && !numeric && !(x->type == element)) {
    throw DbError(sqlstate::kUndefinedFunction,
                  "operator does not exist: " + BaseTypeName(x->type) + " " + e.op + " " +
                      BaseTypeName(element) + "[]",
                  e.position);
  }
  std::vector<ExprPtr> args;
  args.push_back(std::move(arr));
  args.push_back(ToText(std::move(x)));
  return Call(
      any ? "any" : "all", Type::Boolean(),
      [any, numeric](const ScalarArgs& a, Rows rows, Vector* out) {
        const std::string_view* arr = a[0]->data<std::string_view>();
        const std::string_view* x = a[1]->data<std::string_view>();
        uint8_t* o = out->mutable_data<uint8_t>();
        ForEachRow(rows, [&](uint32_t i) {
          if (a[0]->IsNull(i)) return out->SetNull(i, true);
          Elements el = ParseArrayText(arr[i]);
          if (el.empty()) {
            o[i] = any ? 0 : 1;
            return;
          }
          if (a[1]->IsNull(i)) return out->SetNull(i, true);
          bool saw_null = false;
          for (const std::optional<std::string>& v : el) {
            if (!v) {
              saw_null = true;
              continue;
            }
            bool eq = numeric ? std::stod(*v) == std::stod(std::string(x[i])) : *v == x[i];
            if (eq) {
              o[i] = any ? 1 : 0;
              return;
            }
          }
          if (saw_null) return out->SetNull(i, true);
          o[i] = any ? 0 : 1;
        });
      },
      std::move(args), /*strict=*/false);
}

ExprPtr BindArrayContainment(Binder& binder, const sql::Expr& e, ExprPtr left, ExprContext& ctx) {
  const Type element = left->type.ArrayElement();
  ExprPtr right;
  if (binder.IsUnknownTyped(*e.children[1])) {
    right = BindArrayArgument(binder, *e.children[1], ctx, element);
  } else {
    ExprContext c = WithoutHint(ctx);
    right = binder.BindExpr(*e.children[1], c);
  }
  const std::optional<Type> r = ArrayElementType(right->type);
  if (!r || (!(*r == element) && !(r->IsString() && element.IsString()))) {  // anyarray: one type
    throw DbError(sqlstate::kUndefinedFunction,
                  "operator does not exist: " + left->type.ToString() + " " + e.op + " " +
                      right->type.ToString(),
                  e.position)
        .WithHint(
            "No operator matches the given name and argument types. You might need to add "
            "explicit type casts.");
  }
  std::vector<ExprPtr> args;
  args.push_back(std::move(left));
  args.push_back(std::move(right));
  const std::string op = e.op;
  const char* name = op == "@>" ? "arraycontains" : op == "<@" ? "arraycontained" : "arrayoverlap";
  return Call(
      name, Type::Boolean(),
      [op, element](const ScalarArgs& a, Rows rows, Vector* out) {
        const std::string_view* x = a[0]->data<std::string_view>();
        const std::string_view* y = a[1]->data<std::string_view>();
        uint8_t* o = out->mutable_data<uint8_t>();
        ForEachRow(rows, [&](uint32_t i) {
          o[i] = op == "@>"   ? ArrayContains(x[i], y[i], element)
                 : op == "<@" ? ArrayContains(y[i], x[i], element)
                              : ArrayOverlaps(x[i], y[i], element);
        });
      },
      std::move(args));
}

ExprPtr BindArrayConcat(ExprPtr left, ExprPtr right, bool left_unknown, bool right_unknown,
                        int position) {
  const std::optional<Type> la = ArrayElementType(left->type);
  const std::optional<Type> ra = ArrayElementType(right->type);
  if (!la && !ra) return nullptr;
  auto name_of = [](const Type& t) {
    std::optional<Type> element = ArrayElementType(t);
    return element ? BaseTypeName(*element) + "[]" : BaseTypeName(t);
  };
  auto no_operator = [&]() {
    throw DbError(sqlstate::kUndefinedFunction,
                  "operator does not exist: " + name_of(left->type) + " || " + name_of(right->type),
                  position);
  };
  // NULL arguments: array_cat(NULL, b) is b, array_append(NULL, x) is {x},
  // array_append(a, NULL) has a NULL more (PostgreSQL's array_cat and
  // array_append).
  auto elements = [](const Vector& v, uint32_t i) {
    return v.IsNull(i) ? Elements() : ParseArrayText(v.data<std::string_view>()[i]);
  };
  std::vector<ExprPtr> args;
  if ((la && (ra || right_unknown)) || (ra && left_unknown)) {
    const Type element = la ? *la : *ra;
    if (la && ra && la->id != ra->id) no_operator();
    args.push_back(ToText(std::move(left)));
    args.push_back(ToText(std::move(right)));
    return Call(
        "array_cat", ArrayTextType(element),
        [elements](const ScalarArgs& a, Rows rows, Vector* out) {
          ForEachRow(rows, [&](uint32_t i) {
            if (a[0]->IsNull(i) && a[1]->IsNull(i)) return out->SetNull(i, true);
            Elements all = elements(*a[0], i);
            for (std::optional<std::string>& v : elements(*a[1], i)) all.push_back(std::move(v));
            SetString(out, i, FormatArrayText(all));
          });
        },
        std::move(args), /*strict=*/false);
  }
  const bool append = la.has_value();
  const Type element = append ? *la : *ra;
  ExprPtr& item = append ? right : left;
  if (ArrayElementType(item->type)) no_operator();
  // A number joins a numeric array as it prints (an array's element type
  // here keeps no DECIMAL scale); other types are cast to the element's.
  if (!(item->type == element) && !(item->type.IsNumeric() && element.IsNumeric())) {
    if (!ExplicitCastExists(item->type, element)) no_operator();
    item = Cast(std::move(item), element);
  }
  item = ToText(std::move(item));
  args.push_back(std::move(left));
  args.push_back(std::move(right));
  return Call(
      append ? "array_append" : "array_prepend", ArrayTextType(element),
      [append, elements](const ScalarArgs& a, Rows rows, Vector* out) {
        const Vector& array = *a[append ? 0 : 1];
        const Vector& item = *a[append ? 1 : 0];
        ForEachRow(rows, [&](uint32_t i) {
          Elements all = elements(array, i);
          std::optional<std::string> v;
          if (!item.IsNull(i)) v = std::string(item.data<std::string_view>()[i]);
          all.insert(append ? all.end() : all.begin(), std::move(v));
          SetString(out, i, FormatArrayText(all));
        });
      },
      std::move(args), /*strict=*/false);
}

ExprPtr OutputText(ExprPtr e) {
  if (e->type.IsString()) return e;
  if (e->type.id != TypeId::kBoolean) return Cast(std::move(e), Type::Text());
  ExprPtr negated = Not(CloneExpr(*e));
  std::vector<std::pair<ExprPtr, ExprPtr>> whens;
  whens.emplace_back(std::move(e), Constant(Value::Text("t")));
  whens.emplace_back(std::move(negated), Constant(Value::Text("f")));
  return Case(std::move(whens), Constant(Value::Null(Type::Text())));
}

bool BindArrayFunction(Binder& binder, const sql::Expr& call, ExprContext& ctx, ExprPtr* out) {
  const std::string& name = call.names.back();
  size_t n = call.children.size();
  auto int_arg = [&](size_t i) {
    ExprContext c = WithoutHint(ctx);
    Type bigint = Type::BigInt();
    c.hint = &bigint;
    ExprPtr x = binder.BindExpr(*call.children[i], c);
    return x->type.id == TypeId::kBigInt ? std::move(x) : Cast(std::move(x), bigint);
  };
  if (name == "array_to_string" && (n == 2 || n == 3)) {
    std::vector<ExprPtr> args;
    args.push_back(BindArrayArgument(binder, *call.children[0], ctx, Type::Text()));
    for (size_t i = 1; i < n; i++) {
      ExprContext c = WithoutHint(ctx);
      Type text = Type::Text();
      c.hint = &text;
      args.push_back(ToText(binder.BindExpr(*call.children[i], c)));
    }
    *out = Call(
        "array_to_string", Type::Text(),
        [](const ScalarArgs& a, Rows rows, Vector* out) {
          const std::string_view* arr = a[0]->data<std::string_view>();
          const std::string_view* sep = a[1]->data<std::string_view>();
          ForEachRow(rows, [&](uint32_t i) {
            std::string s;
            bool first = true;
            for (const std::optional<std::string>& v : ParseArrayText(arr[i])) {
              if (!v && a.size() < 3) continue;
              if (!first) s += sep[i];
              first = false;
              s += v ? std::string_view(*v) : a[2]->data<std::string_view>()[i];
            }
            SetString(out, i, s);
          });
        },
        std::move(args));
    return true;
  }
  if (name == "string_to_array" && (n == 2 || n == 3)) {
    // string_to_array(s, separator [, null_string]): NULL separator splits
    // into characters, '' keeps s whole, '' input is the empty array.
    std::vector<ExprPtr> args;
    for (size_t i = 0; i < n; i++) {
      ExprContext c = WithoutHint(ctx);
      Type text = Type::Text();
      c.hint = &text;
      ExprPtr x = binder.BindExpr(*call.children[i], c);
      if (!x->type.IsString()) {
        throw DbError(sqlstate::kUndefinedFunction,
                      "function string_to_array(" + BaseTypeName(x->type) + ", ...) does not exist",
                      call.position);
      }
      args.push_back(x->type.id == TypeId::kChar ? Cast(std::move(x), Type::Text()) : std::move(x));
    }
    *out = Call(
        "string_to_array", ArrayTextType(Type::Text()),
        [](const ScalarArgs& a, Rows rows, Vector* out) {
          ForEachRow(rows, [&](uint32_t i) {
            if (a[0]->IsNull(i)) return out->SetNull(i, true);
            const std::string_view s = a[0]->data<std::string_view>()[i];
            Elements parts;
            if (a[1]->IsNull(i)) {
              for (size_t k = 0; k < s.size();) {
                size_t len = 1;
                while (k + len < s.size() && (static_cast<uint8_t>(s[k + len]) & 0xC0) == 0x80)
                  ++len;
                parts.emplace_back(std::string(s.substr(k, len)));
                k += len;
              }
            } else if (!s.empty()) {
              const std::string_view sep = a[1]->data<std::string_view>()[i];
              if (sep.empty()) {
                parts.emplace_back(std::string(s));
              } else {
                size_t start = 0;
                for (size_t hit; (hit = s.find(sep, start)) != std::string_view::npos;
                     start = hit + sep.size()) {
                  parts.emplace_back(std::string(s.substr(start, hit - start)));
                }
                parts.emplace_back(std::string(s.substr(start)));
              }
            }
            if (a.size() == 3 && !a[2]->IsNull(i)) {
              const std::string_view null_string = a[2]->data<std::string_view>()[i];
              for (std::optional<std::string>& p : parts) {
                if (p && *p == null_string) p.reset();
              }
            }
            SetString(out, i, FormatArrayText(parts));
          });
        },
        std::move(args), /*strict=*/false);
    return true;
  }
  if ((name == "array_cat" || name == "array_append" || name == "array_prepend") && n == 2) {
    ExprContext c0 = WithoutHint(ctx), c1 = WithoutHint(ctx);
    ExprPtr left = binder.BindExpr(*call.children[0], c0);
    ExprPtr right = binder.BindExpr(*call.children[1], c1);
    const bool left_array = ArrayElementType(left->type).has_value();
    const bool right_array = ArrayElementType(right->type).has_value();
    const bool fits = name == "array_cat"      ? left_array && right_array
                      : name == "array_append" ? left_array && !right_array
                                               : right_array && !left_array;
    if (!fits) {
      throw DbError(sqlstate::kUndefinedFunction,
                    "function " + name + "(" + BaseTypeName(left->type) + ", " +
                        BaseTypeName(right->type) + ") does not exist",
                    call.position);
    }
    *out = BindArrayConcat(std::move(left), std::move(right), false, false, call.position);
    return true;
  }
  if ((name == "array_position" && (n == 2 || n == 3)) || (name == "array_positions" && n == 2) ||
      (name == "array_remove" && n == 2) || (name == "array_replace" && n == 3)) {
    // Elements compare as IS NOT DISTINCT FROM: a NULL argument finds the
    // NULL elements.
    ExprContext c = WithoutHint(ctx);
    ExprPtr arr = binder.BindExpr(*call.children[0], c);
    const std::optional<Type> element = ArrayElementType(arr->type);
    if (!element) {
      throw DbError(sqlstate::kUndefinedFunction,
                    "function " + name + "(" + arr->type.ToString() + ", ...) does not exist",
                    call.position);
    }
    const Type array = arr->type;
    const Type e = *element;
    std::vector<ExprPtr> args;
    args.push_back(std::move(arr));
    args.push_back(
        BindElementArgument(binder, *call.children[1], ctx, e, name, array, call.position));
    if (name == "array_replace") {
      args.push_back(
          BindElementArgument(binder, *call.children[2], ctx, e, name, array, call.position));
    } else if (n == 3) {
      args.push_back(int_arg(2));
    }
    auto same = [e](const std::optional<std::string>& item, const Vector& v, uint32_t i) {
      if (v.IsNull(i)) return !item.has_value();
      return item && CompareArrayElements(*item, v.data<std::string_view>()[i], e) == 0;
    };
    const Type result = name == "array_position"    ? Type::Integer()
                        : name == "array_positions" ? ArrayTextType(Type::Integer())
                                                    : array;
    *out = Call(
        name.c_str(), result,
        [name, same](const ScalarArgs& a, Rows rows, Vector* out) {
          ForEachRow(rows, [&](uint32_t i) {
            if (a[0]->IsNull(i)) return out->SetNull(i, true);
            Elements el = ParseArrayText(a[0]->data<std::string_view>()[i]);
            if (name == "array_position") {
              int64_t start = 1;
              if (a.size() == 3) {
                if (a[2]->IsNull(i)) {
                  throw DbError(sqlstate::kNullValueNotAllowed,
                                "initial position must not be null");
                }
                start = a[2]->data<int64_t>()[i];
              }
              for (int64_t k = std::max<int64_t>(start, 1); k <= static_cast<int64_t>(el.size());
                   ++k) {
                if (same(el[k - 1], *a[1], i)) {
                  out->mutable_data<int32_t>()[i] = static_cast<int32_t>(k);
                  return;
                }
              }
              return out->SetNull(i, true);
            }
            Elements kept;
            for (size_t k = 0; k < el.size(); ++k) {
              const bool hit = same(el[k], *a[1], i);
              if (name == "array_positions") {
                if (hit) kept.emplace_back(std::to_string(k + 1));
              } else if (name == "array_remove") {
                if (!hit) kept.push_back(el[k]);
              } else if (hit) {  // array_replace
                kept.push_back(a[2]->IsNull(i) ? std::nullopt
                                               : std::optional<std::string>(std::string(
                                                     a[2]->data<std::string_view>()[i])));
              } else {
                kept.push_back(el[k]);
              }
            }
            SetString(out, i, FormatArrayText(kept));
          });
        },
        std::move(args), /*strict=*/false);
    return true;
  }
  if ((name == "array_ndims" || name == "array_dims") && n == 1) {
    std::vector<ExprPtr> args;
    args.push_back(BindArrayArgument(binder, *call.children[0], ctx, Type::Text()));
    const bool dims = name == "array_dims";
    *out = Call(
        name.c_str(), dims ? Type::Text() : Type::Integer(),
        [dims](const ScalarArgs& a, Rows rows, Vector* out) {
          ForEachRow(rows, [&](uint32_t i) {
            const size_t count = ParseArrayText(a[0]->data<std::string_view>()[i]).size();
            if (count == 0) return out->SetNull(i, true);  // an empty array has no dimensions
            if (dims) {
              SetString(out, i, "[1:" + std::to_string(count) + "]");
            } else {
              out->mutable_data<int32_t>()[i] = 1;
            }
          });
        },
        std::move(args));
    return true;
  }
  if (((name == "array_upper" || name == "array_lower" || name == "array_length") && n == 2) ||
      (name == "cardinality" && n == 1)) {
    std::vector<ExprPtr> args;
    args.push_back(BindArrayArgument(binder, *call.children[0], ctx, Type::Text()));
    if (n == 2) args.push_back(int_arg(1));
    *out = BindArrayBound(name, std::move(args));
    return true;
  }
  return false;
}

}  // namespace forktail
