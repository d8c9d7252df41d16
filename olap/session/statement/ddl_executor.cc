// WriteExecutor's DDL and maintenance statements (write_executor.h).
//
//   CREATE TABLE [IF NOT EXISTS]  the binder's schema; an existing table with
//                                 IF NOT EXISTS: NOTICE, nothing done.
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
//   ALTER TABLE                   alter_table.cc
//   TRUNCATE a, b [RESTART IDENTITY]  deletes every row (undoable, logged);
//                                 RESTART IDENTITY restarts the sequences
//                                 the tables' columns own.
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
  if (create.as_query) {
    throw DbError(sqlstate::kFeatureNotSupported, "CREATE TABLE ... AS is not supported",
                  create.as_query->position);
  }
  if (create.temporary) {
    throw DbError(sqlstate::kFeatureNotSupported, "temporary tables are not supported",
                  statement.position);
  }
  TableNameOf(create.table, statement.position);  // 3F000 for another schema
  StatementResult result;
  result.command_tag = "CREATE TABLE";
  BoundStatement bound = Bind(statement, *context_.catalog, options);
  if (context_.catalog->FindTable(bound.schema.name) != nullptr && bound.if_not_exists) {
    result.notices.push_back("relation \"" + bound.schema.name + "\" already exists, skipping");
    return result;
  }
  const TableId table = txn_.CreateTable(std::move(bound.schema));
  // SERIAL and identity columns' sequences, owned by their columns.
  for (Sequence& sequence : bound.sequences) {
    sequence.def.owner_table = table;
    txn_.CreateSequence(std::move(sequence.def), sequence.state);  // 42P07: SEQUENCE NAME taken
  }
  return result;
}

void WriteExecutor::DropDependentViews(const std::string& relation, const std::string& what,
                                       bool cascade, StatementResult* result) {
  std::vector<std::string> dependents = context_.catalog->DependentViews(relation);
  if (dependents.empty()) return;
  if (!cascade) {
    // Every object that would go, as PostgreSQL lists them: transitively.
    std::string detail;
    std::function<void(const std::string&, const std::string&)> list =
        [&](const std::string& name, const std::string& kind) {
          for (const std::string& v : context_.catalog->DependentViews(name)) {
            detail +=
                (detail.empty() ? "" : "\n") + ("view " + v + " depends on " + kind + " " + name);
            list(v, "view");
          }
        };
    list(relation, what);
    throw DbError("2BP01", "cannot drop " + what + " " + relation +
                               " because other objects depend on it\nDETAIL:  " + detail)
        .WithHint("Use DROP ... CASCADE to drop the dependent objects too.");
  }
  for (const std::string& v : dependents) {
    if (context_.catalog->FindView(v) == nullptr) continue;  // dropped on the way
    DropDependentViews(v, "view", true, result);
    result->notices.push_back("drop cascades to view " + v);
    txn_.DropView(v);
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
      DropDependentViews(name, "view", drop.cascade, &result);
      txn_.DropView(name);
      continue;
    }
    if (!index && context_.catalog->FindView(name) != nullptr) {
      throw DbError(sqlstate::kWrongObjectType, "\"" + name + "\" is not a table", position)
          .WithHint("Use DROP VIEW to remove a view.");
    }
    if (index) {
      if (context_.catalog->FindIndex(name)) {
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
    DropDependentViews(name, "table", drop.cascade, &result);
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

StatementResult WriteExecutor::Truncate(const sql::Statement& statement) {
  std::vector<std::string> names;
  for (const auto& qualified : statement.truncate->tables) {
    names.push_back(TableNameOf(qualified, statement.position));
    FindTableOrThrow(*context_.catalog, names.back(), statement.position);
  }
  for (const std::string& name : names) {
    if (statement.truncate->restart_identity) {
      // The sequences its columns own start again (PostgreSQL's RESTART
      // IDENTITY), transactionally.
      for (TableId id : context_.catalog->OwnedSequences(context_.catalog->FindTable(name)->id())) {
        const Sequence& sequence = txn_.GetSequence(id);
        txn_.AlterSequence(id, sequence.def, {sequence.def.start, false});
      }
    }
    std::vector<TupleId> tids;
    txn_.Scan(name, [&](TupleId tid, const Row&) {
      tids.push_back(tid);
      return true;
    });
    for (TupleId tid : tids) txn_.Delete(name, tid);
  }
  StatementResult result;
  result.command_tag = "TRUNCATE TABLE";
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
