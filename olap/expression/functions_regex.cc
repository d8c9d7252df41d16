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
  Regex(std::string_view pattern, bool icase) {
    std::string p(pattern);
    int rc = regcomp(&re_, p.c_str(), REG_EXTENDED | REG_NOSUB | (icase ? REG_ICASE : 0));
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

}  // namespace

void RegisterRegexFunctions(FunctionRegistry& r) {
  RegisterMatch(r, "textregexeq", false, false);
  RegisterMatch(r, "texticregexeq", true, false);
  RegisterMatch(r, "textregexne", false, true);
  RegisterMatch(r, "texticregexne", true, true);
}

}  // namespace forktail
