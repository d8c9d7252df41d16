// WriteExecutor's DDL and maintenance statements (write_executor.h).
//
//   CREATE TABLE [IF NOT EXISTS]  the binder's schema; an existing table with
//                                 IF NOT EXISTS: NOTICE, nothing done.
//   CREATE TABLE .. AS query      also SELECT .. INTO: the table of the query's
//                                 columns, then its rows (unless WITH NO DATA),
//                                 in the statement's transaction; "SELECT n".
//   DROP TABLE [IF EXISTS] a, b   dropped at commit (Transaction::DropTable),
//                                 with the sequences its columns own.
//   DROP INDEX [IF EXISTS] a, b   Transaction::DropIndex (logged, undone);
//                                 42704 for an unknown name, a NOTICE with
//                                 IF EXISTS.
//   CREATE [UNIQUE] INDEX         Transaction::CreateIndex: an ordered index
//                                 (storage/table/ordered_index.h) built from
//                                 the rows, maintained by every write, logged
//                                 and undone; named as PostgreSQL names it
//                                 when no name is given. USING btree or hash
//                                 (an ordered index answers both); other
//                                 methods, partial and expression indexes:
//                                 0A000.
//   ALTER TABLE                   alter_table.cc (ADD FOREIGN KEY binds as CREATE
//                                 TABLE does, every row checked (23503),
//                                 Transaction::AddForeignKey; DROP CONSTRAINT
//                                 of a foreign key, CHECK or UNIQUE below).
//   DROP TABLE / VIEW / INDEX     2BP01 while views read it or foreign keys
//                                 reference it (or look up through the index),
//                                 or with CASCADE those go first (PostgreSQL's
//                                 NOTICE, DETAIL and HINT); a table's owned
//                                 sequences go with it.
//   TRUNCATE a, b [RESTART IDENTITY] [CASCADE]
//                                 deletes every row (undoable, logged); a table
//                                 referenced by a foreign key of one not
//                                 truncated: 0A000, or with CASCADE that one
//                                 is truncated too; RESTART IDENTITY restarts
//                                 the sequences the tables' columns own.
//   VACUUM                        a no-op (deleted slots are reclaimed by block
//                                 compaction, not by VACUUM).
//   ANALYZE / VACUUM ANALYZE      recomputes the tables' statistics exactly.
#include <algorithm>
#include <functional>

#include "olap/parser/ast.h"
#include "olap/plan/binder/binder.h"
#include "olap/session/statement/write_executor.h"

