#include "olap/plan/planner/index_selection.h"

#include <algorithm>
#include <map>

#include "olap/plan/logical.h"
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
  const Expression* source = nullptr;  // the conjunct
};

// Adds the qualifying conjuncts of `e` to `out`; counts every conjunct (the
// leaves of its ANDs) in *conjuncts.
void Collect(const Expression& e, const TableSchema& schema, const TableColumnOf& column_of,
             std::map<uint16_t, std::vector<ColumnBound>>* out, size_t* conjuncts) {
  if (e.kind == ExprKind::kAnd) {
    for (const ExprPtr& c : e.children) Collect(*c, schema, column_of, out, conjuncts);
    return;
  }
  ++*conjuncts;
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
  std::optional<Value> value = CastExactly(constant->constant, type);
  if (!value) return;
  (*out)[id->value()].push_back({op, std::move(*value), &e});
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
  // NULL only as ChooseIndexForJoin's placeholder for a join key.
  if (b.value.is_null()) return column + " " + CompareSymbol(b.op) + " <join key>";
  std::string text = b.value.ToString();
  if (b.value.type().IsString() || b.value.type().IsDateTime()) {
    std::string quoted = "'";
    for (char c : text) quoted += c == '\'' ? std::string("''") : std::string(1, c);
    text = quoted + "'";
  }
  return column + " " + CompareSymbol(b.op) + " " + text;
}

}  // namespace

namespace {

// The conjuncts of a WHERE, sorted by column, for judging candidate indexes.
struct Bounds {
  std::map<uint16_t, std::vector<ColumnBound>> by_column;
  size_t conjuncts = 0;  // all of them, qualifying or not

  const ColumnBound* Eq(ColumnId c) const {
    auto it = by_column.find(c.value());
    return it == by_column.end() ? nullptr : FindOp(it->second, IsEq);
  }
};

// What an ordered index over `columns` can fix of `bounds`: its `=` prefix
// and a range on the next column.
struct Candidate {
  IndexChoice choice;
  size_t score = 0;  // 0: nothing fixed
  // Every conjunct is fixed by the probe: the rows it finds are exactly the
  // accepted ones (a LIMIT can stop the probe).
  bool exact = false;
};

Candidate Evaluate(const Bounds& bounds, const TableSchema& schema,
                   const std::vector<ColumnId>& columns, int position, const std::string& name) {
  Candidate out;
  IndexChoice& choice = out.choice;
  choice.range.index = position;
  choice.name = name;
  size_t used = 0;
  size_t k = 0;
  for (; k < columns.size(); k++) {
    const ColumnBound* eq = bounds.Eq(columns[k]);
    if (eq == nullptr) break;
    choice.range.equal.push_back(eq->value);
    choice.condition +=
        (choice.condition.empty() ? "" : " AND ") + Show(schema.column(columns[k]).name, *eq);
    used++;
  }
  // An `=` counts over any range; a range bounded on both sides over one
  // bounded on one.
  out.score = 4 * k;
  if (k < columns.size()) {
    auto it = bounds.by_column.find(columns[k].value());
    if (it != bounds.by_column.end()) {
      const std::string& column = schema.column(columns[k]).name;
      if (const ColumnBound* lo = FindOp(it->second, IsLower)) {
        choice.range.lower = IndexBound{lo->value, lo->op == CompareOp::kGe};
        choice.condition += (choice.condition.empty() ? "" : " AND ") + Show(column, *lo);
        out.score++;
        used++;
      }
      if (const ColumnBound* hi = FindOp(it->second, IsUpper)) {
        choice.range.upper = IndexBound{hi->value, hi->op == CompareOp::kLe};
        choice.condition += (choice.condition.empty() ? "" : " AND ") + Show(column, *hi);
        out.score++;
        used++;
      }
    }
  }
  out.exact = used == bounds.conjuncts;
  return out;
}

Bounds CollectBounds(const std::vector<const Expression*>& conjuncts, const TableSchema& schema,
                     const TableColumnOf& column_of) {
  Bounds bounds;
  for (const Expression* e : conjuncts) {
    Collect(*e, schema, column_of, &bounds.by_column, &bounds.conjuncts);
  }
  return bounds;
}

// Calls fn(columns, position, name) for each ordered index: the secondary
// ones, then the primary key's (storage/table/table.h), so that on a tie an
// index someone created wins.
template <typename Fn>
void ForEachOrderedIndex(const TableSchema& schema, Fn fn) {
  for (size_t i = 0; i < schema.indexes.size(); i++) {
    fn(schema.indexes[i].columns, static_cast<int>(i), schema.indexes[i].name);
  }
  if (!schema.primary_key.empty()) {
    fn(schema.primary_key, IndexRange::kPrimaryKeyOrder, schema.name + "_pkey");
  }
}

// Whether an ordered index over `columns` whose first `equal` columns are
// fixed reads its entries in `order` (forward or backward): the order's
// columns, skipping those fixed, are the next index columns, all in one
// direction with PostgreSQL's default NULL placement (the index sorts NULLs
// last), of types whose byte order is their SQL order. Sets *descending.
bool ReadsInOrder(const std::vector<ColumnId>& columns, size_t equal,
                  const std::vector<IndexOrderKey>& order, const TableSchema& schema,
                  bool* descending) {
  size_t next = equal;
  std::optional<bool> direction;
  for (const IndexOrderKey& key : order) {
    auto fixed = std::find(columns.begin(), columns.begin() + static_cast<std::ptrdiff_t>(equal),
                           key.column);
    if (fixed != columns.begin() + static_cast<std::ptrdiff_t>(equal)) continue;
    if (next == columns.size() || columns[next] != key.column) return false;
    if (key.nulls_first != key.descending) return false;
    if (direction && *direction != key.descending) return false;
    const TypeId type = schema.column(key.column).type.id;
    if (type == TypeId::kChar || type == TypeId::kDouble) return false;
    direction = key.descending;
    next++;
  }
  *descending = direction.value_or(false);
  return true;
}

}  // namespace

