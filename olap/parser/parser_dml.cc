// INSERT, UPDATE and DELETE.
#include "olap/parser/parser.h"

namespace forktail::sql {

std::vector<SelectItem> Parser::ParseReturning() {
  if (!AcceptKw("returning")) return {};
  return ParseSelectList(/*allow_empty=*/false);
}

StatementPtr Parser::ParseInsert() {
  ExpectKw("insert");
  ExpectKw("into");
  auto insert = std::make_unique<InsertStmt>();
  insert->table_position = Peek().position;
  insert->table = ParseQualifiedName();
  if (AcceptKw("as")) insert->alias = ParseColId();
  if (IsPunct('(') && !StartsQuery(1)) insert->columns = ParseColumnList();
  if (IsKw("default") && IsKw("values", 1)) {
    pos_ += 2;
  } else {
    insert->source = ParseQuery();
  }
  if (IsKw("on") && IsKw("conflict", 1)) insert->on_conflict = ParseOnConflict();
  insert->returning = ParseReturning();
  auto stmt = std::make_unique<Statement>();
  stmt->kind = StatementKind::kInsert;
  stmt->insert = std::move(insert);
  return stmt;
}

std::vector<SetClause> Parser::ParseSetClauses() {
  std::vector<SetClause> set;
  do {
    if (IsPunct('(')) {
      // (a, b) = (x, y): one SetClause per column.
      std::vector<int> positions;
      std::vector<std::string> columns;
      ++pos_;
      do {
        positions.push_back(Peek().position);
        columns.push_back(ParseColId());
      } while (AcceptPunct(','));
      ExpectPunct(')');
      ExpectOp("=");
      const Token& rhs = Peek();
      ExprPtr value = ParseExpr();
      if (value->kind != ExprKind::kRow || value->children.size() != columns.size()) {
        ErrorMessage(rhs, "number of columns does not match number of values");
      }
      for (size_t i = 0; i < columns.size(); ++i) {
        SetClause clause;
        clause.column = std::move(columns[i]);
        clause.position = positions[i];
        clause.value = std::move(value->children[i]);
        set.push_back(std::move(clause));
      }
      continue;
    }
    SetClause clause;
    clause.position = Peek().position;
    clause.column = ParseColId();
    ExpectOp("=");
    if (IsKw("default")) {
      clause.value = MakeExpr(ExprKind::kDefault, Advance().position);
    } else {
      clause.value = ParseExpr();
    }
    set.push_back(std::move(clause));
  } while (AcceptPunct(','));
  return set;
}

std::unique_ptr<OnConflict> Parser::ParseOnConflict() {
  auto c = std::make_unique<OnConflict>();
  c->position = Peek().position;
  ExpectKw("on");
  ExpectKw("conflict");
  if (AcceptKw("on")) {
    ExpectKw("constraint");
    c->constraint = ParseColId();
  } else if (IsPunct('(')) {
    const int list = Advance().position;  // PostgreSQL reports the list's position
    do {
      c->target_positions.push_back(list);
      c->target_columns.push_back(ParseColId());
    } while (AcceptPunct(','));
    ExpectPunct(')');
    if (AcceptKw("where")) c->target_where = ParseExpr();
  }
  ExpectKw("do");
  if (AcceptKw("nothing")) return c;
  ExpectKw("update");
  ExpectKw("set");
  c->do_update = true;
  c->set = ParseSetClauses();
  if (AcceptKw("where")) c->where = ParseExpr();
  return c;
}

// UPDATE / DELETE ... WHERE: a condition, or WHERE CURRENT OF cursor, which
// Forktail does not have (its cursors hold materialized rows, not positions
// in a table).
ExprPtr Parser::ParseWhereNotCurrentOf() {
  if (IsKw("current") && IsKw("of", 1)) NotSupportedAt(Peek(), "WHERE CURRENT OF");
  return ParseExpr();
}

StatementPtr Parser::ParseUpdate() {
  ExpectKw("update");
  auto update = std::make_unique<UpdateStmt>();
  AcceptKw("only");
  update->table_position = Peek().position;
  update->table = ParseQualifiedName();
  if (AcceptKw("as")) {
    update->alias = ParseColId();
  } else if (IsColId() && !IsKw("set")) {
    update->alias = ParseColId();
  }
  ExpectKw("set");
  update->set = ParseSetClauses();
  if (AcceptKw("from")) update->from = ParseFromList();
  if (AcceptKw("where")) update->where = ParseWhereNotCurrentOf();
  update->returning = ParseReturning();
  auto stmt = std::make_unique<Statement>();
  stmt->kind = StatementKind::kUpdate;
  stmt->update = std::move(update);
  return stmt;
}

StatementPtr Parser::ParseDelete() {
  ExpectKw("delete");
  ExpectKw("from");
  auto del = std::make_unique<DeleteStmt>();
  AcceptKw("only");
  del->table_position = Peek().position;
  del->table = ParseQualifiedName();
  if (AcceptKw("as")) {
    del->alias = ParseColId();
  } else if (IsColId()) {
    del->alias = ParseColId();
  }
  if (AcceptKw("using")) del->using_tables = ParseFromList();
  if (AcceptKw("where")) del->where = ParseWhereNotCurrentOf();
  del->returning = ParseReturning();
  auto stmt = std::make_unique<Statement>();
  stmt->kind = StatementKind::kDelete;
  stmt->del = std::move(del);
  return stmt;
}

}  // namespace forktail::sql
