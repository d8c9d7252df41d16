// Name resolution with PostgreSQL's errors:
//   x      the one visible column named x at the innermost level that has
//          one; two at that level: 42702 `column reference "x" is ambiguous`;
//          none anywhere: 42703 `column "x" does not exist`
//   t.x    the relation named t at the innermost level that has one; no such
//          relation: 42P01 `missing FROM-clause entry for table "t"`; no
//          column x in it: 42703 `column t.x does not exist`
// A schema qualifier (s.t.x) is accepted and ignored (one schema).
#include <string>

#include "olap/plan/binder/binder_catalog.h"
#include "olap/plan/binder/binder_internal.h"

namespace forktail {

ColumnSet Scope::Ids() const {
  ColumnSet s;
  for (const ScopeRelation& r : relations) {
    for (const LogicalColumn& c : r.columns) s.insert(c.id);
  }
  return s;
}

ExprPtr Binder::ResolveColumn(const sql::Expr& e, const Scope& scope) {
  const sql::QualifiedName& names = e.names;
  const std::string& column = names.back();
  auto found = [&](const ScopeRelation& rel, size_t i) {
    const LogicalColumn& c = rel.columns[i];
    display_[c.id] = rel.alias.empty() ? c.name : rel.alias + "." + c.name;
    ref_position_[c.id] = e.position;
    return ColumnRef(c.id, c.type);
  };
  if (names.size() == 1) {
    for (const Scope* s = &scope; s != nullptr; s = s->outer) {
      const ScopeRelation* hit_rel = nullptr;
      size_t hit = 0;
      for (const ScopeRelation& rel : s->relations) {
        for (size_t i = 0; i < rel.columns.size(); i++) {
          if (rel.hidden[i] || rel.columns[i].name != column) continue;
          if (hit_rel != nullptr) {
            throw DbError(sqlstate::kAmbiguousColumn,
                          "column reference \"" + column + "\" is ambiguous", e.position);
          }
          hit_rel = &rel;
          hit = i;
        }
      }
      if (hit_rel != nullptr) return found(*hit_rel, hit);
    }
    throw DbError(sqlstate::kUndefinedColumn, "column \"" + column + "\" does not exist",
                  e.position);
  }
  const std::string& table = names[names.size() - 2];
  for (const Scope* s = &scope; s != nullptr; s = s->outer) {
    for (const ScopeRelation& rel : s->relations) {
      if (rel.alias != table) continue;
      for (size_t i = 0; i < rel.columns.size(); i++) {
        if (rel.columns[i].name == column) return found(rel, i);
      }
      throw DbError(sqlstate::kUndefinedColumn,
                    "column " + table + "." + column + " does not exist", e.position);
    }
  }
  throw DbError(sqlstate::kUndefinedTable, "missing FROM-clause entry for table \"" + table + "\"",
                e.position);
}

Table& Binder::LookupTable(const sql::QualifiedName& names, int position) const {
  const std::string& name = names.back();
  if (SystemRelationFor(names) != nullptr) {  // only writes get here (binder_catalog.h)
    throw DbError(sqlstate::kInsufficientPrivilege, "permission denied for table " + name,
                  position);
  }
  if (names.size() > 1 && names[names.size() - 2] != "public") {
    // Only one schema exists; pg_catalog tables are not emulated.
    throw DbError(sqlstate::kUndefinedTable,
                  "relation \"" + names[names.size() - 2] + "." + name + "\" does not exist",
                  position);
  }
  Table* t = catalog_.FindTable(name);
  if (t == nullptr && catalog_.FindView(name) != nullptr) {
    // Only writes get here (FROM expands views first).
    throw DbError(sqlstate::kFeatureNotSupported,
                  "cannot change view \"" + name + "\": views are read-only in Forktail", position);
  }
  if (t == nullptr && catalog_.FindSequence(name) != nullptr) {
    throw DbError(sqlstate::kWrongObjectType, "cannot change sequence \"" + name + "\"", position);
  }
  if (t == nullptr) {
    throw DbError(sqlstate::kUndefinedTable, "relation \"" + name + "\" does not exist", position);
  }
  return *t;
}

std::string BaseTypeName(const Type& t) {
  std::string s = t.ToString();
  size_t paren = s.find('(');
  return paren == std::string::npos ? s : s.substr(0, paren);
}

void RethrowAt(const DbError& e, int position) {
  std::string msg = e.what();
  const char* state = e.sqlstate();
  if (msg.rfind("operator does not exist", 0) == 0) state = sqlstate::kUndefinedFunction;
  DbError at(state, msg, e.position() != 0 ? e.position() : position);
  at.WithHint(e.hint()).WithObject(e.table(), e.constraint(), e.column());
  throw at;
}

namespace {

void CollectFree(const LogicalOp& op, ColumnSet* produced, ColumnSet* used) {
  for (const LogicalOpPtr& c : op.children) CollectFree(*c, produced, used);
  for (const LogicalColumn& c : op.columns) produced->insert(c.id);
  for (const ExprPtr& e : op.conditions) CollectColumns(*e, used);
  for (const ExprPtr& e : op.expressions) CollectColumns(*e, used);
  for (const auto& row : op.rows) {
    for (const ExprPtr& e : row) CollectColumns(*e, used);
  }
  used->insert(op.left_keys.begin(), op.left_keys.end());
  used->insert(op.right_keys.begin(), op.right_keys.end());
  used->insert(op.group_keys.begin(), op.group_keys.end());
  for (const LogicalAggregate& a : op.aggregates) {
    if (a.kind != AggKind::kCountStar) used->insert(a.input);
  }
  for (const SortKeyRef& k : op.sort_keys) used->insert(k.column);
}

}  // namespace

ColumnSet FreeColumns(const LogicalOp& op) {
  ColumnSet produced, used, free;
  CollectFree(op, &produced, &used);
  for (uint32_t id : used) {
    if (!produced.count(id)) free.insert(id);
  }
  return free;
}

}  // namespace forktail