namespace {

// A choice and how much of the WHERE it fixes (Evaluate's score; the whole
// primary key by its hash index beats any ordered probe).
struct Scored {
  IndexChoice choice;
  size_t score = 0;
};
constexpr size_t kWholeKeyScore = size_t{1} << 20;
// Past this many alternatives an OR (or IN list) is filtered by a scan.
constexpr size_t kMaxAlternatives = 1000;

std::optional<Scored> ChooseOne(const Bounds& bounds, const TableSchema& schema) {
  if (bounds.by_column.empty()) return std::nullopt;
  if (!schema.primary_key.empty()) {
    IndexChoice choice;
    choice.name = schema.name + "_pkey";
    for (ColumnId c : schema.primary_key) {
      const ColumnBound* eq = bounds.Eq(c);
      if (eq == nullptr) break;
      choice.range.equal.push_back(eq->value);
      choice.condition +=
          (choice.condition.empty() ? "" : " AND ") + Show(schema.column(c).name, *eq);
    }
    if (choice.range.equal.size() == schema.primary_key.size()) {
      return Scored{std::move(choice), kWholeKeyScore};
    }
  }
  std::optional<Scored> best;
  ForEachOrderedIndex(
      schema, [&](const std::vector<ColumnId>& columns, int position, const std::string& name) {
        Candidate c = Evaluate(bounds, schema, columns, position, name);
        if (c.score > 0 && (!best || c.score > best->score)) {
          best = Scored{std::move(c.choice), c.score};
        }
      });
  return best;
}

void Flatten(const Expression& e, ExprKind kind, std::vector<const Expression*>* out) {
  if (e.kind == kind) {
    for (const ExprPtr& c : e.children) Flatten(*c, kind, out);
  } else {
    out->push_back(&e);
  }
}

// Adds to *out one probe per branch of the disjunct `e`: an OR's branches, a
// column IN (constants)'s values, or else `e` itself (its qualifying
// conjuncts; any probe that finds a superset of the branch's rows will do).
// Each branch is taken together with `context`, the WHERE's other conjuncts
// (the optimizer factors a row IN list's common column out of its OR:
// s_w_id = 1 AND (s_i_id = 5 OR s_i_id = 7)). False when a branch has no
// index or there are too many.
bool AddBranches(const Expression& e, const std::vector<const Expression*>& context,
                 const TableSchema& schema, const TableColumnOf& column_of, Scored* out) {
  auto add = [&](const Bounds& bounds) {
    std::optional<Scored> one = ChooseOne(bounds, schema);
    if (!one || out->choice.range.any_of.size() >= kMaxAlternatives) return false;
    out->score = std::min(out->score, one->score);
    if (out->choice.name.empty()) out->choice.name = one->choice.name;
    if (one->choice.name != out->choice.name) out->choice.name = "(several)";
    out->choice.condition +=
        (out->choice.condition.empty() ? "" : " OR ") + ("(" + one->choice.condition + ")");
    out->choice.range.any_of.push_back(std::move(one->choice.range));
    return true;
  };
  if (e.kind == ExprKind::kOr) {
    for (const ExprPtr& c : e.children) {
      if (!AddBranches(*c, context, schema, column_of, out)) return false;
    }
    return true;
  }
  if (e.kind == ExprKind::kIn && !e.negated && e.children.size() == 1) {
    const Expression* column = IndexedColumnSide(*e.children[0]);
    std::optional<ColumnId> id = column ? column_of(*column) : std::nullopt;
    if (!id || schema.column(*id).type.id == TypeId::kDouble) return false;
    const Bounds others = CollectBounds(context, schema, column_of);  // once per list
    for (const Value& v : e.in_list) {
      if (v.is_null()) continue;  // matches no row
      std::optional<Value> exact = CastExactly(v, schema.column(*id).type);
      if (!exact) return false;
      Bounds b = others;
      b.by_column[id->value()].push_back({CompareOp::kEq, std::move(*exact), &e});
      b.conjuncts++;
      if (!add(b)) return false;
    }
    return true;
  }
  std::vector<const Expression*> conjuncts = context;
  Flatten(e, ExprKind::kAnd, &conjuncts);
  return add(CollectBounds(conjuncts, schema, column_of));
}

// A disjunction (OR, a row value's IN list, or column IN (constants)) as the
// union of one probe per branch; nullopt unless every branch has an index.
// Scored as its weakest branch.
std::optional<Scored> ChooseUnion(const Expression& e,
                                  const std::vector<const Expression*>& context,
                                  const TableSchema& schema, const TableColumnOf& column_of) {
  Scored out;
  out.score = kWholeKeyScore;
  if (!AddBranches(e, context, schema, column_of, &out) || out.choice.range.any_of.empty()) {
    return std::nullopt;
  }
  return out;
}

}  // namespace

