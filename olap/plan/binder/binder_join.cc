#include "olap/plan/binder/binder_join.h"

#include <algorithm>

#include "olap/plan/constant_folding.h"
#include "olap/plan/logical_util.h"

namespace forktail {

namespace {

struct Found {
  const LogicalColumn* column = nullptr;
  int count = 0;
};

// The visible (unhidden) columns named `name` among a side's relations.
Found FindVisible(const Scope& side, const std::string& name) {
  Found f;
  for (const ScopeRelation& rel : side.relations) {
    for (size_t i = 0; i < rel.columns.size(); i++) {
      if (rel.hidden[i] || rel.columns[i].name != name) continue;
      if (f.count++ == 0) f.column = &rel.columns[i];
    }
  }
  return f;
}

const LogicalColumn& UsingColumn(const Scope& side, const std::string& name, const char* which) {
  Found f = FindVisible(side, name);
  if (f.count == 0) {
    throw DbError(
        sqlstate::kUndefinedColumn,
        "column \"" + name + "\" specified in USING clause does not exist in " + which + " table");
  }
  if (f.count > 1) {
    throw DbError(
        sqlstate::kAmbiguousColumn,
        "common column name \"" + name + "\" appears more than once in " + which + " table");
  }
  return *f.column;
}

ExprPtr CastTo(ExprPtr e, const Type& t) {
  if (e->type == t) return e;
  return Cast(std::move(e), t);
}

}  // namespace

std::vector<std::string> NaturalJoinColumns(const Scope& left, const Scope& right) {
  std::vector<std::string> names;
  for (const ScopeRelation& rel : left.relations) {
    for (size_t i = 0; i < rel.columns.size(); i++) {
      const std::string& n = rel.columns[i].name;
      if (rel.hidden[i] || std::find(names.begin(), names.end(), n) != names.end()) continue;
      if (FindVisible(right, n).count > 0) names.push_back(n);
    }
  }
  return names;
}

UsingMerge BindUsingColumns(Binder& binder, const std::vector<std::string>& names,
                            sql::JoinKind kind, const Scope& left, const Scope& right, Scope* both,
                            std::vector<ExprPtr>* conditions) {
  UsingMerge merge;
  for (size_t k = 0; k < names.size(); k++) {
    const std::string& name = names[k];
    if (std::find(names.begin(), names.begin() + static_cast<long>(k), name) !=
        names.begin() + static_cast<long>(k)) {
      throw DbError(sqlstate::kDuplicateColumn,
                    "column name \"" + name + "\" appears more than once in USING clause");
    }
    const LogicalColumn l = UsingColumn(left, name, "left");
    const LogicalColumn r = UsingColumn(right, name, "right");
    Type t;
    try {
      t = CommonType(l.type, r.type, false);
      conditions->push_back(
          Compare(CompareOp::kEq, ColumnRef(l.id, l.type), ColumnRef(r.id, r.type)));
    } catch (const DbError&) {
      throw DbError(sqlstate::kDatatypeMismatch, "JOIN/USING types " + BaseTypeName(l.type) +
                                                     " and " + BaseTypeName(r.type) +
                                                     " cannot be matched");
    }
    for (ScopeRelation& rel : both->relations) {
      for (size_t i = 0; i < rel.columns.size(); i++) {
        if (rel.columns[i].id == l.id || rel.columns[i].id == r.id) rel.hidden[i] = true;
      }
    }
    if (t.IsString() && !(l.type == r.type)) t = Type::Text();
    const LogicalColumn& kept = kind == sql::JoinKind::kRight ? r : l;
    LogicalColumn out{kept.id, name, kept.type};
    if (kind == sql::JoinKind::kFull || !(kept.type == t)) {
      out = {binder.NewId(), name, t};
      ExprPtr e;
      if (kind == sql::JoinKind::kFull) {
        std::vector<ExprPtr> args;
        args.push_back(CastTo(ColumnRef(l.id, l.type), t));
        args.push_back(CastTo(ColumnRef(r.id, r.type), t));
        e = Coalesce(std::move(args));
      } else {
        e = CastTo(ColumnRef(kept.id, kept.type), t);
      }
      merge.computed.push_back(out);
      merge.exprs.push_back(std::move(e));
    }
    merge.merged.columns.push_back(out);
    merge.merged.hidden.push_back(false);
  }
  return merge;
}

void PrepareFullJoinKeys(Binder& binder, LogicalOpPtr* left, LogicalOpPtr* right,
                         std::vector<ExprPtr>* conditions) {
  std::vector<ExprPtr> conjuncts, kept;
  for (ExprPtr& c : *conditions) SplitConjuncts(std::move(c), &conjuncts);
  conditions->clear();
  const ColumnSet lids = OutputIds(**left), rids = OutputIds(**right);
  bool keyed = false, never = false, other = false;
  for (ExprPtr& c : conjuncts) {
    if (ColumnsOf(*c).empty()) {
      c = FoldExpression(std::move(c));
      if (IsTrueConstant(*c)) continue;
      if (IsFalseOrNullConstant(*c)) {
        never = true;
        continue;
      }
      kept.push_back(std::move(c));
      continue;
    }
    if (c->kind == ExprKind::kCompare && c->compare == CompareOp::kEq) {
      ExprPtr& a = c->children[0];
      ExprPtr& b = c->children[1];
      const ColumnSet ca = ColumnsOf(*a), cb = ColumnsOf(*b);
      const bool a_left = !ca.empty() && RefersOnlyTo(*a, lids);
      const bool b_right = !cb.empty() && RefersOnlyTo(*b, rids);
      const bool a_right = !ca.empty() && RefersOnlyTo(*a, rids);
      const bool b_left = !cb.empty() && RefersOnlyTo(*b, lids);
      if ((a_left && b_right) || (a_right && b_left)) {
        ExprPtr& le = a_left ? a : b;
        ExprPtr& re = a_left ? b : a;
        const Type lt = le->type, rt = re->type;
        uint32_t lk = binder.Materialize(left, std::move(le), lt);
        uint32_t rk = binder.Materialize(right, std::move(re), rt);
        kept.push_back(Compare(CompareOp::kEq, ColumnRef(lk, lt), ColumnRef(rk, rt)));
        keyed = true;
        continue;
      }
    }
    other = true;
    kept.push_back(std::move(c));
  }
  if (never || (!keyed && !other)) {
    // No pair can match (FALSE), or every pair does (no condition): a
    // constant key on each side, different or equal.
    uint32_t lk = binder.Materialize(left, Constant(Value::Integer(0)), Type::Integer());
    uint32_t rk =
        binder.Materialize(right, Constant(Value::Integer(never ? 1 : 0)), Type::Integer());
    conditions->push_back(
        Compare(CompareOp::kEq, ColumnRef(lk, Type::Integer()), ColumnRef(rk, Type::Integer())));
    if (never) return;
  }
  for (ExprPtr& c : kept) conditions->push_back(std::move(c));
}

LogicalOpPtr AddUsingMerge(LogicalOpPtr join, UsingMerge* merge) {
  if (merge->computed.empty()) return join;
  auto op = std::make_unique<LogicalOp>();
  op->kind = LogicalOpKind::kProject;
  for (const LogicalColumn& c : join->columns) {
    op->columns.push_back(c);
    op->expressions.push_back(ColumnRef(c.id, c.type));
  }
  for (size_t i = 0; i < merge->computed.size(); i++) {
    op->columns.push_back(merge->computed[i]);
    op->expressions.push_back(std::move(merge->exprs[i]));
  }
  op->children.push_back(std::move(join));
  return op;
}

}  // namespace forktail
