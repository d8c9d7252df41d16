// Parenthesized expressions (subquery, row constructor or grouping), the
// postfix forms that bind tighter than every operator, and the SQL-standard
// functions with keyword-separated arguments.
#include "olap/parser/parser.h"

namespace forktail::sql {
namespace {

bool ContinuesQuery(const Parser& p) {
  return p.IsKw("union") || p.IsKw("intersect") || p.IsKw("except") || p.IsKw("order") ||
         p.IsKw("limit") || p.IsKw("offset") || p.IsKw("fetch");
}

ExprPtr Function(const char* name, int position) {
  ExprPtr e = Parser::MakeExpr(ExprKind::kFunction, position);
  e->names = {name};
  return e;
}

}  // namespace

ExprPtr Parser::ParseParenthesized() {
  const Token& open = ExpectPunct('(');
  if (IsKw("select") || IsKw("values") || IsKw("with") || IsKw("table")) {
    ExprPtr e = MakeExpr(ExprKind::kSubquery, open.position);
    e->subquery = ParseQuery();
    ExpectPunct(')');
    return e;
  }
  ExprPtr inner = ParseExpr();
  if (IsPunct(',')) {
    ExprPtr row = MakeExpr(ExprKind::kRow, open.position);
    row->children.push_back(std::move(inner));
    while (AcceptPunct(',')) row->children.push_back(ParseExpr());
    ExpectPunct(')');
    return row;
  }
  if (inner->kind == ExprKind::kSubquery && ContinuesQuery(*this)) {
    // ((SELECT ..) UNION (SELECT ..)): the parenthesized operand starts a query.
    ExprPtr e = MakeExpr(ExprKind::kSubquery, open.position);
    e->subquery = ParseQueryAfterOperand(std::move(inner->subquery));
    ExpectPunct(')');
    return e;
  }
  ExpectPunct(')');
  // (composite).field: field selection applies to the parenthesized value.
  while (IsPunct('.') && IsColLabel(1)) {
    ExprPtr e = MakeExpr(ExprKind::kFieldSelect, Advance().position);
    e->children.push_back(std::move(inner));
    e->names = {Advance().text};
    inner = std::move(e);
  }
  return inner;
}

ExprPtr Parser::ParsePostfix(ExprPtr expr) {
  Nesting nesting(*this);
  while (true) {
    nesting.Add();
    const Token& t = Peek();
    if (IsPunct('[')) {
      ++pos_;
      ExprPtr e = MakeExpr(ExprKind::kSubscript, t.position);
      e->children.push_back(std::move(expr));
      if (!IsPunct(':')) {
        e->children.push_back(ParseExpr());
      } else {
        e->children.push_back(nullptr);
      }
      if (AcceptPunct(':')) {
        e->is_slice = true;
        e->children.push_back(IsPunct(']') ? nullptr : ParseExpr());
      }
      ExpectPunct(']');
      expr = std::move(e);
    } else if (IsOp("::")) {
      ++pos_;
      ExprPtr e = MakeExpr(ExprKind::kCast, t.position);
      e->children.push_back(std::move(expr));
      e->type = ParseTypeName();
      expr = std::move(e);
    } else if (IsPunct('.') && IsColLabel(1) && (expr->kind != ExprKind::kColumnRef)) {
      ++pos_;
      ExprPtr e = MakeExpr(ExprKind::kFieldSelect, t.position);
      e->children.push_back(std::move(expr));
      e->names = {Advance().text};
      expr = std::move(e);
    } else {
      return expr;
    }
  }
}

ExprPtr Parser::ParseSpecialFunction() {
  const Token& name = Advance();
  const std::string& w = name.text;
  ExpectPunct('(');
  ExprPtr e;
  if (w == "extract") {
    e = MakeExpr(ExprKind::kExtract, name.position);
    const Token& field = Peek();
    if (field.kind == TokenKind::kIdent || field.kind == TokenKind::kString) {
      e->text = Advance().text;
      for (char& c : e->text) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      }
    } else {
      ErrorAt(field);
    }
    ExpectKw("from");
    e->children.push_back(ParseExpr());
  } else if (w == "substring") {
    e = Function("substring", name.position);
    if (IsPunct(')')) ErrorAtCurrent();
    e->children.push_back(ParseExpr());
    if (AcceptPunct(',')) {
      for (ExprPtr& arg : ParseExprList()) e->children.push_back(std::move(arg));
    } else if (AcceptKw("from")) {
      e->children.push_back(ParseExpr());
      if (AcceptKw("for")) e->children.push_back(ParseExpr());
    } else if (AcceptKw("for")) {
      ExprPtr length = ParseExpr();
      if (AcceptKw("from")) {
        e->children.push_back(ParseExpr());
      } else {
        e->children.push_back(MakeLiteral(LiteralKind::kInteger, "1", 0));
      }
      e->children.push_back(std::move(length));
    } else if (AcceptKw("similar")) {
      // SUBSTRING(x SIMILAR pattern ESCAPE esc)
      e->names = {"substring_similar"};
      e->children.push_back(ParseExpr());
      ExpectKw("escape");
      e->children.push_back(ParseExpr());
    }
  } else if (w == "position") {
    e = Function("position", name.position);
    // b_expr IN b_expr: the operands cannot contain IN themselves.
    e->children.push_back(ParseExpr(kPrecEscape));
    ExpectKw("in");
    e->children.push_back(ParseExpr(kPrecEscape));
  } else if (w == "trim") {
    const char* fn = "btrim";
    if (AcceptKw("leading")) {
      fn = "ltrim";
    } else if (AcceptKw("trailing")) {
      fn = "rtrim";
    } else {
      AcceptKw("both");
    }
    e = Function(fn, name.position);
    if (AcceptKw("from")) {
      e->children = ParseExprList();
    } else {
      ExprPtr first = ParseExpr();
      if (AcceptKw("from")) {
        e->children = ParseExprList();
        e->children.push_back(std::move(first));
      } else {
        e->children.push_back(std::move(first));
        while (AcceptPunct(',')) e->children.push_back(ParseExpr());
      }
    }
  } else {  // overlay(x PLACING y FROM a [FOR b]) or overlay(args)
    e = Function("overlay", name.position);
    e->children.push_back(ParseExpr());
    if (AcceptKw("placing")) {
      e->children.push_back(ParseExpr());
      ExpectKw("from");
      e->children.push_back(ParseExpr());
      if (AcceptKw("for")) e->children.push_back(ParseExpr());
    } else {
      while (AcceptPunct(',')) e->children.push_back(ParseExpr());
    }
  }
  ExpectPunct(')');
  return e;
}

}  // namespace forktail::sql