namespace forktail {
namespace {

const Table& FindTableOrThrow(const Catalog& catalog, const std::string& name, int position) {
  const Table* t = catalog.FindTable(name);
  if (t == nullptr) {
    throw DbError(sqlstate::kUndefinedTable, "relation \"" + name + "\" does not exist", position);
  }
  return *t;
}

ColumnId ColumnOrThrow(const Table& table, const std::string& column, int position) {
  std::optional<ColumnId> id = table.schema().FindColumn(column);
  if (!id) {
    throw DbError(sqlstate::kUndefinedColumn, "column \"" + column + "\" does not exist", position);
  }
  return *id;
}

}  // namespace

StatementResult WriteExecutor::CreateTable(const sql::Statement& statement,
                                           const BindOptions& options) {
  const sql::CreateTableStmt& create = *statement.create_table;
  if (create.temporary) {
    throw DbError(sqlstate::kFeatureNotSupported, "temporary tables are not supported",
                  statement.position);
  }
  TableNameOf(create.table, statement.position);  // 3F000 for another schema
  StatementResult result;
  result.command_tag = create.as_query ? "CREATE TABLE AS" : "CREATE TABLE";
  BoundStatement bound = Bind(statement, *context_.catalog, options);
  const std::string name = bound.schema.name;
  if (context_.catalog->FindTable(name) != nullptr && bound.if_not_exists) {
    result.notices.push_back("relation \"" + name + "\" already exists, skipping");
    return result;
  }
  const TableId table = txn_.CreateTable(std::move(bound.schema));
  if (create.as_query && create.with_data) {  // CREATE TABLE AS / SELECT INTO: its rows
    std::vector<Row> rows = RunLogicalPlan(std::move(bound.plan), context_, bound.sequence_use);
    for (const Row& row : rows) txn_.Insert(name, row);
    result.command_tag = "SELECT " + std::to_string(rows.size());
  }
  // SERIAL and identity columns' sequences, owned by their columns.
  for (Sequence& sequence : bound.sequences) {
    sequence.def.owner_table = table;
    txn_.CreateSequence(std::move(sequence.def), sequence.state);  // 42P07: SEQUENCE NAME taken
  }
  return result;
}

std::vector<WriteExecutor::Dependent> WriteExecutor::RelationDependents(
    const std::string& relation, const std::string& kind,
    const std::vector<std::string>& dropping) const {
  std::vector<Dependent> out;
  if (const Table* table = kind == "table" ? txn_.FindTable(relation) : nullptr) {
    for (const ForeignKeyRef& ref : table->referenced_by()) {
      const Table& referencing = context_.catalog->GetTable(ref.table);
      const std::string& name = referencing.schema().name;
      if (name == relation || txn_.FindTable(name) == nullptr ||
          std::find(dropping.begin(), dropping.end(), name) != dropping.end()) {
        continue;  // goes too
      }
      const std::string& constraint = referencing.schema().foreign_keys[ref.position].name;
      out.push_back({"constraint " + constraint + " on table " + name, "table " + relation, "",
                     name, constraint});
    }
  }
  std::function<void(const std::string&, const std::string&)> views = [&](const std::string& name,
                                                                          const std::string& what) {
    for (const std::string& v : context_.catalog->DependentViews(name)) {
      if (std::any_of(out.begin(), out.end(), [&](const Dependent& d) { return d.view == v; })) {
        continue;
      }
      out.push_back({"view " + v, what + " " + name, v, "", ""});
      views(v, "view");
    }
  };
  views(relation, kind);
  return out;
}

std::vector<WriteExecutor::Dependent> WriteExecutor::IndexDependents(const Table& table,
                                                                     size_t position) const {
  std::vector<Dependent> out;
  const std::string& index = table.schema().indexes[position].name;
  for (const ForeignKeyRef& ref : context_.catalog->ForeignKeysUsingIndex(table.id(), position)) {
    const Table& referencing = context_.catalog->GetTable(ref.table);
    const std::string& name = referencing.schema().name;
    if (txn_.FindTable(name) == nullptr) continue;
    const std::string& constraint = referencing.schema().foreign_keys[ref.position].name;
    out.push_back(
        {"constraint " + constraint + " on table " + name, "index " + index, "", name, constraint});
  }
  return out;
}

void WriteExecutor::DropDependents(const std::string& object,
                                   const std::vector<Dependent>& dependents, bool cascade,
                                   StatementResult* result) {
  if (dependents.empty()) return;
  std::string detail;
  for (const Dependent& d : dependents) {
    detail +=
        (detail.empty() ? "" : "\n") + (cascade ? "drop cascades to " + d.description
                                                : d.description + " depends on " + d.depends_on);
  }
  if (!cascade) {
    throw DbError(
        sqlstate::kDependentObjectsStillExist,
        "cannot drop " + object + " because other objects depend on it\nDETAIL:  " + detail)
        .WithHint("Use DROP ... CASCADE to drop the dependent objects too.");
  }
  // One NOTICE, as PostgreSQL: the object itself, or a count and the list.
  result->notices.push_back(dependents.size() == 1
                                ? detail
                                : "drop cascades to " + std::to_string(dependents.size()) +
                                      " other objects\nDETAIL:  " + detail);
  for (const Dependent& d : dependents) {
    if (!d.view.empty()) {
      if (context_.catalog->FindView(d.view) != nullptr) txn_.DropView(d.view);
    } else {
      txn_.DropConstraint(d.table, d.constraint);
    }
  }
}

StatementResult WriteExecutor::CreateView(const sql::Statement& statement) {
  const sql::CreateViewStmt& create = *statement.create_view;
  std::string name = TableNameOf(create.name, statement.position);
  ViewDef view = BindViewDefinition(create, *context_.catalog);
  view.name = name;
  if (std::find(view.depends_on.begin(), view.depends_on.end(), name) != view.depends_on.end()) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  "CREATE OR REPLACE VIEW whose query reads the view itself is not supported");
  }
  StatementResult result;
  result.command_tag = "CREATE VIEW";
  const ViewDef* old = context_.catalog->FindView(name);
  if (old == nullptr) {
    txn_.CreateView(std::move(view));  // 42P07 if a table or index has the name
    return result;
  }
  if (!create.or_replace) {
    throw DbError(sqlstate::kDuplicateTable, "relation \"" + name + "\" already exists");
  }
  // As PostgreSQL: the new query keeps the old columns, in order, and may add some.
  if (view.column_names.size() < old->column_names.size()) {
    throw DbError(sqlstate::kInvalidTableDefinition, "cannot drop columns from view");
  }
  for (size_t i = 0; i < old->column_names.size(); i++) {
    if (view.column_names[i] != old->column_names[i]) {
      throw DbError(sqlstate::kInvalidTableDefinition, "cannot change name of view column \"" +
                                                           old->column_names[i] + "\" to \"" +
                                                           view.column_names[i] + "\"")
          .WithHint("Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.");
    }
    if (!(view.column_types[i] == old->column_types[i])) {
      throw DbError(sqlstate::kInvalidTableDefinition,
                    "cannot change data type of view column \"" + old->column_names[i] +
                        "\" from " + old->column_types[i].ToString() + " to " +
                        view.column_types[i].ToString());
    }
  }
  txn_.DropView(name);
  txn_.CreateView(std::move(view));
  return result;
}

