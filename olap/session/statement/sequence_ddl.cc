// WriteExecutor's sequence statements (write_executor.h), as PostgreSQL 15
// answers them:
//
//   CREATE SEQUENCE [IF NOT EXISTS] s [options]   Transaction::CreateSequence;
//       options as CREATE SEQUENCE takes them (sequence.h's rules), OWNED BY
//       table.column | NONE; TEMPORARY and UNLOGGED: 0A000.
//   ALTER SEQUENCE [IF EXISTS] s options | RENAME TO n
//       Transaction::AlterSequence (transactional, as PostgreSQL's ALTER
//       SEQUENCE); a rename follows into the column DEFAULTs that name it
//       (storage keeps names where PostgreSQL keeps OIDs), and is refused
//       (0A000) while a view reads it (views are stored as text).
//   DROP SEQUENCE [IF EXISTS] a, b [CASCADE]
//       what depends on a sequence (column DEFAULTs that call it, views that
//       read it) makes it 2BP01 with PostgreSQL's DETAIL, or goes with it
//       under CASCADE (DEFAULTs dropped, views dropped); an identity column's
//       sequence goes only with its column.
// A sequence OWNED BY a column goes with the column or its table
// (DropOwnedSequences: DROP TABLE, ALTER TABLE DROP COLUMN).
#include <algorithm>
#include <functional>

#include "olap/parser/ast.h"
#include "olap/plan/binder/sequence_functions.h"
#include "olap/session/statement/write_executor.h"

namespace forktail {
namespace {

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

// 42809 for a relation that is not a sequence, with PostgreSQL's hint for
// DROP.
[[noreturn]] void NotASequence(const Catalog& catalog, const std::string& name, bool drop,
                               int position) {
  DbError error(sqlstate::kWrongObjectType, Quoted(name) + " is not a sequence", position);
  if (drop) {
    if (catalog.FindTable(name) != nullptr) error.WithHint("Use DROP TABLE to remove a table.");
    if (catalog.FindView(name) != nullptr) error.WithHint("Use DROP VIEW to remove a view.");
    if (catalog.FindIndex(name)) error.WithHint("Use DROP INDEX to remove an index.");
  }
  throw error;
}

bool IsRelation(const Catalog& catalog, const std::string& name) {
  return catalog.FindTable(name) != nullptr || catalog.FindView(name) != nullptr ||
         catalog.FindIndex(name).has_value() || catalog.FindSequence(name) != nullptr;
}

// One column DEFAULT that calls a sequence.
struct DefaultUse {
  std::string table;
  size_t column;
  std::string column_name;
};

// The column DEFAULTs that call `sequence`, in table and column order,
// except those of `skip_table` (its column `skip_column`, or every column
// when that is empty): what goes with the sequence's owner anyway.
std::vector<DefaultUse> DefaultsUsing(const Catalog& catalog, const std::string& sequence,
                                      const std::string& skip_table,
                                      const std::string& skip_column) {
  std::vector<DefaultUse> out;
  for (TableId id : catalog.ListTables()) {
    const TableSchema& schema = catalog.GetTable(id).schema();
    for (size_t c = 0; c < schema.columns.size(); c++) {
      const ColumnDef& column = schema.columns[c];
      if (schema.name == skip_table && (skip_column.empty() || column.name == skip_column)) {
        continue;
      }
      if (DefaultUsesSequence(column.default_sql, sequence)) {
        out.push_back({schema.name, c, column.name});
      }
    }
  }
  return out;
}

}  // namespace

StatementResult WriteExecutor::CreateSequence(const sql::Statement& statement) {
  const sql::CreateSequenceStmt& create = *statement.create_sequence;
  if (create.temporary) {
    throw DbError(sqlstate::kFeatureNotSupported, "temporary sequences are not supported",
                  statement.position);
  }
  if (create.unlogged) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  "unlogged sequences are not supported: every sequence is logged",
                  statement.position);
  }
  const std::string name = TableNameOf(create.name, statement.position);
  StatementResult result;
  result.command_tag = "CREATE SEQUENCE";
  const Catalog& catalog = *context_.catalog;
  if (create.if_not_exists && IsRelation(catalog, name)) {
    result.notices.push_back("relation " + Quoted(name) + " already exists, skipping");
    return result;
  }
  BoundSequenceOptions bound = BindSequenceOptions(create.options, SequenceOptionsOf::kCreate);
  Sequence sequence;
  ApplySequenceOptions(bound.options, /*init=*/true, /*for_identity=*/false, &sequence.def,
                       &sequence.state);
  sequence.def.name = name;
  if (bound.owned_by_given) {
    std::tie(sequence.def.owner_table, sequence.def.owner_column) =
        ResolveOwnedBy(bound.owned_by, catalog);
  }
  txn_.CreateSequence(std::move(sequence.def), sequence.state);  // 42P07 if the name is taken
  return result;
}

