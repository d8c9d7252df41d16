// StatementTables (session_request.h): what a bound statement touches, as a
// transaction block's step forecast needs it (block/optimistic_block.h).
#include <algorithm>

#include "olap/parser/ast.h"
#include "olap/plan/logical.h"
#include "olap/session/block/optimistic_block.h"
#include "olap/session/session_request.h"
#include "olap/session/statement/point_statement.h"

namespace forktail {
namespace {

void Add(std::vector<TableId>& tables, TableId id) {
  if (std::find(tables.begin(), tables.end(), id) == tables.end()) tables.push_back(id);
}

void AddPlan(const LogicalOp& op, std::vector<TableId>& tables) {
  if (op.kind == LogicalOpKind::kGet) Add(tables, op.table_id);
  for (const LogicalOpPtr& child : op.children) AddPlan(*child, tables);
  if (op.subplan) AddPlan(*op.subplan, tables);
}

// The tables `target`'s foreign keys reference, and those whose foreign
// keys reference it.
void AddForeignKeyNeighbours(const Table& target, const Catalog& schemas,
                             std::vector<TableId>& tables) {
  for (const ForeignKeyDef& fk : target.schema().foreign_keys) {
    if (const Table* parent = schemas.FindTable(fk.referenced_table)) Add(tables, parent->id());
  }
  for (TableId id : schemas.ListTables()) {
    for (const ForeignKeyDef& fk : schemas.GetTable(id).schema().foreign_keys) {
      if (fk.referenced_table == target.schema().name) Add(tables, id);
    }
  }
}

// A primary key as a forecast names it: each value cast to its column's
// type, so that a key written as 5 and one read as 5::bigint are the same,
// and ended by a separator, so that the encoding of the key's first k values
// (EncodeKeyPrefix) is a prefix of the key's exactly when the key starts
// with those values.
std::optional<std::string> EncodeKeyPrefix(const TableSchema& schema,
                                           const std::vector<Value>& key) {
  if (key.size() > schema.primary_key.size()) return std::nullopt;
  std::string encoded;
  for (size_t k = 0; k < key.size(); k++) {
    if (key[k].is_null()) return std::nullopt;
    encoded += key[k].CastTo(schema.columns[schema.primary_key[k].value()].type).ToString();
    encoded += '\x1f';
  }
  return encoded;
}

std::optional<std::string> EncodeKey(const TableSchema& schema, const std::vector<Value>& key) {
  if (key.size() != schema.primary_key.size()) return std::nullopt;
  return EncodeKeyPrefix(schema, key);
}

bool HasOtherUniqueIndex(const TableSchema& schema) {
  return std::any_of(schema.indexes.begin(), schema.indexes.end(),
                     [](const IndexDef& index) { return index.unique; });
}

// The rows a write by primary key reaches in its target, or nullopt when
// it may reach others: a WHERE that does not fix the key, a FROM/USING, a
// SET of a key column, or a unique index besides the key (whose check reads
// other rows).
std::optional<std::vector<std::string>> TargetRows(const BoundStatement& bound,
                                                   const TableSchema& schema) {
  if (schema.primary_key.empty() || HasOtherUniqueIndex(schema)) return std::nullopt;
  std::vector<std::string> rows;
  if (bound.kind == BoundStatementKind::kInsert) {
    if (bound.plan || bound.insert_rows.empty()) return std::nullopt;
    for (const Row& row : bound.insert_rows) {
      std::vector<Value> key;
      for (ColumnId c : schema.primary_key) key.push_back(row[c.value()]);
      std::optional<std::string> encoded = EncodeKey(schema, key);
      if (!encoded) return std::nullopt;
      rows.push_back(std::move(*encoded));
    }
    return rows;
  }
  if (bound.plan) return std::nullopt;
  for (const auto& [position, value] : bound.set) {
    for (ColumnId c : schema.primary_key) {
      if (c.value() == position) return std::nullopt;
    }
  }
  std::optional<std::vector<Value>> key = PointKey(bound.where.get(), schema);
  if (!key) return std::nullopt;
  std::optional<std::string> encoded = EncodeKey(schema, *key);
  if (!encoded) return std::nullopt;
  rows.push_back(std::move(*encoded));
  return rows;
}

}  // namespace

std::optional<StepFootprint> StatementTables(const PreBoundStatement& pre, const Catalog& schemas) {
  const BoundStatement& bound = pre.bound;
  if (bound.sequence_use != SequenceUse::kNone) return std::nullopt;
  StepFootprint footprint;
  switch (bound.kind) {
    case BoundStatementKind::kQuery:
      if (pre.point_select) {
        const Table* table = schemas.FindTable(pre.point_select->table());
        if (!table) return std::nullopt;
        std::optional<std::string> key = EncodeKey(table->schema(), pre.point_select->key());
        if (!key) return std::nullopt;
        footprint.rows.emplace_back(table->id(), std::move(*key));
        return footprint;
      }
      if (bound.plan) AddPlan(*bound.plan, footprint.tables);
      if (footprint.tables.size() == 1) {  // a read of one key prefix?
        TableId table;
        std::optional<std::vector<Value>> prefix = KeyPrefixRead(*bound.plan, schemas, &table);
        std::optional<std::string> encoded;
        if (prefix && table == footprint.tables[0]) {
          encoded = EncodeKeyPrefix(schemas.GetTable(table).schema(), *prefix);
        }
        if (encoded) {
          footprint.tables.clear();
          footprint.prefixes.emplace_back(table, std::move(*encoded));
        }
      }
      return footprint;
    case BoundStatementKind::kInsert:
    case BoundStatementKind::kUpdate:
    case BoundStatementKind::kDelete: {
      if (bound.plan) AddPlan(*bound.plan, footprint.tables);
      const Table& target = schemas.GetTable(bound.table_id);
      AddForeignKeyNeighbours(target, schemas, footprint.tables);
      std::optional<std::vector<std::string>> rows = TargetRows(bound, target.schema());
      if (!rows || std::find(footprint.tables.begin(), footprint.tables.end(), target.id()) !=
                       footprint.tables.end()) {
        Add(footprint.tables, target.id());
      } else {
        for (std::string& key : *rows) footprint.rows.emplace_back(target.id(), std::move(key));
      }
      return footprint;
    }
    case BoundStatementKind::kCreateTable:
      break;
  }
  return std::nullopt;  // DDL
}

}  // namespace forktail
