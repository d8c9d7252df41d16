// format(formatstr, VARIADIC "any"), quote_literal and quote_nullable, as
// PostgreSQL 15's: %s (NULL prints nothing), %I (an identifier, quoted as
// quote_ident does; NULL is 22004), %L (a literal, quote_literal; NULL
// prints NULL) and %%, each with an argument position (%2$s), the '-' flag
// and a width (a number, * or *n$). Arguments print as their type's text
// output. They live in the binder because %I quotes keywords (the parser's
// list).
#include <fmt/format.h>

#include "olap/common/kernel_util.h"
#include "olap/expression/scalar_function.h"
#include "olap/parser/keywords.h"
#include "olap/plan/binder/binder_catalog.h"
#include "olap/plan/binder/binder_internal.h"
#include "storage/table/sequence.h"

namespace forktail {

std::string QuoteIdentifierSql(const std::string& s) {
  std::string quoted = QuoteIdent(s);
  const sql::KeywordCategory k = sql::LookupKeyword(s).category;
  if (quoted == s && k != sql::KeywordCategory::kNone && k != sql::KeywordCategory::kUnreserved) {
    quoted = "\"" + s + "\"";
  }
  return quoted;
}

std::string QuoteLiteralSql(std::string_view s) {
  std::string out;
  if (s.find('\\') != std::string_view::npos) out.push_back('E');
  out.push_back('\'');
  for (char c : s) {
    if (c == '\'' || c == '\\') out.push_back(c);
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

namespace {

[[noreturn]] void FormatError(const std::string& message) {
  throw DbError(sqlstate::kInvalidParameterValue, message);
}

[[noreturn]] void SpecifierError(const std::string& message) {
  throw DbError(sqlstate::kInvalidParameterValue, message)
      .WithHint("For a single \"%\" use \"%%\".");
}

// One row of format(): `values[k]` is argument k+1 as text (nullopt: NULL).
std::string FormatRow(std::string_view f,
                      const std::vector<std::optional<std::string_view>>& values) {
  std::string out;
  size_t next_arg = 0;  // 0-based index of the argument a plain specifier takes
  auto number = [&](size_t* i, int64_t* n) {
    size_t start = *i;
    *n = 0;
    while (*i < f.size() && f[*i] >= '0' && f[*i] <= '9') {
      *n = *n * 10 + (f[*i] - '0');
      if (*n > INT32_MAX) FormatError("number is out of range");
      ++*i;
    }
    return *i > start;
  };
  auto argument = [&](size_t index) -> const std::optional<std::string_view>& {
    if (index >= values.size()) FormatError("too few arguments for format()");
    return values[index];
  };
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') {
      out.push_back(f[i]);
      continue;
    }
    if (++i >= f.size()) SpecifierError("unterminated format() type specifier");
    if (f[i] == '%') {
      out.push_back('%');
      continue;
    }
    // [n$][-][width|*|*n$]type
    std::optional<size_t> position;
    int64_t n = 0;
    size_t save = i;
    if (number(&i, &n)) {
      if (i < f.size() && f[i] == '$') {
        if (n == 0) FormatError("format specifies argument 0, but arguments are numbered from 1");
        position = static_cast<size_t>(n - 1);
        ++i;
      } else {
        i = save;
      }
    }
    bool left = false;
    while (i < f.size() && f[i] == '-') {
      left = true;
      ++i;
    }
    int64_t width = 0;
    if (i < f.size() && f[i] == '*') {
      ++i;
      size_t width_arg = next_arg;
      save = i;
      if (number(&i, &n)) {
        if (i < f.size() && f[i] == '$') {
          if (n == 0) FormatError("format specifies argument 0, but arguments are numbered from 1");
          width_arg = static_cast<size_t>(n - 1);
          ++i;
        } else {
          i = save;
        }
      }
      next_arg = width_arg + 1;
      const std::optional<std::string_view>& w = argument(width_arg);
      if (w) {
        try {
          width = std::stoll(std::string(*w));
        } catch (const std::exception&) {
          throw DbError(sqlstate::kInvalidTextRepresentation,
                        fmt::format("invalid input syntax for type integer: \"{}\"", *w));
        }
        if (width < 0) {
          left = true;
          width = -width;
        }
      }
    } else {
      number(&i, &width);
    }
    if (i >= f.size()) SpecifierError("unterminated format() type specifier");
    const char type = f[i];
    if (type != 's' && type != 'I' && type != 'L') {
      SpecifierError(fmt::format("unrecognized format() type specifier \"{}\"", type));
    }
    const size_t index = position ? *position : next_arg;
    next_arg = index + 1;
    const std::optional<std::string_view>& v = argument(index);
    std::string text;
    if (type == 's') {
      if (v) text = std::string(*v);
    } else if (type == 'I') {
      if (!v) throw DbError("22004", "null values cannot be formatted as an SQL identifier");
      text = QuoteIdentifierSql(std::string(*v));
    } else {
      text = v ? QuoteLiteralSql(*v) : "NULL";
    }
    // Width counts characters.
    int64_t chars = 0;
    for (char c : text) chars += (static_cast<uint8_t>(c) & 0xC0) != 0x80;
    if (chars < width) {
      std::string pad(static_cast<size_t>(width - chars), ' ');
      text = left ? text + pad : pad + text;
    }
    out += text;
  }
  return out;
}

}  // namespace

bool BindFormatFunction(Binder& binder, const sql::Expr& call, ExprContext& ctx, ExprPtr* out) {
  const std::string& name = call.names.back();
  const size_t n = call.children.size();
  const bool quote = (name == "quote_literal" || name == "quote_nullable") && n == 1;
  if (!(name == "format" && n >= 1) && !quote) return false;
  // Every argument as text, as its type's output prints it.
  std::vector<ExprPtr> args;
  for (size_t i = 0; i < n; ++i) {
    ExprContext c = WithoutHint(ctx);
    Type text = Type::Text();
    c.hint = &text;
    ExprPtr x = binder.BindExpr(*call.children[i], c);
    x = OutputText(std::move(x));
    args.push_back(std::move(x));
  }
  ScalarKernel kernel;
  if (quote) {
    const bool nullable = name == "quote_nullable";
    kernel = [nullable](const ScalarArgs& a, Rows rows, Vector* o) {
      auto* out_text = o->mutable_data<std::string_view>();
      ForEachRow(rows, [&](uint32_t i) {
        if (a[0]->IsNull(i)) {
          if (nullable) {
            out_text[i] = "NULL";
          } else {
            o->SetNull(i, true);
          }
          return;
        }
        out_text[i] = o->arena()->Add(QuoteLiteralSql(a[0]->data<std::string_view>()[i]));
      });
    };
  } else {
    kernel = [](const ScalarArgs& a, Rows rows, Vector* o) {
      auto* out_text = o->mutable_data<std::string_view>();
      std::vector<std::optional<std::string_view>> values(a.size() - 1);
      ForEachRow(rows, [&](uint32_t i) {
        if (a[0]->IsNull(i)) return o->SetNull(i, true);
        for (size_t k = 1; k < a.size(); ++k) {
          values[k - 1] =
              a[k]->IsNull(i) ? std::nullopt : std::optional(a[k]->data<std::string_view>()[i]);
        }
        out_text[i] = o->arena()->Add(FormatRow(a[0]->data<std::string_view>()[i], values));
      });
    };
  }
  *out =
      Function(MakeScalarFunction(name, Type::Text(), kernel, /*strict=*/false), std::move(args));
  return true;
}

}  // namespace forktail