std::optional<IndexChoice> ChooseIndex(const std::vector<const Expression*>& conjuncts,
                                       const TableSchema& schema, const TableColumnOf& column_of) {
  std::optional<Scored> best = ChooseOne(CollectBounds(conjuncts, schema, column_of), schema);
  // A conjunct that is a disjunction may narrow more, one probe per branch.
  std::vector<const Expression*> flat;
  for (const Expression* e : conjuncts) Flatten(*e, ExprKind::kAnd, &flat);
  for (const Expression* e : flat) {
    if (e->kind != ExprKind::kOr && e->kind != ExprKind::kIn) continue;
    std::vector<const Expression*> context;
    for (const Expression* other : flat) {
      if (other != e) context.push_back(other);
    }
    std::optional<Scored> u = ChooseUnion(*e, context, schema, column_of);
    if (u && (!best || u->score > best->score)) best = std::move(u);
  }
  if (!best) return std::nullopt;
  return std::move(best->choice);
}

std::optional<IndexJoinChoice> ChooseIndexForJoin(
    const std::vector<const Expression*>& conjuncts, const TableSchema& schema,
    const TableColumnOf& column_of, const std::vector<std::optional<ColumnId>>& join_columns) {
  Bounds bounds = CollectBounds(conjuncts, schema, column_of);
  std::optional<Scored> alone = ChooseOne(bounds, schema);
  // Marks the bounds a build key fills; after the WHERE's own, so that a
  // column with both is fixed by its constant.
  static const Expression kJoinKey;
  for (const std::optional<ColumnId>& c : join_columns) {
    if (!c || schema.column(*c).type.id == TypeId::kDouble) continue;
    bounds.by_column[c->value()].push_back(
        {CompareOp::kEq, Value::Null(schema.column(*c).type), &kJoinKey});
  }
  std::optional<Scored> joined = ChooseOne(bounds, schema);
  if (!joined || (alone && joined->score <= alone->score)) return std::nullopt;
  IndexJoinChoice out;
  out.pattern = std::move(joined->choice.range);
  out.name = std::move(joined->choice.name);
  const int index = out.pattern.index;
  const std::vector<ColumnId>& columns =
      index < 0 ? schema.primary_key : schema.indexes.at(static_cast<size_t>(index)).columns;
  for (size_t p = 0; p < out.pattern.equal.size(); p++) {
    const ColumnBound* eq = bounds.Eq(columns[p]);
    const std::string& name = schema.column(columns[p]).name;
    std::string shown;
    if (eq->source == &kJoinKey) {
      const size_t k = static_cast<size_t>(
          std::find(join_columns.begin(), join_columns.end(), columns[p]) - join_columns.begin());
      out.fill.emplace_back(p, k);
      out.types.push_back(schema.column(columns[p]).type);
      shown = name + " = <join key>";
    } else {
      shown = Show(name, *eq);
    }
    out.condition += (out.condition.empty() ? "" : " AND ") + shown;
  }
  if (out.pattern.lower || out.pattern.upper) {  // on the column after the prefix
    const std::string& name = schema.column(columns[out.pattern.equal.size()]).name;
    if (const auto& lo = out.pattern.lower) {
      out.condition += " AND " + Show(name, {lo->inclusive ? CompareOp::kGe : CompareOp::kGt,
                                             lo->value, nullptr});
    }
    if (const auto& hi = out.pattern.upper) {
      out.condition += " AND " + Show(name, {hi->inclusive ? CompareOp::kLe : CompareOp::kLt,
                                             hi->value, nullptr});
    }
  }
  if (out.fill.empty()) return std::nullopt;
  return out;
}

