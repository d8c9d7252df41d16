// A table's schema: its name, its columns and its primary key. Plain data; the
// Catalog validates a schema when a table is created (unique column names, a
// primary key of existing, distinct columns) and only then hands it to a Table.
//
// Names are stored exactly as given: the SQL front end folds unquoted
// identifiers to lower case before they reach storage.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/ids.h"
#include "storage/value/types.h"

namespace forktail {

struct ColumnDef {
  std::string name;
  Type type;
  bool not_null = false;
  // The DEFAULT expression as SQL text (the front end binds it for each
  // INSERT that leaves the column out); empty: none (NULL).
  std::string default_sql;

  friend bool operator==(const ColumnDef&, const ColumnDef&) = default;
};

// A secondary index (CREATE [UNIQUE] INDEX): its name (unique among the
// database's tables and indexes), its columns in key order, and whether it
// enforces uniqueness (rows with a NULL key column never conflict).
struct IndexDef {
  std::string name;
  std::vector<ColumnId> columns;
  bool unique = false;
  // Made by a UNIQUE constraint (CREATE TABLE) rather than CREATE INDEX: psql
  // shows it as a constraint, pg_constraint lists it.
  bool constraint = false;

  friend bool operator==(const IndexDef&, const IndexDef&) = default;
};

struct TableSchema {
  std::string name;
  std::vector<ColumnDef> columns;
  // Column ids of the primary key, in key order; empty: no primary key.
  // Primary-key columns are implicitly NOT NULL (as in PostgreSQL).
  std::vector<ColumnId> primary_key;
  // Secondary indexes, in creation order.
  std::vector<IndexDef> indexes;

  size_t column_count() const { return columns.size(); }
  const ColumnDef& column(ColumnId id) const { return columns[id.value()]; }

  std::optional<ColumnId> FindColumn(std::string_view column_name) const {
    for (size_t i = 0; i < columns.size(); i++) {
      if (columns[i].name == column_name) return ColumnId(static_cast<uint16_t>(i));
    }
    return std::nullopt;
  }

  bool IsKeyColumn(ColumnId id) const {
    for (ColumnId k : primary_key) {
      if (k == id) return true;
    }
    return false;
  }

  // Position of the index named `index_name` in `indexes`.
  std::optional<size_t> FindIndex(std::string_view index_name) const {
    for (size_t i = 0; i < indexes.size(); i++) {
      if (indexes[i].name == index_name) return i;
    }
    return std::nullopt;
  }

  friend bool operator==(const TableSchema&, const TableSchema&) = default;
};

}  // namespace forktail
