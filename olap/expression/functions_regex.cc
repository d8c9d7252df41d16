// POSIX regular-expression match operators: ~ (textregexeq), ~*
// (texticregexeq), !~ (textregexne), !~* (texticregexne), and the scalar
// regexp functions regexp_replace, regexp_match, regexp_split_to_array,
// regexp_like and regexp_count. The dialect is regex.h's. A constant
// pattern (and flags) compiles once at bind time; a per-row pattern
// compiles per row (the match operators keep the last one).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "olap/common/kernel_util.h"
#include "olap/expression/regex.h"
#include "olap/expression/scalar_function.h"
#include "storage/value/array_text.h"

namespace forktail {
namespace {

void RegisterMatch(FunctionRegistry& r, const char* name, bool icase, bool negated) {
  FunctionOverload o;
  o.params = {TypeId::kText, TypeId::kText};
  o.bind = [name, icase, negated](const FunctionBindContext&, std::vector<ExprPtr>& args) {
    std::shared_ptr<const Regex> fixed;
    if (args[1]->kind == ExprKind::kConstant && !args[1]->constant.is_null()) {
      fixed = std::make_shared<const Regex>(args[1]->constant.GetString(),
                                            RegexFlags{.icase = icase}, /*captures=*/false);
    }
    return MakeScalarFunction(name, Type::Boolean(),
                              [fixed, icase, negated](const ScalarArgs& a, Rows rows, Vector* out) {
                                const auto* s = a[0]->data<std::string_view>();
                                const auto* p = a[1]->data<std::string_view>();
                                uint8_t* o = out->mutable_data<uint8_t>();
                                std::unique_ptr<Regex> last;
                                std::string last_pattern;
                                ForEachRow(rows, [&](uint32_t i) {
                                  const Regex* re = fixed.get();
                                  if (re == nullptr) {
                                    if (!last || last_pattern != p[i]) {
                                      last =
                                          std::make_unique<Regex>(p[i], RegexFlags{.icase = icase},
                                                                  /*captures=*/false);
                                      last_pattern = p[i];
                                    }
                                    re = last.get();
                                  }
                                  o[i] = re->Match(s[i]) != negated;
                                });
                              });
  };
  r.Register(name, std::move(o));
}

// regexp_replace(source, pattern, replacement [, flags]). A constant
// pattern (and flags) compiles once at bind time.
void RegisterReplace(FunctionRegistry& r, bool with_flags) {
  FunctionOverload o;
  o.params = {TypeId::kText, TypeId::kText, TypeId::kText};
  if (with_flags) o.params.push_back(TypeId::kText);
  o.bind = [with_flags](const FunctionBindContext&, std::vector<ExprPtr>& args) {
    auto constant = [&](size_t k) {
      return args[k]->kind == ExprKind::kConstant && !args[k]->constant.is_null();
    };
    std::shared_ptr<const Regex> fixed;
    RegexFlags fixed_flags;
    if (constant(1) && (!with_flags || constant(3))) {
      if (with_flags) fixed_flags = ParseRegexFlags(args[3]->constant.GetString());
      fixed = std::make_shared<const Regex>(args[1]->constant.GetString(), fixed_flags);
    }
    return MakeScalarFunction(
        "regexp_replace", Type::Text(),
        [fixed, fixed_flags, with_flags](const ScalarArgs& a, Rows rows, Vector* out) {
          const auto* s = a[0]->data<std::string_view>();
          const auto* p = a[1]->data<std::string_view>();
          const auto* repl = a[2]->data<std::string_view>();
          auto* o = out->mutable_data<std::string_view>();
          StringArena* arena = out->arena();
          std::string buf;
          ForEachRow(rows, [&](uint32_t i) {
            RegexFlags flags = fixed_flags;
            std::unique_ptr<Regex> own;
            const Regex* re = fixed.get();
            if (re == nullptr) {
              if (with_flags) flags = ParseRegexFlags(a[3]->data<std::string_view>()[i]);
              own = std::make_unique<Regex>(p[i], flags);
              re = own.get();
            }
            buf.clear();
            re->Replace(s[i], repl[i], flags.global, &buf);
            o[i] = arena->Add(buf);
          });
        });
  };
  r.Register("regexp_replace", std::move(o));
}

// regexp_match, regexp_split_to_array, regexp_like and regexp_count: a
// source, a pattern and, at `flags_at` (0: none), the flags, which may not
// ask for every match ("g"). `compute` writes row i of `out` from the
// compiled pattern.
using RegexKernel =
    std::function<void(const Regex& re, const ScalarArgs& a, uint32_t i, Vector* out)>;

void RegisterPatternFunction(FunctionRegistry& r, const std::string& name,
                             std::vector<TypeId> params, size_t flags_at, Type result,
                             RegexKernel compute) {
  FunctionOverload o;
  o.params = std::move(params);
  o.bind = [name, flags_at, result, compute](const FunctionBindContext&,
                                             std::vector<ExprPtr>& args) {
    auto constant = [&](size_t k) {
      return args[k]->kind == ExprKind::kConstant && !args[k]->constant.is_null();
    };
    auto flags_of = [name](std::string_view text) {
      RegexFlags f = ParseRegexFlags(text);
      if (f.global) {
        DbError e("22023", name + "() does not support the \"global\" option");
        if (name == "regexp_match") e.WithHint("Use the regexp_matches function instead.");
        throw e;
      }
      return f;
    };
    std::shared_ptr<const Regex> fixed;
    if (constant(1) && (flags_at == 0 || constant(flags_at))) {
      RegexFlags f;
      if (flags_at != 0) f = flags_of(args[flags_at]->constant.GetString());
      fixed = std::make_shared<const Regex>(args[1]->constant.GetString(), f);
    }
    return MakeScalarFunction(
        name, result,
        [fixed, flags_at, flags_of, compute](const ScalarArgs& a, Rows rows, Vector* out) {
          ForEachRow(rows, [&](uint32_t i) {
            if (fixed != nullptr) return compute(*fixed, a, i, out);
            RegexFlags f;
            if (flags_at != 0) f = flags_of(a[flags_at]->data<std::string_view>()[i]);
            const Regex re(a[1]->data<std::string_view>()[i], f);
            compute(re, a, i, out);
          });
        });
  };
  r.Register(name, std::move(o));
}

void SetText(Vector* out, uint32_t i, std::string_view text) {
  out->mutable_data<std::string_view>()[i] = out->arena()->Add(text);
}

void RegisterPatternFunctions(FunctionRegistry& r) {
  const Type text_array = Type::ArrayText(Type::Text());
  const TypeId t = TypeId::kText;
  auto match = [](const Regex& re, const ScalarArgs& a, uint32_t i, Vector* out) {
    std::vector<Regex::Groups> m = re.Matches(a[0]->data<std::string_view>()[i], false);
    if (m.empty()) return out->SetNull(i, true);
    SetText(out, i, FormatArrayText(m[0]));
  };
  auto split = [](const Regex& re, const ScalarArgs& a, uint32_t i, Vector* out) {
    std::vector<std::optional<std::string>> parts;
    for (std::string& p : re.Split(a[0]->data<std::string_view>()[i])) {
      parts.emplace_back(std::move(p));
    }
    SetText(out, i, FormatArrayText(parts));
  };
  auto like = [](const Regex& re, const ScalarArgs& a, uint32_t i, Vector* out) {
    out->mutable_data<uint8_t>()[i] = re.Match(a[0]->data<std::string_view>()[i]);
  };
  auto count = [](const Regex& re, const ScalarArgs& a, uint32_t i, Vector* out) {
    const std::string_view s = a[0]->data<std::string_view>()[i];
    size_t from = 0;
    if (a.size() > 2) {  // start: a character position from 1
      const int32_t start = a[2]->data<int32_t>()[i];
      if (start <= 0) {
        throw DbError("22023", "invalid value for parameter \"start\": " + std::to_string(start));
      }
      for (int32_t c = 1; c < start && from < s.size(); c++) {
        do ++from;
        while (from < s.size() && (static_cast<uint8_t>(s[from]) & 0xC0) == 0x80);
      }
      if (from >= s.size() && start > 1) return void(out->mutable_data<int32_t>()[i] = 0);
    }
    out->mutable_data<int32_t>()[i] = static_cast<int32_t>(re.Count(s, from));
  };
  RegisterPatternFunction(r, "regexp_match", {t, t}, 0, text_array, match);
  RegisterPatternFunction(r, "regexp_match", {t, t, t}, 2, text_array, match);
  RegisterPatternFunction(r, "regexp_split_to_array", {t, t}, 0, text_array, split);
  RegisterPatternFunction(r, "regexp_split_to_array", {t, t, t}, 2, text_array, split);
  RegisterPatternFunction(r, "regexp_like", {t, t}, 0, Type::Boolean(), like);
  RegisterPatternFunction(r, "regexp_like", {t, t, t}, 2, Type::Boolean(), like);
  const TypeId n = TypeId::kInteger;
  RegisterPatternFunction(r, "regexp_count", {t, t}, 0, Type::Integer(), count);
  RegisterPatternFunction(r, "regexp_count", {t, t, n}, 0, Type::Integer(), count);
  RegisterPatternFunction(r, "regexp_count", {t, t, n, t}, 3, Type::Integer(), count);
}

}  // namespace

// forktail_similar(s, pattern, escape): SIMILAR TO with a pattern that is
// not a constant (the binder's rewrite when it is not known at bind time);
// the escape is one character or '' (none).
void RegisterRowSimilar(FunctionRegistry& r) {
  r.Register("forktail_similar", {TypeId::kText, TypeId::kText, TypeId::kText}, Type::Boolean(),
             [](const ScalarArgs& a, Rows rows, Vector* out) {
               const auto* s = a[0]->data<std::string_view>();
               const auto* p = a[1]->data<std::string_view>();
               const auto* e = a[2]->data<std::string_view>();
               uint8_t* o = out->mutable_data<uint8_t>();
               std::unique_ptr<Regex> last;
               std::string last_regex;
               ForEachRow(rows, [&](uint32_t i) {
                 if (e[i].size() > 1) {
                   throw DbError(sqlstate::kInvalidEscapeSequence, "invalid escape string")
                       .WithHint("Escape string must be empty or one character.");
                 }
                 std::string regex = SimilarToRegex(p[i], e[i].empty() ? 0 : e[i][0]);
                 if (!last || regex != last_regex) {
                   last = std::make_unique<Regex>(regex, RegexFlags{}, /*captures=*/false);
                   last_regex = std::move(regex);
                 }
                 o[i] = last->Match(s[i]);
               });
             });
}

void RegisterRegexFunctions(FunctionRegistry& r) {
  RegisterPatternFunctions(r);
  RegisterRowSimilar(r);
  RegisterReplace(r, false);
  RegisterReplace(r, true);
  RegisterMatch(r, "textregexeq", false, false);
  RegisterMatch(r, "texticregexeq", true, false);
  RegisterMatch(r, "textregexne", false, true);
  RegisterMatch(r, "texticregexne", true, true);
}

}  // namespace forktail
