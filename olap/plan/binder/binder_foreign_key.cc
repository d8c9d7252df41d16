// BindForeignKey: a FOREIGN KEY / REFERENCES constraint checked as
// PostgreSQL's ATAddForeignKeyConstraint checks it, in its order, with its
// messages.
#include <algorithm>

#include "olap/parser/ast.h"
#include "olap/plan/binder/binder.h"
#include "olap/plan/binder/binder_internal.h"

namespace forktail {
namespace {

// The btree operator family of a key column's type: two types of one family
// have an equality operator (int2/int4/int8; float8; numeric; bool; bpchar;
// text, which varchar keys use; date/timestamp).
char Family(const Type& t) {
  switch (t.id) {
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kBigInt:
      return 'i';
    case TypeId::kDouble:
      return 'f';
    case TypeId::kDecimal:
      return 'n';
    case TypeId::kBoolean:
      return 'b';
    case TypeId::kChar:
      return 'c';
    case TypeId::kVarchar:
    case TypeId::kText:
      return 't';
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return 'd';
    case TypeId::kJsonb:
      return 'j';
    case TypeId::kUuid:
      return 'u';
    case TypeId::kBytea:
      return 'y';
    case TypeId::kInterval:
      return 'i';
    case TypeId::kTime:
      return 't';
    case TypeId::kJson:
      return 'J';
  }
  return '?';
}

// PostgreSQL's rule: the referenced key's operator family compares the two
// types, or the referencing type casts implicitly to the referenced one
// (integers to numeric and float8, numeric to float8, character to text,
// text and varchar to character).
bool Comparable(const Type& referencing, const Type& referenced) {
  const char from = Family(referencing), to = Family(referenced);
  if (from == to) return true;
  switch (from) {
    case 'i':
      return to == 'f' || to == 'n';
    case 'n':
      return to == 'f';
    case 'c':
      return to == 't';
    case 't':
      return to == 'c';
    default:
      return false;
  }
}

ForeignKeyAction ActionOf(sql::ReferentialAction a) {
  switch (a) {
    case sql::ReferentialAction::kNoAction:
      return ForeignKeyAction::kNoAction;
    case sql::ReferentialAction::kRestrict:
      return ForeignKeyAction::kRestrict;
    case sql::ReferentialAction::kCascade:
      return ForeignKeyAction::kCascade;
    case sql::ReferentialAction::kSetNull:
      return ForeignKeyAction::kSetNull;
    case sql::ReferentialAction::kSetDefault:
      return ForeignKeyAction::kSetDefault;
  }
  return ForeignKeyAction::kNoAction;
}

std::vector<ColumnId> ColumnsOf(const TableSchema& schema, const std::vector<std::string>& names) {
  std::vector<ColumnId> out;
  for (const std::string& name : names) {
    std::optional<ColumnId> id = schema.FindColumn(name);
    if (!id) {
      throw DbError(sqlstate::kUndefinedColumn,
                    "column \"" + name + "\" referenced in foreign key constraint does not exist");
    }
    out.push_back(*id);
  }
  return out;
}

}  // namespace

ForeignKeyDef BindForeignKey(const sql::TableConstraint& k, const TableSchema& table,
                             const Catalog& catalog) {
  if (k.deferrable_position != 0) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  "DEFERRABLE foreign keys are not supported: Forktail checks every foreign key "
                  "when its statement ends",
                  k.deferrable_position);
  }
  ForeignKeyDef fk;
  const std::vector<std::string> existing = Catalog::ConstraintNames(table);
  if (!k.name.empty()) {
    if (std::find(existing.begin(), existing.end(), k.name) != existing.end()) {
      throw DbError(sqlstate::kDuplicateObject, "constraint \"" + k.name + "\" for relation \"" +
                                                    table.name + "\" already exists");
    }
    fk.name = k.name;
  } else {
    fk.name = catalog.ChooseConstraintName(table.name, k.columns, "fkey", existing);
  }

  // The referenced table: this one, or another that exists and is a table.
  const std::string& name = k.ref_table.back();
  if (k.ref_table.size() > 1 && k.ref_table[k.ref_table.size() - 2] != "public") {
    throw DbError(sqlstate::kUndefinedTable, "relation \"" + k.ref_table[k.ref_table.size() - 2] +
                                                 "." + name + "\" does not exist");
  }
  const Table* other = name == table.name ? nullptr : catalog.FindTable(name);
  if (name != table.name && other == nullptr) {
    if (catalog.FindView(name) != nullptr) {
      throw DbError(sqlstate::kWrongObjectType,
                    "referenced relation \"" + name + "\" is not a table");
    }
    throw DbError(sqlstate::kUndefinedTable, "relation \"" + name + "\" does not exist");
  }
  const TableSchema& referenced = other != nullptr ? other->schema() : table;
  fk.referenced_table = name;

  fk.columns = ColumnsOf(table, k.columns);
  for (ColumnId c : ColumnsOf(table, k.delete_set_columns)) {
    if (std::find(fk.columns.begin(), fk.columns.end(), c) == fk.columns.end()) {
      throw DbError(sqlstate::kInvalidColumnReference,
                    "column \"" + table.column(c).name +
                        "\" referenced in ON DELETE SET action must be part of foreign key");
    }
    fk.delete_set_columns.push_back(c);
  }
  if (k.ref_columns.empty()) {
    if (referenced.primary_key.empty()) {
      throw DbError(sqlstate::kUndefinedObject,
                    "there is no primary key for referenced table \"" + name + "\"");
    }
    fk.referenced_columns = referenced.primary_key;
  } else {
    fk.referenced_columns = ColumnsOf(referenced, k.ref_columns);
    for (size_t i = 0; i < fk.referenced_columns.size(); i++) {
      if (std::count(fk.referenced_columns.begin(), fk.referenced_columns.end(),
                     fk.referenced_columns[i]) > 1) {
        throw DbError(sqlstate::kInvalidForeignKey,
                      "foreign key referenced-columns list must not contain duplicates");
      }
    }
    if (!referenced.FindUniqueKey(fk.referenced_columns)) {
      throw DbError(sqlstate::kInvalidForeignKey,
                    "there is no unique constraint matching given keys for referenced table \"" +
                        name + "\"");
    }
  }
  if (fk.columns.size() != fk.referenced_columns.size()) {
    throw DbError(sqlstate::kInvalidForeignKey,
                  "number of referencing and referenced columns for foreign key disagree");
  }
  for (size_t i = 0; i < fk.columns.size(); i++) {
    const ColumnDef& from = table.column(fk.columns[i]);
    const ColumnDef& to = referenced.column(fk.referenced_columns[i]);
    if (!Comparable(from.type, to.type)) {
      throw DbError(sqlstate::kDatatypeMismatch,
                    "foreign key constraint \"" + fk.name + "\" cannot be implemented\nDETAIL:  " +
                        "Key columns \"" + from.name + "\" and \"" + to.name +
                        "\" are of incompatible types: " + BaseTypeName(from.type) + " and " +
                        BaseTypeName(to.type) + ".");
    }
  }
  fk.on_delete = ActionOf(k.on_delete);
  fk.on_update = ActionOf(k.on_update);
  fk.match_full = k.match_full;
  return fk;
}

}  // namespace forktail
