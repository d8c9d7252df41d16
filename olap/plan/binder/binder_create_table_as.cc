// CREATE TABLE t [(names)] AS query [WITH [NO] DATA] and SELECT .. INTO t:
// the new table's columns are the query's (its names, or the names given
// for the first ones) with the query's types, as in PostgreSQL; the plan
// gives its rows in those types. A DECIMAL column is DECIMAL(18, s) with
// the query's scale s: PostgreSQL makes an unconstrained numeric of an
// expression (1.5 is not numeric(2,1) there), and 18 digits is the most a
// table column holds (sum() of a DECIMAL is DECIMAL(38, s): a sum that does
// not fit fails the statement with 22003, it never rounds).
#include <algorithm>

#include "olap/plan/binder/binder_internal.h"

namespace forktail {

BoundStatement Binder::BindCreateTableAs(const sql::CreateTableStmt& s) {
  BoundStatement out;
  out.kind = BoundStatementKind::kCreateTable;
  out.if_not_exists = s.if_not_exists;
  out.schema.name = s.table.back();
  BoundQuery bq = BindQuery(*s.as_query, nullptr);
  if (s.as_column_names.size() > bq.columns.size()) {
    throw DbError(sqlstate::kSyntaxError, "too many column names were specified");
  }
  std::vector<LogicalColumn> columns;
  std::vector<ExprPtr> values;
  for (size_t i = 0; i < bq.columns.size(); i++) {
    const LogicalColumn& c = bq.columns[i];
    ColumnDef def;
    def.name = i < s.as_column_names.size() ? s.as_column_names[i] : c.name;
    if (out.schema.FindColumn(def.name)) {
      throw DbError(sqlstate::kDuplicateColumn,
                    "column \"" + def.name + "\" specified more than once");
    }
    def.type = c.type;
    if (def.type.id == TypeId::kDecimal) {
      def.type = Type::Decimal(kMaxNarrowDecimalPrecision,
                               std::min<int>(def.type.scale, kMaxNarrowDecimalPrecision));
    }
    ExprPtr value = ColumnRef(c.id, c.type);
    if (!(def.type == c.type)) value = Cast(std::move(value), def.type);
    columns.push_back({NewId(), def.name, def.type});
    values.push_back(std::move(value));
    out.schema.columns.push_back(std::move(def));
  }
  out.plan = MakeProject(std::move(bq.plan), std::move(columns), std::move(values));
  return out;
}

}  // namespace forktail
