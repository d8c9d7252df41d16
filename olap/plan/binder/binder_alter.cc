// ALTER TABLE's binding (binder.h): added columns, SET DEFAULT, CHECK texts,
// what a view reads, and the assignment-cast rule for ALTER COLUMN TYPE.
// Storage keeps DEFAULTs, CHECKs and views as SQL text, so a column rename
// rewrites the CHECK texts that name the column, and whether a view depends
// on a column is found by binding the view against the changed schemas.
#include <algorithm>

#include "olap/parser/parser.h"
#include "olap/plan/binder/binder.h"
#include "olap/plan/binder/binder_internal.h"
#include "olap/plan/binder/sequence_functions.h"

namespace forktail {
namespace {

// A stored expression (a CHECK's text) parsed back.
sql::StatementPtr ParseStored(const std::string& text, const std::string& what) {
  std::vector<sql::StatementPtr> parsed = sql::Parser("SELECT " + text).ParseAll();
  if (parsed.size() != 1 || !parsed[0]->query || parsed[0]->query->select_list.size() != 1) {
    throw DbError(sqlstate::kInternalError, "stored " + what + " does not parse");
  }
  return std::move(parsed[0]);
}

void RenameColumnRefs(sql::Expr& e, const std::string& from, const std::string& to) {
  if (e.kind == sql::ExprKind::kColumnRef && !e.names.empty() && e.names.back() == from) {
    e.names.back() = to;
  }
  sql::ForEachSubExpr(e, [&](sql::Expr& c) { RenameColumnRefs(c, from, to); });
}

}  // namespace

ColumnDef BindAddedColumn(const sql::ColumnDef& column, const std::string& table,
                          const Catalog& catalog, std::vector<Sequence>* sequences) {
  const BindOptions options{};
  Binder binder(catalog, options);
  return binder.BindColumnDef(column, table, sequences);
}

std::string BindDefaultText(const sql::Expr& e, const ColumnDef& column, const Catalog& catalog) {
  const BindOptions options{};
  Binder binder(catalog, options);
  binder.BindDefault(e, column);  // its errors now, not at the first INSERT
  return StoredDefaultText(e, catalog);
}

std::string BindCheckText(const sql::Expr& e, const TableSchema& schema) {
  Catalog none;
  const BindOptions options{};
  Binder binder(none, options);
  binder.BindCheck(e, schema);
  return sql::ToString(e);
}

std::vector<std::string> CheckColumnNames(const CheckDef& check) {
  sql::StatementPtr parsed = ParseStored(check.sql, "check constraint \"" + check.name + "\"");
  std::vector<std::string> names;
  ColumnNamesIn(*parsed->query->select_list[0].expr, &names);
  return names;
}

std::string RenameColumnInCheck(const CheckDef& check, const std::string& from,
                                const std::string& to) {
  sql::StatementPtr parsed = ParseStored(check.sql, "check constraint \"" + check.name + "\"");
  sql::Expr& e = *parsed->query->select_list[0].expr;
  RenameColumnRefs(e, from, to);
  return sql::ToString(e);
}

std::vector<std::pair<std::string, Type>> BindViewColumns(const ViewDef& view,
                                                          const Catalog& catalog) {
  std::vector<sql::StatementPtr> parsed = sql::Parser(view.sql).ParseAll();
  if (parsed.size() != 1 || !parsed[0]->query) {
    throw DbError(sqlstate::kInternalError,
                  "stored query of view \"" + view.name + "\" does not parse");
  }
  const BindOptions options{};
  Binder binder(catalog, options);
  BoundQuery bq = binder.BindQuery(*parsed[0]->query, nullptr);
  std::vector<std::pair<std::string, Type>> out;
  for (const LogicalColumn& c : bq.columns) out.emplace_back(c.name, c.type);
  return out;
}

}  // namespace forktail
