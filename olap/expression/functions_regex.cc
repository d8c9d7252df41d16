// POSIX regular-expression match operators: ~ (textregexeq), ~*
// (texticregexeq), !~ (textregexne), !~* (texticregexne).
//
// The C library's regcomp/regexec with REG_EXTENDED, i.e. POSIX EREs.
// PostgreSQL uses its own ARE dialect, a superset: EREs behave the same,
// but ARE-only syntax (\d \w \s escapes, lazy quantifiers *? +?, (?:...),
// lookahead, embedded options (?i)) is not understood here (glibc accepts
// \w and \s as GNU extensions). A constant pattern compiles once at bind
// time; a per-row pattern compiles per distinct value in a chunk. Invalid
// patterns raise 2201B "invalid regular expression: ...".
#include <regex.h>

#include "olap/common/kernel_util.h"
#include "olap/expression/scalar_function.h"

namespace forktail {
namespace {

class Regex {
 public:
  // `captures`: Replace needs the subexpressions' positions; Match does not.
  Regex(std::string_view pattern, bool icase, bool captures = false) {
    std::string p(pattern);
    int rc = regcomp(&re_, p.c_str(),
                     REG_EXTENDED | (captures ? 0 : REG_NOSUB) | (icase ? REG_ICASE : 0));
    if (rc != 0) {
      char msg[256];
      regerror(rc, &re_, msg, sizeof msg);
      throw DbError("2201B", std::string("invalid regular expression: ") + msg);
    }
  }
  ~Regex() { regfree(&re_); }
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // regexec is thread-safe on a compiled pattern.
  bool Match(std::string_view s) const {
    regmatch_t m[1];
    m[0].rm_so = 0;
    m[0].rm_eo = static_cast<regoff_t>(s.size());
    // REG_STARTEND: the subject is [rm_so, rm_eo) and need not end in NUL.
    return regexec(&re_, s.data(), 1, m, REG_STARTEND) == 0;
  }

  // regexp_replace: the first match of s (every one when `global`) replaced
  // by `replacement`, whose \1..\9 stand for the subexpressions, \& for the
  // whole match and \\ for a backslash. Needs `captures`.
  void Replace(std::string_view s, std::string_view replacement, bool global,
               std::string* out) const {
    constexpr size_t kGroups = 10;
    size_t from = 0;
    while (from <= s.size()) {
      regmatch_t m[kGroups];
      m[0].rm_so = static_cast<regoff_t>(from);
      m[0].rm_eo = static_cast<regoff_t>(s.size());
      // Offsets stay relative to s.data(); past the start, ^ must not match.
      if (regexec(&re_, s.data(), kGroups, m, REG_STARTEND | (from > 0 ? REG_NOTBOL : 0)) != 0) {
        break;
      }
      const auto start = static_cast<size_t>(m[0].rm_so), end = static_cast<size_t>(m[0].rm_eo);
      out->append(s.substr(from, start - from));
      for (size_t i = 0; i < replacement.size(); ++i) {
        const char c = replacement[i];
        if (c != '\\' || i + 1 == replacement.size()) {
          out->push_back(c);
          continue;
        }
        const char next = replacement[++i];
        if (next >= '1' && next <= '9') {
          const regmatch_t& g = m[next - '0'];
          if (g.rm_so >= 0) out->append(s.substr(g.rm_so, g.rm_eo - g.rm_so));
        } else if (next == '&') {
          out->append(s.substr(start, end - start));
        } else if (next == '\\') {
          out->push_back('\\');
        } else {
          out->push_back('\\');
          out->push_back(next);
        }
      }
      if (end == start) {  // an empty match: keep the next character, go on after it
        if (start < s.size()) out->push_back(s[start]);
        from = start + 1;
      } else {
        from = end;
      }
      if (!global) break;
    }
    if (from < s.size()) out->append(s.substr(from));
  }

 private:
  regex_t re_;
};

void RegisterMatch(FunctionRegistry& r, const char* name, bool icase, bool negated) {
  FunctionOverload o;
  o.params = {TypeId::kText, TypeId::kText};
  o.bind = [name, icase, negated](const FunctionBindContext&, std::vector<ExprPtr>& args) {
    std::shared_ptr<const Regex> fixed;
    if (args[1]->kind == ExprKind::kConstant && !args[1]->constant.is_null()) {
      fixed = std::make_shared<const Regex>(args[1]->constant.GetString(), icase);
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
                                      last = std::make_unique<Regex>(p[i], icase);
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

// The flags of regexp_replace: g (every match), i (case-insensitive), c
// (case-sensitive, the default); 22023 for another.
struct ReplaceFlags {
  bool global = false;
  bool icase = false;
};
ReplaceFlags ParseReplaceFlags(std::string_view flags) {
  ReplaceFlags f;
  for (char c : flags) {
    if (c == 'g') {
      f.global = true;
    } else if (c == 'i') {
      f.icase = true;
    } else if (c == 'c') {
      f.icase = false;
    } else {
      throw DbError("22023", std::string("invalid regular expression option: \"") + c + "\"");
    }
  }
  return f;
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
    ReplaceFlags fixed_flags;
    if (constant(1) && (!with_flags || constant(3))) {
      if (with_flags) fixed_flags = ParseReplaceFlags(args[3]->constant.GetString());
      fixed = std::make_shared<const Regex>(args[1]->constant.GetString(), fixed_flags.icase,
                                            /*captures=*/true);
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
            ReplaceFlags flags = fixed_flags;
            std::unique_ptr<Regex> own;
            const Regex* re = fixed.get();
            if (re == nullptr) {
              if (with_flags) flags = ParseReplaceFlags(a[3]->data<std::string_view>()[i]);
              own = std::make_unique<Regex>(p[i], flags.icase, /*captures=*/true);
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

}  // namespace

void RegisterRegexFunctions(FunctionRegistry& r) {
  RegisterReplace(r, false);
  RegisterReplace(r, true);
  RegisterMatch(r, "textregexeq", false, false);
  RegisterMatch(r, "texticregexeq", true, false);
  RegisterMatch(r, "textregexne", false, true);
  RegisterMatch(r, "texticregexne", true, true);
}

}  // namespace forktail
