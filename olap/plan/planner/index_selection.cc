#include "olap/plan/planner/index_selection.h"

#include <map>

#include "storage/error.h"

namespace forktail {

const Expression* IndexedColumnSide(const Expression& e) {
  if (e.kind == ExprKind::kColumnRef) return &e;
  if (e.kind == ExprKind::kCast && e.type.IsInteger() && e.children.size() == 1 &&
      e.children[0]->kind == ExprKind::kColumnRef && e.children[0]->type.IsInteger()) {
    return e.children[0].get();
  }
  return nullptr;
}

namespace {

// One qualifying conjunct: column <op> value, value of the column's type.
struct ColumnBound {
  CompareOp op;
  Value value;
};

// `v` as a value of `type` when the conversion loses nothing.
std::optional<Value> Exactly(const Value& v, const Type& type) {
  if (v.is_null()) return std::nullopt;
  try {
    Value cast = v.CastTo(type);
    if (cast.is_null() || cast.Compare(v) != 0) return std::nullopt;
    return cast;
  } catch (const DbError&) {
    return std::nullopt;
  }
}

void Collect(const Expression& e, const TableSchema& schema, const TableColumnOf& column_of,
             std::map<uint16_t, std::vector<ColumnBound>>* out) {
  if (e.kind == ExprKind::kAnd) {
    for (const ExprPtr& c : e.children) Collect(*c, schema, column_of, out);
    return;
  }
  if (e.kind != ExprKind::kCompare || e.compare == CompareOp::kNe || e.children.size() != 2) return;
  CompareOp op = e.compare;
  const Expression* column = IndexedColumnSide(*e.children[0]);
  const Expression* constant = e.children[1].get();
  if (column == nullptr) {
    column = IndexedColumnSide(*e.children[1]);
    constant = e.children[0].get();
    op = FlipComparison(op);
  }
  if (column == nullptr || constant->kind != ExprKind::kConstant) return;
  std::optional<ColumnId> id = column_of(*column);
  if (!id) return;
  const Type& type = schema.column(*id).type;
  if (type.id == TypeId::kDouble) return;
  if (type.id == TypeId::kChar && op != CompareOp::kEq) return;
  std::optional<Value> value = Exactly(constant->constant, type);
  if (!value) return;
  (*out)[id->value()].push_back({op, std::move(*value)});
}

const ColumnBound* FindOp(const std::vector<ColumnBound>& bounds, bool (*pred)(CompareOp)) {
  for (const ColumnBound& b : bounds) {
    if (pred(b.op)) return &b;
  }
  return nullptr;
}

bool IsEq(CompareOp op) { return op == CompareOp::kEq; }
bool IsLower(CompareOp op) { return op == CompareOp::kGt || op == CompareOp::kGe; }
bool IsUpper(CompareOp op) { return op == CompareOp::kLt || op == CompareOp::kLe; }

std::string Show(const std::string& column, const ColumnBound& b) {
  std::string text = b.value.ToString();
  if (b.value.type().IsString() || b.value.type().IsDateTime()) {
    std::string quoted = "'";
    for (char c : text) quoted += c == '\'' ? std::string("''") : std::string(1, c);
    text = quoted + "'";
  }
  return column + " " + CompareSymbol(b.op) + " " + text;
}

}  // namespace

std::optional<IndexChoice> ChooseIndex(const std::vector<const Expression*>& conjuncts,
                                       const TableSchema& schema, const TableColumnOf& column_of) {
  std::map<uint16_t, std::vector<ColumnBound>> bounds;
  for (const Expression* e : conjuncts) Collect(*e, schema, column_of, &bounds);
  if (bounds.empty()) return std::nullopt;
  auto eq_of = [&](ColumnId c) -> const ColumnBound* {
    auto it = bounds.find(c.value());
    return it == bounds.end() ? nullptr : FindOp(it->second, IsEq);
  };

  if (!schema.primary_key.empty()) {
    IndexChoice choice;
    choice.name = schema.name + "_pkey";
    for (ColumnId c : schema.primary_key) {
      const ColumnBound* eq = eq_of(c);
      if (eq == nullptr) break;
      choice.range.equal.push_back(eq->value);
      choice.condition +=
          (choice.condition.empty() ? "" : " AND ") + Show(schema.column(c).name, *eq);
    }
    if (choice.range.equal.size() == schema.primary_key.size()) return choice;
  }

  std::optional<IndexChoice> best;
  size_t best_score = 0;
  for (size_t i = 0; i < schema.indexes.size(); i++) {
    const IndexDef& index = schema.indexes[i];
    IndexChoice choice;
    choice.range.index = static_cast<int>(i);
    choice.name = index.name;
    size_t k = 0;
    for (; k < index.columns.size(); k++) {
      const ColumnBound* eq = eq_of(index.columns[k]);
      if (eq == nullptr) break;
      choice.range.equal.push_back(eq->value);
      choice.condition += (choice.condition.empty() ? "" : " AND ") +
                          Show(schema.column(index.columns[k]).name, *eq);
    }
    size_t score = 2 * k;
    if (k < index.columns.size()) {
      auto it = bounds.find(index.columns[k].value());
      if (it != bounds.end()) {
        const std::string& name = schema.column(index.columns[k]).name;
        if (const ColumnBound* lo = FindOp(it->second, IsLower)) {
          choice.range.lower = IndexBound{lo->value, lo->op == CompareOp::kGe};
          choice.condition += (choice.condition.empty() ? "" : " AND ") + Show(name, *lo);
        }
        if (const ColumnBound* hi = FindOp(it->second, IsUpper)) {
          choice.range.upper = IndexBound{hi->value, hi->op == CompareOp::kLe};
          choice.condition += (choice.condition.empty() ? "" : " AND ") + Show(name, *hi);
        }
        if (choice.range.lower || choice.range.upper) score++;
      }
    }
    if (score > best_score) {
      best_score = score;
      best = std::move(choice);
    }
  }
  return best;
}

}  // namespace forktail
