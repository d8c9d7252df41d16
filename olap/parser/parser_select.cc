// Queries: WITH, set operations (UNION / EXCEPT bind looser than INTERSECT),
// SELECT cores, VALUES lists, and the ORDER BY / LIMIT / OFFSET / FETCH /
// FOR UPDATE tail that applies to a whole query.
#include "olap/parser/parser.h"
#include "storage/error.h"

namespace forktail::sql {
namespace {

// Words that end a select list (so `SELECT FROM t` has an empty one).
}  // namespace

// Whether the token at k cannot continue a select-list item.
bool Parser::EndsSelectItemAfter(size_t k) const {
  const Token& t = Peek(k);
  if (t.kind == TokenKind::kEnd || IsPunct(';', k) || IsPunct(',', k)) return true;
  static constexpr const char* kWords[] = {"from",      "where",  "group",  "having", "order",
                                           "limit",     "offset", "fetch",  "for",    "union",
                                           "intersect", "except", "window", "into",   "returning"};
  for (const char* w : kWords) {
    if (IsKw(w, k)) return true;
  }
  return false;
}

namespace {

bool EndsSelectList(const Parser& p) {
  if (p.AtStatementEnd() || p.IsPunct(')')) return true;
  static constexpr const char* kWords[] = {"from",      "where",  "group",  "having", "order",
                                           "limit",     "offset", "fetch",  "for",    "union",
                                           "intersect", "except", "window", "into"};
  for (const char* w : kWords) {
    if (p.IsKw(w)) return true;
  }
  return false;
}

}  // namespace

QueryPtr Parser::ParseQuery() {
  Nesting nesting(*this);
  bool saved_in_select_item = in_select_item_;
  in_select_item_ = false;
  std::vector<CommonTableExpr> with;
  bool recursive = false;
  if (IsKw("with")) with = ParseWith(recursive);
  QueryPtr q = ParseSetOperation(0);
  ParseQueryTail(*q);
  if (!with.empty()) {
    if (!q->with.empty()) ErrorMessage(Peek(), "multiple WITH clauses not allowed");
    q->with = std::move(with);
    q->recursive = recursive;
  }
  in_select_item_ = saved_in_select_item;
  return q;
}

QueryPtr Parser::ParseQueryAfterOperand(QueryPtr first) {
  QueryPtr q = ParseSetOperation(0, std::move(first));
  ParseQueryTail(*q);
  return q;
}

QueryPtr Parser::ParseSetOperation(int min_precedence, QueryPtr first) {
  Nesting nesting(*this);
  QueryPtr left = first ? std::move(first) : ParseSelectPrimary();
  while (true) {
    int prec = 0;
    SetOpKind kind = SetOpKind::kUnion;
    if (IsKw("union")) {
      prec = 1;
    } else if (IsKw("except")) {
      prec = 1;
      kind = SetOpKind::kExcept;
    } else if (IsKw("intersect")) {
      prec = 2;
      kind = SetOpKind::kIntersect;
    }
    if (prec == 0 || prec < min_precedence) break;
    nesting.Add();
    ++pos_;
    auto node = std::make_unique<Query>();
    node->kind = QueryKind::kSetOp;
    node->position = left->position;
    node->set_op = kind;
    if (AcceptKw("all")) {
      node->set_all = true;
    } else {
      AcceptKw("distinct");
    }
    node->left = std::move(left);
    node->right = ParseSetOperation(prec + 1);
    left = std::move(node);
  }
  return left;
}

QueryPtr Parser::ParseSelectPrimary() {
  if (AcceptPunct('(')) {
    QueryPtr q = ParseQuery();
    ExpectPunct(')');
    return q;
  }
  if (IsKw("select")) return ParseSelectCore();
  if (IsKw("values")) return ParseValues();
  if (IsKw("table")) {
    // TABLE t == SELECT * FROM t
    auto q = std::make_unique<Query>();
    q->position = Advance().position;
    SelectItem star;
    star.position = Peek().position;
    star.expr = MakeExpr(ExprKind::kStar, star.position);
    q->select_list.push_back(std::move(star));
    auto ref = std::make_unique<TableRef>();
    ref->position = Peek().position;
    ref->names = ParseQualifiedName();
    q->from.push_back(std::move(ref));
    return q;
  }
  ErrorAtCurrent();
}

QueryPtr Parser::ParseSelectCore() {
  auto q = std::make_unique<Query>();
  q->kind = QueryKind::kSelect;
  q->position = ExpectKw("select").position;
  if (AcceptKw("distinct")) {
    q->distinct = true;
    if (AcceptKw("on")) {
      ExpectPunct('(');
      q->distinct_on = ParseExprList();
      ExpectPunct(')');
    }
  } else {
    AcceptKw("all");
  }
  // SELECT DISTINCT needs a target list; plain SELECT may have none.
  q->select_list = ParseSelectList(/*allow_empty=*/!q->distinct);
  if (IsKw("into")) {  // INTO [TEMPORARY | TEMP | UNLOGGED] [TABLE] name
    ++pos_;
    if (AcceptKw("temporary") || AcceptKw("temp")) {
      q->into_temporary = true;
    } else {
      AcceptKw("unlogged");
    }
    AcceptKw("table");
    q->into_position = Peek().position;
    q->into = ParseQualifiedName();
  }
  if (AcceptKw("from")) q->from = ParseFromList();
  if (AcceptKw("where")) q->where = ParseExpr();
  if (AcceptKw("group")) {
    ExpectKw("by");
    ParseGroupBy(*q);
  }
  if (AcceptKw("having")) q->having = ParseExpr();
  if (AcceptKw("window")) {
    do {
      NamedWindow w;
      w.position = Peek().position;
      w.name = ParseColId();
      ExpectKw("as");
      if (!IsPunct('(')) ErrorAtCurrent();
      w.spec = ParseWindowSpec();
      q->windows.push_back(std::move(w));
    } while (AcceptPunct(','));
  }
  return q;
}

std::vector<SelectItem> Parser::ParseSelectList(bool allow_empty) {
  std::vector<SelectItem> items;
  if (allow_empty && EndsSelectList(*this)) return items;
  do {
    SelectItem item;
    const Token& t = Peek();
    item.position = t.position;
    if (IsOp("*")) {
      ++pos_;
      item.expr = MakeExpr(ExprKind::kStar, t.position);
    } else {
      bool saved_in_select_item = in_select_item_;
      in_select_item_ = true;
      item.expr = ParseExpr();
      in_select_item_ = saved_in_select_item;
      if (item.expr->kind != ExprKind::kStar) {
        const Token& a = Peek();
        if (AcceptKw("as")) {
          item.alias = ParseColLabel();
        } else if (a.kind == TokenKind::kQuotedIdent ||
                   (a.kind == TokenKind::kIdent && a.bare_label)) {
          item.alias = Advance().text;
        }
      }
    }
    items.push_back(std::move(item));
  } while (AcceptPunct(','));
  return items;
}

QueryPtr Parser::ParseValues() {
  auto q = std::make_unique<Query>();
  q->kind = QueryKind::kValues;
  q->position = ExpectKw("values").position;
  do {
    ExpectPunct('(');
    int first_position = Peek().position;
    std::vector<ExprPtr> row;
    do {
      if (IsKw("default")) {
        row.push_back(MakeExpr(ExprKind::kDefault, Advance().position));
      } else {
        row.push_back(ParseExpr());
      }
    } while (AcceptPunct(','));
    ExpectPunct(')');
    if (!q->values.empty() && row.size() != q->values[0].size()) {
      throw DbError(sqlstate::kSyntaxError, "VALUES lists must all be the same length",
                    first_position);
    }
    q->values.push_back(std::move(row));
  } while (AcceptPunct(','));
  return q;
}

void Parser::ParseQueryTail(Query& q) {
  // A parenthesized query may already carry ORDER BY / LIMIT / OFFSET: a
  // second one is PostgreSQL's "multiple ... clauses" error at the new
  // clause's expression; a repeated clause within this tail is a syntax error.
  if (AcceptKw("order")) {
    ExpectKw("by");
    std::vector<OrderItem> items = ParseOrderByList();
    if (!q.order_by.empty()) {
      throw DbError(sqlstate::kSyntaxError, "multiple ORDER BY clauses not allowed",
                    items[0].position);
    }
    q.order_by = std::move(items);
  }
  bool had_limit = q.limit != nullptr;
  bool had_offset = q.offset != nullptr;
  bool limit_seen = false;
  bool offset_seen = false;
  auto check = [](bool had, const ExprPtr& e, const char* message) {
    if (had && e) throw DbError(sqlstate::kSyntaxError, message, e->position);
  };
  while (true) {
    const Token& t = Peek();
    if (IsKw("limit")) {
      if (limit_seen) ErrorAt(t);
      ++pos_;
      limit_seen = true;
      ExprPtr limit;
      if (!AcceptKw("all")) limit = ParseExpr();
      if (IsPunct(',')) ErrorMessage(t, "LIMIT #,# syntax is not supported");
      check(had_limit, limit, "multiple LIMIT clauses not allowed");
      q.limit = std::move(limit);
    } else if (IsKw("offset")) {
      if (offset_seen) ErrorAt(t);
      ++pos_;
      offset_seen = true;
      ExprPtr offset = ParseExpr();
      check(had_offset, offset, "multiple OFFSET clauses not allowed");
      q.offset = std::move(offset);
      if (!AcceptKw("row")) AcceptKw("rows");
    } else if (IsKw("fetch")) {
      if (limit_seen) ErrorAt(t);
      ++pos_;
      limit_seen = true;
      if (!AcceptKw("first")) ExpectKw("next");
      if (IsKw("row") || IsKw("rows")) {
        q.limit = MakeLiteral(LiteralKind::kInteger, "1", Peek().position);
      } else {
        q.limit = ParseExpr(kPrecUnary);
      }
      check(had_limit, q.limit, "multiple LIMIT clauses not allowed");
      if (!AcceptKw("row")) ExpectKw("rows");
      if (!AcceptKw("only")) {
        ExpectKw("with");
        ExpectKw("ties");
      }
    } else if (IsKw("for")) {
      ++pos_;
      if (AcceptKw("update")) {
        q.locking = "update";
      } else if (AcceptKw("share")) {
        q.locking = "share";
      } else if (AcceptKw("no")) {
        ExpectKw("key");
        ExpectKw("update");
        q.locking = "no key update";
      } else {
        ExpectKw("key");
        ExpectKw("share");
        q.locking = "key share";
      }
      if (AcceptKw("of")) {
        do {
          q.locking_of.push_back(ParseQualifiedName());
        } while (AcceptPunct(','));
      }
      if (AcceptKw("nowait")) {
        q.locking_wait = "nowait";
      } else if (AcceptKw("skip")) {
        ExpectKw("locked");
        q.locking_wait = "skip locked";
      }
    } else {
      return;
    }
  }
}

std::vector<CommonTableExpr> Parser::ParseWith(bool& recursive) {
  ExpectKw("with");
  recursive = AcceptKw("recursive");
  std::vector<CommonTableExpr> ctes;
  do {
    CommonTableExpr cte;
    cte.position = Peek().position;
    cte.name = ParseColId();
    if (IsPunct('(')) cte.column_names = ParseColumnList();
    ExpectKw("as");
    if (AcceptKw("not")) {
      ExpectKw("materialized");
    } else {
      AcceptKw("materialized");
    }
    ExpectPunct('(');
    cte.query = ParseQuery();
    ExpectPunct(')');
    if (IsKw("search") || IsKw("cycle")) {
      NotSupportedAt(Peek(),
                     std::string(IsKw("search") ? "SEARCH" : "CYCLE") + " of WITH RECURSIVE");
    }
    ctes.push_back(std::move(cte));
  } while (AcceptPunct(','));
  return ctes;
}

void Parser::ParseGroupBy(Query& q) {
  if (!AcceptKw("all")) q.group_distinct = AcceptKw("distinct");
  do {
    GroupingElement item = ParseGroupingItem();
    // Plain expressions (and a parenthesized list of them, as in PostgreSQL)
    // are in every set.
    if (item.kind == GroupingElement::Kind::kList && !item.exprs.empty()) {
      for (ExprPtr& e : item.exprs) q.group_by.push_back(std::move(e));
    } else {
      q.grouping_sets.push_back(std::move(item));
    }
  } while (AcceptPunct(','));
}

GroupingElement Parser::ParseGroupingItem() {
  GroupingElement item;
  item.position = Peek().position;
  // An expression list element: `(a, b)` is one element, `(a) + 1` an
  // expression (a parenthesized row is told from ROW(..) by its position).
  auto parse_list = [this](GroupingElement& out) {
    const bool parenthesized = IsPunct('(');
    const int start = Peek().position;
    ExprPtr e = ParseExpr();
    if (parenthesized && e->kind == ExprKind::kRow && e->position == start) {
      out.exprs = std::move(e->children);
    } else {
      out.exprs.push_back(std::move(e));
    }
  };
  if (IsPunct('(') && IsPunct(')', 1)) {  // (): the empty set
    pos_ += 2;
    return item;
  }
  const bool rollup = IsKw("rollup") && IsPunct('(', 1);
  const bool cube = IsKw("cube") && IsPunct('(', 1);
  if (rollup || cube) {
    item.kind = rollup ? GroupingElement::Kind::kRollup : GroupingElement::Kind::kCube;
    pos_ += 2;
    do {
      GroupingElement element;
      element.position = Peek().position;
      parse_list(element);
      item.elements.push_back(std::move(element));
    } while (AcceptPunct(','));
    ExpectPunct(')');
    return item;
  }
  if (IsKw("grouping") && IsKw("sets", 1)) {
    item.kind = GroupingElement::Kind::kSets;
    pos_ += 2;
    ExpectPunct('(');
    do {
      item.elements.push_back(ParseGroupingItem());
    } while (AcceptPunct(','));
    ExpectPunct(')');
    return item;
  }
  parse_list(item);
  return item;
}

}  // namespace forktail::sql
