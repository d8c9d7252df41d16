// A compact, deterministic rendering of the AST for tests and diagnostics.
// Every operator application is parenthesized so the tree shape is visible:
// `a + b * c` prints as `(a + (b * c))`. Keywords print in upper case, names
// and literals as the parser stored them (names already case-folded).
#include <fmt/format.h>

#include "olap/parser/ast.h"

namespace forktail::sql {

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

namespace {

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::string List(const std::vector<ExprPtr>& exprs) {
  std::vector<std::string> parts;
  for (const ExprPtr& e : exprs) parts.push_back(e ? ToString(*e) : "");
  return Join(parts, ", ");
}

std::string Grouping(const GroupingElement& g) {
  using Kind = GroupingElement::Kind;
  if (g.kind == Kind::kList) return "(" + List(g.exprs) + ")";
  std::vector<std::string> parts;
  for (const GroupingElement& e : g.elements) parts.push_back(Grouping(e));
  const char* name = g.kind == Kind::kRollup ? "ROLLUP"
                     : g.kind == Kind::kCube ? "CUBE"
                                             : "GROUPING SETS";
  return std::string(name) + " (" + Join(parts, ", ") + ")";
}

std::string OrderList(const std::vector<OrderItem>& items) {
  std::vector<std::string> parts;
  for (const OrderItem& item : items) {
    std::string s = ToString(*item.expr);
    if (item.direction == SortDirection::kDesc) s += " DESC";
    if (item.nulls == NullsOrder::kFirst) s += " NULLS FIRST";
    if (item.nulls == NullsOrder::kLast) s += " NULLS LAST";
    parts.push_back(std::move(s));
  }
  return Join(parts, ", ");
}

std::string SelectList(const std::vector<SelectItem>& items) {
  std::vector<std::string> parts;
  for (const SelectItem& item : items) {
    std::string s = ToString(*item.expr);
    if (!item.alias.empty()) s += " AS " + item.alias;
    parts.push_back(std::move(s));
  }
  return Join(parts, ", ");
}

std::string FromList(const std::vector<TableRefPtr>& refs) {
  std::vector<std::string> parts;
  for (const TableRefPtr& r : refs) parts.push_back(ToString(*r));
  return Join(parts, ", ");
}

// OVER w, or (w PARTITION BY ... ORDER BY ... frame).
std::string Window(const WindowSpec& w) {
  if (w.bare_name) return w.name;
  std::vector<std::string> parts;
  if (!w.name.empty()) parts.push_back(w.name);
  if (!w.partition_by.empty()) parts.push_back("PARTITION BY " + List(w.partition_by));
  if (!w.order_by.empty()) parts.push_back("ORDER BY " + OrderList(w.order_by));
  if (!w.frame.empty()) parts.push_back(w.frame);
  return "(" + Join(parts, " ") + ")";
}

std::string Function(const Expr& e) {
  std::string s = Join(e.names, ".");
  if (e.no_parens && e.children.empty()) return s;
  s += '(';
  if (e.distinct) s += "DISTINCT ";
  if (e.variadic) s += "VARIADIC ";
  if (e.star) {
    s += "*";
  } else if (e.arg_names.empty()) {
    s += List(e.children);
  } else {
    for (size_t i = 0; i < e.children.size(); ++i) {
      if (i > 0) s += ", ";
      if (!e.arg_names[i].empty()) s += e.arg_names[i] + " => ";
      s += ToString(*e.children[i]);
    }
  }
  if (!e.agg_order.empty() && !e.within_group) s += " ORDER BY " + OrderList(e.agg_order);
  s += ')';
  if (e.within_group) s += " WITHIN GROUP (ORDER BY " + OrderList(e.agg_order) + ")";
  if (e.filter) s += " FILTER (WHERE " + ToString(*e.filter) + ")";
  if (e.over) s += " OVER " + Window(*e.over);
  return s;
}

std::string Literal(const Expr& e) {
  switch (e.literal_kind) {
    case LiteralKind::kNull:
      return "NULL";
    case LiteralKind::kBoolean:
      return e.text == "true" ? "TRUE" : "FALSE";
    case LiteralKind::kInteger:
    case LiteralKind::kNumeric:
      return e.text;
    case LiteralKind::kString:
      return Quote(e.text);
    case LiteralKind::kBitString:
      return (e.text[0] == 'b' ? "B" : "X") + Quote(e.text.substr(1));
    case LiteralKind::kTyped: {
      TypeName base = e.type;
      base.interval_fields.clear();
      if (!e.type.interval_fields.empty()) base.modifiers.clear();
      std::string s = ToString(base) + " " + Quote(e.text);
      if (!e.type.interval_fields.empty()) {
        TypeName fields = e.type;
        fields.schema.clear();
        fields.name.clear();
        s += ToString(fields);
      }
      return s;
    }
  }
  return "?";
}

}  // namespace

std::string ToString(const TypeName& t) {
  std::string s = t.schema.empty() ? t.name : t.schema + "." + t.name;
  if (!t.interval_fields.empty()) s += " " + t.interval_fields;
  if (!t.modifiers.empty()) {
    std::vector<std::string> mods;
    for (int64_t m : t.modifiers) mods.push_back(std::to_string(m));
    s += "(" + Join(mods, ",") + ")";
  }
  for (int i = 0; i < t.array_bounds; ++i) s += "[]";
  return s;
}

std::string ToString(const Expr& e) {
  auto child = [&](size_t i) { return ToString(*e.children[i]); };
  const char* no = e.negated ? "NOT " : "";
  switch (e.kind) {
    case ExprKind::kColumnRef:
      return Join(e.names, ".");
    case ExprKind::kStar:
      return e.names.empty() ? "*" : Join(e.names, ".") + ".*";
    case ExprKind::kLiteral:
      return Literal(e);
    case ExprKind::kParameter:
      return "$" + std::to_string(e.param_index);
    case ExprKind::kUnaryOp: {
      std::string op = e.op_schema.empty() ? e.op : "OPERATOR(" + e.op_schema + "." + e.op + ")";
      std::string operand = child(0);
      // Keep "- -5" from printing as a comment start.
      return "(" + op + (operand[0] == op.back() ? " " : "") + operand + ")";
    }
    case ExprKind::kBinaryOp: {
      std::string op = e.op_schema.empty() ? e.op : "OPERATOR(" + e.op_schema + "." + e.op + ")";
      return "(" + child(0) + " " + op + " " + child(1) + ")";
    }
    case ExprKind::kAnd:
    case ExprKind::kOr: {
      std::vector<std::string> parts;
      for (const ExprPtr& c : e.children) parts.push_back(ToString(*c));
      return "(" + Join(parts, e.kind == ExprKind::kAnd ? " AND " : " OR ") + ")";
    }
    case ExprKind::kNot:
      return "(NOT " + child(0) + ")";
    case ExprKind::kIsNull:
      return "(" + child(0) + " IS " + no + "NULL)";
    case ExprKind::kIsBool: {
      const char* v = e.bool_test == BoolTest::kTrue
                          ? "TRUE"
                          : (e.bool_test == BoolTest::kFalse ? "FALSE" : "UNKNOWN");
      return "(" + child(0) + " IS " + no + v + ")";
    }
    case ExprKind::kIsDistinctFrom:
      return "(" + child(0) + " IS " + no + "DISTINCT FROM " + child(1) + ")";
    case ExprKind::kBetween:
      return "(" + child(0) + " " + no + "BETWEEN " + (e.symmetric ? "SYMMETRIC " : "") + child(1) +
             " AND " + child(2) + ")";
    case ExprKind::kInList: {
      std::vector<std::string> items;
      for (size_t i = 1; i < e.children.size(); ++i) items.push_back(child(i));
      return "(" + child(0) + " " + no + "IN (" + Join(items, ", ") + "))";
    }
    case ExprKind::kInSubquery:
      return "(" + child(0) + " " + no + "IN (" + ToString(*e.subquery) + "))";
    case ExprKind::kLike:
    case ExprKind::kSimilar: {
      const char* op =
          e.kind == ExprKind::kSimilar ? "SIMILAR TO" : (e.case_insensitive ? "ILIKE" : "LIKE");
      std::string s = "(" + child(0) + " " + no + op + " " + child(1);
      if (e.children.size() > 2) s += " ESCAPE " + child(2);
      return s + ")";
    }
    case ExprKind::kExists:
      return "EXISTS (" + ToString(*e.subquery) + ")";
    case ExprKind::kSubquery:
      return "(" + ToString(*e.subquery) + ")";
    case ExprKind::kQuantified: {
      std::string op = e.op_schema.empty() ? e.op : "OPERATOR(" + e.op_schema + "." + e.op + ")";
      std::string rhs = e.subquery ? ToString(*e.subquery) : child(1);
      return "(" + child(0) + " " + op + (e.quantifier == Quantifier::kAll ? " ALL (" : " ANY (") +
             rhs + "))";
    }
    case ExprKind::kCase: {
      std::string s = "CASE";
      if (e.case_operand) s += " " + ToString(*e.case_operand);
      for (const auto& [when, then] : e.whens) {
        s += " WHEN " + ToString(*when) + " THEN " + ToString(*then);
      }
      if (e.else_result) s += " ELSE " + ToString(*e.else_result);
      return s + " END";
    }
    case ExprKind::kCast:
      return "CAST(" + child(0) + " AS " + ToString(e.type) + ")";
    case ExprKind::kFunction:
      return Function(e);
    case ExprKind::kExtract:
      return "EXTRACT(" + e.text + " FROM " + child(0) + ")";
    case ExprKind::kArray:
      return "ARRAY[" + List(e.children) + "]";
    case ExprKind::kArraySubquery:
      return "ARRAY(" + ToString(*e.subquery) + ")";
    case ExprKind::kRow:
      return "ROW(" + List(e.children) + ")";
    case ExprKind::kSubscript: {
      std::string lower = e.children[1] ? child(1) : "";
      if (!e.is_slice) return child(0) + "[" + lower + "]";
      return child(0) + "[" + lower + ":" + (e.children[2] ? child(2) : "") + "]";
    }
    case ExprKind::kFieldSelect:
      return "(" + child(0) + ")." + e.names[0];
    case ExprKind::kDefault:
      return "DEFAULT";
  }
  return "?";
}

std::string ToString(const TableRef& r) {
  std::string s;
  switch (r.kind) {
    case TableRefKind::kTable:
      s = Join(r.names, ".");
      break;
    case TableRefKind::kSubquery:
      s = std::string(r.lateral ? "LATERAL " : "") + "(" + ToString(*r.subquery) + ")";
      break;
    case TableRefKind::kFunction:
      s = std::string(r.lateral ? "LATERAL " : "") + ToString(*r.function);
      if (r.with_ordinality) s += " WITH ORDINALITY";
      break;
    case TableRefKind::kJoin: {
      static constexpr const char* kKinds[] = {"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN",
                                               "CROSS JOIN"};
      s = "(" + ToString(*r.left) + (r.natural ? " NATURAL " : " ") +
          kKinds[static_cast<int>(r.join_kind)] + " " + ToString(*r.right);
      if (r.on) s += " ON " + ToString(*r.on);
      if (!r.using_columns.empty()) s += " USING (" + Join(r.using_columns, ", ") + ")";
      s += ")";
      break;
    }
  }
  if (!r.alias.empty()) s += " AS " + r.alias;
  if (!r.column_types.empty()) {
    std::vector<std::string> defs;
    for (size_t i = 0; i < r.column_aliases.size(); i++) {
      defs.push_back(r.column_aliases[i] + " " + ToString(r.column_types[i]));
    }
    s += std::string(r.alias.empty() ? " AS " : "") + "(" + Join(defs, ", ") + ")";
  } else if (!r.column_aliases.empty()) {
    s += "(" + Join(r.column_aliases, ", ") + ")";
  }
  if (r.sample) {
    s += " TABLESAMPLE " + r.sample->method + "(" + List(r.sample->arguments) + ")";
    if (r.sample->repeatable) s += " REPEATABLE (" + ToString(*r.sample->repeatable) + ")";
  }
  return s;
}

std::string ToString(const Query& q) {
  std::string s;
  if (!q.with.empty()) {
    std::vector<std::string> ctes;
    for (const CommonTableExpr& c : q.with) {
      std::string cte = c.name;
      if (!c.column_names.empty()) cte += "(" + Join(c.column_names, ", ") + ")";
      ctes.push_back(cte + " AS (" + ToString(*c.query) + ")");
    }
    s += std::string("WITH ") + (q.recursive ? "RECURSIVE " : "") + Join(ctes, ", ") + " ";
  }
  switch (q.kind) {
    case QueryKind::kSelect:
      s += "SELECT";
      if (q.distinct) s += " DISTINCT";
      if (!q.distinct_on.empty()) s += " ON (" + List(q.distinct_on) + ")";
      if (!q.select_list.empty()) s += " " + SelectList(q.select_list);
      if (!q.from.empty()) s += " FROM " + FromList(q.from);
      if (q.where) s += " WHERE " + ToString(*q.where);
      if (!q.group_by.empty() || !q.grouping_sets.empty()) {
        std::vector<std::string> items;
        if (!q.group_by.empty()) items.push_back(List(q.group_by));
        for (const GroupingElement& g : q.grouping_sets) items.push_back(Grouping(g));
        s += std::string(" GROUP BY ") + (q.group_distinct ? "DISTINCT " : "") + Join(items, ", ");
      }
      if (q.having) s += " HAVING " + ToString(*q.having);
      if (!q.windows.empty()) {
        std::vector<std::string> defs;
        for (const NamedWindow& w : q.windows) defs.push_back(w.name + " AS " + Window(*w.spec));
        s += " WINDOW " + Join(defs, ", ");
      }
      break;
    case QueryKind::kValues: {
      std::vector<std::string> rows;
      for (const auto& row : q.values) rows.push_back("(" + List(row) + ")");
      s += "VALUES " + Join(rows, ", ");
      break;
    }
    case QueryKind::kSetOp: {
      static constexpr const char* kOps[] = {"UNION", "INTERSECT", "EXCEPT"};
      s += "(" + ToString(*q.left) + ") " + kOps[static_cast<int>(q.set_op)] +
           (q.set_all ? " ALL" : "") + " (" + ToString(*q.right) + ")";
      break;
    }
  }
  if (!q.order_by.empty()) s += " ORDER BY " + OrderList(q.order_by);
  if (q.limit) s += " LIMIT " + ToString(*q.limit);
  if (q.offset) s += " OFFSET " + ToString(*q.offset);
  if (!q.locking.empty()) {
    s += " FOR " + q.locking;
    std::vector<std::string> of;
    for (const QualifiedName& name : q.locking_of) of.push_back(Join(name, "."));
    if (!of.empty()) s += " OF " + Join(of, ", ");
    if (!q.locking_wait.empty()) s += " " + q.locking_wait;
  }
  return s;
}

}  // namespace forktail::sql