StatementResult WriteExecutor::AlterSequence(const sql::Statement& statement) {
  const sql::AlterSequenceStmt& alter = *statement.alter_sequence;
  const std::string name = TableNameOf(alter.name, statement.position);
  StatementResult result;
  result.command_tag = "ALTER SEQUENCE";
  const Catalog& catalog = *context_.catalog;
  const Sequence* found = catalog.FindSequence(name);
  if (found == nullptr) {
    if (IsRelation(catalog, name)) NotASequence(catalog, name, false, 0);
    if (alter.if_exists) {
      result.notices.push_back("relation " + Quoted(name) + " does not exist, skipping");
      return result;
    }
    throw DbError(sqlstate::kUndefinedTable, "relation " + Quoted(name) + " does not exist");
  }
  const Sequence sequence = *found;
  SequenceDef def = sequence.def;
  SequenceState state = sequence.state;
  if (!alter.new_name.empty()) {
    std::vector<std::string> views = catalog.DependentViews(name);
    if (!views.empty()) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    "cannot rename sequence " + Quoted(name) + ": view " + views.front() +
                        " reads it (renaming a sequence that a view reads is not supported)");
    }
    def.name = alter.new_name;
    txn_.AlterSequence(sequence.id, def, state);  // 42P07 if the name is taken
    // Column DEFAULTs name it: they follow (PostgreSQL's hold its OID).
    for (const DefaultUse& use : DefaultsUsing(catalog, name, "", "")) {
      TableSchema schema = txn_.GetTable(use.table).schema();
      ColumnDef& column = schema.columns[use.column];
      column.default_sql = RenameSequenceInDefault(column.default_sql, name, alter.new_name);
      txn_.ReplaceSchema(use.table, std::move(schema));
    }
    return result;
  }
  BoundSequenceOptions bound = BindSequenceOptions(alter.options, SequenceOptionsOf::kAlter);
  ApplySequenceOptions(bound.options, /*init=*/false, /*for_identity=*/def.identity, &def, &state);
  if (bound.owned_by_given) {
    if (def.identity) {
      const std::string table = catalog.GetTable(def.owner_table).schema().name;
      throw DbError(sqlstate::kFeatureNotSupported,
                    "cannot change ownership of identity sequence\nDETAIL:  Sequence " +
                        Quoted(name) + " is linked to table " + Quoted(table) + ".");
    }
    std::tie(def.owner_table, def.owner_column) = ResolveOwnedBy(bound.owned_by, catalog);
  }
  txn_.AlterSequence(sequence.id, std::move(def), state);
  return result;
}

void WriteExecutor::DropSequenceWithDependents(TableId id, bool cascade, StatementResult* result,
                                               const std::string& skip_table,
                                               const std::string& skip_column) {
  const Catalog& catalog = *context_.catalog;
  const std::string name = catalog.GetSequence(id)->def.name;
  std::vector<DefaultUse> defaults = DefaultsUsing(catalog, name, skip_table, skip_column);
  // What depends on it, as PostgreSQL lists it: DEFAULTs, then the views
  // that read it and, after each, those that read that view.
  std::vector<std::string> depends;  // "<object> depends on <object>"
  std::vector<std::string> objects;  // "<object>"
  for (const DefaultUse& use : defaults) {
    objects.push_back("default value for column " + use.column_name + " of table " + use.table);
    depends.push_back(objects.back() + " depends on sequence " + name);
  }
  const std::vector<Dependent> views = RelationDependents(name, "sequence", {});
  for (const Dependent& d : views) {
    objects.push_back(d.description);
    depends.push_back(d.description + " depends on " + d.depends_on);
  }
  if (!objects.empty()) {
    if (!cascade) {
      std::string detail;
      for (const std::string& d : depends) detail += (detail.empty() ? "" : "\n") + d;
      const std::string what = skip_table.empty() ? "sequence " + name
                               : skip_column.empty()
                                   ? "table " + skip_table
                                   : "column " + skip_column + " of table " + skip_table;
      throw DbError("2BP01", "cannot drop " + what +
                                 " because other objects depend on it\nDETAIL:  " + detail)
          .WithHint("Use DROP ... CASCADE to drop the dependent objects too.");
    }
    if (objects.size() == 1) {
      result->notices.push_back("drop cascades to " + objects[0]);
    } else {
      std::string detail;
      for (const std::string& o : objects) {
        detail += (detail.empty() ? "" : "\n") + ("drop cascades to " + o);
      }
      result->notices.push_back("drop cascades to " + std::to_string(objects.size()) +
                                " other objects\nDETAIL:  " + detail);
    }
    for (const DefaultUse& use : defaults) {
      TableSchema schema = txn_.GetTable(use.table).schema();
      schema.columns[use.column].default_sql.clear();
      txn_.ReplaceSchema(use.table, std::move(schema));
    }
    for (const Dependent& d : views) {
      if (catalog.FindView(d.view) != nullptr) txn_.DropView(d.view);
    }
  }
  txn_.DropSequence(id);
}

void WriteExecutor::DropSequence(const std::string& name, bool if_exists, bool cascade,
                                 int position, StatementResult* result) {
  const Catalog& catalog = *context_.catalog;
  const Sequence* sequence = catalog.FindSequence(name);
  if (sequence == nullptr) {
    if (IsRelation(catalog, name)) NotASequence(catalog, name, true, 0);
    if (!if_exists) {
      throw DbError(sqlstate::kUndefinedTable, "sequence " + Quoted(name) + " does not exist",
                    position);
    }
    result->notices.push_back("sequence " + Quoted(name) + " does not exist, skipping");
    return;
  }
  if (sequence->def.identity) {
    const std::string table = catalog.GetTable(sequence->def.owner_table).schema().name;
    const std::string column = "column " + sequence->def.owner_column + " of table " + table;
    throw DbError("2BP01", "cannot drop sequence " + name + " because " + column + " requires it")
        .WithHint("You can drop " + column + " instead.");
  }
  DropSequenceWithDependents(sequence->id, cascade, result, "", "");
}

void WriteExecutor::DropOwnedSequences(const std::string& table, const std::string& column,
                                       bool cascade, StatementResult* result) {
  const Catalog& catalog = *context_.catalog;
  const Table* t = catalog.FindTable(table);
  if (t == nullptr) return;
  for (TableId id : catalog.OwnedSequences(t->id(), column)) {
    DropSequenceWithDependents(id, cascade, result, table, column);
  }
}

}  // namespace forktail