StatementResult WriteExecutor::Drop(const sql::Statement& statement) {
  const sql::DropStmt& drop = *statement.drop;
  StatementResult result;
  const bool index = drop.object == "index";
  const bool view = drop.object == "view";
  const bool sequence = drop.object == "sequence";
  result.command_tag = index      ? "DROP INDEX"
                       : view     ? "DROP VIEW"
                       : sequence ? "DROP SEQUENCE"
                                  : "DROP TABLE";
  std::vector<std::string> dropping;  // DROP TABLE a, b: each may reference the other
  for (const sql::QualifiedName& n : drop.names) dropping.push_back(n.back());
  if (!index && !view && !sequence) {
    // Foreign keys between the tables this statement drops go first, so
    // that no table is dropped while one that stays a moment longer still
    // references it.
    for (const std::string& name : dropping) {
      const Table* table = txn_.FindTable(name);
      if (table == nullptr) continue;
      for (const ForeignKeyDef& fk : std::vector<ForeignKeyDef>(table->schema().foreign_keys)) {
        if (fk.referenced_table != name &&
            std::find(dropping.begin(), dropping.end(), fk.referenced_table) != dropping.end()) {
          txn_.DropConstraint(name, fk.name);
        }
      }
    }
  }
  for (size_t i = 0; i < drop.names.size(); i++) {
    int position = i < drop.name_positions.size() ? drop.name_positions[i] : statement.position;
    std::string name = TableNameOf(drop.names[i], position);
    if (sequence) {
      DropSequence(name, drop.if_exists, drop.cascade, position, &result);
      continue;
    }
    if (!index && context_.catalog->FindSequence(name) != nullptr) {
      throw DbError(sqlstate::kWrongObjectType,
                    "\"" + name + "\" is not a " + (view ? "view" : "table"), position)
          .WithHint("Use DROP SEQUENCE to remove a sequence.");
    }
    if (view) {
      if (context_.catalog->FindView(name) == nullptr) {
        if (context_.catalog->FindTable(name) != nullptr) {
          throw DbError(sqlstate::kWrongObjectType, "\"" + name + "\" is not a view", position)
              .WithHint("Use DROP TABLE to remove a table.");
        }
        if (!drop.if_exists) {
          throw DbError(sqlstate::kUndefinedTable, "view \"" + name + "\" does not exist",
                        position);
        }
        result.notices.push_back("view \"" + name + "\" does not exist, skipping");
        continue;
      }
      DropDependents("view " + name, RelationDependents(name, "view", {}), drop.cascade, &result);
      txn_.DropView(name);
      continue;
    }
    if (!index && context_.catalog->FindView(name) != nullptr) {
      throw DbError(sqlstate::kWrongObjectType, "\"" + name + "\" is not a table", position)
          .WithHint("Use DROP VIEW to remove a view.");
    }
    if (index) {
      if (std::optional<std::pair<TableId, size_t>> found = context_.catalog->FindIndex(name)) {
        const Table& table = context_.catalog->GetTable(found->first);
        DropDependents("index " + name, IndexDependents(table, found->second), drop.cascade,
                       &result);
        txn_.DropIndex(name);
        continue;
      }
      if (!drop.if_exists) {
        throw DbError(sqlstate::kUndefinedObject, "index \"" + name + "\" does not exist",
                      position);
      }
      result.notices.push_back("index \"" + name + "\" does not exist, skipping");
      continue;
    }
    if (context_.catalog->FindTable(name) == nullptr) {
      if (!drop.if_exists) {
        throw DbError(sqlstate::kUndefinedTable, "table \"" + name + "\" does not exist", position);
      }
      result.notices.push_back("table \"" + name + "\" does not exist, skipping");
      continue;
    }
    DropDependents("table " + name, RelationDependents(name, "table", dropping), drop.cascade,
                   &result);
    DropOwnedSequences(name, "", drop.cascade, &result);
    txn_.DropTable(name);
  }
  return result;
}