std::optional<IndexChoice> ChooseIndexForOrder(const std::vector<const Expression*>& conjuncts,
                                               const TableSchema& schema,
                                               const TableColumnOf& column_of,
                                               const std::vector<IndexOrderKey>& order,
                                               size_t first) {
  if (order.empty() || first == 0) return std::nullopt;
  const Bounds bounds = CollectBounds(conjuncts, schema, column_of);
  std::optional<Candidate> best;
  ForEachOrderedIndex(
      schema, [&](const std::vector<ColumnId>& columns, int position, const std::string& name) {
        Candidate c = Evaluate(bounds, schema, columns, position, name);
        bool descending = false;
        if (!c.exact ||
            !ReadsInOrder(columns, c.choice.range.equal.size(), order, schema, &descending)) {
          return;
        }
        if (best && c.score <= best->score) return;
        c.choice.range.first = first;
        c.choice.range.descending = descending;
        c.choice.condition += std::string(c.choice.condition.empty() ? "" : " ") + "first " +
                              std::to_string(first) + (descending ? " backward" : "");
        best = std::move(c);
      });
  if (!best) return std::nullopt;
  return std::move(best->choice);
}

std::optional<TableOrder> TableOrderBelow(const LogicalOp& sort, size_t first) {
  // The sort keys, followed down through Projects of plain columns, then at
  // most one Filter right above the Get (PlanGet evaluates its conditions
  // with the Get's own, so the index choice sees every condition on the
  // rows; a Filter higher up would drop rows after the probe stopped).
  std::vector<SortKeyRef> keys = sort.sort_keys;
  const LogicalOp* op = sort.children.at(0).get();
  while (op->kind == LogicalOpKind::kProject) {
    for (SortKeyRef& key : keys) {
      size_t j = 0;
      while (j < op->columns.size() && op->columns[j].id != key.column) j++;
      if (j == op->columns.size() || j >= op->expressions.size()) return std::nullopt;
      const Expression& e = *op->expressions[j];
      if (e.kind != ExprKind::kColumnRef) return std::nullopt;
      key.column = e.column;
    }
    op = op->children.at(0).get();
  }
  if (op->kind == LogicalOpKind::kFilter) op = op->children.at(0).get();
  if (op->kind != LogicalOpKind::kGet || !op->runtime_filters.empty()) return std::nullopt;
  TableOrder hint;
  hint.get = op;
  hint.first = first;
  for (const SortKeyRef& key : keys) {
    size_t i = 0;
    while (i < op->columns.size() && op->columns[i].id != key.column) i++;
    if (i == op->columns.size() || i >= op->table_columns.size()) return std::nullopt;
    hint.keys.push_back(
        {ColumnId(static_cast<uint16_t>(op->table_columns[i])), key.descending, key.nulls_first});
  }
  return hint;
}

}  // namespace forktail
