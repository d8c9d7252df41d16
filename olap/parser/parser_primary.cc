// Primary expressions: literals, parameters, names and function calls, the
// SQL-standard special forms (CASE, CAST, EXISTS, ARRAY, ROW, EXTRACT,
// SUBSTRING, POSITION, TRIM, CURRENT_DATE, ...), and the postfix forms that
// bind tighter than any operator (subscripts, :: casts, field selection).
#include <algorithm>

#include "olap/parser/parser.h"

namespace forktail::sql {
namespace {

// SQL value functions written without parentheses.
bool IsNoParenFunction(const std::string& w) {
  static constexpr const char* kNames[] = {
      "current_date",   "current_timestamp", "current_time",  "localtime",
      "localtimestamp", "current_user",      "session_user",  "user",
      "current_role",   "current_catalog",   "current_schema"};
  return std::any_of(std::begin(kNames), std::end(kNames), [&](const char* n) { return w == n; });
}

// col_name keywords that are nonetheless ordinary function calls.
bool IsColNameFunction(const std::string& w) {
  return w == "coalesce" || w == "nullif" || w == "greatest" || w == "least" || w == "grouping";
}

}  // namespace

bool Parser::StartsQuery(size_t k) const {
  while (IsPunct('(', k)) ++k;
  return IsKw("select", k) || IsKw("values", k) || IsKw("with", k) || IsKw("table", k);
}

ExprPtr Parser::ParsePrimary() {
  const Token& t = Peek();
  switch (t.kind) {
    case TokenKind::kInteger:
      ++pos_;
      return MakeLiteral(LiteralKind::kInteger, t.text, t.position);
    case TokenKind::kNumeric:
      ++pos_;
      return MakeLiteral(LiteralKind::kNumeric, t.text, t.position);
    case TokenKind::kString:
      ++pos_;
      return MakeLiteral(LiteralKind::kString, t.text, t.position);
    case TokenKind::kBitString:
      ++pos_;
      return MakeLiteral(LiteralKind::kBitString, t.text, t.position);
    case TokenKind::kParam: {
      ++pos_;
      ExprPtr e = MakeExpr(ExprKind::kParameter, t.position);
      e->param_index = t.param;
      max_parameter_ = std::max(max_parameter_, t.param);
      return e;
    }
    case TokenKind::kPunct:
      if (IsPunct('(')) return ParseParenthesized();
      ErrorAt(t);
    case TokenKind::kQuotedIdent:
      return ParseNameExpression();
    case TokenKind::kIdent:
      break;
    default:
      ErrorAt(t);
  }
  const std::string& w = t.text;
  if (w == "null") {
    ++pos_;
    return MakeLiteral(LiteralKind::kNull, "", t.position);
  }
  if (w == "true" || w == "false") {
    ++pos_;
    return MakeLiteral(LiteralKind::kBoolean, w, t.position);
  }
  if (w == "case") return ParseCase();
  if (w == "cast") {
    ++pos_;
    ExprPtr e = MakeExpr(ExprKind::kCast, t.position);
    ExpectPunct('(');
    e->children.push_back(ParseExpr());
    ExpectKw("as");
    e->type = ParseTypeName();
    ExpectPunct(')');
    return e;
  }
  if (w == "exists") {
    ++pos_;
    ExprPtr e = MakeExpr(ExprKind::kExists, t.position);
    ExpectPunct('(');
    e->subquery = ParseQuery();
    ExpectPunct(')');
    return e;
  }
  if (w == "array") {
    ++pos_;
    if (AcceptPunct('(')) {
      ExprPtr e = MakeExpr(ExprKind::kArraySubquery, t.position);
      e->subquery = ParseQuery();
      ExpectPunct(')');
      return e;
    }
    // ARRAY[...]; inner bare [...] lists are nested arrays.
    ExprPtr e = MakeExpr(ExprKind::kArray, t.position);
    ExpectPunct('[');
    auto parse_elements = [&](auto& self, Expr& array) -> void {
      if (IsPunct(']')) return;
      do {
        if (IsPunct('[')) {
          ExprPtr inner = MakeExpr(ExprKind::kArray, Advance().position);
          self(self, *inner);
          ExpectPunct(']');
          array.children.push_back(std::move(inner));
        } else {
          array.children.push_back(ParseExpr());
        }
      } while (AcceptPunct(','));
    };
    parse_elements(parse_elements, *e);
    ExpectPunct(']');
    return e;
  }
  if (w == "row" && IsPunct('(', 1)) {
    ++pos_;
    ExprPtr e = MakeExpr(ExprKind::kRow, t.position);
    ExpectPunct('(');
    if (!IsPunct(')')) e->children = ParseExprList();
    ExpectPunct(')');
    return e;
  }
  if ((w == "extract" || w == "substring" || w == "position" || w == "trim" || w == "overlay") &&
      IsPunct('(', 1)) {
    return ParseSpecialFunction();
  }
  if (IsNoParenFunction(w) && !(w == "current_schema" && IsPunct('(', 1))) {
    ++pos_;
    ExprPtr e = MakeExpr(ExprKind::kFunction, t.position);
    e->names = {w};
    e->no_parens = true;
    if ((w == "current_time" || w == "current_timestamp" || w == "localtime" ||
         w == "localtimestamp") &&
        AcceptPunct('(')) {
      e->children.push_back(ParseExpr());
      ExpectPunct(')');
    }
    return e;
  }
  if (StartsTypedLiteralKeyword()) return ParseTypedLiteral();
  if (t.keyword == KeywordCategory::kReserved) ErrorAt(t);
  return ParseNameExpression();
}

// A name chain: column reference, t.*, function call, or `type 'literal'`.
ExprPtr Parser::ParseNameExpression() {
  const Token& first = Peek();
  bool col_name_kw = first.kind == TokenKind::kIdent && first.keyword == KeywordCategory::kColName;
  bool type_func_kw =
      first.kind == TokenKind::kIdent && first.keyword == KeywordCategory::kTypeFunc;
  QualifiedName names;
  names.push_back(Advance().text);
  while (IsPunct('.')) {
    if (IsOp("*", 1)) {
      pos_ += 2;
      ExprPtr star = MakeExpr(ExprKind::kStar, first.position);
      star->names = std::move(names);
      return star;
    }
    if (!IsColLabel(1)) ErrorAt(Peek(1));
    ++pos_;
    names.push_back(Advance().text);
  }
  bool single = names.size() == 1;
  if (IsPunct('(')) {
    if (single && col_name_kw && !IsColNameFunction(names[0])) ErrorAt(Peek());
    ExprPtr fn = MakeExpr(ExprKind::kFunction, first.position);
    fn->names = std::move(names);
    return ParseFunctionArgs(std::move(fn));
  }
  if (Peek().kind == TokenKind::kString && !(single && col_name_kw)) {
    // func_name 'literal': a typed literal such as int4 '1' or pg_catalog.date '...'.
    ExprPtr e = MakeLiteral(LiteralKind::kTyped, Advance().text, first.position);
    if (names.size() > 1) e->type.schema = names[names.size() - 2];
    e->type.name = names.back();
    e->type.position = first.position;
    return e;
  }
  if (single && type_func_kw) ErrorAt(Peek());
  ExprPtr ref = MakeExpr(ExprKind::kColumnRef, first.position);
  ref->names = std::move(names);
  return ref;
}

ExprPtr Parser::ParseFunctionArgs(ExprPtr fn) {
  ExpectPunct('(');
  if (IsOp("*") && IsPunct(')', 1)) {
    ++pos_;
    fn->star = true;
  } else if (!IsPunct(')')) {
    if (AcceptKw("distinct")) {
      fn->distinct = true;
    } else {
      AcceptKw("all");
    }
    do {
      if (AcceptKw("variadic")) fn->variadic = true;
      // Named arguments (name => value), kept for the binder to match.
      std::string arg_name;
      if (IsColLabel() && (IsOp("=>", 1) || IsOp(":=", 1))) {
        arg_name = Peek().text;
        pos_ += 2;
      }
      if (!arg_name.empty() || !fn->arg_names.empty()) {
        fn->arg_names.resize(fn->children.size());
        fn->arg_names.push_back(arg_name);
      }
      fn->children.push_back(ParseExpr());
    } while (AcceptPunct(','));
    if (!fn->arg_names.empty()) fn->arg_names.resize(fn->children.size());
    if (AcceptKw("order")) {
      ExpectKw("by");
      fn->agg_order = ParseOrderByList();
    }
  }
  ExpectPunct(')');
  if (IsKw("within") && IsKw("group", 1)) {
    if (!fn->agg_order.empty()) {
      ErrorMessage(Peek(), "cannot use multiple ORDER BY clauses with WITHIN GROUP");
    }
    pos_ += 2;
    ExpectPunct('(');
    ExpectKw("order");
    ExpectKw("by");
    fn->agg_order = ParseOrderByList();
    fn->within_group = true;
    ExpectPunct(')');
  }
  if (IsKw("filter") && IsPunct('(', 1)) {
    pos_ += 2;
    ExpectKw("where");
    fn->filter = ParseExpr();
    ExpectPunct(')');
  }
  if (AcceptKw("over")) fn->over = ParseWindowSpec();
  return fn;
}

std::unique_ptr<WindowSpec> Parser::ParseWindowSpec() {
  auto spec = std::make_unique<WindowSpec>();
  spec->position = Peek().position;
  if (!IsPunct('(')) {
    spec->name = ParseColId();
    spec->bare_name = true;
    return spec;
  }
  ++pos_;
  if (IsColId() && !IsKw("partition") && !IsKw("order") && !IsKw("rows") && !IsKw("range") &&
      !IsKw("groups")) {
    spec->name = ParseColId();
  }
  if (IsKw("partition") && IsKw("by", 1)) {
    pos_ += 2;
    spec->partition_by = ParseExprList();
  }
  if (AcceptKw("order")) {
    ExpectKw("by");
    spec->order_by = ParseOrderByList();
  }
  if (IsKw("rows") || IsKw("range") || IsKw("groups")) {
    // The frame clause is kept as normalized text.
    int depth = 0;
    while (depth > 0 || !IsPunct(')')) {
      const Token& t = Advance();
      if (t.kind == TokenKind::kPunct && t.text == "(") ++depth;
      if (t.kind == TokenKind::kPunct && t.text == ")") --depth;
      if (!spec->frame.empty()) spec->frame += ' ';
      std::string word = t.kind == TokenKind::kIdent
                             ? t.text
                             : std::string(text_.substr(t.begin, t.end - t.begin));
      if (t.kind == TokenKind::kIdent) {
        std::transform(word.begin(), word.end(), word.begin(), [](char c) {
          return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
        });
      }
      spec->frame += word;
    }
  }
  ExpectPunct(')');
  return spec;
}

std::vector<OrderItem> Parser::ParseOrderByList() {
  std::vector<OrderItem> items;
  do {
    OrderItem item;
    item.position = Peek().position;
    item.expr = ParseExpr();
    if (AcceptKw("desc")) {
      item.direction = SortDirection::kDesc;
    } else if (!AcceptKw("asc") && AcceptKw("using")) {
      if (Peek().kind != TokenKind::kOp) ErrorAtCurrent();
      item.direction = Advance().text == ">" ? SortDirection::kDesc : SortDirection::kAsc;
    }
    if (IsKw("nulls") && (IsKw("first", 1) || IsKw("last", 1))) {
      ++pos_;
      if (AcceptKw("first")) {
        item.nulls = NullsOrder::kFirst;
      } else {
        ExpectKw("last");
        item.nulls = NullsOrder::kLast;
      }
    }
    items.push_back(std::move(item));
  } while (AcceptPunct(','));
  return items;
}

ExprPtr Parser::ParseCase() {
  ExprPtr e = MakeExpr(ExprKind::kCase, ExpectKw("case").position);
  if (!IsKw("when")) e->case_operand = ParseExpr();
  if (!IsKw("when")) ErrorAtCurrent();
  while (AcceptKw("when")) {
    ExprPtr when = ParseExpr();
    ExpectKw("then");
    e->whens.emplace_back(std::move(when), ParseExpr());
  }
  if (AcceptKw("else")) e->else_result = ParseExpr();
  ExpectKw("end");
  return e;
}

}  // namespace forktail::sql