StatementResult WriteExecutor::CreateIndex(const sql::Statement& statement) {
  const sql::CreateIndexStmt& create = *statement.create_index;
  std::string name = TableNameOf(create.table, statement.position);
  const Table& table = FindTableOrThrow(*context_.catalog, name, statement.position);
  if (create.where) {
    throw DbError(sqlstate::kFeatureNotSupported, "partial indexes are not supported",
                  create.where->position);
  }
  if (!create.method.empty() && create.method != "btree" && create.method != "hash") {
    throw DbError(sqlstate::kFeatureNotSupported,
                  "access method \"" + create.method +
                      "\" is not supported: Forktail's indexes are ordered (btree)",
                  statement.position);
  }
  IndexDef index;
  index.unique = create.unique;
  std::vector<std::string> column_names;
  for (const sql::OrderItem& key : create.keys) {
    if (key.expr->kind != sql::ExprKind::kColumnRef) {
      throw DbError(sqlstate::kFeatureNotSupported, "indexes on expressions are not supported",
                    key.position);
    }
    index.columns.push_back(ColumnOrThrow(table, key.expr->names.back(), key.expr->position));
    column_names.push_back(key.expr->names.back());
  }
  StatementResult result;
  result.command_tag = "CREATE INDEX";
  index.name = create.name.empty() ? context_.catalog->ChooseIndexName(name, column_names, "idx")
                                   : create.name;
  if (create.if_not_exists && (context_.catalog->FindTable(index.name) != nullptr ||
                               context_.catalog->FindIndex(index.name))) {
    result.notices.push_back("relation \"" + index.name + "\" already exists, skipping");
    return result;
  }
  txn_.CreateIndex(name, std::move(index));
  return result;
}

void WriteExecutor::AlterTableDropConstraint(const sql::AlterAction& alter, const Table& table,
                                             StatementResult* result) {
  const TableSchema& schema = table.schema();
  const std::string& name = alter.column_name;
  const bool check = std::any_of(schema.checks.begin(), schema.checks.end(),
                                 [&](const CheckDef& c) { return c.name == name; });
  if (check || schema.FindForeignKey(name)) {
    txn_.DropConstraint(schema.name, name);  // nothing depends on these
    return;
  }
  if (std::optional<size_t> index = schema.FindIndex(name);
      index && schema.indexes[*index].constraint) {
    DropDependents("constraint " + name + " on table " + schema.name,
                   IndexDependents(table, *index), alter.cascade, result);
    txn_.DropIndex(name);  // a UNIQUE constraint is its index
    return;
  }
  if (!schema.primary_key.empty() && name == schema.name + "_pkey") {
    throw DbError(sqlstate::kFeatureNotSupported,
                  "ALTER TABLE ... DROP CONSTRAINT of a primary key is not supported");
  }
  if (alter.if_exists) {
    result->notices.push_back("constraint \"" + name + "\" of relation \"" + schema.name +
                              "\" does not exist, skipping");
    return;
  }
  throw DbError(sqlstate::kUndefinedObject,
                "constraint \"" + name + "\" of relation \"" + schema.name + "\" does not exist");
}

