// ToString(const Statement&): the statement-level half of the AST printer
// (ast_printer.cc renders expressions, table references and queries).
#include <string>

#include "olap/parser/ast.h"

namespace forktail::sql {
namespace {

std::string Name(const QualifiedName& name) { return Join(name, "."); }

std::string Columns(const std::vector<std::string>& columns) {
  return columns.empty() ? "" : " (" + Join(columns, ", ") + ")";
}

std::string Options(const std::vector<Option>& options) {
  std::vector<std::string> parts;
  for (const Option& o : options) {
    parts.push_back(o.has_value ? o.name + " '" + o.value + "'" : o.name);
  }
  return "(" + Join(parts, ", ") + ")";
}

std::string Returning(const std::vector<SelectItem>& items) {
  if (items.empty()) return "";
  std::vector<std::string> parts;
  for (const SelectItem& item : items) {
    parts.push_back(ToString(*item.expr) + (item.alias.empty() ? "" : " AS " + item.alias));
  }
  return " RETURNING " + Join(parts, ", ");
}

std::string Constraint(const TableConstraint& c) {
  std::string s = c.name.empty() ? "" : "CONSTRAINT " + c.name + " ";
  switch (c.kind) {
    case ConstraintKind::kPrimaryKey:
      return s + "PRIMARY KEY" + Columns(c.columns);
    case ConstraintKind::kUnique:
      return s + "UNIQUE" + Columns(c.columns);
    case ConstraintKind::kCheck:
      return s + "CHECK (" + ToString(*c.check) + ")";
    case ConstraintKind::kForeignKey: {
      auto action = [](ReferentialAction a) {
        switch (a) {
          case ReferentialAction::kNoAction:
            return "NO ACTION";
          case ReferentialAction::kRestrict:
            return "RESTRICT";
          case ReferentialAction::kCascade:
            return "CASCADE";
          case ReferentialAction::kSetNull:
            return "SET NULL";
          case ReferentialAction::kSetDefault:
            return "SET DEFAULT";
        }
        return "";
      };
      s += "FOREIGN KEY" + Columns(c.columns) + " REFERENCES " + Name(c.ref_table) +
           Columns(c.ref_columns) + (c.match_full ? " MATCH FULL" : "");
      if (c.on_update != ReferentialAction::kNoAction) {
        s += std::string(" ON UPDATE ") + action(c.on_update);
      }
      if (c.on_delete != ReferentialAction::kNoAction) {
        s += std::string(" ON DELETE ") + action(c.on_delete) + Columns(c.delete_set_columns);
      }
      return s + (c.deferrable_position != 0 ? " DEFERRABLE" : "");
    }
  }
  return s;
}

std::string Column(const ColumnDef& c) {
  std::string s = c.name + " " + ToString(c.type);
  if (c.primary_key) {
    s += " PRIMARY KEY";
  } else if (c.not_null) {
    s += " NOT NULL";
  }
  if (c.null_seen) s += " NULL";
  if (c.unique) s += " UNIQUE";
  if (c.default_value) s += " DEFAULT " + ToString(*c.default_value);
  return s;
}

std::string AlterActionText(const AlterAction& a) {
  switch (a.kind) {
    case AlterKind::kAddConstraint:
      return "ADD " + Constraint(a.constraint);
    case AlterKind::kAddColumn:
      return std::string("ADD COLUMN ") + (a.if_exists ? "IF NOT EXISTS " : "") + Column(a.column);
    case AlterKind::kDropColumn:
      return std::string("DROP COLUMN ") + (a.if_exists ? "IF EXISTS " : "") + a.column_name +
             (a.cascade ? " CASCADE" : "");
    case AlterKind::kAlterColumnType:
      return "ALTER COLUMN " + a.column_name + " TYPE " + ToString(a.type) +
             (a.expr ? " USING " + ToString(*a.expr) : "");
    case AlterKind::kSetDefault:
      return "ALTER COLUMN " + a.column_name + " SET DEFAULT " + ToString(*a.expr);
    case AlterKind::kDropDefault:
      return "ALTER COLUMN " + a.column_name + " DROP DEFAULT";
    case AlterKind::kSetNotNull:
      return "ALTER COLUMN " + a.column_name + " SET NOT NULL";
    case AlterKind::kDropNotNull:
      return "ALTER COLUMN " + a.column_name + " DROP NOT NULL";
    case AlterKind::kRenameColumn:
      return "RENAME COLUMN " + a.column_name + " TO " + a.new_name;
    case AlterKind::kRenameTable:
      return "RENAME TO " + a.new_name;
    case AlterKind::kDropConstraint:
      return std::string("DROP CONSTRAINT ") + (a.if_exists ? "IF EXISTS " : "") + a.column_name +
             (a.cascade ? " CASCADE" : "");
  }
  return "";
}

std::string TransactionModes(const std::string& isolation, int read_only) {
  std::string s;
  if (!isolation.empty()) s += " ISOLATION LEVEL " + isolation;
  if (read_only == 1) s += " READ ONLY";
  if (read_only == 0) s += " READ WRITE";
  return s;
}

}  // namespace

std::string ToString(const Statement& st) {
  switch (st.kind) {
    case StatementKind::kSelect:
      return ToString(*st.query);
    case StatementKind::kInsert: {
      const InsertStmt& i = *st.insert;
      std::string s = "INSERT INTO " + Name(i.table);
      if (!i.alias.empty()) s += " AS " + i.alias;
      s += Columns(i.columns);
      s += i.source ? " " + ToString(*i.source) : " DEFAULT VALUES";
      if (const OnConflict* c = i.on_conflict.get()) {
        s += " ON CONFLICT";
        if (!c->constraint.empty()) s += " ON CONSTRAINT " + c->constraint;
        s += Columns(c->target_columns);
        if (!c->do_update) {
          s += " DO NOTHING";
        } else {
          std::vector<std::string> sets;
          for (const SetClause& set : c->set)
            sets.push_back(set.column + " = " + ToString(*set.value));
          s += " DO UPDATE SET " + Join(sets, ", ");
          if (c->where) s += " WHERE " + ToString(*c->where);
        }
      }
      return s + Returning(i.returning);
    }
    case StatementKind::kUpdate: {
      const UpdateStmt& u = *st.update;
      std::string s = "UPDATE " + Name(u.table) + (u.alias.empty() ? "" : " AS " + u.alias);
      std::vector<std::string> sets;
      for (const SetClause& c : u.set) sets.push_back(c.column + " = " + ToString(*c.value));
      s += " SET " + Join(sets, ", ");
      if (!u.from.empty()) {
        std::vector<std::string> from;
        for (const TableRefPtr& r : u.from) from.push_back(ToString(*r));
        s += " FROM " + Join(from, ", ");
      }
      if (u.where) s += " WHERE " + ToString(*u.where);
      return s + Returning(u.returning);
    }
    case StatementKind::kDelete: {
      const DeleteStmt& d = *st.del;
      std::string s = "DELETE FROM " + Name(d.table) + (d.alias.empty() ? "" : " AS " + d.alias);
      if (!d.using_tables.empty()) {
        std::vector<std::string> from;
        for (const TableRefPtr& r : d.using_tables) from.push_back(ToString(*r));
        s += " USING " + Join(from, ", ");
      }
      if (d.where) s += " WHERE " + ToString(*d.where);
      return s + Returning(d.returning);
    }
    case StatementKind::kCreateTable: {
      const CreateTableStmt& c = *st.create_table;
      std::string s = std::string("CREATE ") + (c.temporary ? "TEMPORARY " : "") + "TABLE " +
                      (c.if_not_exists ? "IF NOT EXISTS " : "") + Name(c.table);
      if (c.as_query) return s + " AS " + ToString(*c.as_query);
      std::vector<std::string> elements;
      for (const ColumnDef& col : c.columns) elements.push_back(Column(col));
      for (const TableConstraint& con : c.constraints) elements.push_back(Constraint(con));
      s += " (" + Join(elements, ", ") + ")";
      if (!c.options.empty()) s += " WITH " + Options(c.options);
      return s;
    }
    case StatementKind::kDropTable: {
      const DropStmt& d = *st.drop;
      std::vector<std::string> names;
      for (const QualifiedName& n : d.names) names.push_back(Name(n));
      return std::string("DROP ") +
             (d.object == "index"  ? "INDEX "
              : d.object == "view" ? "VIEW "
                                   : "TABLE ") +
             (d.if_exists ? "IF EXISTS " : "") + Join(names, ", ") + (d.cascade ? " CASCADE" : "");
    }
    case StatementKind::kCreateView: {
      const CreateViewStmt& v = *st.create_view;
      return std::string("CREATE ") + (v.or_replace ? "OR REPLACE " : "") + "VIEW " + Name(v.name) +
             (v.column_names.empty() ? "" : " (" + Join(v.column_names, ", ") + ")") + " AS " +
             ToString(*v.query);
    }
    case StatementKind::kCreateIndex: {
      const CreateIndexStmt& i = *st.create_index;
      std::vector<std::string> keys;
      for (const OrderItem& k : i.keys) {
        keys.push_back(ToString(*k.expr) + (k.direction == SortDirection::kDesc ? " DESC" : ""));
      }
      std::string s = std::string("CREATE ") + (i.unique ? "UNIQUE " : "") + "INDEX " +
                      (i.if_not_exists ? "IF NOT EXISTS " : "") +
                      (i.name.empty() ? "" : i.name + " ") + "ON " + Name(i.table) +
                      (i.method.empty() ? "" : " USING " + i.method) + " (" + Join(keys, ", ") +
                      ")";
      if (i.where) s += " WHERE " + ToString(*i.where);
      return s;
    }
    case StatementKind::kAlterTable: {
      const AlterTableStmt& a = *st.alter_table;
      std::vector<std::string> actions;
      for (const AlterAction& action : a.actions) actions.push_back(AlterActionText(action));
      return "ALTER TABLE " + std::string(a.if_exists ? "IF EXISTS " : "") + Name(a.table) + " " +
             Join(actions, ", ");
    }
    case StatementKind::kTruncate: {
      std::vector<std::string> names;
      for (const QualifiedName& n : st.truncate->tables) names.push_back(Name(n));
      return "TRUNCATE " + Join(names, ", ") + (st.truncate->cascade ? " CASCADE" : "");
    }
    case StatementKind::kTransaction: {
      const TransactionStmt& t = *st.transaction;
      if (t.kind == TransactionKind::kBegin) {
        return "BEGIN" + TransactionModes(t.isolation_level, t.read_only);
      }
      return std::string(t.kind == TransactionKind::kCommit ? "COMMIT" : "ROLLBACK") +
             (t.chain ? " AND CHAIN" : "");
    }
    case StatementKind::kSet: {
      const SetStmt& s = *st.set;
      std::string out = std::string("SET ") + (s.local ? "LOCAL " : "") + s.name;
      if (s.is_default) return out + " = DEFAULT";
      std::vector<std::string> values;
      for (const std::string& v : s.values) values.push_back("'" + v + "'");
      if (!values.empty()) out += " = " + Join(values, ", ");
      if (s.read_only == 1) out += " READ ONLY";
      if (s.read_only == 0) out += " READ WRITE";
      return out;
    }
    case StatementKind::kShow:
      return "SHOW " + st.show->name;
    case StatementKind::kReset:
      return "RESET " + st.reset->name;
    case StatementKind::kVacuum: {
      const VacuumStmt& v = *st.vacuum;
      std::string s = v.vacuum ? "VACUUM" : "ANALYZE";
      if (v.full) s += " FULL";
      if (v.verbose) s += " VERBOSE";
      if (v.vacuum && v.analyze) s += " ANALYZE";
      std::vector<std::string> names;
      for (const QualifiedName& n : v.tables) names.push_back(Name(n));
      if (!names.empty()) s += " " + Join(names, ", ");
      return s;
    }
    case StatementKind::kCopy: {
      const CopyStmt& c = *st.copy;
      std::string s = "COPY " + (c.query ? "(" + ToString(*c.query->query) + ")" : Name(c.table)) +
                      Columns(c.columns) + (c.from ? " FROM " : " TO ");
      s += c.std_stream ? (c.from ? "STDIN" : "STDOUT") : "'" + c.file + "'";
      if (!c.options.empty()) s += " " + Options(c.options);
      return s;
    }
    case StatementKind::kExplain: {
      const ExplainStmt& e = *st.explain;
      std::string s = "EXPLAIN";
      if (!e.options.empty()) {
        s += " " + Options(e.options);
      } else {
        if (e.analyze) s += " ANALYZE";
        if (e.verbose) s += " VERBOSE";
      }
      return s + " " + ToString(*e.statement);
    }
    case StatementKind::kDiscard:
      return "DISCARD " + st.discard->what;
    case StatementKind::kDeallocate:
      return st.deallocate->all ? "DEALLOCATE ALL" : "DEALLOCATE " + st.deallocate->name;
    case StatementKind::kDeclare: {
      const DeclareStmt& d = *st.declare;
      std::string s = "DECLARE " + d.name;
      if (d.binary) s += " BINARY";
      if (d.insensitive) s += " INSENSITIVE";
      if (d.scroll >= 0) s += d.scroll ? " SCROLL" : " NO SCROLL";
      s += " CURSOR";
      if (d.hold) s += " WITH HOLD";
      return s + " FOR " + ToString(*d.query->query);
    }
    case StatementKind::kFetch: {
      const FetchStmt& f = *st.fetch;
      static constexpr const char* kDirections[] = {"FORWARD", "BACKWARD", "ABSOLUTE", "RELATIVE"};
      std::string s = std::string(f.move ? "MOVE " : "FETCH ") +
                      kDirections[static_cast<int>(f.direction)] + " ";
      s += f.count == kFetchAll ? "ALL" : std::to_string(f.count);
      return s + " FROM " + f.name;
    }
    case StatementKind::kClose:
      return st.close->all ? "CLOSE ALL" : "CLOSE " + st.close->name;
  }
  return "?";
}

}  // namespace forktail::sql
