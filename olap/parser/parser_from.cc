// FROM items: tables, subqueries, table functions, and joins (left-deep, in
// the order written). Comma-separated items stay separate entries of
// Query::from.
#include "olap/parser/parser.h"
#include "storage/error.h"

namespace forktail::sql {

std::vector<TableRefPtr> Parser::ParseFromList() {
  std::vector<TableRefPtr> items;
  do {
    items.push_back(ParseTableRef());
  } while (AcceptPunct(','));
  return items;
}

TableRefPtr Parser::ParseTableRef() {
  Nesting nesting(*this);
  TableRefPtr left = ParseTablePrimary();
  while (true) {
    nesting.Add();
    const Token& t = Peek();
    JoinKind kind = JoinKind::kInner;
    bool natural = false;
    if (IsKw("cross") && IsKw("join", 1)) {
      pos_ += 2;
      kind = JoinKind::kCross;
    } else {
      size_t start = pos_;
      natural = AcceptKw("natural");
      if (AcceptKw("inner")) {
        kind = JoinKind::kInner;
      } else if (AcceptKw("left")) {
        kind = JoinKind::kLeft;
        AcceptKw("outer");
      } else if (AcceptKw("right")) {
        kind = JoinKind::kRight;
        AcceptKw("outer");
      } else if (AcceptKw("full")) {
        kind = JoinKind::kFull;
        AcceptKw("outer");
      }
      if (pos_ == start && !IsKw("join")) return left;
      ExpectKw("join");
    }
    auto join = std::make_unique<TableRef>();
    join->kind = TableRefKind::kJoin;
    join->position = t.position;
    join->join_kind = kind;
    join->natural = natural;
    join->left = std::move(left);
    join->right = ParseTablePrimary();
    if (kind != JoinKind::kCross && !natural) {
      if (AcceptKw("on")) {
        join->on = ParseExpr();
      } else if (AcceptKw("using")) {
        join->using_columns = ParseColumnList();
      } else {
        ErrorAtCurrent();
      }
    }
    left = std::move(join);
  }
}

TableRefPtr Parser::ParseTablePrimary() {
  auto ref = std::make_unique<TableRef>();
  const Token& start = Peek();
  ref->position = start.position;
  ref->lateral = AcceptKw("lateral");
  if (IsPunct('(')) {
    const Token& open = Peek();
    if (StartsQuery(1)) {
      ++pos_;
      ref->kind = TableRefKind::kSubquery;
      ref->subquery = ParseQuery();
      ExpectPunct(')');
      ParseAlias(*ref, /*required=*/false);
      if (ref->alias.empty()) {
        // PostgreSQL 15 requires it (16 made it optional).
        throw DbError(sqlstate::kSyntaxError, "subquery in FROM must have an alias", open.position);
      }
      return ref;
    }
    ++pos_;
    TableRefPtr inner = ParseTableRef();
    ExpectPunct(')');
    ParseAlias(*inner, /*required=*/false);
    return inner;
  }
  AcceptKw("only");
  ref->names = ParseQualifiedName();
  if (IsPunct('(')) {
    ref->kind = TableRefKind::kFunction;
    ExprPtr fn = MakeExpr(ExprKind::kFunction, start.position);
    fn->names = std::move(ref->names);
    ref->names.clear();
    ref->function = ParseFunctionArgs(std::move(fn));
    if (IsKw("with") && IsKw("ordinality", 1)) {
      pos_ += 2;
      ref->with_ordinality = true;
    }
  } else {
    AcceptOp("*");  // inheritance marker: t * means t
  }
  ParseAlias(*ref, /*required=*/false);
  if (ref->kind == TableRefKind::kTable && AcceptKw("tablesample")) {
    auto sample = std::make_unique<TableSample>();
    sample->position = Peek().position;
    sample->method = ParseColId();
    ExpectPunct('(');
    do {
      sample->arguments.push_back(ParseExpr());
    } while (AcceptPunct(','));
    ExpectPunct(')');
    if (AcceptKw("repeatable")) {
      ExpectPunct('(');
      sample->repeatable = ParseExpr();
      ExpectPunct(')');
    }
    ref->sample = std::move(sample);
  }
  return ref;
}

// [AS] alias [(column, ...)]. Without AS the alias must be a ColId, so
// keywords that continue the FROM clause (JOIN, LEFT, WHERE, ...) are never
// taken for one.
void Parser::ParseAlias(TableRef& ref, bool required) {
  const bool function = ref.kind == TableRefKind::kFunction;
  if (AcceptKw("as")) {
    // A function's column definition list may come without an alias.
    if (!(function && IsPunct('('))) ref.alias = ParseColId();
  } else if (IsColId()) {
    ref.alias = ParseColId();
  } else {
    if (required) ErrorAtCurrent();
    return;
  }
  if (!IsPunct('(')) return;
  if (!function || IsPunct(',', 2) || IsPunct(')', 2)) {
    ref.column_aliases = ParseColumnList();
    return;
  }
  ExpectPunct('(');  // (name type, ...): every column has its type
  do {
    ref.column_aliases.push_back(ParseColId());
    ref.column_types.push_back(ParseTypeName());
  } while (AcceptPunct(','));
  ExpectPunct(')');
}

}  // namespace forktail::sql