StatementResult WriteExecutor::Comment(const sql::Statement& statement) {
  const sql::CommentStmt& c = *statement.comment;
  std::vector<std::string> qualified = c.name;
  std::string column;
  if (c.column) {
    column = qualified.back();
    qualified.pop_back();
  }
  const std::string name = TableNameOf(qualified, statement.position);
  const Table& table = FindTableOrThrow(*context_.catalog, name, statement.position);
  TableSchema schema = table.schema();
  std::string* target = &schema.comment;
  if (c.column) {
    std::optional<ColumnId> id = schema.FindColumn(column);
    if (!id) {
      throw DbError(sqlstate::kUndefinedColumn,
                    "column \"" + column + "\" of relation \"" + name + "\" does not exist");
    }
    target = &schema.columns[id->value()].comment;
  }
  *target = c.text.value_or("");  // PostgreSQL: an empty comment removes it too
  txn_.ReplaceSchema(name, std::move(schema));
  StatementResult result;
  result.command_tag = "COMMENT";
  return result;
}

StatementResult WriteExecutor::Truncate(const sql::Statement& statement) {
  StatementResult result;
  result.command_tag = "TRUNCATE TABLE";
  std::vector<std::string> names;
  for (const auto& qualified : statement.truncate->tables) {
    names.push_back(TableNameOf(qualified, statement.position));
    FindTableOrThrow(*context_.catalog, names.back(), statement.position);
  }
  // A table whose foreign key references one of them must go empty too
  // (TRUNCATE checks no keys): with CASCADE it does, else 0A000.
  for (size_t i = 0; i < names.size(); i++) {
    const Table* table = txn_.FindTable(names[i]);
    if (table == nullptr) continue;
    for (const ForeignKeyRef& ref : table->referenced_by()) {
      const std::string& referencing = context_.catalog->GetTable(ref.table).schema().name;
      if (txn_.FindTable(referencing) == nullptr ||
          std::find(names.begin(), names.end(), referencing) != names.end()) {
        continue;
      }
      if (!statement.truncate->cascade) {
        throw DbError(sqlstate::kFeatureNotSupported,
                      "cannot truncate a table referenced in a foreign key constraint\nDETAIL:  "
                      "Table \"" +
                          referencing + "\" references \"" + names[i] + "\".")
            .WithHint("Truncate table \"" + referencing +
                      "\" at the same time, or use TRUNCATE ... CASCADE.");
      }
      result.notices.push_back("truncate cascades to table \"" + referencing + "\"");
      names.push_back(referencing);
    }
  }
  for (const std::string& name : names) {
    if (statement.truncate->restart_identity) {
      // The sequences its columns own start again (PostgreSQL's RESTART
      // IDENTITY, also for the tables CASCADE adds), transactionally.
      for (TableId id : context_.catalog->OwnedSequences(context_.catalog->FindTable(name)->id())) {
        const Sequence& sequence = txn_.GetSequence(id);
        txn_.AlterSequence(id, sequence.def, {sequence.def.start, false});
      }
    }
    txn_.Truncate(name);
  }
  return result;
}

StatementResult WriteExecutor::Vacuum(const sql::Statement& statement) {
  const sql::VacuumStmt& vacuum = *statement.vacuum;
  bool analyze = vacuum.analyze;
  for (const sql::Option& o : vacuum.options) {
    if (o.name == "analyze") analyze = true;
  }
  std::vector<Table*> tables;
  if (vacuum.tables.empty()) {
    for (TableId id : context_.catalog->ListTables())
      tables.push_back(&context_.catalog->GetTable(id));
  } else {
    for (const auto& qualified : vacuum.tables) {
      std::string name = TableNameOf(qualified, statement.position);
      FindTableOrThrow(*context_.catalog, name, statement.position);
      tables.push_back(context_.catalog->FindTable(name));
    }
  }
  // Statistics are advisory and not logged: refreshing them on the
  // transaction thread (nothing else reads them concurrently but snapshots,
  // which have their own copy) is safe even if the transaction rolls back.
  if (analyze) {
    for (Table* t : tables) t->RefreshStatistics();
  }
  StatementResult result;
  result.command_tag = vacuum.vacuum ? "VACUUM" : "ANALYZE";
  return result;
}

}  // namespace forktail
