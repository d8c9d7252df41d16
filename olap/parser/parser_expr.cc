// Expressions: a Pratt loop over infix operators with PostgreSQL 15's
// precedence and associativity (see parser.h). Non-associative levels
// (comparisons; BETWEEN/IN/LIKE) reject a second operator of the same level
// at that operator, exactly where bison reports the error.
#include "olap/parser/parser.h"

namespace forktail::sql {
namespace {

bool IsCompareOp(const std::string& op) {
  return op == "=" || op == "<" || op == ">" || op == "<=" || op == ">=" || op == "<>";
}

// Operators the lexer emits that are not expression operators.
bool IsNonExprOp(const std::string& op) {
  return op == "::" || op == ".." || op == ":=" || op == "=>";
}

int OpPrecedence(const std::string& op) {
  if (IsCompareOp(op)) return kPrecCompare;
  if (op == "+" || op == "-") return kPrecAdd;
  if (op == "*" || op == "/" || op == "%") return kPrecMul;
  if (op == "^") return kPrecExp;
  return kPrecOp;
}

ExprPtr Binary(std::string op, ExprPtr left, ExprPtr right, int position) {
  ExprPtr e = Parser::MakeExpr(ExprKind::kBinaryOp, position);
  e->op = std::move(op);
  e->children.push_back(std::move(left));
  e->children.push_back(std::move(right));
  return e;
}

// AND / OR flatten: (a AND b) AND c has three children.
ExprPtr Junction(ExprKind kind, ExprPtr left, ExprPtr right, int position) {
  if (left->kind == kind) {
    left->children.push_back(std::move(right));
    return left;
  }
  ExprPtr e = Parser::MakeExpr(kind, position);
  e->children.push_back(std::move(left));
  e->children.push_back(std::move(right));
  return e;
}

bool IsNumberLiteral(const Expr& e) {
  return e.kind == ExprKind::kLiteral &&
         (e.literal_kind == LiteralKind::kInteger || e.literal_kind == LiteralKind::kNumeric);
}

}  // namespace

// x op ANY|SOME|ALL ( subquery | array expression ); at ANY/SOME/ALL.
ExprPtr Parser::ParseQuantified(std::string op, std::string op_schema, ExprPtr left, int position) {
  ExprPtr e = MakeExpr(ExprKind::kQuantified, position);
  e->op = std::move(op);
  e->op_schema = std::move(op_schema);
  e->quantifier = IsKw("all") ? Quantifier::kAll : Quantifier::kAny;
  ++pos_;
  ExpectPunct('(');
  e->children.push_back(std::move(left));
  if (IsKw("select") || IsKw("values") || IsKw("with") || IsKw("table")) {
    e->subquery = ParseQuery();
  } else {
    e->children.push_back(ParseExpr());
  }
  ExpectPunct(')');
  return e;
}

std::vector<ExprPtr> Parser::ParseExprList() {
  std::vector<ExprPtr> list;
  do {
    list.push_back(ParseExpr());
  } while (AcceptPunct(','));
  return list;
}

ExprPtr Parser::ParseExpr(int min_precedence) {
  Nesting nesting(*this);
  ExprPtr left;
  const Token& first = Peek();
  if (IsKw("not")) {
    ++pos_;
    left = MakeExpr(ExprKind::kNot, first.position);
    left->children.push_back(ParseExpr(kPrecNot));
  } else if (first.kind == TokenKind::kOp && (first.text == "-" || first.text == "+")) {
    ++pos_;
    ExprPtr operand = ParseExpr(kPrecUnary);
    if (IsNumberLiteral(*operand) && operand->text[0] != '-') {
      // PostgreSQL folds a minus sign into a numeric constant.
      if (first.text == "-") operand->text.insert(0, "-");
      operand->position = first.position;
      left = std::move(operand);
    } else {
      left = MakeExpr(ExprKind::kUnaryOp, first.position);
      left->op = first.text;
      left->children.push_back(std::move(operand));
    }
  } else if (first.kind == TokenKind::kOp && !IsNonExprOp(first.text)) {
    ++pos_;
    left = MakeExpr(ExprKind::kUnaryOp, first.position);
    left->op = first.text;
    left->children.push_back(ParseExpr(kPrecOp + 1));
  } else if (IsKw("operator") && IsPunct('(', 1)) {
    ++pos_;
    left = MakeExpr(ExprKind::kUnaryOp, first.position);
    ExpectPunct('(');
    while (IsColId() && IsPunct('.', 1)) {
      left->op_schema = Advance().text;
      ++pos_;
    }
    if (Peek().kind != TokenKind::kOp) ErrorAtCurrent();
    left->op = Advance().text;
    ExpectPunct(')');
    left->children.push_back(ParseExpr(kPrecOp + 1));
  } else {
    left = ParsePostfix(ParsePrimary());
  }

  int nonassoc = 0;  // precedence of the last non-associative operator applied
  while (true) {
    const Token& t = Peek();
    int prec = 0;
    bool negated = false;
    if (t.kind == TokenKind::kOp && !IsNonExprOp(t.text)) {
      prec = OpPrecedence(t.text);
    } else if (t.kind == TokenKind::kIdent) {
      const std::string& w = t.text;
      if (w == "or") {
        prec = kPrecOr;
      } else if (w == "and") {
        prec = kPrecAnd;
      } else if (w == "is" || w == "isnull" || w == "notnull") {
        prec = kPrecIs;
      } else if (w == "between" || w == "in" || w == "like" || w == "ilike" || w == "similar") {
        prec = kPrecLike;
      } else if (w == "not" && (IsKw("between", 1) || IsKw("in", 1) || IsKw("like", 1) ||
                                IsKw("ilike", 1) || IsKw("similar", 1))) {
        prec = kPrecLike;
        negated = true;
      } else if (w == "operator" && IsPunct('(', 1)) {
        prec = kPrecOp;
      } else if (w == "at" && IsKw("time", 1)) {
        prec = kPrecAt;
      } else if (w == "collate") {
        prec = kPrecCollate;
      }
    }
    if (prec == 0 || prec < min_precedence) break;
    // A keyword operator that nothing follows is a bare column label, but only
    // where bison could still reduce the item: at its outermost level.
    if (in_select_item_ && min_precedence == 0 && t.kind == TokenKind::kIdent &&
        t.text != "isnull" && t.text != "notnull" && EndsSelectItemAfter(negated ? 2 : 1)) {
      break;
    }
    if (prec == nonassoc) ErrorAt(t);
    // AND / OR chains flatten into one node: they do not deepen the tree.
    if (prec != kPrecOr && prec != kPrecAnd) nesting.Add();
    nonassoc = 0;
    int position = t.position;
    // For NOT BETWEEN / NOT IN / NOT LIKE ... the operator word follows NOT.
    const std::string& w = negated ? Peek(1).text : t.text;
    ++pos_;
    if (negated) ++pos_;

    if (prec == kPrecOr || prec == kPrecAnd) {
      ExprPtr right = ParseExpr(prec + 1);
      left = Junction(prec == kPrecOr ? ExprKind::kOr : ExprKind::kAnd, std::move(left),
                      std::move(right), position);
    } else if (prec == kPrecIs) {
      if (w == "isnull" || w == "notnull") {
        ExprPtr e = MakeExpr(ExprKind::kIsNull, position);
        e->negated = w == "notnull";
        e->children.push_back(std::move(left));
        left = std::move(e);
        continue;
      }
      bool is_not = AcceptKw("not");
      ExprPtr e;
      if (AcceptKw("null")) {
        e = MakeExpr(ExprKind::kIsNull, position);
      } else if (IsKw("true") || IsKw("false") || IsKw("unknown")) {
        e = MakeExpr(ExprKind::kIsBool, position);
        const std::string& v = Advance().text;
        e->bool_test =
            v == "true" ? BoolTest::kTrue : (v == "false" ? BoolTest::kFalse : BoolTest::kUnknown);
      } else if (AcceptKw("distinct")) {
        ExpectKw("from");
        e = MakeExpr(ExprKind::kIsDistinctFrom, position);
        e->children.push_back(std::move(left));
        e->children.push_back(ParseExpr(kPrecIs + 1));
        e->negated = is_not;
        left = std::move(e);
        continue;
      } else {
        ErrorAtCurrent();
      }
      e->negated = is_not;
      e->children.push_back(std::move(left));
      left = std::move(e);
    } else if (prec == kPrecLike) {
      nonassoc = prec;
      if (w == "between") {
        ExprPtr e = MakeExpr(ExprKind::kBetween, position);
        e->negated = negated;
        if (AcceptKw("symmetric")) {
          e->symmetric = true;
        } else {
          AcceptKw("asymmetric");
        }
        e->children.push_back(std::move(left));
        e->children.push_back(ParseExpr(kPrecLike + 1));
        ExpectKw("and");
        e->children.push_back(ParseExpr(kPrecLike + 1));
        left = std::move(e);
      } else if (w == "in") {
        ExpectPunct('(');
        if (IsKw("select") || IsKw("values") || IsKw("with") || IsKw("table")) {
          ExprPtr e = MakeExpr(ExprKind::kInSubquery, position);
          e->negated = negated;
          e->children.push_back(std::move(left));
          e->subquery = ParseQuery();
          ExpectPunct(')');
          left = std::move(e);
        } else {
          ExprPtr e = MakeExpr(ExprKind::kInList, position);
          e->negated = negated;
          e->children.push_back(std::move(left));
          for (ExprPtr& item : ParseExprList()) e->children.push_back(std::move(item));
          ExpectPunct(')');
          left = std::move(e);
        }
      } else if (w != "similar" && (IsKw("any") || IsKw("some") || IsKw("all"))) {
        // x [NOT] LIKE|ILIKE ANY|ALL (array or subquery): the operator forms.
        std::string op = std::string(negated ? "!" : "") + "~~" + (w == "ilike" ? "*" : "");
        left = ParseQuantified(std::move(op), "", std::move(left), position);
      } else {
        ExprPtr e = MakeExpr(w == "similar" ? ExprKind::kSimilar : ExprKind::kLike, position);
        if (w == "similar") ExpectKw("to");
        e->negated = negated;
        e->case_insensitive = w == "ilike";
        e->children.push_back(std::move(left));
        e->children.push_back(ParseExpr(kPrecEscape + 1));
        if (AcceptKw("escape")) e->children.push_back(ParseExpr(kPrecEscape + 1));
        left = std::move(e);
      }
    } else if (prec == kPrecAt) {
      ExpectKw("time");
      ExpectKw("zone");
      ExprPtr e = MakeExpr(ExprKind::kFunction, position);
      e->names = {"timezone"};
      e->children.push_back(ParseExpr(kPrecAt + 1));
      e->children.push_back(std::move(left));
      left = std::move(e);
    } else if (prec == kPrecCollate) {
      ParseQualifiedName();  // COLLATE is accepted and ignored
    } else {
      // Binary operator: t is the operator token, or OPERATOR ( [schema.] op ).
      std::string op = t.text;
      std::string op_schema;
      if (t.kind == TokenKind::kIdent) {
        ExpectPunct('(');
        while (IsColId() && IsPunct('.', 1)) {
          op_schema = Advance().text;
          ++pos_;
        }
        if (Peek().kind != TokenKind::kOp) ErrorAtCurrent();
        op = Advance().text;
        ExpectPunct(')');
      }
      if (prec == kPrecCompare) nonassoc = prec;
      if (IsKw("any") || IsKw("some") || IsKw("all")) {
        left = ParseQuantified(std::move(op), std::move(op_schema), std::move(left), position);
        continue;
      }
      ExprPtr right = ParseExpr(prec + 1);
      if (op == "~~" || op == "!~~" || op == "~~*" || op == "!~~*") {
        // The operator spellings of [NOT] LIKE / ILIKE.
        ExprPtr e = MakeExpr(ExprKind::kLike, position);
        e->negated = op[0] == '!';
        e->case_insensitive = op.back() == '*';
        e->children.push_back(std::move(left));
        e->children.push_back(std::move(right));
        left = std::move(e);
        continue;
      }
      left = Binary(std::move(op), std::move(left), std::move(right), position);
      left->op_schema = std::move(op_schema);
    }
  }
  return left;
}

}  // namespace forktail::sql
